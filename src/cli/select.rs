//! `rarity select`: rank learners for a target population by ReverseTesting
//! (or, for comparison, cross-validation, leave-one-out or training accuracy).

use std::path::PathBuf;

use clap::ValueEnum;
use serde_json::json;

use super::output::{num, print_json, write_stdout, Table};
use super::{Global, OutputFormat};
use rarity::data::read::{read_path, read_with_schema, ReadOptions};
use rarity::error::{Error, Result};
use rarity::experiment::bias::true_ranking;
use rarity::select::comparator::{rank_by_comparator, Comparator};
use rarity::select::ranking::{Outcome, Ranking};
use rarity::select::reverse_testing::reverse_testing;
use rarity::select::variant::{Measure, ReverseTestingVariant};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum MethodArg {
    /// ReverseTesting (Fan & Davidson 2006).
    ReverseTesting,
    /// 10-fold cross-validation on the training set.
    Cv,
    /// Leave-one-out on the training set.
    Loo,
    /// Accuracy on the training set.
    Train,
}

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
    /// The selection method.
    #[arg(long, value_enum, default_value_t = MethodArg::ReverseTesting)]
    method: MethodArg,
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

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let opts = ReadOptions {
        target: a.label.clone(),
        ..ReadOptions::default()
    };
    let (train, _) = read_path(&a.train, &opts)?;
    let file = std::fs::File::open(&a.population).map_err(|e| Error::io(&a.population, e))?;
    let target = read_with_schema(
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
    let comparator = match a.method {
        MethodArg::ReverseTesting => None,
        MethodArg::Cv => Some(Comparator::named("cv")?),
        MethodArg::Loo => Some(Comparator::named("loo")?),
        MethodArg::Train => Some(Comparator::named("train")?),
    };
    let (ranking, truth) = super::bar::during(g, || {
        let ranking = match comparator {
            None => reverse_testing(&learners, &train, &target, &variant, g.seed)?,
            Some(c) => rank_by_comparator(&learners, &train, c, &plain, g.seed)?,
        };
        let truth = match &a.truth {
            Some(col) => {
                let o = ReadOptions {
                    target: Some(col.clone()),
                    ..ReadOptions::default()
                };
                let (labelled, _) = read_path(&a.population, &o)?;
                Some(true_ranking(&learners, &train, &labelled, &plain, g.seed)?)
            }
            None => None,
        };
        Ok::<_, Error>((ranking, truth))
    })?;
    // The method as the user writes it (`cv`, `loo`, ...).
    let method = a
        .method
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_string());
    if g.format == OutputFormat::Json {
        return print_json(
            &json!({"method": method, "variant": variant.to_string(), "ranking": ranking, "true_ranking": truth}),
        );
    }
    let mut out = match a.method {
        MethodArg::ReverseTesting => format!(
            "ranking (reverse-testing {variant}, {} models built):\n",
            ranking.models_built
        ),
        _ => format!(
            "ranking ({method}, {} models built):\n",
            ranking.models_built
        ),
    };
    for (pos, &i) in ranking.order.iter().enumerate() {
        out.push_str(&format!(
            "  {}. {} (wins - losses = {})\n",
            pos + 1,
            ranking.learners[i],
            ranking.score[i]
        ));
    }
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
            outcome_text(&ranking, p.a, p.b, p.outcome),
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
    if a.method == MethodArg::ReverseTesting {
        out.push_str(&format!(
            "on D: x^s is learner x trained on the target set labelled by s, measured on D by {} (higher is better; losses negated)\n",
            match &variant.measure {
                Measure::Metric(m) => m.clone(),
                Measure::Benefit { .. } => "total benefit".into(),
            }
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
    write_stdout(&out)
}
