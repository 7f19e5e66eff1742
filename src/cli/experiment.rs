//! `rarity experiment`: the papers' protocols over directories of datasets.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Subcommand, ValueEnum};
use serde_json::json;

use super::output::{num, print_json, write_stdout, Render, Table};
use super::{Global, OutputFormat};
use rarity::data::bundled::BUNDLED;
use rarity::data::read::{read_path, ReadOptions};
use rarity::data::Dataset;
use rarity::error::{Error, Result};
use rarity::experiment::bias::{run as bias_run, Bias, Method, Tally};
use rarity::experiment::experiment_report::reverse_testing_report;
use rarity::learn::Learner;
use rarity::select::reverse_testing::{Comparator, Variant};

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
        /// Learner specs separated by commas.
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

/// Named datasets, and the reasons others were skipped.
type Loaded = (Vec<(String, Dataset)>, Vec<String>);

/// Parses a comma-separated flag value such as `--sizes 5,10,25`; a bad
/// item is an error naming the flag, what was expected and an example.
pub(super) fn parse_list<T: std::str::FromStr>(
    flag: &str,
    text: &str,
    expected: &str,
    example: &str,
) -> Result<Vec<T>> {
    text.split(',')
        .map(|s| {
            s.trim().parse::<T>().map_err(|_| {
                Error::invalid(format!("{flag}: '{s}' is not {expected} (e.g. {example})"))
            })
        })
        .collect()
}

pub(super) fn load_dirs(dirs: &[PathBuf], max_rows: usize) -> Result<Loaded> {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let mut keep = |name: String, ds: Dataset| {
        if ds.n_rows() > max_rows {
            skipped.push(format!(
                "{name}: {} rows > --max-rows {max_rows}",
                ds.n_rows()
            ));
        } else {
            out.push((name, ds));
        }
    };
    if dirs.is_empty() {
        for b in BUNDLED {
            keep(b.name.to_string(), b.load(&ReadOptions::default())?.0);
        }
    }
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| Error::io(dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "csv"))
            .collect();
        files.sort();
        for f in files {
            let name = f
                .file_stem()
                .map_or(String::new(), |s| s.to_string_lossy().into_owned());
            keep(name, read_path(Path::new(&f), &ReadOptions::default())?.0);
        }
    }
    Ok((out, skipped))
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
            if let Some(dir) = report {
                rarity::report::prepare_dir(dir)?;
            }
            let (datasets, mut skipped) = load_dirs(data_dirs, *max_rows)?;
            let learners: Vec<(String, Arc<dyn Learner>)> = learners
                .split(',')
                .map(|s| Ok((s.trim().to_string(), rarity::spec::build_learner(s.trim())?)))
                .collect::<Result<_>>()?;
            let mut methods: Vec<(String, Method)> = variants
                .iter()
                .map(|spec| {
                    Ok((
                        format!("ReverseTesting {spec}"),
                        Method::ReverseTesting(Variant::parse(spec, metric)?),
                    ))
                })
                .collect::<Result<_>>()?;
            let truth = Variant::parse("paper", metric)?;
            methods.push((
                "10-fold CV".into(),
                Method::Comparator(
                    Comparator::CrossValidation {
                        repeats: 1,
                        folds: 10,
                    },
                    truth.clone(),
                ),
            ));
            methods.push((
                "leave-one-out".into(),
                Method::Comparator(Comparator::LeaveOneOut, truth.clone()),
            ));
            let bias = match bias {
                BiasArg::Feature => Bias::Feature {
                    attribute: 0,
                    fraction: 0.25,
                },
                BiasArg::Class => Bias::Class(Vec::new()),
                BiasArg::None => Bias::None,
            };
            let mut tallies = vec![Tally::default(); methods.len()];
            let mut per_dataset = Vec::new();
            let ms: Vec<Method> = methods.iter().map(|m| m.1.clone()).collect();
            for (name, ds) in &datasets {
                let b = match &bias {
                    // Halve the largest class, keep the others.
                    Bias::Class(_) => {
                        let c = ds.class_counts();
                        let big = (0..c.len()).max_by_key(|&k| c[k]).unwrap_or(0);
                        Bias::Class(
                            (0..c.len())
                                .map(|k| if k == big { 0.5 } else { 1.0 })
                                .collect(),
                        )
                    }
                    other => other.clone(),
                };
                let one = [(name.clone(), ds.clone())];
                let (t, s) = bias_run(&one, &learners, &ms, &truth, &b, *splits, g.seed)?;
                for (acc, x) in tallies.iter_mut().zip(&t) {
                    acc.merge(x);
                }
                per_dataset.push(json!({"dataset": name, "tallies": t}));
                skipped.extend(s);
                if !g.quiet {
                    eprintln!("  done: {name}");
                }
            }
            if let Some(dir) = report {
                let rows: Vec<_> = methods
                    .iter()
                    .map(|m| m.0.to_string())
                    .zip(tallies.clone())
                    .collect();
                let names: Vec<&str> = learners.iter().map(|l| l.0.as_str()).collect();
                let mut notes = vec![format!(
                    "{} datasets x {splits} splits, learners {}, measure {metric}.",
                    datasets.len(),
                    names.join(", ")
                )];
                notes.extend(skipped.iter().map(|s| format!("Skipped: {s}")));
                let r = reverse_testing_report(&rows, &notes);
                super::output::write_report(&r, dir, g.quiet)?;
            }
            if g.format == OutputFormat::Json {
                let rows: Vec<_> = methods
                    .iter()
                    .zip(&tallies)
                    .map(|((name, m), t)| {
                        let variant = match m {
                            Method::ReverseTesting(v) => Some(v.to_string()),
                            Method::Comparator(..) => None,
                        };
                        json!({"method": name, "variant": variant, "tally": t, "percent_correct": t.percent_correct()})
                    })
                    .collect();
                return print_json(&json!({
                    "datasets": datasets.len(),
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
            for (m, x) in methods.iter().zip(&tallies) {
                t.text_row(vec![
                    m.0.clone(),
                    x.correct.to_string(),
                    x.wrong.to_string(),
                    x.undecided.to_string(),
                    num(x.percent_correct(), 1),
                    match m.1 {
                        Method::ReverseTesting(_) => x.constant.to_string(),
                        Method::Comparator(..) => String::new(),
                    },
                ]);
            }
            let mut out = format!(
                "ReverseTesting bias experiment: {} datasets x {} splits, learners {}, measure {metric}, seed {}\n\n{}",
                datasets.len(),
                splits,
                learners.iter().map(|l| l.0.as_str()).collect::<Vec<_>>().join(", "),
                g.seed,
                t.render()
            );
            for (name, m) in &methods {
                if let Method::ReverseTesting(v) = m {
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
