//! Importance-weighted cross-validation (IWCV; Sugiyama, Krauledat & Müller
//! 2007, JMLR 8, "Covariate shift adaptation by importance weighted cross
//! validation", eq. 8): under covariate shift (`p(y | x)` the same in the
//! training set `D` and the target population `T`, `p(x)` not), the
//! k-fold estimate of a learner's loss on `T` is the mean over the
//! validation rows of `w(x_i) loss(x_i, y_i)`, with `w(x) = p_T(x) / p_D(x)`
//! the density ratio; it is unbiased where plain cross-validation measures
//! the loss on `D`'s own distribution.
//!
//! Here every learner's out-of-fold predictions on `D` (the folds of plain
//! cross-validation, shared with it) are measured with each row weighted by
//! [`super::density_ratio`]'s weights (estimated from `D` and the unlabelled
//! `T`); thresholded metrics read the weighted confusion matrix, Brier and
//! log loss are weighted means ([`crate::metrics::catalogue::weighted_value`]).

use crate::params::{params, Bounds};

use super::density_ratio::RatioEstimator;

params! {
    /// Importance-weighted cross-validation.
    #[derive(Debug, Clone)]
    pub struct Iwcv {
        /// The density-ratio estimator.
        pub ratio: RatioEstimator = RatioEstimator::default(),
        /// Cross-validation folds (at most the smallest class's rows).
        pub folds: usize = 10 => Bounds::at_least(2.0),
        /// Repeats of the cross-validation (the measures are averaged).
        pub repeats: usize = 1 => Bounds::at_least(1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;
    use crate::select::comparator::{out_of_fold, scores_of};
    use crate::select::variant::ReverseTestingVariant;
    use crate::split::Splitter;
    use std::sync::Arc;

    use crate::learn::Learner;

    /// Predicts class 1 iff x0 > `cut`, whatever it is trained on.
    #[derive(Debug)]
    struct Cut(f64);

    impl Learner for Cut {
        fn fit(
            &self,
            data: &crate::data::View<'_>,
            _: &mut crate::rng::Rng,
        ) -> crate::error::Result<crate::learn::Model> {
            // A depth-1 tree on a fixed split: fit on two rows at the cut.
            let ds = Dataset::from_rows(
                vec![vec![self.0 - 1e-9, 0.0], vec![self.0 + 1e-9, 0.0]],
                vec![0, 1],
                data.data().class_names().to_vec(),
            )?;
            let rows = [0, 1];
            crate::learn::tree::Tree::default().fit(&ds.view(&rows), &mut crate::rng::stream(0, 0))
        }
        fn name(&self) -> String {
            format!("cut({})", self.0)
        }
    }

    #[test]
    fn weights_move_the_estimate_to_the_target() {
        // y = 1 iff x0 > 0.5, x0 uniform on [0, 1) in D. Learner a cuts at
        // 0.3 (wrong on [0.3, 0.5)), b at 0.8 (wrong on [0.5, 0.8)): on D, a
        // is better (20% vs 30% errors). A target concentrated near 0,
        // weights exp(-6 x0), makes b's error region weigh less than a's:
        // 4% against 12% weighted errors.
        let train = crate::select::test_learners::shifted(400, 0.0, 1);
        let learners: Vec<(String, Arc<dyn Learner>)> = vec![
            ("a".into(), Arc::new(Cut(0.3))),
            ("b".into(), Arc::new(Cut(0.8))),
        ];
        let oof = out_of_fold(&learners, &train, Splitter::k_fold(5), None, 1).unwrap();
        let acc = ReverseTestingVariant::paper();
        let plain = scores_of(&oof, &train, &acc, None).unwrap();
        assert!(plain[0] > plain[1], "{plain:?}");
        let w: Vec<f64> = (0..train.n_rows())
            .map(|i| (-6.0 * train.value(i, 0)).exp())
            .collect();
        let weighted = scores_of(&oof, &train, &acc, Some(&w)).unwrap();
        assert!(weighted[1] > weighted[0], "{weighted:?}");
        assert!((weighted[0] - 0.885).abs() < 0.03, "{weighted:?}");
        let iw = Iwcv::default();
        assert_eq!(iw.folds, 10);
        assert!(iw
            .ratio
            .to_string()
            .starts_with("classifier(learner=logistic"));
    }
}
