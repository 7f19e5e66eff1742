//! Parquet and Arrow IPC (Feather v2) through the Apache `parquet` and
//! `arrow` crates: record batches (a Parquet row group is read in batches of
//! 64Ki rows; only the columns used are decoded) become [`Block`]s under the
//! same rules as CSV. Integer, float, decimal and boolean columns are
//! numbers (booleans 0/1); string columns, plain or dictionary-encoded, are
//! text (categorical levels, labels, identifiers); nulls are missing
//! values. Any other type is an error naming the column when the column is
//! used.
//!
//! Corrupt input: the Apache crates panic on some malformed files (a
//! buffer length beyond the file in an IPC message, an unknown float width
//! in the Arrow schema a Parquet file embeds; found by `tests/fuzz_readers.rs`).
//! Parquet schemas are read from the Parquet metadata alone (the embedded
//! Arrow schema is ignored), and every call into the crates runs under
//! [`guarded`], which turns a panic into an error naming the file.

use std::fs::File;
use std::io::{Cursor, Read};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal128Type, Float16Type, Float32Type, Float64Type, Int16Type,
    Int32Type, Int64Type, Int8Type, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, RecordBatch};
use arrow_schema::{ArrowError, DataType, SchemaRef};
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ProjectionMask;

use super::rows::{code, Block, ColumnType, Layout, LevelOutcome, Role, Sink, UNKNOWN};
use super::{parse_err, ReadOptions};
use crate::data::write::number::push_f64;
use crate::error::{Error, Result};

/// Rows per record batch.
const BATCH_ROWS: usize = 1 << 16;

/// Where the columnar bytes come from.
pub(crate) enum ArrowInput<'r> {
    ParquetFile(File),
    ParquetBytes(bytes::Bytes),
    IpcFile(File),
    IpcBytes(Vec<u8>),
    IpcStream(Box<dyn Read + Send + 'r>),
    /// An IPC stream whose schema message has been read.
    IpcDecoder(Box<IpcStream<'r>>),
    /// Record batches already in memory (Python's Arrow tables, a Spark
    /// partition), all of the table's schema.
    Batches(Vec<RecordBatch>),
}

/// An IPC stream decoded as its bytes arrive: a message's buffers grow with
/// the bytes actually read, so a corrupt length prefix cannot make the
/// reader allocate or wait for gigabytes that are not there.
pub(crate) struct IpcStream<'r> {
    reader: Box<dyn Read + Send + 'r>,
    decoder: arrow_ipc::reader::StreamDecoder,
    pending: arrow_buffer::Buffer,
    /// A batch decoded while looking for the schema.
    first: Option<RecordBatch>,
    eof: bool,
}

impl<'r> IpcStream<'r> {
    fn new(reader: Box<dyn Read + Send + 'r>) -> Self {
        IpcStream {
            reader,
            decoder: arrow_ipc::reader::StreamDecoder::new(),
            pending: arrow_buffer::Buffer::from(Vec::<u8>::new()),
            first: None,
            eof: false,
        }
    }

    /// The next batch decoded from the bytes read so far and more.
    fn next_batch(&mut self) -> std::result::Result<Option<RecordBatch>, ArrowError> {
        if let Some(b) = self.first.take() {
            return Ok(Some(b));
        }
        loop {
            if !self.pending.is_empty() {
                if let Some(b) = self.decoder.decode(&mut self.pending)? {
                    return Ok(Some(b));
                }
                continue;
            }
            if self.eof {
                self.decoder.finish()?;
                return Ok(None);
            }
            let mut chunk = vec![0u8; 1 << 20];
            let n = loop {
                match self.reader.read(&mut chunk) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(ArrowError::IoError(e.to_string(), e)),
                }
            };
            if n == 0 {
                self.eof = true;
            } else {
                chunk.truncate(n);
                self.pending = arrow_buffer::Buffer::from(chunk);
            }
        }
    }

    /// Reads until the schema message has been decoded.
    fn schema(&mut self) -> std::result::Result<SchemaRef, ArrowError> {
        loop {
            if let Some(s) = self.decoder.schema() {
                return Ok(s);
            }
            match self.next_batch()? {
                Some(b) => self.first = Some(b),
                None => {
                    return Err(ArrowError::IpcError(
                        "the stream ends before its schema".into(),
                    ))
                }
            }
        }
    }
}

/// An opened Parquet or IPC input.
pub(crate) struct ArrowTable<'r> {
    origin: String,
    input: ArrowInput<'r>,
    schema: SchemaRef,
    pub(crate) names: Vec<String>,
    pub(crate) types: Vec<ColumnType>,
    /// Rows, when the metadata says (Parquet).
    pub(crate) rows: Option<u64>,
}

fn arrow_err(origin: &str, e: impl std::fmt::Display) -> Error {
    parse_err(origin, format!("{e}"))
}

thread_local! {
    /// Set while this thread runs a guarded call: its panics are errors.
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, turning a panic inside it into an error that says the input
/// is corrupt; the panic's message is not printed.
pub(crate) fn guarded<T>(origin: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    let was = GUARDED.with(|g| g.replace(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(was));
    r.unwrap_or_else(|p| {
        let why = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(parse_err(
            origin,
            format!("the file is corrupt or truncated ({why})"),
        ))
    })
}

/// Checks that every block an IPC file's footer lists lies inside the file
/// (arrow-ipc allocates a block's claimed length before reading it, so a
/// corrupt footer could ask for terabytes).
fn check_ipc_blocks<R: Read + std::io::Seek>(r: &mut R, origin: &str) -> Result<()> {
    use std::io::SeekFrom;
    let corrupt = |why: &str| {
        parse_err(
            origin,
            format!("the Arrow file is corrupt or truncated ({why})"),
        )
    };
    let io = |e: std::io::Error| parse_err(origin, format!("read failed: {e}"));
    let len = r.seek(SeekFrom::End(0)).map_err(io)?;
    if len < 10 {
        return Err(corrupt("too short"));
    }
    let mut trailer = [0u8; 10];
    r.seek(SeekFrom::Start(len - 10)).map_err(io)?;
    r.read_exact(&mut trailer).map_err(io)?;
    let footer_len =
        arrow_ipc::reader::read_footer_length(trailer).map_err(|e| arrow_err(origin, e))?;
    if footer_len as u64 > len - 10 {
        return Err(corrupt("its footer is longer than the file"));
    }
    let mut footer = vec![0u8; footer_len];
    r.seek(SeekFrom::Start(len - 10 - footer_len as u64))
        .map_err(io)?;
    r.read_exact(&mut footer).map_err(io)?;
    let footer = arrow_ipc::root_as_footer(&footer).map_err(|e| corrupt(&e.to_string()))?;
    let blocks = footer
        .recordBatches()
        .into_iter()
        .flatten()
        .chain(footer.dictionaries().into_iter().flatten());
    for b in blocks {
        let end = u64::try_from(b.offset())
            .ok()
            .zip(u64::try_from(b.metaDataLength()).ok())
            .zip(u64::try_from(b.bodyLength()).ok())
            .and_then(|((o, m), l)| o.checked_add(m)?.checked_add(l));
        if end.is_none_or(|e| e > len) {
            return Err(corrupt("a block lies beyond the end of the file"));
        }
    }
    r.seek(SeekFrom::Start(0)).map_err(io)?;
    Ok(())
}

fn parquet_builder<T: parquet::file::reader::ChunkReader + 'static>(
    input: T,
    origin: &str,
) -> Result<ParquetRecordBatchReaderBuilder<T>> {
    super::parquet_checks::check_footer(&input, origin)?;
    let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
    ParquetRecordBatchReaderBuilder::try_new_with_options(input, options)
        .map_err(|e| arrow_err(origin, e))
}

/// The column type rarity reads a data type as.
fn column_type(t: &DataType) -> ColumnType {
    use DataType::*;
    match t {
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 | Float16 | Float32
        | Float64 | Boolean | Decimal128(..) => ColumnType::Number,
        Utf8 | LargeUtf8 | Utf8View => ColumnType::Text,
        Dictionary(_, v) if matches!(**v, Utf8 | LargeUtf8 | Utf8View) => ColumnType::Text,
        Null => ColumnType::Number,
        Date32 | Date64 | Timestamp(..) => ColumnType::Time(t.to_string()),
        other => ColumnType::Unsupported(other.to_string()),
    }
}

impl<'r> ArrowTable<'r> {
    pub(crate) fn open(input: ArrowInput<'r>, origin: &str, opts: &ReadOptions) -> Result<Self> {
        guarded(origin, || ArrowTable::open_unguarded(input, origin, opts))
    }

    fn open_unguarded(input: ArrowInput<'r>, origin: &str, _opts: &ReadOptions) -> Result<Self> {
        let parquet_rows = |m: &parquet::file::metadata::ParquetMetaData| {
            u64::try_from(m.file_metadata().num_rows()).ok()
        };
        let mut rows = None;
        let schema = match &input {
            ArrowInput::ParquetFile(f) => {
                let f = f.try_clone().map_err(|e| Error::io(origin, e))?;
                let b = parquet_builder(f, origin)?;
                rows = parquet_rows(b.metadata());
                b.schema().clone()
            }
            ArrowInput::ParquetBytes(b) => {
                let b = parquet_builder(b.clone(), origin)?;
                rows = parquet_rows(b.metadata());
                b.schema().clone()
            }
            ArrowInput::IpcFile(f) => {
                let mut f = f.try_clone().map_err(|e| Error::io(origin, e))?;
                check_ipc_blocks(&mut f, origin)?;
                arrow_ipc::reader::FileReader::try_new(f, None)
                    .map_err(|e| arrow_err(origin, e))?
                    .schema()
            }
            ArrowInput::IpcBytes(b) => {
                check_ipc_blocks(&mut Cursor::new(b.as_slice()), origin)?;
                arrow_ipc::reader::FileReader::try_new(Cursor::new(b.as_slice()), None)
                    .map_err(|e| arrow_err(origin, e))?
                    .schema()
            }
            ArrowInput::IpcStream(_) => {
                // The stream's schema is its first message: read it now.
                let ArrowInput::IpcStream(r) = input else {
                    unreachable!()
                };
                let mut stream = IpcStream::new(r);
                let schema = stream.schema().map_err(|e| arrow_err(origin, e))?;
                return Ok(ArrowTable::with_schema(
                    ArrowInput::IpcDecoder(Box::new(stream)),
                    schema,
                    origin,
                ));
            }
            ArrowInput::IpcDecoder(_) => {
                return Err(Error::invalid("an IPC stream is opened once"));
            }
            ArrowInput::Batches(_) => {
                return Err(Error::invalid(
                    "batches in memory are opened with their schema",
                ));
            }
        };
        let mut t = ArrowTable::with_schema(input, schema, origin);
        t.rows = rows;
        Ok(t)
    }

    /// The table of `batches`, each of `schema` (checked).
    pub(crate) fn from_batches(
        schema: SchemaRef,
        batches: Vec<RecordBatch>,
        origin: &str,
    ) -> Result<Self> {
        if let Some(b) = (batches.iter()).find(|b| b.schema().fields() != schema.fields()) {
            return Err(parse_err(
                origin,
                format!(
                    "a batch's columns ({}) differ from the table's ({})",
                    field_list(&b.schema()),
                    field_list(&schema)
                ),
            ));
        }
        let rows = batches.iter().map(|b| b.num_rows() as u64).sum();
        let mut t = ArrowTable::with_schema(ArrowInput::Batches(batches), schema, origin);
        t.rows = Some(rows);
        Ok(t)
    }

    fn with_schema(input: ArrowInput<'r>, schema: SchemaRef, origin: &str) -> Self {
        let names = schema.fields().iter().map(|f| f.name().clone()).collect();
        let types = schema
            .fields()
            .iter()
            .map(|f| column_type(f.data_type()))
            .collect();
        ArrowTable {
            origin: origin.to_string(),
            input,
            schema,
            names,
            types,
            rows: None,
        }
    }

    /// Reads every batch of the columns the layout uses into blocks. The
    /// Apache crates decode the next batch on a second thread while this
    /// one turns the current batch into a block and hands it to the sink;
    /// batches keep their order, so the result is that of one thread.
    pub(crate) fn run(self, layout: &Layout, sink: &mut dyn Sink) -> Result<()> {
        let used: Vec<usize> = (0..self.names.len())
            .filter(|&j| layout.roles[j] != Role::Skip)
            .collect();
        let origin = self.origin.clone();
        let schema = self.schema.clone();
        let mut batches = guarded(&origin, || self.batches(&used))?;
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<RecordBatch>>(2);
        std::thread::scope(|scope| {
            let origin = &origin;
            // Built, not `scope.spawn`: a thread that cannot start (the
            // process limit reached) is an error, not a panic.
            let decoder = std::thread::Builder::new().name("rarity-decode".into());
            decoder
                .spawn_scoped(scope, move || loop {
                    let next = guarded(origin, || Ok(batches.next()))
                        .and_then(|b| b.map(|b| b.map_err(|e| arrow_err(origin, e))).transpose());
                    let stop = !matches!(next, Ok(Some(_)));
                    // A closed channel: the reader stopped on an error.
                    if let Some(item) = next.transpose() {
                        if tx.send(item).is_err() {
                            return;
                        }
                    }
                    if stop {
                        return;
                    }
                })
                .map_err(|e| {
                    Error::invalid(format!(
                        "{origin}: could not start a reading thread ({e}); the process may have \
                     reached its limit of processes (ulimit -u)"
                    ))
                })?;
            let mut block = Block::new(layout);
            let mut row_index = 0usize;
            for batch in rx {
                let batch = batch?;
                block.reset(layout);
                guarded(origin, || {
                    decode(&batch, &used, layout, &schema, row_index, &mut block)
                })?;
                row_index += batch.num_rows();
                sink.take(&mut block)?;
            }
            Ok(())
        })
    }

    /// The record batches of the `used` columns.
    #[allow(clippy::type_complexity)]
    fn batches(
        self,
        used: &[usize],
    ) -> Result<Box<dyn Iterator<Item = std::result::Result<RecordBatch, ArrowError>> + Send + 'r>>
    {
        let origin = self.origin.clone();
        let used = used.to_vec();
        let batches: Box<
            dyn Iterator<Item = std::result::Result<RecordBatch, ArrowError>> + Send + 'r,
        > = match self.input {
            ArrowInput::ParquetFile(f) => {
                let probe = f.try_clone().map_err(|e| Error::io(&origin, e))?;
                parquet_batches(f, probe, &used, &origin)?
            }
            ArrowInput::ParquetBytes(b) => parquet_batches(b.clone(), b, &used, &origin)?,
            ArrowInput::IpcFile(f) => Box::new(
                arrow_ipc::reader::FileReader::try_new(f, Some(used.clone()))
                    .map_err(|e| arrow_err(&origin, e))?,
            ),
            ArrowInput::IpcBytes(b) => Box::new(
                arrow_ipc::reader::FileReader::try_new(Cursor::new(b), Some(used.clone()))
                    .map_err(|e| arrow_err(&origin, e))?,
            ),
            ArrowInput::IpcDecoder(r) => Box::new(StreamBatches {
                stream: r,
                used: used.clone(),
            }),
            ArrowInput::IpcStream(r) => Box::new(StreamBatches {
                stream: Box::new(IpcStream::new(r)),
                used: used.clone(),
            }),
            ArrowInput::Batches(b) => Box::new(b.into_iter().map(move |b| b.project(&used))),
        };
        Ok(batches)
    }
}

/// `name: type, ...` of a schema's fields, for an error message.
fn field_list(s: &arrow_schema::Schema) -> String {
    (s.fields().iter())
        .map(|f| format!("{}: {}", f.name(), f.data_type()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The record batches of the `used` columns of a Parquet file, whose
/// page headers are checked first through `probe`, a second handle on
/// the same bytes ([`super::parquet_checks`]).
fn parquet_batches<T: parquet::file::reader::ChunkReader + 'static>(
    input: T,
    probe: T,
    used: &[usize],
    origin: &str,
) -> Result<Box<dyn Iterator<Item = std::result::Result<RecordBatch, ArrowError>> + Send>> {
    let builder = parquet_builder(input, origin)?;
    let mask = ProjectionMask::roots(builder.parquet_schema(), used.iter().copied());
    let leaves: Vec<usize> = (0..builder.parquet_schema().num_columns())
        .filter(|&i| mask.leaf_included(i))
        .collect();
    super::parquet_checks::check_pages(&probe, builder.metadata(), &leaves, origin)?;
    let reader = builder
        .with_projection(mask)
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|e| arrow_err(origin, e))?;
    Ok(Box::new(reader))
}

/// The batches of an opened IPC stream, projected to the used columns.
struct StreamBatches<'r> {
    stream: Box<IpcStream<'r>>,
    used: Vec<usize>,
}

impl Iterator for StreamBatches<'_> {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.stream.next_batch() {
            Ok(None) => None,
            Ok(Some(b)) => Some(b.project(&self.used)),
            Err(e) => Some(Err(e)),
        }
    }
}

/// Calls `f(row, value)` for every value of a numeric column (`None` where
/// null), without collecting them; `false` if the column is not numeric.
fn each_number(a: &dyn Array, mut f: impl FnMut(usize, Option<f64>)) -> bool {
    macro_rules! prim {
        ($t:ty, $conv:expr) => {{
            let p = a.as_primitive::<$t>();
            let conv = $conv;
            if p.null_count() == 0 {
                p.values()
                    .iter()
                    .enumerate()
                    .for_each(|(i, &v)| f(i, Some(conv(v))));
            } else {
                p.iter().enumerate().for_each(|(i, v)| f(i, v.map(conv)));
            }
        }};
    }
    match a.data_type() {
        DataType::Int8 => prim!(Int8Type, f64::from),
        DataType::Int16 => prim!(Int16Type, f64::from),
        DataType::Int32 => prim!(Int32Type, f64::from),
        DataType::Int64 => prim!(Int64Type, |v: i64| v as f64),
        DataType::UInt8 => prim!(UInt8Type, f64::from),
        DataType::UInt16 => prim!(UInt16Type, f64::from),
        DataType::UInt32 => prim!(UInt32Type, f64::from),
        DataType::UInt64 => prim!(UInt64Type, |v: u64| v as f64),
        DataType::Float32 => prim!(Float32Type, f64::from),
        DataType::Float64 => prim!(Float64Type, |v: f64| v),
        DataType::Float16 => prim!(Float16Type, f64::from),
        DataType::Boolean => a
            .as_boolean()
            .iter()
            .enumerate()
            .for_each(|(i, v)| f(i, v.map(|b| f64::from(u8::from(b))))),
        DataType::Decimal128(_, scale) => {
            let s = 10f64.powi(i32::from(*scale));
            prim!(Decimal128Type, |v: i128| v as f64 / s)
        }
        DataType::Null => (0..a.len()).for_each(|i| f(i, None)),
        _ => return false,
    }
    true
}

/// Calls `f(row, seconds)` for every value of a date or timestamp column
/// (`None` where null): seconds since 1970-01-01 UTC (a timestamp without a
/// zone is read as UTC); `false` if the column is not one.
fn each_seconds(a: &dyn Array, mut f: impl FnMut(usize, Option<f64>)) -> bool {
    use arrow_schema::TimeUnit;
    fn scaled<T: ArrowPrimitiveType>(
        a: &dyn Array,
        per_second: f64,
        f: &mut dyn FnMut(usize, Option<f64>),
    ) where
        T::Native: Into<i64>,
    {
        let p = a.as_primitive::<T>();
        p.iter().enumerate().for_each(|(i, v)| {
            f(
                i,
                v.map(|v| {
                    let v: i64 = v.into();
                    v as f64 / per_second
                }),
            )
        });
    }
    match a.data_type() {
        DataType::Date32 => a
            .as_primitive::<Date32Type>()
            .iter()
            .enumerate()
            .for_each(|(i, v)| f(i, v.map(|d| f64::from(d) * 86_400.0))),
        DataType::Date64 => scaled::<Date64Type>(a, 1e3, &mut f),
        DataType::Timestamp(TimeUnit::Second, _) => scaled::<TimestampSecondType>(a, 1.0, &mut f),
        DataType::Timestamp(TimeUnit::Millisecond, _) => {
            scaled::<TimestampMillisecondType>(a, 1e3, &mut f)
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            scaled::<TimestampMicrosecondType>(a, 1e6, &mut f)
        }
        DataType::Timestamp(TimeUnit::Nanosecond, _) => {
            scaled::<TimestampNanosecondType>(a, 1e9, &mut f)
        }
        _ => return false,
    }
    true
}

/// A column's values as numbers (`None` where null): integers, floats,
/// decimals and booleans (`None` for any other type).
pub fn numbers(a: &dyn Array) -> Option<Vec<Option<f64>>> {
    let mut out = Vec::with_capacity(a.len());
    each_number(a, |_, v| out.push(v)).then_some(out)
}

/// A column's values as text (`None` where null): strings as they are,
/// numbers as rarity writes them (so a label column reads as the same
/// class names from Parquet, Arrow and CSV). `None` for other types.
pub fn texts(a: &ArrayRef) -> Option<Vec<Option<String>>> {
    if let Some(v) = numbers(a.as_ref()) {
        return Some(
            v.into_iter()
                .map(|v| {
                    v.map(|v| {
                        let mut b = Vec::new();
                        push_f64(&mut b, v);
                        String::from_utf8(b).expect("ASCII")
                    })
                })
                .collect(),
        );
    }
    let owned = |it: &mut dyn Iterator<Item = Option<&str>>| {
        it.map(|s| s.map(str::to_string)).collect::<Vec<_>>()
    };
    Some(match a.data_type() {
        DataType::Utf8 => owned(&mut a.as_string::<i32>().iter()),
        DataType::LargeUtf8 => owned(&mut a.as_string::<i64>().iter()),
        DataType::Utf8View => owned(&mut a.as_string_view().iter()),
        DataType::Dictionary(_, _) => {
            let d = a.as_any_dictionary();
            let values = texts(d.values())?;
            let keys = d.normalized_keys();
            (0..a.len())
                .map(|i| {
                    if a.is_null(i) {
                        None
                    } else {
                        values[keys[i]].clone()
                    }
                })
                .collect()
        }
        _ => return None,
    })
}

/// One batch into `block`, under the layout's rules.
fn decode(
    batch: &RecordBatch,
    used: &[usize],
    layout: &Layout,
    schema: &SchemaRef,
    first_row: usize,
    block: &mut Block,
) -> Result<()> {
    if batch.num_columns() != used.len() {
        return Err(parse_err(
            &layout.origin,
            "a record batch has another number of columns than the schema",
        ));
    }
    let n = batch.num_rows();
    // Columns decoded once, by role; numbers go straight into the block.
    block.x.clear();
    block.x.resize(n * layout.slots.len(), 0.0);
    let mut columns = Columns {
        layout,
        first_row,
        missing: vec![None; n],
        labels: None,
        ids: Vec::new(),
        levels: Vec::new(),
    };
    for (c, &j) in used.iter().enumerate() {
        columns.decode(batch.column(c), j, schema, block)?;
    }
    block.rows_read = n;
    columns.keep_rows(block)
}

/// The columns of one batch, decoded by role: numbers go straight into the
/// block's rows, the rest waits here until the rows are kept.
struct Columns<'a> {
    layout: &'a Layout,
    /// The file's row number of the batch's first row, less one.
    first_row: usize,
    /// Per row: the first column missing a value.
    missing: Vec<Option<usize>>,
    labels: Option<Target>,
    /// Per id column: its index among the ids and its values.
    ids: Vec<(usize, Vec<Option<String>>)>,
    /// Per categorical feature: its slot, its column and its values.
    levels: Vec<(usize, usize, Vec<Option<String>>)>,
}

impl Columns<'_> {
    /// Column `j` of the schema, `col` in this batch, by its role.
    fn decode(
        &mut self,
        col: &ArrayRef,
        j: usize,
        schema: &SchemaRef,
        block: &mut Block,
    ) -> Result<()> {
        let layout = self.layout;
        let origin = &layout.origin;
        let unsupported = || {
            parse_err(
                origin,
                format!(
                    "column '{}' has type {}, which rarity does not read",
                    layout.names[j],
                    schema.field(j).data_type()
                ),
            )
        };
        if col.data_type() != schema.field(j).data_type() {
            return Err(parse_err(
                origin,
                format!(
                    "column '{}' changes type from {} to {} between row groups",
                    layout.names[j],
                    schema.field(j).data_type(),
                    col.data_type()
                ),
            ));
        }
        match layout.roles[j] {
            Role::Skip => {}
            Role::Check => {
                for (i, m) in self.missing.iter_mut().enumerate() {
                    if col.is_null(i) {
                        m.get_or_insert(j);
                    }
                }
            }
            Role::Target => {
                let t = if column_type(col.data_type()) == ColumnType::Number {
                    Target::Numbers(numbers(col.as_ref()).ok_or_else(unsupported)?)
                } else {
                    Target::Texts(texts(col).ok_or_else(unsupported)?)
                };
                for (i, m) in self.missing.iter_mut().enumerate() {
                    if t.is_null(i) {
                        m.get_or_insert(j);
                    }
                }
                self.labels = Some(t);
            }
            Role::Id(i) => self.ids.push((i, texts(col).ok_or_else(unsupported)?)),
            Role::Feature(s) => self.feature(col, j, s, block, unsupported)?,
        }
        Ok(())
    }

    /// Feature column `j` (slot `s`): numbers and times into the block's
    /// rows, levels kept for [`Columns::keep_rows`].
    fn feature(
        &mut self,
        col: &ArrayRef,
        j: usize,
        s: usize,
        block: &mut Block,
        unsupported: impl Fn() -> Error,
    ) -> Result<()> {
        let layout = self.layout;
        let m = layout.slots.len();
        let kind = layout.slots[s].kind;
        let missing = &mut self.missing;
        let column = column_type(col.data_type());
        // A slot whose missing value is kept reads it as NaN.
        let nan_missing = layout.slots[s].missing_ok;
        if column == ColumnType::Number
            && matches!(kind, super::rows::Kind::Level | super::rows::Kind::Category)
        {
            // A model's categorical column, or a declared one, given as numbers.
            let t = texts(col).ok_or_else(unsupported)?;
            for (i, v) in t.iter().enumerate() {
                if v.is_none() && !nan_missing {
                    missing[i].get_or_insert(j);
                }
            }
            self.levels.push((s, j, t));
        } else if column == ColumnType::Number {
            let mut bad = None;
            let x = &mut block.x;
            each_number(col.as_ref(), |i, v| match v {
                Some(v) if v.is_finite() => x[i * m + s] = v,
                Some(_) => {
                    bad.get_or_insert(i);
                }
                None if nan_missing => x[i * m + s] = f64::NAN,
                None => {
                    missing[i].get_or_insert(j);
                }
            });
            if let Some(i) = bad {
                return Err(parse_err(
                    &layout.origin,
                    format!(
                        "row {}, column '{}': not a finite number",
                        self.first_row + i + 1,
                        layout.names[j]
                    ),
                ));
            }
        } else if matches!(column, ColumnType::Time(_)) {
            let x = &mut block.x;
            let read = each_seconds(col.as_ref(), |i, v| match v {
                Some(v) => x[i * m + s] = v,
                None => {
                    missing[i].get_or_insert(j);
                }
            });
            if !read {
                return Err(unsupported());
            }
        } else if kind == super::rows::Kind::Time {
            let t = texts(col).ok_or_else(unsupported)?;
            for (i, v) in t.iter().enumerate() {
                match v {
                    Some(v) => {
                        let line = format!("row {}", self.first_row + i + 1);
                        block.x[i * m + s] = layout.time_value(&line, j, v.trim().as_bytes())?;
                    }
                    None => {
                        missing[i].get_or_insert(j);
                    }
                }
            }
        } else {
            let t = texts(col).ok_or_else(unsupported)?;
            if kind == super::rows::Kind::Number {
                let i = t.iter().position(Option::is_some).unwrap_or(0);
                let field = t.get(i).cloned().flatten().unwrap_or_default();
                return Err(layout.not_a_number(
                    &format!("row {}", self.first_row + i + 1),
                    j,
                    field.as_bytes(),
                ));
            }
            for (i, v) in t.iter().enumerate() {
                if v.is_none() && !nan_missing {
                    missing[i].get_or_insert(j);
                }
            }
            self.levels.push((s, j, t));
        }
        Ok(())
    }

    /// The batch's rows into `block`: rows missing a value dropped (or an
    /// error, by the layout's rule), levels coded, labels and ids added.
    fn keep_rows(self, block: &mut Block) -> Result<()> {
        let layout = self.layout;
        let m = layout.slots.len();
        let n_ids = layout.id_names.len();
        // Rows are kept in place: row i moves to `kept` (never ahead of i).
        let mut kept = 0usize;
        let mut label_ids = LabelIds::default();
        let kept_slots: Vec<usize> = (0..m).filter(|&s| layout.slots[s].missing_ok).collect();
        for (i, missing) in self.missing.iter().enumerate() {
            if let Some(j) = *missing {
                layout.drop_incomplete(block, &format!("row {}", self.first_row + i + 1), j)?;
                continue;
            }
            let row = &block.x[i * m..(i + 1) * m];
            block.kept_missing += kept_slots.iter().filter(|&&s| row[s].is_nan()).count();
            let mut unknown = false;
            for (s, j, t) in &self.levels {
                let Some(v) = t[i].as_deref() else {
                    // A kept missing level (a dropped row never gets here).
                    block.x[i * m + s] = f64::NAN;
                    block.kept_missing += 1;
                    continue;
                };
                let value = match block.level(layout, *s, v.as_bytes(), false) {
                    LevelOutcome::Code(c) => code(c),
                    LevelOutcome::Unknown => {
                        unknown = true;
                        code(UNKNOWN)
                    }
                    LevelOutcome::TooMany | LevelOutcome::Overflow | LevelOutcome::AsNumber => {
                        return Err(layout.too_many_levels(*s, Some(v)))
                    }
                    LevelOutcome::NotUtf8 => {
                        return Err(parse_err(
                            &layout.origin,
                            format!("column '{}': not valid UTF-8", layout.names[*j]),
                        ))
                    }
                };
                block.x[i * m + s] = value;
            }
            if unknown {
                block.unknown_rows += 1;
            }
            if kept != i {
                block.x.copy_within(i * m..(i + 1) * m, kept * m);
            }
            kept += 1;
            if let Some(l) = &self.labels {
                let id = label_ids.intern(l, i, &mut block.label_dict);
                block.labels.push(id);
            }
            if n_ids > 0 {
                let start = block.ids.len();
                block.ids.resize(start + n_ids, String::new());
                for (k, t) in &self.ids {
                    block.ids[start + k] = t[i].clone().unwrap_or_default();
                }
            }
        }
        block.x.truncate(kept * m);
        Ok(())
    }
}

/// A target column's values.
enum Target {
    Numbers(Vec<Option<f64>>),
    Texts(Vec<Option<String>>),
}

impl Target {
    fn is_null(&self, i: usize) -> bool {
        match self {
            Target::Numbers(v) => v[i].is_none(),
            Target::Texts(v) => v[i].is_none(),
        }
    }
}

/// Interns labels; a numeric label is written as text (as rarity writes
/// numbers) once per distinct value of the batch, not once per row.
#[derive(Default)]
struct LabelIds {
    /// (value bits, label id), for the first few distinct values.
    seen: Vec<(u64, u32)>,
    text: Vec<u8>,
}

impl LabelIds {
    /// Distinct numeric values remembered per batch.
    const SEEN: usize = 64;

    fn intern(&mut self, t: &Target, i: usize, dict: &mut super::labels::Interner) -> u32 {
        match t {
            Target::Texts(v) => dict
                .intern(v[i].as_deref().unwrap_or("").as_bytes())
                .expect("strings are UTF-8"),
            Target::Numbers(v) => {
                let value = v[i].unwrap_or(0.0);
                let bits = value.to_bits();
                if let Some(&(_, id)) = self.seen.iter().find(|(b, _)| *b == bits) {
                    return dict.repeat(id);
                }
                self.text.clear();
                push_f64(&mut self.text, value);
                let id = dict.intern(&self.text).expect("numbers are ASCII");
                if self.seen.len() < Self::SEEN {
                    self.seen.push((bits, id));
                }
                id
            }
        }
    }
}
