//! `rarity experiment`: the papers' protocols over directories of datasets
//! (the jobs are `rarity::job::experiment`).

use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};

use super::over_datasets::run_experiment;
use super::Global;

use rarity::data::bias::Bias;
use rarity::data::write::JobPaths;
use rarity::error::Result;
use rarity::job::experiment::reverse_testing::ReverseTestingRequest;
use rarity::job::Front;

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
            let plan = ReverseTestingRequest {
                learners: learners.clone(),
                splits: *splits,
                metric: metric.clone(),
                variants: variants.clone(),
                methods: methods.clone(),
                bias: match bias {
                    BiasArg::Feature => Bias::PAPER_FEATURE,
                    BiasArg::Class => Bias::HalveLargestClass,
                    BiasArg::None => Bias::None,
                },
                seed: g.seed,
                front: Front::Cli,
            }
            .plan()?;
            run_experiment(g, data_dirs, *max_rows, report.as_ref(), plan, |job| {
                pairs.as_ref().map_or(Ok(()), |path| job.write_pairs(path))
            })
        }
    }
}
