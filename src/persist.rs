//! Model files: a versioned, self-describing envelope around a [`Model`] or
//! anything else that implements [`Persist`] (a fitted strategy, with its
//! schema, calibration and decision rule).
//!
//! Two encodings, detected when loading:
//!
//! - **binary** (default): the 8 magic bytes `RARITYM\x01`, the format version
//!   (`u16`, little-endian), the length of the rarity version string (`u8`)
//!   and the string, the body length (`u64`, little-endian), the checksum
//!   (`u64`, little-endian; from format version 2), then the model as
//!   MessagePack (readable from Python with `msgpack`);
//! - **JSON**: one object `{"magic": "rarity-model", "format_version": ..,
//!   "rarity_version": .., "checksum": "xxh3-64:<16 hex digits>", "model": ..}`.
//!
//! **Integrity.** As XGBoost's and SQLite's files do, a model file carries a
//! checksum of its whole content: XXH3-64 ([`checksum`]) of every byte of a
//! binary file but the checksum's own eight (the header before it, then the
//! body), or, from format version 3, of the JSON text of the whole object
//! but its `checksum`, as [`serde_json`] writes it (compact, keys sorted;
//! format version 2 summed the `model` value alone, and still loads so).
//! It is verified before anything is decoded, so a flipped bit or an
//! edited number, version or magic is "model file is corrupt (checksum
//! mismatch)", never a model that predicts differently. Files of format
//! version 1 (written before checksums) have none and still load (`rarity
//! show` says so); a checksum field is verified whatever version the file
//! states, and a version-1 JSON file that has one is refused (its version
//! was lowered). The rarity version a file names must read as a version
//! number (digits, letters, `.`, `-`, `+`).
//!
//! **Reading.** As SQLite checks a database header before reading pages and
//! XGBoost's loader the header of its binary models, the header is read and
//! checked first (magic, format version, body length), and no more than the
//! body length it states is read: a file that is not a model (`/dev/zero`)
//! is refused after its first bytes, a stated length beyond the file's size
//! or the memory available is refused before any of it is read, and a
//! stream that goes on after the model is refused at its first extra byte.
//! A JSON model has no length to read first: it is parsed as it streams,
//! refused at its first byte that is not JSON (or trailing after the
//! object), and read only while its text could still fit in memory as the
//! values it holds ([`JSON_BYTES_PER_VALUE_BYTE`]).
//!
//! **Nesting.** Both decoders keep serde_json's recursion limit of 128
//! levels (MessagePack's reader is set to it), and a model nested deeper
//! than [`learn::MAX_ENSEMBLE_NESTING`] ensembles is refused as it is
//! decoded ([`learn::Nesting`]), before anything could overflow the stack.
//!
//! Loading then checks the model's meaning ([`Persist::validate`]: shapes,
//! numbers, names, the spec against the model), and fails with
//! [`Error::Model`] saying what is wrong. Saving writes a temporary file
//! next to the target and renames it, so a crash never leaves half a model.

use std::io::{Read, Write};
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::data::write::AtomicFile;
use crate::ensemble;
use crate::error::{Error, Result};
use crate::learn::{self, Model, ModelKind};

/// Every kind of fitted model a file may hold: the learners' and the
/// ensembles'. This is why reading models back sits above both.
fn model_kinds() -> impl Iterator<Item = &'static ModelKind> {
    learn::registry::MODEL_KINDS
        .iter()
        .chain(ensemble::registry::MODEL_KINDS)
}

/// The kind of fitted model a file names `name` ([`crate::learn::Kind::KIND`]),
/// if this rarity reads it.
pub fn model_kind(name: &str) -> Option<&'static ModelKind> {
    model_kinds().find(|k| k.name == name)
}

impl<'de> Deserialize<'de> for Model {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Model, D::Error> {
        d.deserialize_enum("Model", &[], KindVisitor)
    }
}

struct KindVisitor;

impl<'de> serde::de::Visitor<'de> for KindVisitor {
    type Value = Model;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a fitted model")
    }

    fn visit_enum<A: serde::de::EnumAccess<'de>>(
        self,
        data: A,
    ) -> std::result::Result<Model, A::Error> {
        use serde::de::{Error as _, VariantAccess};
        let (name, body): (String, _) = data.variant()?;
        let kind = model_kinds().find(|k| k.name == name).ok_or_else(|| {
            let names: Vec<&str> = model_kinds().map(|k| k.name).collect();
            A::Error::custom(format!(
                "unknown kind of model '{name}'; this rarity reads: {}",
                names.join(", ")
            ))
        })?;
        body.newtype_variant_seed(KindSeed(kind))
    }
}

struct KindSeed(&'static ModelKind);

impl<'de> serde::de::DeserializeSeed<'de> for KindSeed {
    type Value = Model;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Model, D::Error> {
        let _level = learn::Nesting::model().map_err(serde::de::Error::custom)?;
        let mut erased = <dyn erased_serde::Deserializer>::erase(d);
        (self.0.load)(&mut erased).map_err(serde::de::Error::custom)
    }
}

/// What can be saved in a model file.
pub trait Persist: Serialize + DeserializeOwned {
    /// Checks internal consistency after loading (`Err` says what is wrong).
    fn validate(&self) -> std::result::Result<(), String>;

    /// The format version its file is written at: [`PLAIN_VERSION`] unless
    /// it holds what only a later version has (a fitted strategy's
    /// training summary: [`FORMAT_VERSION`]), so that a model without one
    /// is the file an older rarity reads.
    fn format_version(&self) -> u16 {
        PLAIN_VERSION
    }
}

impl Persist for Model {
    fn validate(&self) -> std::result::Result<(), String> {
        Model::validate(self)
    }
}

/// Magic bytes opening a binary model file.
pub const MAGIC: &[u8; 8] = b"RARITYM\x01";
/// The `magic` field of a JSON model file.
pub const JSON_MAGIC: &str = "rarity-model";
/// The newest version of the file layout and of the model structures;
/// bumped whenever either changes incompatibly. Version 2 added the
/// checksum; version 3 made a JSON file's checksum cover the whole object
/// (the binary layout is version 2's); version 4 is a fitted strategy with
/// a training summary (`rarity fit --summary`), which an older rarity
/// would refuse by its version rather than misread. Files of versions 1 to
/// 3 still load.
pub const FORMAT_VERSION: u16 = 4;

/// The version of a file that holds nothing version 4 added: what every
/// file was written at before it ([`Persist::format_version`]).
pub const PLAIN_VERSION: u16 = 3;

/// The oldest format version this rarity reads.
const OLDEST_READ: u16 = 1;

/// The first format version whose files carry a checksum.
const CHECKSUMMED: u16 = 2;

/// The first format version whose JSON checksum covers the whole object.
const WHOLE_JSON_SUMMED: u16 = 3;

/// The deepest nesting of arrays and maps either decoder accepts:
/// serde_json's recursion limit.
const MAX_DEPTH: usize = 128;

/// Bytes of memory the values of a JSON model may take per byte of its
/// text, at most (`1,` is a 32-byte value in a list): a JSON model whose
/// text passes the memory available over this is refused as it streams.
pub const JSON_BYTES_PER_VALUE_BYTE: u64 = 16;

/// How the checksum of a JSON model file is written: this prefix, then 16
/// hexadecimal digits.
const JSON_CHECKSUM_PREFIX: &str = "xxh3-64:";

/// XXH3-64 (seed 0) of `parts` read one after the other: the checksum of a
/// model file (see the module docs).
///
/// ```
/// use rarity::persist::checksum;
/// assert_eq!(checksum(&[b"ab", b"c"]), checksum(&[b"abc"]));
/// assert_ne!(checksum(&[b"abc"]), checksum(&[b"abd"]));
/// ```
pub fn checksum(parts: &[&[u8]]) -> u64 {
    let mut h = twox_hash::XxHash3_64::with_seed(0);
    for p in parts {
        std::hash::Hasher::write(&mut h, p);
    }
    std::hash::Hasher::finish(&h)
}

/// How a model file is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Header + MessagePack body (compact).
    #[default]
    Binary,
    /// One JSON object (readable, larger).
    Json,
}

#[derive(Serialize)]
struct JsonOut<'a> {
    magic: &'a str,
    format_version: u16,
    rarity_version: &'a str,
    checksum: String,
    model: &'a serde_json::Value,
}

/// What a JSON file's checksum covers from format version 3: the object
/// without its checksum, keys in sorted order (as the fields are declared).
#[derive(Serialize)]
struct JsonSummed<'a> {
    format_version: u16,
    magic: &'a str,
    model: &'a serde_json::Value,
    rarity_version: &'a str,
}

#[derive(Deserialize)]
struct JsonIn {
    magic: String,
    format_version: u16,
    rarity_version: String,
    #[serde(default)]
    checksum: Option<String>,
    model: serde_json::Value,
}

/// The checksum of a JSON model file of format version `version` (see the
/// module docs): of its whole object but the checksum from version 3, of
/// its `model` value before.
fn json_checksum(
    version: u16,
    magic: &str,
    rarity_version: &str,
    model: &serde_json::Value,
) -> Result<u64> {
    let text = if version >= WHOLE_JSON_SUMMED {
        serde_json::to_vec(&JsonSummed {
            format_version: version,
            magic,
            model,
            rarity_version,
        })
    } else {
        serde_json::to_vec(model)
    }
    .map_err(|e| Error::invalid(format!("cannot encode the model: {e}")))?;
    Ok(checksum(&[&text]))
}

fn corrupt(path: &Path) -> Error {
    model_err(
        path,
        "model file is corrupt (checksum mismatch): it changed after rarity wrote it; \
         use an intact copy or fit the model again",
    )
}

fn model_err(path: &Path, message: impl Into<String>) -> Error {
    Error::Model {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// The model file's bytes.
pub fn to_bytes<T: Persist>(model: &T, format: Format) -> Result<Vec<u8>> {
    let version = env!("CARGO_PKG_VERSION");
    let format_version = model.format_version();
    match format {
        Format::Binary => {
            let body = rmp_serde::to_vec(model)
                .map_err(|e| Error::invalid(format!("cannot encode the model: {e}")))?;
            let mut out = Vec::with_capacity(body.len() + 32);
            out.extend_from_slice(MAGIC);
            out.extend_from_slice(&format_version.to_le_bytes());
            out.push(version.len() as u8);
            out.extend_from_slice(version.as_bytes());
            out.extend_from_slice(&(body.len() as u64).to_le_bytes());
            let sum = checksum(&[&out, &body]);
            out.extend_from_slice(&sum.to_le_bytes());
            out.extend_from_slice(&body);
            Ok(out)
        }
        Format::Json => {
            let encode =
                |e: serde_json::Error| Error::invalid(format!("cannot encode the model: {e}"));
            let model = serde_json::to_value(model).map_err(encode)?;
            let sum = json_checksum(format_version, JSON_MAGIC, version, &model)?;
            serde_json::to_vec(&JsonOut {
                magic: JSON_MAGIC,
                format_version,
                rarity_version: version,
                checksum: format!("{JSON_CHECKSUM_PREFIX}{sum:016x}"),
                model: &model,
            })
            .map_err(encode)
        }
    }
}

/// What a model file says about itself besides the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileInfo {
    /// The format version of the file (at most [`FORMAT_VERSION`] when it
    /// loads).
    pub format_version: u16,
    /// The version of rarity that wrote it.
    pub rarity_version: String,
    /// `binary` or `json`.
    pub encoding: &'static str,
    /// The file's size in bytes.
    pub bytes: usize,
    /// Whether the file carries a checksum (verified, since it loaded);
    /// files written before format version 2 have none.
    pub checksum: bool,
}

/// Reads a model from the bytes of a model file; `path` is only used in
/// error messages.
pub fn from_bytes<T: Persist>(bytes: &[u8], path: &Path) -> Result<T> {
    described(bytes, path).map(|(m, _)| m)
}

/// [`from_bytes`] with what the file says about itself ([`load_described`]
/// for bytes already read).
pub fn described<T: Persist>(bytes: &[u8], path: &Path) -> Result<(T, FileInfo)> {
    read_described(bytes, Some(bytes.len() as u64), path)
}

/// Reads a model from a stream holding a model file (standard input),
/// reading no more of it than the model (see the module docs); `path`
/// names it in errors.
pub fn read<T: Persist>(input: impl Read, path: &Path) -> Result<T> {
    read_described(input, None, path).map(|(m, _)| m)
}

/// The model and what the file says about itself, from `input`, which
/// holds `size` bytes when known (a regular file, bytes in memory).
fn read_described<T: Persist>(
    input: impl Read,
    size: Option<u64>,
    path: &Path,
) -> Result<(T, FileInfo)> {
    let mut input = Metered {
        inner: input,
        read: 0,
        most: u64::MAX,
    };
    let first = read_up_to(&mut input, MAGIC.len(), path)?;
    let magic_prefix = !first.is_empty() && MAGIC.starts_with(&first[..first.len().min(7)]);
    let (model, format_version, rarity_version, encoding): (T, u16, String, &'static str) =
        if magic_prefix {
            let (m, v, by) = from_binary(first, &mut input, size, path)?;
            (m, v, by, "binary")
        } else if first.first() == Some(&b'{') {
            let (m, v, by) = from_json(first, &mut input, path)?;
            (m, v, by, "json")
        } else {
            return Err(model_err(
                path,
                "not a rarity model file (it starts with neither the rarity magic bytes nor a JSON object)",
            ));
        };
    model
        .validate()
        .map_err(|m| model_err(path, format!("inconsistent model: {m}")))?;
    Ok((
        model,
        FileInfo {
            format_version,
            rarity_version,
            encoding,
            bytes: input.read as usize,
            checksum: format_version >= CHECKSUMMED,
        },
    ))
}

/// A reader that counts the bytes read through it, and fails once more
/// than `most` have passed.
struct Metered<R> {
    inner: R,
    read: u64,
    most: u64,
}

impl<R: Read> Read for Metered<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.most {
            return Err(std::io::Error::other("the input is longer than it may be"));
        }
        Ok(n)
    }
}

/// Up to `n` bytes of `input`: fewer only at its end.
fn read_up_to(input: &mut impl Read, n: usize, path: &Path) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(n);
    input
        .take(n as u64)
        .read_to_end(&mut out)
        .map_err(|e| Error::io(path, e))?;
    Ok(out)
}

/// Exactly `n` more bytes of `input` appended to `out`, or "truncated".
fn read_more(input: &mut impl Read, out: &mut Vec<u8>, n: usize, path: &Path) -> Result<()> {
    let more = read_up_to(input, n, path)?;
    if more.len() < n {
        return Err(model_err(
            path,
            "truncated: the file ends inside its header",
        ));
    }
    out.extend_from_slice(&more);
    Ok(())
}

fn check_version(path: &Path, found: u16, written_by: &str) -> Result<()> {
    let shown = written_by.escape_debug();
    if !(OLDEST_READ..=FORMAT_VERSION).contains(&found) {
        return Err(model_err(
            path,
            format!(
                "format version {found} (written by rarity {shown}); this rarity ({}) reads versions {OLDEST_READ} to {FORMAT_VERSION}",
                env!("CARGO_PKG_VERSION")
            ),
        ));
    }
    let version_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+');
    if written_by.is_empty() || !written_by.chars().all(version_char) {
        return Err(model_err(
            path,
            format!("the rarity version it names ('{shown}') is not a version number"),
        ));
    }
    Ok(())
}

/// The model, format version and writing rarity version of a binary file
/// whose first bytes (`head`, at most 8) were read from `input`; `size`
/// is the whole file's, when known.
fn from_binary<T: Persist>(
    mut head: Vec<u8>,
    input: &mut Metered<impl Read>,
    size: Option<u64>,
    path: &Path,
) -> Result<(T, u16, String)> {
    if head.len() == MAGIC.len() && head[..] != MAGIC[..] {
        return Err(model_err(
            path,
            "unknown magic bytes: not a model file of this rarity",
        ));
    }
    if head.len() < MAGIC.len() {
        return Err(model_err(
            path,
            "truncated: the file ends inside its header",
        ));
    }
    read_more(input, &mut head, 3, path)?;
    let version = u16::from_le_bytes([head[8], head[9]]);
    let vlen = head[10] as usize;
    read_more(input, &mut head, vlen, path)?;
    let written_by = String::from_utf8_lossy(&head[11..11 + vlen]).into_owned();
    check_version(path, version, &written_by)?;
    let summed = version >= CHECKSUMMED;
    let len_end = 11 + vlen + 8;
    read_more(input, &mut head, 8 + if summed { 8 } else { 0 }, path)?;
    let le = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("eight bytes"));
    let len = le(&head[11 + vlen..len_end]);
    let after_head = size.map(|s| s.saturating_sub(head.len() as u64));
    if let Some(rest) = after_head {
        if rest < len {
            return Err(model_err(
                path,
                format!("truncated: the body has {rest} of its {len} bytes"),
            ));
        }
        if rest > len {
            return Err(model_err(
                path,
                format!("{} unexpected bytes after the model", rest - len),
            ));
        }
    }
    let memory = crate::limits::memory_available();
    if len > memory {
        return Err(model_err(
            path,
            format!(
                "its header says the model takes {}, more than the memory available ({})",
                crate::limits::bytes_text(len as f64),
                crate::limits::bytes_text(memory as f64)
            ),
        ));
    }
    let mut body = Vec::new();
    input
        .by_ref()
        .take(len)
        .read_to_end(&mut body)
        .map_err(|e| Error::io(path, e))?;
    if (body.len() as u64) < len {
        return Err(model_err(
            path,
            format!("truncated: the body has {} of its {len} bytes", body.len()),
        ));
    }
    if !read_up_to(input, 1, path)?.is_empty() {
        return Err(model_err(
            path,
            format!("unexpected bytes after the model: the input goes on past its {len}-byte body"),
        ));
    }
    if summed && checksum(&[&head[..len_end], &body]) != le(&head[len_end..]) {
        return Err(corrupt(path));
    }
    let mut de = rmp_serde::Deserializer::from_read_ref(&body);
    de.set_max_depth(MAX_DEPTH);
    let model = T::deserialize(&mut de)
        .map_err(|e| model_err(path, format!("cannot decode the model: {e}")))?;
    Ok((model, version, written_by))
}

/// The model, format version and writing rarity version of a JSON file
/// whose first bytes (`head`) were read from `input`.
fn from_json<T: Persist>(
    head: Vec<u8>,
    input: &mut Metered<impl Read>,
    path: &Path,
) -> Result<(T, u16, String)> {
    let memory = crate::limits::memory_available();
    input.most = input
        .read
        .saturating_add(memory / JSON_BYTES_PER_VALUE_BYTE);
    let text = std::io::BufReader::new(std::io::Cursor::new(head).chain(&mut *input));
    let parsed = serde_json::from_reader(text);
    let env: JsonIn = parsed.map_err(|e| {
        if input.read > input.most {
            model_err(
                path,
                format!(
                    "the JSON model is larger than the memory available could hold as its \
                     values ({}); save it in the binary format",
                    crate::limits::bytes_text(memory as f64)
                ),
            )
        } else if e.is_eof() {
            model_err(path, "truncated: the JSON ends early")
        } else if e.is_io() {
            model_err(path, e.to_string())
        } else {
            model_err(path, format!("not a rarity JSON model: {e}"))
        }
    })?;
    if env.magic != JSON_MAGIC {
        return Err(model_err(
            path,
            format!(
                "JSON magic is '{}', expected '{JSON_MAGIC}'",
                env.magic.escape_debug()
            ),
        ));
    }
    check_version(path, env.format_version, &env.rarity_version)?;
    match (&env.checksum, env.format_version >= CHECKSUMMED) {
        (None, true) => {
            return Err(model_err(
                path,
                format!(
                    "the model has no \"checksum\", which format version {} requires",
                    env.format_version
                ),
            ))
        }
        (Some(_), false) => {
            return Err(model_err(
                path,
                format!(
                    "format version {} files carry no checksum, but this one has one: its \
                     format version was changed after rarity wrote it",
                    env.format_version
                ),
            ))
        }
        (Some(sum), true) => {
            let want = json_checksum(
                env.format_version,
                &env.magic,
                &env.rarity_version,
                &env.model,
            )?;
            if *sum != format!("{JSON_CHECKSUM_PREFIX}{want:016x}") {
                return Err(corrupt(path));
            }
        }
        (None, false) => {}
    }
    let model = serde_json::from_value(env.model)
        .map_err(|e| model_err(path, format!("cannot decode the model: {e}")))?;
    Ok((model, env.format_version, env.rarity_version))
}

/// Saves `model` to `path` (via a temporary file renamed into place).
///
/// ```
/// use rarity::data::Dataset;
/// use rarity::learn::{Learner, tree::Tree};
/// use rarity::persist::{save, load, Format};
/// let ds = Dataset::from_rows(vec![vec![0.0], vec![1.0]], vec![0, 1],
///                             vec!["n".into(), "p".into()]).unwrap();
/// let m = Tree::default().fit(&ds.view(&[0, 1]), &mut rarity::rng::stream(0, 0)).unwrap();
/// let path = std::env::temp_dir().join(format!("rarity-doc-{}.model", std::process::id()));
/// save(&m, &path, Format::Binary).unwrap();
/// let back: rarity::Model = load(&path).unwrap();
/// assert_eq!(back, m);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn save<T: Persist>(model: &T, path: &Path, format: Format) -> Result<()> {
    let bytes = to_bytes(model, format)?;
    let mut f = AtomicFile::create(path)?;
    f.writer().write_all(&bytes).map_err(|e| f.err(e))?;
    f.commit()
}

/// Loads a model saved by [`save`] (either format).
pub fn load<T: Persist>(path: &Path) -> Result<T> {
    load_described(path).map(|(m, _)| m)
}

/// [`load`] with what the file says about itself (format and rarity
/// versions, encoding, size): what `rarity show` prints.
pub fn load_described<T: Persist>(path: &Path) -> Result<(T, FileInfo)> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let size = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    read_described(file, size, path)
}

#[cfg(test)]
mod tests;
