//! Where capped output goes: a writer that remembers its first failure.
//!
//! Output failing must not stop the reading: a child must never block on a
//! full pipe, and the spill file must still be completed. So a write after a
//! failure is dropped, and the failure is reported once, at the end.
//!
//! Wrap mode writes through a thread of its own ([`Background`]): a slow
//! reader of toolcap's output then holds up that thread, never the loop
//! that drains the command's pipes.

use std::io::{self, BufWriter, StdoutLock, Write};
use std::sync::mpsc;
use std::thread;

/// Bytes buffered before a write(2): Rust's stdout alone is line-buffered
/// even into a pipe, one system call per line. Flushed at the end, or per
/// chunk with `--live`.
const OUTPUT_BUFFER: usize = 64 * 1024;

pub(crate) struct Sink<W: Write> {
    inner: W,
    failure: Option<io::Error>,
}

impl Sink<BufWriter<StdoutLock<'static>>> {
    /// Locked, block-buffered stdout.
    pub(crate) fn stdout() -> Self {
        Sink::new(BufWriter::with_capacity(OUTPUT_BUFFER, io::stdout().lock()))
    }
}

/// The end of an output: flushes it and says how writing it went.
pub(crate) trait Close: Write {
    fn close(self) -> io::Result<()>;
}

impl<W: Write> Close for BufWriter<W> {
    fn close(mut self) -> io::Result<()> {
        self.flush()
    }
}

/// `--json`: the streams print nothing; the report is printed at the end.
impl Close for io::Sink {
    fn close(self) -> io::Result<()> {
        Ok(())
    }
}

/// What the writing thread is asked to do.
enum Request {
    Write(Vec<u8>),
    Flush,
}

/// A writer that hands every write to a thread owning the real output.
/// Writes never block (the queue holds what `--live` printed and the rest
/// at the end, bounded by the budget); failures come back from `close`.
pub(crate) struct Background {
    requests: mpsc::Sender<Request>,
    writer: thread::JoinHandle<io::Result<()>>,
}

impl Background {
    /// Locked, block-buffered stdout, written on a thread of its own.
    pub(crate) fn stdout() -> Sink<Background> {
        Sink::new(Background::spawn(|| {
            BufWriter::with_capacity(OUTPUT_BUFFER, io::stdout().lock())
        }))
    }

    /// The same for stderr (a command's separate stderr).
    pub(crate) fn stderr() -> Sink<Background> {
        Sink::new(Background::spawn(|| {
            BufWriter::with_capacity(OUTPUT_BUFFER, io::stderr().lock())
        }))
    }

    /// `open` runs on the thread: a locked stdout cannot change threads.
    fn spawn<W: Write>(open: impl FnOnce() -> W + Send + 'static) -> Background {
        let (requests, received) = mpsc::channel();
        let writer = thread::spawn(move || {
            let mut output = open();
            let mut result = Ok(());
            for request in received {
                // After a failure the requests are drained, not written.
                if result.is_err() {
                    continue;
                }
                result = match request {
                    Request::Write(bytes) => output.write_all(&bytes),
                    Request::Flush => output.flush(),
                };
            }
            result.and_then(|()| output.flush())
        });
        Background { requests, writer }
    }
}

/// The thread having gone is the only way a request can fail.
fn thread_gone() -> io::Error {
    io::Error::other("the output thread stopped")
}

impl Write for Background {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.requests
            .send(Request::Write(data.to_vec()))
            .map_err(|_| thread_gone())?;
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.requests
            .send(Request::Flush)
            .map_err(|_| thread_gone())
    }
}

impl Close for Background {
    fn close(self) -> io::Result<()> {
        drop(self.requests);
        self.writer.join().unwrap_or_else(|_| Err(thread_gone()))
    }
}

impl<W: Write> Sink<W> {
    pub(crate) fn new(inner: W) -> Sink<W> {
        Sink {
            inner,
            failure: None,
        }
    }

    /// True once a write or flush has failed (a closed pipe, a full disk).
    pub(crate) fn has_failed(&self) -> bool {
        self.failure.is_some()
    }

    /// Flushes and closes the output; returns the first failure, if any.
    pub(crate) fn finish(self) -> io::Result<()>
    where
        W: Close,
    {
        let closed = self.inner.close();
        match self.failure {
            Some(failure) => Err(failure),
            None => closed,
        }
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
