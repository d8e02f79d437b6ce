//! One stream, start to end, joining the stages in the order data flows:
//! every chunk goes to the spill file (the tee: raw bytes), then through
//! the transform stage to the capper, with the `--format` beside it (a
//! document reads the raw bytes, records what the capper reads). With
//! `--profile auto` the stream starts in a wait: its first bytes are held
//! ([`sniff`]) until they choose the options, and only then flow on; every
//! caller (filter mode, the library's capper) just feeds the stream.
//! [`Printed`] adds the sink: with `--live` the settled part of the head
//! goes out at once, and at the end the rest is rendered from the
//! stream's [`StreamReport`], which is built in one place from what the
//! capper and the format made of the stream.
//!
//! Filter mode has one such stream; wrap mode one or two (stdout, stderr).
//! It may import every stage before it (`options`, `config` and below);
//! not `run`, `hook` or the crate root.

mod sniff;

use std::io::Write;

pub(crate) use sniff::Sniff;

use crate::capture::{Capper, Captured, Shown, Totals};
use crate::config::Config;
use crate::cut::Budget;
use crate::error::Problem;
use crate::format::{self, Reading, Verdict};
use crate::measure::{self, Measure};
use crate::plan::Plan;
use crate::render::text::{self, HeaderPlace, TextStyle};
use crate::report::{FormatReport, Look, StreamReport};
use crate::sink::{Close, Sink};
use crate::spill::{Spill, SpillFacts};
use crate::transform::{Emit, Ending, Fit, Stage};
use crate::vocab::Counters;

/// One stream: with `--profile auto`, first the wait for its first bytes
/// to choose the options; then the capping.
pub(crate) struct Stream {
    /// `--profile auto`: the input's first bytes, held until they choose.
    sniff: Option<Sniff>,
    /// The profile they chose.
    chosen: Option<Chosen>,
    capping: Capping,
}

/// The profile `--profile auto` chose.
struct Chosen {
    name: String,
    /// Whether its options print the header.
    header: bool,
}

/// Spill tee -> transforms -> capper, and the format beside the capper.
struct Capping {
    spill: Option<Spill>,
    /// How the stream is rendered once capped.
    style: TextStyle,
    /// The same, for its report.
    look: Look,
    stage: Stage,
    /// The raw stream's totals, when transforms may change it.
    raw: Raw,
    /// What the merged lines the capper got stand for beyond one line each.
    merged_extra: u64,
    capper: Capper,
    /// `--format` other than `text`: what its records are.
    format: Option<Box<dyn Reading>>,
}

/// The raw stream's totals beside the capper's. Where every transform
/// keeps lines (see [`Stage::keeps_lines`]), as `--redact` does, its
/// newlines are not counted a second time: the raw lines are the capped
/// stream's, plus what merged lines stand for beyond one line each (issue
/// 25: the second count was a quarter of `--redact`'s instructions
/// through a pipe, 0.25 a byte of 1.66).
enum Raw {
    /// Bytes and lines, counted.
    Counted(Counters),
    /// Bytes only; the lines follow from the capper's.
    Kept { bytes: u64 },
}

impl Raw {
    fn new(stage: &Stage) -> Raw {
        match stage.keeps_lines() {
            true => Raw::Kept { bytes: 0 },
            false => Raw::Counted(Counters::default()),
        }
    }

    fn push(&mut self, chunk: &[u8]) {
        match self {
            Raw::Counted(counters) => counters.push(chunk),
            Raw::Kept { bytes } => *bytes += chunk.len() as u64,
        }
    }

    fn bytes(&self) -> u64 {
        match self {
            Raw::Counted(counters) => counters.bytes(),
            Raw::Kept { bytes } => *bytes,
        }
    }

    /// The raw lines, from the capped stream's `capped` lines and the
    /// `merged_extra` lines its merged lines stand for beyond their own.
    fn lines(&self, capped: u64, merged_extra: u64) -> u64 {
        match self {
            Raw::Counted(counters) => counters.lines(),
            Raw::Kept { .. } => capped + merged_extra,
        }
    }
}

/// What a stream's end may need to know of the run: the command and how it
/// ended, for the spill store's manifest.
#[derive(Debug, Default)]
pub(crate) struct RunFacts {
    pub(crate) command: Option<Vec<String>>,
    /// The status toolcap passes on.
    pub(crate) exit: Option<i64>,
}

/// Failures a stream ran into, sorted by whether they fail the run.
#[derive(Default)]
pub(crate) struct Problems {
    pub(crate) errors: Vec<Problem>,
    pub(crate) warnings: Vec<Problem>,
}

/// The capper as the last stage of the transforms, with the format that
/// reads what the capper reads.
struct IntoCapper<'a> {
    capper: &'a mut Capper,
    format: &'a mut Option<Box<dyn Reading>>,
    /// See [`Capping::merged_extra`].
    merged_extra: &'a mut u64,
}

impl IntoCapper<'_> {
    fn format_reads(&mut self, bytes: &[u8]) {
        if let Some(format) = self.format {
            format.capped(bytes, self.capper.evicted_to());
        }
    }
}

impl Emit for IntoCapper<'_> {
    fn bytes(&mut self, bytes: &[u8]) {
        self.capper.push(bytes);
        self.format_reads(bytes);
    }

    fn merged_line(&mut self, line: &[u8], lines: u64) {
        *self.merged_extra += lines.saturating_sub(1);
        self.capper.push_merged(line, lines);
        self.format_reads(line);
    }

    fn own(&mut self, text: &[u8]) {
        self.capper.push_own(text);
        self.format_reads(text);
    }
}

impl Stream {
    /// A stream capped by `plan` into `spill`.
    pub(crate) fn new(plan: Plan, spill: Option<Spill>) -> Stream {
        Stream {
            sniff: None,
            chosen: None,
            capping: Capping::new(plan, spill),
        }
    }

    /// With `sniff` (`--profile auto`), capped by the plan of the profile
    /// its first bytes choose instead, if they choose one.
    pub(crate) fn sniffing(self, sniff: Option<Sniff>) -> Stream {
        Stream { sniff, ..self }
    }

    /// Feeds the next chunk of the input. With `--profile auto` it is held
    /// until enough is: then the held bytes, and the rest of the chunk
    /// after them, go to the capping. `fed` runs after each stretch that
    /// went there.
    fn feed_then(&mut self, chunk: &[u8], fed: &mut dyn FnMut(&mut Stream)) {
        let Some(sniff) = &mut self.sniff else {
            self.capping.feed(chunk);
            return fed(self);
        };
        if let Some(rest) = sniff.hold(chunk) {
            self.choose(fed);
            self.capping.feed(rest);
            fed(self);
        }
    }

    pub(crate) fn feed(&mut self, chunk: &[u8]) {
        self.feed_then(chunk, &mut |_| {});
    }

    /// Ends `--profile auto`'s wait: caps by the profile the held bytes
    /// choose, if any, starting with them, then runs `fed`.
    fn choose(&mut self, fed: &mut dyn FnMut(&mut Stream)) {
        let Some(sniff) = self.sniff.take() else {
            return;
        };
        let (chosen, held) = sniff.choose();
        if let Some(choice) = chosen {
            let spill = self.capping.spill.take();
            self.capping = Capping::new(choice.plan, spill);
            self.chosen = Some(Chosen {
                name: choice.name,
                header: choice.header,
            });
        }
        self.capping.feed(&held);
        fed(self);
    }

    /// The input has ended: an input shorter than `--profile auto`'s sniff
    /// chooses with what there is. Returns the profile it chose, if any.
    pub(crate) fn end_input(&mut self) -> Option<&str> {
        self.end_input_then(&mut |_| {})
    }

    fn end_input_then(&mut self, fed: &mut dyn FnMut(&mut Stream)) -> Option<&str> {
        self.choose(fed);
        self.chosen.as_ref().map(|chosen| chosen.name.as_str())
    }

    /// For `--live`: the transforms decide now what they hold back only
    /// for a decision (see [`crate::transform::Transform::decide_now`]).
    fn decide_now(&mut self) {
        let capping = &mut self.capping;
        let (stage, mut into) = capping.stage_and_capper();
        stage.decide_now(&mut into);
    }

    /// The head bytes `--live` may print by now.
    fn settled_head(&self) -> &[u8] {
        self.capping.capper.settled_head()
    }

    /// True when a spill file waits for the whole input.
    pub(crate) fn is_spilling(&self) -> bool {
        self.capping.spill.is_some()
    }

    /// Ends the stream (and the wait of `--profile auto`, if the input was
    /// shorter than it): flushes the transforms, decides the cuts (keeping
    /// the `printed` bytes of head that `--live` already wrote) and closes
    /// the spill file.
    pub(crate) fn finish(
        mut self,
        printed: usize,
        facts: &RunFacts,
        problems: &mut Problems,
    ) -> StreamReport {
        self.end_input();
        self.capping.finish(printed, facts, problems)
    }
}

impl Capping {
    fn new(mut plan: Plan, spill: Option<Spill>) -> Capping {
        if plan.total.is_some() {
            // `--total` left room for a marker that names no spill file and
            // a `Cleaned:` line that names no profile: both names, known
            // now, take their room from head and tail.
            let note = spill.as_ref().map(Spill::note);
            let room = plan.total_room(note.as_ref());
            plan.budget.give(room);
        }
        if let Some(keep) = &mut plan.keep {
            // The longest a marker can be, its numbers of 12 digits (a
            // terabyte; the picker checks the real lengths at the end):
            // what a gap between kept lines costs at most.
            const LONGEST: u64 = 999_999_999_999;
            let note = spill.as_ref().map(Spill::note);
            keep.marker = text::marker_len(&plan.text, note.as_ref(), LONGEST, LONGEST, LONGEST)
                + crate::capture::keep::RESET_LEN;
        }
        let stage = Stage::new(
            &plan.cleaning,
            plan.redact.as_ref(),
            plan.fold.as_ref(),
            spill.is_some(),
            fit(&plan.budget),
        );
        let capper = Capper::new(plan.budget, plan.keep);
        let budget = plan.budget.head.saturating_add(plan.budget.tail);
        Capping {
            spill,
            style: plan.text,
            look: plan.look,
            raw: Raw::new(&stage),
            merged_extra: 0,
            stage,
            format: format::reading(plan.format, budget, capper.head_reach()),
            capper,
        }
    }

    /// The transforms, and what they emit into, borrowed apart.
    fn stage_and_capper(&mut self) -> (&mut Stage, IntoCapper<'_>) {
        let Capping {
            stage,
            capper,
            format,
            merged_extra,
            ..
        } = self;
        (
            stage,
            IntoCapper {
                capper,
                format,
                merged_extra,
            },
        )
    }

    fn feed(&mut self, chunk: &[u8]) {
        if let Some(spill) = &mut self.spill {
            spill.write(chunk);
        }
        if let Some(format) = &mut self.format {
            format.raw(chunk);
        }
        if self.stage.is_empty() {
            self.stage_and_capper().1.bytes(chunk);
        } else {
            self.raw.push(chunk);
            let (stage, mut into) = self.stage_and_capper();
            stage.push(chunk, &mut into);
        }
    }

    fn finish(mut self, printed: usize, facts: &RunFacts, problems: &mut Problems) -> StreamReport {
        let spill_note = self.spill.as_ref().map(Spill::note);
        let ending = Ending {
            spill: spill_note.as_ref(),
        };
        let (stage, mut into) = self.stage_and_capper();
        stage.finish(&ending, &mut into);
        let cleaned = self.stage.changed();
        // Where the transforms keep lines, the raw lines are what the capped
        // ones stand for: nothing to add.
        if let (false, Raw::Counted(raw)) = (self.stage.is_empty(), &self.raw) {
            self.capper.end_raw_lines(raw.lines());
        }
        let style = &self.style;
        let marker_len =
            |bytes, first, last| text::marker_len(style, spill_note.as_ref(), bytes, first, last);
        let boundaries = self.format.as_mut().and_then(|format| format.boundaries());
        let reprinted = self.format.as_ref().map_or(0, |format| format.reprinted());
        let Captured { shown, totals } =
            self.capper
                .finish(printed, &marker_len, boundaries.as_deref(), reprinted);
        let raw_bytes = if self.stage.is_empty() {
            totals.counters.bytes()
        } else {
            self.raw.bytes()
        };
        let verdict = match self.format {
            None => Verdict::Capped(FormatReport::Text),
            Some(format) => format.finish(format::Capped {
                cut: shown.cut.map(|cut| (cut.head_end, cut.tail_start)),
                head: &shown.head,
                raw_bytes,
            }),
        };
        // Whether the output is the document, raw (shortened or whole).
        let (shown, format, document_taken) = match verdict {
            Verdict::Capped(format) => (shown, format, false),
            Verdict::Document { whole, report } => {
                (Shown::whole(whole), FormatReport::Json(report), true)
            }
        };
        let shortened = matches!(&format, FormatReport::Json(json) if json.shortened.is_some());
        // A spill-dir file is only a safety copy of output that fit, unless
        // the output names it (a cut marker, a shortened document's header,
        // a binary summary, a fold marker's lines) or is not the input byte
        // for byte: cleaning changed it, and nothing may be lost for good.
        let changed_whole = shown.cut.is_none() && cleaned && !document_taken;
        let pointed_to =
            shown.cut.is_some() || shortened || self.stage.names_spill() || changed_whole;
        let spill_facts = SpillFacts {
            omitted_lines: shown
                .cut
                .map(|cut| [cut.first_omitted_line, cut.last_omitted_line]),
            command: facts.command.clone(),
            exit: facts.exit,
        };
        let spill = self.spill.and_then(|spill| {
            let end = spill.finish(pointed_to, &spill_facts);
            problems.errors.extend(end.problem);
            problems.warnings.extend(end.warning);
            end.report
        });
        let Totals {
            counters,
            chars,
            tokens,
        } = totals;
        // A document taken raw is described raw: cleaning did not touch it.
        let (bytes, lines, cleaned) = match document_taken && !self.stage.is_empty() {
            true => (
                raw_bytes,
                self.raw.lines(counters.lines(), self.merged_extra),
                false,
            ),
            false => (counters.bytes(), counters.lines(), cleaned),
        };
        let Shown {
            head,
            tail,
            cut,
            kept,
            hidden_matches,
            hidden_errors,
        } = shown;
        StreamReport {
            bytes,
            lines,
            newlines: counters.newlines(),
            tokens: tokens.map_or(measure::approx_tokens(bytes), |total| total.tokens),
            tokens_estimated: tokens.is_some_and(|total| total.estimated),
            head,
            tail,
            cut,
            kept,
            hidden_matches,
            hidden_errors,
            raw_bytes,
            cleaned,
            redacted: self.stage.redactions(),
            chars,
            spill_note: changed_whole && spill.is_some() && self.stage.stands_for_lines(),
            spill,
            format,
            look: self.look,
        }
    }
}

/// When the cleaned stream fits `budget` without condensing. Tokens are
/// counted as bytes here (a token is at least a byte), so an output the
/// real count would fit may still be condensed; bytes and characters are
/// exact.
fn fit(budget: &Budget) -> Fit {
    let units = budget.head.saturating_add(budget.tail);
    let (hold_bytes, count): (u64, fn(&[u8]) -> u64) = match budget.measure {
        Measure::Chars => (budget.measure.max_bytes(units), measure::count_chars),
        Measure::Bytes | Measure::Tokens(_) => (units, |bytes| bytes.len() as u64),
    };
    Fit {
        hold_bytes,
        units,
        lines: budget.lines,
        count,
    }
}

/// A [`Stream`] printed to a sink: its head as it settles with `--live`,
/// the rest at the end.
pub(crate) struct Printed<W: Close> {
    stream: Stream,
    sink: Sink<W>,
    /// The sink's name in error messages: `stdout` or `stderr`.
    name: &'static str,
    live: bool,
    header: bool,
    /// Head bytes already printed by `--live`.
    printed: usize,
}

impl<W: Close> Printed<W> {
    /// Prints `stream` to `sink` (called `name` in errors) live or at the
    /// end, as `config` says, with or without the header, as its plan says.
    pub(crate) fn new(
        stream: Stream,
        sink: Sink<W>,
        name: &'static str,
        config: &Config,
    ) -> Printed<W> {
        let header = stream.capping.look.header;
        Printed {
            stream,
            sink,
            name,
            live: config.live,
            header,
            printed: 0,
        }
    }

    pub(crate) fn feed(&mut self, chunk: &[u8]) {
        let Printed {
            stream,
            sink,
            live,
            printed,
            ..
        } = self;
        match live {
            true => stream.feed_then(chunk, &mut |stream| print_settled(stream, sink, printed)),
            false => stream.feed(chunk),
        }
    }

    /// The input has ended (see [`Stream::end_input`]): returns the profile
    /// `--profile auto` chose, if any.
    pub(crate) fn end_input(&mut self) -> Option<&str> {
        let Printed {
            stream,
            sink,
            live,
            printed,
            ..
        } = self;
        match live {
            true => stream.end_input_then(&mut |stream| print_settled(stream, sink, printed)),
            false => stream.end_input(),
        }
    }

    /// True once writing the output failed (see [`Sink`]).
    pub(crate) fn output_failed(&self) -> bool {
        self.sink.has_failed()
    }

    /// True when a spill file waits for the whole input.
    pub(crate) fn is_spilling(&self) -> bool {
        self.stream.is_spilling()
    }

    /// Ends the stream, renders the rest, then `trailer` (a status line)
    /// on a line of its own, and flushes.
    pub(crate) fn finish(
        mut self,
        trailer: Option<&str>,
        facts: &RunFacts,
        problems: &mut Problems,
    ) -> StreamReport {
        self.end_input();
        // The header as the profile that `--profile auto` chose says.
        let header = self
            .stream
            .chosen
            .as_ref()
            .map_or(self.header, |chosen| chosen.header);
        let style = self.stream.capping.style.clone();
        let report = self.stream.finish(self.printed, facts, problems);
        let header = match (header, self.live) {
            (false, _) => HeaderPlace::Omitted,
            (true, false) => HeaderPlace::Top,
            (true, true) => HeaderPlace::Bottom,
        };
        // The sink records write failures itself; see `Sink`.
        let layout = text::Layout {
            header,
            style: &style,
        };
        text::write_output(&mut self.sink, &report, &layout, self.printed, trailer).ok();
        if let Err(source) = self.sink.finish() {
            problems.errors.push(Problem::Output {
                stream: self.name,
                source,
            });
        }
        report
    }
}

/// `--live`: prints what of the head has settled since the last time.
fn print_settled<W: Close>(stream: &mut Stream, sink: &mut Sink<W>, printed: &mut usize) {
    // What arrived is all the head can wait for.
    stream.decide_now();
    let settled = stream.settled_head();
    if settled.len() > *printed {
        // The sink records write failures itself; see `Sink`.
        sink.write_all(&settled[*printed..]).ok();
        sink.flush().ok();
        *printed = settled.len();
    }
}
