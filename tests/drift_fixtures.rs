//! The drift statistics of `rarity monitor` (src/metrics/drift.rs) against
//! tests/fixtures/drift.json (tools/gen_drift_fixtures.py): SciPy's
//! `ks_2samp` statistic and the PSI over NumPy's type-1 quantile bins, on
//! normal samples, shifted ones, heavy ties, few levels, missing values, an
//! emptied bin, signed zeros and infinities. Each sample is counted in
//! pieces merged in two orders (the partitioning must not matter), and
//! again under a cap that forces coarse groups, whose KS must stay within
//! the share of a group of the exact one.

mod common;

use common::{load, num};
use rarity::metrics::drift::{numeric_drift, Sketch};

fn values(v: &serde_json::Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(num).collect()
}

/// `xs` counted in `parts` pieces merged last piece first.
fn sketch(xs: &[f64], parts: usize, cap: usize) -> Sketch {
    let mut out = Sketch::with_max_groups(cap).unwrap();
    for c in xs.chunks(xs.len().div_ceil(parts)).rev() {
        let mut s = Sketch::with_max_groups(cap).unwrap();
        s.add_all(c);
        out.merge(&s).unwrap();
    }
    out
}

#[test]
fn psi_and_ks_equal_numpy_and_scipy() {
    let f = load("drift.json");
    let cases = f["cases"].as_array().unwrap();
    assert!(cases.len() >= 8);
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let (r, cur) = (values(&c["reference"]), values(&c["current"]));
        let bins = c["bins"].as_u64().unwrap() as usize;
        for parts in [1, 4] {
            let d = numeric_drift(
                &sketch(&r, parts, 1 << 16),
                &sketch(&cur, parts, 1 << 16),
                bins,
            )
            .unwrap();
            assert!(d.exact, "{name}");
            assert_eq!(d.edges, values(&c["edges"]), "{name}: edges");
            let want = c["psi"].as_f64().unwrap();
            assert!(
                (d.psi - want).abs() <= 1e-12 * want.max(1.0),
                "{name}: psi {} vs {want}",
                d.psi
            );
            let ks = num(&c["ks"]);
            assert!((d.ks - ks).abs() <= 1e-15, "{name}: ks {} vs {ks}", d.ks);
        }
        // 64 groups at most: coarse, still within a group's share of KS.
        let coarse = numeric_drift(&sketch(&r, 3, 64), &sketch(&cur, 3, 64), bins).unwrap();
        assert!(coarse.psi.is_finite(), "{name}");
        assert!(
            (coarse.ks - num(&c["ks"])).abs() < 0.2,
            "{name}: coarse ks {}",
            coarse.ks
        );
    }
}
