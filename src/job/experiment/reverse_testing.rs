//! `rarity experiment reverse-testing` as a job: the ReverseTesting bias
//! experiment (Fan & Davidson 2006, Sec. 5) over datasets
//! ([`crate::experiment::bias`]): per selection method how often it orders
//! pairs of learners as the target set's truth does, as text, JSON, an HTML
//! report and, on request, every counted pair as CSV.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};

use super::{skipped_notes, skipped_text, ExperimentJob, ExperimentPlan, Found};
use crate::data::bias::Bias;
use crate::data::write::{quote, AtomicFile};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::experiment::bias::{run, BiasExperimentConfig, BiasExperimentResults};
use crate::experiment::experiment_report::reverse_testing_report;
use crate::job::{fixed as num, Front};
use crate::learn::Learner;
use crate::report::table::Table;
use crate::report::Report;
use crate::select::method::Method;
use crate::select::ranking::Outcome;
use crate::select::variant::ReverseTestingVariant;

/// The experiment's settings as written.
#[derive(Debug, Clone)]
pub struct ReverseTestingRequest {
    /// Learner specs separated by commas.
    pub learners: String,
    /// Random train/test splits per dataset.
    pub splits: usize,
    /// The measure defining the true order.
    pub metric: String,
    /// ReverseTesting variants to evaluate.
    pub variants: Vec<String>,
    /// Further selection methods to evaluate (as `rarity select --method`).
    pub methods: Vec<String>,
    /// The training-set bias.
    pub bias: Bias,
    /// The seed of splits and fits.
    pub seed: u64,
    /// Which front end wrote the request (for its error messages).
    pub front: Front,
}

/// The names of the experiment's training-set biases, as
/// [`named_bias`] takes them.
const BIASES: [&str; 3] = ["feature", "class", "none"];

/// The training-set bias `name` of the experiment: `feature` (sort by the
/// first attribute, drop the lowest 25%: the paper), `class` (keep half of
/// the majority class, all of the others) or `none`; another name is an
/// error naming the parameter `bias` as `front` spells it.
///
/// ```
/// use rarity::data::bias::Bias;
/// use rarity::job::{experiment::reverse_testing::named_bias, Front};
/// assert_eq!(named_bias("class", Front::Python).unwrap(), Bias::HalveLargestClass);
/// assert!(named_bias("age", Front::Python).unwrap_err().to_string().starts_with("bias 'age'"));
/// ```
pub fn named_bias(name: &str, front: Front) -> Result<Bias> {
    match name {
        "feature" => Ok(Bias::PAPER_FEATURE),
        "class" => Ok(Bias::HalveLargestClass),
        "none" => Ok(Bias::None),
        _ => Err(Error::invalid(format!(
            "{} '{name}' is not a bias; expected {}",
            front.param("bias"),
            BIASES.join(", ")
        ))),
    }
}

/// A checked request: the learners, variants and methods built.
pub struct ReverseTestingPlan {
    learners: Vec<(String, Arc<dyn Learner>)>,
    cfg: BiasExperimentConfig,
    front: Front,
}

impl ReverseTestingRequest {
    /// Builds the learners, checks the metric and parses the variants and
    /// methods before any dataset is loaded.
    ///
    /// ```
    /// use rarity::data::bias::Bias;
    /// use rarity::job::{experiment::reverse_testing::ReverseTestingRequest, Front};
    /// let request = |metric: &str| ReverseTestingRequest {
    ///     learners: "tree".into(),
    ///     splits: 1,
    ///     metric: metric.into(),
    ///     variants: vec!["paper".into()],
    ///     methods: vec![],
    ///     bias: Bias::None,
    ///     seed: 1,
    ///     front: Front::Python,
    /// };
    /// assert!(request("g_mean").plan().is_ok());
    /// let e = request("nope").plan().err().unwrap().to_string();
    /// assert!(e.starts_with("metric: unknown metric 'nope'"), "{e}");
    /// ```
    pub fn plan(self) -> Result<ReverseTestingPlan> {
        let learners = crate::spec::build_learners(&self.learners)?;
        crate::job::metrics(std::slice::from_ref(&self.metric), self.front)?;
        let metric = &self.metric;
        let variants = self
            .variants
            .iter()
            .map(|spec| Ok((spec.clone(), ReverseTestingVariant::parse(spec, metric)?)))
            .collect::<Result<_>>()?;
        let methods = self
            .methods
            .iter()
            .map(|spec| Ok((spec.clone(), Method::parse(spec, metric, "default")?)))
            .collect::<Result<_>>()?;
        let cfg = BiasExperimentConfig {
            variants,
            methods,
            metric: self.metric.clone(),
            bias: self.bias,
            splits: self.splits,
            seed: self.seed,
        };
        Ok(ReverseTestingPlan {
            learners,
            cfg,
            front: self.front,
        })
    }
}

impl ExperimentPlan for ReverseTestingPlan {
    type Results = BiasExperimentResults;

    fn run(&self, datasets: &[(String, Dataset)]) -> Result<BiasExperimentResults> {
        run(datasets, &self.learners, &self.cfg)
    }

    fn skipped(results: &BiasExperimentResults) -> &[String] {
        &results.skipped
    }
}

/// What the experiment found, rendering itself.
pub type ReverseTestingJob = Found<ReverseTestingPlan>;

impl ReverseTestingJob {
    /// The learners' specs, joined.
    fn learner_names(&self) -> String {
        let names: Vec<&str> = self.plan.learners.iter().map(|l| l.0.as_str()).collect();
        names.join(", ")
    }

    /// Writes every counted pair as CSV to `path`: dataset, split, the two
    /// learners, the test rows, the true measures of `a` and `b`, then one
    /// column per method (`a`, `b` or `undecided`).
    pub fn write_pairs(&self, path: &Path) -> Result<()> {
        let text = self.pairs_csv();
        if path.exists() && !path.is_file() {
            return Err(Error::invalid(format!(
                "{} {}: not a regular file; give a file path",
                self.plan.front.param("pairs"),
                path.display()
            )));
        }
        let mut f = AtomicFile::create(path)?;
        f.writer()
            .write_all(text.as_bytes())
            .map_err(|e| f.err(e))?;
        f.commit()
    }

    /// Every counted pair as the CSV text [`Self::write_pairs`] writes.
    pub fn pairs_csv(&self) -> String {
        let r = &self.results;
        let mut text = String::from("dataset,split,a,b,test_rows,true_a,true_b,agreement");
        for (name, _) in &r.methods {
            text.push(',');
            text.push_str(&quote(name));
        }
        text.push('\n');
        for p in &r.pairs {
            text.push_str(&format!(
                "{},{},{},{},{},{},{},{}",
                quote(&p.dataset),
                p.split,
                quote(&p.a),
                quote(&p.b),
                p.test_rows,
                p.truth[0],
                p.truth[1],
                p.agreement
            ));
            for o in &p.outcomes {
                text.push_str(match o {
                    Outcome::First => ",a",
                    Outcome::Second => ",b",
                    Outcome::Undecided => ",undecided",
                });
            }
            text.push('\n');
        }
        text
    }
}

impl ExperimentJob for ReverseTestingJob {
    /// The HTML report (the summary table and a bar chart).
    fn report(&self) -> Report {
        let r = &self.results;
        let rows: Vec<_> = r
            .methods
            .iter()
            .map(|m| m.0.to_string())
            .zip(r.tallies.clone())
            .collect();
        let mut notes = vec![format!(
            "{} datasets x {} splits, learners {}, measure {}.",
            self.datasets,
            self.plan.cfg.splits,
            self.learner_names(),
            self.plan.cfg.metric
        )];
        notes.extend(skipped_notes(&self.skipped));
        reverse_testing_report(&rows, &notes)
    }

    /// The outcome as `rarity experiment reverse-testing --format json`
    /// prints it.
    fn to_json(&self) -> Value {
        let r = &self.results;
        let rows: Vec<_> = r
            .methods
            .iter()
            .zip(&r.tallies)
            .map(|((name, m), t)| {
                let variant = match m {
                    Method::ReverseTesting(v) => Some(v.to_string()),
                    _ => None,
                };
                json!({"method": name, "variant": variant, "tally": t, "percent_correct": t.percent_correct()})
            })
            .collect();
        let per_dataset: Vec<_> = r
            .per_dataset
            .iter()
            .map(|(name, t)| json!({"dataset": name, "tallies": t}))
            .collect();
        json!({
            "datasets": self.datasets,
            "splits": self.plan.cfg.splits,
            "metric": self.plan.cfg.metric,
            "seed": self.plan.cfg.seed,
            "methods": rows,
            "per_dataset": per_dataset,
            "cells": r.cells,
            "skipped": self.skipped,
        })
    }

    /// The outcome as `rarity experiment reverse-testing` prints it: the
    /// tally of each method, what each method is, and what was skipped.
    fn to_text(&self) -> String {
        let (r, cfg) = (&self.results, &self.plan.cfg);
        let mut t = Table::new(&[
            "method",
            "correct",
            "wrong",
            "undecided",
            "% correct",
            "one-class copy",
        ]);
        for ((name, m), x) in r.methods.iter().zip(&r.tallies) {
            t.text_row(vec![
                name.clone(),
                x.correct.to_string(),
                x.wrong.to_string(),
                x.undecided.to_string(),
                num(x.percent_correct(), 1),
                match m {
                    Method::ReverseTesting(_) => x.constant.to_string(),
                    _ => String::new(),
                },
            ]);
        }
        let mut out = format!(
            "ReverseTesting bias experiment: {} datasets x {} splits, learners {}, measure {}, seed {}\n\n{}",
            self.datasets,
            cfg.splits,
            self.learner_names(),
            cfg.metric,
            cfg.seed,
            t.to_text()
        );
        for (name, m) in &r.methods {
            match m {
                Method::ReverseTesting(v) => out.push_str(&format!("{name}: {v}\n")),
                Method::Iwcv(_) | Method::PriorCv(_) | Method::Vote(_) => {
                    out.push_str(&format!("{name}: {m}\n"))
                }
                Method::Comparator(_) => {}
            }
        }
        out.push_str(
            "one-class copy: counted pairs where a or b labelled the whole target set with one class\n",
        );
        out.push_str(&skipped_text(&self.skipped));
        out
    }
}
