//! Split-gain feature importances ("mean decrease in impurity", Breiman et
//! al. 1984; Breiman 2001 for forests; the gain importance of gradient
//! boosting, Friedman 2001, sec. 8.1, and LightGBM's `importance_type='gain'`).
//!
//! A single model's importance of feature `f` is the total gain of the splits
//! on `f`, divided by the total over all features (so the values sum to 1, or
//! are all 0 when the model has no split). An ensemble's is the mean of its
//! members' normalised importances over the members that split at all,
//! renormalised, with the standard deviation over those members (as
//! scikit-learn's `feature_importances_` of forests and the std its
//! documentation plots).

use serde::Serialize;

/// Normalised split-gain importances of a fitted model.
///
/// ```
/// use rarity::learn::Importances;
/// let imp = Importances::single(vec![3.0, 1.0, 0.0]);
/// assert_eq!(imp.values, vec![0.75, 0.25, 0.0]);
/// assert_eq!(imp.std, vec![0.0; 3]);
/// let ens = Importances::over_members(&[imp.clone(), Importances::single(vec![1.0, 3.0, 0.0])]);
/// assert_eq!(ens.values, vec![0.5, 0.5, 0.0]);
/// assert_eq!(ens.std, vec![0.25, 0.25, 0.0]);
/// assert_eq!(ens.members, 2);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Importances {
    /// Per feature, its share of the split gain (sums to 1; all 0 without
    /// any split).
    pub values: Vec<f64>,
    /// Per feature, the population standard deviation (`ddof = 0`) of the
    /// members' normalised importances; 0 for a single model.
    pub std: Vec<f64>,
    /// Number of members averaged: 1 for a single model, the members with
    /// at least one split for an ensemble.
    pub members: usize,
}

/// `v / sum(v)`, or zeros when the sum is not positive.
fn normalised(mut v: Vec<f64>) -> Vec<f64> {
    let total: f64 = v.iter().sum();
    if total > 0.0 {
        v.iter_mut().for_each(|x| *x /= total);
    } else {
        v.iter_mut().for_each(|x| *x = 0.0);
    }
    v
}

impl Importances {
    /// The importances of one model from its total split gain per feature.
    pub fn single(gain: Vec<f64>) -> Importances {
        let d = gain.len();
        Importances {
            values: normalised(gain),
            std: vec![0.0; d],
            members: 1,
        }
    }

    /// The mean and standard deviation of the members' importances over the
    /// members with at least one split, the mean renormalised (all members
    /// must have the same number of features; none with a split gives
    /// zeros).
    pub fn over_members(members: &[Importances]) -> Importances {
        let d = members.first().map_or(0, |m| m.values.len());
        let used: Vec<&Importances> = members
            .iter()
            .filter(|m| m.values.iter().any(|&v| v > 0.0))
            .collect();
        let n = used.len();
        let mut mean = vec![0.0; d];
        let mut std = vec![0.0; d];
        if n > 0 {
            for f in 0..d {
                let m = used.iter().map(|u| u.values[f]).sum::<f64>() / n as f64;
                let var = used.iter().map(|u| (u.values[f] - m).powi(2)).sum::<f64>() / n as f64;
                mean[f] = m;
                std[f] = var.sqrt();
            }
        }
        Importances {
            values: normalised(mean),
            std,
            members: n,
        }
    }
}
