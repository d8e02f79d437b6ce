//! One stream, start to end, joining the stages in the order data flows:
//! every chunk goes to the spill file (the tee: raw bytes), then through
//! the transform stage to the capper. [`Printed`] adds the sink: with
//! `--live` the settled part of the head goes out at once, and at the end
//! the rest is rendered from the stream's [`StreamReport`].
//!
//! Filter mode has one such stream; wrap mode one or two (stdout, stderr).

use std::io::Write;

use crate::capture::{Capper, Counters};
use crate::config::Config;
use crate::error::Problem;
use crate::format::json::{Collector, Outcome};
use crate::measure;
use crate::plan::Plan;
use crate::render::text::{self, HeaderPlace, TextStyle};
use crate::report::{FormatReport, JsonReport, Look, StreamReport};
use crate::sink::{Close, Sink};
use crate::spill::{Spill, SpillFacts};
use crate::transform::{Emit, Ending, Stage};

/// Spill tee -> transforms -> capper.
pub(crate) struct Stream {
    spill: Option<Spill>,
    /// How the stream is rendered once capped.
    style: TextStyle,
    /// The same, for its report.
    look: Look,
    stage: Stage,
    /// The raw stream's totals, when transforms may change it.
    raw: Counters,
    capper: Capper,
    /// `--format json` (or `auto`): the whole document, and the budget it
    /// is shortened to.
    document: Option<(Collector, u64)>,
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

/// The capper as the last stage of the transforms.
struct IntoCapper<'a>(&'a mut Capper);

impl Emit for IntoCapper<'_> {
    fn bytes(&mut self, bytes: &[u8]) {
        self.0.push(bytes);
    }

    fn merged_line(&mut self, line: &[u8], lines: u64) {
        self.0.push_merged(line, lines);
    }
}

impl Stream {
    /// The transforms, and what they emit into, borrowed apart.
    fn stage_and_capper(&mut self) -> (&mut Stage, IntoCapper<'_>) {
        let Stream { stage, capper, .. } = self;
        (stage, IntoCapper(capper))
    }
}

impl Stream {
    /// Caps by `plan` instead (`--profile auto` chose it), into the same
    /// spill; nothing may have been fed yet.
    pub(crate) fn replan(&mut self, plan: Plan) {
        let spill = self.spill.take();
        *self = Stream::new(plan, spill);
    }

    pub(crate) fn new(mut plan: Plan, spill: Option<Spill>) -> Stream {
        if plan.total {
            // `--total` left room for a marker that names no spill file:
            // the name, known now, takes its room from head and tail.
            const LONGEST: u64 = u64::MAX;
            let note = spill.as_ref().map(Spill::note);
            let with = text::marker_len(&plan.text, note.as_ref(), LONGEST, LONGEST, LONGEST);
            let without = text::marker_len(&plan.text, None, LONGEST, LONGEST, LONGEST);
            plan.budget.give(with.saturating_sub(without));
            // The `Cleaned:` line names the profile that cleaned, known now.
            if let Some(profile) = &plan.text.profile {
                plan.budget
                    .give(format!(" (profile {profile})").len() as u64);
            }
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
        );
        Stream {
            spill,
            style: plan.text,
            look: plan.look,
            stage,
            raw: Counters::default(),
            capper: Capper::new(plan.budget, plan.keep, plan.format.format),
            document: plan.format.format.may_be_json().then(|| {
                let format = plan.format;
                let auto = format.format == crate::format::Format::Auto;
                let collector = Collector::new(auto, format.json_limit, format.pretty);
                (collector, plan.budget.head.saturating_add(plan.budget.tail))
            }),
        }
    }

    pub(crate) fn feed(&mut self, chunk: &[u8]) {
        if let Some(spill) = &mut self.spill {
            spill.write(chunk);
        }
        // A document is the raw stream: line transforms do not run inside
        // it (a fold marker would make it invalid JSON, issue 21).
        if let Some((document, _)) = &mut self.document {
            document.push(chunk);
        }
        if self.stage.is_empty() {
            self.stage_and_capper().1.bytes(chunk);
        } else {
            self.raw.push(chunk);
            let (stage, mut capper) = self.stage_and_capper();
            stage.push(chunk, &mut capper);
        }
    }

    /// For `--live`: the transforms decide now what they hold back only
    /// for a decision (see [`crate::transform::Transform::decide_now`]).
    pub(crate) fn decide_now(&mut self) {
        let (stage, mut capper) = self.stage_and_capper();
        stage.decide_now(&mut capper);
    }

    /// The head bytes `--live` may print by now.
    pub(crate) fn settled_head(&self) -> &[u8] {
        self.capper.settled_head()
    }

    /// True when a spill file waits for the whole input.
    pub(crate) fn is_spilling(&self) -> bool {
        self.spill.is_some()
    }

    /// Ends the stream: flushes the transforms, decides the cuts (keeping
    /// the `printed` bytes of head that `--live` already wrote) and closes
    /// the spill file.
    pub(crate) fn finish(
        mut self,
        printed: usize,
        facts: &RunFacts,
        problems: &mut Problems,
    ) -> StreamReport {
        let spill_note = self.spill.as_ref().map(Spill::note);
        let ending = Ending {
            spill: spill_note.as_ref(),
        };
        let (stage, mut capper) = self.stage_and_capper();
        stage.finish(&ending, &mut capper);
        let cleaned = self.stage.changed();
        if !self.stage.is_empty() {
            self.capper.end_raw_lines(self.raw.lines());
        }
        let style = &self.style;
        let marker_len =
            |bytes, first, last| text::marker_len(style, spill_note.as_ref(), bytes, first, last);
        let mut captured = self.capper.finish(printed, &marker_len);
        let bytes = captured.counters.bytes();
        let raw_bytes = if self.stage.is_empty() {
            bytes
        } else {
            self.raw.bytes()
        };
        // Whether the output is the document, raw (shortened or whole).
        let mut document_taken = false;
        if let Some((document, budget)) = self.document {
            // A document is shortened in place of the cut, or falls back
            // to it.
            let outcome = document.finish(budget, raw_bytes <= budget);
            let (shortened, whole) = match outcome {
                Outcome::Shortened(text, pretty) => (Some((text, pretty)), None),
                // Within the budget in bytes, whatever `--lines` says
                // (`auto`: lines do not count for a document).
                Outcome::Fits(whole) => (None, Some(whole)),
                Outcome::NotJson(reason) => {
                    if let Some(reason) = reason {
                        captured.format = FormatReport::NotJson(reason);
                    }
                    (None, None)
                }
            };
            if shortened.is_some() || whole.is_some() {
                document_taken = true;
                captured.head = whole.unwrap_or_default();
                captured.tail = Vec::new();
                captured.cut = None;
                captured.kept = Vec::new();
                captured.hidden_matches = 0;
                captured.hidden_errors = 0;
                let (shortened, pretty) = match shortened {
                    Some((text, pretty)) => (Some(text), pretty),
                    None => (None, false),
                };
                captured.format = FormatReport::Json(JsonReport { shortened, pretty });
            }
        }
        let shortened =
            matches!(&captured.format, FormatReport::Json(json) if json.shortened.is_some());
        // A spill-dir file is only a safety copy of output that fit, unless
        // the output names it (a cut marker, a shortened document's header,
        // a binary summary, a fold marker's lines) or is not the input byte
        // for byte: cleaning changed it, and nothing may be lost for good.
        let pointed_to = captured.cut.is_some()
            || shortened
            || self.stage.names_spill()
            || (cleaned && !document_taken);
        let spill_facts = SpillFacts {
            omitted_lines: captured
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
        // A document taken raw is described raw: cleaning did not touch it.
        let (bytes, lines, cleaned) = match document_taken && !self.stage.is_empty() {
            true => (raw_bytes, self.raw.lines(), false),
            false => (bytes, captured.counters.lines(), cleaned),
        };
        StreamReport {
            bytes,
            lines,
            newlines: captured.counters.newlines(),
            tokens: captured
                .tokens
                .map_or(measure::approx_tokens(bytes), |total| total.tokens),
            tokens_estimated: captured.tokens.is_some_and(|total| total.estimated),
            head: captured.head,
            tail: captured.tail,
            cut: captured.cut,
            kept: captured.kept,
            hidden_matches: captured.hidden_matches,
            hidden_errors: captured.hidden_errors,
            raw_bytes: if self.stage.is_empty() {
                bytes
            } else {
                self.raw.bytes()
            },
            cleaned,
            redacted: self.stage.redactions(),
            chars: captured.chars,
            spill,
            format: captured.format,
            look: self.look,
        }
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
        let header = stream.look.header;
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
        self.stream.feed(chunk);
        if self.live {
            // What arrived is all the head can wait for.
            self.stream.decide_now();
            let settled = self.stream.settled_head();
            if settled.len() > self.printed {
                // The sink records write failures itself; see `Sink`.
                self.sink.write_all(&settled[self.printed..]).ok();
                self.sink.flush().ok();
                self.printed = settled.len();
            }
        }
    }

    /// Caps the stream by `plan`, with or without the header, instead
    /// (`--profile auto` chose them); nothing may have been fed yet.
    pub(crate) fn replan(&mut self, plan: Plan, header: bool) {
        self.stream.replan(plan);
        self.header = header;
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
        let style = self.stream.style.clone();
        let report = self.stream.finish(self.printed, facts, problems);
        let header = match (self.header, self.live) {
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
