//! The library's typed errors: [`Error`] ends a run before it starts or
//! when toolcap itself cannot go on; a [`Problem`] is a failure that the
//! run survived (it still printed what it could) and that fails it.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why toolcap could not run, or could not go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Options that contradict each other, or a spill file that is also an
    /// input or an output. Nothing was read, written or started.
    #[error("{0}")]
    Usage(String),
    /// The spill store refused a request: no such output, an ambiguous id,
    /// or a store that is not private.
    #[error("{0}")]
    Store(String),
    /// An operating-system failure that toolcap cannot work around.
    #[error("{context}: {source}")]
    Io {
        /// What toolcap was doing.
        context: String,
        /// Why it failed.
        source: io::Error,
    },
    /// A thread of toolcap's own panicked: a bug. What it was doing is
    /// lost, so the run cannot say what it read.
    #[error("the thread {doing} panicked: a bug in toolcap")]
    Panicked {
        /// What the thread was doing, as in `reading the input`.
        doing: &'static str,
    },
}

impl Error {
    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(io::Error) -> Error {
        let context = context.into();
        move |source| Error::Io { context, source }
    }
}

/// A failure the run survived. Its message is one line, naming the file or
/// stream and the reason.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Problem {
    /// A FILE (or stdin) could not be read; the other inputs still were.
    #[error("{input}: {source}")]
    Input {
        /// `stdin` or the path as given.
        input: String,
        /// Why.
        source: io::Error,
    },
    /// The spill file could not be created, written or removed, or the
    /// store could not do what was asked.
    #[error(transparent)]
    Spill(SpillFailure),
    /// The capped output could not be written.
    #[error("cannot write to {stream}: {source}")]
    Output {
        /// `stdout` or `stderr`.
        stream: &'static str,
        /// Why.
        source: io::Error,
    },
    /// The command could not be started.
    #[error("cannot run '{program}': {source}")]
    CannotRun {
        /// The program as given.
        program: String,
        /// Why.
        source: io::Error,
    },
    /// The command ended, but something else in the embedding program took
    /// its exit status (SIGCHLD set to SIG_IGN, which makes the kernel reap
    /// children itself, or a `waitpid(-1)` of its own). Never on the
    /// command line, which handles SIGCHLD itself.
    #[error(
        "the command's exit status is unknown: something else in this process reaped it \
         (is SIGCHLD ignored?)"
    )]
    StatusLost,
    /// One of the command's pipes failed to read.
    #[error("cannot read the command's {stream}: {source}")]
    CommandOutput {
        /// `output` or `stderr`.
        stream: &'static str,
        /// Why.
        source: io::Error,
    },
}

impl Problem {
    /// True when the output's reader went away (`toolcap | head`): not a
    /// failure, since the reader has all it wanted. Rust ignores SIGPIPE,
    /// so a closed pipe shows up as this error instead.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Problem::Output { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// Why the full output was not saved, or the store could not do what was
/// asked: one line naming the file, with the operating system's error
/// where there was one (shared: the report that carries it is cloned).
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct SpillFailure {
    message: String,
    path: PathBuf,
    #[source]
    source: Option<Arc<io::Error>>,
}

impl SpillFailure {
    pub(crate) fn new(message: String, path: &Path, source: Option<io::Error>) -> SpillFailure {
        SpillFailure {
            message,
            path: path.to_path_buf(),
            source: source.map(Arc::new),
        }
    }

    /// The file or directory that failed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The operating system's error, when there was one.
    pub fn io_error(&self) -> Option<&io::Error> {
        self.source.as_deref()
    }
}

impl PartialEq for SpillFailure {
    fn eq(&self, other: &SpillFailure) -> bool {
        (&self.message, &self.path) == (&other.message, &other.path)
    }
}

impl Eq for SpillFailure {}
