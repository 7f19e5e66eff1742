//! Opening an input: a file or standard input (`-`), gzip- or
//! zstd-compressed or not, and its format, told by its first bytes (the
//! magic numbers of gzip, zstd, Parquet and Arrow IPC) or else by its name
//! (`.parquet`, `.arrow`/`.feather`/`.ipc`, `.dat`/`.arff`, anything else
//! CSV; `.gz`/`.zst` are looked through). A [`Table`] is an opened input
//! whose column names are known; [`Table::run`] hands its rows, in
//! [`Block`](super::rows::Block)s, to a [`Sink`](super::rows::Sink).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use super::arrow::{ArrowInput, ArrowTable};
use super::csv_blocks::read_blocks;
use super::lines::{Lines, Record};
use super::rows::{ColumnType, Kind, Layout, Sink};
use super::{parse_err, trim, Format, ReadOptions};
use crate::error::{Error, Result};

enum Body<'r> {
    Csv {
        lines: Lines<BufReader<Box<dyn Read + Send + 'r>>>,
        first: Option<Record>,
        delimiter: u8,
    },
    Arrow(Box<ArrowTable<'r>>),
}

/// An opened input with known column names.
pub struct Table<'r> {
    origin: String,
    names: Vec<String>,
    types: Vec<ColumnType>,
    body: Body<'r>,
    /// Rows, when the format says (Parquet), or bytes of plain CSV.
    size: Size,
}

/// What is known of a table's size before reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Size {
    Unknown,
    Rows(u64),
    CsvBytes(u64),
}

const GZIP: &[u8] = &[0x1f, 0x8b];
const ZSTD: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];
const PARQUET: &[u8] = b"PAR1";
const IPC_FILE: &[u8] = b"ARROW1";
const IPC_STREAM: &[u8] = &[0xff, 0xff, 0xff, 0xff];
/// The first bytes of a rarity model file: binary (`persist::MAGIC`
/// without its version byte) and JSON (`{"magic":"rarity-model", ...}`).
const MODEL_BINARY: &[u8] = b"RARITYM";
const MODEL_JSON: &[u8] = b"{\"magic\"";

/// Fails when `head` starts as a rarity model file does: a model given where
/// data is read (`rarity predict m.rarity m.rarity`) would otherwise be
/// read as CSV and fail on its "header".
fn refuse_model_file(head: &[u8], origin: &str) -> Result<()> {
    if head.starts_with(MODEL_BINARY) || head.starts_with(MODEL_JSON) {
        return Err(Error::invalid(format!(
            "{origin} is a rarity model file, not a data table; give a data file here \
             (`rarity predict MODEL DATA` takes the model first; `rarity show MODEL` \
             describes a model)"
        )));
    }
    Ok(())
}

/// All of `r`, held in memory within the memory available (a clear error
/// beyond it).
fn read_whole(mut r: impl Read, origin: &str) -> Result<Vec<u8>> {
    let what = format!(
        "{origin}: the whole input (a Parquet or Arrow file keeps its schema at its end, so a \
         stream of one is held whole; give it as a file to read it in place)"
    );
    let mut bytes = Vec::new();
    loop {
        crate::limits::grow(&mut bytes, 1 << 20, &what)?;
        let room = (bytes.capacity() - bytes.len()) as u64;
        let n = (&mut r)
            .take(room)
            .read_to_end(&mut bytes)
            .map_err(|e| parse_err(origin, format!("read failed: {e}")))?;
        if n == 0 {
            return Ok(bytes);
        }
    }
}

/// Standard input, to read from; an error when it is not open for reading
/// (closed by the caller, `<&-`: the command line holds it open write-only
/// so that it cannot read as an empty file, see `cli/streams.rs`).
fn stdin() -> Result<std::io::Stdin> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: fcntl(F_GETFL) only inspects the descriptor table.
        let flags = unsafe { libc::fcntl(0, libc::F_GETFL) };
        if flags < 0 || flags & libc::O_ACCMODE == libc::O_WRONLY {
            return Err(Error::invalid(
                "standard input is not open for reading (was it closed, as with <&-?)",
            ));
        }
    }
    Ok(std::io::stdin())
}

/// The format a file name implies, looking through `.gz` / `.zst`.
fn format_of_name(name: &str) -> Format {
    let lower = name.to_ascii_lowercase();
    let base = [".gz", ".gzip", ".zst", ".zstd"]
        .iter()
        .find_map(|s| lower.strip_suffix(s))
        .unwrap_or(&lower);
    Format::from_path(Path::new(base))
}

/// A buffered byte stream of any source.
type Stream<'r> = BufReader<Box<dyn Read + Send + 'r>>;

/// A byte stream with its first bytes inspected.
fn sniff<'r>(mut r: Stream<'r>, origin: &str) -> Result<(Vec<u8>, Stream<'r>)> {
    let head = r
        .fill_buf()
        .map_err(|e| parse_err(origin, format!("read failed: {e}")))?
        .iter()
        .take(8)
        .copied()
        .collect();
    Ok((head, r))
}

impl<'r> Table<'r> {
    /// Opens `path` (`-`: standard input; a pipe or a device is read as a
    /// stream, once).
    pub fn open(path: &Path, opts: &ReadOptions) -> Result<Table<'r>> {
        if super::super::write::is_stdio(path) {
            let stdin: Box<dyn Read + Send + 'r> = Box::new(stdin()?);
            return Table::from_stream(stdin, "<stdin>", Format::Csv, opts);
        }
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        if meta.is_dir() {
            return Err(Error::invalid(format!(
                "{} is a directory, not a data file",
                path.display()
            )));
        }
        let origin = path.display().to_string();
        let by_name = format_of_name(&path.to_string_lossy());
        if !meta.is_file() {
            // A pipe or a device (`<(zcat ...)`, `/dev/stdin`): read once
            // from the start, as standard input is.
            return Table::from_stream(Box::new(file), &origin, by_name, opts);
        }
        let mut head = [0u8; 8];
        let n = read_head(&file, &mut head).map_err(|e| Error::io(path, e))?;
        let head = &head[..n];
        if head.starts_with(PARQUET) || (by_name == Format::Parquet && n == 0) {
            let t = ArrowTable::open(ArrowInput::ParquetFile(file), &origin, opts)?;
            return Ok(Table::arrow(t, origin));
        }
        if head.starts_with(IPC_FILE) {
            let t = ArrowTable::open(ArrowInput::IpcFile(file), &origin, opts)?;
            return Ok(Table::arrow(t, origin));
        }
        let compressed = head.starts_with(GZIP) || head.starts_with(ZSTD);
        let stream: Box<dyn Read + Send + 'r> = Box::new(file);
        let mut t = Table::from_stream(stream, &origin, by_name, opts)?;
        if !compressed && matches!(t.body, Body::Csv { .. }) {
            t.size = Size::CsvBytes(meta.len());
        }
        Ok(t)
    }

    /// Opens a byte stream of format `by_name` unless its first bytes say
    /// otherwise (compression, Parquet, Arrow IPC).
    pub fn from_stream(
        reader: Box<dyn Read + Send + 'r>,
        origin: &str,
        by_name: Format,
        opts: &ReadOptions,
    ) -> Result<Table<'r>> {
        let (head, r) = sniff(BufReader::with_capacity(1 << 20, reader), origin)?;
        refuse_model_file(&head, origin)?;
        if head.starts_with(GZIP) || head.starts_with(ZSTD) {
            return Table::from_stream(decompress(&head, r, origin)?, origin, by_name, opts);
        }
        if head.starts_with(PARQUET) || head.starts_with(IPC_FILE) {
            // Both keep their schema at the end: read the whole input.
            let bytes = read_whole(r, origin)?;
            let input = if head.starts_with(PARQUET) {
                ArrowInput::ParquetBytes(bytes.into())
            } else {
                ArrowInput::IpcBytes(bytes)
            };
            let t = ArrowTable::open(input, origin, opts)?;
            return Ok(Table::arrow(t, origin.to_string()));
        }
        if head.starts_with(IPC_STREAM) || by_name == Format::Ipc {
            let boxed: Box<dyn Read + Send + 'r> = Box::new(r);
            let t = ArrowTable::open(ArrowInput::IpcStream(boxed), origin, opts)?;
            return Ok(Table::arrow(t, origin.to_string()));
        }
        match by_name {
            Format::Arff => Err(Error::invalid(format!(
                "{origin}: KEEL/ARFF is read whole (read_from), not as a table"
            ))),
            Format::Parquet => Err(parse_err(
                origin,
                "not a Parquet file (it does not start with PAR1); is it truncated or another format?",
            )),
            _ => Table::csv(r, origin, opts),
        }
    }

    /// The table of Arrow `batches` in memory, each of `schema` (a Python
    /// Arrow table, a Spark partition), read as an Arrow IPC file is.
    pub fn from_batches(
        schema: arrow_schema::SchemaRef,
        batches: Vec<arrow_array::RecordBatch>,
        origin: &str,
    ) -> Result<Table<'r>> {
        let t = ArrowTable::from_batches(schema, batches, origin)?;
        Ok(Table::arrow(t, origin.to_string()))
    }

    fn arrow(t: ArrowTable<'r>, origin: String) -> Table<'r> {
        Table {
            origin,
            names: t.names.clone(),
            types: t.types.clone(),
            size: t.rows.map_or(Size::Unknown, Size::Rows),
            body: Body::Arrow(Box::new(t)),
        }
    }

    /// What is known of the size before reading.
    pub(crate) fn size(&self) -> Size {
        self.size
    }

    fn csv(
        r: BufReader<Box<dyn Read + Send + 'r>>,
        origin: &str,
        opts: &ReadOptions,
    ) -> Result<Table<'r>> {
        let inner: Box<dyn Read + Send + 'r> = Box::new(r);
        let mut lines = Lines::new(
            BufReader::with_capacity(1 << 20, inner),
            opts.delimiter,
            origin,
        );
        let mut rec = Record::default();
        let (names, first_is_data) = read_header(&mut lines, &mut rec, origin, opts.has_header)?;
        if names.len() < 2 {
            return Err(parse_err(
                origin,
                format!(
                    "found {} column(s); need at least one feature and a target \
                     (is the delimiter right? it is '{}'; Parquet and Arrow files are \
                     recognised by their first bytes)",
                    names.len(),
                    opts.delimiter as char
                ),
            ));
        }
        let types = vec![ColumnType::Any; names.len()];
        Ok(Table {
            origin: origin.to_string(),
            names,
            types,
            body: Body::Csv {
                lines,
                first: first_is_data.then_some(rec),
                delimiter: opts.delimiter,
            },
            size: Size::Unknown,
        })
    }

    /// The column names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Names the input in messages.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The layout of training data read with `opts`.
    pub(crate) fn train_layout(&self, opts: &ReadOptions) -> Result<Layout> {
        let layout = Layout::train(self.names.clone(), &[], opts, &self.origin)?;
        let mut kinds = Vec::with_capacity(self.names.len());
        for (j, t) in self.types.iter().enumerate() {
            let used = layout.roles[j] != super::rows::Role::Skip;
            let slot_kind = match layout.roles[j] {
                super::rows::Role::Feature(s) => Some(layout.slots[s].kind),
                _ => None,
            };
            let key = matches!(slot_kind, Some(Kind::Time | Kind::Group));
            kinds.push(match t {
                ColumnType::Any => None,
                // Declared (--categorical-cols): codes or one-hot whatever the type.
                _ if matches!(slot_kind, Some(Kind::Category | Kind::Level)) => slot_kind,
                ColumnType::Time(_) if key => Some(Kind::Time),
                ColumnType::Text if key => None,
                ColumnType::Number => Some(Kind::Number),
                ColumnType::Text if layout.roles[j] == super::rows::Role::Target => None,
                // A column declared COL=error stays numeric whatever the table's mode.
                ColumnType::Text if slot_kind == Some(Kind::Number) && used => {
                    return Err(text_column_error(&self.origin, &self.names[j]))
                }
                ColumnType::Text if opts.categorical == super::Categorical::OneHot => {
                    Some(Kind::Level)
                }
                ColumnType::Text if opts.categorical.keeps_codes() => Some(Kind::Category),
                ColumnType::Text if used => {
                    return Err(text_column_error(&self.origin, &self.names[j]))
                }
                ColumnType::Unsupported(ty) if used => {
                    return Err(parse_err(
                        &self.origin,
                        format!(
                            "column '{}' has type {ty}, which rarity does not read \
                             (numbers and strings only); leave it out with --drop {}",
                            self.names[j], self.names[j]
                        ),
                    ))
                }
                ColumnType::Time(ty) if used => {
                    return Err(parse_err(
                        &self.origin,
                        format!(
                            "column '{}' has type {ty}, which is not a feature rarity reads; \
                             leave it out with --drop {}, or validate in its order with \
                             --cv time(col={})",
                            self.names[j], self.names[j], self.names[j]
                        ),
                    ))
                }
                _ => None,
            });
        }
        Layout::train(self.names.clone(), &kinds, opts, &self.origin)
    }

    /// Checks that identifier columns of a predicting layout have types
    /// that can be written as text (every type here can).
    pub(crate) fn check_layout(&self, layout: &Layout) -> Result<()> {
        for (j, role) in layout.roles.iter().enumerate() {
            if let (super::rows::Role::Feature(_), ColumnType::Unsupported(ty)) =
                (role, &self.types[j])
            {
                return Err(parse_err(
                    &self.origin,
                    format!(
                        "column '{}' has type {ty}, which rarity does not read",
                        self.names[j]
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Hands every row, in blocks, to `sink`.
    pub(crate) fn run(self, layout: &Layout, sink: &mut dyn Sink) -> Result<()> {
        match self.body {
            Body::Csv {
                lines,
                first,
                delimiter,
            } => read_blocks(lines, first.as_ref(), layout, delimiter, sink),
            Body::Arrow(t) => t.run(layout, sink),
        }
    }
}

/// The error for a text column read as numbers.
fn text_column_error(origin: &str, name: &str) -> Error {
    parse_err(
        origin,
        format!(
            "column '{name}' holds text; read it with --categorical native (level codes, \
             split as sets by tree, forest and gbdt) or target (encoded by target statistics, \
             any learner), which take any number of levels, or one-hot (at most 50 levels), or \
             --drop {name} to leave it out"
        ),
    )
}

/// The decompressed stream of a gzip or zstd input (`head`: its first bytes).
fn decompress<'r>(
    head: &[u8],
    r: BufReader<Box<dyn Read + Send + 'r>>,
    origin: &str,
) -> Result<Box<dyn Read + Send + 'r>> {
    if head.starts_with(GZIP) {
        return Ok(Box::new(flate2::bufread::MultiGzDecoder::new(r)));
    }
    let d = zstd::stream::read::Decoder::with_buffer(r)
        .map_err(|e| parse_err(origin, format!("zstd: {e}")))?;
    Ok(Box::new(d))
}

/// A byte stream, decompressed if it is gzip or zstd (the KEEL/ARFF reader
/// reads such a stream whole).
pub(crate) fn plain_stream<'r>(
    reader: Box<dyn Read + Send + 'r>,
    origin: &str,
) -> Result<Box<dyn Read + Send + 'r>> {
    let (head, r) = sniff(BufReader::with_capacity(1 << 20, reader), origin)?;
    if head.starts_with(GZIP) || head.starts_with(ZSTD) {
        return plain_stream(decompress(&head, r, origin)?, origin);
    }
    Ok(Box::new(r))
}

/// The format a file name implies, looking through `.gz` / `.zst`.
pub(crate) fn name_format(path: &Path) -> Format {
    format_of_name(&path.to_string_lossy())
}

/// Reads up to 8 bytes from the start of `file` without moving its cursor.
fn read_head(file: &std::fs::File, head: &mut [u8; 8]) -> std::io::Result<usize> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let mut n = 0;
        while n < head.len() {
            let k = file.read_at(&mut head[n..], n as u64)?;
            if k == 0 {
                break;
            }
            n += k;
        }
        Ok(n)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Seek, SeekFrom};
        let mut f = file;
        let n = f.read(head)?;
        f.seek(SeekFrom::Start(0))?;
        Ok(n)
    }
}

/// Reads the header (or makes `x0, x1, ...` names) and returns the names and,
/// without a header, whether the first record (already in `rec`) is data.
pub(super) fn read_header<R: BufRead>(
    lines: &mut Lines<R>,
    rec: &mut Record,
    origin: &str,
    has_header: bool,
) -> Result<(Vec<String>, bool)> {
    if !lines.next(rec)? {
        return Err(parse_err(origin, "the file is empty"));
    }
    if !has_header {
        return Ok(((0..rec.len()).map(|j| format!("x{j}")).collect(), true));
    }
    let mut names = Vec::with_capacity(rec.len());
    for (j, f) in rec.fields().enumerate() {
        let s = std::str::from_utf8(trim(f)).map_err(|_| {
            parse_err(
                origin,
                format!(
                    "line {}: the name of column {} is not valid UTF-8",
                    rec.line,
                    j + 1
                ),
            )
        })?;
        names.push(if s.is_empty() {
            format!("x{j}")
        } else {
            s.to_string()
        });
    }
    Ok((names, false))
}
