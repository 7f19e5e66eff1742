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
//! **Integrity.** As XGBoost's and sqlite's files do, a model file carries a
//! checksum of its whole content: XXH3-64 ([`checksum`]) of every byte of a
//! binary file but the checksum's own eight (the header before it, then the
//! body), or of the JSON text of the `model` value as [`serde_json`] writes
//! it (compact, keys sorted). It is verified before anything is decoded, so a
//! flipped bit or an edited number is "model file is corrupt (checksum
//! mismatch)", never a model that predicts differently. Files of format
//! version 1 (written before checksums) have none and still load; `rarity
//! show` says so.
//!
//! Loading checks the magic, the format version, the body length (a truncated
//! file is reported as such), the checksum and the model's internal
//! consistency, and fails with [`Error::Model`] saying what is wrong. Saving
//! writes a temporary file next to the target and renames it, so a crash
//! never leaves half a model.

use std::io::Write;
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
        let mut erased = <dyn erased_serde::Deserializer>::erase(d);
        (self.0.load)(&mut erased).map_err(serde::de::Error::custom)
    }
}

/// What can be saved in a model file.
pub trait Persist: Serialize + DeserializeOwned {
    /// Checks internal consistency after loading (`Err` says what is wrong).
    fn validate(&self) -> std::result::Result<(), String>;
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
/// Version of the file layout and of the model structures; bumped whenever
/// either changes incompatibly. Version 2 added the checksum; version 1
/// files (the same models, no checksum) still load.
pub const FORMAT_VERSION: u16 = 2;

/// The oldest format version this rarity reads.
const OLDEST_READ: u16 = 1;

/// The first format version whose files carry a checksum.
const CHECKSUMMED: u16 = 2;

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

#[derive(Deserialize)]
struct JsonIn {
    magic: String,
    format_version: u16,
    rarity_version: String,
    #[serde(default)]
    checksum: Option<String>,
    model: serde_json::Value,
}

/// The checksum of a JSON model's `model` value (see the module docs).
fn json_checksum(model: &serde_json::Value) -> Result<u64> {
    let text = serde_json::to_vec(model)
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
    match format {
        Format::Binary => {
            let body = rmp_serde::to_vec(model)
                .map_err(|e| Error::invalid(format!("cannot encode the model: {e}")))?;
            let mut out = Vec::with_capacity(body.len() + 32);
            out.extend_from_slice(MAGIC);
            out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
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
            serde_json::to_vec(&JsonOut {
                magic: JSON_MAGIC,
                format_version: FORMAT_VERSION,
                rarity_version: version,
                checksum: format!("{JSON_CHECKSUM_PREFIX}{:016x}", json_checksum(&model)?),
                model: &model,
            })
            .map_err(encode)
        }
    }
}

/// What a model file says about itself besides the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileInfo {
    /// The format version of the file ([`FORMAT_VERSION`] when it loads).
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
    let magic_prefix = !bytes.is_empty() && MAGIC.starts_with(&bytes[..bytes.len().min(7)]);
    let (model, format_version, rarity_version, encoding): (T, u16, String, &'static str) =
        if magic_prefix {
            let (m, v, by) = from_binary(bytes, path)?;
            (m, v, by, "binary")
        } else if bytes.first() == Some(&b'{') {
            let (m, v, by) = from_json(bytes, path)?;
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
            bytes: bytes.len(),
            checksum: format_version >= CHECKSUMMED,
        },
    ))
}

fn check_version(path: &Path, found: u16, written_by: &str) -> Result<()> {
    if !(OLDEST_READ..=FORMAT_VERSION).contains(&found) {
        return Err(model_err(
            path,
            format!(
                "format version {found} (written by rarity {written_by}); this rarity ({}) reads versions {OLDEST_READ} to {FORMAT_VERSION}",
                env!("CARGO_PKG_VERSION")
            ),
        ));
    }
    Ok(())
}

/// The model, format version and writing rarity version of a binary file.
fn from_binary<T: Persist>(bytes: &[u8], path: &Path) -> Result<(T, u16, String)> {
    let truncated = || model_err(path, "truncated: the file ends inside its header");
    if bytes.len() < 11 || bytes[..8] != MAGIC[..] {
        return Err(if bytes.len() >= 8 {
            model_err(path, "unknown magic bytes: not a model file of this rarity")
        } else {
            truncated()
        });
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    let vlen = bytes[10] as usize;
    let summed = version >= CHECKSUMMED;
    let len_end = 11 + vlen + 8;
    let head = len_end + if summed { 8 } else { 0 };
    if bytes.len() < head {
        return Err(truncated());
    }
    let written_by = String::from_utf8_lossy(&bytes[11..11 + vlen]).into_owned();
    check_version(path, version, &written_by)?;
    let le = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("eight bytes"));
    let len = le(&bytes[11 + vlen..len_end]);
    let body = &bytes[head..];
    if (body.len() as u64) < len {
        return Err(model_err(
            path,
            format!("truncated: the body has {} of its {len} bytes", body.len()),
        ));
    }
    if body.len() as u64 > len {
        return Err(model_err(
            path,
            format!(
                "{} unexpected bytes after the model",
                body.len() as u64 - len
            ),
        ));
    }
    if summed && checksum(&[&bytes[..len_end], body]) != le(&bytes[len_end..head]) {
        return Err(corrupt(path));
    }
    let model = rmp_serde::from_slice(body)
        .map_err(|e| model_err(path, format!("cannot decode the model: {e}")))?;
    Ok((model, version, written_by))
}

/// The model, format version and writing rarity version of a JSON file.
fn from_json<T: Persist>(bytes: &[u8], path: &Path) -> Result<(T, u16, String)> {
    let env: JsonIn = serde_json::from_slice(bytes).map_err(|e| {
        if e.is_eof() {
            model_err(path, "truncated: the JSON ends early")
        } else {
            model_err(path, format!("not a rarity JSON model: {e}"))
        }
    })?;
    if env.magic != JSON_MAGIC {
        return Err(model_err(
            path,
            format!("JSON magic is '{}', expected '{JSON_MAGIC}'", env.magic),
        ));
    }
    check_version(path, env.format_version, &env.rarity_version)?;
    if env.format_version >= CHECKSUMMED {
        let sum = env.checksum.as_deref().ok_or_else(|| {
            model_err(
                path,
                format!(
                    "the model has no \"checksum\", which format version {} requires",
                    env.format_version
                ),
            )
        })?;
        let want = format!("{JSON_CHECKSUM_PREFIX}{:016x}", json_checksum(&env.model)?);
        if sum != want {
            return Err(corrupt(path));
        }
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
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    described(&bytes, path)
}

#[cfg(test)]
mod tests;
