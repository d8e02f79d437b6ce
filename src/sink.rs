//! Where capped output goes: a writer that remembers its first failure.
//!
//! Output failing must not stop the reading: a child must never block on a
//! full pipe, and the spill file must still be completed. So a write after a
//! failure is dropped, and the failure is reported once, at the end.

use std::io::{self, BufWriter, StderrLock, StdoutLock, Write};

/// Bytes buffered before a write(2): Rust's stdout alone is line-buffered
/// even into a pipe, one system call per line. Flushed at the end, or per
/// chunk with `--live`.
const OUTPUT_BUFFER: usize = 64 * 1024;

pub(crate) struct Sink<W: Write> {
    inner: W,
    failure: Option<io::Error>,
    last_byte: Option<u8>,
}

impl Sink<BufWriter<StdoutLock<'static>>> {
    /// Locked, block-buffered stdout.
    pub(crate) fn stdout() -> Self {
        Sink::new(BufWriter::with_capacity(OUTPUT_BUFFER, io::stdout().lock()))
    }
}

impl Sink<BufWriter<StderrLock<'static>>> {
    /// Locked, block-buffered stderr (for a command's separate stderr).
    pub(crate) fn stderr() -> Self {
        Sink::new(BufWriter::with_capacity(OUTPUT_BUFFER, io::stderr().lock()))
    }
}

impl<W: Write> Sink<W> {
    pub(crate) fn new(inner: W) -> Sink<W> {
        Sink {
            inner,
            failure: None,
            last_byte: None,
        }
    }

    /// True once a write or flush has failed (a closed pipe, a full disk).
    pub(crate) fn has_failed(&self) -> bool {
        self.failure.is_some()
    }

    /// True when nothing was written yet or the last byte was `\n`.
    pub(crate) fn at_line_start(&self) -> bool {
        self.last_byte.is_none_or(|b| b == b'\n')
    }

    /// Flushes and returns the first failure, if any.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        // Through the failure-recording path, so a flush error is kept too.
        let _ = Write::flush(&mut self);
        self.failure.map_or(Ok(()), Err)
    }

    fn record<T>(&mut self, result: io::Result<T>) {
        if let Err(err) = result {
            self.failure = Some(err);
        }
    }
}

/// Never returns an error: failures are recorded and later writes dropped.
impl<W: Write> Write for Sink<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.failure.is_none() && !data.is_empty() {
            let result = self.inner.write_all(data);
            if result.is_ok() {
                self.last_byte = data.last().copied();
            }
            self.record(result);
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.failure.is_none() {
            let result = self.inner.flush();
            self.record(result);
        }
        Ok(())
    }
}
