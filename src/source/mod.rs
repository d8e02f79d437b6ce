//! Where bytes come from: standard input and files, read in fixed-size
//! chunks through one reused buffer; and a child process, spawned into its
//! own group and supervised (timeouts, signals, reaping) while its pipes
//! are drained.
//!
//! Nothing here caps or formats; chunks go to whoever consumes them. Its
//! only imports of the crate are the leaves (`sys`): what a run is
//! configured with comes in as plain values ([`child::Launch`],
//! [`machine::Limits`]).

pub(crate) mod child;
pub(crate) mod machine;
pub(crate) mod signals;
pub(crate) mod supervisor;

use std::io::{self, Read};
use std::os::fd::{AsFd, BorrowedFd};
use std::path::PathBuf;

use crate::sys;
use signals::Interruption;

/// Bytes per read: 64 KiB, a pipe's default capacity. Measured on the
/// 2-core development machine (2026-12-01, 1 GiB from the page cache):
/// 64 KiB reads took 0.18 s, 16 KiB 0.28 s and 128 KiB 0.6 s, nearly all
/// of it system time (the kernel's copy into a buffer larger than the
/// cache it is warm in).
pub(crate) const CHUNK_SIZE: usize = 64 * 1024;

/// One input of filter mode, read in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input (`-`, or no FILE at all).
    Stdin,
    /// A file, by the path given on the command line.
    File(PathBuf),
}

impl Input {
    /// How errors name this input: `stdin`, or the path as given, quoted.
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "stdin".into(),
            Input::File(path) => format!("'{}'", path.display()),
        }
    }
}

/// What the consumer of a chunk wants next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Stop,
}

/// Reads `reader` to its end in fixed-size chunks through one reused buffer
/// (each read fills at most its length), retrying interrupted reads, until
/// the consumer says stop. The consumer is given the buffer and how much
/// of it was read: it may take the buffer away (to work on it elsewhere
/// with no copy), leaving another of the same length in its place.
pub(crate) fn pump(
    reader: &mut impl Read,
    buffer: &mut Vec<u8>,
    mut consume: impl FnMut(&mut Vec<u8>, usize) -> Flow,
) -> io::Result<Flow> {
    loop {
        // An empty buffer would read as the end of the input.
        debug_assert!(!buffer.is_empty());
        match reader.read(buffer) {
            Ok(0) => return Ok(Flow::Continue),
            Ok(len) => {
                if consume(buffer, len) == Flow::Stop {
                    return Ok(Flow::Stop);
                }
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
}

/// A reader that ends (reads 0 bytes) as soon as toolcap is interrupted,
/// even while it waits for a pipe or terminal that has nothing to say.
///
/// Signal handlers are installed with SA_RESTART, so a blocked read(2)
/// would never notice the signal: for anything that can block, poll(2)
/// waits for the input and the interruption's self-pipe together. A
/// regular file never blocks, and only the flag is checked.
pub(crate) struct Interruptible<'a, R> {
    inner: R,
    interruption: &'a Interruption,
    may_block: bool,
}

impl<'a, R: Read + AsFd> Interruptible<'a, R> {
    pub(crate) fn new(inner: R, interruption: &'a Interruption) -> Self {
        let may_block = !is_regular_file(inner.as_fd());
        Interruptible {
            inner,
            interruption,
            may_block,
        }
    }
}

impl<R: Read + AsFd> Read for Interruptible<'_, R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.interruption.caught().is_some() {
                return Ok(0);
            }
            if !self.may_block {
                break;
            }
            // A signal wakes the poll (EINTR, nothing ready) or the
            // self-pipe; either way the flag is looked at again.
            let [input_ready, _] = sys::poll_readable(
                [Some(self.inner.as_fd()), Some(self.interruption.as_fd())],
                None,
            )?;
            if input_ready {
                break;
            }
        }
        self.inner.read(buffer)
    }
}

fn is_regular_file(fd: BorrowedFd<'_>) -> bool {
    sys::fd_metadata(fd).is_ok_and(|metadata| metadata.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Returns one byte per read, with an `Interrupted` error before each.
    struct Trickle<'a> {
        data: &'a [u8],
        interrupt_next: bool,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
            self.interrupt_next = !self.interrupt_next;
            if self.interrupt_next {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let Some((&first, rest)) = self.data.split_first() else {
                return Ok(0);
            };
            buffer[0] = first;
            self.data = rest;
            Ok(1)
        }
    }

    #[test]
    fn one_byte_reads_and_interrupted_reads_lose_nothing() {
        let data = b"line one\nline two\n\xff\xfe";
        let mut reader = Trickle {
            data,
            interrupt_next: false,
        };
        let mut seen = Vec::new();
        let mut buffer = vec![0; 4];
        let flow = pump(&mut reader, &mut buffer, |buffer, len| {
            seen.extend_from_slice(&buffer[..len]);
            // Taken away: the next read goes into another buffer.
            *buffer = vec![0; 4];
            Flow::Continue
        })
        .unwrap();
        assert_eq!((flow, &seen[..]), (Flow::Continue, &data[..]));
    }

    #[test]
    fn the_consumer_can_stop_the_reading() {
        let mut reader = &b"abcdefgh"[..];
        let mut chunks = 0;
        let mut buffer = vec![0; 3];
        let flow = pump(&mut reader, &mut buffer, |_, _| {
            chunks += 1;
            Flow::Stop
        })
        .unwrap();
        assert_eq!((flow, chunks, reader), (Flow::Stop, 1, &b"defgh"[..]));
    }

    #[test]
    fn read_errors_are_returned() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("device gone"))
            }
        }
        let err = pump(&mut Broken, &mut vec![0; 8], |_, _| Flow::Continue).unwrap_err();
        assert_eq!(err.to_string(), "device gone");
    }
}
