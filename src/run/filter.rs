//! Filter mode: the inputs, in order, as one stream onto stdout. A signal
//! stops the reading, and the capped view of what was read is still
//! printed. With `--profile auto` the input's first bytes are held until
//! they have chosen the stream's options.

use std::fs::File;
use std::io;
use std::sync::mpsc;
use std::thread;

use regex::bytes::Regex;

use crate::config::{Config, PROFILE_SNIFF_BYTES};
use crate::error::{Error, Problem};
use crate::options::Plan;
use crate::render::text;
use crate::report::Report;
use crate::sink::{Close, Sink};
use crate::source::signals::Interruption;
use crate::source::{CHUNK_SIZE, Flow, Input, Interruptible, pump};
use crate::spill::Spill;
use crate::stream::{Printed, Problems, RunFacts, Stream};
use crate::sys;

/// A profile the input may choose (`--profile auto`), ready to run.
pub(super) struct Choice {
    pub(super) name: String,
    /// Compiled multi-line.
    pub(super) detect: Vec<Regex>,
    pub(super) plan: Plan,
}

pub(super) fn run<W: Close>(
    config: &Config,
    plan: Plan,
    choices: Vec<Choice>,
    inputs: &[Input],
    sink: Sink<W>,
) -> Result<Report, Error> {
    let interruption =
        Interruption::install().map_err(Error::io("cannot install signal handlers"))?;
    let read_ahead = plan.is_cpu_bound() || choices.iter().any(|choice| choice.plan.is_cpu_bound());
    let spill = config.spill.as_ref().map(Spill::create);
    let mut output = Printed::new(Stream::new(plan, spill), sink, "stdout", config);
    let mut sniffing = (!choices.is_empty()).then(|| Sniff {
        choices,
        held: Vec::with_capacity(PROFILE_SNIFF_BYTES),
    });
    let mut profile = None;
    let mut problems = Problems::default();
    let consume = |chunk: &[u8]| {
        if let Some(sniff) = &mut sniffing {
            sniff.held.extend_from_slice(chunk);
            if sniff.held.len() < PROFILE_SNIFF_BYTES {
                return Flow::Continue;
            }
        }
        match sniffing.take() {
            Some(sniff) => {
                let (chosen, flow) = sniff.choose(&mut output);
                profile = chosen;
                flow
            }
            None => feed(&mut output, chunk),
        }
    };
    if read_ahead {
        problems.errors = read_on_a_thread(inputs, &interruption, consume);
    } else {
        problems.errors = read(inputs, &interruption, consume);
    }
    // An input shorter than the sniff chooses with what there is.
    if let Some(sniff) = sniffing.take() {
        profile = sniff.choose(&mut output).0;
    }
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
    })
}

/// `--profile auto`: the input's first bytes, held until they choose.
struct Sniff {
    choices: Vec<Choice>,
    held: Vec<u8>,
}

impl Sniff {
    /// Starts `output` with the first profile that the held bytes (their
    /// first [`PROFILE_SNIFF_BYTES`]) match, if any, and feeds it them.
    fn choose<W: Close>(self, output: &mut Printed<W>) -> (Option<String>, Flow) {
        let first = &self.held[..self.held.len().min(PROFILE_SNIFF_BYTES)];
        let chosen = self
            .choices
            .into_iter()
            .find(|choice| choice.detect.iter().any(|pattern| pattern.is_match(first)));
        let name = chosen.map(|choice| {
            output.replan(choice.plan);
            choice.name
        });
        (name, feed(output, &self.held))
    }
}

/// Reads the inputs in order through one buffer into `consume`, until it
/// says stop or a signal interrupts; returns the inputs that failed.
fn read(
    inputs: &[Input],
    interruption: &Interruption,
    mut consume: impl FnMut(&[u8]) -> Flow,
) -> Vec<Problem> {
    let mut failed = Vec::new();
    let mut buffer = vec![0; CHUNK_SIZE];
    for input in inputs {
        let result = match input {
            Input::Stdin => pump(
                &mut Interruptible::new(io::stdin().lock(), interruption),
                &mut buffer,
                &mut consume,
            ),
            Input::File(path) => File::open(path).and_then(|file| {
                pump(
                    &mut Interruptible::new(file, interruption),
                    &mut buffer,
                    &mut consume,
                )
            }),
        };
        match result {
            Ok(Flow::Continue) => {}
            Ok(Flow::Stop) => break,
            Err(source) => failed.push(Problem::Input {
                input: input.name(),
                source,
            }),
        }
        if interruption.caught().is_some() {
            break;
        }
    }
    failed
}

/// Chunks read ahead and not yet consumed: enough to keep both threads
/// busy, few enough to bound memory (each is [`CHUNK_SIZE`]).
const CHUNKS_IN_FLIGHT: usize = 4;

/// [`read`] on a thread of its own, for streams whose cleaning costs CPU:
/// the kernel's copy of the next chunks then overlaps the work on this
/// one. Buffers go back to the reader to be refilled, so memory stays at
/// a few chunks.
fn read_on_a_thread(
    inputs: &[Input],
    interruption: &Interruption,
    mut consume: impl FnMut(&[u8]) -> Flow,
) -> Vec<Problem> {
    let (full, filled) = mpsc::sync_channel::<Vec<u8>>(CHUNKS_IN_FLIGHT);
    let (empty, emptied) = mpsc::channel::<Vec<u8>>();
    thread::scope(|scope| {
        let reader = scope.spawn(move || {
            read(inputs, interruption, |chunk| {
                let mut copy = emptied.try_recv().unwrap_or_default();
                copy.clear();
                copy.extend_from_slice(chunk);
                // The consumer hung up: it wants no more.
                match full.send(copy) {
                    Ok(()) => Flow::Continue,
                    Err(_) => Flow::Stop,
                }
            })
        });
        for chunk in filled.iter() {
            let flow = consume(&chunk);
            // The reader may have finished; then the buffer is just freed.
            let _ = empty.send(chunk);
            if flow == Flow::Stop {
                break;
            }
        }
        // Dropping the receiver makes the reader's next send fail.
        drop(filled);
        reader.join().unwrap_or_default()
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
