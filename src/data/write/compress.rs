//! Compression of a table by its name, as the readers decompress by it
//! (`.gz`/`.gzip`: gzip, `.zst`/`.zstd`: Zstandard; the same suffix test as
//! `data::read::source`): the compressed stream sits under the output's
//! buffer and is finished (trailer written, errors reported) on commit.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// A compression a file name asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Codec {
    Gzip,
    Zstd,
}

/// The compression `path`'s name asks for, if any.
pub(super) fn codec_of(path: &Path) -> Option<Codec> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".gz") || name.ends_with(".gzip") {
        Some(Codec::Gzip)
    } else if name.ends_with(".zst") || name.ends_with(".zstd") {
        Some(Codec::Zstd)
    } else {
        None
    }
}

/// `path` without its compression suffix (`x.csv.gz` -> `x.csv`).
pub(super) fn strip_codec(path: &Path) -> std::path::PathBuf {
    match codec_of(path) {
        Some(_) => path.with_extension(""),
        None => path.to_path_buf(),
    }
}

type Inner = Box<dyn Write + Send>;

enum Encoder {
    Gzip(flate2::write::GzEncoder<Inner>),
    Zstd(zstd::stream::write::Encoder<'static, Inner>),
}

type Shared = Arc<Mutex<Option<Encoder>>>;

/// The handle that finishes the encoder shared with the writer handed out.
pub(super) struct Finisher(Shared);

/// Wraps `inner` in `codec`'s encoder: the writer to put under the buffer
/// and the handle to finish it with.
pub(super) fn wrap(codec: Codec, inner: Inner) -> std::io::Result<(Inner, Finisher)> {
    let enc = match codec {
        Codec::Gzip => Encoder::Gzip(flate2::write::GzEncoder::new(
            inner,
            flate2::Compression::default(),
        )),
        Codec::Zstd => Encoder::Zstd(zstd::stream::write::Encoder::new(inner, 3)?),
    };
    let shared = Arc::new(Mutex::new(Some(enc)));
    Ok((Box::new(Compressing(shared.clone())), Finisher(shared)))
}

impl Finisher {
    /// Writes the trailer and flushes the sink below.
    pub(super) fn finish(&self) -> std::io::Result<()> {
        let enc = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        let mut inner = match enc {
            Some(Encoder::Gzip(g)) => g.finish()?,
            Some(Encoder::Zstd(z)) => z.finish()?,
            None => return Ok(()),
        };
        inner.flush()
    }
}

struct Compressing(Shared);

impl Write for Compressing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.0.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            Some(Encoder::Gzip(g)) => g.write(buf),
            Some(Encoder::Zstd(z)) => z.write(buf),
            None => Err(std::io::Error::other(
                "write after the compressed stream ended",
            )),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        // A flush must not end a compressed block early; `finish` flushes.
        Ok(())
    }
}
