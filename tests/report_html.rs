//! `rarity run --report DIR` and `rarity experiment pt-bagging --report DIR`
//! end to end: the report's files, and the page rendered by headless
//! Chromium (skipped, saying so, without Chromium).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{run, scratch};

/// The first Chromium-like browser on the PATH.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
}

/// Renders `page` headless and returns the DOM after loading.
fn dump_dom(browser: &Path, page: &Path, profile: &Path) -> String {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            &format!("--user-data-dir={}", profile.display()),
            "--dump-dom",
        ])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium starts");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn run_report_writes_a_self_contained_page_that_renders() {
    let d = scratch("report-html");
    let dir = d.join("report");
    let out = d.join("w.rarity").to_string_lossy().into_owned();
    let (code, text, err) = run(&[
        "run",
        "--dataset",
        "glass6",
        "--cv",
        "1x3",
        "-m",
        "tree(max_depth=2)",
        "-m",
        "forest(n=5)+threshold(priors)",
        "-m",
        "under(ratio=1)+forest(n=5)+correct+threshold(priors)",
        "--report",
        &dir.to_string_lossy(),
        "-o",
        &out,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("report written to"), "{text}");
    let page = dir.join("index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: no scripts, links or remote resources.
    for bad in ["<script", "<link", "src=", "https://", "@import", "url("] {
        assert!(!html.contains(bad), "index.html contains {bad}");
    }
    // CD diagram, ROC, PR, reliability, two box plots, recall bars.
    assert!(html.matches("<svg").count() >= 7, "too few plots");
    for t in [
        "ranking",
        "labels",
        "folds",
        "verdict",
        "reliability",
        "recall_per_class",
    ] {
        let csv = std::fs::read_to_string(dir.join(format!("tables/{t}.csv"))).unwrap();
        assert!(csv.lines().count() >= 2, "{t}.csv is empty");
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("tables/{t}.json"))).unwrap(),
        )
        .unwrap();
        assert!(!json.as_array().unwrap().is_empty(), "{t}.json is empty");
    }
    let ranking = std::fs::read_to_string(dir.join("tables/ranking.csv")).unwrap();
    // A spec longer than 24 characters: figures use #1, #2, ... and a legend.
    let labels = std::fs::read_to_string(dir.join("tables/labels.csv")).unwrap();
    assert!(labels.starts_with("label,strategy\n#1,"), "{labels}");
    assert!(labels.contains("under(ratio=1)+forest(n=5)+correct+threshold(priors)"));
    assert!(ranking.starts_with("rank,strategy,roc_auc_mean,roc_auc_std,"));
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .chain(std::fs::read_dir(dir.join("tables")).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    let Some(browser) = chromium() else {
        eprintln!(
            "SKIPPED: chromium not found (looked for chromium, chromium-browser, google-chrome \
             on PATH); the report was checked without rendering it"
        );
        return;
    };
    let dom = dump_dom(&browser, &page, &d.join("profile"));
    assert!(dom.contains("rarity run: strategies ranked by"), "{dom}");
    assert!(
        dom.matches("<svg").count() >= 7,
        "plots missing from the DOM"
    );
    assert!(dom.contains("<polyline"), "curves missing from the DOM");
    assert!(
        dom.contains("<table>") && dom.contains("<td"),
        "tables missing"
    );
    assert!(dom.contains("forest(n=5)+threshold(priors)"));
    assert!(dom.contains("</html>"));
}

#[test]
fn experiment_report_renders() {
    let d = scratch("report-html-experiment");
    let dir = d.join("report");
    let (code, _, err) = run(&[
        "experiment",
        "pt-bagging",
        "--sizes",
        "2,5",
        "--cv",
        "1x2",
        "-q",
        "--report",
        &dir.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{err}");
    let page = dir.join("index.html");
    assert!(page.is_file());
    let Some(browser) = chromium() else {
        eprintln!(
            "SKIPPED: chromium not found (looked for chromium, chromium-browser, google-chrome \
             on PATH); the experiment report was not rendered"
        );
        return;
    };
    let dom = dump_dom(&browser, &page, &d.join("profile"));
    assert!(dom.contains("rarity experiment pt-bagging"), "{dom}");
    // Three trend plots, three CD diagrams, recall and multiclass bars.
    assert!(
        dom.matches("<svg").count() >= 8,
        "plots missing from the DOM"
    );
    assert!(dom.contains("<polyline") && dom.contains("Critical-difference diagram"));
    assert!(dom.contains("UnderOver a=100") && dom.contains("</html>"));
}
