//! Strategies fitted from Python: `fit(spec, data, seed)` is
//! `rarity::spec::build_strategy(spec)?.fit(data, seed)`, the same call as
//! `rarity fit`, so the same seed gives bit-identical models and
//! probabilities; a fitted model pickles as the bytes of rarity's versioned
//! model format (`rarity::persist`).

use std::path::Path;
use std::sync::{Arc, OnceLock};

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyType};

use rarity::contributions::{Plan, ReasonKind, Reasons, TreeDump};
use rarity::data::read::Unknown;
use rarity::data::{ColumnEncoding, Dataset, Proba, Schema};
use rarity::decide::Rule;
use rarity::learn::gbdt::GbdtModel;
use rarity::persist::{from_bytes, to_bytes, Format};
use rarity::strategy::FittedStrategy;

use crate::data::{Data, Features};
use crate::pool::{run, run_small, to_py};

/// A fitted strategy.
#[pyclass(frozen, module = "rarity._rarity")]
pub struct Model {
    pub fitted: Arc<FittedStrategy>,
    /// The model's schema for an unnamed matrix, made at the first
    /// prediction ([`Features::for_model`]).
    numeric: Arc<OnceLock<Arc<Schema>>>,
}

impl Model {
    /// A fitted strategy for Python.
    pub fn new(fitted: FittedStrategy) -> Model {
        Model {
            fitted: Arc::new(fitted),
            numeric: Arc::default(),
        }
    }
}

/// Rows scored on the calling thread ([`run_small`]): at most one block of
/// the library's parallel scoring, so no parallelism is lost.
const SMALL_ROWS: usize = 64;

/// Runs the scoring job `f` of `features` as [`run`] does, or on the calling
/// thread when it has at most [`SMALL_ROWS`] rows.
fn score<T, F>(py: Python<'_>, features: &Features, n_jobs: Option<i64>, f: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> rarity::Result<T> + Send + 'static,
{
    if features.n_rows() <= SMALL_ROWS {
        run_small(py, n_jobs, f)
    } else {
        run(py, n_jobs, f)
    }
}

/// An `n x k` probability matrix as a NumPy array (no copy).
pub fn proba_array<'py>(py: Python<'py>, p: Proba) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (n, k) = (p.n_rows(), p.n_classes());
    p.into_values().into_pyarray(py).reshape([n, k])
}

/// The resolved decision rule as a dict: `kind` (`argmax`, `threshold`,
/// `lambda`, `cost`, `benefit`) and its numbers.
fn rule_dict<'py>(py: Python<'py>, rule: &Rule) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match rule {
        Rule::Argmax => d.set_item("kind", "argmax")?,
        Rule::Threshold(t) => {
            d.set_item("kind", "threshold")?;
            d.set_item("threshold", *t)?;
        }
        Rule::Lambda(l) => {
            d.set_item("kind", "lambda")?;
            d.set_item("lambdas", l.clone())?;
        }
        Rule::Cost(m) => {
            d.set_item("kind", "cost")?;
            let k = m.n_classes();
            let rows: Vec<Vec<f64>> = (0..k)
                .map(|i| (0..k).map(|j| m.loss(i, j)).collect())
                .collect();
            d.set_item("loss", rows)?;
        }
        Rule::Benefit(b) => {
            d.set_item("kind", "benefit")?;
            d.set_item("amount", b.amount.clone())?;
            d.set_item("overhead", b.overhead)?;
        }
    }
    Ok(d)
}

/// What a plan's contributions explain: `space`, `taken`, `beside`,
/// `note` and the source `columns`.
fn plan_dict<'py>(py: Python<'py>, plan: &Plan) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("space", plan.space.name())?;
    d.set_item("taken", plan.taken.clone())?;
    d.set_item("beside", plan.beside.clone())?;
    d.set_item("note", plan.describe())?;
    d.set_item("columns", plan.columns.clone())?;
    Ok(d)
}

/// Fits strategy `spec` on `data` with `seed` (as `rarity fit --seed`).
#[pyfunction]
#[pyo3(signature = (spec, data, seed, n_jobs=None))]
pub fn fit(
    py: Python<'_>,
    spec: String,
    data: &Data,
    seed: u64,
    n_jobs: Option<i64>,
) -> PyResult<Model> {
    let ds = data.ds.clone();
    let fitted = run(py, n_jobs, move || {
        let strategy = rarity::spec::build_strategy(&spec)?;
        check_categorical(&strategy, &ds)?;
        strategy.fit(&ds, seed)
    })?;
    Ok(Model::new(fitted))
}

/// The rule for levels a model was not trained on, as `unknown=` spells it.
pub fn unknown_of(word: &str) -> PyResult<Unknown> {
    match word {
        "error" => Ok(Unknown::Error),
        "ignore" => Ok(Unknown::Ignore),
        w => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "unknown={w:?} is invalid; expected 'error' or 'ignore'"
        ))),
    }
}

/// Fails, before fitting, when `data` has a categorical feature and the
/// strategy's learner does not split categories as sets (the library's
/// check, `Strategy::check_categorical`, worded for the estimators).
fn check_categorical(strategy: &rarity::strategy::Strategy, data: &Dataset) -> rarity::Result<()> {
    let Some(column) = strategy.unsplit_categorical(data) else {
        return Ok(());
    };
    Err(rarity::Error::invalid(format!(
        "{}: the learner {} does not split categorical features, and column '{}' is \
         categorical (categorical_features=); use a learner with native categorical splits \
         (tree, forest, gbdt, or an ensemble of trees), encode it by target statistics \
         (spec=\"encode(target)+...\"), or leave categorical_features=None to one-hot encode \
         text and category columns (at most 50 levels)",
        strategy.spec,
        strategy.learner.name(),
        column
    )))
}

#[pymethods]
impl Model {
    /// Class probabilities (`n x k`, columns in rarity's class order); a
    /// categorical level the model was not trained on is an error, or with
    /// `unknown="ignore"` read as `rarity predict --unknown ignore` reads it.
    #[pyo3(signature = (features, n_jobs=None, unknown="error"))]
    fn predict_proba<'py>(
        &self,
        py: Python<'py>,
        features: &Features,
        n_jobs: Option<i64>,
        unknown: &str,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let unknown = unknown_of(unknown)?;
        let (f, m, s) = (
            features.clone(),
            Arc::clone(&self.fitted),
            Arc::clone(&self.numeric),
        );
        let p = score(py, features, n_jobs, move || {
            let ds = f.for_model(&m.schema, &s, unknown, &m.missing_columns())?;
            m.predict_proba(&ds)
        })?;
        proba_array(py, p)
    }

    /// Probabilities and the class ids the strategy's decision rule gives
    /// (`unknown` as [`Model::predict_proba`] reads it).
    #[pyo3(signature = (features, n_jobs=None, unknown="error"))]
    #[allow(clippy::type_complexity)]
    fn predict<'py>(
        &self,
        py: Python<'py>,
        features: &Features,
        n_jobs: Option<i64>,
        unknown: &str,
    ) -> PyResult<(Bound<'py, PyArray2<f64>>, Bound<'py, PyArray1<u32>>)> {
        let unknown = unknown_of(unknown)?;
        let (f, m, s) = (
            features.clone(),
            Arc::clone(&self.fitted),
            Arc::clone(&self.numeric),
        );
        let (p, labels) = score(py, features, n_jobs, move || {
            let ds = f.for_model(&m.schema, &s, unknown, &m.missing_columns())?;
            m.predict(&ds)
        })?;
        Ok((proba_array(py, p)?, labels.into_pyarray(py)))
    }

    /// Exact contributions of every source column with the base value
    /// (LightGBM's `pred_contrib` layout in rarity's class order: `[n, c +
    /// 1]` for two classes, `[n, K (c + 1)]` beyond), the classes of the
    /// outputs and a dict saying what they explain (`rarity predict
    /// --contributions`).
    #[pyo3(signature = (features, n_jobs=None, unknown="error"))]
    #[allow(clippy::type_complexity)]
    fn contributions<'py>(
        &self,
        py: Python<'py>,
        features: &Features,
        n_jobs: Option<i64>,
        unknown: &str,
    ) -> PyResult<(Bound<'py, PyArray2<f64>>, Vec<usize>, Bound<'py, PyDict>)> {
        let unknown = unknown_of(unknown)?;
        let plan = Plan::of(&self.fitted).map_err(to_py)?;
        let info = plan_dict(py, &plan)?;
        let classes = plan.classes.clone();
        let (f, m, s) = (
            features.clone(),
            Arc::clone(&self.fitted),
            Arc::clone(&self.numeric),
        );
        let c = score(py, features, n_jobs, move || {
            let ds = f.for_model(&m.schema, &s, unknown, &m.missing_columns())?;
            plan.explain(&ds)
        })?;
        let (n, w) = (c.rows, c.outputs * (c.columns + 1));
        let values = c.values.into_pyarray(py).reshape([n, w])?;
        Ok((values, classes, info))
    }

    /// Each row's decided class id and its `k` strongest reasons: the
    /// columns, the values' texts and the contributions towards the
    /// decided class (`rarity predict --reasons K`).
    #[pyo3(signature = (features, k, n_jobs=None, unknown="error"))]
    #[allow(clippy::type_complexity)]
    fn reason_codes<'py>(
        &self,
        py: Python<'py>,
        features: &Features,
        k: usize,
        n_jobs: Option<i64>,
        unknown: &str,
    ) -> PyResult<(
        Bound<'py, PyArray1<u32>>,
        Vec<Vec<String>>,
        Vec<Vec<String>>,
        Bound<'py, PyArray2<f64>>,
    )> {
        let unknown = unknown_of(unknown)?;
        let reasons = Reasons::new(&self.fitted, ReasonKind::Reasons(k))
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("k: {e}")))?;
        let (f, m, s) = (
            features.clone(),
            Arc::clone(&self.fitted),
            Arc::clone(&self.numeric),
        );
        let (labels, names, values, contrib) = score(py, features, n_jobs, move || {
            let ds = f.for_model(&m.schema, &s, unknown, &m.missing_columns())?;
            let (_, labels) = m.predict(&ds)?;
            let plan = &reasons.plan;
            let c = plan.explain(&ds)?;
            let (mut names, mut values, mut contrib) = (Vec::new(), Vec::new(), Vec::new());
            for (i, &l) in labels.iter().enumerate() {
                let top: Vec<(usize, f64)> =
                    plan.ranked(&c, i, l as usize).into_iter().take(k).collect();
                names.push(top.iter().map(|&(j, _)| plan.columns[j].clone()).collect());
                values.push(
                    top.iter()
                        .map(|&(j, _)| plan.value_text(&ds, i, j))
                        .collect(),
                );
                contrib.extend(top.iter().map(|&(_, v)| v));
            }
            Ok((labels, names, values, contrib))
        })?;
        let n = labels.len();
        Ok((
            labels.into_pyarray(py),
            names,
            values,
            contrib.into_pyarray(py).reshape([n, k])?,
        ))
    }

    /// What the contributions explain (see `plan_dict`), or the error
    /// naming the models that have exact contributions.
    fn contributions_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        plan_dict(py, &Plan::of(&self.fitted).map_err(to_py)?)
    }

    /// Every tree as arrays, as JSON text (`rarity show --trees`).
    fn dump_trees(&self) -> PyResult<String> {
        let dump = TreeDump::of(&self.fitted).map_err(to_py)?;
        serde_json::to_string(&dump)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
    }

    /// The spec the model was fitted from.
    #[getter]
    fn spec(&self) -> String {
        self.fitted.spec.clone()
    }

    /// Class names, in class-id order.
    #[getter]
    fn class_names(&self) -> Vec<String> {
        self.fitted.schema.class_names.clone()
    }

    /// Feature names (after encoding).
    #[getter]
    fn feature_names(&self) -> Vec<String> {
        self.fitted.schema.feature_names.clone()
    }

    /// The source columns the features come from, in order.
    #[getter]
    fn source_columns(&self) -> Vec<String> {
        self.fitted
            .schema
            .encodings
            .iter()
            .map(|e| e.name().to_string())
            .collect()
    }

    /// Per categorical feature (level codes), its column and its levels in
    /// code order.
    #[getter]
    fn categories(&self) -> std::collections::BTreeMap<String, Vec<String>> {
        self.fitted
            .schema
            .encodings
            .iter()
            .filter_map(|e| match e {
                ColumnEncoding::Categorical { name, levels } => {
                    Some((name.clone(), levels.clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// Training class priors.
    #[getter]
    fn priors(&self) -> Vec<f64> {
        self.fitted.priors.clone()
    }

    /// Keep rates of the sampler stage (1 for every class without one).
    #[getter]
    fn keep_rates(&self) -> Vec<f64> {
        self.fitted.members[0].keep_rates.clone()
    }

    /// Per ensemble member, its sample's keep rates (`None` for a model
    /// that is not a bagging ensemble).
    #[getter]
    fn member_keep_rates(&self) -> Option<Vec<Vec<f64>>> {
        self.fitted.members[0]
            .model
            .member_keep_rates()
            .map(<[_]>::to_vec)
    }

    /// The boosting rounds a gbdt model kept (after early stopping, the best
    /// round; the most over a calibration's fold models), or `None` for
    /// other models.
    #[getter]
    fn boosting_rounds(&self) -> Option<usize> {
        self.fitted
            .members
            .iter()
            .filter_map(|m| m.model.downcast_ref::<GbdtModel>().map(GbdtModel::rounds))
            .max()
    }

    /// The decision rule (see `rule_dict`).
    #[getter]
    fn rule<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        rule_dict(py, &self.fitted.rule)
    }

    /// The binary threshold equivalent to the rule, if it has one.
    #[getter]
    fn threshold(&self) -> Option<f64> {
        self.fitted.rule.binary_threshold()
    }

    /// Whether and how the prior correction is applied (`member`,
    /// `average`), or `None`.
    #[getter]
    fn correct(&self) -> Option<String> {
        use rarity::params::ParamType;
        self.fitted.correct.map(|c| c.to_text())
    }

    /// The model in rarity's versioned binary model format (what `rarity
    /// fit` saves; `rarity predict` reads it).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let b = to_bytes(self.fitted.as_ref(), Format::Binary).map_err(to_py)?;
        Ok(PyBytes::new(py, &b))
    }

    /// The model as an ONNX graph (what `rarity export` writes): input `X`
    /// (`[N, d]`, double), outputs `probabilities` and `label`.
    fn to_onnx<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let b = rarity::export::to_onnx(self.fitted.as_ref()).map_err(to_py)?;
        Ok(PyBytes::new(py, &b))
    }

    /// This model corrected for a sample that kept the classes
    /// `class_names` at `rates`, deciding by the consistent rule
    /// (`FittedStrategy::corrected_by`): Python's `CorrectedClassifier`
    /// around a rarity estimator, as one model that exports.
    fn corrected_by(&self, class_names: Vec<String>, rates: Vec<f64>) -> PyResult<Model> {
        let fitted = self
            .fitted
            .corrected_by(&class_names, &rates)
            .map_err(to_py)?;
        Ok(Model::new(fitted))
    }

    /// Writes the ONNX graph to `path` as `rarity export` does (checked
    /// before writing, replaced whole or not at all).
    fn write_onnx(&self, path: std::path::PathBuf) -> PyResult<()> {
        use std::io::Write;
        let b = rarity::export::to_onnx(self.fitted.as_ref()).map_err(to_py)?;
        rarity::data::write::JobPaths::new()
            .output("path", &path)
            .check()
            .map_err(to_py)?;
        let mut f = rarity::data::write::AtomicFile::create(&path).map_err(to_py)?;
        f.writer().write_all(&b).map_err(|e| to_py(f.err(e)))?;
        f.commit().map_err(to_py)
    }

    /// A model from the bytes of a model file (binary or JSON).
    #[classmethod]
    fn from_bytes(_cls: &Bound<'_, PyType>, b: &[u8]) -> PyResult<Model> {
        let fitted: FittedStrategy = from_bytes(b, Path::new("<bytes>")).map_err(to_py)?;
        Ok(Model::new(fitted))
    }

    /// The model in the model file at `path` (binary or JSON, as `rarity
    /// fit -o` writes it), read as `rarity show` and `rarity predict` read
    /// one: the header first, the size checked against the machine's
    /// memory, the checksum and every index validated.
    #[classmethod]
    fn load(cls: &Bound<'_, PyType>, path: std::path::PathBuf) -> PyResult<Model> {
        let fitted = run(cls.py(), Some(1), move || rarity::persist::load(&path))?;
        Ok(Model::new(fitted))
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let cls = py.get_type::<Model>().getattr("from_bytes")?;
        Ok((cls, (self.to_bytes(py)?,)))
    }

    fn __repr__(&self) -> String {
        format!("Model('{}')", rarity::printable::escape(&self.fitted.spec))
    }
}
