//! Dal Pozzolo et al. (2015) on their synthetic task (mu = 3, sigma = 3, 10%
//! positives, n = 10,000), whose true posterior is known: undersampling to a
//! balanced set (beta = N+/N-) biases the posterior p_s; the correction of
//! eq. 9 brings p' back to the truth, and the threshold of eq. 12 keeps the
//! labels (so the G-mean) exactly.

use rarity::calibrate::correct_keep_rates;
use rarity::data::synth::GaussianTask;
use rarity::data::Proba;
use rarity::decide::{corrected_threshold, Rule};
use rarity::metrics::confusion::Confusion;
use rarity::spec::build_strategy;

fn mae(p: &[f64], truth: &[f64]) -> f64 {
    p.iter().zip(truth).map(|(a, b)| (a - b).abs()).sum::<f64>() / p.len() as f64
}

fn g_mean(truth: &[u32], labels: &[u32]) -> f64 {
    Confusion::from_labels(truth, labels, 2)
        .unwrap()
        .one_vs_rest(1)
        .g_mean()
}

#[test]
fn correction_recovers_the_true_posterior() {
    let task = GaussianTask::default();
    let (train, _) = task.generate(1).unwrap();
    let (test, true_p) = task.generate(2).unwrap();
    // Balanced by exact count: beta = N+/N- exactly.
    let s = build_strategy("under(ratio=1)+forest(n=100,min_samples_leaf=20)").unwrap();
    let fitted = s.fit(&train, 3).unwrap();
    let rates = fitted.members[0].keep_rates.clone();
    let beta = rates[0] / rates[1];
    let c = train.class_counts();
    assert!(
        (beta - c[1] as f64 / c[0] as f64).abs() < 1e-12,
        "beta {beta}"
    );

    let p_s = fitted.predict_proba(&test).unwrap();
    let mut p_corr = p_s.clone();
    correct_keep_rates(&mut p_corr, &rates).unwrap();
    let (err_s, err_c) = (
        mae(&p_s.column(1), &true_p),
        mae(&p_corr.column(1), &true_p),
    );
    eprintln!(
        "MAE to the true posterior: p_s {err_s:.4}, p' {err_c:.4}, ratio {:.1}",
        err_s / err_c
    );
    assert!(err_s > 3.0 * err_c, "p_s {err_s} vs p' {err_c}");

    // Same labels, so the same G-mean, with tau_s = 0.5 and tau' (eq. 12).
    let tau = corrected_threshold(0.5, beta);
    let before = Rule::Threshold(0.5).decide(&p_s, None).unwrap();
    let after = Rule::Threshold(tau).decide(&p_corr, None).unwrap();
    assert_eq!(before, after);
    let truth = test.labels();
    assert_eq!(g_mean(truth, &before), g_mean(truth, &after));
    eprintln!(
        "G-mean(p_s, 0.5) = G-mean(p', {tau:.4}) = {:.4}",
        g_mean(truth, &before)
    );

    // Ranking is unchanged by the monotone correction.
    let auc = |p: &Proba| rarity::metrics::ranking::roc_auc(truth, &p.column(1), 1).unwrap();
    assert_eq!(auc(&p_s), auc(&p_corr));
}
