//! A check of a Parquet file's page headers before the parquet crate
//! trusts them.
//!
//! The crate sizes buffers from counts a page header declares, before it
//! has decoded anything: a page's uncompressed size (it allocates it, and
//! the Snappy decoder fills it, so a 1.5 KB file claiming a 2 GB page cost
//! 2 GB of memory) and a dictionary's value count (a float column claiming
//! 1.6 billion values in a few bytes filled 13 GB before the crate's "not
//! enough bytes" error). Both were found by `tests/fuzz_readers.rs`.
//!
//! So every page header of every column chunk to be read is decoded here
//! first (headers only, walked from one to the next through the chunk) and
//! must be plausible:
//! - the page lies inside its column chunk;
//! - its uncompressed size is one the codec can produce from its
//!   compressed bytes (at most 32x for Snappy, 256x for LZ4, 1,032x for
//!   gzip's deflate, 32,768x for Zstandard: one byte per 128 KiB block);
//! - a dictionary page's bytes hold its value count: a bit per boolean,
//!   the type's width per fixed-width value, a four-byte length per string.
//!
//! The crate's own page-header decoder is private, so the header is read
//! here from Thrift's compact encoding (the Parquet format's `PageHeader`:
//! 1 type, 2 uncompressed size, 3 compressed size, 7 dictionary header
//! {1 value count}; every other field is skipped). A well-formed file
//! passes unchanged.

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
}

type Parsed<T> = std::result::Result<T, &'static str>;

impl<R: Read> Compact<R> {
    fn new(input: R, limit: u64) -> Self {
        Compact {
            input,
            limit,
            consumed: 0,
        }
    }

    fn byte(&mut self) -> Parsed<u8> {
        if self.consumed >= self.limit {
            return Err("runs past its column chunk");
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
            code::BINARY => {
                let n = self.varint()?;
                self.skip_bytes(n)
            }
            code::LIST | code::SET => {
                let head = self.byte()?;
                let n = match head >> 4 {
                    15 => self.varint()?,
                    n => u64::from(n),
                };
                for _ in 0..n {
                    self.skip_element(head & 0x0f, depth + 1)?;
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

    /// Calls `f(self, field id, type, depth)` for each field of a struct,
    /// up to its stop byte.
    fn each_field(
        &mut self,
        depth: usize,
        mut f: impl FnMut(&mut Self, i16, u8, usize) -> Parsed<()>,
    ) -> Parsed<()> {
        let mut id = 0i16;
        loop {
            let head = self.byte()?;
            if head == 0 {
                return Ok(());
            }
            let t = head & 0x0f;
            id = match head >> 4 {
                0 => i16::try_from(self.i32()?).map_err(|_| "holds a bad field id")?,
                delta => id.wrapping_add(i16::from(delta)),
            };
            f(self, id, t, depth)?;
        }
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
}
