//! The `rarity` command line: argument parsing and output only; every command
//! is a thin call into the library.

mod bar;
mod calibrate;
mod calibration;
mod data_args;
mod datasets;
mod declared;
mod evaluate;
mod experiment;
mod explain;
mod export;
mod fit;
mod generate;
mod inspect;
mod monitor;
mod output;
mod over_datasets;
mod predict;
mod pt_bagging;
mod resample;
mod run;
mod score;
mod select;
mod show;
mod signals;
mod streams;

use clap::{Parser, Subcommand, ValueEnum};

pub use data_args::DataArgs;
use rarity::error::Result;

/// Output format for command results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Human-readable tables.
    Text,
    /// One JSON object on stdout.
    Json,
}

/// Options every command accepts.
#[derive(Debug, Clone, clap::Args)]
pub struct Global {
    /// Random seed: the same seed gives the same result at any thread count.
    #[arg(long, global = true, default_value_t = rarity::rng::DEFAULT_SEED)]
    pub seed: u64,
    /// Worker threads (default: all cores; at most 4 per core, 1024 in all).
    #[arg(long, global = true)]
    pub threads: Option<usize>,
    /// Most rows a resampled table may have (oversampling and other samples
    /// larger than the input are refused above it, and above the memory
    /// available). Not the experiments' `--max-rows`, which skips datasets.
    #[arg(long, global = true, value_name = "N", default_value_t = rarity::limits::DEFAULT_MAX_ROWS)]
    pub max_sample_rows: u64,
    /// No progress or notes on stderr (and no summary line from `fit`,
    /// whose result is the model file).
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// Output format.
    #[arg(long, global = true, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

/// rarity: learning from imbalanced data.
#[derive(Debug, Parser)]
#[command(name = "rarity", version, about, long_about = None)]
pub struct Cli {
    #[command(flatten)]
    global: Global,
    /// The command (default: `run` on the bundled default dataset).
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The main job: compare imbalance strategies with repeated CV, rank them,
    /// save the winner.
    Run(run::Args),
    /// List the bundled datasets.
    Datasets,
    /// Describe a dataset: rows, features, classes, imbalance, feature ranges.
    Inspect(inspect::Args),
    /// Write a synthetic dataset, or a biased training sample of one, as CSV.
    Generate(generate::Args),
    /// Every metric for true labels and predicted probabilities in a CSV.
    Score(score::Args),
    /// Recalibrate any model's probabilities in a CSV: undo undersampling
    /// (eq. 9), move to new or EM-estimated priors, the matching threshold.
    Calibrate(calibrate::Args),
    /// Cross-validate a strategy: every metric, mean and std over folds.
    Evaluate(evaluate::Args),
    /// Train a strategy on all rows and save it.
    Fit(fit::Args),
    /// Apply a saved strategy to new rows.
    Predict(predict::Args),
    /// Watch a saved strategy in production: input and score drift, the
    /// alert rate, the current priors without labels; exit 3 on --fail-on.
    Monitor(monitor::Args),
    /// Which features drive a saved strategy: permutation importance on
    /// held-out rows, split-gain importances of tree models.
    Explain(explain::Args),
    /// What a model file holds: versions, strategy, schema, priors, keep
    /// rates, decision, members, training rows and time.
    Show(show::Args),
    /// Write a saved strategy as an ONNX model (probabilities and label),
    /// for ONNX Runtime, Triton and the JVM/.NET runtimes.
    Export(export::Args),
    /// Write a resampled copy of a dataset (under, over, SMOTE, cleaning, ...).
    Resample(resample::Args),
    /// Rank learners for an unlabelled target population (ReverseTesting).
    Select(select::Args),
    /// Reproduce a paper's protocol over directories of datasets.
    Experiment(experiment::Args),
}

/// The command line's allocator: a failed allocation is a clear error
/// (exit 2, the temporaries removed), not an abort.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: rarity::out_of_memory::Watched = rarity::out_of_memory::Watched::new(
    "error",
    "try a smaller input, fewer --threads, or more memory",
);

/// Runs the command line; returns the process exit code.
pub fn main() -> i32 {
    rarity::limits::fit_allocator_to_address_space();
    signals::install();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            if streams::is_broken_pipe(&e) {
                streams::end_by_sigpipe();
            }
            output::note(&format!("error: {e}"));
            e.exit_code()
        }
    }
}

/// Starts the worker threads (`--threads`, or one per core; the main
/// thread is one of them) as rayon's
/// global pool, before any work: a count above [`max_threads`] is refused,
/// as is one whose stacks do not fit under `ulimit -v`, and threads that
/// cannot be started (a process limit, `ulimit -u`) are an error, where the
/// pool rayon would otherwise start on first use panics.
///
/// [`max_threads`]: rarity::limits::max_threads
fn start_threads(threads: Option<usize>) -> Result<()> {
    let cap = rarity::limits::max_threads();
    let (n, asked) = match threads {
        Some(0) => return Err(rarity::Error::invalid("--threads must be at least 1")),
        Some(t) if t > cap => {
            return Err(rarity::Error::invalid(format!(
                "--threads {t} is more than the cap of {cap} ({} per available core, at most {}): \
                 more threads than that only share the same cores",
                rarity::limits::THREADS_PER_CORE,
                rarity::limits::MAX_THREADS
            )))
        }
        Some(t) => (t, Some(format!("--threads {t}"))),
        // rayon's default: `RAYON_NUM_THREADS`, else one thread per core
        // (fewer under an address-space limit too small for their stacks).
        None => match std::env::var("RAYON_NUM_THREADS").map(|v| v.trim().parse::<usize>()) {
            Ok(Ok(t)) if t > cap => {
                return Err(rarity::Error::invalid(format!(
                    "RAYON_NUM_THREADS={t} is more than the cap of {cap} threads; \
                     give --threads N (at most {cap})"
                )))
            }
            Ok(Ok(t)) if t > 0 => (t, Some(format!("RAYON_NUM_THREADS={t}"))),
            _ => (rarity::limits::default_threads(), None),
        },
    };
    if let Some(asked) = asked {
        rarity::limits::check_thread_stacks(&asked, n)?;
    }
    // The main thread is one of the pool's threads: a parallel loop it
    // reaches runs on it and the others, where a main thread outside the
    // pool hands every loop to a worker and sleeps until it ends (on a
    // table of a few hundred rows, a gbdt fit spent 70% of its time in
    // those hand-offs: 1.40 s for wdbc's five folds against 0.45 s).
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .use_current_thread()
        .build_global()
        .map_err(|e| {
            rarity::Error::invalid(format!(
                "could not start {n} worker threads: {e}; the process may have reached its \
                 limit of processes (ulimit -u) or of address space (ulimit -v): try --threads 1"
            ))
        })
}

/// Runs the command; the exit code of a run without error (0, or
/// `monitor`'s when a condition holds).
fn run(cli: Cli) -> Result<i32> {
    start_threads(cli.global.threads)?;
    rarity::limits::set_max_rows(cli.global.max_sample_rows);
    let g = &cli.global;
    let done = match cli
        .command
        .unwrap_or_else(|| Command::Run(run::Args::default()))
    {
        Command::Monitor(a) => return monitor::run(g, &a),
        Command::Run(a) => run::run(g, &a),
        Command::Datasets => datasets::run(g),
        Command::Inspect(a) => inspect::run(g, &a),
        Command::Generate(a) => generate::run(g, &a),
        Command::Score(a) => score::run(g, &a),
        Command::Calibrate(a) => calibrate::run(g, &a),
        Command::Evaluate(a) => evaluate::run(g, &a),
        Command::Fit(a) => fit::run(g, &a),
        Command::Predict(a) => predict::run(g, &a),
        Command::Explain(a) => explain::run(g, &a),
        Command::Show(a) => show::run(g, &a),
        Command::Export(a) => export::run(g, &a),
        Command::Resample(a) => resample::run(g, &a),
        Command::Select(a) => select::run(g, &a),
        Command::Experiment(a) => experiment::run(g, &a),
    };
    done.map(|()| 0)
}
