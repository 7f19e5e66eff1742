//! `rarity select`: rank learners for a target population by ReverseTesting
//! (or, for comparison, cross-validation, leave-one-out or training accuracy).

use std::path::PathBuf;

use serde_json::json;

use super::output::{num, print_json, write_stdout, Table};
use super::{Global, OutputFormat};
use rarity::data::read::{read_path, read_population, ReadOptions};
use rarity::error::{Error, Result};
use rarity::experiment::bias::true_ranking;
use rarity::select::method::{select, Diagnosis, Method, DEFAULT_METHOD};
use rarity::select::ranking::{Outcome, Ranking};
use rarity::select::variant::{Measure, ReverseTestingVariant};
use rarity::strategy::RARE_SHARE;

/// Arguments of `rarity select`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The labelled (possibly biased) training set D.
    #[arg(long)]
    train: PathBuf,
    /// The unlabelled target population T, a file (a label column, if
    /// present, is ignored). `--target` is accepted as an older name.
    #[arg(long, alias = "target", value_name = "FILE")]
    population: PathBuf,
    /// The label column of the training set (default: last).
    #[arg(long)]
    label: Option<String>,
    /// Learner specs separated by commas, e.g. `tree,forest(n=10),rdt`.
    #[arg(long)]
    learners: String,
    /// The selection method: `reverse-testing`, `cv`, `loo`, `train`,
    /// `iwcv` (importance-weighted cross-validation), `prior-cv`
    /// (prior-corrected cross-validation), with arguments such as
    /// `iwcv(ratio=ulsif)` or `cv(folds=5)`; the default is the method that
    /// measured best (docs/reverse-testing.md).
    #[arg(long, default_value = DEFAULT_METHOD)]
    method: String,
    /// The ReverseTesting variant: `default` (the best-measuring one, see
    /// docs/reverse-testing.md), `paper` (the literal algorithm), `priors`,
    /// `sample`, and/or `labels=argmax|priors|sample`, `measure=METRIC`,
    /// `decide=strict|sum`, `judges=pair|all`, e.g. `paper,decide=sum`.
    #[arg(long, default_value = "default")]
    variant: String,
    /// The measure on the training set: any metric of `rarity score`.
    #[arg(long, default_value = "accuracy")]
    metric: String,
    /// Example-dependent benefit instead of a metric: `amount=COL,overhead=V`.
    #[arg(long)]
    benefit: Option<String>,
    /// The target set's true label column: also report the true order.
    #[arg(long)]
    truth: Option<String>,
}

fn outcome_text(r: &Ranking, a: usize, b: usize, o: Outcome) -> String {
    match o {
        Outcome::First => format!("{} better", r.learners[a]),
        Outcome::Second => format!("{} better", r.learners[b]),
        Outcome::Undecided => "undecided".into(),
    }
}

/// The name of a variant's measure.
fn measure_name(v: &ReverseTestingVariant) -> String {
    match &v.measure {
        Measure::Metric(m) => m.clone(),
        Measure::Benefit { .. } => "total benefit".into(),
    }
}

/// What the bias tests found, in two lines.
fn bias_text(d: &Diagnosis) -> String {
    let list = |v: &[f64]| v.iter().map(|x| num(*x, 3)).collect::<Vec<_>>().join(", ");
    format!(
        "bias detected: {}\n  covariate shift: training-vs-target classifier AUC {} (z = {}; near 0.5: none){}\n  prior shift: training priors [{}], estimated target priors [{}] (likelihood-ratio p = {}){}\n",
        d.detected,
        num(d.shift.auc, 3),
        num(d.shift.z, 1),
        if d.shift.detected { ", detected" } else { "" },
        list(&d.priors.train),
        list(&d.priors.mean),
        num(d.priors.p_value, 4),
        if d.priors.detected { ", detected" } else { "" },
    )
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let opts = ReadOptions {
        target: a.label.clone(),
        ..ReadOptions::default()
    };
    let (train, _) = read_path(&a.train, &opts)?;
    let file = std::fs::File::open(&a.population).map_err(|e| Error::io(&a.population, e))?;
    let target = read_population(
        file,
        &a.population.display().to_string(),
        b',',
        train.schema(),
    )?;
    let learners = rarity::spec::build_learners(&a.learners)?;
    // ReverseTesting uses `variant`; the comparators and the true order use
    // the metric (or benefit) itself, with argmax labels.
    let mut variant = ReverseTestingVariant::parse(&a.variant, &a.metric)?;
    let mut plain = ReverseTestingVariant::parse("paper", &a.metric)?;
    if let Some(b) = &a.benefit {
        variant.measure = Measure::Benefit(super::run::parse_benefit(b)?);
        plain.measure = variant.measure.clone();
    }
    let mut method = Method::parse(&a.method, &a.metric, &a.variant)?;
    if let (Method::ReverseTesting(v), Measure::Benefit(_)) = (&mut method, &plain.measure) {
        v.measure = plain.measure.clone();
    }
    let (found, diagnosis, truth) = super::bar::during(g, || {
        let (found, diagnosis) = select(&method, &learners, &train, &target, &plain, g.seed)?;
        let truth = match &a.truth {
            Some(col) => {
                let o = ReadOptions {
                    target: Some(col.clone()),
                    ..ReadOptions::default()
                };
                let (labelled, _) = read_path(&a.population, &o)?;
                let counts = labelled.class_counts();
                let rarest = counts.iter().copied().min().unwrap_or(0) as f64
                    / counts.iter().sum::<usize>().max(1) as f64;
                Some((
                    true_ranking(&learners, &train, &labelled, &plain, g.seed)?,
                    rarest,
                ))
            }
            None => None,
        };
        Ok::<_, Error>((found, diagnosis, truth))
    })?;
    let ranking = &found.ranking;
    let truth_note = truth.as_ref().and_then(|(t, rarest)| {
        let note = ranking.disagreement_with(t)?;
        let measure = measure_name(&plain);
        let why = if *rarest < RARE_SHARE && !RANKING_MEASURES.contains(&measure.as_str()) {
            format!(
                ". The truth is measured by {measure}, which on a class of {:.2}% of the rows \
                 separates learners by a few rows; --metric average_precision or roc_auc \
                 compares how they rank the rare class",
                100.0 * rarest
            )
        } else {
            format!(". The truth is measured by {measure}")
        };
        Some(format!("{note}{why}"))
    });
    let truth = truth.map(|(t, _)| t);
    if g.format == OutputFormat::Json {
        return print_json(&json!({
            "method": a.method,
            "spec": method.to_string(),
            "variant": variant.to_string(),
            "ranking": ranking,
            "scores": found.scores,
            "weights": found.weights,
            "priors": found.priors,
            "diagnosis": diagnosis,
            "did": method.what_it_did(&found),
            "true_ranking": truth,
            "truth_note": truth_note,
        }));
    }
    // The method as the user writes it (`cv`, `iwcv(ratio=ulsif)`, ...).
    let mut out = match &method {
        Method::ReverseTesting(v) => format!(
            "ranking (reverse-testing {v}, {} models built):\n",
            ranking.models_built
        ),
        _ => format!(
            "ranking ({}, {} models built):\n",
            a.method, ranking.models_built
        ),
    };
    for (pos, &i) in ranking.order.iter().enumerate() {
        let estimate = found.scores.as_ref().map_or(String::new(), |s| {
            format!(
                ", estimated {} on the target = {}",
                measure_name(&plain),
                num(s[i], 4)
            )
        });
        out.push_str(&format!(
            "  {}. {} (wins - losses = {}{estimate})\n",
            pos + 1,
            ranking.learners[i],
            ranking.score[i]
        ));
    }
    out.push_str(&bias_text(&diagnosis));
    out.push_str(&format!("what it did: {}\n", method.what_it_did(&found)));
    let mut t = Table::new(&[
        "a",
        "b",
        "outcome",
        "on D: a^a",
        "a^b",
        "b^a",
        "b^b",
        "one-class copy",
        "true",
    ]);
    for (j, p) in ranking.pairs.iter().enumerate() {
        let acc = p.acc_train.map_or(vec![String::new(); 4], |v| {
            v.iter().map(|x| num(*x, 4)).collect()
        });
        let mut row = vec![
            ranking.learners[p.a].clone(),
            ranking.learners[p.b].clone(),
            outcome_text(ranking, p.a, p.b, p.outcome),
        ];
        row.extend(acc);
        row.push(
            p.constant_copies
                .iter()
                .map(|&i| format!("T_{} (constant models)", ranking.learners[i]))
                .collect::<Vec<_>>()
                .join(", "),
        );
        row.push(truth.as_ref().map_or(String::new(), |t| {
            outcome_text(t, p.a, p.b, t.pairs[j].outcome)
        }));
        t.text_row(row);
    }
    out.push('\n');
    out.push_str(&t.to_text());
    if let Method::ReverseTesting(v) = &method {
        out.push_str(&format!(
            "on D: x^s is learner x trained on the target set labelled by s, measured on D by {} (higher is better; losses negated)\n",
            measure_name(v)
        ));
    }
    if !ranking.single_class_copies.is_empty() {
        let names: Vec<&str> = ranking
            .single_class_copies
            .iter()
            .map(|&i| ranking.learners[i].as_str())
            .collect();
        out.push_str(&format!(
            "note: {} labelled the whole target set with one class; models trained on that copy are constant\n",
            names.join(", ")
        ));
    }
    if let Some(n) = &truth_note {
        out.push_str(&format!("note: {n}\n"));
    }
    write_stdout(&out)
}

/// Measures that compare how learners rank the rows, not their labels.
const RANKING_MEASURES: &[&str] = &["average_precision", "roc_auc", "brier", "log_loss"];
