//! The stage before the capper: transforms that clean the stream between
//! the spill tee, which saves the raw bytes, and the capper, which caps the
//! cleaned ones. They run in a fixed order: binary check, redact,
//! strip-ansi, collapse-cr, utf8, squeeze, fold, max-line (redact comes
//! first after the binary check so that every later transform, the cut
//! and `--keep` see only redacted text). Squeeze and fold condense only a
//! stream that would otherwise be cut (`condense.rs`).
//!
//! Each transform consumes chunks as they arrive, handles chunk edges
//! itself, and emits into the next one, borrowing from its input where it
//! changes nothing, so a clean stream costs a scan and no copy. Lines keep
//! their count through every transform except those that merge lines (a
//! squeeze or fold marker, the binary summary); those say how many input lines a
//! merged line stands for, so that markers can still name raw lines.
//!
//! Memory is bounded: every transform holds at most a line (with its own
//! limit) or a fixed-size probe.

mod assemble;
mod binary;
mod collapse_cr;
mod condense;
mod fold;
mod max_line;
mod redact;
mod squeeze;
mod strip_ansi;
mod utf8;

pub(crate) use condense::Fit;
pub(crate) use fold::FoldRules;
pub(crate) use redact::{KINDS, Redact, RedactRules, Redactions};

use crate::spill::SpillReport;

/// Where a transform's output goes: the next transform, or the capper.
pub(crate) trait Emit {
    /// Bytes of the stream, line for line as in the input.
    fn bytes(&mut self, bytes: &[u8]);
    /// One whole line, ending in `\n`, that stands for `lines` lines of
    /// the input (a squeeze marker stands for the repeats it replaces).
    fn merged_line(&mut self, line: &[u8], lines: u64);
    /// Toolcap's own text inside a line (`--max-line`'s marker), which the
    /// capper never cuts in two; for a transform, bytes like any other.
    fn own(&mut self, text: &[u8]) {
        self.bytes(text);
    }
}

/// What a transform may need to know when the stream ends.
pub(crate) struct Ending<'a> {
    /// Where the raw stream was spilled, for the binary summary.
    pub(crate) spill: Option<&'a SpillReport>,
}

/// One cleaning step of the stream.
pub(crate) trait Transform {
    /// Consumes `input` and emits what can be emitted so far.
    fn push(&mut self, input: &[u8], out: &mut dyn Emit);

    /// Consumes a whole line that stands for `lines` raw lines. A transform
    /// that keeps lines one for one passes it on, changed as any line would
    /// be, still standing for as many.
    fn push_merged(&mut self, line: &[u8], lines: u64, out: &mut dyn Emit) {
        let mut changed = Collected::default();
        self.push(line, &mut changed);
        out.merged_line(&changed.0, lines);
    }

    /// The stream ended: emits whatever was held back.
    fn finish(&mut self, ending: &Ending, out: &mut dyn Emit);

    /// `--live` cannot wait: decides now, on what arrived so far, what is
    /// held back only until more input settles it (the binary check's
    /// probe). Lines held back to be compared with the next (squeeze,
    /// fold) stay held: they wait for a line, not for a probe to fill.
    fn decide_now(&mut self, _out: &mut dyn Emit) {}

    /// Whether the output differs from the input so far.
    fn changed(&self) -> bool;

    /// Whether every input line comes out as a line of its own or inside
    /// a merged line that counts it, whatever the input: then the input's
    /// lines are the output's plus what merged lines stand for beyond one
    /// each, and need not be counted apart (see `stream.rs`).
    fn keeps_lines(&self) -> bool {
        false
    }

    /// Whether the output names the spill file (so it must be kept).
    fn names_spill(&self) -> bool {
        false
    }

    /// Whether the output holds markers that stand for raw lines of the
    /// stream (a fold or squeeze marker), which a spill file holds.
    fn stands_for_lines(&self) -> bool {
        false
    }

    /// What `--redact` redacted, by kind (`None`: this is not it).
    fn redactions(&self) -> Option<Redactions> {
        None
    }
}

/// Collects emitted bytes (for a merged line passing a 1:1 transform).
#[derive(Default)]
struct Collected(Vec<u8>);

impl Emit for Collected {
    fn bytes(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    fn merged_line(&mut self, line: &[u8], _lines: u64) {
        self.0.extend_from_slice(line);
    }
}

/// Which transforms to run; all off by default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cleaning {
    /// `--binary summary`.
    pub(crate) binary_summary: bool,
    pub(crate) strip_ansi: bool,
    pub(crate) collapse_cr: bool,
    pub(crate) utf8: bool,
    pub(crate) squeeze: bool,
    /// `--max-line SIZE`.
    pub(crate) max_line: Option<u64>,
}

/// Transforms run in order, each emitting into the next, the last into
/// the sink given.
#[derive(Default)]
pub(crate) struct Pipeline(Vec<Box<dyn Transform + Send>>);

impl Pipeline {
    fn push(&mut self, chunk: &[u8], sink: &mut dyn Emit) {
        Chain {
            rest: &mut self.0,
            sink,
        }
        .bytes(chunk);
    }

    fn push_merged(&mut self, line: &[u8], lines: u64, sink: &mut dyn Emit) {
        Chain {
            rest: &mut self.0,
            sink,
        }
        .merged_line(line, lines);
    }

    /// Each transform, in order, emits what it held back into the ones
    /// after it.
    fn finish(&mut self, ending: &Ending, sink: &mut dyn Emit) {
        self.in_order(sink, |transform, out| transform.finish(ending, out));
    }

    /// See [`Transform::decide_now`]; each transform, in order, emits what
    /// it decided into the ones after it.
    fn decide_now(&mut self, sink: &mut dyn Emit) {
        self.in_order(sink, |transform, out| transform.decide_now(out));
    }

    /// Runs `step` on each transform in order, with the transforms after
    /// it, then `sink`, as where it emits.
    fn in_order(
        &mut self,
        sink: &mut dyn Emit,
        mut step: impl FnMut(&mut dyn Transform, &mut dyn Emit),
    ) {
        for index in 0..self.0.len() {
            let (done, rest) = self.0.split_at_mut(index + 1);
            step(done[index].as_mut(), &mut Chain { rest, sink });
        }
    }

    fn changed(&self) -> bool {
        self.0.iter().any(|transform| transform.changed())
    }

    fn keeps_lines(&self) -> bool {
        self.0.iter().all(|transform| transform.keeps_lines())
    }
}

/// The transforms of one stream, in order.
#[derive(Default)]
pub(crate) struct Stage {
    transforms: Pipeline,
}

impl Stage {
    /// The transforms `cleaning` asks for, with `--redact` when `redact`
    /// is given and `--fold` when `fold` is (its markers name raw lines
    /// when `spilling`); squeeze and fold condense only a stream that
    /// does not `fit` as it is.
    pub(crate) fn new(
        cleaning: &Cleaning,
        redact: Option<&RedactRules>,
        fold: Option<&FoldRules>,
        spilling: bool,
        fit: Fit,
    ) -> Stage {
        let mut transforms: Vec<Box<dyn Transform + Send>> = Vec::new();
        if cleaning.binary_summary {
            transforms.push(Box::new(binary::BinarySummary::default()));
        }
        if let Some(rules) = redact {
            transforms.push(Box::new(redact::Redact::new(rules.clone())));
        }
        if cleaning.strip_ansi {
            transforms.push(Box::new(strip_ansi::StripAnsi::default()));
        }
        if cleaning.collapse_cr {
            transforms.push(Box::new(collapse_cr::CollapseCr::default()));
        }
        if cleaning.utf8 {
            transforms.push(Box::new(utf8::ReplaceInvalid::default()));
        }
        let mut condensers: Vec<Box<dyn Transform + Send>> = Vec::new();
        if cleaning.squeeze {
            condensers.push(Box::new(squeeze::squeeze(spilling)));
        }
        if let Some(rules) = fold {
            condensers.push(Box::new(fold::Fold::new(rules.clone(), spilling)));
        }
        if !condensers.is_empty() {
            let condensers = Pipeline(condensers);
            transforms.push(Box::new(condense::Condense::new(condensers, fit)));
        }
        if let Some(limit) = cleaning.max_line {
            transforms.push(Box::new(max_line::MaxLine::new(limit)));
        }
        Stage {
            transforms: Pipeline(transforms),
        }
    }

    /// Whether bytes pass unchanged: the capper then sees the raw stream.
    pub(crate) fn is_empty(&self) -> bool {
        self.transforms.0.is_empty()
    }

    /// Runs `chunk` through every transform into `capper`.
    pub(crate) fn push(&mut self, chunk: &[u8], capper: &mut dyn Emit) {
        self.transforms.push(chunk, capper);
    }

    /// Ends the stream: each transform, in order, emits what it held back
    /// into the ones after it.
    pub(crate) fn finish(&mut self, ending: &Ending, capper: &mut dyn Emit) {
        self.transforms.finish(ending, capper);
    }

    /// See [`Transform::decide_now`].
    pub(crate) fn decide_now(&mut self, capper: &mut dyn Emit) {
        self.transforms.decide_now(capper);
    }

    /// Whether cleaning changed the stream.
    pub(crate) fn changed(&self) -> bool {
        self.transforms.changed()
    }

    /// Whether every transform keeps lines (see [`Transform::keeps_lines`]).
    pub(crate) fn keeps_lines(&self) -> bool {
        self.transforms.keeps_lines()
    }

    /// What `--redact` redacted, by kind; `None` without `--redact`.
    pub(crate) fn redactions(&self) -> Option<Redactions> {
        self.transforms
            .0
            .iter()
            .find_map(|transform| transform.redactions())
    }

    /// Whether the cleaned stream names the spill file.
    pub(crate) fn names_spill(&self) -> bool {
        self.transforms
            .0
            .iter()
            .any(|transform| transform.names_spill())
    }

    /// Whether the cleaned stream holds markers standing for raw lines.
    pub(crate) fn stands_for_lines(&self) -> bool {
        self.transforms
            .0
            .iter()
            .any(|transform| transform.stands_for_lines())
    }
}

/// The transforms still ahead of some output, then the capper.
struct Chain<'a> {
    rest: &'a mut [Box<dyn Transform + Send>],
    sink: &'a mut dyn Emit,
}

impl Emit for Chain<'_> {
    fn bytes(&mut self, bytes: &[u8]) {
        match self.rest.split_first_mut() {
            None => self.sink.bytes(bytes),
            Some((next, rest)) => next.push(
                bytes,
                &mut Chain {
                    rest,
                    sink: self.sink,
                },
            ),
        }
    }

    fn own(&mut self, text: &[u8]) {
        match self.rest {
            [] => self.sink.own(text),
            _ => self.bytes(text),
        }
    }

    fn merged_line(&mut self, line: &[u8], lines: u64) {
        match self.rest.split_first_mut() {
            None => self.sink.merged_line(line, lines),
            Some((next, rest)) => next.push_merged(
                line,
                lines,
                &mut Chain {
                    rest,
                    sink: self.sink,
                },
            ),
        }
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Running a transform over chunkings, for the transforms' own tests.
    use super::*;

    /// What a transform emitted: the bytes, and each merged line's weight
    /// with the offset it started at.
    #[derive(Debug, Default, PartialEq, Eq)]
    pub(crate) struct Output {
        pub(crate) bytes: Vec<u8>,
        pub(crate) merged: Vec<(usize, u64)>,
    }

    impl Emit for Output {
        fn bytes(&mut self, bytes: &[u8]) {
            self.bytes.extend_from_slice(bytes);
        }

        fn merged_line(&mut self, line: &[u8], lines: u64) {
            self.merged.push((self.bytes.len(), lines));
            self.bytes.extend_from_slice(line);
        }
    }

    /// Runs `make()`'s transform over `input` cut into `chunk`-byte pieces.
    pub(crate) fn run(
        make: impl Fn() -> Box<dyn Transform + Send>,
        input: &[u8],
        chunk: usize,
    ) -> Output {
        let mut transform = make();
        let mut output = Output::default();
        for piece in input.chunks(chunk.max(1)) {
            transform.push(piece, &mut output);
        }
        transform.finish(&Ending { spill: None }, &mut output);
        output
    }

    /// The output for every chunking from 1 byte to the whole input; fails
    /// if any differs from the whole-input run.
    pub(crate) fn run_all_chunkings(
        make: impl Fn() -> Box<dyn Transform + Send>,
        input: &[u8],
    ) -> Vec<u8> {
        let whole = run(&make, input, input.len());
        for chunk in 1..input.len() {
            assert_eq!(
                run(&make, input, chunk),
                whole,
                "chunks of {chunk} bytes differ on {:?}",
                String::from_utf8_lossy(input)
            );
        }
        whole.bytes
    }
}
