//! The one set of reading rules, whatever the format: which source column is
//! the target, which are features, identifiers or dropped ([`Layout`]); how
//! each feature column is read (a number, a categorical level, or, for CSV
//! with `--categorical one-hot`, whichever its values turn out to be); how
//! rows arrive in [`Block`]s from any format; and how blocks are gathered
//! ([`Collector`]) into a [`Dataset`] whose [`Schema`] keeps the one-hot
//! level mapping.
//!
//! Blocks hold one `f64` per feature column ("slots", in source order); a
//! categorical value is held as its level code inside a quiet NaN (real
//! values are always finite), so that one buffer carries both kinds and
//! the one-hot expansion happens once, when the levels are all known.
//! Codes are first-seen ids of the block's own [`Interner`] until the
//! collector maps them to its global ones (blocks are parsed in parallel).

use std::collections::{BTreeMap, HashMap};

use super::labels::Interner;
use super::number::number;
use super::{parse_err, Categorical, KeyKind, Missing, ReadOptions, ReadReport};
use crate::data::{ColumnEncoding, Dataset, Schema};
use crate::error::{did_you_mean, Error, Result};

/// The most levels a one-hot encoded column may have.
pub const MAX_LEVELS: usize = 50;

const CODE_TAG: u64 = 0x7FFC_0000_0000_0000;
const CODE_MASK: u64 = 0xFFFF_FFFF_0000_0000;

/// A level code as a feature value (a quiet NaN carrying the code).
#[inline]
pub(crate) fn code(c: u32) -> f64 {
    f64::from_bits(CODE_TAG | u64::from(c))
}

/// The level code a feature value carries, if it is one.
#[inline]
pub(crate) fn code_of(v: f64) -> Option<u32> {
    let b = v.to_bits();
    (b & CODE_MASK == CODE_TAG).then_some(b as u32)
}

/// The code of a level a model does not know (`--unknown ignore`).
pub(crate) const UNKNOWN: u32 = u32::MAX;

/// What a source column is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Not read (dropped, or not used by the model).
    Skip,
    /// The class label.
    Target,
    /// Feature slot `s`.
    Feature(usize),
    /// Identifier column `i` (carried to predictions).
    Id(usize),
    /// Not read, but a missing value drops the row (a counting pass).
    Check,
}

/// How a feature slot's values are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A number; text is an error.
    Number,
    /// A categorical level.
    Level,
    /// CSV with `--categorical one-hot`: levels while the column has at
    /// most [`MAX_LEVELS`] distinct values, decided at the end (numeric if
    /// every value is a number).
    Either,
    /// A categorical column kept as level codes (declared, a string column
    /// with `--categorical native|target`, or a model's categorical
    /// column): levels with no limit on their count, codes in sorted order
    /// of the level texts. Predicting, a level the model does not know is
    /// counted as a one-hot column's is (NaN with `--unknown ignore`), and a
    /// missing value follows the slot's `missing_ok`.
    Category,
    /// CSV with `--categorical native|target`: numbers when the first
    /// [`MAX_LEVELS`] + 1 distinct values all are (or every value is),
    /// otherwise a [`Kind::Category`].
    NumberOrCategory,
    /// A time key ([`KeyKind::Time`](super::KeyKind::Time)): numbers, or
    /// ISO 8601 texts as seconds since 1970.
    Time,
    /// A group key ([`KeyKind::Group`](super::KeyKind::Group)): levels with
    /// no limit on their count, numbers when all are, else numbered in
    /// sorted order; never one-hot.
    Group,
}

/// One feature column.
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    /// The source column's name.
    pub name: String,
    /// How values are read.
    pub kind: Kind,
    /// Levels fixed in advance (KEEL/ARFF declarations, a model's schema):
    /// text to code; others are unknown.
    pub fixed: Option<HashMap<Vec<u8>, u32>>,
    /// The fixed levels in order.
    pub fixed_levels: Vec<String>,
    /// A missing value is read as NaN instead of dropping the row or
    /// failing: training with [`Missing::Keep`] (every feature but a
    /// `--cv` key), predicting a column whose missing values the model
    /// takes.
    pub missing_ok: bool,
}

/// What to do with a level a model has not seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unknown {
    /// Fail, counting the rows and listing the levels (the default).
    #[default]
    Error,
    /// Encode the row's column as all zeros.
    Ignore,
}

/// Which source column does what, and how values are read.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// Names the source in messages.
    pub origin: String,
    /// The source's column names.
    pub names: Vec<String>,
    /// One role per source column.
    pub roles: Vec<Role>,
    /// The feature slots, in source order.
    pub slots: Vec<Slot>,
    /// Names of the identifier columns, in the order asked for.
    pub id_names: Vec<String>,
    /// The target's source column (`None` when predicting).
    pub target: Option<usize>,
    /// Rows with a missing value: dropped or an error.
    pub missing: Missing,
    /// Decimal separator of numbers (`.` or `,`).
    pub decimal: u8,
    /// Whether an error for text in a numeric column suggests
    /// `--categorical one-hot`.
    pub suggest_one_hot: bool,
    /// Levels a model has not seen.
    pub unknown: Unknown,
}

/// Finds column `want` among `names` (exact, else case-insensitive), or
/// says which names are close.
pub(crate) fn find_column(names: &[String], want: &str, what: &str, origin: &str) -> Result<usize> {
    if let Some(i) = names.iter().position(|n| n == want) {
        return Ok(i);
    }
    let folded: Vec<usize> = (0..names.len())
        .filter(|&i| names[i].eq_ignore_ascii_case(want))
        .collect();
    if let [i] = folded[..] {
        return Ok(i);
    }
    Err(Error::invalid(format!(
        "{origin}: {what} '{want}' not found;{} columns are: {}",
        did_you_mean(want, names.iter().map(String::as_str))
            .map_or(String::new(), |m| format!(" did you mean '{m}'?")),
        names.join(", ")
    )))
}

/// Column `want` among `names`: exact, else the one name equal to it
/// ignoring ASCII case.
fn locate(names: &[String], want: &str) -> Option<usize> {
    names.iter().position(|n| n == want).or_else(|| {
        let mut folded = (0..names.len()).filter(|&i| names[i].eq_ignore_ascii_case(want));
        match (folded.next(), folded.next()) {
            (Some(i), None) => Some(i),
            _ => None,
        }
    })
}

/// The position in `names` of each column a model uses (`wanted`), or an
/// error listing every missing one with the model's columns, suggesting a
/// name only when a column the model does not use is close to it (and not
/// merely another number: `V1` is no spelling of `V5`).
pub(crate) fn model_columns(names: &[String], wanted: &[&str], origin: &str) -> Result<Vec<usize>> {
    let at: Vec<Option<usize>> = wanted.iter().map(|w| locate(names, w)).collect();
    let missing: Vec<&str> = wanted
        .iter()
        .zip(&at)
        .filter(|(_, j)| j.is_none())
        .map(|(w, _)| *w)
        .collect();
    if missing.is_empty() {
        return Ok(at.into_iter().flatten().collect());
    }
    let used: Vec<usize> = at.iter().flatten().copied().collect();
    let spare: Vec<&str> = (0..names.len())
        .filter(|j| !used.contains(j))
        .map(|j| names[j].as_str())
        .collect();
    let hints: Vec<String> = missing
        .iter()
        .filter_map(|m| {
            let others = spare.iter().copied().filter(|c| !only_numbers_differ(m, c));
            did_you_mean(m, others).map(|c| format!("'{c}' for '{m}'"))
        })
        .collect();
    let hint = if hints.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", hints.join(", "))
    };
    Err(Error::data(format!(
        "{origin}: the model needs {} column(s) that the data does not have: {}{hint}; \
         the model uses {}; the data has {}",
        missing.len(),
        name_list(&missing),
        name_list(wanted),
        name_list(&names.iter().map(String::as_str).collect::<Vec<_>>()),
    )))
}

/// Names quoted and joined, the first 20 and how many more.
fn name_list(names: &[&str]) -> String {
    const SHOWN: usize = 20;
    let mut out: Vec<String> = names.iter().take(SHOWN).map(|n| format!("'{n}'")).collect();
    if names.len() > SHOWN {
        out.push(format!("and {} more", names.len() - SHOWN));
    }
    out.join(", ")
}

/// Whether `a` and `b` are the same apart from their digits (`V5`, `V1`):
/// numbered columns, not one spelling of the other.
fn only_numbers_differ(a: &str, b: &str) -> bool {
    let letters = |s: &str| -> String {
        s.chars()
            .filter(|c| !c.is_ascii_digit())
            .flat_map(char::to_lowercase)
            .collect()
    };
    a.chars().any(|c| c.is_ascii_digit()) && letters(a) == letters(b)
}

/// Fails when two columns share a name: every later one would be read as
/// the first wherever columns are found by name (`--drop`, `--target`, a
/// model's columns). The message names each duplicate with its positions.
pub(crate) fn check_unique_names<S: AsRef<str>>(names: &[S], origin: &str) -> Result<()> {
    let mut seen: HashMap<&str, Vec<usize>> = HashMap::with_capacity(names.len());
    let mut order = Vec::new();
    for (j, n) in names.iter().enumerate() {
        let at = seen.entry(n.as_ref()).or_default();
        if at.len() == 1 {
            order.push(n.as_ref());
        }
        at.push(j + 1);
    }
    if order.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = order
        .iter()
        .take(10)
        .map(|n| {
            let at: Vec<String> = seen[n].iter().map(usize::to_string).collect();
            format!(
                "'{}' (columns {})",
                super::quote::quoted(n.as_bytes()),
                at.join(", ")
            )
        })
        .collect();
    let more = if order.len() > 10 {
        format!(" and {} more", order.len() - 10)
    } else {
        String::new()
    };
    Err(parse_err(
        origin,
        format!(
            "duplicate column names: {}{more}; every column needs its own name (columns \
             are found by name, so a repeated one would read the first): rename them in \
             the header (or in the table given)",
            list.join(", ")
        ),
    ))
}

/// Resolves a target spec (name, or 0-based index, `-1` = last; default:
/// last) against the column names.
pub(crate) fn resolve_target(spec: Option<&str>, names: &[String], origin: &str) -> Result<usize> {
    let Some(spec) = spec else {
        return names
            .len()
            .checked_sub(1)
            .ok_or_else(|| parse_err(origin, "no columns"));
    };
    if let Some(i) = names.iter().position(|n| n == spec) {
        return Ok(i);
    }
    if let Ok(i) = spec.parse::<i64>() {
        let n = names.len() as i64;
        let idx = if i < 0 { n + i } else { i };
        if (0..n).contains(&idx) {
            return Ok(idx as usize);
        }
    }
    find_column(names, spec, "target column", origin)
}

/// The source column of `opts.key` with the kind it is read as; an error
/// when it is missing, the target or dropped.
fn key_column(
    names: &[String],
    opts: &ReadOptions,
    target: usize,
    drop: &[usize],
    origin: &str,
) -> Result<Option<(usize, Kind)>> {
    let Some(key) = &opts.key else {
        return Ok(None);
    };
    let (what, kind) = match key.kind {
        KeyKind::Time => ("time column", Kind::Time),
        KeyKind::Group => ("group column", Kind::Group),
    };
    let j = find_column(names, &key.name, what, origin)?;
    feature_column(names, j, target, drop, what, origin)?;
    Ok(Some((j, kind)))
}

/// Fails when column `j`, named as a `what`, is the target or dropped.
fn feature_column(
    names: &[String],
    j: usize,
    target: usize,
    drop: &[usize],
    what: &str,
    origin: &str,
) -> Result<()> {
    if j == target || drop.contains(&j) {
        return Err(Error::invalid(format!(
            "{origin}: the {what} '{}' is {}",
            names[j],
            if j == target {
                "the target column"
            } else {
                "left out with --drop"
            }
        )));
    }
    Ok(())
}

/// The columns of `opts.categorical_cols` and `opts.column_modes` with
/// the kind each is read as, checked against `names`: an error when one is
/// missing, the target, dropped or named twice.
fn declared_categorical(
    names: &[String],
    opts: &ReadOptions,
    target: usize,
    drop: &[usize],
    origin: &str,
) -> Result<Vec<(usize, Kind)>> {
    // A plain name is level codes, in whatever mode the table is read.
    let plain = opts.categorical_cols.iter().map(|c| (c, None));
    let moded = opts.column_modes.iter().map(|(c, m)| (c, Some(*m)));
    let mut declared: Vec<(usize, Kind)> = Vec::new();
    for (c, mode) in plain.chain(moded) {
        let what = "--categorical-cols column";
        let j = find_column(names, c, what, origin)?;
        feature_column(names, j, target, drop, what, origin)?;
        if declared.iter().any(|&(k, _)| k == j) {
            return Err(Error::invalid(format!(
                "{origin}: --categorical-cols names the column '{}' twice",
                names[j]
            )));
        }
        declared.push((j, mode.map_or(Kind::Category, declared_kind)));
    }
    Ok(declared)
}

/// How a column declared with `mode` is read, whatever its values.
fn declared_kind(mode: Categorical) -> Kind {
    match mode {
        Categorical::Error => Kind::Number,
        Categorical::OneHot => Kind::Level,
        Categorical::Native | Categorical::Target => Kind::Category,
    }
}

/// The columns of `opts.drop`, checked against `names`.
fn dropped(names: &[String], opts: &ReadOptions, origin: &str) -> Result<Vec<usize>> {
    opts.drop
        .iter()
        .map(|d| find_column(names, d, "--drop column", origin))
        .collect()
}

impl Layout {
    /// The layout of training data: `kinds[j]` is how column `j` is read
    /// when it is a feature (`None`: decided by `opts.categorical`, as CSV).
    pub(crate) fn train(
        names: Vec<String>,
        kinds: &[Option<Kind>],
        opts: &ReadOptions,
        origin: &str,
    ) -> Result<Layout> {
        check_unique_names(&names, origin)?;
        let target = resolve_target(opts.target.as_deref(), &names, origin)?;
        let drop = dropped(&names, opts, origin)?;
        if drop.contains(&target) {
            return Err(Error::invalid(format!(
                "{origin}: --drop names the target column '{}'",
                names[target]
            )));
        }
        let key = key_column(&names, opts, target, &drop, origin)?;
        let declared = declared_categorical(&names, opts, target, &drop, origin)?;
        let mut roles = Vec::with_capacity(names.len());
        let mut slots = Vec::new();
        for (j, name) in names.iter().enumerate() {
            if j == target {
                roles.push(Role::Target);
            } else if drop.contains(&j) {
                roles.push(Role::Skip);
            } else {
                let given = kinds.get(j).copied().flatten();
                let kind = match key {
                    // A key column's numbers (and a Parquet/IPC time) stay as the source types them.
                    Some((k, kind)) if k == j => match given {
                        Some(g @ (Kind::Number | Kind::Time)) => g,
                        _ => kind,
                    },
                    _ => match declared.iter().find(|&&(k, _)| k == j) {
                        Some(&(_, kind)) => kind,
                        None => given.unwrap_or(match opts.categorical {
                            Categorical::Error => Kind::Number,
                            Categorical::OneHot => Kind::Either,
                            Categorical::Native | Categorical::Target => Kind::NumberOrCategory,
                        }),
                    },
                };
                roles.push(Role::Feature(slots.len()));
                slots.push(Slot {
                    name: name.clone(),
                    kind,
                    fixed: None,
                    fixed_levels: Vec::new(),
                    missing_ok: opts.missing.keeps() && !matches!(kind, Kind::Time | Kind::Group),
                });
            }
        }
        if slots.is_empty() {
            return Err(parse_err(
                origin,
                format!(
                    "found {} column(s) and no feature left; need at least one feature and a target",
                    names.len()
                ),
            ));
        }
        Ok(Layout {
            origin: origin.to_string(),
            names,
            roles,
            slots,
            id_names: Vec::new(),
            target: Some(target),
            missing: opts.missing,
            decimal: opts.decimal,
            suggest_one_hot: opts.categorical == Categorical::Error,
            unknown: Unknown::Error,
        })
    }

    /// The same layout reading only the target (a counting pass); the
    /// features whose missing value drops the row are looked at for it.
    pub(crate) fn labels_only(&self) -> Layout {
        let mut l = self.clone();
        l.roles = l
            .roles
            .iter()
            .map(|&r| match r {
                Role::Feature(s) if self.slots[s].missing_ok => Role::Skip,
                Role::Feature(_) => Role::Check,
                r => r,
            })
            .collect();
        l.slots.clear();
        l
    }

    /// The layout of data to predict on: the columns of `schema`'s
    /// encodings (found by name, any order), numbers or the model's levels;
    /// `ids` carried along; everything else ignored. A missing value of the
    /// columns `missing_ok` marks (one flag per encoding; none when empty)
    /// is read as NaN, of the others an error.
    pub(crate) fn predict(
        names: Vec<String>,
        schema: &Schema,
        ids: &[String],
        unknown: Unknown,
        missing_ok: &[bool],
        decimal: u8,
        origin: &str,
    ) -> Result<Layout> {
        check_unique_names(&names, origin)?;
        let mut roles = vec![Role::Skip; names.len()];
        let mut slots = Vec::with_capacity(schema.encodings.len());
        let wanted: Vec<&str> = schema.encodings.iter().map(|e| e.name()).collect();
        let at = model_columns(&names, &wanted, origin)?;
        for (s, (e, j)) in schema.encodings.iter().zip(at).enumerate() {
            roles[j] = Role::Feature(s);
            let mut slot = match e {
                ColumnEncoding::Numeric { name } => Slot {
                    name: name.clone(),
                    kind: Kind::Number,
                    fixed: None,
                    fixed_levels: Vec::new(),
                    missing_ok: false,
                },
                ColumnEncoding::OneHot { name, levels } => Slot::fixed(name, levels),
                ColumnEncoding::Categorical { name, levels } => Slot {
                    kind: Kind::Category,
                    ..Slot::fixed(name, levels)
                },
            };
            slot.missing_ok = missing_ok.get(s).copied().unwrap_or(false);
            slots.push(slot);
        }
        for (i, id) in ids.iter().enumerate() {
            let j = find_column(&names, id, "--id column", origin)?;
            if roles[j] != Role::Skip {
                return Err(Error::invalid(format!(
                    "--id {id}: the column is given twice or is a feature of the model"
                )));
            }
            roles[j] = Role::Id(i);
        }
        Ok(Layout {
            origin: origin.to_string(),
            names,
            roles,
            slots,
            id_names: ids.to_vec(),
            target: None,
            missing: Missing::Error,
            decimal,
            suggest_one_hot: false,
            unknown,
        })
    }

    /// Whether the model's level table decides codes (predicting).
    pub(crate) fn predicting(&self) -> bool {
        self.target.is_none()
    }

    /// What a row missing the value of source column `column` becomes
    /// (a value that is not read as NaN): dropped and counted in `block`,
    /// or, with [`Missing::Error`] and when predicting, the error naming
    /// `line` and the column.
    pub(crate) fn drop_incomplete(
        &self,
        block: &mut Block,
        line: &str,
        column: usize,
    ) -> Result<()> {
        if self.missing == Missing::Error || self.predicting() {
            return Err(self.missing_error(line, column));
        }
        block.dropped += 1;
        if self.missing.keeps() {
            // Only a label or a --cv key is left to miss.
            block.dropped_label += 1;
        }
        Ok(())
    }

    /// The error for a missing value.
    pub(crate) fn missing_error(&self, line: &str, column: usize) -> Error {
        let owed = if self.predicting() {
            " (a prediction is owed for every row, and the model cannot take missing values \
             in this column: fit it with an impute(...) stage, or a learner that learns where \
             missing values go)"
        } else {
            ""
        };
        parse_err(
            &self.origin,
            format!(
                "{line}, column '{}': missing value{owed}",
                self.names[column]
            ),
        )
    }

    /// The error for text in a numeric column.
    pub(crate) fn not_a_number(&self, line: &str, column: usize, field: &[u8]) -> Error {
        let text = super::quote::quoted(field);
        let comma = self.decimal == b'.' && looks_like_decimal_comma(field);
        let hint = if comma {
            "; it looks like a decimal comma: use --decimal ,".to_string()
        } else if self.suggest_one_hot {
            "; read text with --categorical native or target (any number of levels) or \
             one-hot (at most 50), or --drop the column"
                .to_string()
        } else if self.predicting() {
            " (the model's column is numeric)".to_string()
        } else {
            String::new()
        };
        parse_err(
            &self.origin,
            format!(
                "{line}, column '{}': '{text}' is not a number{hint}",
                self.names[column]
            ),
        )
    }

    /// The value of a time key's field: a number, or an ISO 8601 date or
    /// date-time as seconds since 1970 ([`super::dates`]).
    pub(crate) fn time_value(&self, line: &str, column: usize, field: &[u8]) -> Result<f64> {
        super::dates::time_value(field, self.decimal).map_err(|why| {
            parse_err(
                &self.origin,
                format!("{line}, time column '{}': {why}", self.names[column]),
            )
        })
    }

    /// The error for a categorical column with too many levels (or, read
    /// as numbers or categories, with text after many numbers).
    pub(crate) fn too_many_levels(&self, slot: usize, example: Option<&str>) -> Error {
        let name = &self.slots[slot].name;
        let ex = example.map_or(String::new(), |e| {
            format!(", '{}' among them,", super::quote::quoted(e.as_bytes()))
        });
        if self.slots[slot].kind == Kind::NumberOrCategory {
            return Error::data(format!(
                "{}: column '{name}' holds numbers and text{ex} and was read as numbers; \
                 to read it as categories, declare it with --categorical-cols {name}",
                self.origin
            ));
        }
        Error::data(format!(
            "{}: column '{name}' has more than {MAX_LEVELS} distinct values{ex} too many to \
             one-hot encode; if it is a category with many levels (a merchant, a country), \
             keep it as one column of level codes with --categorical native; if it is an \
             identifier, leave it out with --drop {name} (rarity predict: --id {name} carries \
             it to the output)",
            self.origin
        ))
    }
}

impl Slot {
    /// A categorical slot whose levels are given.
    pub(crate) fn fixed(name: &str, levels: &[String]) -> Slot {
        Slot {
            name: name.to_string(),
            kind: Kind::Level,
            fixed: Some(
                levels
                    .iter()
                    .enumerate()
                    .map(|(i, l)| (l.as_bytes().to_vec(), i as u32))
                    .collect(),
            ),
            fixed_levels: levels.to_vec(),
            missing_ok: false,
        }
    }
}

/// `117,18`: digits, one comma, digits.
fn looks_like_decimal_comma(f: &[u8]) -> bool {
    let f = f.strip_prefix(b"-").unwrap_or(f);
    let Some(c) = f.iter().position(|&b| b == b',') else {
        return false;
    };
    c > 0
        && c + 1 < f.len()
        && f[..c].iter().all(u8::is_ascii_digit)
        && f[c + 1..].iter().all(u8::is_ascii_digit)
}

/// Rows read from one stretch of a source.
#[derive(Debug, Default)]
pub(crate) struct Block {
    /// One value per slot per row (level codes as [`code`]s).
    pub x: Vec<f64>,
    /// Raw label ids (this block's own until collected).
    pub labels: Vec<u32>,
    /// One text per identifier column per row.
    pub ids: Vec<String>,
    /// Data rows read, dropped ones included.
    pub rows_read: usize,
    /// Rows dropped for missing values.
    pub dropped: usize,
    /// Of those, rows dropped for a missing label or key while feature
    /// values are kept ([`Missing::Keep`]).
    pub dropped_label: usize,
    /// Feature values kept missing (NaN).
    pub kept_missing: usize,
    /// Lines the block spans (CSV).
    pub lines: u64,
    /// Input bytes the block spans (CSV; 0 when unknown).
    pub bytes: usize,
    /// The labels' own interner.
    pub label_dict: Interner,
    /// Per slot, its levels' own interner (slots with free levels).
    pub level_dicts: Vec<Interner>,
    /// Per slot: an `Either` slot that turned numeric in this block.
    pub numeric: Vec<bool>,
    /// Levels the model does not know: (slot, level) -> rows.
    pub unknown: BTreeMap<(usize, String), usize>,
    /// Rows with at least one unknown level.
    pub unknown_rows: usize,
}

impl Block {
    /// An empty block for `layout`.
    pub(crate) fn new(layout: &Layout) -> Block {
        let mut b = Block::default();
        b.reset(layout);
        b
    }

    /// Empties the block, keeping its buffers' allocations.
    pub(crate) fn reset(&mut self, layout: &Layout) {
        self.x.clear();
        self.labels.clear();
        self.ids.clear();
        self.rows_read = 0;
        self.dropped = 0;
        self.dropped_label = 0;
        self.kept_missing = 0;
        self.lines = 0;
        self.bytes = 0;
        self.label_dict.clear();
        self.level_dicts
            .resize_with(layout.slots.len(), Interner::default);
        self.level_dicts.iter_mut().for_each(Interner::clear);
        self.numeric.clear();
        self.numeric.resize(layout.slots.len(), false);
        self.unknown.clear();
        self.unknown_rows = 0;
    }

    /// Rows held.
    pub(crate) fn n_rows(&self) -> usize {
        self.rows_read - self.dropped
    }

    /// The level code of `raw` in slot `s` (interned, or looked up in the
    /// slot's fixed levels); `Err` with a message fragment when the value
    /// cannot be a level.
    #[inline]
    pub(crate) fn level(
        &mut self,
        layout: &Layout,
        s: usize,
        raw: &[u8],
        numeric_hint: bool,
    ) -> LevelOutcome {
        let slot = &layout.slots[s];
        if let Some(fixed) = &slot.fixed {
            // A level the model does not know, one-hot or categorical
            // (codes), is counted: an error unless `--unknown ignore`.
            return match fixed.get(raw) {
                Some(&c) => LevelOutcome::Code(c),
                None => {
                    let text = super::quote::quoted(raw);
                    *self.unknown.entry((s, text)).or_insert(0) += 1;
                    LevelOutcome::Unknown
                }
            };
        }
        let either = matches!(slot.kind, Kind::Either | Kind::NumberOrCategory);
        if either && (numeric_hint || self.numeric[s]) {
            return LevelOutcome::AsNumber;
        }
        match self.level_dicts[s].intern(raw) {
            None => LevelOutcome::NotUtf8,
            Some(c) if slot.kind == Kind::NumberOrCategory => {
                // Decided once, when the column first has too many levels
                // to be anything but numbers or categories.
                if c as usize == MAX_LEVELS && all_numbers(&self.level_dicts[s], layout.decimal) {
                    LevelOutcome::Overflow
                } else {
                    LevelOutcome::Code(c)
                }
            }
            Some(_)
                if self.level_dicts[s].len() > MAX_LEVELS
                    && !matches!(slot.kind, Kind::Group | Kind::Category) =>
            {
                if slot.kind == Kind::Either {
                    LevelOutcome::Overflow
                } else {
                    LevelOutcome::TooMany
                }
            }
            Some(c) => LevelOutcome::Code(c),
        }
    }

    /// Turns slot `s`'s codes into the numbers their texts are (an `Either`
    /// column with too many distinct values to be categorical); fails if
    /// one is not a number.
    pub(crate) fn convert_to_numbers(&mut self, layout: &Layout, s: usize) -> Result<()> {
        // No levels, no codes (a slot parsed as numbers from the start).
        if self.level_dicts[s].len() > 0 {
            let values = level_numbers(layout, s, &self.level_dicts[s])?;
            let m = layout.slots.len();
            for v in self.x.iter_mut().skip(s).step_by(m) {
                if let Some(c) = code_of(*v) {
                    *v = values[c as usize];
                }
            }
            self.level_dicts[s].clear();
        }
        self.numeric[s] = true;
        Ok(())
    }
}

/// What [`Block::level`] made of a value.
pub(crate) enum LevelOutcome {
    /// Its level code.
    Code(u32),
    /// A level the model does not know (counted in the block).
    Unknown,
    /// The slot reads numbers now: parse it as one.
    AsNumber,
    /// This value made the slot exceed [`MAX_LEVELS`]: turn the slot's
    /// codes into numbers, then parse it as one.
    Overflow,
    /// A categorical column with too many levels (the new code).
    TooMany,
    /// Not valid UTF-8.
    NotUtf8,
}

/// The numbers the level texts of slot `s` are; fails on one that is not.
fn level_numbers(layout: &Layout, s: usize, names: &Interner) -> Result<Vec<f64>> {
    names
        .names()
        .map(|t| match number(t.trim().as_bytes(), layout.decimal) {
            Ok(Some(v)) => Ok(v),
            _ => Err(layout.too_many_levels(s, Some(t))),
        })
        .collect()
}

/// Whether every level text of a slot is a number.
fn all_numbers(names: &Interner, decimal: u8) -> bool {
    names
        .names()
        .all(|t| matches!(number(t.trim().as_bytes(), decimal), Ok(Some(_))))
}

/// Maps the block-local level codes of slot `s` (rows of `m` values) to
/// the global ones (`map`).
fn globalise_codes(b: &mut Block, m: usize, s: usize, map: &[u32]) {
    for v in b.x.iter_mut().skip(s).step_by(m) {
        if let Some(c) = code_of(*v) {
            *v = code(map[c as usize]);
        }
    }
}

/// Gathers blocks into a dataset: labels and levels mapped to global ids in
/// block order, rows kept as a filter decides, counts reported.
pub(crate) struct Collector<'a> {
    layout: &'a Layout,
    labels: Interner,
    levels: Vec<Interner>,
    numeric: Vec<bool>,
    /// Per slot: a [`Kind::NumberOrCategory`] slot decided categorical.
    text: Vec<bool>,
    /// The kept rows' slot values.
    pub x: Vec<f64>,
    /// The kept rows' global raw label ids.
    pub y: Vec<u32>,
    /// Rows read and dropped so far.
    pub report: ReadReport,
}

impl<'a> Collector<'a> {
    /// An empty collector for `layout`.
    pub(crate) fn new(layout: &'a Layout) -> Self {
        Collector {
            layout,
            labels: Interner::default(),
            levels: vec![Interner::default(); layout.slots.len()],
            numeric: vec![false; layout.slots.len()],
            text: vec![false; layout.slots.len()],
            x: Vec::new(),
            y: Vec::new(),
            report: ReadReport {
                source: layout.origin.clone(),
                ..ReadReport::default()
            },
        }
    }

    /// Per slot, whether it reads numbers only from now on (a hint for the
    /// parsers of later blocks).
    pub(crate) fn numeric_slots(&self) -> &[bool] {
        &self.numeric
    }

    /// The label value of global id `id`.
    pub(crate) fn label_name(&self, id: usize) -> &str {
        self.labels.name(id)
    }

    /// The global labels with their counts.
    pub(crate) fn labels(&self) -> &Interner {
        &self.labels
    }

    /// Maps `b`'s labels and levels to the global ids (in place).
    pub(crate) fn globalise(&mut self, b: &mut Block) -> Result<()> {
        let map = self.labels.merge(&b.label_dict);
        b.labels.iter_mut().for_each(|l| *l = map[*l as usize]);
        let m = self.layout.slots.len();
        for s in 0..m {
            let slot = &self.layout.slots[s];
            if slot.fixed.is_some() || matches!(slot.kind, Kind::Number | Kind::Time) {
                continue;
            }
            if b.numeric[s] && !self.numeric[s] {
                self.go_numeric(s)?;
            }
            if self.numeric[s] {
                if !b.numeric[s] {
                    b.convert_to_numbers(self.layout, s)?;
                }
                continue;
            }
            let map = self.levels[s].merge(&b.level_dicts[s]);
            let settled = match slot.kind {
                Kind::Group | Kind::Category => true,
                Kind::NumberOrCategory => self.text[s],
                _ => false,
            };
            if self.levels[s].len() > MAX_LEVELS && !settled {
                if slot.kind == Kind::NumberOrCategory
                    && !all_numbers(&self.levels[s], self.layout.decimal)
                {
                    self.text[s] = true;
                    globalise_codes(b, m, s, &map);
                    continue;
                }
                if slot.kind != Kind::Either {
                    return Err(self.layout.too_many_levels(s, None));
                }
                // The block's codes are read as numbers.
                self.go_numeric(s)?;
                b.convert_to_numbers(self.layout, s)?;
                continue;
            }
            globalise_codes(b, m, s, &map);
        }
        self.report.rows_read += b.rows_read;
        self.report.dropped_missing += b.dropped - b.dropped_label;
        self.report.dropped_label += b.dropped_label;
        self.report.kept_missing += b.kept_missing;
        Ok(())
    }

    /// Turns the global codes of slot `s` into numbers.
    fn go_numeric(&mut self, s: usize) -> Result<()> {
        let values = level_numbers(self.layout, s, &self.levels[s])?;
        let m = self.layout.slots.len();
        for v in self.x.iter_mut().skip(s).step_by(m) {
            if let Some(c) = code_of(*v) {
                *v = values[c as usize];
            }
        }
        self.numeric[s] = true;
        self.levels[s].clear();
        Ok(())
    }

    /// Reserves room for about `rows` more rows (a size hint): nothing
    /// when they would not fit in the memory available or cannot be
    /// allocated, which the rows themselves then say as they come.
    pub(crate) fn reserve(&mut self, rows: usize) {
        let m = self.layout.slots.len();
        let _ = crate::limits::grow(&mut self.x, rows.saturating_mul(m), "")
            .and_then(|()| crate::limits::grow(&mut self.y, rows, ""));
    }

    /// Makes room for `rows` more rows of `values` values: a clear error
    /// when the table would not fit in the memory available.
    fn grow(&mut self, rows: usize, values: usize) -> Result<()> {
        if self.x.capacity() - self.x.len() >= values && self.y.capacity() - self.y.len() >= rows {
            return Ok(());
        }
        let n = self.y.len() + rows;
        let m = self.layout.slots.len();
        let bytes = n as f64 * (m as f64 * 8.0 + 4.0);
        let what = format!(
            "{}: the table read so far ({n} rows of {m} value{}, {})",
            self.layout.origin,
            if m == 1 { "" } else { "s" },
            crate::limits::bytes_text(bytes)
        );
        crate::limits::check_memory(&what, bytes)?;
        crate::limits::grow(&mut self.x, values, &what)?;
        crate::limits::grow(&mut self.y, rows, &what)
    }

    /// Adds every row of a globalised block.
    pub(crate) fn push_all(&mut self, b: &Block) -> Result<()> {
        self.grow(b.labels.len(), b.x.len())?;
        append_parallel(&mut self.x, &b.x);
        self.y.extend_from_slice(&b.labels);
        Ok(())
    }

    /// Adds row `i` of a globalised block `times` times.
    pub(crate) fn push_row(&mut self, b: &Block, i: usize, times: usize) -> Result<()> {
        let m = self.layout.slots.len();
        self.grow(times, times.saturating_mul(m))?;
        for _ in 0..times {
            self.x.extend_from_slice(&b.x[i * m..(i + 1) * m]);
            self.y.push(b.labels[i]);
        }
        Ok(())
    }

    /// The dataset of the collected rows: classes assigned from `classes`
    /// (the label counts that decide them; default: the collected ones),
    /// each `Either` slot decided, levels sorted, one-hot expanded.
    pub(crate) fn finish(
        self,
        positive: Option<&str>,
        classes: Option<&Interner>,
    ) -> Result<(Dataset, ReadReport)> {
        let layout = self.layout;
        let origin = &layout.origin;
        if self.report.rows_read == 0 {
            return Err(parse_err(origin, "the file has a header but no data rows"));
        }
        if self.y.is_empty() && classes.is_none() {
            return Err(parse_err(
                origin,
                format!(
                    "every one of the {} rows has a missing value and was dropped",
                    self.report.rows_read
                ),
            ));
        }
        let labels = classes.unwrap_or(&self.labels);
        let (class_names, class_of) = labels.classes(positive)?;
        // Global raw ids of this collection -> class ids, by label text.
        let by_name: HashMap<&str, u32> = labels.names().zip(class_of.iter().copied()).collect();
        let map: Vec<u32> = self
            .labels
            .names()
            .map(|n| by_name.get(n).copied().unwrap_or(0))
            .collect();
        let y: Vec<u32> = self.y.iter().map(|&r| map[r as usize]).collect();
        let mut x = self.x;
        let m = layout.slots.len();
        let (encodings, outputs) = encode_slots(layout, &self.levels, &self.numeric, &mut x)?;
        let x = if outputs.iter().all(|o| matches!(o, Output::Value(_))) {
            x
        } else {
            let rows = y.len() as f64;
            crate::limits::check_memory(
                &format!(
                    "{origin}: the encoded table ({rows} rows of {} features)",
                    outputs.len()
                ),
                rows * outputs.len() as f64 * 8.0,
            )?;
            expand(&x, m, &outputs)
        };
        let feature_names = feature_names_of(&encodings);
        let target = layout.target.expect("training layout");
        let schema = Schema {
            feature_names,
            class_names,
            encodings,
            target_name: layout.names[target].clone(),
        };
        let mut report = self.report;
        report.source = origin.clone();
        Ok((Dataset::new(x, y, schema)?, report))
    }
}

/// What an output column of a dataset holds, from which slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// The slot's number.
    Value(usize),
    /// 1 where the slot holds this level code, else 0 (one-hot).
    Level(usize, u32),
    /// The slot's level code as a number; NaN for a level the model does
    /// not know or a missing value (categorical).
    Code(usize),
}

type OutputColumns = Vec<Output>;

/// Decides how each slot of `layout` enters the dataset, from the levels
/// and numbers seen (`levels`, `numeric`): numbers in place (level codes of
/// numeric texts replaced in `x`, rows of `layout.slots.len()` values), or
/// one-hot over its levels. Returns the slots' encodings and the output
/// columns: per column its slot and, one-hot, its level's code.
fn encode_slots(
    layout: &Layout,
    levels: &[Interner],
    numeric: &[bool],
    x: &mut [f64],
) -> Result<(Vec<ColumnEncoding>, OutputColumns)> {
    let mut encodings = Vec::with_capacity(layout.slots.len());
    let mut outputs = Vec::new();
    let m = layout.slots.len();
    for (s, slot) in layout.slots.iter().enumerate() {
        let free =
            slot.fixed.is_none() && !matches!(slot.kind, Kind::Number | Kind::Time) && !numeric[s];
        if slot.kind == Kind::Group && free {
            group_numbers(x, m, s, &levels[s], layout.decimal);
            encodings.push(ColumnEncoding::Numeric {
                name: slot.name.clone(),
            });
            outputs.push(Output::Value(s));
            continue;
        }
        let either = matches!(slot.kind, Kind::Either | Kind::NumberOrCategory);
        if matches!(slot.kind, Kind::Number | Kind::Time)
            || numeric[s]
            || (either && all_numbers(&levels[s], layout.decimal))
        {
            if free {
                let values = level_numbers(layout, s, &levels[s])?;
                for v in x.iter_mut().skip(s).step_by(m) {
                    if let Some(c) = code_of(*v) {
                        *v = values[c as usize];
                    }
                }
            }
            encodings.push(ColumnEncoding::Numeric {
                name: slot.name.clone(),
            });
            outputs.push(Output::Value(s));
            continue;
        }
        if free && matches!(slot.kind, Kind::Category | Kind::NumberOrCategory) {
            encodings.push(sorted_codes(x, m, s, &slot.name, &levels[s]));
            outputs.push(Output::Code(s));
            continue;
        }
        let levels: Vec<(String, u32)> = if slot.fixed.is_some() {
            slot.fixed_levels
                .iter()
                .enumerate()
                .map(|(i, l)| (l.clone(), i as u32))
                .collect()
        } else {
            let mut v: Vec<(String, u32)> = levels[s]
                .names()
                .enumerate()
                .map(|(i, l)| (l.to_string(), i as u32))
                .collect();
            v.sort();
            v
        };
        if slot.fixed.is_none() && levels.len() > MAX_LEVELS {
            return Err(layout.too_many_levels(s, None));
        }
        outputs.extend(levels.iter().map(|&(_, c)| Output::Level(s, c)));
        encodings.push(ColumnEncoding::OneHot {
            name: slot.name.clone(),
            levels: levels.into_iter().map(|(l, _)| l).collect(),
        });
    }
    Ok((encodings, outputs))
}

/// Replaces the level codes of group slot `s` by numbers: the numbers the
/// texts are when all are, else each text's rank among the sorted distinct
/// texts (so the values depend on the texts only, not on the order rows
/// came in).
fn group_numbers(x: &mut [f64], m: usize, s: usize, names: &Interner, decimal: u8) {
    let numbers: Option<Vec<f64>> = names
        .names()
        .map(|t| number(t.trim().as_bytes(), decimal).ok().flatten())
        .collect();
    let values = if let Some(numbers) = numbers {
        numbers
    } else {
        let mut rank = vec![0.0; names.len()];
        for (r, &c) in names.sorted_ids().iter().enumerate() {
            rank[c as usize] = r as f64;
        }
        rank
    };
    for v in x.iter_mut().skip(s).step_by(m.max(1)) {
        if let Some(c) = code_of(*v) {
            *v = values[c as usize];
        }
    }
}

/// Renumbers the global level codes of categorical slot `s` (rows of `m`
/// values in `x`; `names` gives code `c`'s text) by the sorted order of the
/// texts, so codes do not depend on the order rows came in; returns the
/// slot's encoding.
fn sorted_codes(x: &mut [f64], m: usize, s: usize, name: &str, names: &Interner) -> ColumnEncoding {
    let order = names.sorted_ids();
    let mut rank = vec![0u32; names.len()];
    for (r, &c) in order.iter().enumerate() {
        rank[c as usize] = r as u32;
    }
    for v in x.iter_mut().skip(s).step_by(m.max(1)) {
        if let Some(c) = code_of(*v) {
            *v = code(rank[c as usize]);
        }
    }
    ColumnEncoding::Categorical {
        name: name.to_string(),
        levels: order
            .iter()
            .map(|&c| names.name(c as usize).to_string())
            .collect(),
    }
}

/// Builds the feature matrix from slot values, one feature per output
/// column ([`Output`]); unknown levels are all zeros one-hot, NaN as codes;
/// a missing value (a NaN that is no code) is NaN in each of a one-hot
/// column's features.
pub(crate) fn expand(x: &[f64], m: usize, outputs: &[Output]) -> Vec<f64> {
    let rows = x.len().checked_div(m).unwrap_or(0);
    let mut out = Vec::with_capacity(rows * outputs.len());
    for row in x.chunks(m.max(1)).take(rows) {
        out.extend(outputs.iter().map(|&o| match o {
            Output::Value(s) => row[s],
            Output::Level(s, _) if row[s].is_nan() && code_of(row[s]).is_none() => f64::NAN,
            Output::Level(s, c) => f64::from(u8::from(code_of(row[s]) == Some(c))),
            Output::Code(s) => match code_of(row[s]) {
                Some(c) if c != UNKNOWN => f64::from(c),
                _ => f64::NAN,
            },
        }));
    }
    out
}

/// Appends `src` to `dst`, copying in parallel for large blocks.
pub(crate) fn append_parallel(dst: &mut Vec<f64>, src: &[f64]) {
    use rayon::prelude::*;
    if src.len() < 1 << 16 {
        dst.extend_from_slice(src);
        return;
    }
    dst.reserve(src.len());
    let tail = &mut dst.spare_capacity_mut()[..src.len()];
    tail.par_chunks_mut(1 << 15)
        .zip(src.par_chunks(1 << 15))
        .for_each(|(d, s)| {
            for (d, &v) in d.iter_mut().zip(s) {
                d.write(v);
            }
        });
    let len = dst.len() + src.len();
    // SAFETY: the `src.len()` elements after the old length were all
    // written above (the chunks tile that range), and capacity was reserved.
    unsafe { dst.set_len(len) };
}

/// Feature names produced by a list of encodings (`col` or `col=level`).
pub(crate) fn feature_names_of(kinds: &[ColumnEncoding]) -> Vec<String> {
    kinds
        .iter()
        .flat_map(|k| match k {
            ColumnEncoding::Numeric { name } | ColumnEncoding::Categorical { name, .. } => {
                vec![name.clone()]
            }
            ColumnEncoding::OneHot { name, levels } => {
                levels.iter().map(|l| format!("{name}={l}")).collect()
            }
        })
        .collect()
}

/// Where a reader's blocks go.
pub(crate) trait Sink {
    /// Per feature slot, whether it is known to hold numbers only (lets
    /// parsers of later blocks skip level bookkeeping).
    fn numeric_slots(&self) -> &[bool];
    /// Takes one block (parsed rows in input order).
    fn take(&mut self, block: &mut Block) -> Result<()>;
}

/// The type of a source column, as far as the format tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ColumnType {
    /// Text of any kind (CSV): decided by the reading options.
    Any,
    /// Numbers.
    Number,
    /// Strings.
    Text,
    /// Dates and timestamps (named for errors): read as a time key only.
    Time(String),
    /// A type rarity does not read (named for the error).
    Unsupported(String),
}
