//! Samplers and `rarity resample` on categorical columns (issue 41): the
//! written file keeps the level texts (CSV and Parquet), SMOTE-NC's
//! semantics for every sampler that synthesizes rows (Chawla et al. 2002,
//! section 6.1: a synthetic row's level is the majority of its seed and the
//! seed's neighbours, never an interpolated code), the cleaning samplers on
//! the mixed distance, and the same result at one and two threads.

mod common;

use common::{file, run, scratch};
use rarity::data::read::{read_path, Categorical, ReadOptions};
use rarity::data::Dataset;

fn native() -> ReadOptions {
    ReadOptions {
        categorical: Categorical::Native,
        ..ReadOptions::default()
    }
}

fn declared(cols: &[&str]) -> ReadOptions {
    ReadOptions {
        categorical_cols: cols.iter().map(|c| c.to_string()).collect(),
        ..native()
    }
}

fn read(path: &str, opts: &ReadOptions) -> Dataset {
    read_path(std::path::Path::new(path), opts).unwrap().0
}

/// `shop,mcc,amount,y`: shop a text level (one missing, one with a comma),
/// mcc numeric-looking codes, positives at shops s3 and s9 only.
fn shops(n: usize) -> String {
    let mut t = String::from("shop,mcc,amount,y\n");
    for i in 0..n {
        let p = i % 10 == 0;
        let shop = if p {
            format!("s{}", [3, 9][i / 10 % 2])
        } else if i % 37 == 5 {
            String::new()
        } else if i % 41 == 7 {
            "\"s,x\"".into()
        } else {
            format!("s{}", i % 12)
        };
        let mcc = [5411, 5812, 7995][i % 3];
        t += &format!("{shop},{mcc},{}.25,{}\n", i % 13, if p { "p" } else { "n" });
    }
    t
}

/// `rarity resample INPUT --target y --categorical native -o OUT EXTRA...`,
/// which must succeed.
fn resample(input: &str, out: &str, extra: &[&str]) {
    let mut args = vec![
        "resample",
        input,
        "--target",
        "y",
        "--categorical",
        "native",
        "-o",
        out,
    ];
    args.extend(extra);
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{extra:?}: {err}");
}

fn same_table(a: &Dataset, b: &Dataset) {
    assert_eq!(a.schema(), b.schema());
    assert_eq!(a.labels(), b.labels());
    let (x, y) = (a.features(), b.features());
    assert_eq!(x.len(), y.len());
    for (u, v) in x.iter().zip(y) {
        assert!(u == v || (u.is_nan() && v.is_nan()), "{u} vs {v}");
    }
}

#[test]
fn resample_keeping_every_row_writes_the_levels_and_reads_back_the_same_table() {
    let dir = scratch("catsample-roundtrip");
    let text = shops(300);
    let input = file(&dir, "in.csv", text.as_bytes());
    let before = read(&input, &declared(&["mcc"]));
    for name in ["out.csv", "out.parquet"] {
        let out = dir.join(name).display().to_string();
        let flags = [
            "--categorical-cols",
            "mcc",
            "--method",
            "under",
            "--beta",
            "1",
        ];
        resample(&input, &out, &flags);
        same_table(&before, &read(&out, &declared(&["mcc"])));
        if name == "out.csv" {
            // Level texts, not codes; the rows missing a shop are kept
            // (`--missing auto`: random undersampling draws rows without
            // measuring distances) and written with the shop empty.
            assert!(text.lines().any(|l| l.starts_with(',')));
            assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
        }
    }
}

/// Positives: twelve rows of shop `a`, one of shop `b` (row 0, the first
/// positive) whose amount is in the middle of theirs.
fn one_odd_positive() -> String {
    let mut t = String::from("shop,amount,y\n");
    for i in 0..13 {
        let shop = if i == 6 { "b" } else { "a" };
        t += &format!("{shop},{}.5,p\n", i);
    }
    for i in 0..60 {
        t += &format!("{},{}.5,n\n", ["a", "b", "c"][i % 3], i % 17);
    }
    t
}

#[test]
fn a_synthetic_row_takes_the_majority_level_of_its_seed_and_neighbours() {
    let dir = scratch("catsample-vote");
    let input = file(&dir, "in.csv", one_odd_positive().as_bytes());
    let ds = read(&input, &native());
    let b_row = 6;
    let (a, b) = (ds.row(0)[0], ds.row(b_row)[0]);
    assert_ne!(a, b);
    for spec in ["smote(k=5)", "adasyn(k=5)", "smote-tomek", "smote-enn"] {
        let s = rarity::sample::registry::parse_sampler(spec).unwrap();
        let sample = s.resample(&ds, &mut rarity::rng::stream(3, 0)).unwrap();
        let out = sample.materialise(&ds).unwrap();
        let from_b = sample.synthetic.iter().filter(|r| r.from == b_row).count();
        let synthetic: Vec<f64> = (sample.rows.len()..out.n_rows())
            .map(|i| out.row(i)[0])
            .collect();
        assert_eq!(synthetic.len(), sample.synthetic.len(), "{spec}");
        // Every synthetic row is a positive's level; the one row of shop b
        // is outvoted by its neighbours (all of shop a), so even the rows
        // it seeds are of shop a.
        assert!(synthetic.iter().all(|&v| v == a), "{spec}: {synthetic:?}");
        if spec.starts_with("smote(") {
            assert!(from_b > 0, "{spec}: some rows seeded by the b row");
        }
    }
}

#[test]
fn smote_on_declared_numeric_codes_writes_only_real_codes() {
    let dir = scratch("catsample-codes");
    let input = file(&dir, "in.csv", shops(400).as_bytes());
    for method in ["smote", "borderline-smote", "adasyn", "hybrid"] {
        let out = dir.join(format!("{method}.csv")).display().to_string();
        resample(
            &input,
            &out,
            &["--categorical-cols", "mcc", "--method", method],
        );
        let written = std::fs::read_to_string(&out).unwrap();
        for line in written.lines().skip(1) {
            let f: Vec<&str> = line.rsplitn(3, ',').collect();
            // rsplitn: y, amount, then "shop,mcc".
            let mcc = f[2].rsplit(',').next().unwrap();
            assert!(["5411", "5812", "7995"].contains(&mcc), "{method}: {line}");
            if f[0] == "p" {
                let shop = f[2].rsplit_once(',').unwrap().0;
                assert!(["s3", "s9"].contains(&shop), "{method}: {line}");
            }
        }
    }
}

#[test]
fn samplers_on_categorical_columns_give_the_same_file_at_one_and_two_threads() {
    let dir = scratch("catsample-threads");
    let input = file(&dir, "in.csv", shops(600).as_bytes());
    for method in [
        "smote",
        "borderline-smote",
        "adasyn",
        "enn",
        "tomek",
        "ncl",
        "oss",
        "cnn",
        "nearmiss1",
        "nearmiss3",
        "smote-enn",
    ] {
        let mut outs = Vec::new();
        for t in ["1", "2"] {
            let out = dir.join(format!("{method}-{t}.csv")).display().to_string();
            resample(
                &input,
                &out,
                &["--method", method, "--threads", t, "--seed", "5"],
            );
            outs.push(std::fs::read(&out).unwrap());
        }
        assert_eq!(outs[0], outs[1], "{method}");
    }
}

#[test]
fn cleaning_compares_levels_not_codes() {
    // Two negatives beside a positive by amount: one of the positive's
    // shop, one of another shop a code away. With the mixed distance the
    // positive's nearest row is the one of its shop, which is kept: a Tomek
    // link needs mutual nearest rows of different classes.
    let text = "shop,amount,y\ns1,0,p\ns1,0.5,n\ns2,0.4,n\ns5,9,p\ns5,9.5,n\ns7,30,n\n";
    let dir = scratch("catsample-tomek");
    let input = file(&dir, "in.csv", text.as_bytes());
    let ds = read(&input, &native());
    let tomek = rarity::sample::registry::parse_sampler("tomek").unwrap();
    let s = tomek.resample(&ds, &mut rarity::rng::stream(1, 0)).unwrap();
    // Row 2 (s2, 0.4) is nearest row 0 by amount alone, but a level apart;
    // rows 0 and 1 (both s1) are each other's nearest: the link removes 1.
    assert_eq!(s.rows, vec![0, 2, 3, 5]);
}

#[test]
fn a_missing_level_is_written_empty_and_a_level_with_a_comma_quoted() {
    use rarity::data::write::{write_dataset, TableFormat};
    use rarity::data::ColumnEncoding;
    let base = Dataset::from_rows(
        vec![vec![1.5, 0.0], vec![2.0, 1.0], vec![3.0, 0.0]],
        vec![0, 1, 0],
        vec!["n".into(), "p".into()],
    )
    .unwrap();
    let mut schema = base.schema().clone();
    schema.encodings[1] = ColumnEncoding::Categorical {
        name: schema.feature_names[1].clone(),
        levels: vec!["a".into(), "b,c".into()],
    };
    let x = vec![1.5, 0.0, 2.0, 1.0, 3.0, f64::NAN];
    let ds = Dataset::new(x, base.labels().to_vec(), schema).unwrap();
    let dir = scratch("catsample-missing");
    let out = dir.join("m.csv");
    write_dataset(&ds, &out, TableFormat::Csv).unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text, "x0,x1,class\n1.5,a,n\n2,\"b,c\",p\n3,,n\n");
    let pq = dir.join("m.parquet");
    write_dataset(&ds, &pq, TableFormat::Parquet).unwrap();
    // Read back, the null drops its row (as an empty CSV cell does).
    let back = read(&pq.display().to_string(), &native());
    assert_eq!(back.n_rows(), 2);
    assert_eq!(back.schema().encodings[1], ds.schema().encodings[1]);
}
