//! Small real datasets compiled into the binary, usable by name anywhere a
//! file is accepted (`--dataset pima`). The CSV files live in `data/` with
//! their sources in `data/README.md`: KEEL imbalanced collection (Alcalá-Fdez
//! et al. 2011) and the UCI repository (Dua & Graff).

use super::read::{read_from, Format, ReadOptions, ReadReport, Table};
use super::Dataset;
use crate::error::{Error, Result};

/// A dataset shipped inside rarity.
#[derive(Debug, Clone, Copy)]
pub struct Bundled {
    /// The name used with `--dataset`.
    pub name: &'static str,
    /// `binary` or `multiclass`.
    pub kind: &'static str,
    /// Where it comes from.
    pub source: &'static str,
    /// The CSV text (header row, numeric features, last column `class`).
    pub csv: &'static [u8],
}

macro_rules! bundled {
    ($name:literal, $kind:literal, $source:literal) => {
        Bundled {
            name: $name,
            kind: $kind,
            source: $source,
            csv: include_bytes!(concat!("../../data/", $name, ".csv")),
        }
    };
}

/// Every bundled dataset, binary first.
pub const BUNDLED: &[Bundled] = &[
    bundled!("pima", "binary", "KEEL (UCI Pima Indians Diabetes)"),
    bundled!("wisconsin", "binary", "KEEL (UCI Breast Cancer Wisconsin)"),
    bundled!("ecoli4", "binary", "KEEL imbalanced (UCI Ecoli)"),
    bundled!("glass6", "binary", "KEEL imbalanced (UCI Glass)"),
    bundled!("yeast4", "binary", "KEEL imbalanced (UCI Yeast)"),
    bundled!("vowel0", "binary", "KEEL imbalanced (UCI Vowel)"),
    bundled!(
        "page-blocks-1-3_vs_4",
        "binary",
        "KEEL imbalanced (UCI Page Blocks)"
    ),
    bundled!("abalone9_18", "binary", "KEEL imbalanced (UCI Abalone)"),
    bundled!("flare-F", "binary", "KEEL imbalanced (UCI Solar Flare)"),
    bundled!("car_good", "binary", "KEEL imbalanced (UCI Car Evaluation)"),
    bundled!(
        "contraceptive",
        "multiclass",
        "KEEL (UCI Contraceptive Method Choice)"
    ),
    bundled!("dermatology", "multiclass", "KEEL (UCI Dermatology)"),
    bundled!("balance", "multiclass", "KEEL (UCI Balance Scale)"),
    bundled!(
        "newthyroid",
        "multiclass",
        "KEEL (UCI Thyroid, new-thyroid)"
    ),
    bundled!("glass", "multiclass", "UCI Glass Identification"),
];

/// The dataset `rarity run` uses when given no file: yeast4, 51 positives
/// in 1,484 rows (imbalance ratio 28), so that the first run looks like a
/// rare-class problem (fraud, defects) rather than Pima's 35% positives.
pub const DEFAULT: &str = "yeast4";

/// Why `rarity run` without data runs on [`DEFAULT`], as its output says.
pub const DEFAULT_WHY: &str = "no data given: the bundled yeast4 (UCI Yeast, ME2 against the \
    rest), 51 positives in 1,484 rows, imbalance ratio 28: rare like fraud or defects. Give \
    your own FILE (or --dataset NAME, see `rarity datasets`)";

/// Looks a bundled dataset up by name.
///
/// ```
/// let b = rarity::data::bundled::find("pima").unwrap();
/// assert_eq!(b.kind, "binary");
/// assert!(rarity::data::bundled::find("nope").is_err());
/// ```
pub fn find(name: &str) -> Result<&'static Bundled> {
    BUNDLED.iter().find(|b| b.name == name).ok_or_else(|| {
        Error::invalid(format!(
            "no bundled dataset '{name}'; bundled: {}",
            BUNDLED
                .iter()
                .map(|b| b.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

impl Bundled {
    /// Parses the dataset with the given options.
    ///
    /// ```
    /// use rarity::data::{bundled, read::ReadOptions};
    /// let (ds, _) = bundled::find("ecoli4").unwrap().load(&ReadOptions::default()).unwrap();
    /// assert_eq!(ds.class_counts(), vec![316, 20]);
    /// ```
    pub fn load(&self, opts: &ReadOptions) -> Result<(Dataset, ReadReport)> {
        let origin = format!("<dataset {}>", self.name);
        read_from(self.csv, &origin, Format::Csv, self.csv.len() as u64, opts)
    }

    /// The dataset as an opened table (for streamed reading).
    pub fn table(&self, opts: &ReadOptions) -> Result<Table<'static>> {
        let origin = format!("<dataset {}>", self.name);
        Table::from_stream(Box::new(self.csv), &origin, Format::Csv, opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_set_parses_with_its_kind() {
        for b in BUNDLED {
            let (ds, rep) = b.load(&ReadOptions::default()).unwrap();
            assert_eq!(rep.dropped_missing, 0, "{}", b.name);
            assert_eq!(ds.n_classes() == 2, b.kind == "binary", "{}", b.name);
            if b.kind == "binary" {
                let c = ds.class_counts();
                assert!(c[1] <= c[0], "{}: class 1 must be the minority", b.name);
            }
        }
    }

    #[test]
    fn bundle_is_small() {
        let total: usize = BUNDLED.iter().map(|b| b.csv.len()).sum();
        assert!(total < 2 * 1024 * 1024, "bundle is {total} bytes");
    }
}
