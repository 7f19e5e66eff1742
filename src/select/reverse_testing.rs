//! ReverseTesting (Fan & Davidson 2006, Sec. 4, Figure 3): choosing among
//! learners when the labelled training set `D` is a biased sample, using the
//! unlabelled target population `T`.
//!
//! For learners `L_a`, `L_b`: fit each on `D` (`theta_a`, `theta_b`), label
//! `T` with each (`T_a`, `T_b`), fit each learner again on each labelled copy
//! (`theta_a^a`, `theta_a^b`, ... where `theta_x^s` is learner `x` trained on
//! `T_s`), and measure the four models on `D` (`AccTrain_x^s`).
//! Condition 4.1: if `AccTrain_a^b > AccTrain_a^a` and `AccTrain_b^b >
//! AccTrain_b^a`, `L_b` is expected to be more accurate on `T`; Condition 4.2
//! is the mirror image; otherwise the pair is undecided (4.3).
//!
//! **Ranking of `l` learners.** Each learner is fitted once on `D` and once
//! on each of the `l` labelled copies of `T`: `l + l^2` models instead of the
//! paper's `2 l^2 + 3 l`. Every pair is then decided as above and learners
//! are ordered by wins minus losses (undecided pairs count for neither),
//! ties broken by the order the learners were given.
//!
//! **Imbalance.** Labelling `T` by argmax (the paper) often gives the whole
//! copy the majority class; models trained on a one-class copy are constant
//! (never fitted; flagged in [`Pair::constant_copies`] and
//! [`Ranking::single_class_copies`]) and the conditions tie. A
//! [`ReverseTestingVariant`] sets the labelling, the measure on `D`, the
//! [`PairRule`] and the judges, and cross-fitting
//! ([`ReverseTestingVariant::folds`]); [`ReverseTestingVariant::paper`] is
//! the literal algorithm, [`ReverseTestingVariant::recommended`] the variant
//! that measured best (`docs/reverse-testing.md`). With
//! [`ReverseTestingVariant::weights`], step 4 weights every row of `D` by
//! its density ratio `p_T(x) / p_D(x)` ([`super::density_ratio`]).

use std::sync::Arc;

use rand::RngExt;

use crate::data::{Dataset, Proba, Schema};
use crate::decide::Rule;
use crate::error::{Error, Result};
use crate::learn::Learner;
use crate::learn::Model;
use crate::progress::Progress;
use crate::rng;
use crate::split::cross_fit_folds;

use super::measure::measure_value;
use super::ranking::{fit_all, rank, Outcome, Pair, Ranking};
use super::variant::{Judges, Labelling, PairRule, ReverseTestingVariant, Weighting};

/// A model fitted on a labelled copy of `T`, or the constant class of a
/// one-class copy.
enum Fitted {
    Model(Model),
    Constant(usize),
}

impl Fitted {
    fn proba(&self, data: &Dataset) -> Result<Proba> {
        match self {
            Fitted::Model(m) => m.predict_proba(data),
            Fitted::Constant(c) => {
                let k = data.n_classes();
                let mut p = Proba::zeros(data.n_rows(), k);
                for i in 0..data.n_rows() {
                    p.row_mut(i)[*c] = 1.0;
                }
                Ok(p)
            }
        }
    }
}

/// Labels from probabilities under a labelling rule.
fn label(p: &Proba, labelling: Labelling, priors: &[f64], seed: u64) -> Result<Vec<u32>> {
    match labelling {
        Labelling::Argmax => Rule::Argmax.decide(p, None),
        Labelling::Priors => Rule::priors(priors)?.decide(p, None),
        Labelling::Sample => {
            let mut r = rng::stream(seed, 0x1abe1);
            Ok((0..p.n_rows())
                .map(|i| {
                    let u: f64 = r.random();
                    let row = p.row(i);
                    let mut acc = 0.0;
                    for (k, v) in row.iter().enumerate() {
                        acc += v;
                        if u < acc {
                            return k as u32;
                        }
                    }
                    (row.len() - 1) as u32
                })
                .collect())
        }
    }
}

/// A copy of `target` carrying `labels` and `train`'s schema.
fn labelled_copy(target: &Dataset, labels: Vec<u32>, schema: &Schema) -> Result<Dataset> {
    Dataset::new(target.features().to_vec(), labels, schema.clone())
}

fn check_inputs(learners: &[Arc<dyn Learner>], train: &Dataset, target: &Dataset) -> Result<()> {
    if learners.len() < 2 {
        return Err(Error::invalid(
            "ReverseTesting compares at least two learners",
        ));
    }
    train.require_two_classes()?;
    if train.feature_names() != target.feature_names() {
        return Err(Error::data(format!(
            "the training and target sets have different features ({} vs {})",
            train.n_features(),
            target.n_features()
        )));
    }
    if target.n_rows() == 0 {
        return Err(Error::data("the target set has no rows"));
    }
    Ok(())
}

/// ReverseTesting ranking of `learners` (given with their names) trained on
/// `train` (`D`) for the unlabelled `target` (`T`; its labels are ignored).
pub fn reverse_testing(
    learners: &[(String, Arc<dyn Learner>)],
    train: &Dataset,
    target: &Dataset,
    variant: &ReverseTestingVariant,
    seed: u64,
) -> Result<Ranking> {
    let mut r =
        reverse_testing_variants(learners, train, target, std::slice::from_ref(variant), seed)?;
    Ok(r.remove(0))
}

/// [`reverse_testing`] for several variants at once: the models of each
/// labelling are fitted once and shared by the variants using it, and the
/// importance weights of each [`Weighting`] are estimated once. Returns
/// one ranking per variant, each equal to what [`reverse_testing`] gives
/// (`models_built` counts the models of that variant's labelling).
pub fn reverse_testing_variants(
    learners: &[(String, Arc<dyn Learner>)],
    train: &Dataset,
    target: &Dataset,
    variants: &[ReverseTestingVariant],
    seed: u64,
) -> Result<Vec<Ranking>> {
    let mut estimated: Vec<(Weighting, Vec<f64>)> = Vec::new();
    for kind in variants.iter().filter_map(|v| v.weights) {
        if !estimated.iter().any(|(k, _)| *k == kind) {
            let (w, _) = kind.estimator().estimate(train, target, seed)?;
            estimated.push((kind, w.weights));
        }
    }
    let weights: Vec<Option<&[f64]>> = variants
        .iter()
        .map(|v| {
            v.weights.map(|kind| {
                estimated
                    .iter()
                    .find(|(k, _)| *k == kind)
                    .map(|(_, w)| w.as_slice())
                    .expect("every weighting was estimated")
            })
        })
        .collect();
    reverse_testing_weighted(learners, train, target, variants, &weights, seed)
}

/// [`reverse_testing_variants`] with the row weights of each variant given
/// (`weights[i]` for `variants[i]`; `None`: unweighted).
pub(crate) fn reverse_testing_weighted(
    learners: &[(String, Arc<dyn Learner>)],
    train: &Dataset,
    target: &Dataset,
    variants: &[ReverseTestingVariant],
    weights: &[Option<&[f64]>],
    seed: u64,
) -> Result<Vec<Ranking>> {
    let ls: Vec<Arc<dyn Learner>> = learners.iter().map(|(_, l)| Arc::clone(l)).collect();
    check_inputs(&ls, train, target)?;
    let l = ls.len();
    let priors = train.priors();
    let names: Vec<String> = learners.iter().map(|(n, _)| n.clone()).collect();
    let mut out: Vec<Option<Ranking>> = vec![None; variants.len()];
    let mut groups: Vec<(Labelling, usize)> = Vec::new();
    for v in variants {
        if !groups.contains(&(v.labelling, v.folds)) {
            groups.push((v.labelling, v.folds));
        }
    }
    for (labelling, folds) in groups {
        let judged = judge(&ls, train, target, labelling, folds, seed)?;
        // 4. Measure on D and decide every pair, per variant.
        for (i, v) in variants.iter().enumerate() {
            if (v.labelling, v.folds) != (labelling, folds) {
                continue;
            }
            let mut m = vec![vec![0.0; l]; l];
            for (x, row) in m.iter_mut().enumerate() {
                for (s, cell) in row.iter_mut().enumerate() {
                    *cell = measure_value(
                        &v.measure,
                        train,
                        &judged.on_copy[x][s],
                        labelling,
                        &priors,
                        weights[i],
                    )?;
                }
            }
            let mut pairs = Vec::new();
            for a in 0..l {
                for b in a + 1..l {
                    let judges: Vec<usize> = match v.judges {
                        Judges::Pair => vec![a, b],
                        Judges::All => (0..l).collect(),
                    };
                    let diffs: Vec<f64> = judges.iter().map(|&x| m[x][b] - m[x][a]).collect();
                    pairs.push(Pair {
                        a,
                        b,
                        outcome: decide(&diffs, v.decision),
                        acc_train: Some([m[a][a], m[a][b], m[b][a], m[b][b]]),
                        constant_copies: [a, b]
                            .into_iter()
                            .filter(|s| judged.single.contains(s))
                            .collect(),
                    });
                }
            }
            out[i] = Some(rank(
                names.clone(),
                pairs,
                judged.models_built,
                judged.single.clone(),
            ));
        }
    }
    Ok(out
        .into_iter()
        .map(|r| r.expect("every variant's group was run"))
        .collect())
}

/// The judges' predictions on `D` for one labelling.
struct Judged {
    /// `on_copy[x][s]`: learner `x` trained on `T` labelled by learner `s`,
    /// predicting every row of `D` (out of fold when cross-fitted).
    on_copy: Vec<Vec<Proba>>,
    /// Learners whose labelling of `T` had one class (in any fold).
    single: Vec<usize>,
    /// Models fitted.
    models_built: usize,
}

/// Steps 1-3 of ReverseTesting: fit on `D` (or on each fold's training
/// part), label `T`, fit every learner on every labelled copy and predict `D`
/// (or the held-out fold). A one-class copy gives constant models, not fitted.
fn judge(
    ls: &[Arc<dyn Learner>],
    train: &Dataset,
    target: &Dataset,
    labelling: Labelling,
    folds: usize,
    seed: u64,
) -> Result<Judged> {
    let l = ls.len();
    let n = train.n_rows();
    let all: Vec<usize> = (0..n).collect();
    // (rows fitted, rows predicted) per part.
    let parts: Vec<(Vec<usize>, Vec<usize>)> = if folds < 2 {
        vec![(all.clone(), all)]
    } else {
        cross_fit_folds(
            train,
            folds,
            seed,
            "cross-fitted ReverseTesting (folds >= 2) needs at least 2 training rows of each class",
        )?
        .into_iter()
        .map(|f| (f.train, f.test))
        .collect()
    };
    let mut on_copy = vec![vec![Proba::zeros(n, train.n_classes()); l]; l];
    let mut single = Vec::new();
    let mut models_built = 0;
    let progress = Progress::start("ReverseTesting models", (parts.len() * (l + l * l)) as u64);
    for (f, (fit_rows, eval_rows)) in parts.iter().enumerate() {
        let base = (f * (l + 1)) as u64;
        let d = train.take(fit_rows);
        let eval = train.take(eval_rows);
        let priors = d.priors();
        let on_d = fit_all(ls, &d, seed, base)?;
        models_built += l;
        progress.add(l as u64);
        for (s, m) in on_d.iter().enumerate() {
            let labels = label(
                &m.predict_proba(target)?,
                labelling,
                &priors,
                seed ^ s as u64 ^ ((f as u64) << 32),
            )?;
            let first = labels[0];
            let fitted: Vec<Fitted> = if labels.iter().all(|&c| c == first) {
                if !single.contains(&s) {
                    single.push(s);
                }
                (0..l).map(|_| Fitted::Constant(first as usize)).collect()
            } else {
                let copy = labelled_copy(target, labels, train.schema())?;
                models_built += l;
                fit_all(ls, &copy, seed, base + 1 + s as u64)?
                    .into_iter()
                    .map(Fitted::Model)
                    .collect()
            };
            progress.add(l as u64);
            for (x, model) in fitted.iter().enumerate() {
                let p = model.proba(&eval)?;
                for (j, &i) in eval_rows.iter().enumerate() {
                    on_copy[x][s].row_mut(i).copy_from_slice(p.row(j));
                }
            }
        }
    }
    single.sort_unstable();
    Ok(Judged {
        on_copy,
        single,
        models_built,
    })
}

/// Decides a pair from the judges' differences `M_x^b - M_x^a` (positive:
/// the copy labelled by `b` trains better models, so `b` is better).
fn decide(diffs: &[f64], decision: PairRule) -> Outcome {
    match decision {
        PairRule::Strict => {
            if diffs.iter().all(|&d| d > 0.0) {
                Outcome::Second
            } else if diffs.iter().all(|&d| d < 0.0) {
                Outcome::First
            } else {
                Outcome::Undecided
            }
        }
        PairRule::Sum => {
            let total: f64 = diffs.iter().sum();
            if total > 0.0 {
                Outcome::Second
            } else if total < 0.0 {
                Outcome::First
            } else {
                Outcome::Undecided
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::tree::Tree;
    use crate::select::test_learners::{
        always_zero_and_tree, noisy_tree_and_tree, train_and_target, AlwaysZero,
    };
    use crate::select::variant::Measure;

    #[test]
    fn the_learner_that_is_better_on_t_ranks_first() {
        let (train, target) = train_and_target(300, 0.3);
        let paper = ReverseTestingVariant::paper();
        let r = reverse_testing(&noisy_tree_and_tree(), &train, &target, &paper, 3).unwrap();
        assert_eq!(r.order, vec![1, 0], "{r:?}");
        assert_eq!(r.pairs[0].outcome, Outcome::Second);
        assert_eq!(r.models_built, 2 + 4);
    }

    #[test]
    fn a_one_class_labelling_gives_constant_models() {
        let (train, target) = train_and_target(100, 0.0);
        let paper = ReverseTestingVariant::paper();
        let r = reverse_testing(&always_zero_and_tree(), &train, &target, &paper, 3).unwrap();
        assert_eq!(r.single_class_copies, vec![0]);
        // Constant models are not fitted: 2 on D + 2 on the tree's copy.
        assert_eq!(r.models_built, 4);
        let acc = r.pairs[0].acc_train.unwrap();
        let zeros = train.class_counts()[0] as f64 / train.n_rows() as f64;
        assert_eq!((acc[0], acc[2]), (zeros, zeros));
    }

    #[test]
    fn the_paper_ties_on_a_one_class_copy_and_the_default_decides() {
        // AlwaysZero labels T with class 0: its copy's models are constant,
        // and AlwaysZero trained on the tree's copy is still constant, so
        // AccTrain_a^a == AccTrain_a^b and Condition 4.3 holds. Summing the
        // differences lets the tree judge decide.
        let (train, target) = train_and_target(200, 0.0);
        let learners = always_zero_and_tree();
        let paper = ReverseTestingVariant::paper();
        let r = reverse_testing(&learners, &train, &target, &paper, 3).unwrap();
        assert_eq!(r.pairs[0].outcome, Outcome::Undecided);
        assert_eq!(r.pairs[0].constant_copies, vec![0]);
        for spec in ["paper,decide=sum", "default"] {
            let v = ReverseTestingVariant::parse(spec, "accuracy").unwrap();
            let r = reverse_testing(&learners, &train, &target, &v, 3).unwrap();
            assert_eq!(r.pairs[0].outcome, Outcome::Second, "{spec}: {r:?}");
            assert_eq!(r.pairs[0].constant_copies, vec![0], "{spec}");
        }
    }

    #[test]
    fn strict_needs_every_judge_and_sum_weighs_them() {
        assert_eq!(decide(&[0.1, 0.2], PairRule::Strict), Outcome::Second);
        assert_eq!(decide(&[-0.1, -0.2], PairRule::Strict), Outcome::First);
        // Mixed conditions: the paper's Condition 4.3.
        assert_eq!(decide(&[0.3, -0.1], PairRule::Strict), Outcome::Undecided);
        assert_eq!(decide(&[0.3, -0.1], PairRule::Sum), Outcome::Second);
        assert_eq!(decide(&[-0.3, 0.1], PairRule::Sum), Outcome::First);
        assert_eq!(decide(&[0.0, 0.0], PairRule::Sum), Outcome::Undecided);
        assert_eq!(decide(&[0.1, 0.0], PairRule::Strict), Outcome::Undecided);
    }

    #[test]
    fn cross_fitted_judges_see_no_training_row() {
        let (train, target) = train_and_target(300, 0.3);
        let learners = noisy_tree_and_tree();
        let v = ReverseTestingVariant::parse("paper,decide=sum,folds=3", "accuracy").unwrap();
        let r = reverse_testing(&learners, &train, &target, &v, 3).unwrap();
        assert_eq!(r.order, vec![1, 0], "{r:?}");
        // 3 folds x (2 on D + 4 on the copies).
        assert_eq!(r.models_built, 3 * 6);
        // Several variants at once give what each gives alone.
        let vs = [
            ReverseTestingVariant::paper(),
            v.clone(),
            ReverseTestingVariant::recommended("accuracy"),
        ];
        let many = reverse_testing_variants(&learners, &train, &target, &vs, 3).unwrap();
        for (one, v) in many.iter().zip(&vs) {
            let alone = reverse_testing(&learners, &train, &target, v, 3).unwrap();
            assert_eq!(one.pairs[0].acc_train, alone.pairs[0].acc_train);
        }
    }

    #[test]
    fn bad_inputs_are_explained() {
        let (train, _) = train_and_target(50, 0.0);
        let paper = ReverseTestingVariant::paper();
        let one: Vec<(String, Arc<dyn Learner>)> = vec![("tree".into(), Arc::new(Tree::default()))];
        assert!(reverse_testing(&one, &train, &train, &paper, 1).is_err());
        let two: Vec<(String, Arc<dyn Learner>)> = vec![
            ("a".into(), Arc::new(Tree::default())),
            ("b".into(), Arc::new(AlwaysZero)),
        ];
        let bad = ReverseTestingVariant {
            measure: Measure::Metric("nope".into()),
            ..paper
        };
        let e = reverse_testing(&two, &train, &train, &bad, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown metric 'nope'"), "{e}");
    }
}
