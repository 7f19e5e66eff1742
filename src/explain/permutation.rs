//! Permutation importance of any fitted strategy on held-out rows (Breiman
//! 2001, sec. 10, for forests; Fisher, Rudin & Dominici 2019, "model
//! reliance", for any model; scikit-learn's `permutation_importance`).
//!
//! The importance of a source column is the metric on the rows as they
//! are minus the metric after the column's values are shuffled among the
//! rows, so that the model sees the column's distribution but not its link
//! to the label. The shuffle is repeated `repeats` times; the importance is
//! the mean drop and its spread the standard deviation over the repeats
//! (`ddof = 0`, scikit-learn's `importances_std`). For a metric where lower
//! is better (Brier score, log loss, cost) the difference is taken the other
//! way, so a positive importance always means the model relies on the
//! column. A one-hot encoded column's features are shuffled together (one
//! permutation of the rows), so a categorical column is scored as one.
//! Thresholded metrics use the strategy's own decision on the shuffled
//! rows' probabilities.
//!
//! Determinism: the shuffle of column `c` in repeat `r` uses the random
//! stream `(seed, c * 2^20 + r)`; columns are scored in parallel and each
//! result depends only on its column, its repeat and the seed, so the
//! importances are the same at any thread count.

use rayon::prelude::*;
use serde::Serialize;

use crate::data::{ColumnEncoding, Dataset, Schema};
use crate::error::{Error, Result};
use crate::learn::Importances;
use crate::metrics::catalogue::{self, Metric};
use crate::progress::Progress;
use crate::rng;
use crate::strategy::FittedStrategy;

/// Most repeats accepted (the random streams of a column are numbered below
/// 2^20).
pub const MAX_REPEATS: usize = 1 << 20;

/// The importance of one source column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeatureImportance {
    /// The source column (a one-hot column's levels move together).
    pub feature: String,
    /// The mean drop of the metric over the repeats (positive: the model
    /// relies on the column).
    pub importance: f64,
    /// The standard deviation of the drop over the repeats (`ddof = 0`).
    pub std: f64,
    /// Each repeat's drop.
    pub drops: Vec<f64>,
}

/// The split-gain importances of the strategy's fitted model(s), per
/// encoded feature ([`Importances`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplitGain {
    /// Feature name, its share of the split gain and the standard deviation
    /// over the ensemble's members; most important first.
    pub features: Vec<(String, f64, f64)>,
    /// Members averaged (1 for a single tree or boosted model).
    pub members: usize,
}

/// What drives a fitted strategy on some held-out rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    /// The strategy's spec.
    pub spec: String,
    /// The metric, as written (`average_precision`, `recall_at_k(k=100)`).
    pub metric: String,
    /// Whether larger values of the metric are better.
    pub higher_is_better: bool,
    /// The metric on the rows as they are.
    pub baseline: f64,
    /// Shuffles per column.
    pub repeats: usize,
    /// Held-out rows scored.
    pub rows: usize,
    /// Per source column, most important first (ties in column order).
    pub permutation: Vec<FeatureImportance>,
    /// The split-gain importances, for trees, forests, bagging and gbdt
    /// models (`None` for models without splits).
    pub split_gain: Option<SplitGain>,
}

/// The encoded features of each source column of `schema`, in source
/// order (a one-hot column's `name=level` features together).
pub fn column_groups(schema: &Schema) -> Vec<(String, Vec<usize>)> {
    let index = |name: &str| schema.feature_names.iter().position(|f| f == name);
    schema
        .encodings
        .iter()
        .filter_map(|e| {
            let cols: Vec<usize> = match e {
                ColumnEncoding::Numeric { name } | ColumnEncoding::Categorical { name, .. } => {
                    index(name).into_iter().collect()
                }
                ColumnEncoding::OneHot { name, levels } => levels
                    .iter()
                    .filter_map(|l| index(&format!("{name}={l}")))
                    .collect(),
            };
            (!cols.is_empty()).then(|| (e.name().to_string(), cols))
        })
        .collect()
}

/// The metric of `model`'s predictions (its own decision) on `data`.
fn score(model: &FittedStrategy, data: &Dataset, metric: &Metric) -> Result<f64> {
    let (proba, labels) = model.predict(data)?;
    catalogue::value(metric, data.labels(), &proba, &labels)
}

/// `data` with the columns `cols` of row `i` taken from row `perm[i]`.
fn permuted(data: &Dataset, cols: &[usize], perm: &[usize]) -> Result<Dataset> {
    let d = data.n_features();
    let mut x = data.features().to_vec();
    for (i, &from) in perm.iter().enumerate() {
        for &c in cols {
            x[i * d + c] = data.value(from, c);
        }
    }
    Dataset::new(x, data.labels().to_vec(), data.schema().clone())
}

/// The mean and population standard deviation of `v`.
fn mean_std(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (
        m,
        (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n).sqrt(),
    )
}

/// The split-gain importances of `model`'s fitted members per encoded
/// feature, in the schema's feature order, if they have any: the one
/// model's, or the mean and spread over a calibration ensemble's fold
/// models (shares summing to 1, as scikit-learn's `feature_importances_`).
pub fn split_gain_importances(model: &FittedStrategy) -> Option<Importances> {
    let each: Option<Vec<Importances>> = model
        .members
        .iter()
        .map(|m| m.model.importances())
        .collect();
    let each = each?;
    Some(match each.as_slice() {
        [one] => one.clone(),
        many => Importances::over_members(many),
    })
}

/// [`split_gain_importances`] with the features' names, most important
/// first.
fn split_gain(model: &FittedStrategy) -> Option<SplitGain> {
    let imp = split_gain_importances(model)?;
    let mut features: Vec<(String, f64, f64)> = model
        .model_feature_names()
        .iter()
        .zip(imp.values.iter().zip(&imp.std))
        .map(|(f, (&v, &s))| (f.clone(), v, s))
        .collect();
    features.sort_by(|a, b| b.1.total_cmp(&a.1));
    Some(SplitGain {
        features,
        members: imp.members,
    })
}

/// Permutation importance of every source column of `model` on the
/// held-out rows `data` (read with the model's schema, labelled), for
/// `metric`, over `repeats` shuffles seeded by `seed` (module doc), with
/// the model's split-gain importances when it has them.
///
/// ```
/// use rarity::data::{bundled, read::ReadOptions};
/// use rarity::explain::permutation_importance;
/// use rarity::metrics::catalogue::metric;
/// let (ds, _) = bundled::find("glass6").unwrap().load(&ReadOptions::default()).unwrap();
/// let model = rarity::spec::build_strategy("forest(n=20)").unwrap().fit(&ds, 1).unwrap();
/// let e = permutation_importance(&model, &ds, metric("roc_auc").unwrap(), 3, 7).unwrap();
/// assert_eq!(e.permutation.len(), ds.n_features());
/// assert!(e.permutation[0].importance >= e.permutation[1].importance);
/// assert_eq!(e.split_gain.unwrap().members, 20);
/// ```
pub fn permutation_importance(
    model: &FittedStrategy,
    data: &Dataset,
    metric: &'static Metric,
    repeats: usize,
    seed: u64,
) -> Result<Explanation> {
    if repeats == 0 || repeats > MAX_REPEATS {
        return Err(Error::invalid(format!(
            "--repeats must lie between 1 and {MAX_REPEATS}, got {repeats}"
        )));
    }
    if data.n_rows() < 2 {
        return Err(Error::data(format!(
            "permutation importance shuffles rows: it needs at least 2 held-out rows, got {}",
            data.n_rows()
        )));
    }
    let k = model.schema.class_names.len();
    if !metric.defined_for(k) {
        return Err(catalogue::undefined(metric, k));
    }
    model.check_columns(data)?;
    let baseline = score(model, data, metric)?;
    if !baseline.is_finite() {
        return Err(Error::data(format!(
            "{} is undefined on these {} held-out rows (class counts {:?}), so no drop can be \
             measured; use more rows or another --metric (e.g. roc_auc, brier)",
            catalogue::written(metric),
            data.n_rows(),
            data.class_counts()
        )));
    }
    let groups = column_groups(&model.schema);
    let sign = if metric.higher_is_better() { 1.0 } else { -1.0 };
    let progress = Progress::start("column shuffles", (groups.len() * repeats) as u64);
    let mut permutation: Vec<FeatureImportance> = groups
        .par_iter()
        .enumerate()
        .map(|(c, (name, cols))| {
            let drops = (0..repeats)
                .map(|r| {
                    crate::cancel::check()?;
                    let mut perm: Vec<usize> = (0..data.n_rows()).collect();
                    let mut g = rng::stream(seed, ((c as u64) << 20) + r as u64);
                    rng::shuffle(&mut perm, &mut g);
                    let shuffled = permuted(data, cols, &perm)?;
                    let drop = sign * (baseline - score(model, &shuffled, metric)?);
                    progress.add(1);
                    Ok(drop)
                })
                .collect::<Result<Vec<f64>>>()?;
            let (importance, std) = mean_std(&drops);
            Ok(FeatureImportance {
                feature: name.clone(),
                importance,
                std,
                drops,
            })
        })
        .collect::<Result<_>>()?;
    // Stable: ties keep column order; NaN (an undefined shuffled metric) last.
    permutation.sort_by(|a, b| {
        let key = |v: f64| if v.is_nan() { f64::NEG_INFINITY } else { v };
        key(b.importance).total_cmp(&key(a.importance))
    });
    Ok(Explanation {
        spec: model.spec.clone(),
        metric: catalogue::written(metric),
        higher_is_better: metric.higher_is_better(),
        baseline,
        repeats,
        rows: data.n_rows(),
        permutation,
        split_gain: split_gain(model),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Schema;

    /// 300 rows: x0 decides the label, x1 is noise, x2 is constant.
    fn data() -> Dataset {
        let mut g = rng::stream(3, 0);
        use rand::RngExt;
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..300 {
            let label = u32::from(i % 4 == 0);
            x.extend_from_slice(&[
                f64::from(label) * 2.0 + g.random::<f64>(),
                g.random::<f64>(),
                1.0,
            ]);
            y.push(label);
        }
        let names = ["signal", "noise", "flat"].map(String::from).to_vec();
        Dataset::new(x, y, Schema::numeric(names, vec!["0".into(), "1".into()])).unwrap()
    }

    fn fitted(spec: &str, ds: &Dataset) -> FittedStrategy {
        crate::spec::build_strategy(spec)
            .unwrap()
            .fit(ds, 1)
            .unwrap()
    }

    #[test]
    fn the_signal_matters_an_unused_column_not_at_all() {
        let ds = data();
        let model = fitted("tree(max_depth=1)", &ds);
        let m = catalogue::metric("roc_auc").unwrap();
        let e = permutation_importance(&model, &ds, m, 4, 9).unwrap();
        assert_eq!(e.permutation[0].feature, "signal");
        assert!(e.permutation[0].importance > 0.3);
        // A stump on the signal never reads the other columns: shuffling
        // them changes no prediction, so their drop is exactly 0.
        for f in &e.permutation[1..] {
            assert_eq!((f.importance, f.std), (0.0, 0.0), "{}", f.feature);
        }
        let (mean, std) = mean_std(&e.permutation[0].drops);
        assert_eq!(
            (mean, std),
            (e.permutation[0].importance, e.permutation[0].std)
        );
        let gain = e.split_gain.as_ref().unwrap();
        assert_eq!(gain.features[0], ("signal".to_string(), 1.0, 0.0));
        // Same seed, same importances; lower-is-better metrics keep the sign.
        assert_eq!(permutation_importance(&model, &ds, m, 4, 9).unwrap(), e);
        let brier = catalogue::metric("brier").unwrap();
        let b = permutation_importance(&model, &ds, brier, 2, 9).unwrap();
        assert!(b.permutation[0].importance > 0.0 && !b.higher_is_better);
    }

    #[test]
    fn bad_requests_are_clear_errors() {
        let ds = data();
        let model = fitted("gnb", &ds);
        let ap = catalogue::metric("average_precision").unwrap();
        let e = permutation_importance(&model, &ds, ap, 0, 1).unwrap_err();
        assert!(e.to_string().contains("--repeats"), "{e}");
        let negatives: Vec<usize> = (0..300).filter(|i| i % 4 != 0).collect();
        let e = permutation_importance(&model, &ds.take(&negatives), ap, 2, 1).unwrap_err();
        assert!(e.to_string().contains("undefined on these 225"), "{e}");
        let e = permutation_importance(&model, &ds.take(&[0]), ap, 2, 1).unwrap_err();
        assert!(e.to_string().contains("at least 2"), "{e}");
    }
}
