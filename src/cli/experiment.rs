//! `rarity experiment`: the papers' protocols over directories of datasets.

use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};
use serde_json::json;

use super::output::{num, print_json, write_stdout, Table};
use super::over_datasets::over_datasets;
use super::{Global, OutputFormat};
use rarity::error::Result;
use rarity::experiment::bias::{run as bias_run, Bias, BiasExperimentConfig, SelectionMethod};
use rarity::experiment::experiment_report::reverse_testing_report;
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
            bias,
            max_rows,
            report,
        } => {
            let learners = rarity::spec::build_learners(learners)?;
            let variants = variants
                .iter()
                .map(|spec| Ok((spec.clone(), ReverseTestingVariant::parse(spec, metric)?)))
                .collect::<Result<_>>()?;
            let cfg = BiasExperimentConfig {
                variants,
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
                let rows: Vec<_> = r
                    .methods
                    .iter()
                    .zip(&r.tallies)
                    .map(|((name, m), t)| {
                        let variant = match m {
                            SelectionMethod::ReverseTesting(v) => Some(v.to_string()),
                            SelectionMethod::Comparator(..) => None,
                        };
                        json!({"method": name, "variant": variant, "tally": t, "percent_correct": t.percent_correct()})
                    })
                    .collect();
                let per_dataset: Vec<_> = r
                    .per_dataset
                    .iter()
                    .map(|(name, t)| json!({"dataset": name, "tallies": t}))
                    .collect();
                return print_json(&json!({
                    "datasets": n_datasets,
                    "splits": splits,
                    "metric": metric,
                    "seed": g.seed,
                    "methods": rows,
                    "per_dataset": per_dataset,
                    "skipped": skipped,
                }));
            }
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
                        SelectionMethod::ReverseTesting(_) => x.constant.to_string(),
                        SelectionMethod::Comparator(..) => String::new(),
                    },
                ]);
            }
            let mut out = format!(
                "ReverseTesting bias experiment: {n_datasets} datasets x {} splits, learners {learner_names}, measure {metric}, seed {}\n\n{}",
                splits,
                g.seed,
                t.to_text()
            );
            for (name, m) in &r.methods {
                if let SelectionMethod::ReverseTesting(v) = m {
                    out.push_str(&format!("{name}: {v}\n"));
                }
            }
            out.push_str("one-class copy: counted pairs where a or b labelled the whole target set with one class\n");
            for s in &skipped {
                out.push_str(&format!("skipped: {s}\n"));
            }
            write_stdout(&out)
        }
    }
}
