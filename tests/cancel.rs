//! Cooperative cancellation: once a stop is requested, long work returns
//! `Error::Cancelled` instead of finishing, and work started after the last
//! job ended runs normally. (Its own test binary: the flag is process-wide.)

use rarity::cancel::{request, Job};
use rarity::data::{bundled, read::ReadOptions};
use rarity::Error;

#[test]
fn requested_stop_cancels_fits_and_clears_after_the_job() {
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
}
