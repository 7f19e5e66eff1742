//! Every statistic against SciPy 1.17 on the committed fixtures
//! (`tools/gen_metric_fixtures.py`): statistics to 1e-12 and p-values to
//! 1e-9 (absolute up to 1, relative above; see `common`).

mod common;

use common::{check, check_all, finish, load, num, nums};
use rarity::stats::{
    friedman, mean, mean_ranks, nemenyi_q, paired_t_test, rank_sums, rankdata, std_dev,
    studentized_range_cdf, wilcoxon,
};

const TOL: f64 = 1e-12;
const P_TOL: f64 = 1e-9;

fn table(v: &serde_json::Value) -> Vec<Vec<f64>> {
    v.as_array().unwrap().iter().map(nums).collect()
}

#[test]
fn ranks_friedman_and_rank_sums_match_scipy() {
    let fx = load("stats.json");
    let mut failures = Vec::new();
    let mut n = 0;
    for (i, case) in fx["rankdata"].as_array().unwrap().iter().enumerate() {
        let got = rankdata(&nums(&case["x"]));
        check_all(
            &format!("rankdata {i}"),
            "ranks",
            &got,
            &nums(&case["ranks"]),
            0.0,
            &mut failures,
        );
        n += 1;
    }
    for (i, case) in fx["friedman"].as_array().unwrap().iter().enumerate() {
        let name = format!("friedman {i}");
        let t = table(&case["table"]);
        let f = friedman(&t).unwrap();
        check(
            &name,
            "chi2",
            f.chi2,
            num(&case["chi2"]),
            TOL,
            &mut failures,
        );
        check(
            &name,
            "p",
            f.chi2_p_value,
            num(&case["p_value"]),
            P_TOL,
            &mut failures,
        );
        check(&name, "F", f.f, num(&case["f"]), TOL, &mut failures);
        check(
            &name,
            "F p",
            f.f_p_value,
            num(&case["f_p_value"]),
            P_TOL,
            &mut failures,
        );
        check_all(
            &name,
            "rank sums",
            &rank_sums(&t).unwrap(),
            &nums(&case["rank_sums"]),
            TOL,
            &mut failures,
        );
        let mr = mean_ranks(&t, true).unwrap();
        check_all(
            &name,
            "mean ranks",
            &mr,
            &nums(&case["mean_ranks_higher_better"]),
            TOL,
            &mut failures,
        );
        n += 1;
    }
    finish(failures, n);
}

#[test]
fn wilcoxon_matches_scipy() {
    let fx = load("stats.json");
    let mut failures = Vec::new();
    let cases = fx["wilcoxon"].as_array().unwrap();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let w = wilcoxon(&nums(&case["x"]), &nums(&case["y"])).unwrap();
        check(
            name,
            "statistic",
            w.statistic,
            num(&case["statistic"]),
            TOL,
            &mut failures,
        );
        check(
            name,
            &format!("p ({:?})", w.method),
            w.p_value,
            num(&case["p_value"]),
            P_TOL,
            &mut failures,
        );
    }
    finish(failures, cases.len());
}

#[test]
fn paired_t_and_descriptives_match_scipy() {
    let fx = load("stats.json");
    let mut failures = Vec::new();
    let cases = fx["ttest"].as_array().unwrap();
    for (i, case) in cases.iter().enumerate() {
        let name = format!("ttest {i}");
        let r = paired_t_test(&nums(&case["x"]), &nums(&case["y"])).unwrap();
        check(&name, "t", r.t, num(&case["t"]), TOL, &mut failures);
        check(&name, "df", r.df, num(&case["df"]), 0.0, &mut failures);
        check(
            &name,
            "p",
            r.p_value,
            num(&case["p_value"]),
            P_TOL,
            &mut failures,
        );
    }
    for (i, case) in fx["describe"].as_array().unwrap().iter().enumerate() {
        let x = nums(&case["x"]);
        check(
            &format!("describe {i}"),
            "mean",
            mean(&x),
            num(&case["mean"]),
            TOL,
            &mut failures,
        );
        check(
            &format!("describe {i}"),
            "std",
            std_dev(&x),
            num(&case["std"]),
            TOL,
            &mut failures,
        );
    }
    finish(failures, cases.len());
}

#[test]
fn nemenyi_matches_scipy_studentized_range() {
    let fx = load("stats.json");
    let mut failures = Vec::new();
    let cases = fx["nemenyi_q"].as_array().unwrap();
    for case in cases {
        let k = case["k"].as_u64().unwrap() as usize;
        let alpha = num(&case["alpha"]);
        let q = nemenyi_q(k, alpha).unwrap();
        check(
            &format!("q k={k} alpha={alpha}"),
            "q",
            q,
            num(&case["q"]),
            P_TOL,
            &mut failures,
        );
    }
    for case in fx["studentized_range_sf"].as_array().unwrap() {
        let k = case["k"].as_u64().unwrap() as usize;
        let w = num(&case["w"]);
        let sf = 1.0 - studentized_range_cdf(w, k);
        check(
            &format!("range sf k={k} w={w}"),
            "sf",
            sf,
            num(&case["sf"]),
            P_TOL,
            &mut failures,
        );
    }
    finish(failures, cases.len());
}
