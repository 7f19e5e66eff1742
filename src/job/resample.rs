//! The `resample` job (`rarity resample`, `rarity.resample`): a
//! [`ResampleRequest`] (a sampler's name or spec, and its common parameters
//! as separate flags or keywords) checked into a [`ResamplePlan`] (the
//! sampler built) before any row is read, drawn on a table, or while
//! reading a file, into a [`ResampleJob`]: the sample, the class counts
//! before and after, the keep rates, rendering itself as the command
//! line's table or its JSON.

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};

use super::declared::Declared;
use super::source::DataSource;
use super::{fixed, Front};
use crate::data::read::{ReadOptions, ReadReport, RowsDropped};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::params::{self, defaults_table, params, syntax, Call, Params, Value as Param};
use crate::report::table::Table;
use crate::rng::{self, Rng};
use crate::sample::registry::{build_sampler, with_flags, SAMPLERS};
use crate::sample::Sampler;
use crate::stream::sample_file;

params! {
    /// The parameters of `rarity resample` and `rarity.resample`, declared
    /// once ([`super::declared`]); `beta` to `standardise` set the
    /// sampler's parameter of that name.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ResampleParams {
        /// The sampler: a name or a full spec such as enn(k=5,rule=all).
        pub method: String = String::new(),
        /// Undersampling rate of the majority class (under: beta).
        pub beta: Option<f64> = None,
        /// Minority/majority ratio after resampling (ratio).
        pub ratio: Option<f64> = None,
        /// Neighbours (k: SMOTE family, ENN, NCL, NearMiss).
        pub k: Option<usize> = None,
        /// Percent of new minority rows (amount: over, SMOTE family, hybrid).
        pub amount: Option<f64> = None,
        /// UnderOver's rate in percent of the largest class (a).
        pub a: Option<f64> = None,
        /// Search neighbours on standardised features (standardise).
        pub standardise: bool = false,
    }
}

/// `resample`'s declaration: its parameters, and each front end's own.
pub const DECLARED: Declared = Declared {
    job: "resample",
    table: defaults_table::<ResampleParams>,
    required: &["method"],
    cli_only: &[
        "dataset",
        "target",
        "positive",
        "delimiter",
        "decimal",
        "no-header",
        "categorical",
        "categorical-cols",
        "drop",
        "drop-constant",
        "missing",
        "output",
    ],
    python_only: &[
        "data",
        "target",
        "pos_label",
        "seed",
        "random_state",
        "n_jobs",
        "categorical",
        "categorical_cols",
        "missing",
        "delimiter",
        "decimal",
        "header",
        "drop",
        "drop_constant",
    ],
    python_names: &[],
};

/// What to draw: the parameters of `rarity resample` and `rarity.resample`.
#[derive(Debug, Clone)]
pub struct ResampleRequest {
    /// The declared parameters.
    pub params: ResampleParams,
    /// The seed of the draw.
    pub seed: u64,
    /// Which front end wrote the request (for its error messages).
    pub front: Front,
}

impl ResampleRequest {
    /// The sampler's call: the method with the parameters given on their
    /// own added as keyword arguments (one the spec also sets is an error).
    fn call(&self) -> Result<Call> {
        let p = |name: &str| self.front.param(name);
        let q = &self.params;
        if q.method.is_empty() {
            return Err(Error::invalid(format!(
                "{}: a sampler is required, e.g. under(beta=0.2)",
                p("method")
            )));
        }
        let mut stages = syntax::parse(&q.method)?;
        if stages.len() > 1 {
            return Err(Error::invalid(format!(
                "{} '{}': one sampler is expected, e.g. under(beta=0.2)",
                p("method"),
                q.method
            )));
        }
        let call = stages.remove(0);
        let entry = params::find(SAMPLERS, &call.name, "sampler")?;
        let mut call = with_flags(&call, &(entry.params)());
        let given = [
            ("beta", q.beta.map(Param::Number)),
            ("ratio", q.ratio.map(Param::Number)),
            ("k", q.k.map(|k| Param::Number(k as f64))),
            ("amount", q.amount.map(Param::Number)),
            ("a", q.a.map(Param::Number)),
            (
                "standardise",
                q.standardise.then(|| Param::Call(Call::bare("true"))),
            ),
        ];
        for (key, value) in given {
            let Some(value) = value else { continue };
            if call.arg(key).is_some() {
                return Err(Error::invalid(format!(
                    "{} and {key} in {} '{}' both given; give it once",
                    p(key),
                    p("method"),
                    q.method
                )));
            }
            call.args.push((Some(key.to_string()), value));
        }
        Ok(call)
    }

    /// Builds the sampler before any row is read.
    pub fn plan(self) -> Result<ResamplePlan> {
        // Read from a front end, the values are checked already (in its
        // spelling); built in code, here.
        self.params.check()?;
        Ok(ResamplePlan {
            sampler: build_sampler(&self.call()?)?,
            rng: rng::stream(self.seed, 0),
        })
    }
}

/// Why `sampler` cannot take missing values (`None`: it can: it draws rows
/// by class, never by their values).
pub fn sampler_refusal(sampler: &dyn Sampler) -> Option<String> {
    (!sampler.handles_missing()).then(|| {
        format!(
            "the sampler {} measures distances between rows, which a missing value leaves \
             undefined; impute the missing values first (a strategy's impute(...) stage before \
             it), or drop the incomplete rows (--missing drop; missing='drop' in Python)",
            sampler.name()
        )
    })
}

/// A checked request: the sampler, and the random stream of its draw
/// (`rng::stream(seed, 0)`, as a strategy's sampler stage draws).
pub struct ResamplePlan {
    sampler: Arc<dyn Sampler>,
    rng: Rng,
}

impl ResamplePlan {
    /// Why the sampler cannot take missing values (`None`: it can), for
    /// [`crate::job::missing_policy`].
    pub fn missing_refusal(&self) -> Option<String> {
        sampler_refusal(self.sampler.as_ref())
    }

    /// Draws the sample from the rows of `source`: a file is sampled while
    /// it is read when the sampler's keep decisions are per row and per
    /// class ([`Self::run_file`]); otherwise every row is read and
    /// [`Self::run`]. `read` is told what reading found as soon as it is
    /// known.
    pub fn run_source(
        mut self,
        source: &DataSource,
        read: &mut dyn FnMut(&ReadReport),
    ) -> Result<(ResampleJob, ReadReport)> {
        if let Some(path) = source.file() {
            if let Some((job, report)) = self.run_file(path, &source.read)? {
                read(&report);
                return Ok((job, report));
            }
        }
        let (ds, report) = source.read_whole()?;
        read(&report);
        Ok((self.run(&ds)?, report))
    }

    /// Draws the sample from the file at `path` while reading it when the
    /// sampler's keep decisions are per row and per class
    /// ([`sample_file`]); `None` when that cannot be done (then read the
    /// table and [`Self::run`], which continues the same random stream).
    fn run_file(
        &mut self,
        path: &Path,
        opts: &ReadOptions,
    ) -> Result<Option<(ResampleJob, ReadReport)>> {
        let Some(s) = sample_file(self.sampler.as_ref(), path, opts, &mut self.rng)? else {
            return Ok(None);
        };
        let job = ResampleJob {
            method: self.sampler.name(),
            after: s.data.class_counts(),
            data: s.data,
            before: s.counts,
            keep_rates: s.keep_rates,
            synthetic: 0,
            notes: s.notes,
        };
        Ok(Some((job, s.report)))
    }

    /// Draws the sample from `data`.
    pub fn run(mut self, data: &Dataset) -> Result<ResampleJob> {
        if let (Some((i, j)), Some(why)) = (data.first_missing(), self.missing_refusal()) {
            return Err(Error::invalid(format!(
                "row {i} (counting from 0), feature '{}' is missing: {why}",
                data.feature_names()[j]
            )));
        }
        let sample = self.sampler.resample(data, &mut self.rng)?;
        let out = sample.materialise(data)?;
        Ok(ResampleJob {
            method: self.sampler.name(),
            after: out.class_counts(),
            data: out,
            before: data.class_counts(),
            keep_rates: sample.keep_rates,
            synthetic: sample.synthetic_labels.len(),
            notes: sample.notes,
        })
    }
}

/// What was drawn, rendering itself.
#[derive(Debug, Clone)]
pub struct ResampleJob {
    /// The sampler's spec.
    pub method: String,
    /// The sample.
    pub data: Dataset,
    /// Rows of each class before.
    pub before: Vec<usize>,
    /// Rows of each class in the sample.
    pub after: Vec<usize>,
    /// Per class: rows in the sample over rows before.
    pub keep_rates: Vec<f64>,
    /// Synthetic rows made.
    pub synthetic: usize,
    /// Things the user should know.
    pub notes: Vec<String>,
}

impl ResampleJob {
    /// The outcome as `rarity resample --format json` prints it (`output`:
    /// where the sample was written, if it was).
    pub fn to_json(&self, output: Option<&Path>, rows_dropped: &RowsDropped) -> Value {
        json!({
            "method": self.method,
            "output": output.map(|p| p.display().to_string()),
            "classes": self.data.class_names(),
            "before": self.before,
            "after": self.after,
            "keep_rates": self.keep_rates,
            "synthetic_rows": self.synthetic,
            "notes": self.notes,
            "rows_dropped": rows_dropped,
        })
    }

    /// The outcome as `rarity resample` prints it, the sample written to
    /// `output`: the class counts before and after, and the notes.
    pub fn to_text(&self, output: &Path) -> String {
        let t = counts_table(
            self.data.class_names(),
            &self.before,
            &self.after,
            &self.keep_rates,
        );
        let notes: String = self.notes.iter().map(|n| format!("note: {n}\n")).collect();
        format!(
            "{} -> {} ({} synthetic rows)\n\n{}{notes}",
            self.method,
            output.display(),
            self.synthetic,
            t.to_text()
        )
    }
}

/// The class counts of a table before and after a job changed it, with
/// each class's keep rate (rows after over rows before, synthetic ones
/// included).
pub fn counts_table(classes: &[String], before: &[usize], after: &[usize], rates: &[f64]) -> Table {
    let mut t = Table::new(&["class", "before", "after", "keep rate"]);
    for (k, name) in classes.iter().enumerate() {
        t.text_row(vec![
            name.clone(),
            before[k].to_string(),
            after[k].to_string(),
            fixed(rates[k], 4),
        ]);
    }
    t
}
