//! One captured stream, start to end: every chunk goes to the spill file
//! (the tee), then to the capper; with `--live`, the settled part of the
//! head goes on to the sink at once. At the end the rest is rendered.
//!
//! Filter mode has one such stream; wrap mode one or two (stdout, stderr).

use std::io::Write;

use crate::capture::{Budget, Capper};
use crate::render::{HeaderPlace, SpillNote, write_capped};
use crate::sink::Sink;
use crate::spill::Spill;

pub struct CappedStream<W: Write> {
    capper: Capper,
    spill: Option<Spill>,
    sink: Sink<W>,
    live: bool,
    /// Head bytes already printed by `--live`.
    printed: usize,
    header: bool,
}

impl<W: Write> CappedStream<W> {
    pub fn new(
        budget: Budget,
        spill: Option<Spill>,
        sink: Sink<W>,
        live: bool,
        header: bool,
    ) -> CappedStream<W> {
        CappedStream {
            capper: Capper::new(budget),
            spill,
            sink,
            live,
            printed: 0,
            header,
        }
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        if let Some(spill) = &mut self.spill {
            spill.write(chunk);
        }
        self.capper.push(chunk);
        if self.live {
            let settled = self.capper.settled_head_len();
            if settled > self.printed {
                self.sink
                    .write_all(&self.capper.head_bytes()[self.printed..settled])
                    .ok();
                self.sink.flush().ok();
                self.printed = settled;
            }
        }
    }

    /// True once writing the output failed (see [`Sink`]).
    pub fn output_failed(&self) -> bool {
        self.sink.has_failed()
    }

    /// True when a spill file waits for the whole input.
    pub fn is_spilling(&self) -> bool {
        self.spill.is_some()
    }

    /// Renders the rest, then `status_line` (wrap mode) on a line of its
    /// own, and flushes. Returns what went wrong: the spill file, or writing
    /// to the output named `name`.
    pub fn finish(mut self, name: &str, status_line: Option<&str>) -> Vec<anyhow::Error> {
        let capture = self.capper.finish_with_head_at_least(self.printed);
        let header = match (self.header, self.live) {
            (false, _) => HeaderPlace::Omitted,
            (true, false) => HeaderPlace::Top,
            (true, true) => HeaderPlace::Bottom,
        };
        let note = self.spill.as_ref().map_or(SpillNote::None, Spill::note);
        // The sink records write failures itself; see `Sink`.
        write_capped(&mut self.sink, &capture, self.printed, header, note).ok();
        if let Some(line) = status_line {
            if !self.sink.at_line_start() {
                self.sink.write_all(b"\n").ok();
            }
            self.sink.write_all(line.as_bytes()).ok();
        }
        let spill_failure = self
            .spill
            .and_then(|spill| spill.finish(capture.cut().is_some()));
        let mut problems: Vec<anyhow::Error> =
            spill_failure.into_iter().map(anyhow::Error::msg).collect();
        if let Err(err) = self.sink.finish() {
            problems.push(anyhow::Error::new(err).context(format!("cannot write to {name}")));
        }
        problems
    }
}
