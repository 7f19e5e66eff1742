//! Native categorical splits (issue 41): `gbdt` and the classification
//! tree (and the forests and bagged trees built on it) split a categorical
//! feature by a set of levels; missing values and unseen levels go to the
//! side not in the set; fits are the same at any thread count; model files
//! keep the sets.

mod common;

use common::scratch;
use rarity::data::{ColumnEncoding, Dataset, Schema};
use rarity::learn::gbdt::{Gbdt, GbdtModel};
use rarity::learn::tree::{RandomTree, SplitSearch, Tree, TreeModel};
use rarity::learn::{Learner, Model};
use rarity::metrics::ranking::roc_auc;
use rarity::spec::{build_learner, build_strategy};

const LEVELS: usize = 200;

/// A small deterministic generator (SplitMix64), so the tables need no
/// other crate.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `rows` rows of a categorical column `shop` of 200 levels (uniform) and
/// a noise column; a random third of the levels ("rich") has a positive
/// rate of 0.6, the others 0.05. With `k = 3`, class 2 takes the place of
/// the positives on the rich levels of even code. Returns the table (the
/// shop column categorical when `native`, numeric codes otherwise) and the
/// rich levels, ascending.
fn planted(rows: usize, k: usize, native: bool, seed: u64) -> (Dataset, Vec<usize>) {
    let mut r = Mix(seed);
    let mut rich: Vec<usize> = (0..LEVELS).filter(|_| r.unit() < 1.0 / 3.0).collect();
    rich.sort_unstable();
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..rows {
        let level = (r.next() % LEVELS as u64) as usize;
        let rate = if rich.binary_search(&level).is_ok() {
            0.6
        } else {
            0.05
        };
        let positive = r.unit() < rate;
        x.extend([level as f64, r.unit()]);
        y.push(match (positive, k) {
            (false, _) => 0,
            (true, 3) if level.is_multiple_of(2) => 2,
            (true, _) => 1,
        });
    }
    let classes = (0..k).map(|c| c.to_string()).collect();
    let mut schema = Schema::numeric(vec!["shop".into(), "noise".into()], classes);
    if native {
        schema.encodings[0] = ColumnEncoding::Categorical {
            name: "shop".into(),
            levels: (0..LEVELS).map(|l| format!("s{l}")).collect(),
        };
    }
    (Dataset::new(x, y, schema).unwrap(), rich)
}

fn fit(l: &dyn Learner, ds: &Dataset) -> Model {
    let rows: Vec<usize> = (0..ds.n_rows()).collect();
    l.fit(&ds.view(&rows), &mut rarity::rng::stream(7, 0))
        .unwrap()
}

fn auc(m: &Model, ds: &Dataset) -> f64 {
    let p = m.predict_proba(ds).unwrap();
    roc_auc(ds.labels(), &p.column(1), 1).unwrap()
}

/// One boosted tree of one split, natively and on the codes as numbers.
fn one_split_gbdt() -> Gbdt {
    Gbdt {
        rounds: 1,
        max_leaves: 2,
        max_cat_threshold: LEVELS,
        ..Gbdt::default()
    }
}

#[test]
fn gbdt_finds_a_planted_level_set_in_one_split() {
    let (ds, rich) = planted(30_000, 2, true, 1);
    let m = fit(&one_split_gbdt(), &ds);
    let tree = &m.downcast_ref::<GbdtModel>().unwrap().trees()[0];
    let set = tree.set(0).expect("the root splits the shop as a set");
    assert_eq!(set.codes().collect::<Vec<_>>(), rich);
    // On the codes as numbers one threshold cannot gather the scattered
    // levels: the same single split ranks far worse.
    let (numeric, _) = planted(30_000, 2, false, 1);
    let by_codes = fit(&one_split_gbdt(), &numeric);
    let (native_auc, codes_auc) = (auc(&m, &ds), auc(&by_codes, &numeric));
    assert!(
        native_auc > 0.8 && native_auc > codes_auc + 0.15,
        "native {native_auc}, codes {codes_auc}"
    );
}

#[test]
fn the_tree_finds_a_planted_level_set_in_one_split() {
    let (ds, rich) = planted(20_000, 2, true, 2);
    let stump = Tree {
        max_depth: Some(1),
        max_cat_threshold: LEVELS,
        ..Tree::default()
    };
    let m = fit(&stump, &ds);
    let t = m.downcast_ref::<TreeModel>().unwrap();
    let set = t.set(0).expect("the root splits the shop as a set");
    assert_eq!(set.codes().collect::<Vec<_>>(), rich);
    // Three classes: the root still keeps rich and clean levels apart.
    let (three, rich3) = planted(20_000, 3, true, 2);
    let m3 = fit(&stump, &three);
    let t3 = m3.downcast_ref::<TreeModel>().unwrap();
    let codes: Vec<usize> = t3.set(0).expect("a set split").codes().collect();
    let rich_in = codes
        .iter()
        .filter(|c| rich3.binary_search(c).is_ok())
        .count();
    assert!(rich_in == 0 || rich_in == codes.len(), "{codes:?}");
}

#[test]
fn missing_and_unseen_levels_go_where_levels_outside_the_set_go() {
    let (ds, rich) = planted(20_000, 2, true, 3);
    let clean = (0..LEVELS)
        .find(|l| rich.binary_search(l).is_err())
        .unwrap();
    let models = [
        fit(&one_split_gbdt(), &ds),
        fit(
            &Tree {
                max_depth: Some(1),
                ..Tree::default()
            },
            &ds,
        ),
    ];
    for m in &models {
        let p = |v: f64| {
            let mut out = [0.0; 2];
            m.predict_row(&[v, 0.5], &mut out);
            out
        };
        let outside = p(clean as f64);
        assert_ne!(outside, p(rich[0] as f64));
        for unseen in [f64::NAN, 250.0, -1.0, 3.5] {
            assert_eq!(p(unseen), outside, "value {unseen}");
        }
    }
}

#[test]
fn categorical_fits_are_identical_at_one_and_two_threads() {
    let (ds, _) = planted(12_000, 3, true, 4);
    let g = Gbdt {
        rounds: 6,
        subsample: 0.8,
        colsample: 0.5,
        min_data_per_group: 20,
        ..Gbdt::default()
    };
    let forest = build_learner("forest(n=6)").unwrap();
    // Every one of the 200 levels searched exhaustively (the few-level path).
    let few = build_learner("forest(n=6,max_cat_to_onehot=200)").unwrap();
    let run = |threads: usize, l: &dyn Learner| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| fit(l, &ds))
    };
    let one = run(1, &g);
    let trees = one.downcast_ref::<GbdtModel>().unwrap().trees();
    assert!(
        trees.iter().any(|t| t.set(0).is_some()),
        "set splits were made"
    );
    assert_eq!(one, run(2, &g));
    for f in [&forest, &few] {
        let p1 = run(1, f.as_ref()).predict_proba(&ds).unwrap();
        assert_eq!(p1, run(2, f.as_ref()).predict_proba(&ds).unwrap());
    }
}

#[test]
fn learners_say_whether_they_split_categories_natively() {
    assert!(Gbdt::default().native_categorical());
    assert!(Tree::default().native_categorical());
    let exact = Tree {
        splitter: SplitSearch::Exact,
        ..Tree::default()
    };
    assert!(!exact.native_categorical());
    assert!(!RandomTree::default().native_categorical());
    assert!(build_learner("forest").unwrap().native_categorical());
    assert!(!build_learner("logistic").unwrap().native_categorical());
}

/// Whether `needle` occurs in `hay`.
fn holds(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Model files keep the level sets (both formats), and the ONNX export
/// maps a level to its code with a `LabelEncoder` and splits by membership.
#[test]
fn model_files_and_the_onnx_export_keep_the_level_sets() {
    let (ds, _) = planted(6_000, 2, true, 5);
    let d = scratch("categorical-onnx");
    for spec in ["gbdt(rounds=5,max_cat_threshold=100)", "forest(n=3)"] {
        let fitted = build_strategy(spec).unwrap().fit(&ds, 3).unwrap();
        for format in [
            rarity::persist::Format::Binary,
            rarity::persist::Format::Json,
        ] {
            let path = d.join(format!("m-{}-{format:?}", spec.len()));
            rarity::persist::save(&fitted, &path, format).unwrap();
            let back: rarity::strategy::FittedStrategy = rarity::persist::load(&path).unwrap();
            assert_eq!(back, fitted, "{spec} {format:?}");
            assert_eq!(
                back.predict_proba(&ds).unwrap(),
                fitted.predict_proba(&ds).unwrap()
            );
        }
        let bytes = rarity::export::to_onnx(&fitted).unwrap();
        assert!(holds(&bytes, b"LabelEncoder"), "{spec}");
        assert!(holds(&bytes, b"membership_values"), "{spec}");
        // For a check by ONNX Runtime outside the test: the graph, the
        // rows (level name, noise) and rarity's probabilities.
        let name = if spec.starts_with("gbdt") {
            "gbdt"
        } else {
            "forest"
        };
        std::fs::write(d.join(format!("{name}.onnx")), &bytes).unwrap();
        let p = fitted.predict_proba(&ds).unwrap();
        let rows: Vec<String> = (0..ds.n_rows())
            .map(|i| {
                let r = ds.row(i);
                format!("s{},{:e},{:e}", r[0], r[1], p.row(i)[1])
            })
            .collect();
        std::fs::write(d.join(format!("{name}.csv")), rows.join("\n")).unwrap();
    }
}

/// 100 frequent levels (150 rows each, all at a 2% positive rate) and
/// 1,000 rare ones (15 rows each, every other one at 50%, the others at
/// 2%), drawn with `seed`; a noise column beside. The signal lives only in
/// levels beyond the 253 most frequent, which one byte of bin codes would
/// group into one bin.
fn rare_signal(seed: u64) -> Dataset {
    const FREQUENT: usize = 100;
    const RARE: usize = 1_000;
    let mut r = Mix(seed);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    let mut add = |level: usize, r: &mut Mix| {
        let rich = level >= FREQUENT && level.is_multiple_of(2);
        x.extend([level as f64, r.unit()]);
        y.push(u32::from(r.unit() < if rich { 0.5 } else { 0.02 }));
    };
    for level in 0..FREQUENT + RARE {
        for _ in 0..if level < FREQUENT { 150 } else { 15 } {
            add(level, &mut r);
        }
    }
    let mut schema = Schema::numeric(
        vec!["shop".into(), "noise".into()],
        vec!["0".into(), "1".into()],
    );
    schema.encodings[0] = ColumnEncoding::Categorical {
        name: "shop".into(),
        levels: (0..FREQUENT + RARE).map(|l| format!("s{l}")).collect(),
    };
    Dataset::new(x, y, schema).unwrap()
}

/// A column of 1,100 levels keeps the levels covering 99% of its rows
/// (two-byte bin codes), so gbdt finds signal that lives only in rare
/// levels: held-out AUC is high, and the sets hold levels beyond the 253
/// most frequent (one-byte codes grouped them all into one bin, which
/// never goes left); at one and two threads alike.
#[test]
fn gbdt_uses_levels_beyond_the_one_byte_budget() {
    let (train, test) = (rare_signal(11), rare_signal(12));
    let g = Gbdt {
        rounds: 30,
        ..Gbdt::default()
    };
    let pool = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    };
    let m = pool(1).install(|| fit(&g, &train));
    let held_out = auc(&m, &test);
    assert!(held_out > 0.85, "held-out AUC {held_out}");
    let trees = m.downcast_ref::<GbdtModel>().unwrap().trees();
    let beyond = trees
        .iter()
        .flat_map(|t| (0..t.nodes.len()).filter_map(move |i| t.set(i)))
        .flat_map(|s| s.codes().collect::<Vec<_>>())
        .filter(|&c| c >= 253)
        .count();
    assert!(beyond > 100, "{beyond} levels past the 253 most frequent");
    // The same at two threads; the forest's trees too.
    assert_eq!(m, pool(2).install(|| fit(&g, &train)));
    let forest = build_learner("forest(n=4)").unwrap();
    let p1 = pool(1).install(|| fit(forest.as_ref(), &train).predict_proba(&test));
    let p2 = pool(2).install(|| fit(forest.as_ref(), &train).predict_proba(&test));
    assert_eq!(p1.unwrap(), p2.unwrap());
}

/// A model file written before wide bin codes (`tests/fixtures/categorical`:
/// a gbdt with set splits on a 40-level column, fitted and run by the
/// previous build) still loads, keeps its sets and predicts what it
/// predicted then, unseen levels and a missing value included.
#[test]
fn a_model_file_from_before_wide_bins_loads_and_predicts_as_it_did() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/categorical");
    let model = dir.join("gbdt-categorical-v1.rarity");
    let fitted: rarity::strategy::FittedStrategy = rarity::persist::load(&model).unwrap();
    let bytes = rarity::export::to_onnx(&fitted).unwrap();
    assert!(
        holds(&bytes, b"membership_values"),
        "the file has set splits"
    );
    let out = scratch("categorical-old-model").join("p.csv");
    let data = dir.join("gbdt-categorical-v1.csv");
    let (code, _, err) = common::run(&[
        "predict",
        model.to_str().unwrap(),
        data.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
        // Its shops unseen in training were predicted as a level no split
        // holds, what `--unknown ignore` asks for now (issue 51 item 13).
        "--unknown",
        "ignore",
    ]);
    assert_eq!(code, 0, "{err}");
    let read = |p: &std::path::Path| std::fs::read_to_string(p).unwrap();
    assert_eq!(read(&out), read(&dir.join("gbdt-categorical-v1.pred.csv")));
}

/// The tree's categorical parameters (issue 41, spelled as gbdt spells
/// them) parse from a spec, for `tree` and the forests built on it, are
/// named when not at their defaults, and are bounded.
#[test]
fn the_tree_categorical_parameters_parse_and_are_bounded() {
    let set = "cat_smooth=3,min_data_per_group=50,max_cat_threshold=8,cat_l2=0.5,\
               max_cat_to_onehot=2";
    let tree = build_learner(&format!("tree({set})")).unwrap();
    assert_eq!(tree.name(), format!("tree(criterion=gini,{set})"));
    assert_eq!(
        build_learner("tree").unwrap().name(),
        "tree(criterion=gini)"
    );
    let forest = build_learner("forest(n=2,cat_smooth=0,max_cat_threshold=4)").unwrap();
    assert!(forest.name().contains("cat_smooth=0"), "{}", forest.name());
    assert!(
        forest.name().contains("max_cat_threshold=4"),
        "{}",
        forest.name()
    );
    for bad in [
        "tree(cat_smooth=-1)",
        "tree(cat_l2=-0.5)",
        "tree(max_cat_threshold=0)",
        "tree(min_data_per_group=0)",
        "forest(max_cat_threshold=0)",
        "tree(cat_smooth=inf)",
        "tree(max_cat_to_onehot=0)",
        "forest(max_cat_to_onehot=-1)",
    ] {
        let err = build_learner(bad)
            .err()
            .unwrap_or_else(|| panic!("{bad} accepted"));
        let name = bad[bad.find('(').unwrap() + 1..bad.find('=').unwrap()].to_string();
        assert!(err.to_string().contains(&name), "{bad}: {err}");
    }
}

/// 40,000 rows of a column of 4,000 levels (about 10 rows each) whose
/// signal lives in 40 of them (positive rate 0.4 against 0.02; the risky
/// levels fixed, the rows drawn with `seed`), a weakly informative number
/// and a noise column.
fn many_levels(seed: u64) -> Dataset {
    const MANY: usize = 4_000;
    let mut r = Mix(seed);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..40_000 {
        let level = (r.next() % MANY as u64) as usize;
        let rate = if level % 100 == 7 { 0.4 } else { 0.02 };
        let positive = r.unit() < rate;
        let signal = r.unit() + if positive { 0.3 } else { 0.0 };
        x.extend([level as f64, signal, r.unit()]);
        y.push(u32::from(positive));
    }
    let mut schema = Schema::numeric(
        vec!["shop".into(), "signal".into(), "noise".into()],
        vec!["0".into(), "1".into()],
    );
    schema.encodings[0] = ColumnEncoding::Categorical {
        name: "shop".into(),
        levels: (0..MANY).map(|l| format!("s{l}")).collect(),
    };
    Dataset::new(x, y, schema).unwrap()
}

/// On a column of thousands of levels with a few rows each, an unpruned
/// forest that orders a node's levels by their raw in-node rate (the search
/// before `cat_smooth` / `min_data_per_group` / `cat_l2` /
/// `max_cat_threshold`, restored by setting them to 1, 1, 0 and all levels)
/// gathers the levels that happen to hold a positive and overfits; the
/// regularised search (the defaults) ranks held-out rows well above it.
#[test]
fn a_forest_on_many_rare_levels_beats_the_raw_level_order_held_out() {
    let (train, test) = (many_levels(21), many_levels(22));
    let ours = build_learner("forest(n=20)").unwrap();
    let raw = build_learner(
        "forest(n=20,cat_smooth=1,min_data_per_group=1,cat_l2=0,max_cat_threshold=4000)",
    )
    .unwrap();
    let (ours_auc, raw_auc) = (
        auc(&fit(ours.as_ref(), &train), &test),
        auc(&fit(raw.as_ref(), &train), &test),
    );
    // Measured: regularised 0.781, raw 0.703 (20 trees, seeds 21 / 22); the
    // build before these rules, `rarity fit --categorical native -m
    // forest(n=20)` on the same tables as CSV: 0.664 (this build 0.779).
    assert!(
        ours_auc > 0.76 && raw_auc < 0.73,
        "regularised {ours_auc}, raw {raw_auc}"
    );
}

/// One column of three levels: `a` 6 rows, all positive; `b` and `c` 200
/// rows each at 10% and 12% positives.
fn three_levels() -> Dataset {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for (level, rows, positives) in [(0, 6, 6), (1, 200, 20), (2, 200, 24)] {
        for i in 0..rows {
            x.push(level as f64);
            y.push(u32::from(i < positives));
        }
    }
    let mut schema = Schema::numeric(vec!["kind".into()], vec!["0".into(), "1".into()]);
    schema.encodings[0] = ColumnEncoding::Categorical {
        name: "kind".into(),
        levels: vec!["a".into(), "b".into(), "c".into()],
    };
    Dataset::new(x, y, schema).unwrap()
}

/// A column of at most `max_cat_to_onehot` levels (default 4, LightGBM's)
/// is searched exhaustively: a stump isolates the small pure level `a`
/// (one level against the rest). The regularised ordered search (the
/// bound at 1; the search of every column before) cannot: `a` has fewer
/// than `cat_smooth` rows, so it is never sorted, and of the two levels
/// that are, one split sends at most one left.
#[test]
fn a_few_level_column_is_split_one_level_against_the_rest() {
    let ds = three_levels();
    let stump = |onehot: usize| Tree {
        max_depth: Some(1),
        max_cat_to_onehot: onehot,
        ..Tree::default()
    };
    let p_a = |m: &Model| {
        let mut out = [0.0; 2];
        m.predict_row(&[0.0], &mut out);
        out[1]
    };
    let root_set = |m: &Model| -> Vec<usize> {
        let t = m.downcast_ref::<TreeModel>().unwrap();
        t.set(0).expect("a set split").codes().collect()
    };
    let m = fit(&stump(4), &ds);
    assert_eq!(root_set(&m), vec![0]);
    assert_eq!(p_a(&m), 1.0);
    let ordered = fit(&stump(1), &ds);
    assert!(!root_set(&ordered).contains(&0), "{:?}", root_set(&ordered));
    assert!(p_a(&ordered) < 0.2, "{}", p_a(&ordered));
}

/// `max_cat_to_onehot` travels with the model file (both formats): a
/// forest fitted with it loads equal to itself and names it.
#[test]
fn the_one_hot_bound_round_trips_in_model_files() {
    let (ds, _) = planted(4_000, 2, true, 6);
    let spec = "forest(n=3,max_cat_to_onehot=2)";
    let fitted = build_strategy(spec).unwrap().fit(&ds, 3).unwrap();
    let d = scratch("categorical-order-file");
    common::assert_round_trips(&fitted, &ds, &d);
    let json = std::fs::read_to_string(d.join("m-Json")).unwrap();
    assert!(json.contains("max_cat_to_onehot"), "the parameter is saved");
}
