//! The library's tables and functions as Python sees them: the registries
//! (learners, ensembles, samplers, stages, metrics), the bundled datasets,
//! prior correction and calibration (`rarity::calibrate`,
//! `rarity::decide`), metrics (`rarity::metrics`), statistical tests
//! (`rarity::stats`), and the `select`, `run`, `evaluate`, `score` and
//! `resample` jobs (`rarity::job`).

use std::path::PathBuf;
use std::sync::Arc;

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value as Json;

use rarity::calibrate::{self, Isotonic, Platt};
use rarity::data::read::{ReadOptions, RowsDropped};
use rarity::data::Proba;
use rarity::decide::Rule;
use rarity::job::calibrate::CalibrateRequest;
use rarity::job::evaluate::{EvaluateJob, EvaluateRequest};
use rarity::job::read::ReadSpec;
use rarity::job::resample::ResampleRequest;
use rarity::job::run::{RunJob, RunRequest, Shown};
use rarity::job::score::ScoreRequest;
use rarity::job::select::SelectRequest;
use rarity::job::Front;
use rarity::metrics::catalogue::{metric, Direction, Needs, METRICS};
use rarity::params::{Entry, ParamInfo};

use crate::data::{split_key, Data, Features};
use crate::model::{proba_array, Model};
use crate::pool::{run, to_py};

fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// A JSON value as the Python object `json.loads` would give.
pub fn json_py(py: Python<'_>, v: &Json) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Json::Null => py.None(),
        Json::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Json::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any().unbind(),
            (None, Some(f)) => f.into_pyobject(py)?.into_any().unbind(),
            _ => py.None(),
        },
        Json::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        Json::Array(a) => {
            let items = a
                .iter()
                .map(|x| json_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        Json::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, json_py(py, x)?)?;
            }
            d.into_any().unbind()
        }
    })
}

fn to_json<T: serde::Serialize>(v: &T) -> PyResult<Json> {
    serde_json::to_value(v).map_err(|e| value_error(e.to_string()))
}

// ---- registries

fn params_list<'py>(py: Python<'py>, params: &[ParamInfo]) -> PyResult<Bound<'py, PyList>> {
    let items = params
        .iter()
        .map(|p| {
            let d = PyDict::new(py);
            d.set_item("name", p.name)?;
            d.set_item("expected", &p.expected)?;
            d.set_item("default", &p.default)?;
            d.set_item("doc", &p.doc)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

fn entries<'py, T>(
    py: Python<'py>,
    entries: impl Iterator<Item = &'static Entry<T>>,
    extra: impl Fn(&Bound<'py, PyDict>, &Entry<T>) -> PyResult<()>,
) -> PyResult<Bound<'py, PyList>>
where
    T: 'static,
{
    let items = entries
        .map(|e| {
            let d = PyDict::new(py);
            d.set_item("name", e.name)?;
            d.set_item("summary", e.summary)?;
            d.set_item("python", e.python)?;
            d.set_item("params", params_list(py, &(e.params)())?)?;
            extra(&d, e)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// The missing-value policy a table is read with, settled before it is
/// (`rarity::job::missing_policy`, as every command settles `--missing`):
/// `missing` as asked (`auto`, `keep`, `drop`, `error`) and what will fit on
/// it, `specs` of `kind` `strategies` (strategy specs; `None`: the task's
/// defaults, each imputing where it must), `learners` or `sampler`; `none`
/// for nothing. Returns `keep`, `drop` or `error`; `keep` asked for what
/// cannot take missing values is a `ValueError` naming the stage to add.
#[pyfunction]
#[pyo3(signature = (missing, kind="strategies", specs=None))]
pub fn missing_policy(missing: &str, kind: &str, specs: Option<Vec<String>>) -> PyResult<String> {
    use rarity::data::read::Missing;
    use rarity::job::{self, Front};
    let asked = Missing::from_word(missing).ok_or_else(|| {
        value_error(format!(
            "missing={missing:?} is invalid; expected 'auto', 'keep', 'drop' or 'error'"
        ))
    })?;
    let refusal = match (kind, specs) {
        ("none", _) | (_, None) => None,
        ("strategies", Some(specs)) => {
            let built = specs
                .iter()
                .map(|s| rarity::spec::build_strategy(s))
                .collect::<rarity::Result<Vec<_>>>()
                .map_err(crate::pool::to_py)?;
            job::refusal(&built.iter().collect::<Vec<_>>())
        }
        ("learners", Some(specs)) => {
            let built =
                rarity::spec::build_learners(&specs.join(",")).map_err(crate::pool::to_py)?;
            job::select::learners_refusal(&built)
        }
        // A sampler spec that does not parse is left to the job, whose
        // error names the caller's parameter (`method`).
        ("sampler", Some(specs)) => rarity::sample::parse_sampler(&specs.join("+"))
            .ok()
            .and_then(|s| job::resample::sampler_refusal(s.as_ref())),
        (k, _) => return Err(value_error(format!("unknown kind of specs '{k}'"))),
    };
    job::missing_policy(asked, refusal, Front::Python)
        .map(|m| m.word().to_string())
        .map_err(crate::pool::to_py)
}

/// Writes the files of a report (`report_files` of a result) to `dir`,
/// whole, as `--report DIR` writes them: what a result loaded from a pickle
/// writes its report with.
#[pyfunction]
pub fn write_report_files(
    py: Python<'_>,
    dir: PathBuf,
    files: Vec<(String, String)>,
) -> PyResult<()> {
    run(py, Some(1), move || {
        rarity::report::check_report_dir(&dir)?;
        rarity::report::write_files(&dir, &files)
    })
}

/// Writes `data` to the file `path` whole or not at all, as every output of
/// the command line is written (a temporary file renamed into place, the
/// replaced file's mode kept; nothing that is not a regular file replaced).
#[pyfunction]
pub fn write_file(py: Python<'_>, path: PathBuf, data: Vec<u8>) -> PyResult<()> {
    run(py, Some(1), move || {
        use std::io::Write;
        rarity::data::write::JobPaths::new()
            .output("path", &path)
            .check()?;
        let mut f = rarity::data::write::AtomicFile::create(&path)?;
        f.writer().write_all(&data).map_err(|e| f.err(e))?;
        f.commit()
    })
}

/// What the text of one parameter value is, as the spec grammar reads it:
/// `number`, `text` (quoted), `call` (a word or a nested spec) or `list`;
/// a `ValueError` when it is not exactly one value (text that would add
/// arguments or stages to the spec it is written into).
#[pyfunction]
pub fn value_kind(text: &str) -> PyResult<&'static str> {
    use rarity::params::syntax::{parse_value, Value};
    Ok(match parse_value(text).map_err(crate::pool::to_py)? {
        Value::Number(_) => "number",
        Value::Text(_) => "text",
        Value::Call(_) => "call",
        Value::List(_) => "list",
    })
}

/// The stages of a strategy spec as the library parses it: per stage its
/// name, its text as written and its arguments, each `(keyword or None,
/// value as spec text)`. What `rarity.load` reads a model's spec with, to
/// give the estimator class and parameters that write that spec.
#[pyfunction]
pub fn spec_stages(spec: &str) -> PyResult<Vec<StageParts>> {
    let stages = rarity::params::syntax::parse_spanned(spec).map_err(crate::pool::to_py)?;
    Ok(stages
        .into_iter()
        .map(|(call, text)| {
            let args = call.args.iter().map(|(k, v)| (k.clone(), v.to_string()));
            (call.name, text, args.collect())
        })
        .collect())
}

/// One stage of [`spec_stages`]: name, text, arguments.
type StageParts = (String, String, Vec<(Option<String>, String)>);

/// The position of the target column `target` (a name, matched exactly
/// or else ignoring case when one column matches, or a 0-based index; the
/// last column when `None`) among `names`, as the readers find it.
#[pyfunction]
#[pyo3(signature = (names, target=None))]
pub fn target_index(names: Vec<String>, target: Option<String>) -> PyResult<usize> {
    rarity::data::read::target_index(target.as_deref(), &names, "the table")
        .map_err(crate::pool::to_py)
}

/// Whether sampler `spec` makes rows that are not rows of the input
/// (`Sampler::synthesizes`).
#[pyfunction]
pub fn sampler_synthesizes(spec: String) -> PyResult<bool> {
    Ok(rarity::sample::parse_sampler(&spec)
        .map_err(crate::pool::to_py)?
        .synthesizes())
}

/// One family of the registries: `learners`, `ensembles`, `samplers`,
/// `stages` or `metrics`, as a list of dicts (name, summary, Python class
/// name where the registry gives one, params with name / expected /
/// default / doc; ensembles add their default decision, samplers whether
/// they synthesize rows, metrics their key, label, direction and where
/// they are defined).
#[pyfunction]
pub fn registry<'py>(py: Python<'py>, family: &str) -> PyResult<Bound<'py, PyList>> {
    match family {
        "learners" => entries(py, rarity::learn::registry::LEARNERS.iter(), |_, _| Ok(())),
        "ensembles" => {
            let named = rarity::ensemble::registry::ENSEMBLES;
            entries(py, named.iter().map(|e| &e.entry), |d, e| {
                let decision = named
                    .iter()
                    .find(|n| n.entry.name == e.name)
                    .map(|n| &n.decision);
                d.set_item("decision", decision.map(ToString::to_string))
            })
        }
        "samplers" => entries(py, rarity::sample::registry::SAMPLERS.iter(), |d, e| {
            d.set_item("synthesizes", sampler_synthesizes(e.name.to_string())?)
        }),
        "stages" => entries(py, rarity::decide::registry::STAGES.iter(), |_, _| Ok(())),
        "metrics" => {
            // Parameterised metrics (precision_at_k(k=K), ...) are calls, not
            // functions of the predictions alone: not listed yet.
            let items = METRICS
                .iter()
                .filter(|m| m.params.is_none())
                .map(|m| {
                    let d = PyDict::new(py);
                    d.set_item("key", m.key)?;
                    d.set_item("label", m.label)?;
                    d.set_item(
                        "direction",
                        match m.direction {
                            Direction::Higher => "higher",
                            Direction::Lower => "lower",
                            Direction::Neither => "neither",
                        },
                    )?;
                    d.set_item(
                        "needs",
                        match m.needs() {
                            Needs::Probabilities => "probabilities",
                            Needs::Labels => "labels",
                            Needs::Settings => "settings",
                        },
                    )?;
                    d.set_item("binary", m.defined_for(2))?;
                    d.set_item("multiclass", m.defined_for(3))?;
                    d.set_item("tunable", m.tunable.is_some())?;
                    Ok(d)
                })
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)
        }
        _ => Err(value_error(format!(
            "unknown family '{family}'; accepted: learners, ensembles, samplers, stages, metrics"
        ))),
    }
}

// ---- bundled datasets

/// The bundled datasets: (name, kind, source).
#[pyfunction]
pub fn bundled() -> Vec<(&'static str, &'static str, &'static str)> {
    rarity::data::bundled::BUNDLED
        .iter()
        .map(|b| (b.name, b.kind, b.source))
        .collect()
}

/// A bundled dataset (read as `--dataset NAME` reads it).
#[pyfunction]
#[pyo3(signature = (name, n_jobs=None))]
pub fn load_bundled(py: Python<'_>, name: String, n_jobs: Option<i64>) -> PyResult<Data> {
    let ds = run(py, n_jobs, move || {
        let (ds, _) = rarity::data::bundled::find(&name)?.load(&ReadOptions::default())?;
        Ok(ds)
    })?;
    Ok(Data::whole(ds))
}

/// A data file (CSV, Parquet, Arrow, KEEL `.dat`, ARFF), read as the
/// command line reads it, through the library's reading request
/// ([`ReadSpec`]): `target` a name or 0-based index (default: last column),
/// `delimiter` one character or `tab`, `decimal` `.` or `,`, `header`,
/// `categorical` the mode of text columns (`categorical_cols` naming more,
/// or `COL=MODE`), `drop` columns left out, `drop_constant`, and `missing`
/// the settled policy ([`missing_policy`]: `keep`, `drop`, or `error`).
#[pyfunction]
#[pyo3(signature = (path, target=None, positive=None, delimiter=",".to_string(), categorical="error".to_string(), missing="drop", n_jobs=None, cv=None, categorical_cols=None, decimal=".".to_string(), header=true, drop=Vec::new(), drop_constant=false))]
#[allow(clippy::too_many_arguments)]
pub fn read_file(
    py: Python<'_>,
    path: PathBuf,
    target: Option<String>,
    positive: Option<String>,
    delimiter: String,
    categorical: String,
    missing: &str,
    n_jobs: Option<i64>,
    cv: Option<&str>,
    categorical_cols: Option<Vec<String>>,
    decimal: String,
    header: bool,
    drop: Vec<String>,
    drop_constant: bool,
) -> PyResult<Data> {
    use rarity::data::read::read_path;
    let spec = ReadSpec {
        target,
        positive,
        delimiter,
        header,
        categorical,
        categorical_cols: categorical_cols.unwrap_or_default(),
        missing: crate::data::settled(missing)?,
        drop_constant,
        drop,
        decimal,
        front: Front::Python,
    };
    let opts = ReadOptions {
        key: split_key(cv)?,
        ..spec.options().map_err(crate::pool::to_py)?
    };
    let (ds, report) = run(py, n_jobs, move || read_path(&path, &opts))?;
    Ok(Data::read(ds, &report))
}

/// The plain names and the `(column, mode)` pairs of `categorical_cols`
/// entries `COL` / `COL=MODE`, parsed as the readers parse them
/// ([`ReadSpec`]): for a table, whose columns Python reads itself.
#[pyfunction]
pub fn column_modes(entries: Vec<String>) -> PyResult<(Vec<String>, Vec<(String, &'static str)>)> {
    let spec = ReadSpec {
        categorical_cols: entries,
        front: Front::Python,
        ..ReadSpec::default()
    };
    let opts = spec.options().map_err(crate::pool::to_py)?;
    let modes = opts.column_modes.into_iter();
    Ok((
        opts.categorical_cols,
        modes.map(|(c, m)| (c, m.name())).collect(),
    ))
}

/// The features and class ids of a dataset: `(X, y)`.
#[pyfunction]
pub fn dataset_arrays<'py>(
    py: Python<'py>,
    data: &Data,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Bound<'py, PyArray1<u32>>)> {
    let (n, d) = (data.ds.n_rows(), data.ds.n_features());
    let x = data
        .ds
        .features()
        .to_vec()
        .into_pyarray(py)
        .reshape([n, d])?;
    Ok((x, data.ds.labels().to_vec().into_pyarray(py)))
}

// ---- calibration

fn proba_of(p: &PyReadonlyArray2<'_, f64>) -> PyResult<Proba> {
    let a = p.as_array();
    let (n, k) = a.dim();
    if k < 2 {
        return Err(value_error(format!(
            "probabilities need one column per class (at least 2); got {k}"
        )));
    }
    let v: Vec<f64> = a.iter().copied().collect();
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(value_error(format!(
            "proba[{}, {}] = {} is not a finite number",
            i / k,
            i % k,
            v[i]
        )));
    }
    debug_assert_eq!(v.len(), n * k);
    Ok(Proba::new(v, k))
}

/// Undoes a sampler's prior shift: `p_k ∝ p_s,k / r_k` (Dal Pozzolo et al.
/// 2015, eq. 9 for two classes).
#[pyfunction]
pub fn correct<'py>(
    py: Python<'py>,
    proba: PyReadonlyArray2<'_, f64>,
    keep_rates: Vec<f64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let mut p = proba_of(&proba)?;
    calibrate::correct_keep_rates(&mut p, &keep_rates).map_err(to_py)?;
    proba_array(py, p)
}

/// Dal Pozzolo et al. eq. 12: the threshold on corrected probabilities
/// equivalent to `tau_s` on the sample's.
#[pyfunction]
pub fn corrected_threshold(tau_s: f64, beta: f64) -> PyResult<f64> {
    if !(0.0..=1.0).contains(&tau_s) || !(beta > 0.0 && beta.is_finite()) {
        return Err(value_error(format!(
            "expected tau_s in [0, 1] and beta > 0; got tau_s={tau_s}, beta={beta}"
        )));
    }
    Ok(rarity::decide::corrected_threshold(tau_s, beta))
}

/// Moves probabilities from `train_priors` to `target_priors` (Saerens et
/// al. 2002; Dal Pozzolo et al.'s appendix, eq. 14).
#[pyfunction]
pub fn adjust_to_priors<'py>(
    py: Python<'py>,
    proba: PyReadonlyArray2<'_, f64>,
    train_priors: Vec<f64>,
    target_priors: Vec<f64>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let mut p = proba_of(&proba)?;
    calibrate::adjust_to_priors(&mut p, &train_priors, &target_priors).map_err(to_py)?;
    proba_array(py, p)
}

/// Saerens' EM estimate of unknown test priors: (priors, adjusted
/// probabilities, iterations, converged).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn em_priors<'py>(
    py: Python<'py>,
    proba: PyReadonlyArray2<'_, f64>,
    train_priors: Vec<f64>,
    tol: f64,
    max_iter: usize,
) -> PyResult<(Vec<f64>, Bound<'py, PyArray2<f64>>, usize, bool)> {
    let p = proba_of(&proba)?;
    let est = calibrate::saerens_em(&p, &train_priors, tol, max_iter).map_err(to_py)?;
    Ok((
        est.priors,
        proba_array(py, est.adjusted)?,
        est.iterations,
        est.converged,
    ))
}

/// `rarity calibrate` on probabilities: undo keep rates (`beta` or
/// `keep_rates`), move to `to_priors` or to EM's priors (`em`) from
/// `train_priors`; (its JSON, the new probabilities, their labels at the
/// threshold equivalent to `threshold` or by the argmax).
#[pyfunction]
#[pyo3(signature = (proba, classes, beta=None, keep_rates=None, to_priors=None, em=false, train_priors=None, threshold=0.5))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn calibrate_job<'py>(
    py: Python<'py>,
    proba: PyReadonlyArray2<'_, f64>,
    classes: Vec<String>,
    beta: Option<f64>,
    keep_rates: Option<Vec<f64>>,
    to_priors: Option<Vec<f64>>,
    em: bool,
    train_priors: Option<Vec<f64>>,
    threshold: f64,
) -> PyResult<(
    Py<PyAny>,
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray1<u32>>,
)> {
    let p = proba_of(&proba)?;
    let request = CalibrateRequest {
        beta,
        keep_rates,
        to_priors,
        em,
        train_priors,
        threshold,
        front: Front::Python,
    };
    let job = request.run(&p).map_err(to_py)?;
    let json = json_py(py, &job.to_json(None, &classes))?;
    Ok((
        json,
        proba_array(py, job.proba)?,
        job.labels.into_pyarray(py),
    ))
}

/// The decision rule consistent with a sample's keep rates
/// (`rarity::decide::Rule::consistent`) as (threshold or None, lambdas
/// or None).
#[pyfunction]
pub fn consistent_rule(keep_rates: Vec<f64>) -> PyResult<(Option<f64>, Option<Vec<f64>>)> {
    match Rule::consistent(&keep_rates).map_err(to_py)? {
        Rule::Threshold(t) => Ok((Some(t), None)),
        Rule::Lambda(l) => Ok((None, Some(l))),
        _ => Ok((None, None)),
    }
}

/// Labels of probabilities by a threshold (binary) or per-class lambdas.
#[pyfunction]
#[pyo3(signature = (proba, threshold=None, lambdas=None))]
pub fn decide<'py>(
    py: Python<'py>,
    proba: PyReadonlyArray2<'_, f64>,
    threshold: Option<f64>,
    lambdas: Option<Vec<f64>>,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let p = proba_of(&proba)?;
    let rule = match (threshold, lambdas) {
        (Some(t), None) => Rule::Threshold(t),
        (None, Some(l)) => Rule::Lambda(l),
        (None, None) => Rule::Argmax,
        _ => return Err(value_error("give a threshold or lambdas, not both")),
    };
    Ok(rule.decide(&p, None).map_err(to_py)?.into_pyarray(py))
}

/// A fitted Platt sigmoid (`1 / (1 + exp(a f + b))`).
#[pyfunction]
pub fn platt_fit(scores: Vec<f64>, positive: Vec<bool>) -> PyResult<(f64, f64)> {
    let p = Platt::fit(&scores, &positive).map_err(to_py)?;
    Ok((p.a, p.b))
}

/// Platt probabilities of scores.
#[pyfunction]
pub fn platt_apply<'py>(
    py: Python<'py>,
    a: f64,
    b: f64,
    scores: PyReadonlyArray1<'_, f64>,
) -> Bound<'py, PyArray1<f64>> {
    let p = Platt { a, b };
    let v: Vec<f64> = scores.as_array().iter().map(|&s| p.apply(s)).collect();
    v.into_pyarray(py)
}

/// A fitted isotonic map, as JSON (its knots).
#[pyfunction]
#[pyo3(signature = (scores, positive, weights=None))]
pub fn isotonic_fit(
    scores: Vec<f64>,
    positive: Vec<bool>,
    weights: Option<Vec<f64>>,
) -> PyResult<String> {
    let iso = Isotonic::fit(&scores, &positive, weights.as_deref()).map_err(to_py)?;
    serde_json::to_string(&iso).map_err(|e| value_error(e.to_string()))
}

/// Isotonic probabilities of scores (`knots` from `isotonic_fit`).
#[pyfunction]
pub fn isotonic_apply<'py>(
    py: Python<'py>,
    knots: &str,
    scores: PyReadonlyArray1<'_, f64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let iso: Isotonic =
        serde_json::from_str(knots).map_err(|e| value_error(format!("bad isotonic map: {e}")))?;
    let v: Vec<f64> = scores.as_array().iter().map(|&s| iso.apply(s)).collect();
    Ok(v.into_pyarray(py))
}

// ---- metrics

fn truth_of(t: &PyReadonlyArray1<'_, u32>) -> Vec<u32> {
    t.as_array().to_vec()
}

/// Every metric of `rarity score`: (key, value) pairs in report order,
/// the `metrics` added (the same request and call as `rarity score`).
#[pyfunction]
#[pyo3(signature = (truth, proba, threshold=0.5, labels=None, metrics=Vec::new()))]
pub fn score_report(
    truth: PyReadonlyArray1<'_, u32>,
    proba: PyReadonlyArray2<'_, f64>,
    threshold: f64,
    labels: Option<PyReadonlyArray1<'_, u32>>,
    metrics: Vec<String>,
) -> PyResult<Vec<(String, f64)>> {
    let plan = ScoreRequest {
        threshold,
        metrics,
        front: Front::Python,
    }
    .plan()
    .map_err(to_py)?;
    let (t, p) = (truth_of(&truth), proba_of(&proba)?);
    let labels = labels.map(|l| l.as_array().to_vec());
    let job = plan.run(&t, &p, labels.as_deref()).map_err(to_py)?;
    Ok(job.metrics)
}

/// One metric of the catalogue.
#[pyfunction]
#[pyo3(signature = (key, truth, proba, threshold=0.5, labels=None))]
pub fn metric_value(
    key: &str,
    truth: PyReadonlyArray1<'_, u32>,
    proba: PyReadonlyArray2<'_, f64>,
    threshold: f64,
    labels: Option<PyReadonlyArray1<'_, u32>>,
) -> PyResult<f64> {
    let m = metric(key).map_err(to_py)?;
    let (t, p) = (truth_of(&truth), proba_of(&proba)?);
    let labels: Vec<u32> = match labels {
        Some(l) => l.as_array().to_vec(),
        None if p.n_classes() == 2 => {
            if !(0.0..=1.0).contains(&threshold) {
                return Err(value_error(format!(
                    "the threshold must lie in [0, 1], got {threshold}"
                )));
            }
            Rule::Threshold(threshold).decide(&p, None).map_err(to_py)?
        }
        None => Rule::Argmax.decide(&p, None).map_err(to_py)?,
    };
    rarity::metrics::catalogue::value(m, &t, &p, &labels).map_err(to_py)
}

/// The positive label of binary scores (`rarity score`'s rule).
#[pyfunction]
#[pyo3(signature = (names, positive=None))]
pub fn positive_label(names: Vec<String>, positive: Option<String>) -> PyResult<String> {
    rarity::data::scores::positive_label(&names, positive.as_deref()).map_err(to_py)
}

// ---- statistics

/// Friedman's test over a table (rows: datasets, columns: methods; larger
/// is better): chi-square and Iman-Davenport's F with their p-values.
#[pyfunction]
pub fn friedman<'py>(py: Python<'py>, table: Vec<Vec<f64>>) -> PyResult<Bound<'py, PyDict>> {
    let f = rarity::stats::friedman(&table).map_err(to_py)?;
    let d = PyDict::new(py);
    d.set_item("n", f.n)?;
    d.set_item("k", f.k)?;
    d.set_item("chi2", f.chi2)?;
    d.set_item("chi2_p_value", f.chi2_p_value)?;
    d.set_item("f", f.f)?;
    d.set_item("f_p_value", f.f_p_value)?;
    Ok(d)
}

/// Mean rank of each method (1 = best).
#[pyfunction]
pub fn mean_ranks(table: Vec<Vec<f64>>, higher_is_better: bool) -> PyResult<Vec<f64>> {
    rarity::stats::mean_ranks(&table, higher_is_better).map_err(to_py)
}

/// Nemenyi's critical difference for `k` methods over `n` datasets.
#[pyfunction]
pub fn critical_difference(k: usize, n: usize, alpha: f64) -> PyResult<f64> {
    rarity::stats::critical_difference(k, n, alpha).map_err(to_py)
}

/// Nemenyi's p-value of a mean-rank difference.
#[pyfunction]
pub fn nemenyi_p_value(rank_difference: f64, k: usize, n: usize) -> PyResult<f64> {
    rarity::stats::nemenyi_p_value(rank_difference, k, n).map_err(to_py)
}

/// Wilcoxon's signed-rank test of paired results (SciPy's two-sided).
#[pyfunction]
pub fn wilcoxon<'py>(py: Python<'py>, x: Vec<f64>, y: Vec<f64>) -> PyResult<Bound<'py, PyDict>> {
    let w = rarity::stats::wilcoxon(&x, &y).map_err(to_py)?;
    let d = PyDict::new(py);
    d.set_item("statistic", w.statistic)?;
    d.set_item("w_plus", w.w_plus)?;
    d.set_item("w_minus", w.w_minus)?;
    d.set_item("p_value", w.p_value)?;
    d.set_item("method", format!("{:?}", w.method).to_lowercase())?;
    Ok(d)
}

// ---- model selection

/// Ranks learners for an unlabelled target set by any method of `rarity
/// select`, with the bias diagnosis, from the declared parameters `params`
/// (`(name, text)` pairs, read by the library as the command line's flags
/// are); `truth`, the target rows with their labels, adds the true order.
/// The same request and call as `rarity select`; returns its JSON.
#[pyfunction]
#[pyo3(signature = (params, train, target, seed=42, n_jobs=None, truth=None))]
pub fn select(
    py: Python<'_>,
    params: Vec<(String, String)>,
    train: &Data,
    target: &Features,
    seed: u64,
    n_jobs: Option<i64>,
    truth: Option<&Data>,
) -> PyResult<Py<PyAny>> {
    let request = SelectRequest {
        params: rarity::job::declared::read(&rarity::job::select::DECLARED, &params, Front::Python)
            .map_err(to_py)?,
        seed,
        front: Front::Python,
    };
    let (train, target) = (train.ds.clone(), target.clone());
    let truth = truth.map(|t| t.ds.clone());
    let json = run(py, n_jobs, move || {
        let plan = request.plan()?;
        // Missing values of the target rows are the learners' to refuse.
        let every = vec![true; train.schema().encodings.len()];
        let target =
            target.for_schema(train.schema(), rarity::data::read::Unknown::Error, &every)?;
        Ok(plan.run(&train, &target, truth.as_ref())?.to_json())
    })?;
    json_py(py, &json)
}

// ---- run

/// What `rarity run` found, kept for its tables and report.
#[pyclass(frozen, module = "rarity._rarity")]
pub struct RunResult {
    job: Arc<RunJob>,
    /// The rows the data left out (a missing categorical value).
    dropped: RowsDropped,
}

/// Compares strategies on `data` with repeated stratified
/// cross-validation on shared folds, ranks them (models on a ranking or
/// probability metric, each model's decisions on `decision_metric`),
/// tests the differences between models (Friedman / Nemenyi) and fits the
/// winner on all rows: the same request and call as `rarity run`.
#[pyfunction]
#[pyo3(signature = (data, models=Vec::new(), metric=RunRequest::DEFAULT_METRIC, cv=RunRequest::DEFAULT_CV, cost=None, benefit=None, seed=42, n_jobs=None, decision_metric=None, pooled=false))]
#[allow(clippy::too_many_arguments)]
pub fn run_job(
    py: Python<'_>,
    data: &Data,
    models: Vec<String>,
    metric: &str,
    cv: &str,
    cost: Option<String>,
    benefit: Option<String>,
    seed: u64,
    n_jobs: Option<i64>,
    decision_metric: Option<String>,
    pooled: bool,
) -> PyResult<RunResult> {
    let request = RunRequest {
        models,
        metric: metric.to_string(),
        decision_metric,
        cv: cv.to_string(),
        pooled,
        cost,
        benefit,
        keep_predictions: true,
        oof: false,
        seed,
        front: Front::Python,
    };
    let ds = data.ds.clone();
    let job = run(py, n_jobs, move || request.plan()?.run(&ds))?;
    Ok(RunResult {
        job: Arc::new(job),
        dropped: data.rows_dropped(),
    })
}

#[pymethods]
impl RunResult {
    /// The ranked strategies, best first: per strategy its spec and, per
    /// metric, mean, std and full potential over folds.
    fn ranking<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let o = &self.job.outcome;
        let rows = o
            .order
            .iter()
            .map(|&i| {
                let e = &o.comparison.evaluations[i];
                let d = PyDict::new(py);
                d.set_item("strategy", &e.spec)?;
                let m = PyDict::new(py);
                for (k, s) in e.summary() {
                    m.set_item(k, json_py(py, &to_json(&s)?)?)?;
                }
                d.set_item("metrics", m)?;
                let (fit, predict) = e.seconds();
                d.set_item("fit_seconds", fit)?;
                d.set_item("predict_seconds", predict)?;
                Ok(d)
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, rows)
    }

    /// Every (strategy, fold) result: spec, repeat, fold and metrics.
    fn folds<'py>(&self, py: Python<'py>) -> PyResult<Py<PyAny>> {
        let v = to_json(&self.job.outcome.comparison)?;
        json_py(py, &v)
    }

    /// The whole outcome as `rarity run --format json` prints it (`source`
    /// names the data; nothing saved, no report).
    #[pyo3(signature = (source="<data>"))]
    fn to_json(&self, py: Python<'_>, source: &str) -> PyResult<Py<PyAny>> {
        json_py(py, &self.job.to_json(&self.shown(source)))
    }

    /// The outcome as `rarity run` prints it (`source` names the data).
    #[pyo3(signature = (source="<data>"))]
    fn to_text(&self, source: &str) -> String {
        rarity::printable::escape_text(&self.job.to_text(&self.shown(source))).into_owned()
    }

    /// The Friedman / Nemenyi verdict between models (model indices into
    /// its `models`); `testable` is false when no difference can be tested.
    #[getter]
    fn verdict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_py(py, &to_json(&self.job.outcome.verdict)?)
    }

    /// What the metric ranked: `models` or `strategies`.
    #[getter]
    fn level(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_py(py, &to_json(&self.job.outcome.level)?)
    }

    /// The thresholded metric that compared the decisions of each model.
    #[getter]
    fn decision_metric(&self) -> &'static str {
        self.job.outcome.decision_metric.key
    }

    /// The decisions of each model, best model first: per model its spec
    /// and its strategies, best first on the decision metric, each with the
    /// Wilcoxon p-value against the model's best.
    fn decisions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let o = &self.job.outcome;
        let rows = o
            .decisions
            .iter()
            .map(|d| {
                let r = PyDict::new(py);
                r.set_item("model", &o.comparison.models[d.model].spec)?;
                let specs: Vec<&str> = d
                    .strategies
                    .iter()
                    .map(|&i| o.comparison.evaluations[i].spec.as_str())
                    .collect();
                r.set_item("strategies", specs)?;
                r.set_item("p_vs_best", d.p_vs_best.clone())?;
                Ok(r)
            })
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, rows)
    }

    /// Strategy specs in evaluation order.
    #[getter]
    fn strategies(&self) -> Vec<String> {
        self.job
            .outcome
            .comparison
            .evaluations
            .iter()
            .map(|e| e.spec.clone())
            .collect()
    }

    /// The metric that ranked the strategies.
    #[getter]
    fn metric(&self) -> &'static str {
        self.job.outcome.metric.key
    }

    /// The winner fitted on all rows.
    #[getter]
    fn winner(&self) -> Model {
        Model::new(self.job.outcome.winner.clone())
    }

    /// The HTML report's page as `rarity run --report DIR` writes its
    /// `index.html` (tables and SVG figures inline); `source` names the
    /// data.
    #[pyo3(signature = (source="<data>"))]
    fn report_html(&self, source: &str) -> PyResult<String> {
        self.job.report_html(source).map_err(crate::pool::to_py)
    }

    /// The report's files (path in the folder, text) as `report` writes
    /// them; `source` names the data.
    #[pyo3(signature = (source="<data>"))]
    fn report_files(&self, source: &str) -> PyResult<Vec<(String, String)>> {
        self.job.report_files(source).map_err(crate::pool::to_py)
    }

    /// Writes the HTML report (and every table as CSV and JSON) to `dir`,
    /// as `rarity run --report DIR` does; `source` names the data.
    #[pyo3(signature = (dir, source="<data>"))]
    fn report(&self, py: Python<'_>, dir: PathBuf, source: &str) -> PyResult<()> {
        let (job, source) = (Arc::clone(&self.job), source.to_string());
        run(py, Some(1), move || {
            rarity::report::check_report_dir(&dir)?;
            job.write_report(&dir, &source, None)
        })
    }
}

impl RunResult {
    /// What the outcome shows of where the data came from: nothing saved,
    /// no report, the rows dropped for a missing categorical value.
    fn shown<'a>(&self, source: &'a str) -> Shown<'a> {
        Shown {
            source,
            rows_dropped: self.dropped.clone(),
            saved: None,
            report: None,
            why: None,
            program: None,
        }
    }
}

// ---- evaluate

/// What `rarity evaluate` found, kept for its tables and out-of-fold rows.
#[pyclass(frozen, module = "rarity._rarity")]
pub struct EvaluateResult {
    job: Arc<EvaluateJob>,
    /// The rows the data left out (a missing categorical value).
    dropped: RowsDropped,
}

/// Cross-validated metrics of one strategy on `data`, per fold or on each
/// repeat's pooled out-of-fold predictions (`pooled`, always with `loo`),
/// keeping the out-of-fold predictions with `oof`: the same request and
/// call as `rarity evaluate`.
#[pyfunction]
#[pyo3(signature = (data, model, cv="10", pooled=false, metrics=Vec::new(), oof=false, seed=42, n_jobs=None))]
#[allow(clippy::too_many_arguments)]
pub fn evaluate_job(
    py: Python<'_>,
    data: &Data,
    model: String,
    cv: &str,
    pooled: bool,
    metrics: Vec<String>,
    oof: bool,
    seed: u64,
    n_jobs: Option<i64>,
) -> PyResult<EvaluateResult> {
    let request = EvaluateRequest {
        model,
        cv: cv.to_string(),
        pooled,
        metrics,
        oof,
        seed,
        front: Front::Python,
    };
    let ds = data.ds.clone();
    let job = run(py, n_jobs, move || request.plan()?.run(&ds))?;
    Ok(EvaluateResult {
        job: Arc::new(job),
        dropped: data.rows_dropped(),
    })
}

#[pymethods]
impl EvaluateResult {
    /// The outcome as `rarity evaluate --format json` prints it (`source`
    /// names the data).
    #[pyo3(signature = (source="<data>"))]
    fn to_json(&self, py: Python<'_>, source: &str) -> PyResult<Py<PyAny>> {
        json_py(py, &self.job.to_json(source, &self.dropped))
    }

    /// The outcome as `rarity evaluate` prints it.
    #[pyo3(signature = (source="<data>"))]
    fn to_text(&self, source: &str) -> String {
        rarity::printable::escape_text(&self.job.to_text(source)).into_owned()
    }

    /// The kept out-of-fold predictions (`oof=True`), in evaluation order:
    /// `(row, repeat, fold, truth, proba, label)` arrays, `proba` one column
    /// per class; `None` when none were kept.
    #[allow(clippy::type_complexity)]
    fn oof<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<
        Option<(
            Bound<'py, PyArray1<usize>>,
            Bound<'py, PyArray1<usize>>,
            Bound<'py, PyArray1<usize>>,
            Bound<'py, PyArray1<u32>>,
            Bound<'py, PyArray2<f64>>,
            Bound<'py, PyArray1<u32>>,
        )>,
    > {
        let parts = self.job.evaluation.fold_predictions();
        let Some(k) = parts.first().map(|(_, _, p)| p.proba.n_classes()) else {
            return Ok(None);
        };
        let (mut row, mut repeat, mut fold) = (Vec::new(), Vec::new(), Vec::new());
        let (mut truth, mut proba, mut label) = (Vec::new(), Vec::new(), Vec::new());
        for (r, f, p) in parts {
            row.extend_from_slice(&p.rows);
            repeat.extend(std::iter::repeat_n(r, p.rows.len()));
            fold.extend(std::iter::repeat_n(f, p.rows.len()));
            truth.extend_from_slice(&p.truth);
            proba.extend_from_slice(p.proba.values());
            label.extend_from_slice(&p.labels);
        }
        let n = row.len();
        Ok(Some((
            row.into_pyarray(py),
            repeat.into_pyarray(py),
            fold.into_pyarray(py),
            truth.into_pyarray(py),
            proba.into_pyarray(py).reshape([n, k])?,
            label.into_pyarray(py),
        )))
    }
}

/// The folds of `time(...)` (`scheme="time"`: expanding window in the order
/// of `values`) or `group(...)` (`"group"`: no value on both sides) from the
/// values of a column named `column`, with the rows' class ids `labels`
/// named by `class_names`: `(train, test)` row indices per fold (the
/// library's splitters, for `rarity.model_selection`).
#[pyfunction]
#[pyo3(signature = (scheme, column, values, labels, class_names, folds, seed))]
#[allow(clippy::too_many_arguments)]
pub fn column_folds<'py>(
    py: Python<'py>,
    scheme: &str,
    column: &str,
    values: PyReadonlyArray1<'_, f64>,
    labels: PyReadonlyArray1<'_, u32>,
    class_names: Vec<String>,
    folds: usize,
    seed: u64,
) -> PyResult<Vec<(Bound<'py, PyArray1<usize>>, Bound<'py, PyArray1<usize>>)>> {
    let folds = rarity::split::column_folds(
        scheme,
        column,
        values.as_slice()?,
        labels.as_slice()?,
        &class_names,
        folds,
        seed,
    )
    .map_err(to_py)?;
    Ok(folds
        .into_iter()
        .map(|f| (f.train.into_pyarray(py), f.test.into_pyarray(py)))
        .collect())
}

/// Draws a sampler on `data` as `rarity resample` does (the same request
/// and call, the same seed's rows), with the declared parameters `params`
/// (`(name, text)` pairs, read by the library as the command line's flags
/// are): `rarity resample --format json`'s object (without an output file)
/// and the sample.
#[pyfunction]
#[pyo3(signature = (data, params, seed=42, n_jobs=None))]
pub fn resample_job(
    py: Python<'_>,
    data: &Data,
    params: Vec<(String, String)>,
    seed: u64,
    n_jobs: Option<i64>,
) -> PyResult<(Py<PyAny>, Data)> {
    let request = ResampleRequest {
        params: rarity::job::declared::read(&rarity::job::resample::DECLARED, &params, Front::Python)
            .map_err(to_py)?,
        seed,
        front: Front::Python,
    };
    let ds = data.ds.clone();
    let job = run(py, n_jobs, move || request.plan()?.run(&ds))?;
    let summary = json_py(py, &job.to_json(None, &data.rows_dropped()))?;
    Ok((summary, Data::whole(job.data)))
}
