//! Filter mode: the inputs, in order, as one stream onto stdout. A signal
//! stops the reading, and the capped view of what was read is still
//! printed. With `--profile auto` the input's first bytes are held until
//! they have chosen the stream's options.

use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::sync::mpsc;
use std::thread;

use crate::config::Config;
use crate::error::{Error, Problem};
use crate::plan::Plan;
use crate::render::text;
use crate::report::Report;
use crate::sink::{Close, Sink};
use crate::source::signals::Interruption;
use crate::source::{CHUNK_SIZE, Flow, Input, Interruptible, pump};
use crate::spill::Spill;
use crate::stream::{Printed, Problems, RunFacts, Sniff, Stream};
use crate::sys;

pub(super) fn run<W: Close>(
    config: &Config,
    plan: Plan,
    sniff: Option<Sniff>,
    inputs: &[Input],
    sink: Sink<W>,
) -> Result<Report, Error> {
    let interruption =
        Interruption::install().map_err(Error::io("cannot install signal handlers"))?;
    let read_ahead = (plan.is_cpu_bound() || sniff.as_ref().is_some_and(Sniff::may_be_cpu_bound))
        && inputs.iter().all(is_regular_file);
    let spill = config.spill.as_ref().map(Spill::create);
    let mut output = Printed::new(
        Stream::new(plan, spill).sniffing(sniff),
        sink,
        "stdout",
        config,
    );
    let mut consume = |chunk: &[u8]| feed(&mut output, chunk);
    let mut problems = if read_ahead {
        read_on_a_thread(inputs, &interruption, consume)?
    } else {
        read(inputs, &interruption, CHUNK_SIZE, |buffer, len| {
            consume(&buffer[..len])
        })
    };
    let profile = output.end_input().map(str::to_string);
    let interrupted_by = interruption.caught();
    let trailer = interrupted_by.map(text::interruption_line);
    let output = output.finish(trailer.as_deref(), &RunFacts::default(), &mut problems);
    Ok(Report {
        output,
        stderr: None,
        child: None,
        interrupted_by,
        problems: problems.errors,
        warnings: problems.warnings,
        profile,
        no_match: false,
    })
}

/// Reads the inputs in order through one buffer into `consume` (which may
/// take the buffer: see [`pump`]), until it says stop or a signal
/// interrupts; returns the inputs that failed, and as warnings the regular
/// files that shrank while being read (truncated by another program: what
/// was read is all there is), but not those that report size 0 (procfs).
fn read(
    inputs: &[Input],
    interruption: &Interruption,
    chunk_size: usize,
    mut consume: impl FnMut(&mut Vec<u8>, usize) -> Flow,
) -> Problems {
    let mut problems = Problems::default();
    let mut buffer = vec![0; chunk_size];
    for input in inputs {
        let result = match input {
            Input::Stdin => pump(
                &mut Interruptible::new(io::stdin().lock(), interruption),
                &mut buffer,
                &mut consume,
            ),
            Input::File(path) => File::open(path).and_then(|file| {
                let size_at_open = file.metadata().map_or(0, |metadata| metadata.len());
                let mut read = 0u64;
                let flow = pump(
                    &mut Interruptible::new(&file, interruption),
                    &mut buffer,
                    |buffer: &mut Vec<u8>, len| {
                        read = read.saturating_add(len as u64);
                        consume(buffer, len)
                    },
                )?;
                // A file that reports size 0 before and after (procfs, some
                // sysfs files) has no size to shrink from: its content is
                // made as it is read.
                if let Ok(metadata) = file.metadata()
                    && metadata.is_file()
                    && metadata.len() < read
                    && (size_at_open, metadata.len()) != (0, 0)
                {
                    problems.warnings.push(Problem::Input {
                        input: input.name(),
                        source: io::Error::other(format!(
                            "it shrank to {} bytes while being read, after {read} bytes",
                            metadata.len()
                        )),
                    });
                }
                Ok(flow)
            }),
        };
        match result {
            Ok(Flow::Continue) => {}
            Ok(Flow::Stop) => break,
            Err(source) => problems.errors.push(Problem::Input {
                input: input.name(),
                source,
            }),
        }
        if interruption.caught().is_some() {
            break;
        }
    }
    problems
}

/// Whether `input` is a regular file, which the kernel copies from its
/// cache at whatever speed toolcap reads. Reading ahead on a thread then
/// overlaps that copy with CPU-bound work (see [`Plan::is_cpu_bound`]);
/// handing each chunk to another core costs the reader about as much again
/// as the copy, so it pays only where the work is heavy. 1 GiB of log
/// lines from a file, 2 cores, medians of 5 alternating runs, read ahead
/// against not: `--keep-errors` 0.37 against 0.52 s, `--fold` 1.46 against
/// 1.63 s, `--clean` 1.75 against 2.09 s; but `--strip-ansi` 0.70 against
/// 0.26 s, `--squeeze` 0.84 against 0.50 s, and the cleaning without
/// `--fold` 0.71 against 0.60 s. From a pipe it does not pay: the writer
/// already runs on a core of its own (through `cat`: `--clean` without
/// `--fold` 1.22 s read ahead, 0.80 s not; `--keep-errors` 0.72 s against
/// 0.63 s).
fn is_regular_file(input: &Input) -> bool {
    let metadata = match input {
        Input::Stdin => sys::fd_metadata(io::stdin().as_fd()),
        Input::File(path) => std::fs::metadata(path),
    };
    metadata.is_ok_and(|metadata| metadata.is_file())
}

/// Chunks read ahead and not yet consumed: enough to keep both threads
/// busy, few enough to bound memory.
const CHUNKS_IN_FLIGHT: usize = 4;

/// The size of a chunk read ahead: each one handed over costs the threads
/// a wake-up, so they are larger than [`CHUNK_SIZE`].
const READ_AHEAD_CHUNK: usize = 2 * CHUNK_SIZE;

/// [`read`] on a thread of its own, for files whose cleaning costs CPU:
/// the kernel's copy of the next chunks then overlaps the work on this
/// one.
fn read_on_a_thread(
    inputs: &[Input],
    interruption: &Interruption,
    consume: impl FnMut(&[u8]) -> Flow,
) -> Result<Problems, Error> {
    read_ahead(
        |hand_over| read(inputs, interruption, READ_AHEAD_CHUNK, hand_over),
        consume,
    )
}

/// Runs `read` on a thread of its own and `consume` on this one. Each
/// buffer `read` fills is handed over whole (not copied) and goes back to
/// the reader to be refilled, so memory stays at a few chunks. A reader
/// that panicked read an unknown part of the input: an error, not a short
/// stream.
fn read_ahead(
    read: impl FnOnce(&mut dyn FnMut(&mut Vec<u8>, usize) -> Flow) -> Problems + Send,
    mut consume: impl FnMut(&[u8]) -> Flow,
) -> Result<Problems, Error> {
    let (full, filled) = mpsc::sync_channel::<(Vec<u8>, usize)>(CHUNKS_IN_FLIGHT);
    let (empty, emptied) = mpsc::channel::<Vec<u8>>();
    thread::scope(|scope| {
        let reader = scope.spawn(move || {
            read(&mut |buffer, len| {
                let refill = emptied
                    .try_recv()
                    .unwrap_or_else(|_| vec![0; READ_AHEAD_CHUNK]);
                let chunk = std::mem::replace(buffer, refill);
                // The consumer hung up: it wants no more.
                match full.send((chunk, len)) {
                    Ok(()) => Flow::Continue,
                    Err(_) => Flow::Stop,
                }
            })
        });
        for (chunk, len) in filled.iter() {
            let flow = consume(&chunk[..len]);
            // The reader may have finished; then the buffer is just freed.
            let _ = empty.send(chunk);
            if flow == Flow::Stop {
                break;
            }
        }
        // Dropping the receiver makes the reader's next send fail.
        drop(filled);
        reader.join().map_err(|_| Error::Panicked {
            doing: "reading the input",
        })
    })
}

/// Feeds a chunk; stops when nobody can read the result any more (stdout
/// failed or its reader left) and no spill file needs the rest.
fn feed<W: Close>(output: &mut Printed<W>, chunk: &[u8]) -> Flow {
    output.feed(chunk);
    let output_gone = output.output_failed() || sys::reader_has_gone(io::stdout());
    if output_gone && !output.is_spilling() {
        Flow::Stop
    } else {
        Flow::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_that_panics_is_an_error_not_a_short_stream() {
        let mut seen = Vec::new();
        let result = read_ahead(
            |hand_over| {
                let mut buffer = b"first chunk".to_vec();
                assert_eq!(hand_over(&mut buffer, 5), Flow::Continue);
                panic!("a bug in the reader");
            },
            |chunk| {
                seen.extend_from_slice(chunk);
                Flow::Continue
            },
        );
        let Err(err) = result else {
            panic!("the panic was lost");
        };
        assert_eq!(
            (err.to_string(), &seen[..]),
            (
                "the thread reading the input panicked: a bug in toolcap".into(),
                &b"first"[..]
            )
        );
    }

    #[test]
    fn what_the_reader_found_comes_back() {
        let mut seen = Vec::new();
        let problems = read_ahead(
            |hand_over| {
                for part in [&b"one "[..], b"two"] {
                    let mut buffer = part.to_vec();
                    hand_over(&mut buffer, part.len());
                }
                let mut problems = Problems::default();
                problems.warnings.push(Problem::StatusLost);
                problems
            },
            |chunk| {
                seen.extend_from_slice(chunk);
                Flow::Continue
            },
        )
        .expect("no panic");
        assert_eq!((&seen[..], problems.warnings.len()), (&b"one two"[..], 1));
    }
}
