//! Target statistics of categorical features (issue 41 item 3): the
//! leakage test (a noise column with many levels is worth nothing out of
//! fold, though an in-sample encoding makes it look strong) and the
//! correction test (on an undersampled table, rows weighted by 1 / keep
//! rate give the population's rate per level; unweighted, the sample's).

use rand::RngExt;
use rarity::data::target_stats::{cross_fit, fit_table, Column, Smooth};

/// The AUC of `scores` for the labels (1 positive), ties counted half.
fn auc(scores: &[f64], labels: &[u32]) -> f64 {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let mut rank = vec![0.0; scores.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && scores[order[j + 1]] == scores[order[i]] {
            j += 1;
        }
        for &o in &order[i..=j] {
            rank[o] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    let pos = labels.iter().filter(|&&y| y == 1).count() as f64;
    let neg = labels.len() as f64 - pos;
    let sum: f64 = (0..labels.len())
        .filter(|&i| labels[i] == 1)
        .map(|i| rank[i])
        .sum();
    (sum - pos * (pos + 1.0) / 2.0) / (pos * neg)
}

#[test]
fn a_noise_column_with_many_levels_is_worth_nothing_out_of_fold() {
    let mut r = rarity::rng::stream(3, 0);
    let n = 6000;
    let codes: Vec<f64> = (0..n).map(|_| r.random_range(0..1500) as f64).collect();
    let labels: Vec<u32> = (0..n).map(|_| u32::from(r.random::<f64>() < 0.2)).collect();
    let col = Column {
        codes: &codes,
        labels: &labels,
        levels: 1500,
        class_weight: &[1.0, 1.0],
        row_weight: None,
    };
    let (oof, _) = cross_fit(&col, 5, Smooth::Auto, 11).unwrap();
    let out_of_fold = auc(&oof, &labels);
    let all: Vec<usize> = (0..n).collect();
    let table = fit_table(&col, &all, Smooth::Auto);
    let in_sample: Vec<f64> = codes.iter().map(|&c| table.value(c)[0]).collect();
    let in_sample = auc(&in_sample, &labels);
    assert!(
        (out_of_fold - 0.5).abs() < 0.04,
        "out of fold AUC {out_of_fold}"
    );
    assert!(in_sample > 0.7, "in-sample AUC {in_sample}");
}

#[test]
fn weighted_by_keep_rates_the_statistic_is_the_populations_rate() {
    let mut r = rarity::rng::stream(5, 0);
    let (levels, per_level, beta) = (100, 2000, 0.1);
    let (mut codes, mut labels) = (Vec::new(), Vec::new());
    let mut population = vec![(0.0, 0.0); levels];
    for (l, counts) in population.iter_mut().enumerate() {
        let rate = 0.02 + 0.2 * (l as f64 / levels as f64);
        for _ in 0..per_level {
            let y = u32::from(r.random::<f64>() < rate);
            counts.0 += f64::from(y);
            counts.1 += 1.0;
            // Undersampling: every positive, a `beta` share of negatives.
            if y == 1 || r.random::<f64>() < beta {
                codes.push(l as f64);
                labels.push(y);
            }
        }
    }
    let rows: Vec<usize> = (0..codes.len()).collect();
    let error = |class_weight: &[f64]| {
        let col = Column {
            codes: &codes,
            labels: &labels,
            levels,
            class_weight,
            row_weight: None,
        };
        let t = fit_table(&col, &rows, Smooth::Auto);
        let e: f64 = (0..levels)
            .map(|l| {
                let truth = population[l].0 / population[l].1;
                (t.value(l as f64)[0] - truth).abs() / truth
            })
            .sum();
        e / levels as f64
    };
    let corrected = error(&[1.0 / beta, 1.0]);
    let uncorrected = error(&[1.0, 1.0]);
    assert!(corrected < 0.15, "corrected relative error {corrected}");
    assert!(
        uncorrected > 1.0,
        "uncorrected relative error {uncorrected}"
    );
}

#[test]
fn unseen_and_missing_levels_get_the_prior_and_bad_settings_are_errors() {
    let codes = [0.0, 0.0, 1.0, 1.0, f64::NAN, 1.0];
    let labels = [0, 1, 1, 1, 0, 0];
    let col = Column {
        codes: &codes,
        labels: &labels,
        levels: 2,
        class_weight: &[1.0, 1.0],
        row_weight: None,
    };
    let t = fit_table(&col, &[0, 1, 2, 3, 4, 5], Smooth::Count(0.0));
    assert_eq!(t.prior, vec![0.5]);
    assert_eq!(t.value(0.0), &[0.5]);
    assert!((t.value(1.0)[0] - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(t.value(f64::NAN), &[0.5]);
    assert_eq!(t.value(7.0), &[0.5]);
    assert!(cross_fit(&col, 1, Smooth::Auto, 0).is_err());
    assert!(cross_fit(&col, 2, Smooth::Count(-1.0), 0).is_err());
}
