//! Tests across all samplers: keep rates, determinism, names, error paths,
//! and the defining property of each method on hand-made data.

use rand::RngExt;

use super::*;
use crate::data::Dataset;
use crate::neighbors::{knn, Exclude, Points};
use crate::rng::stream;

/// Two overlapping Gaussian classes in `d` dimensions plus, when `k3`, a
/// third class; minority rows come first.
fn blobs(n_min: usize, n_maj: usize, d: usize, k3: bool, seed: u64) -> Dataset {
    let mut r = stream(seed, 0);
    let mut gauss = move || {
        let u: f64 = r.random::<f64>().max(1e-300);
        let v: f64 = r.random();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    };
    let mut rows = Vec::new();
    let mut y = Vec::new();
    let sizes = if k3 {
        vec![(1u32, n_min, 1.0), (0, n_maj, 0.0), (2, n_maj / 2, -1.0)]
    } else {
        vec![(1u32, n_min, 1.0), (0, n_maj, 0.0)]
    };
    for (c, n, shift) in sizes {
        for _ in 0..n {
            rows.push((0..d).map(|_| gauss() + shift).collect());
            y.push(c);
        }
    }
    let names = if k3 {
        vec!["neg", "pos", "third"]
    } else {
        vec!["neg", "pos"]
    };
    Dataset::from_rows(rows, y, names.into_iter().map(String::from).collect()).unwrap()
}

/// One spec per sampler and main variant.
const SPECS: &[&str] = &[
    "under(beta=0.5)",
    "under(beta=0.5,exact)",
    "under(ratio=0.8)",
    "under(rates=0.5:1,exact)",
    "over",
    "over(ratio=0.5)",
    "over(amount=150)",
    "smote(k=5)",
    "smote(k=5,amount=200)",
    "smote(k=3,ratio=0.6,standardise)",
    "borderline-smote(k=5,m=10)",
    "adasyn(k=5)",
    "hybrid(amount=500,under=120,k=5)",
    "tomek",
    "enn(k=3)",
    "enn(k=3,rule=all)",
    "cnn",
    "oss",
    "ncl(k=3)",
    "nearmiss1(k=3)",
    "nearmiss2(k=3)",
    "nearmiss3(k=3,k3=3)",
    "smote-tomek(k=5)",
    "smote-enn(k=5,enn_k=3)",
    "under(ratio=1,replacement=true)",
    "over(shrinkage=1)",
    "borderline-smote(k=5,m=10,kind=2)",
    "adasyn(k=5,round_each=true)",
    "svm-smote(k=5)",
    "kmeans-smote(k=3,clusters=4,balance=0.05)",
    "renn(k=3)",
    "allknn(k=3,rule=all)",
    "cnn(once=true)",
    "iht(learner=tree,folds=3)",
    "cluster-centroids",
    "cluster-centroids(voting=hard)",
    "eb",
    "rb",
    "underover(a=50)",
    "balanced-bootstrap",
];

#[test]
fn keep_rates_are_the_counted_ratios_for_every_sampler() {
    let ds = blobs(60, 340, 3, false, 1);
    let before = ds.class_counts();
    for spec in SPECS {
        let s = parse_sampler(spec).unwrap();
        let out = s.resample(&ds, &mut stream(5, 0)).unwrap();
        let after = out.materialise(&ds).unwrap().class_counts();
        let by_value = out.synthetic_values.len() / ds.n_features();
        assert_eq!(
            out.synthetic.len() + by_value,
            out.synthetic_labels.len(),
            "{spec}"
        );
        for c in 0..2 {
            let want = after[c] as f64 / before[c] as f64;
            assert_eq!(out.keep_rates[c], want, "{spec}, class {c}");
        }
    }
}

#[test]
fn keep_rates_take_the_values_each_method_defines() {
    let ds = blobs(60, 340, 3, false, 2);
    let rates = |spec: &str| {
        parse_sampler(spec)
            .unwrap()
            .resample(&ds, &mut stream(9, 1))
            .unwrap()
            .keep_rates
    };
    assert_eq!(rates("under(beta=0.5,exact)"), vec![170.0 / 340.0, 1.0]);
    assert_eq!(rates("under(ratio=1)"), vec![60.0 / 340.0, 1.0]);
    assert_eq!(rates("over"), vec![1.0, 340.0 / 60.0]);
    assert_eq!(rates("over(amount=150)"), vec![1.0, 2.5]);
    assert_eq!(rates("smote"), vec![1.0, 340.0 / 60.0]);
    assert_eq!(rates("smote(ratio=0.5)"), vec![1.0, 170.0 / 60.0]);
    assert_eq!(rates("adasyn"), vec![1.0, 340.0 / 60.0]);
    // The hybrid: 60 + 300 synthetic minority rows, 1.2 * 300 = 360 > 340
    // majority rows (all kept, 20 drawn again).
    assert_eq!(rates("hybrid"), vec![360.0 / 340.0, 6.0]);
    assert_eq!(rates("eb"), vec![60.0 / 340.0, 1.0]);
    assert_eq!(rates("balanced-bootstrap"), vec![60.0 / 340.0, 1.0]);
    assert_eq!(rates("underover(a=50)"), vec![0.5, 170.0 / 60.0]);
    assert_eq!(rates("nearmiss1"), vec![60.0 / 340.0, 1.0]);
    let rb = rates("rb");
    assert_eq!(rb[1], 1.0);
    // Three classes: UnderOver sizes every class from the largest.
    let ds3 = blobs(20, 200, 2, true, 3);
    let s = UnderOver { a: 25.0 }
        .resample(&ds3, &mut stream(1, 0))
        .unwrap();
    assert_eq!(s.keep_rates, vec![0.25, 2.5, 0.5]);
    let s = RandomUnder::rates(vec![0.5, 1.0, 0.2])
        .exact(true)
        .resample(&ds3, &mut stream(1, 0))
        .unwrap();
    assert_eq!(s.keep_rates, vec![0.5, 1.0, 0.2]);
}

#[test]
fn bernoulli_undersampling_keeps_each_row_with_probability_beta() {
    let ds = blobs(200, 20_000, 1, false, 4);
    let s = RandomUnder::beta(0.3)
        .resample(&ds, &mut stream(2, 0))
        .unwrap();
    let kept = s.keep_rates[0] * 20_000.0;
    let sd = (20_000.0f64 * 0.3 * 0.7).sqrt();
    assert!((kept - 6_000.0).abs() < 5.0 * sd, "{kept}");
    assert_eq!(s.keep_rates[1], 1.0);
    // Different seeds give different counts (the count is random).
    let t = RandomUnder::beta(0.3)
        .resample(&ds, &mut stream(3, 0))
        .unwrap();
    assert_ne!(s.rows, t.rows);
}

#[test]
fn any_beta_in_its_range_is_accepted_with_a_note_below_the_balance() {
    // 10 positives, 90 negatives: N+/N- = 0.111.
    let ds = blobs(10, 90, 1, false, 5);
    let s = RandomUnder::beta(0.05)
        .exact(true)
        .resample(&ds, &mut stream(1, 0))
        .unwrap();
    assert_eq!(s.keep_rates, vec![5.0 / 90.0, 1.0]);
    assert!(
        s.notes
            .iter()
            .any(|n| n.contains("(5 of 90 rows kept) is now the minority")),
        "{:?}",
        s.notes
    );
    // At and above N+/N- no note.
    for beta in [10.0 / 90.0, 0.5] {
        let s = RandomUnder::beta(beta)
            .exact(true)
            .resample(&ds, &mut stream(1, 0))
            .unwrap();
        assert!(s.notes.is_empty(), "{beta}: {:?}", s.notes);
    }
    // Outside (0, 1] whatever the data: the parameter's own range.
    for beta in [0.0, 1.5, f64::NAN] {
        let e = RandomUnder::beta(beta)
            .resample(&ds, &mut stream(1, 0))
            .unwrap_err()
            .to_string();
        assert!(e.contains("in (0, 1]"), "{e}");
    }
    // A ratio the classes already meet keeps every row, with a note.
    let s = RandomUnder::ratio(0.05)
        .resample(&ds, &mut stream(1, 0))
        .unwrap();
    assert_eq!(s.keep_rates, vec![1.0, 1.0]);
    assert!(s.notes[0].contains("every row kept"), "{:?}", s.notes);
    assert!(RandomOver::new(OverTarget {
        ratio: Some(0.01),
        ..OverTarget::default()
    })
    .resample(&ds, &mut stream(1, 0))
    .is_err());
}

/// Squared distance of `p` to the segment from `a` to `b`.
fn off_segment(p: &[f64], a: &[f64], b: &[f64]) -> f64 {
    let ab: f64 = a.iter().zip(b).map(|(x, y)| (y - x) * (y - x)).sum();
    let t = if ab == 0.0 {
        0.0
    } else {
        (a.iter()
            .zip(b)
            .zip(p)
            .map(|((x, y), q)| (y - x) * (q - x))
            .sum::<f64>()
            / ab)
            .clamp(0.0, 1.0)
    };
    a.iter()
        .zip(b)
        .zip(p)
        .map(|((x, y), q)| (x + t * (y - x) - q).powi(2))
        .sum()
}

#[test]
fn smote_points_lie_on_segments_to_one_of_the_k_minority_neighbours() {
    let ds = blobs(40, 200, 3, false, 6);
    let minority = ds.rows_of_class(1);
    let mx: Vec<f64> = minority.iter().flat_map(|&i| ds.row(i).to_vec()).collect();
    let p = Points::new(&mx, minority.len(), 3).unwrap();
    let nn = knn(p, p, 5, Exclude::SameIndex);
    let s = Smote::new(5, OverTarget::default())
        .resample(&ds, &mut stream(7, 0))
        .unwrap();
    assert_eq!(s.synthetic_labels.len(), 160);
    assert!(s.synthetic_labels.iter().all(|&c| c == 1));
    let synthetic = ds.interpolate(&s.synthetic, &s.synthetic_levels).unwrap();
    for q in synthetic.chunks(3) {
        let on = (0..minority.len()).any(|i| {
            nn.of(i)
                .iter()
                .any(|&j| off_segment(q, p.row(i), p.row(j)) < 1e-20)
        });
        assert!(
            on,
            "{q:?} is on no segment between a minority row and its 5 neighbours"
        );
    }
    // A wrong neighbour set would fail: with k = 1 most points are off the 1-NN segments.
    let nn1 = knn(p, p, 1, Exclude::SameIndex);
    let on1 = synthetic
        .chunks(3)
        .filter(|q| {
            (0..minority.len()).any(|i| off_segment(q, p.row(i), p.row(nn1.of(i)[0])) < 1e-20)
        })
        .count();
    assert!(on1 < 100, "{on1}");
}

#[test]
fn rb_majority_sizes_follow_negative_binomial() {
    // NB(r, 1/2) with r = n+ = 20: mean 20, variance 40.
    let ds = blobs(20, 300, 1, false, 8);
    let draws = 4000;
    let sizes: Vec<f64> = (0..draws)
        .map(|i| {
            let s = RoughlyBalanced.resample(&ds, &mut stream(11, i)).unwrap();
            assert_eq!(s.rows.iter().filter(|&&r| ds.label(r) == 1).count(), 20);
            s.rows.iter().filter(|&&r| ds.label(r) == 0).count() as f64
        })
        .collect();
    let n = draws as f64;
    let mean = sizes.iter().sum::<f64>() / n;
    let var = sizes.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    // Standard errors: sqrt(40 / n) for the mean; for the variance,
    // sqrt((mu4 - sigma^4) / n) with NB's excess kurtosis 6/r + p^2/(r(1-p)).
    let se_mean = (40.0 / n).sqrt();
    let kurt = 3.0 + 6.0 / 20.0 + 0.25 / (20.0 * 0.5);
    let se_var = ((kurt - 1.0) * 1600.0 / n).sqrt();
    assert!((mean - 20.0).abs() < 4.0 * se_mean, "mean {mean}");
    assert!((var - 40.0).abs() < 4.0 * se_var, "variance {var}");
}

#[test]
fn tomek_links_on_a_hand_made_example() {
    // Links: (1, 2) and (5, 6). Rows 3 and 4 are nearest to each other but same class.
    let x = vec![
        vec![0.0, 0.0],
        vec![2.0, 0.0],
        vec![2.2, 0.0],
        vec![5.0, 5.0],
        vec![5.1, 5.0],
        vec![9.0, 9.0],
        vec![9.0, 9.3],
        vec![20.0, 0.0],
    ];
    let ds = Dataset::from_rows(
        x,
        vec![0, 0, 1, 0, 0, 1, 0, 0],
        vec!["n".into(), "p".into()],
    )
    .unwrap();
    let s = TomekLinks::default()
        .resample(&ds, &mut stream(0, 0))
        .unwrap();
    assert_eq!(s.rows, vec![0, 2, 3, 4, 5, 7]);
    assert_eq!(s.keep_rates, vec![4.0 / 6.0, 1.0]);
    // SMOTE+Tomek removes both members; with amount 0 there is no SMOTE row.
    let st = parse_sampler("smote-tomek(amount=0)").unwrap();
    assert_eq!(
        st.resample(&ds, &mut stream(0, 0)).unwrap().rows,
        vec![0, 3, 4, 7]
    );
}

#[test]
fn enn_ncl_and_nearmiss_on_hand_made_examples() {
    // Majority row 2 sits among minority rows 3, 4, 5; row 6 has two
    // minority and one majority neighbour among its three.
    let x = vec![
        vec![-10.0],
        vec![-9.0],
        vec![0.0],
        vec![0.5],
        vec![-0.5],
        vec![1.0],
        vec![1.6],
        vec![30.0],
        vec![31.0],
        vec![32.0],
    ];
    let y = vec![0, 0, 0, 1, 1, 1, 0, 0, 0, 0];
    let ds = Dataset::from_rows(x, y, vec!["n".into(), "p".into()]).unwrap();
    let mode = EditedNearestNeighbours::new(3, EnnRule::Mode).unwrap();
    assert_eq!(
        mode.resample(&ds, &mut stream(0, 0)).unwrap().rows,
        vec![0, 1, 3, 4, 5, 7, 8, 9]
    );
    let all = EditedNearestNeighbours::new(3, EnnRule::All).unwrap();
    // Rule "all" also drops rows 0 and 1 (row 4, a minority row, is among
    // their 3 neighbours): only rows whose 3 neighbours share their class survive.
    let kept = all.resample(&ds, &mut stream(0, 0)).unwrap().rows;
    assert_eq!(kept, vec![3, 4, 5, 7, 8, 9]);
    // NCL never removes minority rows and removes row 2.
    let ncl = NeighbourhoodCleaningRule::default()
        .resample(&ds, &mut stream(0, 0))
        .unwrap();
    assert!([3, 4, 5].iter().all(|r| ncl.rows.contains(r)));
    assert!(!ncl.rows.contains(&2));
    // NearMiss-1 keeps the 3 majority rows closest on average to their 3
    // nearest minority rows: 2 (0.67), 6 (1.27), 1 (9.33); 0 (10.33) and
    // 7, 8, 9 (about 30) go.
    let nm1 = NearMiss::<1>::default()
        .resample(&ds, &mut stream(0, 0))
        .unwrap();
    assert_eq!(nm1.rows, vec![1, 2, 3, 4, 5, 6]);
    // NearMiss-2 scores by the 3 farthest minority rows, here all three, so
    // it agrees with NearMiss-1.
    let nm2 = NearMiss::<2>::default()
        .resample(&ds, &mut stream(0, 0))
        .unwrap();
    assert_eq!(nm2.rows, vec![1, 2, 3, 4, 5, 6]);
    // NearMiss-3 short-lists the 1 nearest majority row of each minority
    // row ({2, 6}) and keeps both (fewer than 3 candidates).
    let nm3 = NearMiss::<3> {
        short_list: ShortList { k3: 1 },
        ..NearMiss::default()
    }
    .resample(&ds, &mut stream(0, 0))
    .unwrap();
    assert_eq!(nm3.rows, vec![2, 3, 4, 5, 6]);
}

#[test]
fn cnn_and_oss_keep_a_consistent_subset() {
    let ds = blobs(50, 400, 2, false, 12);
    for s in [
        Box::new(CondensedNearestNeighbour::default()) as Box<dyn Sampler>,
        Box::new(OneSidedSelection::default()),
    ] {
        let out = s.resample(&ds, &mut stream(3, 0)).unwrap();
        assert!(
            ds.rows_of_class(1).iter().all(|r| out.rows.contains(r)),
            "{}",
            s.name()
        );
        assert!(out.keep_rates[0] < 1.0);
    }
    // Hart's consistency: with the condensed set as 1-NN store, every row of
    // the condensed class is classified correctly.
    let out = CondensedNearestNeighbour::default()
        .resample(&ds, &mut stream(3, 0))
        .unwrap();
    let sx: Vec<f64> = out.rows.iter().flat_map(|&i| ds.row(i).to_vec()).collect();
    let store = Points::new(&sx, out.rows.len(), 2).unwrap();
    let nn = knn(Points::of(&ds), store, 1, Exclude::Nothing);
    for i in ds.rows_of_class(0) {
        assert_eq!(ds.label(out.rows[nn.of(i)[0]]), 0, "row {i}");
    }
}

#[test]
fn same_seed_same_sample_at_one_and_two_threads() {
    // Large enough for several parallel blocks of the search and SMOTE chunks.
    let ds = blobs(300, 1200, 4, false, 13);
    let run = |threads: usize, spec: &str| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            parse_sampler(spec)
                .unwrap()
                .resample(&ds, &mut stream(21, 3))
                .unwrap()
        })
    };
    for spec in SPECS {
        let a = run(1, spec);
        let b = run(2, spec);
        assert_eq!(a, b, "{spec}");
        let c = parse_sampler(spec)
            .unwrap()
            .resample(&ds, &mut stream(22, 3))
            .unwrap();
        if !spec.starts_with("tomek")
            && !spec.starts_with("enn")
            && !spec.starts_with("ncl")
            && !spec.starts_with("nearmiss")
            && !spec.starts_with("renn")
            && !spec.starts_with("allknn")
        {
            assert_ne!(
                a, c,
                "{spec}: a different seed should give a different sample"
            );
        }
    }
}

#[test]
fn names_parse_back_to_the_same_sampler() {
    for spec in SPECS {
        let s = parse_sampler(spec).unwrap();
        assert_eq!(parse_sampler(&s.name()).unwrap().name(), s.name(), "{spec}");
    }
    assert!(parse_sampler("smote(k=2").is_err());
    assert!(parse_sampler("smote(q=2)").is_err());
}

#[test]
fn a_class_with_k_rows_or_fewer_is_an_error_naming_the_k_that_fits_and_one_class_too() {
    let mut rows: Vec<Vec<f64>> = (0..30).map(|i| vec![i as f64, 0.0]).collect();
    rows.extend([vec![100.0, 1.0], vec![101.0, 3.0], vec![103.0, 2.0]]);
    let mut y = vec![0u32; 30];
    y.extend([1, 1, 1]);
    let ds = Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap();
    // As imbalanced-learn (ValueError), not k quietly lowered to 2.
    for spec in [
        "smote",
        "borderline-smote",
        "adasyn",
        "hybrid",
        "smote-tomek",
        "smote-enn",
    ] {
        let err = parse_sampler(spec)
            .unwrap()
            .resample(&ds, &mut stream(1, 0))
            .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("k=5 needs more than 5 rows of class 'p'")
                && msg.contains("has 3; give k=2 or less"),
            "{spec}: {msg}"
        );
        assert_eq!(err.exit_code(), 2, "{spec}");
        let fits = format!("{spec}(k=2)");
        let s = parse_sampler(&fits)
            .unwrap()
            .resample(&ds, &mut stream(1, 0))
            .unwrap_or_else(|e| panic!("{fits}: {e}"));
        assert_eq!(s.keep_rates, s.compute_keep_rates(&ds));
    }
    let s = Smote::new(2, OverTarget::default())
        .resample(&ds, &mut stream(1, 0))
        .unwrap();
    assert_eq!(s.synthetic_labels.len(), 27);
    let pts: Vec<&[f64]> = (30..33).map(|i| ds.row(i)).collect();
    for q in ds
        .interpolate(&s.synthetic, &s.synthetic_levels)
        .unwrap()
        .chunks(2)
    {
        let on = (0..3).any(|a| (0..3).any(|b| a != b && off_segment(q, pts[a], pts[b]) < 1e-20));
        assert!(on);
    }
    // One minority row: nothing to interpolate towards, at any k.
    let one = ds.take(&(0..31).collect::<Vec<_>>());
    let err = Smote::new(1, OverTarget::default())
        .resample(&one, &mut stream(1, 0))
        .unwrap_err()
        .to_string();
    assert!(err.contains("has 1; SMOTE interpolates"), "{err}");
    // One class: every sampler says so.
    let single = ds.take(&(0..30).collect::<Vec<_>>());
    for e in SAMPLERS
        .iter()
        .filter(|e| !["bootstrap", "none"].contains(&e.name))
    {
        let err = (e.build)(&crate::params::Call::bare(e.name))
            .unwrap()
            .resample(&single, &mut stream(1, 0))
            .unwrap_err()
            .to_string();
        assert!(err.contains("only one class"), "{}: {err}", e.name);
    }
    assert!(Smote::new(0, OverTarget::default())
        .resample(&ds, &mut stream(1, 0))
        .is_err());
}

/// The rows of class `c` in a sample (kept rows and synthetic labels).
fn class_rows(ds: &Dataset, s: &Sample, c: u32) -> usize {
    s.rows
        .iter()
        .filter(|&&i| ds.label(i) == c as usize)
        .count()
        + s.synthetic_labels.iter().filter(|&&l| l == c).count()
}

#[test]
fn undersampling_with_replacement_draws_exact_counts_with_repeats() {
    let ds = blobs(30, 300, 2, false, 11);
    let s = parse_sampler("under(ratio=1,replacement=true)")
        .unwrap()
        .resample(&ds, &mut stream(3, 0))
        .unwrap();
    assert_eq!(class_rows(&ds, &s, 0), 30);
    assert_eq!(class_rows(&ds, &s, 1), 30);
    let mut neg: Vec<usize> = s
        .rows
        .iter()
        .copied()
        .filter(|&i| ds.label(i) == 0)
        .collect();
    neg.dedup();
    assert!(
        neg.len() < 30,
        "30 draws of 300 rows with replacement repeat a row almost surely"
    );
    assert!(parse_sampler("under(beta=0.5,bernoulli,replacement=true)").is_err());
}

#[test]
fn the_smoothed_bootstrap_spreads_with_its_shrinkage_and_zero_is_the_plain_one() {
    let ds = blobs(40, 200, 2, false, 12);
    let plain = parse_sampler("over")
        .unwrap()
        .resample(&ds, &mut stream(1, 0))
        .unwrap();
    let zero = parse_sampler("over(shrinkage=0)")
        .unwrap()
        .resample(&ds, &mut stream(1, 0))
        .unwrap();
    assert_eq!(plain, zero);
    let spread = |shrink: f64| {
        let s = parse_sampler(&format!("over(shrinkage={shrink})"))
            .unwrap()
            .resample(&ds, &mut stream(1, 0))
            .unwrap();
        assert!(s.synthetic_values.len() == 160 * 2 && s.synthetic_labels == vec![1; 160]);
        assert_eq!(s.keep_rates, vec![1.0, 5.0]);
        let v = &s.synthetic_values;
        let mean = v.iter().step_by(2).sum::<f64>() / 160.0;
        v.iter()
            .step_by(2)
            .map(|x| (x - mean) * (x - mean))
            .sum::<f64>()
            / 160.0
    };
    assert!(spread(5.0) > spread(1.0));
    let out = parse_sampler("over(shrinkage=1)")
        .unwrap()
        .resample(&ds, &mut stream(1, 0))
        .unwrap();
    assert_eq!(out.materialise(&ds).unwrap().class_counts(), vec![200, 200]);
    assert!(parse_sampler("over(shrinkage=[1,2,3])")
        .unwrap()
        .resample(&ds, &mut stream(1, 0))
        .is_err());
}

#[test]
fn repeated_enn_runs_until_nothing_changes_and_allknn_edits_more_than_enn_with_one_neighbour() {
    let ds = blobs(80, 320, 2, false, 13);
    let run = |spec: &str| {
        parse_sampler(spec)
            .unwrap()
            .resample(&ds, &mut stream(1, 0))
            .unwrap()
    };
    let enn = run("enn(k=3,rule=all)");
    let renn = run("renn(k=3,rule=all)");
    assert!(renn.rows.len() <= enn.rows.len());
    assert!(
        renn.rows.iter().all(|r| enn.rows.contains(r)),
        "later rounds edit what the first kept"
    );
    let rounds = renn.fact("n_iter").unwrap()[0];
    assert!(rounds >= 1.0);
    let once = run("renn(k=3,rule=all,max_iter=1)");
    assert_eq!(once.rows, enn.rows);
    assert_eq!(once.fact("n_iter"), Some(&[1.0][..]));
    let all = run("allknn(k=3,rule=all,allow_minority=true)");
    let first = run("enn(k=1,rule=all)");
    assert!(all.rows.iter().all(|r| first.rows.contains(r)));
    // The minority is never edited.
    assert_eq!(class_rows(&ds, &renn, 1), 80);
}

#[test]
fn cluster_centroids_keep_the_count_asked_as_centres_or_rows() {
    let ds = blobs(25, 250, 3, false, 14);
    let soft = parse_sampler("cluster-centroids")
        .unwrap()
        .resample(&ds, &mut stream(2, 0))
        .unwrap();
    assert_eq!(soft.synthetic_labels, vec![0; 25]);
    assert_eq!(soft.synthetic_values.len(), 25 * 3);
    assert_eq!(soft.keep_rates, vec![25.0 / 250.0, 1.0]);
    let again = parse_sampler("cluster-centroids")
        .unwrap()
        .resample(&ds, &mut stream(2, 0))
        .unwrap();
    assert_eq!(soft, again);
    let hard = parse_sampler("cluster-centroids(voting=hard,counts=40:25)")
        .unwrap()
        .resample(&ds, &mut stream(2, 0))
        .unwrap();
    assert!(!hard.has_synthetic());
    assert_eq!(class_rows(&ds, &hard, 0), 40);
    assert_eq!(hard.keep_rates, vec![40.0 / 250.0, 1.0]);
}

#[test]
fn kmeans_smote_with_one_cluster_is_smote_draw_for_draw() {
    let ds = blobs(40, 200, 2, false, 15);
    let smote = parse_sampler("smote(k=5)")
        .unwrap()
        .resample(&ds, &mut stream(4, 0))
        .unwrap();
    let km = parse_sampler("kmeans-smote(k=5,clusters=1,balance=0)")
        .unwrap()
        .resample(&ds, &mut stream(4, 0))
        .unwrap();
    assert_eq!(km.synthetic, smote.synthetic);
    let many = parse_sampler("kmeans-smote(k=3,clusters=6,balance=0.05)")
        .unwrap()
        .resample(&ds, &mut stream(4, 0))
        .unwrap();
    assert_eq!(
        class_rows(&ds, &many, 1),
        200,
        "the new rows add up to the target exactly"
    );
    // imbalanced-learn's rule: each of the kept clusters' shares rounded up.
    let up = parse_sampler("kmeans-smote(k=3,clusters=6,balance=0.05,round_up=true)")
        .unwrap()
        .resample(&ds, &mut stream(4, 0))
        .unwrap();
    let made = class_rows(&ds, &up, 1);
    assert!((201..=206).contains(&made), "{made}");
    let e = parse_sampler("kmeans-smote(k=5,clusters=6,balance=1)")
        .unwrap()
        .resample(&ds, &mut stream(4, 0))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no cluster holds"), "{e}");
}

#[test]
fn svm_smote_makes_the_target_from_support_vectors_of_the_class() {
    let ds = blobs(40, 200, 2, false, 16);
    let s = parse_sampler("svm-smote(k=5)")
        .unwrap()
        .resample(&ds, &mut stream(1, 0))
        .unwrap();
    assert_eq!(class_rows(&ds, &s, 1), 200);
    assert!(s
        .synthetic
        .iter()
        .all(|b| ds.label(b.from) == 1 && ds.label(b.to) == 1));
    // Extrapolated rows (a negative gap) come from safe support vectors only.
    assert!(s.synthetic.iter().all(|b| b.gap > -0.5 && b.gap < 1.0));
}

#[test]
fn borderline_smote_two_reaches_other_classes_at_most_halfway_and_records_the_danger_rows() {
    let ds = blobs(60, 300, 2, false, 17);
    let s = parse_sampler("borderline-smote(k=5,m=10,kind=2)")
        .unwrap()
        .resample(&ds, &mut stream(1, 0))
        .unwrap();
    assert_eq!(class_rows(&ds, &s, 1), 300);
    let danger = s.fact("danger").unwrap();
    assert!(!danger.is_empty());
    assert!(s
        .synthetic
        .iter()
        .all(|b| danger.contains(&(b.from as f64))));
    let towards_other = s.synthetic.iter().filter(|b| ds.label(b.to) == 0);
    assert!(towards_other.clone().count() > 0);
    assert!(towards_other.into_iter().all(|b| b.gap < 0.5));
}

#[test]
fn instance_hardness_keeps_the_easiest_rows_exactly() {
    let ds = blobs(30, 150, 2, false, 18);
    let s = parse_sampler("iht(learner=tree,folds=3)")
        .unwrap()
        .resample(&ds, &mut stream(1, 0))
        .unwrap();
    assert_eq!(class_rows(&ds, &s, 0), 30);
    assert_eq!(class_rows(&ds, &s, 1), 30);
    let kept = keep_highest(
        &[0.9, 0.1, 0.5, 0.5, 0.2],
        &[vec![0, 1, 2, 3], vec![4]],
        &[2, 5],
    );
    assert_eq!(kept, vec![0, 2, 4], "ties go to the lower row");
    assert!(parse_sampler("iht(learner=forest)")
        .unwrap()
        .resample(&ds, &mut stream(1, 0))
        .is_err());
}

#[test]
fn cleaning_samplers_clean_the_classes_asked() {
    let ds = blobs(30, 200, 2, true, 19);
    for spec in [
        "tomek(classes=0)",
        "enn(classes=0,rule=all)",
        "renn(classes=0)",
        "allknn(classes=0)",
        "cnn(classes=0)",
        "oss(classes=0)",
        "ncl(classes=0)",
    ] {
        let s = parse_sampler(spec)
            .unwrap()
            .resample(&ds, &mut stream(1, 0))
            .unwrap();
        assert_eq!(
            class_rows(&ds, &s, 2),
            100,
            "{spec}: class 2 is not cleaned"
        );
        assert_eq!(class_rows(&ds, &s, 1), 30, "{spec}");
        assert!(class_rows(&ds, &s, 0) < 200, "{spec}");
    }
    assert!(parse_sampler("tomek(classes=5)")
        .unwrap()
        .resample(&ds, &mut stream(1, 0))
        .is_err());
    let nm = parse_sampler("nearmiss1(counts=50:30:100,ranked=true,classes=0)")
        .unwrap()
        .resample(&ds, &mut stream(1, 0))
        .unwrap();
    assert_eq!(class_rows(&ds, &nm, 0), 50);
    assert_eq!(class_rows(&ds, &nm, 2), 100);
}

#[test]
fn adasyn_rounding_each_row_can_miss_the_target_and_largest_remainders_cannot() {
    let ds = blobs(37, 211, 3, false, 20);
    let exact = parse_sampler("adasyn(k=5)")
        .unwrap()
        .resample(&ds, &mut stream(1, 0))
        .unwrap();
    assert_eq!(class_rows(&ds, &exact, 1), 211);
    let each = parse_sampler("adasyn(k=5,round_each=true)")
        .unwrap()
        .resample(&ds, &mut stream(1, 0))
        .unwrap();
    let got = class_rows(&ds, &each, 1) as i64;
    assert!((got - 211).abs() <= 37, "{got}");
}
