//! The `select` job (`rarity select`, `rarity.select.select`): a
//! [`SelectRequest`] as both front ends spell it (method, variant, metric or
//! benefit), checked into a [`SelectPlan`], run on a labelled training set
//! and an unlabelled target population into a [`SelectJob`] that renders
//! itself as the command line's ranking, bias diagnosis and pair table
//! (text) or its JSON.

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};

use super::declared::Declared;
use super::fixed as num;
use super::Front;
use crate::data::read::{
    read_labelled, read_path, read_population, Categorical, PredictOptions, ReadOptions,
    ReadReport, Table as TableFile, Unknown,
};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::experiment::bias::true_ranking;
use crate::experiment::run::parse_benefit;
use crate::learn::Learner;
use crate::params::{defaults_table, params, Params};
use crate::report::table::Table;
use crate::select::method::{select, Diagnosis, Method, Selection};
use crate::select::ranking::{Outcome, Ranking};
use crate::select::variant::{Measure, ReverseTestingVariant};
use crate::strategy::RARE_SHARE;

pub use crate::select::method::DEFAULT_METHOD;

params! {
    /// The parameters of `rarity select` and `rarity.select.select`,
    /// declared once ([`super::declared`]).
    #[derive(Debug, Clone, PartialEq)]
    pub struct SelectParams {
        /// Learner specs separated by commas, e.g. tree,forest(n=10),rdt.
        pub learners: String = String::new(),
        /// The selection method: reverse-testing, cv, loo, train, iwcv
        /// (importance-weighted cross-validation), prior-cv (prior-corrected
        /// cross-validation), with arguments such as iwcv(ratio=ulsif) or
        /// cv(folds=5), or vote(...) of several; the default is the vote that
        /// measured best (docs/reverse-testing.md).
        pub method: String = String::from(DEFAULT_METHOD),
        /// The ReverseTesting variant: default (the best-measuring one),
        /// paper (the literal algorithm), priors, sample, and/or
        /// labels=argmax|priors|sample, measure=METRIC, decide=strict|sum,
        /// judges=pair|all, e.g. paper,decide=sum.
        pub variant: String = String::from("default"),
        /// The measure on the training set: any metric of rarity score.
        pub metric: String = String::from("accuracy"),
        /// Example-dependent benefit instead of a metric: amount=COL,overhead=V.
        pub benefit: Option<String> = None,
    }
}

/// `select`'s declaration: its parameters, and each front end's own.
pub const DECLARED: Declared = Declared {
    job: "select",
    table: defaults_table::<SelectParams>,
    required: &["learners"],
    cli_only: &[
        "train",
        "population",
        "unknown",
        "label",
        "truth",
        "categorical",
        "categorical-cols",
        "missing",
    ],
    python_only: &[
        "X_train",
        "y_train",
        "X_target",
        "y_target",
        "seed",
        "random_state",
        "n_jobs",
        "pos_label",
        "missing",
    ],
    python_names: &[],
};

/// How to rank learners for a target population: the parameters of
/// `rarity select` and `rarity.select.select`.
#[derive(Debug, Clone)]
pub struct SelectRequest {
    /// The declared parameters.
    pub params: SelectParams,
    /// The seed of folds and fits.
    pub seed: u64,
    /// Which front end wrote the request (for its error messages).
    pub front: Front,
}

/// A checked request: learners built, method and variants parsed.
pub struct SelectPlan {
    request: SelectRequest,
    learners: Vec<(String, Arc<dyn Learner>)>,
    method: Method,
    /// ReverseTesting's variant as asked.
    variant: ReverseTestingVariant,
    /// The plain measure (argmax labels) that comparators and the true
    /// order use.
    plain: ReverseTestingVariant,
}

impl SelectRequest {
    /// Builds the learners and parses the method, the variant and the
    /// benefit. ReverseTesting uses the variant; the comparators and the
    /// true order use the metric (or benefit) itself, with argmax labels.
    pub fn plan(self) -> Result<SelectPlan> {
        // Read from a front end, the values are checked already (in its
        // spelling); built in code, here.
        self.params.check()?;
        let q = &self.params;
        let learners = crate::spec::build_learners(&q.learners)?;
        let mut variant = ReverseTestingVariant::parse(&q.variant, &q.metric)?;
        let mut plain = ReverseTestingVariant::parse("paper", &q.metric)?;
        if let Some(b) = &q.benefit {
            let benefit = parse_benefit(b).map_err(|e| {
                Error::invalid(format!("{} '{b}': {e}", self.front.param("benefit")))
            })?;
            variant.measure = Measure::Benefit(benefit);
            plain.measure = variant.measure.clone();
        }
        let mut method = Method::parse(&q.method, &q.metric, &q.variant)?;
        if let (Method::ReverseTesting(v), Measure::Benefit(_)) = (&mut method, &plain.measure) {
            v.measure = plain.measure.clone();
        }
        Ok(SelectPlan {
            request: self,
            learners,
            method,
            variant,
            plain,
        })
    }
}

/// Why the first of `learners` that cannot take missing values cannot
/// (`None`: each can): selection ranks learners, not strategies, so there
/// is no imputation to add.
pub fn learners_refusal(learners: &[(String, Arc<dyn Learner>)]) -> Option<String> {
    let (name, _) = learners.iter().find(|(_, l)| !l.handles_missing())?;
    Some(format!(
        "the learner {name} does not learn where missing values go, and selection ranks \
         learners without stages (no impute(...) can be added); select among learners that \
         take missing values, or drop the incomplete rows (--missing drop; missing='drop' in \
         Python)"
    ))
}

/// Fails when `train` has categorical features (level codes) that a
/// learner cannot split: selection ranks learners, not strategies, so there
/// is no encode stage to give them numbers.
fn check_categorical(learners: &[(String, Arc<dyn Learner>)], train: &Dataset) -> Result<()> {
    let schema = train.schema();
    let Some(j) = schema.categorical_levels().iter().position(Option::is_some) else {
        return Ok(());
    };
    match learners.iter().find(|(_, l)| !l.native_categorical()) {
        None => Ok(()),
        Some((name, _)) => Err(Error::invalid(format!(
            "the learner {name} does not split categorical features, and feature '{}' is \
             categorical (level codes); select among learners with native categorical splits \
             (tree, forest, gbdt, ...), or one-hot encode it (--categorical one-hot, at most 50 \
             levels)",
            schema.feature_names[j]
        ))),
    }
}

/// The files of a selection, as `rarity select` names them.
#[derive(Debug, Clone, Copy)]
pub struct SelectFiles<'a> {
    /// The labelled (possibly biased) training set (`--train`).
    pub train: &'a Path,
    /// The unlabelled target population (`--population`).
    pub population: &'a Path,
    /// The population's true label column, to report the true order
    /// (`--truth`).
    pub truth: Option<&'a str>,
}

/// What [`SelectPlan::read_files`] read.
#[derive(Debug)]
pub struct SelectData {
    /// The training set.
    pub train: Dataset,
    /// What reading the training set dropped.
    pub read: ReadReport,
    /// The population's rows, encoded as the training set's.
    pub target: Dataset,
    /// The population with its true labels, when asked.
    pub truth: Option<Dataset>,
}

/// `name` given `value` as the front end's user writes it.
fn given(front: Front, name: &str, value: &str) -> String {
    match front {
        Front::Cli => format!("{} {value}", front.param(name)),
        Front::Python => format!("{name}='{value}'"),
    }
}

impl SelectPlan {
    /// Why one of the learners cannot take missing values (`None`: each
    /// can), for [`crate::job::missing_policy`]: selection ranks learners,
    /// not strategies, so there is no imputation to add.
    pub fn missing_refusal(&self) -> Option<String> {
        learners_refusal(&self.learners)
    }

    /// Reads the selection's files with the reader options `opts`: the
    /// labelled training set, the unlabelled population (its rows encoded
    /// as the training set's, its missing values kept when the learners
    /// take them, unseen levels following `unknown`) and, with `truth`, the
    /// population with that true label column. Target encoding is refused
    /// before anything is read: selection ranks learners, not strategies,
    /// so there is no `encode(target)` stage to fit.
    pub fn read_files(
        &self,
        files: &SelectFiles<'_>,
        opts: &ReadOptions,
        unknown: Unknown,
    ) -> Result<SelectData> {
        if opts.target_columns().is_some() {
            let front = self.request.front;
            let what = match (opts.categorical, front) {
                (Categorical::Target, Front::Cli) => "--categorical target".to_string(),
                (Categorical::Target, Front::Python) => "categorical='target'".to_string(),
                _ => format!("{} COL=target", front.param("categorical_cols")),
            };
            return Err(Error::invalid(format!(
                "{what}: {} ranks learners, not strategies, so there is no \
                 encode(target) stage to fit; use {} with learners that split \
                 categories (tree, forest, gbdt), or {}",
                match front {
                    Front::Cli => "rarity select",
                    Front::Python => "select",
                },
                given(front, "categorical", "native"),
                given(front, "categorical", "one-hot"),
            )));
        }
        let (train, read) = read_path(files.train, opts)?;
        let population = files.population;
        let file = std::fs::File::open(population).map_err(|e| Error::io(population, e))?;
        // The population is predicted: its missing values are kept when the
        // learners take them (every row is owed a prediction).
        let kept = PredictOptions {
            missing_ok: vec![opts.missing.keeps(); train.schema().encodings.len()],
            unknown,
            ..PredictOptions::default()
        };
        let origin = population.display().to_string();
        let target = read_population(file, &origin, opts.delimiter, train.schema(), &kept)?;
        let truth = match files.truth {
            // Encoded as the training set was (its levels, its classes), so
            // that the learners fitted on it can be measured on these rows.
            Some(col) => {
                let mut schema = train.schema().clone();
                schema.target_name = col.to_string();
                let dialect = ReadOptions {
                    delimiter: opts.delimiter,
                    ..ReadOptions::default()
                };
                let table = TableFile::open(population, &dialect)?;
                Some(read_labelled(table, &schema, &kept)?)
            }
            None => None,
        };
        Ok(SelectData {
            train,
            read,
            target,
            truth,
        })
    }

    /// Ranks the learners for `target` (its rows; labels ignored) from the
    /// labelled `train`, with the bias diagnosis; `truth`, the target rows
    /// with their true labels, adds the true order.
    pub fn run(
        self,
        train: &Dataset,
        target: &Dataset,
        truth: Option<&Dataset>,
    ) -> Result<SelectJob> {
        let seed = self.request.seed;
        check_categorical(&self.learners, train)?;
        for data in [Some(train), Some(target), truth].into_iter().flatten() {
            if let (Some((i, j)), Some(why)) = (data.first_missing(), self.missing_refusal()) {
                return Err(Error::invalid(format!(
                    "row {i} (counting from 0), feature '{}' is missing: {why}",
                    data.feature_names()[j]
                )));
            }
        }
        let (found, diagnosis) = select(
            &self.method,
            &self.learners,
            train,
            target,
            &self.plain,
            seed,
        )?;
        let truth = match truth {
            Some(labelled) => {
                let counts = labelled.class_counts();
                let rarest = counts.iter().copied().min().unwrap_or(0) as f64
                    / counts.iter().sum::<usize>().max(1) as f64;
                Some((
                    true_ranking(&self.learners, train, labelled, &self.plain, seed)?,
                    rarest,
                ))
            }
            None => None,
        };
        let truth_note = truth
            .as_ref()
            .and_then(|(t, rarest)| truth_note(&found.ranking, t, *rarest, &self.plain));
        Ok(SelectJob {
            request: self.request,
            method: self.method,
            variant: self.variant,
            plain: self.plain,
            found,
            diagnosis,
            true_ranking: truth.map(|(t, _)| t),
            truth_note,
        })
    }
}

/// Measures that compare how learners rank the rows, not their labels.
const RANKING_MEASURES: &[&str] = &["average_precision", "roc_auc", "brier", "log_loss"];

/// How the ranking disagrees with the true order, and why a thresholded
/// measure on a rare class may (`None`: it agrees).
fn truth_note(
    found: &Ranking,
    truth: &Ranking,
    rarest: f64,
    plain: &ReverseTestingVariant,
) -> Option<String> {
    let note = found.disagreement_with(truth)?;
    let measure = measure_name(plain);
    let why = if rarest < RARE_SHARE && !RANKING_MEASURES.contains(&measure.as_str()) {
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
}

/// What a selection found, rendering itself.
pub struct SelectJob {
    /// The request it ran.
    pub request: SelectRequest,
    /// The method it ran.
    pub method: Method,
    /// ReverseTesting's variant as asked.
    pub variant: ReverseTestingVariant,
    /// The plain measure of comparators and the true order.
    pub plain: ReverseTestingVariant,
    /// The ranking and what the method measured.
    pub found: Selection,
    /// The covariate- and prior-shift tests.
    pub diagnosis: Diagnosis,
    /// The true order (with the target's labels), if asked.
    pub true_ranking: Option<Ranking>,
    /// How the ranking disagrees with the true order, if it does.
    pub truth_note: Option<String>,
}

/// The name of a variant's measure.
fn measure_name(v: &ReverseTestingVariant) -> String {
    match &v.measure {
        Measure::Metric(m) => m.clone(),
        Measure::Benefit { .. } => "total benefit".into(),
    }
}

fn outcome_text(r: &Ranking, a: usize, b: usize, o: Outcome) -> String {
    match o {
        Outcome::First => format!("{} better", r.learners[a]),
        Outcome::Second => format!("{} better", r.learners[b]),
        Outcome::Undecided => "undecided".into(),
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

impl SelectJob {
    /// The outcome as `rarity select --format json` prints it.
    pub fn to_json(&self) -> Value {
        let found = &self.found;
        json!({
            "method": self.request.params.method,
            "spec": self.method.to_string(),
            "variant": self.variant.to_string(),
            "ranking": found.ranking,
            "scores": found.scores,
            "weights": found.weights,
            "priors": found.priors,
            "diagnosis": self.diagnosis,
            "did": self.method.what_it_did(found),
            "true_ranking": self.true_ranking,
            "truth_note": self.truth_note,
        })
    }

    /// The outcome as `rarity select` prints it: the ranking, the bias
    /// diagnosis, what the method did, and every pair.
    pub fn to_text(&self) -> String {
        let ranking = &self.found.ranking;
        // The method as the user writes it (`cv`, `iwcv(ratio=ulsif)`, ...).
        let mut out = match &self.method {
            Method::ReverseTesting(v) => format!(
                "ranking (reverse-testing {v}, {} models built):\n",
                ranking.models_built
            ),
            _ => format!(
                "ranking ({}, {} models built):\n",
                self.request.params.method, ranking.models_built
            ),
        };
        for (pos, &i) in ranking.order.iter().enumerate() {
            let estimate = self.found.scores.as_ref().map_or(String::new(), |s| {
                format!(
                    ", estimated {} on the target = {}",
                    measure_name(&self.plain),
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
        out.push_str(&bias_text(&self.diagnosis));
        out.push_str(&format!(
            "what it did: {}\n",
            self.method.what_it_did(&self.found)
        ));
        out.push('\n');
        out.push_str(&self.pairs_table().to_text());
        out.push_str(&self.notes_text());
        out
    }

    /// Every pair: its outcome, ReverseTesting's four measures, the
    /// one-class copies and the true outcome.
    fn pairs_table(&self) -> Table {
        let ranking = &self.found.ranking;
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
            row.push(self.true_ranking.as_ref().map_or(String::new(), |t| {
                outcome_text(t, p.a, p.b, t.pairs[j].outcome)
            }));
            t.text_row(row);
        }
        t
    }

    /// The lines under the pair table.
    fn notes_text(&self) -> String {
        let ranking = &self.found.ranking;
        let mut out = String::new();
        if let Method::ReverseTesting(v) = &self.method {
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
        if let Some(n) = &self.truth_note {
            out.push_str(&format!("note: {n}\n"));
        }
        out
    }
}
