//! The one error type of the library.
//!
//! Every message is written for the person at the keyboard: it says what was
//! wrong, where (file, line, column), and what is accepted instead. The CLI
//! prints the message on stderr and exits with [`Error::exit_code`].

use std::path::PathBuf;

/// Result alias used throughout rarity.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in rarity, with messages a person can act on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be opened, read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The input could not be parsed (bad CSV, bad KEEL/ARFF header, ...).
    #[error("{origin}: {message}")]
    Parse {
        /// File name (or `<dataset NAME>`) and, where known, `line N` / `column C`.
        origin: String,
        /// What was wrong.
        message: String,
    },
    /// The data are valid but unsuitable for the requested task
    /// (one class only, too few rows for the folds, ...).
    #[error("{0}")]
    Data(String),
    /// A parameter, option or model spec is invalid.
    #[error("{0}")]
    Invalid(String),
    /// The work was stopped on request ([`crate::cancel`]).
    #[error("interrupted")]
    Cancelled,
    /// A saved model file is truncated, foreign or of another version.
    #[error("model file {path}: {message}")]
    Model {
        /// The model file.
        path: PathBuf,
        /// What was wrong with it.
        message: String,
    },
}

impl Error {
    /// Process exit code for this error: 2 for bad input or options, 3 for I/O.
    ///
    /// ```
    /// use rarity::Error;
    /// assert_eq!(Error::Invalid("x".into()).exit_code(), 2);
    /// ```
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Io { .. } => 3,
            _ => 2,
        }
    }

    /// Shorthand for an [`Error::Invalid`].
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::Invalid(msg.into())
    }

    /// Shorthand for an [`Error::Data`].
    pub fn data(msg: impl Into<String>) -> Self {
        Error::Data(msg.into())
    }

    /// Shorthand for an [`Error::Io`] on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// The candidate closest to `word` (case-insensitive edit distance of at
/// most a third of the longer name, rounded up, or one containing the
/// other), for "did you mean" hints in error messages.
///
/// ```
/// use rarity::error::did_you_mean;
/// assert_eq!(did_you_mean("forrest", ["tree", "forest"]), Some("forest"));
/// assert_eq!(did_you_mean("smoot", ["over", "smote"]), Some("smote"));
/// assert_eq!(did_you_mean("Clas", ["x1", "class"]), Some("class"));
/// assert_eq!(did_you_mean("zzz", ["tree", "forest"]), None);
/// ```
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let w = word.to_lowercase();
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        let l = c.to_lowercase();
        let d = if l == w {
            0
        } else if w.len() >= 3 && (l.contains(&w) || w.contains(&l)) && l.len() >= 3 {
            1
        } else {
            edit_distance(&w, &l)
        };
        let limit = w.chars().count().max(l.chars().count()).div_ceil(3).max(1);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance between two strings, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
