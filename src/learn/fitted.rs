//! Fitted models: the [`Classifier`] contract and the [`Model`] that holds any
//! of them.
//!
//! Every learner returns its own fitted type (a `TreeModel`, a
//! `LogisticModel`, an ensemble's `BaggedModel`, ...) wrapped in a [`Model`],
//! which ensembles hold as members (any model can be a member, another
//! ensemble included). A fitted type implements [`Classifier`]: its shape,
//! one row's probabilities, optionally a faster block or whole-table path,
//! and a consistency check for models read from files.
//!
//! Model files: a [`Model`] serialises as a one-entry map `{kind: body}`
//! (serde's externally tagged form, so files keep the layout of earlier
//! versions). Reading one back needs the loader of every kind, learners' and
//! ensembles' alike; that table sits above both, in [`crate::persist`].
//!
//! **Nesting.** An ensemble's members are models, so a model may hold
//! ensembles inside ensembles; every walk over a model (prediction,
//! validation, writing, reading, dropping) recurses once per level. At most
//! [`MAX_ENSEMBLE_NESTING`] ensembles may hold one another: a [`Nesting`]
//! guard counts the levels open on the thread where a spec's learners are
//! built, a model is written and one is read, so a deeper spec, model or
//! file is a clear error before any recursion could overflow the stack.

use std::any::Any;
use std::cell::Cell;
use std::fmt;

use rayon::prelude::*;

use crate::data::{Dataset, Proba};
use crate::error::{Error, Result};
use crate::learn::shap::Additive;
use crate::learn::Importances;
use crate::onnx::{Graph, Value};

/// Rows per parallel task in prediction.
pub const ROW_CHUNK: usize = 256;

/// The most ensembles a model may hold inside one another
/// (`bagging(learner=tree)` holds one, `bagging(learner=forest)` two): far
/// more than any method nests (EasyEnsemble, bagging of AdaBoost, is the
/// deepest of the papers'), few enough that a model file of the deepest
/// nesting stays within the 128 levels that serde_json and the MessagePack
/// reader allow a file (three levels per ensemble) and every walk within
/// a small thread's stack.
pub const MAX_ENSEMBLE_NESTING: usize = 16;

thread_local! {
    /// The models open on this thread (see [`Nesting`]).
    static OPEN_MODELS: Cell<usize> = const { Cell::new(0) };
}

/// One level of nesting open on this thread: a model (base or ensemble)
/// while one is written or read ([`Nesting::model`]: at most
/// [`MAX_ENSEMBLE_NESTING`] ensembles and their base model open at once),
/// or an ensemble while a spec's learner is built ([`Nesting::ensemble`]:
/// at most [`MAX_ENSEMBLE_NESTING`]; each makes one ensemble model around
/// its learner's). Dropping the guard closes the level.
///
/// ```
/// use rarity::learn::{Nesting, MAX_ENSEMBLE_NESTING};
/// let open: Vec<Nesting> = (0..MAX_ENSEMBLE_NESTING).map(|_| Nesting::ensemble().unwrap()).collect();
/// assert!(Nesting::ensemble().unwrap_err().contains("nested deeper than 16"));
/// let base = Nesting::model().unwrap();
/// assert!(Nesting::model().is_err());
/// drop((open, base));
/// assert!(Nesting::model().is_ok());
/// ```
#[derive(Debug)]
pub struct Nesting(());

impl Nesting {
    /// Opens one model's level; `Err` (the level not held) when more than
    /// [`MAX_ENSEMBLE_NESTING`] ensembles would hold it.
    pub fn model() -> std::result::Result<Nesting, String> {
        Nesting::enter(MAX_ENSEMBLE_NESTING + 1)
    }

    /// Opens one ensemble's level; `Err` (the level not held) when it would
    /// be inside [`MAX_ENSEMBLE_NESTING`] others.
    pub fn ensemble() -> std::result::Result<Nesting, String> {
        Nesting::enter(MAX_ENSEMBLE_NESTING)
    }

    fn enter(most: usize) -> std::result::Result<Nesting, String> {
        let open = OPEN_MODELS.with(|n| {
            n.set(n.get() + 1);
            n.get()
        });
        let level = Nesting(());
        if open > most {
            return Err(format!(
                "ensembles nested deeper than {MAX_ENSEMBLE_NESTING} levels (a model inside \
                 more than {MAX_ENSEMBLE_NESTING} ensembles), the most rarity builds, writes or reads"
            ));
        }
        Ok(level)
    }
}

impl Drop for Nesting {
    fn drop(&mut self) {
        OPEN_MODELS.with(|n| n.set(n.get() - 1));
    }
}

/// A fitted probabilistic classifier.
pub trait Classifier: ClassifierBox + Send + Sync + fmt::Debug + erased_serde::Serialize {
    /// Number of classes `k` of the training dataset.
    fn n_classes(&self) -> usize;

    /// Number of features the model expects.
    fn n_features(&self) -> usize;

    /// Writes the class probabilities of one row (`x.len() == n_features`)
    /// into `out` (`out.len() == n_classes`); they sum to 1.
    fn predict_row(&self, x: &[f64], out: &mut [f64]);

    /// Probabilities of a block of rows (`x` row-major, `out` `k` values per
    /// row). The default scores row by row; learners whose prediction costs
    /// most score blocks at once.
    fn predict_rows(&self, x: &[f64], out: &mut [f64]) {
        let d = self.n_features().max(1);
        let k = self.n_classes();
        for (row, o) in x.chunks(d).zip(out.chunks_mut(k)) {
            self.predict_row(row, o);
        }
    }

    /// Class probabilities for every row of `data` (`n x k`, rows sum to 1),
    /// in parallel over blocks of [`ROW_CHUNK`] rows. Fails if `data` has a
    /// different number of features than the training data.
    fn predict_proba(&self, data: &Dataset) -> Result<Proba> {
        check_features(self.n_features(), data)?;
        let d = data.n_features();
        Ok(in_row_blocks(
            data.n_rows(),
            self.n_classes(),
            |first, out| {
                let rows = out.len() / self.n_classes();
                self.predict_rows(&data.features()[first * d..(first + rows) * d], out);
            },
        ))
    }

    /// Checks the internal consistency of a model (child indices, feature
    /// indices, shapes), e.g. after loading it from a file. Returns what is
    /// wrong.
    fn validate(&self) -> std::result::Result<(), String>;

    /// Normalised split-gain importances of the features (see
    /// [`Importances`]); `None` for models without splits to count (the
    /// default).
    fn importances(&self) -> Option<Importances> {
        None
    }

    /// The per-class weights the model's loss was weighted with (one per
    /// class, all > 0), if any. A class weight `w_k` scales class `k`'s mass
    /// as a sampler's keep rate `r_k` does, so the model's probabilities are
    /// those of a sample with keep rates `w_k`, and `+correct` undoes them
    /// with Dal Pozzolo et al.'s eq. 9 (`p_k ∝ p_s,k / w_k`). The default is
    /// `None` (no weighting to undo).
    fn class_weights(&self) -> Option<&[f64]> {
        None
    }

    /// Writes this model's class probabilities (`[N, n_classes]`, double)
    /// for the rows of `x` (`[N, n_features]`, double) into an ONNX graph,
    /// computed as [`Classifier::predict_row`] computes them, operation by
    /// operation. A model that cannot be written returns what it is (the
    /// default: its kind), for the exporter's error.
    fn to_onnx(&self, g: &mut Graph, x: &Value) -> std::result::Result<Value, String> {
        let _ = (g, x);
        Err(format!("{} models", self.kind()))
    }

    /// For an ensemble whose members were each fitted on their own sample
    /// (bagging): per member, the keep rates of each class in its sample.
    /// `None` (the default) for a model fitted on one sample. A model that
    /// returns `Some` also overrides [`Classifier::predict_proba_members`]
    /// and [`Classifier::to_onnx_members`], which `+correct(mode=member)`
    /// (Dal Pozzolo et al. 2015, eq. 9 per member) goes through; a test of
    /// the ensemble registry checks every ensemble that does.
    fn member_keep_rates(&self) -> Option<&[Vec<f64>]> {
        None
    }

    /// [`Classifier::predict_proba`] with each member's probabilities passed
    /// through `hook` before the members are combined. The default, for a
    /// model without members, ignores the hook.
    fn predict_proba_members(&self, data: &Dataset, hook: MemberHook<'_>) -> Result<Proba> {
        let _ = hook;
        self.predict_proba(data)
    }

    /// [`Classifier::to_onnx`] with each member's probabilities passed
    /// through `hook` first, as [`Classifier::predict_proba_members`].
    fn to_onnx_members(
        &self,
        g: &mut Graph,
        x: &Value,
        hook: MemberHook<'_>,
    ) -> std::result::Result<Value, String> {
        let _ = hook;
        self.to_onnx(g, x)
    }

    /// The model's output as an additive form (its trees and linear part,
    /// [`crate::learn::shap`]), from which its exact contributions are
    /// computed; `leaf` changes the class probabilities of each leaf first
    /// (a per-member correction), and models whose leaves hold no
    /// probabilities ignore it. A model that has none says what it is (the
    /// default: its kind).
    fn additive(&self, leaf: Option<LeafMap<'_>>) -> std::result::Result<Additive, String> {
        let _ = leaf;
        Err(format!("{} models", self.kind()))
    }

    /// [`Classifier::additive`] with each member's leaf probabilities
    /// passed through `hook` first, as
    /// [`Classifier::predict_proba_members`] passes its probabilities. The
    /// default, for a model without members, ignores the hook.
    fn additive_members(&self, hook: MemberHook<'_>) -> std::result::Result<Additive, String> {
        let _ = hook;
        self.additive(None)
    }
}

/// What is done to one leaf's class probabilities before they enter an
/// additive form, in place.
pub type LeafMap<'a> = &'a (dyn Fn(&mut [f64]) + Sync);

/// What is done to one ensemble member's probabilities before the members
/// are combined: `hook(member index, the member's keep rates, its
/// probabilities)`, changing them in place.
pub type MemberHook<'a> = &'a (dyn Fn(usize, &[f64], &mut [f64]) + Sync);

/// The [`Classifier::n_classes`] and [`Classifier::n_features`] of a
/// fitted type that keeps them in two fields: `shape!(k, d);` in its
/// `impl Classifier`.
macro_rules! shape {
    ($classes:ident, $features:ident) => {
        fn n_classes(&self) -> usize {
            self.$classes
        }

        fn n_features(&self) -> usize {
            self.$features
        }
    };
}
pub(crate) use shape;

/// The name of a kind of fitted model in model files (`Tree`, `Bagged`,
/// ...), written once: [`ClassifierBox::kind`] writes it and
/// [`ModelKind::of`] reads files by it.
pub trait Kind {
    /// The name.
    const KIND: &'static str;
}

/// Cloning, comparing and downcasting boxed classifiers, and their kind;
/// implemented for every `Classifier + Kind + Clone + PartialEq` type.
pub trait ClassifierBox: Any {
    /// The name of this kind of model in model files ([`Kind::KIND`]).
    fn kind(&self) -> &'static str;
    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn Classifier>;
    /// Equality with another classifier of any kind.
    fn eq_box(&self, other: &dyn Any) -> bool;
    /// The concrete model, for downcasting.
    fn as_any(&self) -> &dyn Any;
}

impl<T: Classifier + Kind + Clone + PartialEq> ClassifierBox for T {
    fn kind(&self) -> &'static str {
        T::KIND
    }
    fn clone_box(&self) -> Box<dyn Classifier> {
        Box::new(self.clone())
    }
    fn eq_box(&self, other: &dyn Any) -> bool {
        other.downcast_ref::<T>() == Some(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

erased_serde::serialize_trait_object!(Classifier);

/// An `n x k` probability matrix filled in parallel, [`ROW_CHUNK`] rows at a
/// time: `fill(first row, block)` writes the rows `first..` of a block
/// (`k` values per row). Each block depends only on its rows, so the result
/// is the same for any thread count.
pub fn in_row_blocks(n: usize, k: usize, fill: impl Fn(usize, &mut [f64]) + Sync) -> Proba {
    in_blocks_of(n, k, ROW_CHUNK, fill)
}

/// As [`in_row_blocks`] with `rows` rows per block (at least one). A model
/// whose rows do not depend on each other gives the same values whatever
/// the block size.
pub fn in_blocks_of(
    n: usize,
    k: usize,
    rows: usize,
    fill: impl Fn(usize, &mut [f64]) + Sync,
) -> Proba {
    let rows = rows.max(1);
    let mut p = Proba::zeros(n, k);
    if n <= rows {
        // One block: filled here, without a parallel job's dispatch.
        fill(0, p.values_mut());
        return p;
    }
    p.values_mut()
        .par_chunks_mut(k * rows)
        .enumerate()
        .for_each(|(c, block)| fill(c * rows, block));
    p
}

/// Fails with a clear message unless `data` has `n_features` features.
pub fn check_features(n_features: usize, data: &Dataset) -> Result<()> {
    if data.n_features() != n_features {
        return Err(Error::data(format!(
            "the model was trained on {} features but the data has {}",
            n_features,
            data.n_features()
        )));
    }
    Ok(())
}

/// Any fitted model.
pub struct Model(Box<dyn Classifier>);

impl Model {
    /// Wraps a fitted model.
    pub fn new<C: Classifier>(model: C) -> Model {
        Model(Box::new(model))
    }

    /// The concrete model, if it is a `C`.
    pub fn downcast_ref<C: Classifier>(&self) -> Option<&C> {
        self.0.as_any().downcast_ref::<C>()
    }

    /// The model as a classifier.
    pub fn inner(&self) -> &dyn Classifier {
        &*self.0
    }

    /// See [`ClassifierBox::kind`].
    pub fn kind(&self) -> &'static str {
        self.0.kind()
    }

    /// See [`Classifier::n_classes`].
    pub fn n_classes(&self) -> usize {
        self.0.n_classes()
    }

    /// See [`Classifier::n_features`].
    pub fn n_features(&self) -> usize {
        self.0.n_features()
    }

    /// See [`Classifier::predict_row`].
    pub fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        self.0.predict_row(x, out)
    }

    /// See [`Classifier::predict_proba`].
    pub fn predict_proba(&self, data: &Dataset) -> Result<Proba> {
        self.0.predict_proba(data)
    }

    /// Fails with a clear message unless `data` has the model's feature count.
    pub fn check_features(&self, data: &Dataset) -> Result<()> {
        check_features(self.n_features(), data)
    }

    /// See [`Classifier::validate`].
    pub fn validate(&self) -> std::result::Result<(), String> {
        self.0.validate()
    }

    /// See [`Classifier::importances`].
    pub fn importances(&self) -> Option<Importances> {
        self.0.importances()
    }

    /// See [`Classifier::class_weights`].
    pub fn class_weights(&self) -> Option<&[f64]> {
        self.0.class_weights()
    }

    /// See [`Classifier::to_onnx`].
    pub fn to_onnx(&self, g: &mut Graph, x: &Value) -> std::result::Result<Value, String> {
        self.0.to_onnx(g, x)
    }

    /// See [`Classifier::member_keep_rates`].
    pub fn member_keep_rates(&self) -> Option<&[Vec<f64>]> {
        self.0.member_keep_rates()
    }

    /// See [`Classifier::predict_proba_members`].
    pub fn predict_proba_members(&self, data: &Dataset, hook: MemberHook<'_>) -> Result<Proba> {
        self.0.predict_proba_members(data, hook)
    }

    /// See [`Classifier::additive`].
    pub fn additive(&self, leaf: Option<LeafMap<'_>>) -> std::result::Result<Additive, String> {
        self.0.additive(leaf)
    }

    /// See [`Classifier::additive_members`].
    pub fn additive_members(&self, hook: MemberHook<'_>) -> std::result::Result<Additive, String> {
        self.0.additive_members(hook)
    }

    /// See [`Classifier::to_onnx_members`].
    pub fn to_onnx_members(
        &self,
        g: &mut Graph,
        x: &Value,
        hook: MemberHook<'_>,
    ) -> std::result::Result<Value, String> {
        self.0.to_onnx_members(g, x, hook)
    }
}

impl Clone for Model {
    fn clone(&self) -> Self {
        Model(self.0.clone_box())
    }
}

impl PartialEq for Model {
    fn eq(&self, other: &Self) -> bool {
        self.0.eq_box(other.0.as_any())
    }
}

impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple(self.kind()).field(&self.0).finish()
    }
}

impl serde::Serialize for Model {
    /// Refuses a model nested deeper than [`MAX_ENSEMBLE_NESTING`]
    /// ensembles, which could not be read back.
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let _level = Nesting::model().map_err(serde::ser::Error::custom)?;
        s.serialize_newtype_variant("Model", 0, self.kind(), &*self.0)
    }
}

/// How one kind of fitted model is read back from a model file.
#[derive(Debug, Clone, Copy)]
pub struct ModelKind {
    /// The name the file uses ([`Kind::KIND`]).
    pub name: &'static str,
    /// Reads the body of a model of this kind.
    pub load: fn(
        &mut dyn erased_serde::Deserializer<'_>,
    ) -> std::result::Result<Model, erased_serde::Error>,
    /// The spec names of the learners and ensembles that fit models of this
    /// kind (a saved strategy's spec must name one of them; a test of the
    /// registries fits every entry and checks it is listed here).
    pub made_by: &'static [&'static str],
}

impl ModelKind {
    /// The kind of fitted type `C`, by its [`Kind::KIND`], made by no
    /// learner until [`ModelKind::made_by`] names them.
    pub const fn of<C: Classifier + Kind + serde::de::DeserializeOwned>() -> ModelKind {
        ModelKind {
            name: C::KIND,
            load: |d| erased_serde::deserialize::<C>(d).map(Model::new),
            made_by: &[],
        }
    }

    /// The same kind, fitted by the learners (or ensembles) named `names`.
    pub const fn made_by(self, names: &'static [&'static str]) -> ModelKind {
        ModelKind {
            made_by: names,
            ..self
        }
    }
}
