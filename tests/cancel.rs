//! Cooperative cancellation: once a stop is requested, long work returns
//! `Error::Cancelled` instead of finishing, and work started after the last
//! job ended runs normally. (Its own test binary: the flag is process-wide.)

use rarity::cancel::{request, Job};
use rarity::data::{bundled, read::ReadOptions};
use rarity::Error;

#[test]
fn requested_stop_cancels_work_and_clears_after_the_job() {
    let (ds, _) = bundled::find("ecoli4")
        .unwrap()
        .load(&ReadOptions::default())
        .unwrap();
    for spec in [
        "pt-bagging(n=20)",
        "tree",
        "under(beta=0.5)+logistic",
        "svm(kernel=rbf)",
        "rus-boost(n=5)",
        "logitboost(n=5)",
        "under+forest(n=5)+platt",
        "tomek+tree",
        "smote+tree",
        "enn(rule=all)+logistic",
    ] {
        let s = rarity::spec::build_strategy(spec).unwrap();
        let job = Job::start();
        request();
        let e = s.fit(&ds, 1).unwrap_err();
        assert!(matches!(e, Error::Cancelled), "{spec}: {e}");
        assert_eq!(e.to_string(), "interrupted");
        drop(job);
        s.fit(&ds, 1)
            .unwrap_or_else(|e| panic!("{spec} after the job: {e}"));
    }
    cancelled_neighbour_searches_leave_valid_indices();
}

/// A cancelled neighbour search stops early without leaving indices that
/// point past the data: the samplers built on it finish (their result is
/// discarded by the caller's next check) instead of panicking. (Called by
/// the test above: the flag is process-wide, so the two must not overlap.)
fn cancelled_neighbour_searches_leave_valid_indices() {
    let (ds, _) = bundled::find("yeast4")
        .unwrap()
        .load(&ReadOptions::default())
        .unwrap();
    let job = Job::start();
    request();
    for spec in [
        "tomek",
        "enn",
        "smote",
        "ncl",
        "nearmiss3",
        "borderline-smote",
    ] {
        let s = rarity::sample::parse_sampler(spec).unwrap();
        let sample = s.resample(&ds, &mut rarity::rng::stream(1, 0)).unwrap();
        assert!(sample.rows.iter().all(|&r| r < ds.n_rows()), "{spec}");
    }
    drop(job);
}
