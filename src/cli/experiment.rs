//! `rarity experiment`: the papers' protocols over directories of datasets.

use std::io::Write;
use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};
use serde_json::json;

use super::output::{num, print_json, write_stdout, Table};
use super::over_datasets::over_datasets;
use super::{Global, OutputFormat};

use rarity::data::write::JobPaths;
use rarity::data::write::{quote, AtomicFile};
use rarity::error::Result;
use rarity::experiment::bias::{
    run as bias_run, Bias, BiasExperimentConfig, BiasExperimentResults,
};
use rarity::experiment::experiment_report::reverse_testing_report;
use rarity::select::method::Method;
use rarity::select::ranking::Outcome;
use rarity::select::variant::ReverseTestingVariant;

/// Arguments of `rarity experiment`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    which: Which,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BiasArg {
    /// Sort by the first attribute, drop the lowest 25% (the paper).
    Feature,
    /// Keep 50% of the majority class, all of the others.
    Class,
    /// No bias.
    None,
}

#[derive(Debug, Subcommand)]
enum Which {
    /// The ReverseTesting bias experiment (Fan & Davidson 2006, Sec. 5).
    ReverseTesting {
        /// Directories of CSV datasets (default: the bundled ones).
        #[arg(long = "data-dir")]
        data_dirs: Vec<PathBuf>,
        /// Learner specs separated by commas, e.g.
        /// `tree,forest(n=100,max_depth=4)`.
        #[arg(long, default_value = "tree,gnb,logistic,svm")]
        learners: String,
        /// Random train/test splits per dataset.
        #[arg(long, default_value_t = 5)]
        splits: usize,
        /// The measure defining the true order, used by CV and leave-one-out
        /// and by every ReverseTesting variant that does not set its own.
        #[arg(long, default_value = "accuracy")]
        metric: String,
        /// A ReverseTesting variant to evaluate (repeatable): a preset
        /// (`paper`, `default`, `priors`, `sample`) and/or `labels=`,
        /// `measure=`, `decide=`, `judges=` settings, e.g. `paper,decide=sum`.
        #[arg(long = "variant", default_values_t = ["paper".to_string(), "default".to_string()])]
        variants: Vec<String>,
        /// A further selection method to evaluate (repeatable), written as
        /// for `rarity select --method`: `iwcv`, `iwcv(ratio=ulsif)`,
        /// `prior-cv`, `cv(folds=5)`, ... (10-fold CV and leave-one-out are
        /// always evaluated).
        #[arg(long = "method")]
        methods: Vec<String>,
        /// Write every counted pair (dataset, split, learners, test rows,
        /// true measures, each method's decision) to this CSV file.
        #[arg(long, value_name = "FILE")]
        pairs: Option<PathBuf>,
        /// The training-set bias.
        #[arg(long, value_enum, default_value_t = BiasArg::Feature)]
        bias: BiasArg,
        /// Skip datasets with more rows (leave-one-out fits a model per row).
        #[arg(long, default_value_t = 1000)]
        max_rows: usize,
        /// Write an HTML report (the summary table and a bar chart), and
        /// the table as CSV and JSON, to DIR.
        #[arg(long, value_name = "DIR")]
        report: Option<PathBuf>,
    },
    /// PT-bagging against EB-, RB-, SMOTE-bagging, Platt and UnderOver
    /// (Collell et al. 2018, Sec. 4-5).
    PtBagging(super::pt_bagging::Args),
    /// Undersampling with and without the prior correction (Dal Pozzolo et
    /// al. 2015, Sec. VI, Table V, Fig. 3-4).
    Calibration(super::calibration::Args),
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    match &a.which {
        Which::PtBagging(args) => super::pt_bagging::run(g, args),
        Which::Calibration(args) => super::calibration::run(g, args),
        Which::ReverseTesting {
            data_dirs,
            learners,
            splits,
            metric,
            variants,
            methods,
            pairs,
            bias,
            max_rows,
            report,
        } => {
            JobPaths::new()
                .output_opt("--pairs", pairs.as_ref())
                .report_opt("--report", report.as_ref())
                .check()?;
            let learners = rarity::spec::build_learners(learners)?;
            let variants = variants
                .iter()
                .map(|spec| Ok((spec.clone(), ReverseTestingVariant::parse(spec, metric)?)))
                .collect::<Result<_>>()?;
            let methods = methods
                .iter()
                .map(|spec| Ok((spec.clone(), Method::parse(spec, metric, "default")?)))
                .collect::<Result<_>>()?;
            let cfg = BiasExperimentConfig {
                variants,
                methods,
                metric: metric.clone(),
                bias: match bias {
                    BiasArg::Feature => Bias::Feature {
                        attribute: 0,
                        fraction: 0.25,
                    },
                    BiasArg::Class => Bias::HalveLargestClass,
                    BiasArg::None => Bias::None,
                },
                splits: *splits,
                seed: g.seed,
            };
            let ran = over_datasets(g, data_dirs, *max_rows, report.as_ref(), |d| {
                bias_run(d, &learners, &cfg)
            })?;
            let (r, n_datasets) = (ran.results, ran.datasets);
            let mut skipped = ran.skipped;
            skipped.extend(r.skipped.iter().cloned());
            if let Some(path) = pairs {
                write_pairs(path, &r)?;
            }
            let learner_names: Vec<&str> = learners.iter().map(|l| l.0.as_str()).collect();
            let learner_names = learner_names.join(", ");
            if let Some(dir) = report {
                let rows: Vec<_> = r
                    .methods
                    .iter()
                    .map(|m| m.0.to_string())
                    .zip(r.tallies.clone())
                    .collect();
                let mut notes = vec![format!(
                    "{n_datasets} datasets x {splits} splits, learners {learner_names}, measure {metric}.",
                )];
                notes.extend(skipped.iter().map(|s| format!("Skipped: {s}")));
                let html = reverse_testing_report(&rows, &notes);
                super::output::write_report(&html, dir, g.quiet)?;
            }
            if g.format == OutputFormat::Json {
                return print_json(&bias_json(
                    &r, n_datasets, *splits, metric, g.seed, &skipped,
                ));
            }
            let heading = format!(
                "ReverseTesting bias experiment: {n_datasets} datasets x {splits} splits, learners {learner_names}, measure {metric}, seed {}",
                g.seed
            );
            write_stdout(&bias_text(&r, &heading, &skipped))
        }
    }
}

/// The bias experiment's results as JSON.
fn bias_json(
    r: &BiasExperimentResults,
    n_datasets: usize,
    splits: usize,
    metric: &str,
    seed: u64,
    skipped: &[String],
) -> serde_json::Value {
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
        "datasets": n_datasets,
        "splits": splits,
        "metric": metric,
        "seed": seed,
        "methods": rows,
        "per_dataset": per_dataset,
        "cells": r.cells,
        "skipped": skipped,
    })
}

/// The bias experiment's results as text: `heading`, the tally of each
/// method, what each method is, and what was skipped.
fn bias_text(r: &BiasExperimentResults, heading: &str, skipped: &[String]) -> String {
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
    let mut out = format!("{heading}\n\n{}", t.to_text());
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
    for s in skipped {
        out.push_str(&format!("skipped: {s}\n"));
    }
    out
}

/// Writes every counted pair of a bias experiment as CSV: dataset, split,
/// the two learners, the test rows, the true measures of `a` and `b`, then
/// one column per method (`a`, `b` or `undecided`).
fn write_pairs(
    path: &std::path::Path,
    r: &rarity::experiment::bias::BiasExperimentResults,
) -> Result<()> {
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
    if path.exists() && !path.is_file() {
        return Err(rarity::error::Error::invalid(format!(
            "--pairs {}: not a regular file; give a file path",
            path.display()
        )));
    }
    let mut f = AtomicFile::create(path)?;
    f.writer()
        .write_all(text.as_bytes())
        .map_err(|e| f.err(e))?;
    f.commit()
}
