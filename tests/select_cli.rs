//! `rarity select` end to end on a feature-biased split of a bundled dataset.

mod common;

use common::{run, scratch};

/// Writes a biased training file (rows sorted by the first feature, the
/// lowest quarter dropped) and an unbiased target file from pima.
fn biased_split(dir: &std::path::Path) -> (String, String) {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/pima.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let rows: Vec<&str> = lines.collect();
    let mut train: Vec<&str> = rows.iter().step_by(2).copied().collect();
    let target: Vec<&str> = rows.iter().skip(1).step_by(2).copied().collect();
    train.sort_by(|a, b| {
        let x = |r: &str| r.split(',').next().unwrap().parse::<f64>().unwrap();
        x(a).total_cmp(&x(b))
    });
    let train = &train[train.len() / 4..];
    let d = dir.join("D.csv");
    let t = dir.join("T.csv");
    std::fs::write(&d, format!("{header}\n{}\n", train.join("\n"))).unwrap();
    std::fs::write(&t, format!("{header}\n{}\n", target.join("\n"))).unwrap();
    (
        d.to_string_lossy().into_owned(),
        t.to_string_lossy().into_owned(),
    )
}

/// The method names of a bias experiment's JSON.
fn method_names(v: &serde_json::Value) -> Vec<&str> {
    v["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["method"].as_str().unwrap())
        .collect()
}

/// Runs `rarity select` on the training file `d` and target file `t` with
/// `learners` and further arguments.
fn select(d: &str, t: &str, learners: &str, more: &[&str]) -> (i32, String, String) {
    let base = [
        "select",
        "--train",
        d,
        "--population",
        t,
        "--learners",
        learners,
    ];
    run(&[&base[..], more].concat())
}

/// [`select`] with `--format json` and `more`: its JSON (the command must
/// succeed).
fn select_json(d: &str, t: &str, learners: &str, more: &[&str]) -> serde_json::Value {
    let (code, out, err) = select(d, t, learners, &[more, &["--format", "json"]].concat());
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn select_reports_ranking_pairs_and_model_count() {
    let dir = scratch("select");
    let (d, t) = biased_split(&dir);
    let v = select_json(
        &d,
        &t,
        "tree,forest(n=10),rdt(n=5)",
        &["--method", "reverse-testing", "--truth", "class"],
    );
    let r = &v["ranking"];
    assert_eq!(r["learners"].as_array().unwrap().len(), 3);
    assert_eq!(r["pairs"].as_array().unwrap().len(), 3);
    // The default cross-fits on 5 folds: 5 (l + l^2) models unless a copy
    // was one-class.
    assert!(r["models_built"].as_u64().unwrap() <= 5 * (3 + 9));
    assert!(v["variant"].as_str().unwrap().contains("folds=5"));
    assert!(r["pairs"][0]["acc_train"].as_array().unwrap().len() == 4);
    assert_eq!(v["true_ranking"]["pairs"].as_array().unwrap().len(), 3);
    // The literal algorithm: l + l^2 models unless a copy was one-class.
    let (code, out, err) = select(
        &d,
        &t,
        "tree,forest(n=10),rdt(n=5)",
        &["--method", "reverse-testing", "--variant", "paper"],
    );
    assert_eq!(code, 0, "{err}");
    let first = out.lines().next().unwrap();
    assert!(
        first.contains("decide=strict,judges=pair,folds=0"),
        "{first}"
    );
    assert!(out.contains("one-class copy"), "{out}");
    // Methods are shown as the user writes them, in text and JSON.
    for method in ["cv", "loo", "train"] {
        let (code, out, err) = select(&d, &t, "tree,tree(max_depth=2)", &["--method", method]);
        assert_eq!(code, 0, "{method}: {err}");
        assert!(out.starts_with(&format!("ranking ({method}, ")), "{out}");
        let (code, out, err) = select(
            &d,
            &t,
            "tree,tree(max_depth=2)",
            &["--method", method, "--format", "json"],
        );
        assert_eq!(code, 0, "{method}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["method"], method);
    }
}

#[test]
fn select_population_also_answers_to_target() {
    let dir = scratch("select-alias");
    let (d, t) = biased_split(&dir);
    let learners = "tree,tree(max_depth=2)";
    let args = |flag: &'static str| {
        vec![
            "select".to_string(),
            "--train".into(),
            d.clone(),
            flag.into(),
            t.clone(),
            "--learners".into(),
            learners.into(),
        ]
    };
    let outs: Vec<String> = ["--population", "--target"]
        .into_iter()
        .map(|flag| {
            let a = args(flag);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let (code, out, err) = run(&a);
            assert_eq!(code, 0, "{flag}: {err}");
            out
        })
        .collect();
    assert_eq!(outs[0], outs[1]);
    // The default method: the vote the bias experiment chose.
    assert!(
        outs[0].starts_with("ranking (vote(reverse-testing, "),
        "{}",
        outs[0]
    );
    let (code, help, _) = run(&["select", "--help"]);
    assert_eq!(code, 0);
    assert!(help.contains("--population <FILE>"), "{help}");
}

#[test]
fn select_accepts_learner_lists_with_brackets() {
    let dir = scratch("select-brackets");
    let (d, t) = biased_split(&dir);
    let (code, out, err) = select(
        &d,
        &t,
        "tree,forest(n=5,max_depth=3)",
        &["--format", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ranking"]["learners"][1], "forest(n=5,max_depth=3)");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn select_errors() {
    let dir = scratch("select-bad");
    let (d, t) = biased_split(&dir);
    let (code, _, err) = select(&d, &t, "tree", &[]);
    assert_ne!(code, 0);
    assert!(err.contains("at least two learners"), "{err}");
    let (code, _, err) = select(&d, &t, "tree,nope", &[]);
    assert_ne!(code, 0);
    assert!(err.contains("unknown learner 'nope'"), "{err}");
    let (code, _, err) = select(&d, &t, "tree,rdt", &["--benefit", "amount=x9,overhead=1"]);
    assert_ne!(code, 0);
    assert!(err.contains("amount column 'x9'"), "{err}");
}

#[test]
fn bias_experiment_prints_the_summary_table() {
    let args = [
        "experiment",
        "reverse-testing",
        "--learners",
        "tree,tree(max_depth=2)",
        "--splits",
        "1",
        "--max-rows",
        "400",
        "--quiet",
    ];
    let (code, out, err) = run(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let methods = v["methods"].as_array().unwrap();
    assert_eq!(
        method_names(&v),
        [
            "ReverseTesting paper",
            "ReverseTesting default",
            "10-fold CV",
            "leave-one-out"
        ]
    );
    let counted: u64 = ["correct", "wrong", "undecided"]
        .iter()
        .map(|k| methods[0]["tally"][k].as_u64().unwrap())
        .sum();
    assert!(counted > 0);
    // The text table carries the same numbers.
    let (code, text, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    for m in methods {
        let t = &m["tally"];
        let line = text
            .lines()
            .find(|l| l.starts_with(m["method"].as_str().unwrap()))
            .unwrap_or_else(|| panic!("{text}"));
        let cells: Vec<&str> = line.split_whitespace().collect();
        let tail = &cells[cells.len() - 5..];
        let expect = [
            t["correct"].to_string(),
            t["wrong"].to_string(),
            t["undecided"].to_string(),
        ];
        assert!(
            tail[..3] == expect || tail[1..4] == expect,
            "{line} vs {expect:?}"
        );
    }
    let (code, _, err) = run(&[&args[..], &["--variant", "paper,folds=1"]].concat());
    assert_ne!(code, 0);
    assert!(err.contains("variant 'paper,folds=1'"), "{err}");
}

#[test]
fn select_weighted_methods_report_the_bias_and_what_they_did() {
    let dir = scratch("select-weighted");
    let (d, t) = biased_split(&dir);
    let learners = "tree(max_depth=2),gnb,logistic";
    for (method, did) in [
        ("iwcv", "weighted each validation row by its density ratio"),
        ("iwcv(ratio=ulsif)", "ulsif(centres=100"),
        (
            "prior-cv",
            "weighted each validation row by pi_T(y) / pi_D(y)",
        ),
        ("cv", "no correction for the bias"),
        ("vote(cv, iwcv, prior-cv)", "the majority of 3 methods"),
    ] {
        let (code, out, err) = select(&d, &t, learners, &["--method", method]);
        assert_eq!(code, 0, "{method}: {err}");
        assert!(
            out.contains("what it did: ") && out.contains(did),
            "{method}: {out}"
        );
        // The training half is sorted by x0 and its lowest quarter dropped:
        // the training-vs-target classifier sees it.
        assert!(out.contains("bias detected: covariate"), "{method}: {out}");
        assert!(out.contains("training-vs-target classifier AUC"), "{out}");
    }
    let (code, out, err) = select(&d, &t, learners, &["--method", "iwcv", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let w = &v["weights"];
    let (ess, rows) = (
        w["effective_size"].as_f64().unwrap(),
        w["rows"].as_f64().unwrap(),
    );
    assert!(ess > 1.0 && ess <= rows, "{w}");
    assert!(
        v["diagnosis"]["shift"]["auc"].as_f64().unwrap() > 0.55,
        "{v}"
    );
    assert_eq!(v["diagnosis"]["shift"]["detected"], true);
    assert_eq!(v["scores"].as_array().unwrap().len(), 3);
    assert_eq!(v["method"], "iwcv");
    assert!(v["spec"]
        .as_str()
        .unwrap()
        .starts_with("iwcv(ratio=classifier("));
    // The default is the vote the bias experiment chose.
    let (code, out, err) = select(&d, &t, learners, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(
            "ranking (vote(reverse-testing, iwcv(ratio=classifier(power=0.5)), iwcv(ratio=ulsif)), "
        ),
        "{out}"
    );
    // No bias: the target drawn like the training set.
    let (code, out, err) = select(&t, &t, learners, &["--method", "cv"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("bias detected: none"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn select_names_the_bad_inputs_of_a_biased_selection() {
    let dir = scratch("select-bad-target");
    let (d, t) = biased_split(&dir);
    let text = std::fs::read_to_string(&t).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // A target with a column the training set lacks.
    let extra: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                format!("{l},extra")
            } else {
                format!("{l},1")
            }
        })
        .collect();
    let extra = common::file(&dir, "extra.csv", (extra.join("\n") + "\n").as_bytes());
    // A target lacking a training column (the first, x0).
    let less: Vec<&str> = lines.iter().map(|l| l.split_once(',').unwrap().1).collect();
    let less = common::file(&dir, "less.csv", (less.join("\n") + "\n").as_bytes());
    // Nine target rows.
    let small = common::file(
        &dir,
        "small.csv",
        (lines[..10].join("\n") + "\n").as_bytes(),
    );
    // A training set with one class.
    let dtext = std::fs::read_to_string(&d).unwrap();
    let one: Vec<&str> = dtext
        .lines()
        .enumerate()
        .filter(|(i, l)| *i == 0 || l.ends_with(",0"))
        .map(|(_, l)| l)
        .collect();
    let one = common::file(&dir, "one.csv", (one.join("\n") + "\n").as_bytes());
    for (train, target, needle) in [
        (
            &d,
            &extra,
            "the target population has columns the training set lacks: extra",
        ),
        (
            &d,
            &less,
            "the target population lacks columns of the training set: x0",
        ),
        (
            &less,
            &t,
            "the target population has columns the training set lacks: x0",
        ),
        (
            &d,
            &small,
            "the target population has 9 rows; estimating its distribution needs at least 10",
        ),
        (&one, &t, "the training set: the data has only one class"),
    ] {
        for method in ["iwcv", "prior-cv", "cv"] {
            let (code, out, err) = select(train, target, "tree,gnb", &["--method", method]);
            assert_eq!(code, 2, "{method} {target}: {out}");
            assert!(err.contains(needle), "{method}: {err}");
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    for (method, needle) in [
        (
            "iwcvv",
            "unknown selection method 'iwcvv' (did you mean 'iwcv'?)",
        ),
        (
            "iwcv(ratio=kliep)",
            "unknown density-ratio estimator 'kliep'",
        ),
        ("vote(cv)", "vote needs at least two methods"),
    ] {
        let (code, _, err) = select(&d, &t, "tree,gnb", &["--method", method]);
        assert_eq!(code, 2);
        assert!(err.contains(needle), "{method}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bias_experiment_evaluates_further_methods_and_writes_the_pairs() {
    let dir = scratch("experiment-methods");
    let pairs = dir.join("pairs.csv");
    let pairs_arg = pairs.to_string_lossy().into_owned();
    let (code, out, err) = run(&[
        "experiment",
        "reverse-testing",
        "--learners",
        "tree,tree(max_depth=2),gnb",
        "--splits",
        "1",
        "--max-rows",
        "400",
        "--bias",
        "class",
        "--variant",
        "paper",
        "--method",
        "iwcv",
        "--method",
        "vote(cv, iwcv, prior-cv)",
        "--pairs",
        &pairs_arg,
        "--quiet",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        method_names(&v),
        [
            "ReverseTesting paper",
            "iwcv",
            "vote(cv, iwcv, prior-cv)",
            "10-fold CV",
            "leave-one-out"
        ]
    );
    // One CSV row per counted pair, one decision column per method, and
    // the tallies recount from it.
    let text = std::fs::read_to_string(&pairs).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    assert!(header.starts_with("dataset,split,a,b,test_rows,true_a,true_b,agreement,"));
    let rows: Vec<&str> = lines.collect();
    for (m, method) in v["methods"].as_array().unwrap().iter().enumerate() {
        let t = &method["tally"];
        let counted: u64 = ["correct", "wrong", "undecided"]
            .iter()
            .map(|k| t[k].as_u64().unwrap())
            .sum();
        assert_eq!(counted as usize, rows.len());
        let correct = rows
            .iter()
            .filter(|r| {
                let cells: Vec<&str> = r.rsplitn(6, ',').collect();
                let decision = cells[4 - m];
                let f: Vec<&str> = r.split(',').collect();
                let n = f.len();
                let (ta, tb): (f64, f64) = (f[n - 8].parse().unwrap(), f[n - 7].parse().unwrap());
                decision == if ta > tb { "a" } else { "b" }
            })
            .count();
        assert_eq!(correct as u64, t["correct"].as_u64().unwrap(), "{method}");
    }
    // Every cell reports the covariate-shift AUC and the class priors.
    let cell = &v["cells"][0];
    assert!(cell["shift_auc"].as_f64().is_some(), "{cell}");
    assert_eq!(
        cell["train_priors"].as_array().unwrap().len(),
        cell["test_priors"].as_array().unwrap().len()
    );
    let (code, _, err) = run(&[
        "experiment",
        "reverse-testing",
        "--method",
        "iwcv(folds=1)",
        "--quiet",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("folds=1 is invalid"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A table whose positive rate lives in its `shop` column (text levels),
/// with a level the training rows never saw in the population.
fn shops_csv(rows: usize, seed: u64, unseen: bool) -> String {
    let mut s = seed;
    let mut next = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut out = String::from("amount,shop,class\n");
    for i in 0..rows {
        let shop = (next() * 30.0) as usize;
        let shop = if unseen && i % 50 == 0 { 99 } else { shop };
        let risky = shop % 5 == 0;
        let pos = next() < if risky { 0.6 } else { 0.05 };
        let amount = next() + if pos { 0.2 } else { 0.0 };
        out += &format!("{amount:.4},s{shop},{}\n", if pos { "p" } else { "n" });
    }
    out
}

#[test]
fn select_reads_categorical_columns_natively_or_by_target_statistics() {
    let dir = scratch("select-categorical");
    let d = common::file(&dir, "train.csv", shops_csv(400, 1, false).as_bytes());
    let t = common::file(&dir, "population.csv", shops_csv(300, 2, true).as_bytes());
    let (code, _, err) = select(&d, &t, "tree,gbdt(rounds=10)", &[]);
    assert_ne!(code, 0);
    assert!(err.contains("shop"), "{err}");
    let learners = "tree,gbdt(rounds=10)";
    // The population's shops the training set lacks are refused unless
    // ignored, as `rarity predict --unknown` (issue 51 item 13).
    let native = ["--categorical", "native", "--truth", "class"];
    let (code, _, err) = select(&d, &t, learners, &native);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--unknown ignore"), "{err}");
    let v = select_json(
        &d,
        &t,
        learners,
        &[
            "--categorical",
            "native",
            "--truth",
            "class",
            "--unknown",
            "ignore",
        ],
    );
    let truth = v["true_ranking"].to_string();
    assert!(truth.contains("tree") && truth.contains("gbdt"), "{truth}");
    // A learner that reads codes as numbers, and target statistics (a
    // strategy's stage, not a learner's), are refused by name.
    let native_ignored = ["--categorical", "native", "--unknown", "ignore"];
    let (code, _, err) = select(&d, &t, "tree,logistic", &native_ignored);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("learner logistic") && err.contains("'shop'"),
        "{err}"
    );
    let target = ["--categorical", "target", "--unknown", "ignore"];
    let (code, _, err) = select(&d, &t, learners, &target);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--categorical target"), "{err}");
    let one = [
        "--categorical",
        "native",
        "--categorical-cols",
        "shop=target",
        "--unknown",
        "ignore",
    ];
    let (code, _, err) = select(&d, &t, learners, &one);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("COL=target"), "{err}");
}
