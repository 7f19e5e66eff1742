//! The options that choose and read a dataset, shared by every command that
//! takes data: `FILE` or `--dataset NAME`, target, positive label, CSV dialect,
//! categorical and missing-value handling.

use std::path::PathBuf;

use clap::ValueEnum;

use super::output::note;
use rarity::data::read::{Categorical, Missing, ReadOptions, ReadReport};
use rarity::data::write::JobPaths;
use rarity::data::Dataset;
use rarity::error::{Error, Result};
use rarity::job::read::ReadSpec;
use rarity::job::source::{DataSource, Origin};
use rarity::job::{missing_policy, Front};
use rarity::split::Splitter;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CategoricalArg {
    /// Non-numeric feature columns are an error.
    Error,
    /// One-hot encode non-numeric feature columns (at most 50 levels).
    OneHot,
    /// Keep non-numeric feature columns as one feature of level codes, for
    /// learners with native categorical splits (tree, forest, gbdt, ...).
    Native,
    /// Keep them as level codes (as native) and encode them by
    /// cross-fitted, sampling-corrected target statistics: every strategy
    /// without an encode(...) stage of its own fits encode(target) first.
    Target,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum MissingArg {
    /// Keep missing values when every strategy takes them (a learner that
    /// learns where they go, or an impute(...) stage), else drop the
    /// incomplete rows and say so.
    Auto,
    /// Keep them (NaN) for the strategy; a strategy that cannot take them
    /// is refused before any work, naming the stage to add. A row whose
    /// label is missing is dropped and counted.
    Keep,
    /// Drop incomplete rows and report how many.
    Drop,
    /// Fail on the first missing value.
    Error,
}

impl MissingArg {
    fn policy(self) -> Missing {
        match self {
            MissingArg::Auto => Missing::Auto,
            MissingArg::Keep => Missing::Keep,
            MissingArg::Drop => Missing::Drop,
            MissingArg::Error => Missing::Error,
        }
    }

    fn of(m: Missing) -> MissingArg {
        match m {
            Missing::Auto => MissingArg::Auto,
            Missing::Keep => MissingArg::Keep,
            Missing::Drop => MissingArg::Drop,
            Missing::Error => MissingArg::Error,
        }
    }
}

/// What becomes of missing values (`--missing`): shared by every command
/// that reads training data.
#[derive(Debug, Clone, clap::Args)]
pub struct MissingArgs {
    /// Missing values (empty, `?`, `NA`; Parquet/Arrow nulls): kept for
    /// the strategy (keep), the rows dropped (drop), or an error (error);
    /// auto keeps them when every strategy takes them, else drops.
    #[arg(long, value_enum, default_value_t = MissingArg::Auto)]
    missing: MissingArg,
}

impl MissingArgs {
    /// The policy asked for.
    pub fn asked(&self) -> Missing {
        self.missing.policy()
    }

    /// The policy settled before any row is read ([`missing_policy`]),
    /// `refusal` saying why a strategy of the job cannot take missing
    /// values (`None`: every one can).
    pub fn settle(&self, refusal: Option<String>) -> Result<Missing> {
        missing_policy(self.asked(), refusal, Front::Cli)
    }
}

/// How feature columns that are not numbers are read (`--categorical`,
/// `--categorical-cols`): shared by every command that reads training data.
#[derive(Debug, Clone, clap::Args)]
pub struct CategoricalArgs {
    /// Non-numeric feature columns: error, one-hot encode, keep as level
    /// codes (native), or level codes encoded by target statistics in every
    /// strategy (target: encode(target)+...).
    #[arg(long, value_enum, default_value_t = CategoricalArg::Error)]
    categorical: CategoricalArg,
    /// Read these columns as categorical (level codes, no limit on their
    /// count) whatever their values, numeric-looking codes included
    /// (comma-separated names; repeatable). `COL=MODE` sets one column's
    /// mode instead: native (level codes), one-hot, error (numbers only),
    /// or target (level codes encoded by target statistics; the others stay
    /// as they are), e.g. `--categorical-cols merchant=target,channel=native`.
    #[arg(long, value_name = "COL[=MODE],...", value_delimiter = ',')]
    categorical_cols: Vec<String>,
}

impl CategoricalArgs {
    /// Reader options with the categorical fields these arguments give
    /// (the others default).
    pub fn read_options(&self) -> Result<ReadOptions> {
        self.read_spec(ReadSpec::default()).options()
    }

    /// `spec` with the categorical fields these arguments give.
    fn read_spec(&self, spec: ReadSpec) -> ReadSpec {
        ReadSpec {
            categorical: mode_of(self.categorical).name().to_string(),
            categorical_cols: self.categorical_cols.clone(),
            ..spec
        }
    }
}

fn mode_of(arg: CategoricalArg) -> Categorical {
    match arg {
        CategoricalArg::Error => Categorical::Error,
        CategoricalArg::OneHot => Categorical::OneHot,
        CategoricalArg::Native => Categorical::Native,
        CategoricalArg::Target => Categorical::Target,
    }
}

/// Where the data comes from and how to read it.
#[derive(Debug, Clone, clap::Args)]
pub struct DataArgs {
    /// A CSV (plain, .gz or .zst), Parquet, Arrow IPC/Feather, KEEL `.dat`
    /// or ARFF file; `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// A bundled dataset instead of a file (see `rarity datasets`).
    #[arg(long, value_name = "NAME", conflicts_with = "file")]
    pub dataset: Option<String>,
    /// Target column: name (exact; else ignoring case when one column matches,
    /// noted on stderr) or 0-based index (-1 = last; default: last).
    #[arg(long, value_name = "COL", allow_hyphen_values = true)]
    pub target: Option<String>,
    /// Label of the positive class (default: the minority). In a multiclass
    /// table this makes the task binary: that label against the rest.
    #[arg(long, value_name = "LABEL")]
    pub positive: Option<String>,
    /// CSV field delimiter (one character, or `tab`).
    #[arg(long, default_value = ",")]
    pub delimiter: String,
    /// The CSV has no header row (columns are named x0, x1, ...).
    #[arg(long)]
    pub no_header: bool,
    #[command(flatten)]
    pub categories: CategoricalArgs,
    #[command(flatten)]
    pub missing: MissingArgs,
    /// Drop feature columns that take a single value.
    #[arg(long)]
    pub drop_constant: bool,
    /// Leave these columns out (comma-separated names; repeatable).
    #[arg(long, value_name = "COL,...", value_delimiter = ',')]
    pub drop: Vec<String>,
    /// Decimal separator of CSV numbers: `.` (default) or `,` (then the
    /// delimiter must be another character, e.g. `;`).
    #[arg(long, default_value = ".", value_name = "SEP")]
    pub decimal: String,
}

impl DataArgs {
    /// The data file, as an input of a command's [`JobPaths`].
    pub fn paths(&self) -> JobPaths<'_> {
        JobPaths::new().input_opt("the data", self.file.as_ref())
    }

    /// Whether neither a FILE nor `--dataset` was given (a command with a
    /// default dataset then reads it).
    pub fn is_default(&self) -> bool {
        self.file.is_none() && self.dataset.is_none()
    }

    /// The reader options these arguments describe.
    pub fn read_options(&self) -> Result<ReadOptions> {
        self.read_spec().options()
    }

    /// The reading request these arguments describe.
    pub fn read_spec(&self) -> ReadSpec {
        self.categories.read_spec(ReadSpec {
            target: self.target.clone(),
            positive: self.positive.clone(),
            delimiter: self.delimiter.clone(),
            header: !self.no_header,
            missing: self.missing.asked(),
            drop_constant: self.drop_constant,
            drop: self.drop.clone(),
            decimal: self.decimal.clone(),
            ..ReadSpec::default()
        })
    }

    /// These arguments with the missing-value policy settled before any
    /// row is read ([`missing_policy`]), `refusal` saying why a strategy of
    /// the job cannot take missing values (`None`: every one can).
    pub fn settle(&self, refusal: Option<String>) -> Result<DataArgs> {
        let policy = self.missing.settle(refusal)?;
        Ok(DataArgs {
            missing: MissingArgs {
                missing: MissingArg::of(policy),
            },
            ..self.clone()
        })
    }

    /// Reads the dataset (see [`DataArgs::read`]) and, unless `quiet`, says
    /// on stderr how many rows were dropped and why.
    pub fn load_noting(&self, default: Option<&str>, quiet: bool) -> Result<(Dataset, ReadReport)> {
        self.load_split(default, quiet, None)
    }

    /// [`DataArgs::load_noting`] for a cross-validation `splitter`: its time
    /// or group column is read as one ([`Splitter::key_column`]).
    pub fn load_split(
        &self,
        default: Option<&str>,
        quiet: bool,
        splitter: Option<&Splitter>,
    ) -> Result<(Dataset, ReadReport)> {
        let mut opts = self.read_options()?;
        opts.key = splitter.and_then(Splitter::key_column);
        let (ds, report) = self.load_with(default, &opts)?;
        self.note_dropped(&report, quiet);
        Ok((ds, report))
    }

    /// Says on stderr, unless `quiet`, how many rows were dropped and why,
    /// and which column a negative `--target` index picked.
    pub fn note_dropped(&self, report: &ReadReport, quiet: bool) {
        let by_index = self
            .target
            .as_deref()
            .filter(|t| t.trim_start().starts_with('-') && t.trim().parse::<i64>().is_ok());
        if let (false, Some(t)) = (quiet || report.target.is_empty(), by_index) {
            if report.target != t {
                note(&format!(
                    "note: --target {t} is the column '{}'",
                    report.target
                ));
            }
        }
        // A name matched ignoring case (only when no column has it exactly).
        if let (false, Some(t)) = (quiet || report.target.is_empty(), self.target.as_deref()) {
            if report.target != t && report.target.eq_ignore_ascii_case(t) {
                note(&format!(
                    "note: --target '{t}' is the column '{}' (names match ignoring case)",
                    report.target
                ));
            }
        }
        if !quiet {
            if let Some(dropped) = report.dropped_note() {
                note(&format!("note: {dropped}"));
            }
        }
    }

    /// Reads the dataset; `default` is the bundled set used when neither a
    /// file nor `--dataset` is given (`None`: that is an error).
    pub fn load(&self, default: Option<&str>) -> Result<(Dataset, ReadReport)> {
        self.load_with(default, &self.read_options()?)
    }

    fn load_with(
        &self,
        default: Option<&str>,
        opts: &ReadOptions,
    ) -> Result<(Dataset, ReadReport)> {
        self.source(default)?.read_whole_with(opts)
    }

    /// The data these arguments name (FILE, `--dataset`, else the
    /// command's `default` dataset) with their reader options, for a job
    /// that reads it ([`DataSource`]).
    pub fn source(&self, default: Option<&str>) -> Result<DataSource> {
        let origin = match (&self.file, &self.dataset, default) {
            (Some(path), _, _) => Origin::File(path.clone()),
            (None, Some(name), _) => Origin::Bundled(name.clone()),
            (None, None, Some(name)) => Origin::Bundled(name.to_string()),
            (None, None, None) => {
                return Err(Error::invalid(
                    "no data: give a FILE or --dataset NAME (see `rarity datasets`)",
                ))
            }
        };
        Ok(DataSource {
            origin,
            read: self.read_options()?,
        })
    }
}
