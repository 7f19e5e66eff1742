//! Checks of a Parquet file's footer and page headers before the parquet
//! crate trusts them.
//!
//! The crate sizes buffers from counts the file declares, before it has
//! decoded anything: a page's uncompressed size (it allocates it, and
//! the Snappy decoder fills it, so a 1.5 KB file claiming a 2 GB page cost
//! 2 GB of memory), a dictionary's value count (a float column claiming
//! 1.6 billion values in a few bytes filled 13 GB before the crate's "not
//! enough bytes" error) and a schema element's child count (a 1.3 KB file
//! claiming 2.1 billion children asked for 16.8 GB at once: on a machine
//! with less memory, or under `ulimit -v`, the allocation fails and the
//! process aborts). All three were found by `tests/fuzz_readers.rs`.
//!
//! So, before the crate reads them:
//! - the footer's schema is walked ([`check_footer`]): every element's
//!   child count must fit in the elements that follow it, and the list
//!   must not declare more elements than the footer has bytes;
//! - every page header of every column chunk to be read is decoded
//!   ([`check_pages`]; headers only, walked from one to the next through
//!   the chunk) and must be plausible:
//!   - the page lies inside its column chunk;
//!   - its uncompressed size is one the codec can produce from its
//!     compressed bytes (at most 32x for Snappy, 256x for LZ4, 1,032x for
//!     gzip's deflate, 32,768x for Zstandard: one byte per 128 KiB block);
//!   - a dictionary page's bytes hold its value count: a bit per boolean,
//!     the type's width per fixed-width value, a four-byte length per
//!     string.
//!
//! The crate's own Thrift decoders are private, so both are read here from
//! Thrift's compact encoding: of the footer (`FileMetaData`), field 2, the
//! schema, a list of `SchemaElement` {5 num_children}; of a `PageHeader`,
//! 1 type, 2 uncompressed size, 3 compressed size, 7 dictionary header
//! {1 value count}. Every other field is skipped. A well-formed file passes
//! unchanged.

use std::io::Read;

use parquet::basic::{Compression, Type as PhysicalType};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::ChunkReader;

use super::parse_err;
use crate::error::Result;

/// The Parquet format's page type of a dictionary page.
const DICTIONARY_PAGE: i32 = 2;

/// Nesting deeper than this in a page header is corruption.
const MAX_DEPTH: usize = 32;

/// Checks the page headers of the leaf columns `leaves` in every row group.
pub(super) fn check_pages<T: ChunkReader>(
    input: &T,
    metadata: &ParquetMetaData,
    leaves: &[usize],
    origin: &str,
) -> Result<()> {
    let schema = metadata.file_metadata().schema_descr();
    let file_len = input.len();
    for group in metadata.row_groups() {
        for &leaf in leaves {
            let column = group.column(leaf);
            let descr = schema.column(leaf);
            let corrupt = |what: String| {
                parse_err(
                    origin,
                    format!(
                        "the Parquet file is corrupt or truncated (column '{}': {what})",
                        descr.path().string()
                    ),
                )
            };
            let (start, len) = column.byte_range();
            let end = start
                .checked_add(len)
                .filter(|&e| e <= file_len)
                .ok_or_else(|| {
                    corrupt("its column chunk lies beyond the end of the file".into())
                })?;
            let bits_per_value = match descr.physical_type() {
                PhysicalType::BOOLEAN => 1,
                PhysicalType::INT32 | PhysicalType::FLOAT | PhysicalType::BYTE_ARRAY => 32,
                PhysicalType::INT64 | PhysicalType::DOUBLE => 64,
                PhysicalType::INT96 => 96,
                PhysicalType::FIXED_LEN_BYTE_ARRAY => 8 * descr.type_length().max(1) as u64,
            };
            let mut at = start;
            while at < end {
                let read = input
                    .get_read(at)
                    .map_err(|e| parse_err(origin, format!("read failed: {e}")))?;
                let mut header = Compact::new(read, end - at);
                let page = header
                    .page_header()
                    .map_err(|why| corrupt(format!("a page header {why}")))?;
                at += header.consumed;
                let compressed = u64::try_from(page.compressed)
                    .ok()
                    .filter(|&c| c <= end - at)
                    .ok_or_else(|| corrupt("a page lies beyond its column chunk".into()))?;
                let uncompressed = u64::try_from(page.uncompressed)
                    .map_err(|_| corrupt("a page has a negative size".into()))?;
                at += compressed;
                let ratio = match column.compression() {
                    Compression::UNCOMPRESSED => None,
                    Compression::SNAPPY => Some(32),
                    Compression::LZ4 | Compression::LZ4_RAW => Some(256),
                    Compression::GZIP(_) => Some(1032),
                    _ => Some(32_768),
                };
                // Without a codec the crate decodes the stored bytes as they are.
                let bytes = match ratio {
                    None => compressed,
                    Some(ratio) => {
                        if uncompressed > compressed * ratio + 1024 {
                            return Err(corrupt(format!(
                                "a page of {compressed} bytes claims {uncompressed} bytes uncompressed"
                            )));
                        }
                        uncompressed
                    }
                };
                if let Some(values) = page.dictionary_values {
                    let values = u64::try_from(values)
                        .map_err(|_| corrupt("a dictionary has a negative size".into()))?;
                    if values * bits_per_value > 8 * bytes {
                        return Err(corrupt(format!(
                            "a dictionary page claims {values} values in {bytes} bytes"
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Checks the footer's schema (see the module documentation). A file too
/// short to hold a footer, or without the `PAR1` magic, is left to the
/// crate, which reports it.
pub(super) fn check_footer<T: ChunkReader>(input: &T, origin: &str) -> Result<()> {
    let len = input.len();
    if len < 12 {
        return Ok(());
    }
    let read_err =
        |e: parquet::errors::ParquetError| parse_err(origin, format!("read failed: {e}"));
    let tail = input.get_bytes(len - 8, 8).map_err(read_err)?;
    if &tail[4..] != b"PAR1" {
        return Ok(());
    }
    let footer = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    if footer > len - 12 {
        return Ok(());
    }
    let mut c = Compact::new(input.get_read(len - 8 - footer).map_err(read_err)?, footer);
    c.past = "runs past the footer";
    c.schema_children().map_err(|why| {
        parse_err(
            origin,
            format!("the Parquet file is corrupt or truncated (its footer {why})"),
        )
    })
}

/// What the check needs of a page header.
struct PageHeader {
    uncompressed: i32,
    compressed: i32,
    /// The value count of a dictionary page.
    dictionary_values: Option<i32>,
}

/// A reader of Thrift's compact encoding, at most `limit` bytes long.
struct Compact<R> {
    input: R,
    limit: u64,
    consumed: u64,
    /// The error of a value that runs past `limit`.
    past: &'static str,
}

/// The compact encoding's type codes.
mod code {
    pub const TRUE: u8 = 1;
    pub const FALSE: u8 = 2;
    pub const BYTE: u8 = 3;
    pub const I16: u8 = 4;
    pub const I32: u8 = 5;
    pub const I64: u8 = 6;
    pub const DOUBLE: u8 = 7;
    pub const BINARY: u8 = 8;
    pub const LIST: u8 = 9;
    pub const SET: u8 = 10;
    pub const MAP: u8 = 11;
    pub const STRUCT: u8 = 12;
    pub const UUID: u8 = 13;
}

type Parsed<T> = std::result::Result<T, &'static str>;

impl<R: Read> Compact<R> {
    fn new(input: R, limit: u64) -> Self {
        Compact {
            input,
            limit,
            consumed: 0,
            past: "runs past its column chunk",
        }
    }

    fn byte(&mut self) -> Parsed<u8> {
        if self.consumed >= self.limit {
            return Err(self.past);
        }
        let mut b = [0u8];
        self.input.read_exact(&mut b).map_err(|_| "is cut short")?;
        self.consumed += 1;
        Ok(b[0])
    }

    fn varint(&mut self) -> Parsed<u64> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                break;
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("holds an overlong number")
    }

    fn i32(&mut self) -> Parsed<i32> {
        let z = self.varint()?;
        let v = (z >> 1) as i64 ^ -((z & 1) as i64);
        i32::try_from(v).map_err(|_| "holds an out-of-range number")
    }

    /// Reads `n` bytes and forgets them.
    fn skip_bytes(&mut self, n: u64) -> Parsed<()> {
        for _ in 0..n {
            self.byte()?;
        }
        Ok(())
    }

    /// Reads and forgets one value of type `t`.
    fn skip(&mut self, t: u8, depth: usize) -> Parsed<()> {
        if depth > MAX_DEPTH {
            return Err("is nested too deep");
        }
        match t {
            code::TRUE | code::FALSE => Ok(()),
            code::BYTE => self.byte().map(drop),
            code::I16 | code::I32 | code::I64 => self.varint().map(drop),
            code::DOUBLE => self.skip_bytes(8),
            code::UUID => self.skip_bytes(16),
            code::BINARY => {
                let n = self.varint()?;
                self.skip_bytes(n)
            }
            code::LIST | code::SET => {
                let (n, kind) = self.list_header()?;
                for _ in 0..n {
                    self.skip_element(kind, depth + 1)?;
                }
                Ok(())
            }
            code::MAP => {
                let n = self.varint()?;
                if n > 0 {
                    let kinds = self.byte()?;
                    for _ in 0..n {
                        self.skip_element(kinds >> 4, depth + 1)?;
                        self.skip_element(kinds & 0x0f, depth + 1)?;
                    }
                }
                Ok(())
            }
            code::STRUCT => self.each_field(depth + 1, |c, _, t, depth| c.skip(t, depth)),
            _ => Err("holds an unknown type"),
        }
    }

    /// Reads and forgets one element of a list, set or map: a boolean
    /// element is a byte of its own (a boolean field is its type code), so
    /// every element consumes a byte and a count cannot loop in place.
    fn skip_element(&mut self, t: u8, depth: usize) -> Parsed<()> {
        if matches!(t, code::TRUE | code::FALSE) {
            self.byte().map(drop)
        } else {
            self.skip(t, depth)
        }
    }

    /// The next field's id and type after the field `id` of a struct, or
    /// `None` at its stop byte.
    fn field(&mut self, id: i16) -> Parsed<Option<(i16, u8)>> {
        let head = self.byte()?;
        if head == 0 {
            return Ok(None);
        }
        let id = match head >> 4 {
            0 => i16::try_from(self.i32()?).map_err(|_| "holds a bad field id")?,
            delta => id.wrapping_add(i16::from(delta)),
        };
        Ok(Some((id, head & 0x0f)))
    }

    /// Calls `f(self, field id, type, depth)` for each field of a struct,
    /// up to its stop byte.
    fn each_field(
        &mut self,
        depth: usize,
        mut f: impl FnMut(&mut Self, i16, u8, usize) -> Parsed<()>,
    ) -> Parsed<()> {
        let mut id = 0i16;
        while let Some((next, t)) = self.field(id)? {
            id = next;
            f(self, id, t, depth)?;
        }
        Ok(())
    }

    /// Reads a list's header: its length and element type.
    fn list_header(&mut self) -> Parsed<(u64, u8)> {
        let head = self.byte()?;
        let n = match head >> 4 {
            15 => self.varint()?,
            n => u64::from(n),
        };
        Ok((n, head & 0x0f))
    }

    /// Walks a `FileMetaData` up to its schema (field 2) and checks each
    /// element's child count; the fields after the schema are not read.
    ///
    /// The crate reads a field by its id, as the type its schema gives that
    /// id, whatever type the field's header declares; this walk skips by
    /// the declared type. So that both walks stay on the same bytes, a field
    /// the crate reads before the child counts must declare its schema type
    /// (as every writer's do): the version (1, i32) alone before the schema;
    /// in an element, i32 fields 1-3 and 5-9, the name (4, binary) and the
    /// logical type (10, see [`Compact::logical_type`]).
    fn schema_children(&mut self) -> Parsed<()> {
        const OFF: &str = "holds a field of another type than the format's";
        let mut id = 0i16;
        while let Some((next, t)) = self.field(id)? {
            id = next;
            match (id, t) {
                (1, code::I32) => {
                    self.varint()?;
                    continue;
                }
                (2, code::LIST) => {}
                _ => return Err(OFF),
            }
            let (n, kind) = self.list_header()?;
            if n == 0 {
                return Ok(());
            }
            if kind != code::STRUCT {
                return Err(OFF);
            }
            // Every element takes at least its stop byte.
            if n > self.limit - self.consumed {
                return Err("declares more schema elements than it has bytes");
            }
            for i in 0..n {
                let mut children = None;
                self.each_field(1, |c, id, t, depth| match (id, t) {
                    (5, code::I32) => c.i32().map(|v| children = Some(v)),
                    (1..=3 | 6..=9, code::I32) | (4, code::BINARY) => c.skip(t, depth),
                    (10, code::STRUCT) => c.logical_type(depth + 1),
                    (1..=10, _) => Err(OFF),
                    _ => c.skip(t, depth),
                })?;
                if children.is_some_and(|k| k < 0 || k as u64 > n - 1 - i) {
                    return Err(
                        "declares a schema element with more children than elements follow it",
                    );
                }
            }
            return Ok(());
        }
        Ok(())
    }

    /// Skips a `LogicalType` union, each known field of its variant of the
    /// type the format gives it (the crate reads them so): Decimal (5) two
    /// i32; Time and Timestamp (7, 8) a boolean and a unit (a union of empty
    /// structs); Integer (10) a byte and a boolean; Variant (16) a byte;
    /// Geometry (17) a string; Geography (18) a string and an i32. The other
    /// variants are empty structs (the crate errors on any content), and a
    /// variant id the crate does not know it skips, as here.
    fn logical_type(&mut self, depth: usize) -> Parsed<()> {
        // Either boolean code stands for the type.
        const BOOL: u8 = code::TRUE;
        let kind = |t: u8| if t == code::FALSE { code::TRUE } else { t };
        self.each_field(depth, |c, variant, t, depth| {
            let fields: &[(i16, u8)] = match variant {
                5 => &[(1, code::I32), (2, code::I32)],
                7 | 8 => &[(1, BOOL), (2, code::STRUCT)],
                10 => &[(1, code::BYTE), (2, BOOL)],
                16 => &[(1, code::BYTE)],
                17 => &[(1, code::BINARY)],
                18 => &[(1, code::BINARY), (2, code::I32)],
                1..=18 => &[],
                _ => return c.skip(t, depth),
            };
            if t != code::STRUCT {
                return Err("holds a logical type that is not a struct");
            }
            c.each_field(depth + 1, |c, id, t, depth| {
                match fields.iter().find(|f| f.0 == id) {
                    Some(&(_, want)) if want != kind(t) => {
                        Err("holds a logical type field of another type than the format's")
                    }
                    _ => c.skip(t, depth),
                }
            })
        })
    }

    fn page_header(&mut self) -> Parsed<PageHeader> {
        let (mut kind, mut uncompressed, mut compressed) = (None, None, None);
        let mut dictionary_values = None;
        self.each_field(0, |c, id, t, depth| match (id, t) {
            (1, code::I32) => c.i32().map(|v| kind = Some(v)),
            (2, code::I32) => c.i32().map(|v| uncompressed = Some(v)),
            (3, code::I32) => c.i32().map(|v| compressed = Some(v)),
            (7, code::STRUCT) => c.each_field(depth + 1, |c, id, t, depth| match (id, t) {
                (1, code::I32) => c.i32().map(|v| dictionary_values = Some(v)),
                _ => c.skip(t, depth),
            }),
            _ => c.skip(t, depth),
        })?;
        let (Some(kind), Some(uncompressed), Some(compressed)) = (kind, uncompressed, compressed)
        else {
            return Err("lacks its type or sizes");
        };
        Ok(PageHeader {
            uncompressed,
            compressed,
            dictionary_values: dictionary_values.filter(|_| kind == DICTIONARY_PAGE),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(bytes: &[u8]) -> Parsed<PageHeader> {
        Compact::new(bytes, bytes.len() as u64).page_header()
    }

    #[test]
    fn a_valid_header_reads_and_corrupt_ones_are_errors_at_once() {
        // type 2 (dictionary), sizes 48 and 50, dictionary header {6 values, PLAIN, unsorted}.
        let good = [
            0x15, 0x04, 0x15, 0x60, 0x15, 0x64, 0x4C, 0x15, 0x0C, 0x15, 0x00, 0x12, 0x00, 0x00,
        ];
        let h = header(&good).unwrap();
        assert_eq!(
            (h.uncompressed, h.compressed, h.dictionary_values),
            (48, 50, Some(6))
        );
        // Cut short anywhere: an error.
        for n in 0..good.len() {
            assert!(header(&good[..n]).is_err(), "{n}");
        }
        // A map of 2^64 - 1 boolean pairs (found by the fuzzer: booleans in
        // a map consumed no byte, so the count looped in place).
        let mut map = vec![0x1B];
        map.extend([0xFF; 9]);
        map.extend([0x01, 0x11]);
        assert!(header(&map).is_err());
        // The same count of empty lists, and nesting past the depth limit.
        let mut lists = vec![0x19, 0xF9];
        lists.extend([0xFF; 9]);
        lists.extend([0x01, 0x09]);
        assert!(header(&lists).is_err());
        let deep = [[0x1C].as_slice(), &[0x1C; 40]].concat();
        assert!(header(&deep).is_err());
        // An i32 field beyond 32 bits.
        assert!(header(&[0x15, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]).is_err());
    }

    /// A `FileMetaData` of version 2 whose schema is a root with `children`
    /// children (zigzag `z`) and one leaf, then `rest`.
    fn footer(z: &[u8], rest: &[u8]) -> Vec<u8> {
        let mut f = vec![0x15, 0x04, 0x19, 0x2C];
        // Root: name "s" (field 4, binary), num_children (field 5, i32).
        f.extend([0x48, 0x01, b's', 0x15]);
        f.extend(z);
        f.push(0x00);
        // Leaf: name "a".
        f.extend([0x48, 0x01, b'a', 0x00]);
        f.extend(rest);
        f
    }

    fn children(bytes: &[u8]) -> Parsed<()> {
        Compact::new(bytes, bytes.len() as u64).schema_children()
    }

    #[test]
    fn schema_child_counts_must_fit_the_elements_that_follow() {
        // One child: the leaf. The fields after the schema are not read.
        assert_eq!(children(&footer(&[0x02], &[0xFF, 0xFF])), Ok(()));
        // Two children, 2^31 - 1 (the fuzzer's file asked for 16.8 GB), -1.
        assert!(children(&footer(&[0x04], &[])).is_err());
        assert!(children(&footer(&[0xFE, 0xFF, 0xFF, 0xFF, 0x0F], &[])).is_err());
        assert!(children(&footer(&[0x01], &[])).is_err());
        // A list declaring more elements than the footer has bytes.
        let long = [0x15, 0x04, 0x19, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00];
        assert!(children(&long).is_err());
        // The fuzzer's file: a child count declared as a map, which the
        // crate reads as an i32 (2.1e9) all the same.
        let mut map = vec![0x15, 0x04, 0x19, 0x2C, 0x48, 0x01, b's', 0x1B];
        map.extend([0xFE, 0xFF, 0xFF, 0xFF, 0x0F, 0x00, 0x48, 0x01, b'a', 0x00]);
        assert!(children(&map).is_err());
        // A logical type: String (an empty struct) passes; Integer with its
        // bit width declared as an i32 instead of a byte does not.
        let mut string = vec![0x15, 0x04, 0x19, 0x2C, 0x48, 0x01, b's', 0x15, 0x02, 0x00];
        string.extend([0x48, 0x01, b'a', 0x6C, 0x1C, 0x00, 0x00, 0x00]);
        assert_eq!(children(&string), Ok(()));
        let mut int = string[..string.len() - 4].to_vec();
        int.extend([0xAC, 0x15, 0x10, 0x00, 0x00, 0x00]);
        assert!(children(&int).is_err());
        let at = int.len() - 5;
        int[at] = 0x13;
        assert_eq!(children(&int), Ok(()));
        // Cut short inside the schema: an error.
        let good = footer(&[0x02], &[]);
        for n in 0..good.len() {
            assert!(children(&good[..n]).is_err(), "{n}");
        }
    }
}
