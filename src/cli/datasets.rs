//! `rarity datasets`: the bundled datasets with their shape and imbalance.

use serde::Serialize;

use super::output::{num, print_json, write_stdout, Table};
use super::{Global, OutputFormat};
use rarity::data::bundled::BUNDLED;
use rarity::data::read::ReadOptions;
use rarity::error::Result;

#[derive(Serialize)]
struct Entry {
    name: &'static str,
    kind: &'static str,
    n: usize,
    d: usize,
    class_counts: Vec<usize>,
    imbalance_ratio: f64,
    source: &'static str,
}

pub fn run(g: &Global) -> Result<()> {
    let mut entries = Vec::new();
    for b in BUNDLED {
        let (ds, _) = b.load(&ReadOptions::default())?;
        entries.push(Entry {
            name: b.name,
            kind: b.kind,
            n: ds.n_rows(),
            d: ds.n_features(),
            class_counts: ds.class_counts(),
            imbalance_ratio: ds.imbalance_ratio(),
            source: b.source,
        });
    }
    if g.format == OutputFormat::Json {
        return print_json(&entries);
    }
    let mut t = Table::new(&["name", "kind", "n", "d", "class counts", "IR", "source"]);
    for e in &entries {
        t.text_row(vec![
            e.name.to_string(),
            e.kind.to_string(),
            e.n.to_string(),
            e.d.to_string(),
            e.class_counts
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("/"),
            num(e.imbalance_ratio, 2),
            e.source.to_string(),
        ]);
    }
    write_stdout(&t.to_text())
}
