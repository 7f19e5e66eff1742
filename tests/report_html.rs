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

/// Renders `page` headless in a 1,200 x 900 px window and returns the DOM
/// after loading.
fn dump_dom(browser: &Path, page: &Path, profile: &Path) -> String {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--hide-scrollbars",
            "--window-size=1200,900",
            "--virtual-time-budget=5000",
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
        "ranking_details",
        "decisions",
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
    // A spec longer than 24 characters: figures use M1, M1.1, ... and a legend.
    let labels = std::fs::read_to_string(dir.join("tables/labels.csv")).unwrap();
    assert!(labels.starts_with("label,spec\nM1,"), "{labels}");
    assert!(labels.contains("under(ratio=1)+forest(n=5)+correct+threshold(priors)"));
    // The ranking metric (average precision ranks models) comes first.
    assert!(
        ranking.starts_with("rank,label,model,average_precision_mean,average_precision_std,"),
        "{ranking}"
    );
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
    assert!(dom.contains("rarity run: models ranked by"), "{dom}");
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

/// Measures what a reader of `page` sees in a 1,200 px window: a copy of the
/// page with a script that writes the layout facts into the DOM as JSON.
fn layout(browser: &Path, page: &Path, profile: &Path, metric_column: &str) -> serde_json::Value {
    const PROBE: &str = r#"<script>
(function () {
  const out = {};
  out.viewport = window.innerWidth;
  const wrap = document.getElementById("table-ranking");
  const ths = Array.from(wrap.querySelectorAll("th"));
  const th = ths.find(t => t.textContent === "METRIC");
  out.ranking_width = [wrap.scrollWidth, wrap.clientWidth];
  out.metric_column = ths.indexOf(th);
  out.metric_right = th ? th.getBoundingClientRect().right : -1;
  out.ranking_scrolls = wrap.scrollWidth > wrap.clientWidth;
  out.wrapped = [];
  for (const td of document.querySelectorAll("td.txt")) {
    const r = document.createRange();
    r.selectNodeContents(td);
    const lines = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top)));
    if (lines.size > 1) out.wrapped.push(td.textContent);
  }
  const body = document.body.getBoundingClientRect().width;
  out.content = body;
  out.figures = Array.from(document.querySelectorAll("figure")).map(f => {
    const svg = f.querySelector("svg");
    return { title: svg.querySelector("title").textContent,
             width: svg.getBoundingClientRect().width,
             natural: svg.viewBox.baseVal.width,
             right: svg.getBoundingClientRect().right };
  });
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"#;
    let html = std::fs::read_to_string(page).unwrap();
    let probe = page.with_file_name("probe.html");
    let script = PROBE.replace("METRIC", metric_column);
    std::fs::write(&probe, html.replace("</body>", &format!("{script}</body>"))).unwrap();
    let dom = dump_dom(browser, &probe, profile);
    let json = dom
        .split("<pre id=\"probe\">")
        .nth(1)
        .and_then(|r| r.split("</pre>").next())
        .unwrap_or_else(|| panic!("the probe did not run: {dom}"));
    serde_json::from_str(&json.replace("&quot;", "\"").replace("&amp;", "&")).unwrap()
}

#[test]
fn run_report_reads_well_in_a_1200px_window() {
    // Issue 17, items 18-20, checked on the page Chromium lays out.
    let d = scratch("report-layout");
    let dir = d.join("report");
    let out = d.join("w.rarity").to_string_lossy().into_owned();
    let (code, _, err) = run(&[
        "run",
        "--dataset",
        "glass6",
        "--cv",
        "2x3",
        "-m",
        "rb-bagging(n=5)+correct(mode=average)+threshold(priors)",
        "-m",
        "under(ratio=1)+forest(n=5)+correct+threshold(priors)",
        "-m",
        "smote-bagging(n=5)+correct(mode=average)+threshold(0.5)",
        "-m",
        "logistic+platt",
        "-m",
        "tree(max_depth=3)",
        "--cost",
        "fn=5,fp=1",
        "--metric",
        "cost",
        "--report",
        &dir.to_string_lossy(),
        "-o",
        &out,
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    let page = dir.join("index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    // Item 20: one number format. No p-value rounded to zero, no long
    // decimals in the page (the CSV keeps full precision).
    assert!(!html.contains("0.00e0"), "a p-value written as 0.00e0");
    let verdict = std::fs::read_to_string(dir.join("tables/verdict.json")).unwrap();
    assert!(verdict.contains("mean_rank"));
    let digits = html
        .split(['>', '<', ' ', '(', ')'])
        .filter(|t| {
            t.starts_with("0.") && t.len() > 7 && t[2..].chars().all(|c| c.is_ascii_digit())
        })
        .count();
    assert_eq!(
        digits, 0,
        "numbers with more than 3 significant digits in the page"
    );
    // Item 19: reliability markers sized by bin counts, legends say pooled.
    assert!(
        html.contains(": n = "),
        "no bin counts on the reliability markers"
    );
    assert!(html.contains("pooled AUC") && html.contains("pooled AP"));
    // Item 2: the curves show distinct models.
    let bins = std::fs::read_to_string(dir.join("tables/reliability.csv")).unwrap();
    let mut models: Vec<&str> = bins
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    models.dedup();
    assert_eq!(models.len(), 3, "{bins}");
    let mut sorted = models.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 3, "the same model drawn twice: {models:?}");

    let Some(browser) = chromium() else {
        eprintln!(
            "SKIPPED: chromium not found (looked for chromium, chromium-browser, google-chrome \
             on PATH); the layout of the report was not checked"
        );
        return;
    };
    let l = layout(&browser, &page, &d.join("profile"), "cost_mean");
    let viewport = l["viewport"].as_f64().unwrap();
    assert_eq!(viewport, 1200.0, "{l}");
    // Item 18: the ranking metric's column is first after the names and
    // inside the window; the main table needs no sideways scrolling.
    assert_eq!(l["metric_column"], 3, "{l}");
    let right = l["metric_right"].as_f64().unwrap();
    assert!(
        right > 0.0 && right <= viewport,
        "cost column at {right} px: {l}"
    );
    assert_eq!(l["ranking_scrolls"], false, "{l}");
    // No strategy name wraps.
    assert!(l["wrapped"].as_array().unwrap().is_empty(), "wrapped: {l}");
    // Item 20: figures use the page's width: none is shrunk below its
    // drawing nor pushed out of the window, and the curves fill their half.
    let content = l["content"].as_f64().unwrap();
    for f in l["figures"].as_array().unwrap() {
        let (w, natural) = (f["width"].as_f64().unwrap(), f["natural"].as_f64().unwrap());
        assert!(w >= natural.min(content) - 1.0, "{f} shrunk");
        assert!(f["right"].as_f64().unwrap() <= viewport, "{f} off screen");
        if f["title"].as_str().unwrap().starts_with("ROC") {
            assert!(
                w >= 0.45 * content,
                "{f} leaves the page half empty ({content} px)"
            );
        }
    }
}

/// The colour of each of p, p_s and p' in every figure of `html`: legend
/// entries of line plots and boxes of box plots, as (quantity, colour).
fn probability_colours(html: &str) -> Vec<(&'static str, String)> {
    let quantity = |name: &str| {
        let name = name.replace("&#39;", "'");
        if name.contains("p_s") || name.contains("p̂_s") {
            Some("p_s")
        } else if name.contains("p'") || name.contains("p̂'") {
            Some("p'")
        } else if name.starts_with("p (") {
            Some("p")
        } else {
            None
        }
    };
    let attr = |line: &str, key: &str| {
        line.split(&format!("{key}=\""))
            .nth(1)
            .map(|r| r.split('"').next().unwrap().to_string())
    };
    let mut found = Vec::new();
    let (mut legend, mut pending): (Option<String>, Option<&'static str>) = (None, None);
    for line in html.lines() {
        if line.starts_with("<line") && line.contains("stroke-width=\"2.5\"") {
            legend = attr(line, "stroke");
        } else if line.starts_with("<text") {
            let text = line
                .split('>')
                .nth(1)
                .unwrap_or("")
                .split('<')
                .next()
                .unwrap_or("");
            match (quantity(text), legend.take()) {
                (Some(q), Some(c)) => found.push((q, c)),
                (Some(q), None) => pending = Some(q),
                _ => {}
            }
        } else if line.starts_with("<rect") && line.contains("fill-opacity=\"0.25\"") {
            if let (Some(q), Some(c)) = (pending.take(), attr(line, "stroke")) {
                found.push((q, c));
            }
        }
    }
    found
}

#[test]
fn p_p_s_and_p_corrected_keep_their_colour_in_every_figure() {
    // Issue 17, item 20, on the calibration experiment's report.
    use rarity::data::{bundled, read::ReadOptions};
    use rarity::experiment::calibration::{gaussian_curves, run_cell, table_v, CalibrationConfig};
    use rarity::experiment::experiment_report::calibration_report;
    let (ds, _) = bundled::find("ecoli4")
        .unwrap()
        .load(&ReadOptions::default())
        .unwrap();
    let cfg = CalibrationConfig {
        levels: vec![1.0, 0.5],
        splitter: "1x2".parse().unwrap(),
        seed: 3,
    };
    let l = rarity::spec::build_learner("forest(n=5)").unwrap();
    let cells = vec![run_cell("ecoli4", &ds, "forest(n=5)", &l, &cfg).unwrap()];
    let (rows, wins) = table_v(&cells).unwrap();
    let curves = vec![gaussian_curves(3.0, &l, 1).unwrap()];
    let html = calibration_report(&cells, &rows, &wins, &curves, "forest(n=5)", &[]).to_html();
    let found = probability_colours(&html);
    for q in ["p", "p_s", "p'"] {
        let colours: Vec<&String> = found.iter().filter(|f| f.0 == q).map(|f| &f.1).collect();
        assert!(
            colours.len() >= 3,
            "{q} drawn {} times: {found:?}",
            colours.len()
        );
        assert!(
            colours.iter().all(|c| *c == colours[0]),
            "{q} changes colour: {found:?}"
        );
    }
    let first = |q: &str| found.iter().find(|f| f.0 == q).unwrap().1.clone();
    assert!(first("p") != first("p_s") && first("p_s") != first("p'") && first("p") != first("p'"));
}
