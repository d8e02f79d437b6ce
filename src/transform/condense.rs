//! Condensing only where it pays (issue 21): `--squeeze` and `--fold`
//! replace lines with markers only when the output would otherwise be
//! cut. The lines reaching them are held back, up to a bound the budget
//! sets; a stream that ends within it, and fits the budget as it is, goes
//! on unchanged. A stream that outgrows the bound is condensed from its
//! first byte, exactly as without the gate.
//!
//! Memory: at most [`Fit::hold_bytes`], a small multiple of the budget.
//! With `--live` nothing is held: the head cannot wait for the end.
//!
//! It imports only the transform trait and the pipeline it wraps.

use memchr::memchr_iter;

use super::{Emit, Ending, Pipeline, Transform};

/// When a stream fits the budget without condensing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fit {
    /// Held back at most this many bytes: past them the stream cannot fit.
    pub(crate) hold_bytes: u64,
    /// The budget, in the units `count` counts.
    pub(crate) units: u64,
    /// `--lines N`: at most N lines.
    pub(crate) lines: Option<u64>,
    /// The units of some bytes, never fewer than the capper counts.
    pub(crate) count: fn(&[u8]) -> u64,
}

/// Squeeze and fold behind the gate.
pub(crate) struct Condense {
    condensers: Pipeline,
    fit: Fit,
    /// What arrived while it may still fit; `None` once condensing.
    held: Option<Held>,
}

#[derive(Default)]
struct Held {
    pieces: Vec<Piece>,
    bytes: u64,
    lines: u64,
}

/// A stretch of the stream as it arrived: bytes, or a merged line that
/// stands for raw lines (a binary summary, a redacted PEM block).
enum Piece {
    Bytes(Vec<u8>),
    Merged(Vec<u8>, u64),
}

impl Held {
    /// Emits what was held, as it arrived.
    fn replay(self, out: &mut dyn Emit) {
        for piece in self.pieces {
            match piece {
                Piece::Bytes(bytes) => out.bytes(&bytes),
                Piece::Merged(line, lines) => out.merged_line(&line, lines),
            }
        }
    }
}

/// The condensers, emitting into `out`, as one place to emit into.
struct Condensing<'a> {
    condensers: &'a mut Pipeline,
    out: &'a mut dyn Emit,
}

impl Emit for Condensing<'_> {
    fn bytes(&mut self, bytes: &[u8]) {
        self.condensers.push(bytes, self.out);
    }

    fn merged_line(&mut self, line: &[u8], lines: u64) {
        self.condensers.push_merged(line, lines, self.out);
    }
}

impl Condense {
    pub(crate) fn new(condensers: Pipeline, fit: Fit) -> Condense {
        Condense {
            condensers,
            fit,
            held: Some(Held::default()),
        }
    }

    /// Whether `bytes` more, with `lines` more lines, may still fit.
    fn may_hold(&self, bytes: &[u8], lines: impl FnOnce() -> u64) -> bool {
        self.held.as_ref().is_some_and(|held| {
            held.bytes.saturating_add(bytes.len() as u64) <= self.fit.hold_bytes
                && self
                    .fit
                    .lines
                    .is_none_or(|max| held.lines.saturating_add(lines()) <= max)
        })
    }

    /// Gives up waiting: what was held goes through the condensers.
    fn condense_held(&mut self, out: &mut dyn Emit) {
        if let Some(held) = self.held.take() {
            held.replay(&mut Condensing {
                condensers: &mut self.condensers,
                out,
            });
        }
    }

    /// Whether what was held fits the budget as it is.
    fn held_fits(&self) -> bool {
        self.held.as_ref().is_some_and(|held| {
            let units: u64 = held
                .pieces
                .iter()
                .map(|piece| match piece {
                    Piece::Bytes(bytes) | Piece::Merged(bytes, _) => (self.fit.count)(bytes),
                })
                .sum();
            units <= self.fit.units
        })
    }
}

impl Transform for Condense {
    fn push(&mut self, input: &[u8], out: &mut dyn Emit) {
        // Lines are counted only while the stream is held (at most the
        // budget): past it, it goes through at the condensers' own speed.
        let lines = || memchr_iter(b'\n', input).count() as u64;
        if self.may_hold(input, lines) {
            if let Some(held) = &mut self.held {
                held.bytes += input.len() as u64;
                held.lines += lines();
                match held.pieces.last_mut() {
                    Some(Piece::Bytes(bytes)) => bytes.extend_from_slice(input),
                    _ => held.pieces.push(Piece::Bytes(input.to_vec())),
                }
            }
            return;
        }
        self.condense_held(out);
        self.condensers.push(input, out);
    }

    fn push_merged(&mut self, line: &[u8], lines: u64, out: &mut dyn Emit) {
        if self.may_hold(line, || lines) {
            if let Some(held) = &mut self.held {
                held.bytes += line.len() as u64;
                held.lines += lines;
                held.pieces.push(Piece::Merged(line.to_vec(), lines));
            }
            return;
        }
        self.condense_held(out);
        self.condensers.push_merged(line, lines, out);
    }

    fn finish(&mut self, ending: &Ending, out: &mut dyn Emit) {
        if self.held_fits() {
            if let Some(held) = self.held.take() {
                held.replay(out);
            }
            return;
        }
        self.condense_held(out);
        self.condensers.finish(ending, out);
    }

    fn decide_now(&mut self, out: &mut dyn Emit) {
        self.condense_held(out);
        self.condensers.decide_now(out);
    }

    fn changed(&self) -> bool {
        self.condensers.changed()
    }

    /// Squeeze and fold change a stream only by replacing lines with a
    /// marker that stands for them.
    fn stands_for_lines(&self) -> bool {
        self.condensers.changed()
    }
}

#[cfg(test)]
mod tests {
    use super::super::squeeze::Squeeze;
    use super::*;
    use crate::transform::testing::run_all_chunkings;

    fn gated(units: u64) -> Box<dyn Transform + Send> {
        let squeeze: Box<dyn Transform + Send> = Box::new(Squeeze::default());
        let fit = Fit {
            hold_bytes: units,
            units,
            lines: None,
            count: |bytes| bytes.len() as u64,
        };
        Box::new(Condense::new(Pipeline(vec![squeeze]), fit))
    }

    #[test]
    fn a_stream_that_fits_passes_unchanged() {
        let input = b"same\nsame\nsame\nsame\n";
        assert_eq!(run_all_chunkings(|| gated(20), input), input);
    }

    #[test]
    fn a_stream_that_would_be_cut_is_condensed_from_its_first_byte() {
        let input = b"same\nsame\nsame\nsame\nsame\nsame\nsame\nsame\nsame\nsame\nsame\nsame\n";
        assert_eq!(
            run_all_chunkings(|| gated(40), input),
            b"same\n[... previous line repeated 11 more times ...]\n"
        );
    }
}
