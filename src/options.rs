//! [`Options`]: how one stream is capped and rendered, as the library's
//! callers and the command line set it, and the budget rules that turn it
//! into the capper's [`Budget`] (or a usage error, worded as the command
//! line words it).

use regex::bytes::Regex;

use crate::capture::keep::KeepRules;
use crate::cut::Budget;
use crate::cut::CutMode;
use crate::error::Error;
use crate::format::{Format, FormatPlan};
use crate::line_match::{ErrorWords, LineMatch};
use crate::measure::{BYTES_PER_TOKEN, Measure, RealCount, Tokenizer};
use crate::render::template::Template;
use crate::render::text::{CodexMarker, TextStyle, VerifiersCut};
use crate::size::SizeOrPercent;
use crate::transform::{Cleaning, FoldRules, KINDS, RedactRules};

/// The budget when neither `--max`, `--tokens` nor TOOLCAP_MAX says.
pub const DEFAULT_MAX: u64 = 10_000;

/// `--recent` by default: four results kept whole take at most half the
/// window (issue 23).
pub const DEFAULT_RECENT: u64 = 4;

/// `--window-ceiling` by default: a result of 256 KiB is already more than
/// a model reads with profit, whatever its window.
pub const DEFAULT_WINDOW_CEILING: u64 = 256 << 10;

/// The least budget `--window` gives, in bytes: smaller than this, an
/// output loses its verdict along with its middle.
pub const WINDOW_FLOOR: u64 = 1_000;

pub use crate::line_match::KEEP_ERRORS;

/// `--count-limit` by default: the real token count is exact for streams
/// up to 64 MiB (a few seconds of counting), extrapolated past that.
pub const DEFAULT_COUNT_LIMIT: u64 = 64 << 20;

/// The longest status or interruption line (`[killed by signal 15
/// (SIGTERM)]`, `[timed out after 1h 30m 20s]`, `[input interrupted by
/// ...; totals are of what was read]`), with room to spare.
const STATUS_LINE_BOUND: u64 = 128;

/// `--keep-max` by default: a quarter of the budget.
const KEEP_SHARE_DIVISOR: u64 = 4;

/// What `--binary` does with a stream whose first 8 KiB hold a NUL byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Binary {
    /// Treat it as text (the default).
    #[default]
    Text,
    /// Replace it with one line, `[binary output: N bytes]`.
    Summary,
}

/// `--style`: the format of cut output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Style {
    /// toolcap's own format (README, "Output format").
    #[default]
    Toolcap,
    /// The truncation the codex agent shows its models, byte for byte.
    Codex,
    /// verifiers 0.4.0's `truncate_tool_output`, byte for byte, with its
    /// `TOOL_OUTPUT_MAX_BYTES` set to the budget (README, "Harnesses").
    Verifiers,
}

/// How to cap and render one stream. Start from [`Options::new`] (or
/// `default()`) and change what you need:
///
/// ```
/// use toolcap::{CutMode, Options};
///
/// let options = Options::new().max(4_000).lines(200).cut(CutMode::Bytes);
/// ```
///
/// The names follow the command line's long options. Contradictions (a
/// `--head` over `--max`, say) are reported when the options are used, by
/// [`Capper::new`](crate::Capper::new) or [`run`](crate::run()).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    max: Option<u64>,
    /// `--total`: everything printed within this many bytes.
    total: Option<u64>,
    /// The default budget from the environment (`TOOLCAP_MAX`).
    default_max: Option<u64>,
    tokens: Option<u64>,
    /// `--window`, `--recent`, `--window-ceiling`.
    window: Option<Window>,
    tokenizer: Tokenizer,
    count_limit: Option<u64>,
    chars: Option<u64>,
    head: Option<SizeOrPercent>,
    tail: Option<SizeOrPercent>,
    lines: Option<u64>,
    /// `None`: lines, the default (kept apart from an explicit `--cut`,
    /// which `--style codex` refuses).
    cut: Option<CutMode>,
    header: bool,
    style: Style,
    header_template: Option<String>,
    marker_template: Option<String>,
    cleaning: Cleaning,
    keep: Vec<String>,
    /// `--keep-error`: patterns of the error class.
    keep_error: Vec<String>,
    keep_errors: bool,
    keep_context: u64,
    keep_max: Option<u64>,
    /// `--format`, `--json-limit`, `--pretty` (README, "Formats").
    format: Format,
    json_limit: Option<u64>,
    pretty: bool,
    // --fold (issue 13): kept apart from `Cleaning`, whose transforms need
    // nothing compiled.
    fold: bool,
    fold_patterns: Vec<String>,
    /// `--redact` and `--redact-pattern` (issue 25): compiled into
    /// [`RedactRules`], so kept apart from `Cleaning` too.
    redact: bool,
    redact_patterns: Vec<String>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max: None,
            default_max: None,
            tokens: None,
            window: None,
            tokenizer: Tokenizer::Approx,
            count_limit: None,
            chars: None,
            head: None,
            tail: None,
            lines: None,
            cut: None,
            header: true,
            style: Style::Toolcap,
            header_template: None,
            marker_template: None,
            cleaning: Cleaning::default(),
            keep: Vec::new(),
            keep_error: Vec::new(),
            total: None,
            keep_errors: false,
            keep_context: 0,
            keep_max: None,
            format: Format::Text,
            json_limit: None,
            pretty: false,
            fold: false,
            fold_patterns: Vec::new(),
            redact: false,
            redact_patterns: Vec::new(),
        }
    }
}

/// How one stream is capped: its budget, its cleaning, what `--keep`
/// keeps from the middle, and how it is rendered.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub(crate) budget: Budget,
    pub(crate) cleaning: Cleaning,
    pub(crate) keep: Option<KeepRules>,
    pub(crate) text: TextStyle,
    pub(crate) format: FormatPlan,
    /// `--fold`, which never folds what `keep` matches.
    pub(crate) fold: Option<FoldRules>,
    /// `--redact`.
    pub(crate) redact: Option<RedactRules>,
    /// `--total`: the budget leaves room for a marker naming no spill
    /// file; the stream takes the room its spill file's name needs.
    pub(crate) total: bool,
}

impl Plan {
    /// Whether capping costs far more a byte than the kernel's copy:
    /// `--fold` compares every line with the last, `--keep` searches every
    /// line. The other transforms scan at memory speed, like the copy.
    pub(crate) fn is_cpu_bound(&self) -> bool {
        self.keep.is_some() || self.fold.is_some()
    }
}

impl Options {
    /// The defaults: a 10k budget split evenly, cuts at lines, a header.
    pub fn new() -> Options {
        Options::default()
    }

    /// `--max`: the budget for head + tail, in bytes (default 10,000).
    pub fn max(mut self, bytes: u64) -> Options {
        self.max = Some(bytes);
        self
    }

    /// `--total`: everything toolcap prints, header, markers and status
    /// line included, is at most `bytes`; the budget is what is left for
    /// the content (README, "Options").
    pub fn total(mut self, bytes: u64) -> Options {
        self.total = Some(bytes);
        self
    }

    /// A default budget from the environment (`TOOLCAP_MAX`), used when
    /// neither `max` nor `tokens` is given. Unlike `max`, it does not limit
    /// `head` and `tail` given together (percentages are still of it), and
    /// errors name it as `TOOLCAP_MAX`.
    pub fn max_from_environment(mut self, bytes: u64) -> Options {
        self.default_max = Some(bytes);
        self
    }

    /// `--tokens`: the budget in tokens, instead of `max`: tokens of 4
    /// bytes, or with a real [`tokenizer`](Options::tokenizer) its tokens
    /// (`head` and `tail` are then tokens too).
    pub fn tokens(mut self, tokens: u64) -> Options {
        self.tokens = Some(tokens);
        self
    }

    /// `--window`: the budget from a model's context window of `tokens`
    /// tokens: floor(tokens / (2 * recent)) tokens (so that the `recent`
    /// results a harness keeps whole take at most half of it), at most
    /// `window_ceiling` bytes and at least [`WINDOW_FLOOR`] bytes. Tokens
    /// are as for [`tokens`](Options::tokens).
    pub fn window(mut self, tokens: u64) -> Options {
        self.window.get_or_insert_with(Window::default).tokens = Some(tokens);
        self
    }

    /// `--recent`: with `window`, the results a harness keeps whole
    /// (default [`DEFAULT_RECENT`]).
    pub fn recent(mut self, results: u64) -> Options {
        self.window.get_or_insert_with(Window::default).recent = Some(results);
        self
    }

    /// `--window-ceiling`: with `window`, the most bytes its budget may
    /// come to (default [`DEFAULT_WINDOW_CEILING`]).
    pub fn window_ceiling(mut self, bytes: u64) -> Options {
        self.window.get_or_insert_with(Window::default).ceiling = Some(bytes);
        self
    }

    /// `--tokenizer`: what a token is, for `tokens` and the header's count
    /// (default [`Tokenizer::Approx`], ceil(bytes / 4)).
    pub fn tokenizer(mut self, tokenizer: Tokenizer) -> Options {
        self.tokenizer = tokenizer;
        self
    }

    /// `--count-limit`: with a real tokenizer, the header's count is exact
    /// for the first `bytes` bytes and extrapolated past them (default
    /// [`DEFAULT_COUNT_LIMIT`]).
    pub fn count_limit(mut self, bytes: u64) -> Options {
        self.count_limit = Some(bytes);
        self
    }

    /// `--chars`: the budget in Unicode characters (invalid UTF-8 bytes one
    /// each), instead of `max`. `head` and `tail` are then characters too.
    pub fn chars(mut self, chars: u64) -> Options {
        self.chars = Some(chars);
        self
    }

    /// `--head`: bytes kept from the start, or a percentage of the budget.
    /// Alone, the tail gets the rest of the budget.
    pub fn head(mut self, head: SizeOrPercent) -> Options {
        self.head = Some(head);
        self
    }

    /// `--tail`: bytes kept from the end, or a percentage of the budget.
    /// Alone, the head gets the rest of the budget.
    pub fn tail(mut self, tail: SizeOrPercent) -> Options {
        self.tail = Some(tail);
        self
    }

    /// `--lines`: also keep at most the first floor(N/2) and the last
    /// N - floor(N/2) lines.
    pub fn lines(mut self, lines: u64) -> Options {
        self.lines = Some(lines);
        self
    }

    /// `--cut`: where cuts land.
    pub fn cut(mut self, cut: CutMode) -> Options {
        self.cut = Some(cut);
        self
    }

    /// `--style`: the format of cut output.
    pub fn style(mut self, style: Style) -> Options {
        self.style = style;
        self
    }

    /// `--header`: a template that replaces the two header lines (an empty
    /// one: no header). See the README for its placeholders.
    pub fn header_template(mut self, template: impl Into<String>) -> Options {
        self.header_template = Some(template.into());
        self
    }

    /// `--marker`: a template that replaces the marker line's text.
    pub fn marker_template(mut self, template: impl Into<String>) -> Options {
        self.marker_template = Some(template.into());
        self
    }

    /// `--no-header` when false: no warning header above cut output.
    pub fn header(mut self, header: bool) -> Options {
        self.header = header;
        self
    }

    /// `--strip-ansi`: remove escape sequences (colours, cursor moves).
    pub fn strip_ansi(mut self, on: bool) -> Options {
        self.cleaning.strip_ansi = on;
        self
    }

    /// `--collapse-cr`: keep only the last frame of lines redrawn with
    /// `\r`; a backspace removes the character before it.
    pub fn collapse_cr(mut self, on: bool) -> Options {
        self.cleaning.collapse_cr = on;
        self
    }

    /// `--squeeze`: 3 or more identical lines in a row become the first and
    /// a marker with the count.
    pub fn squeeze(mut self, on: bool) -> Options {
        self.cleaning.squeeze = on;
        self
    }

    /// `--utf8`: invalid UTF-8 becomes U+FFFD.
    pub fn utf8(mut self, on: bool) -> Options {
        self.cleaning.utf8 = on;
        self
    }

    /// `--binary`: what to do with binary input.
    pub fn binary(mut self, binary: Binary) -> Options {
        self.cleaning.binary_summary = binary == Binary::Summary;
        self
    }

    /// `--max-line`: lines longer than `bytes` keep both ends and lose
    /// their middle.
    pub fn max_line(mut self, bytes: u64) -> Options {
        self.cleaning.max_line = Some(bytes);
        self
    }

    /// `--clean`: `strip_ansi`, `collapse_cr`, `squeeze`, `utf8`, `fold`
    /// and a binary summary, the setting for agents.
    pub fn clean(self) -> Options {
        self.strip_ansi(true)
            .collapse_cr(true)
            .squeeze(true)
            .utf8(true)
            .fold(true)
            .binary(Binary::Summary)
    }

    /// `--keep`: also show lines of the cut middle that match `pattern` (a
    /// regular expression, matched on bytes). May be given several times.
    pub fn keep(mut self, pattern: impl Into<String>) -> Options {
        self.keep.push(pattern.into());
        self
    }

    /// `--keep-error`: as [`keep`](Options::keep), but the lines are
    /// errors, served before other kept lines. May be given several times.
    pub fn keep_error(mut self, pattern: impl Into<String>) -> Options {
        self.keep_error.push(pattern.into());
        self
    }

    /// `--keep-errors`: keep lines that look like errors (see
    /// [`KEEP_ERRORS`]).
    pub fn keep_errors(mut self, on: bool) -> Options {
        self.keep_errors = on;
        self
    }

    /// `--keep-context`: lines kept before and after each kept match.
    pub fn keep_context(mut self, lines: u64) -> Options {
        self.keep_context = lines;
        self
    }

    /// `--keep-max`: the share of the budget (in its unit) that kept
    /// lines and their markers may use, taken from the head and the tail
    /// (default: a quarter of the budget).
    pub fn keep_max(mut self, bytes: u64) -> Options {
        self.keep_max = Some(bytes);
        self
    }

    /// `--format`: where cuts may land, by the records the stream holds
    /// (default [`Format::Text`]).
    pub fn format(mut self, format: Format) -> Options {
        self.format = format;
        self
    }

    /// `--json-limit`: the largest document `Format::Json` (or `Auto`)
    /// parses, in bytes (default 64 MiB); a larger one is capped as text.
    pub fn json_limit(mut self, bytes: u64) -> Options {
        self.json_limit = Some(bytes);
        self
    }

    /// `--pretty`: print a shortened document pretty (2 spaces), whatever
    /// the input looked like.
    pub fn pretty(mut self, on: bool) -> Options {
        self.pretty = on;
        self
    }

    pub(crate) fn tokenizer_name(&self) -> &'static str {
        self.tokenizer.name()
    }

    /// `--fold`: 3 or more similar lines in a row (equal but for numbers,
    /// ids and spacing) become the first, a marker with the count, and the
    /// last. Lines that `keep` or `keep_errors` match are never folded.
    pub fn fold(mut self, on: bool) -> Options {
        self.fold = on;
        self
    }

    /// `--fold-pattern`: with `fold`, lines that match `pattern` (a
    /// regular expression, matched on bytes) are similar to each other
    /// whatever else they hold. May be given several times; a line belongs
    /// to the first it matches.
    pub fn fold_pattern(mut self, pattern: impl Into<String>) -> Options {
        self.fold_patterns.push(pattern.into());
        self
    }

    /// These options without `--keep`, `--keep-error`, `--keep-errors`,
    /// `--fold` and `--fold-pattern`: for a view that is already a choice
    /// of lines (`--show --grep`).
    pub(crate) fn without_line_picks(mut self) -> Options {
        self.keep.clear();
        self.keep_error.clear();
        self.keep_errors = false;
        self.fold = false;
        self.fold_patterns.clear();
        self
    }

    /// Whether the marker's wording is the user's (`--marker`), codex's
    /// (`--style codex`) or verifiers' (`--style verifiers`).
    pub(crate) fn has_own_marker(&self) -> bool {
        self.marker_template.is_some() || matches!(self.style, Style::Codex | Style::Verifiers)
    }

    /// `--redact`: replace the credentials it recognises (README,
    /// "Redacting secrets") with `[REDACTED:KIND]` before the cap; the
    /// spill file and the store keep the raw bytes.
    pub fn redact(mut self, on: bool) -> Options {
        self.redact = on;
        self
    }

    /// `--redact-pattern`: also redact what `pattern` (a regular
    /// expression, matched on bytes within a line) matches, or only its
    /// group named `secret` if it has one, as `[REDACTED:custom]`. May be
    /// given several times; turns `redact` on.
    pub fn redact_pattern(mut self, pattern: impl Into<String>) -> Options {
        self.redact_patterns.push(pattern.into());
        self
    }

    /// What `--redact` recognises, compiled; `None` when it is off.
    pub(crate) fn redact_rules(&self) -> Result<Option<RedactRules>, Error> {
        if !self.redact && self.redact_patterns.is_empty() {
            return Ok(None);
        }
        RedactRules::new(&self.redact_patterns)
            .map(Some)
            .map_err(|(pattern, err)| invalid_pattern(&pattern, "--redact-pattern", &err))
    }

    pub(crate) fn has_header(&self) -> bool {
        self.header
    }

    /// The plan of the main stream.
    pub(crate) fn plan(&self) -> Result<Plan, Error> {
        let mut plan = self.plan_with(self.budget()?)?;
        plan.format = self.format_plan(&plan)?;
        Ok(plan)
    }

    /// The plan of a separate stderr: `--stderr-max` (default: the main
    /// budget's) split by the same `--head`, `--tail` and `--lines`.
    /// A separate stderr is capped as text, whatever `--format` says.
    pub(crate) fn stderr_plan(&self, stderr_max: Option<u64>) -> Result<Plan, Error> {
        if self.total.is_some() {
            return Err(usage(
                "--total cannot be combined with --stderr separate: it bounds one stream's output",
            ));
        }
        self.plan_with(self.stderr_budget(stderr_max)?)
    }

    /// `--format` and what it may be combined with (README, "Formats").
    fn format_plan(&self, plan: &Plan) -> Result<FormatPlan, Error> {
        let format = self.format;
        let name = format.name();
        let refuse = |other: &str, why: &str| {
            Err(usage(format!(
                "--format {name} cannot be combined with {other}: {why}"
            )))
        };
        if self.total.is_some() {
            let other = [
                ("--format", format != Format::Text),
                ("--header", self.header_template.is_some()),
                ("--marker", self.marker_template.is_some()),
                ("--style codex", plan.text.codex.is_some()),
                ("--style verifiers", plan.text.verifiers.is_some()),
            ];
            if let Some((name, _)) = other.iter().find(|(_, given)| *given) {
                return Err(usage(format!(
                    "--total cannot be combined with {name}: the length of what it prints is \
                     not bounded"
                )));
            }
        }
        if format != Format::Text && plan.text.codex.is_some() {
            return refuse("--style codex", "codex sets its own cuts");
        }
        if format != Format::Text && plan.text.verifiers.is_some() {
            return refuse("--style verifiers", "verifiers sets its own cuts");
        }
        if matches!(format, Format::Json | Format::Diff | Format::Csv) && plan.keep.is_some() {
            let keep = if self.keep.is_empty() {
                "--keep-errors"
            } else {
                "--keep"
            };
            return refuse(keep, "kept lines would break records apart");
        }
        if format == Format::Json && self.lines.is_some() {
            return refuse("--lines", "a document's budget is in bytes");
        }
        if format.may_be_json() && self.chars.is_some() {
            return refuse("--chars", "a document's budget is in bytes");
        }
        if format.may_be_json() && matches!(plan.budget.measure, Measure::Tokens(_)) {
            let tokenizer = format!("--tokens with --tokenizer {}", self.tokenizer.name());
            return refuse(&tokenizer, "a document's budget is in bytes");
        }
        if !format.may_be_json() {
            for (option, given) in [
                ("--json-limit", self.json_limit.is_some()),
                ("--pretty", self.pretty),
            ] {
                if given {
                    return Err(usage(format!("{option} needs --format json or auto")));
                }
            }
        }
        Ok(FormatPlan {
            format,
            json_limit: self.json_limit.unwrap_or(crate::format::DEFAULT_JSON_LIMIT),
            pretty: self.pretty,
        })
    }

    /// The format of the main stream.
    pub(crate) fn format_of_output(&self) -> Format {
        self.format
    }

    fn plan_with(&self, mut budget: Budget) -> Result<Plan, Error> {
        let mut text = self.text_style()?;
        if let Some(CodexMarker::Tokens { budget: total }) = &mut text.codex {
            // A separate stderr's own budget.
            *total = budget.head + budget.tail;
        }
        let keep = self.keep_rules(&mut budget)?;
        let mut cleaning = self.cleaning.clone();
        if text.codex.is_some() {
            if keep.is_some() {
                return Err(usage(
                    "--style codex shows one marker: it cannot be combined with --keep",
                ));
            }
            // codex decodes the output as UTF-8 and cuts it at characters.
            cleaning.utf8 = true;
            budget.cut = CutMode::Bytes;
            budget.escapes = false;
        }
        if let Some(verifiers) = &mut text.verifiers {
            self.refuse_for_verifiers()?;
            // verifiers keeps max//2 bytes each side (of a separate
            // stderr's own budget too); the tail budget holds the rest, one
            // byte more for an odd budget, so that a stream of exactly the
            // budget is kept whole as verifiers keeps it (the renderer drops
            // that byte from a cut tail).
            verifiers.keep = budget.head;
            // It encodes a str: invalid bytes have become U+FFFD already.
            cleaning.utf8 = true;
            budget.cut = CutMode::Bytes;
            budget.escapes = false;
        }
        if text.counts_chars() && keep.is_some() {
            return Err(usage(
                "{omitted_chars} cannot be combined with --keep: the gaps' characters are not \
                 counted",
            ));
        }
        budget.count_chars = text.counts_chars();
        let fold = self.fold_rules(keep.as_ref())?;
        Ok(Plan {
            budget,
            cleaning,
            keep,
            text,
            format: FormatPlan::default(),
            fold,
            redact: self.redact_rules()?,
            total: self.total.is_some(),
        })
    }

    fn fold_rules(&self, keep: Option<&KeepRules>) -> Result<Option<FoldRules>, Error> {
        if !self.fold {
            if !self.fold_patterns.is_empty() {
                return Err(usage("--fold-pattern needs --fold (or --clean)"));
            }
            return Ok(None);
        }
        let classes = self.fold_patterns.iter().map(|pattern| {
            LineMatch::new(&[pattern])
                .map_err(|err| invalid_pattern(pattern, "--fold-pattern", &err))
        });
        Ok(Some(FoldRules {
            classes: classes.collect::<Result<_, _>>()?,
            protected: keep.map(|keep| keep.lines.clone()),
        }))
    }

    /// How cut output is rendered: the style and the templates, checked.
    pub(crate) fn text_style(&self) -> Result<TextStyle, Error> {
        let parse = |template: &Option<String>, option| {
            template
                .as_deref()
                .map(|text| Template::parse(text, option))
                .transpose()
                .map_err(usage)
        };
        let header = parse(&self.header_template, "--header")?;
        let marker = parse(&self.marker_template, "--marker")?;
        let codex = match self.style {
            Style::Toolcap => None,
            Style::Codex => {
                if self.tokenizer != Tokenizer::Approx {
                    return Err(usage(format!(
                        "--style codex counts tokens as codex does (4 bytes each): it cannot be \
                         combined with --tokenizer {}",
                        self.tokenizer.name()
                    )));
                }
                let given = [
                    ("--chars", self.chars.is_some()),
                    ("--head", self.head.is_some()),
                    ("--tail", self.tail.is_some()),
                    ("--lines", self.lines.is_some()),
                    ("--cut", self.cut.is_some()),
                    ("--header", header.is_some()),
                    ("--marker", marker.is_some()),
                ];
                if let Some((name, _)) = given.iter().find(|(_, given)| *given) {
                    return Err(usage(format!(
                        "--style codex sets its own cuts and wording: it cannot be combined \
                         with {name}"
                    )));
                }
                // A window's budget is in tokens too.
                Some(
                    match self.tokens.or(self.window.and_then(|window| window.tokens)) {
                        Some(_) => {
                            let budget = self.budget()?;
                            CodexMarker::Tokens {
                                budget: budget.head + budget.tail,
                            }
                        }
                        None => CodexMarker::Chars,
                    },
                )
            }
            Style::Verifiers => None,
        };
        let verifiers = match self.style {
            Style::Verifiers => {
                if self.tokenizer != Tokenizer::Approx {
                    return Err(usage(format!(
                        "--style verifiers counts tokens as verifiers does (4 characters each): \
                         it cannot be combined with --tokenizer {}",
                        self.tokenizer.name()
                    )));
                }
                let given = [
                    ("--tokens", self.tokens.is_some()),
                    ("--chars", self.chars.is_some()),
                    ("--head", self.head.is_some()),
                    ("--tail", self.tail.is_some()),
                    ("--lines", self.lines.is_some()),
                    ("--cut", self.cut.is_some()),
                    ("--header", header.is_some()),
                    ("--no-header", !self.header),
                    ("--marker", marker.is_some()),
                ];
                if let Some((name, _)) = given.iter().find(|(_, given)| *given) {
                    return Err(usage(format!(
                        "--style verifiers sets its own budget, cuts and wording: it cannot be \
                         combined with {name}"
                    )));
                }
                // floor(M/2); a separate stderr's own is set by `plan_with`.
                Some(VerifiersCut {
                    keep: self.budget()?.head,
                })
            }
            _ => None,
        };
        Ok(TextStyle {
            header,
            marker,
            codex,
            verifiers,
            profile: None,
        })
    }

    /// What `--style verifiers` refuses besides the budget and the wording
    /// (see [`Options::text_style`]): anything that changes the bytes
    /// before the cut. `--utf8` is what verifiers does anyway.
    fn refuse_for_verifiers(&self) -> Result<(), Error> {
        let cleaning = &self.cleaning;
        // All that `clean()` turns on: named as the one option.
        let clean = cleaning.strip_ansi
            && cleaning.collapse_cr
            && cleaning.squeeze
            && cleaning.utf8
            && cleaning.binary_summary
            && self.fold;
        let given = [
            ("--clean", clean),
            ("--keep", !self.keep.is_empty()),
            ("--keep-errors", self.keep_errors),
            ("--strip-ansi", cleaning.strip_ansi),
            ("--collapse-cr", cleaning.collapse_cr),
            ("--squeeze", cleaning.squeeze),
            ("--fold", self.fold),
            ("--binary summary", cleaning.binary_summary),
            ("--max-line", cleaning.max_line.is_some()),
        ];
        match given.iter().find(|(_, given)| *given) {
            Some((name, _)) => Err(usage(format!(
                "--style verifiers shows the output as verifiers does: it cannot be combined \
                 with {name}"
            ))),
            None => Ok(()),
        }
    }

    /// `--keep`, `--keep-error` and `--keep-errors`, and the share of the
    /// budget they take from the head and the tail (README, "Keeping
    /// lines").
    fn keep_rules(&self, budget: &mut Budget) -> Result<Option<KeepRules>, Error> {
        let mut errors = self.keep_error.clone();
        if self.keep_errors {
            errors.push(KEEP_ERRORS.to_string());
        }
        let mut patterns = self.keep.clone();
        patterns.extend(errors.iter().cloned());
        if patterns.is_empty() {
            return Ok(None);
        }
        for (pattern, option) in self.keep.iter().map(|pattern| (pattern, "--keep")).chain(
            self.keep_error
                .iter()
                .map(|pattern| (pattern, "--keep-error")),
        ) {
            Regex::new(pattern).map_err(|err| invalid_pattern(pattern, option, &err))?;
        }
        let lines = LineMatch::new(&patterns)
            .map_err(|err| usage(format!("invalid --keep pattern: {err}")))?;
        let compile = |patterns: &[String], option: &str| {
            (!patterns.is_empty())
                .then(|| LineMatch::new(patterns))
                .transpose()
                .map_err(|err| usage(format!("invalid {option} pattern: {err}")))
        };
        let others = compile(&self.keep, "--keep")?;
        let errors = compile(&self.keep_error, "--keep-error")?;
        let error_words = match self.keep_errors {
            true => Some(
                ErrorWords::new()
                    .map_err(|err| usage(format!("invalid --keep-errors pattern: {err}")))?,
            ),
            false => None,
        };
        let max = budget.head.saturating_add(budget.tail);
        let share = self.keep_max.unwrap_or(max / KEEP_SHARE_DIVISOR);
        if share > max {
            return Err(usage(format!(
                "--keep-max ({share}) exceeds the budget ({max}): kept lines take their \
                 share from the head and the tail"
            )));
        }
        budget.give(share);
        // The share counts bytes, which are never fewer than characters or
        // tokens (a token is at least a byte), so it holds in any unit.
        // No more lines than the kept bytes can hold (a line is at least
        // one byte): a larger context would only hold lines back longer.
        let context = self.keep_context.min(share);
        Ok(Some(KeepRules {
            lines,
            others,
            errors,
            error_words,
            context: usize::try_from(context).unwrap_or(usize::MAX),
            budget: share,
            marker: 0,
        }))
    }

    /// The budget of the main stream.
    pub(crate) fn budget(&self) -> Result<Budget, Error> {
        let window = self.window_tokens()?;
        let given: Vec<&str> = [
            ("--max", self.max.is_some()),
            ("--total", self.total.is_some()),
            ("--tokens", self.tokens.is_some()),
            ("--chars", self.chars.is_some()),
            ("--window", window.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
        .collect();
        if given.len() > 1 {
            return Err(usage(format!(
                "{} cannot be used together: exactly one of them sets the budget",
                given.join(" and ")
            )));
        }
        if let Some(total) = self.total {
            let least = self.total_overhead();
            if total < least {
                return Err(usage(format!(
                    "--total {total} is too small: the header, one marker and the status line \
                     take up to {least} bytes; the least --total that works is {least}"
                )));
            }
            return self.split(Limit::explicit("--total", total - least));
        }
        let limit = match (self.max, self.tokens.or(window), self.chars) {
            (Some(max), ..) => Limit::explicit("--max", max),
            (_, Some(tokens), _) if window.is_some() => self.window_limit(tokens)?,
            (_, Some(tokens), _) => match self.tokenizer.vocabulary()? {
                None => Limit::explicit(
                    "--tokens",
                    tokens.checked_mul(BYTES_PER_TOKEN).ok_or_else(|| {
                        usage(format!(
                            "invalid value '{tokens}' for '--tokens <COUNT>': too large: at \
                             most {}",
                            u64::MAX / BYTES_PER_TOKEN
                        ))
                    })?,
                ),
                Some(vocabulary) => Limit {
                    measure: Measure::Tokens(vocabulary),
                    ..Limit::explicit("--tokens", tokens)
                },
            },
            (.., Some(chars)) => Limit {
                measure: Measure::Chars,
                ..Limit::explicit("--chars", chars)
            },
            (None, None, None) => Limit {
                name: if self.default_max.is_some() {
                    "TOOLCAP_MAX"
                } else {
                    "--max"
                },
                bytes: self.default_max.unwrap_or(DEFAULT_MAX),
                explicit: false,
                measure: Measure::Bytes,
            },
        };
        self.split(limit)
    }

    /// `--window`'s tokens, checked with `--recent` and `--window-ceiling`
    /// (which need it).
    fn window_tokens(&self) -> Result<Option<u64>, Error> {
        let Some(window) = &self.window else {
            return Ok(None);
        };
        let Some(tokens) = window.tokens else {
            let name = if window.recent.is_some() {
                "--recent"
            } else {
                "--window-ceiling"
            };
            return Err(usage(format!("{name} needs --window")));
        };
        if window.recent == Some(0) {
            return Err(usage(
                "invalid value '0' for '--recent <K>': at least 1 result is kept whole",
            ));
        }
        if let Some(ceiling) = window.ceiling.filter(|&ceiling| ceiling < WINDOW_FLOOR) {
            return Err(usage(format!(
                "invalid value '{ceiling}' for '--window-ceiling <SIZE>': at least \
                 {WINDOW_FLOOR} bytes, the least budget --window gives"
            )));
        }
        Ok(Some(tokens))
    }

    /// The budget `--window` gives (README, "Budgets from the context
    /// window"): floor(W / 2K) tokens, bounded by the floor and the ceiling
    /// in bytes. Tokens of 4 bytes make bytes; with a real tokenizer the
    /// budget stays in tokens, and the bounds become tokens at 4 bytes each.
    fn window_limit(&self, window: u64) -> Result<Limit, Error> {
        let settings = self.window.unwrap_or_default();
        let recent = settings.recent.unwrap_or(DEFAULT_RECENT);
        let ceiling = settings.ceiling.unwrap_or(DEFAULT_WINDOW_CEILING);
        let tokens = window / recent.saturating_mul(2);
        Ok(match self.tokenizer.vocabulary()? {
            None => Limit {
                bytes: tokens
                    .saturating_mul(BYTES_PER_TOKEN)
                    .clamp(WINDOW_FLOOR, ceiling),
                ..Limit::explicit("--window", 0)
            },
            Some(vocabulary) => Limit {
                bytes: tokens.clamp(
                    WINDOW_FLOOR.div_ceil(BYTES_PER_TOKEN),
                    ceiling / BYTES_PER_TOKEN,
                ),
                measure: Measure::Tokens(vocabulary),
                ..Limit::explicit("--window", 0)
            },
        })
    }

    /// What `--total` keeps for the lines around the content, at their
    /// longest (every number of 20 digits): the header, the `Cleaned:`
    /// line when cleaning is on, one marker with its style reset, the
    /// newline after a head cut mid-line and the matches not shown, and
    /// a status or interruption line. A spill file's name is added by the
    /// stream, which knows it ([`Plan::total`]).
    fn total_overhead(&self) -> u64 {
        let most = u64::MAX;
        let mut lines = format!(
            "Warning: truncated output (original token count: {most})\nTotal output lines: {most}\n\n"
        );
        let cleaning = &self.cleaning;
        let cleans = cleaning.binary_summary
            || cleaning.strip_ansi
            || cleaning.collapse_cr
            || cleaning.utf8
            || cleaning.squeeze
            || cleaning.max_line.is_some()
            || self.fold;
        let redacts = self.redact || !self.redact_patterns.is_empty();
        if cleans || redacts {
            lines += &format!("Cleaned: {most} raw bytes became {most} bytes");
            if redacts {
                // Each kind at most once, each with its count.
                let kinds = KINDS.map(|kind| format!("{kind} {most}"));
                lines += &format!("; redacted: {}", kinds.join(", "));
            }
            lines += "\n";
        }
        lines += &format!("\x1b[0m\n[... {most} bytes truncated");
        if !self.keep.is_empty() || !self.keep_error.is_empty() || self.keep_errors {
            lines += &format!("; {most} more error lines, {most} more matching lines not shown");
        }
        lines += " ...]\n";
        lines.len() as u64 + STATUS_LINE_BOUND
    }

    /// How the header's real token count is taken, with a real tokenizer.
    fn real_count(&self) -> Result<Option<RealCount>, Error> {
        let limit = self.count_limit.unwrap_or(DEFAULT_COUNT_LIMIT);
        if limit == 0 {
            return Err(usage(
                "invalid value '0' for '--count-limit <SIZE>': at least 1 byte must be counted",
            ));
        }
        Ok(self
            .tokenizer
            .vocabulary()?
            .map(|vocabulary| RealCount { vocabulary, limit }))
    }

    fn stderr_budget(&self, stderr_max: Option<u64>) -> Result<Budget, Error> {
        match stderr_max {
            Some(max) => self.split(Limit {
                // --stderr-max is in the main budget's unit.
                measure: self.budget()?.measure,
                ..Limit::explicit("--stderr-max", max)
            }),
            None => self.budget(),
        }
    }

    /// Splits the limit into head and tail: half each by default; one side
    /// given, the other gets the rest; both given, they are the budget. The
    /// limit is a ceiling that nothing exceeds.
    fn split(&self, limit: Limit) -> Result<Budget, Error> {
        let max = limit.bytes;
        let unit = match limit.measure {
            Measure::Bytes => "bytes",
            Measure::Chars => "characters",
            Measure::Tokens(_) => "tokens",
        };
        let over = |what: String| {
            usage(format!(
                "{what} {} ({max} {unit}): {} is the ceiling for head and tail together",
                limit.name, limit.name
            ))
        };
        let (head, tail) = match (self.head, self.tail) {
            (None, None) => (max / 2, max - max / 2),
            (Some(head), None) => {
                let head = head.resolve(max);
                let tail = max
                    .checked_sub(head)
                    .ok_or_else(|| over(format!("--head ({head} {unit}) exceeds")))?;
                (head, tail)
            }
            (None, Some(tail)) => {
                let tail = tail.resolve(max);
                let head = max
                    .checked_sub(tail)
                    .ok_or_else(|| over(format!("--tail ({tail} {unit}) exceeds")))?;
                (head, tail)
            }
            (Some(head), Some(tail)) => {
                if matches!(limit.name, "--tokens" | "--window") {
                    return Err(usage(format!(
                        "{} cannot be combined with both --head and --tail: give one of them, \
                         or --max",
                        limit.name
                    )));
                }
                let (head, tail) = (head.resolve(max), tail.resolve(max));
                let both = head.saturating_add(tail);
                if limit.explicit && both > max {
                    return Err(over(format!(
                        "--head and --tail ({both} {unit} together) exceed"
                    )));
                }
                (head, tail)
            }
        };
        Ok(Budget {
            head,
            tail,
            lines: self.lines,
            cut: self.cut.unwrap_or_default(),
            measure: limit.measure,
            escapes: true,
            count_chars: false,
            count_tokens: self.real_count()?,
        })
    }
}

/// `--window TOKENS [--recent K] [--window-ceiling SIZE]`, as given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Window {
    tokens: Option<u64>,
    recent: Option<u64>,
    ceiling: Option<u64>,
}

/// The ceiling for head + tail, and the option that set it.
struct Limit {
    name: &'static str,
    /// In `measure`'s units (bytes, unless `--chars`).
    bytes: u64,
    measure: Measure,
    /// Given by the user (not the default): with both `--head` and
    /// `--tail`, an explicit limit must hold them.
    explicit: bool,
}

impl Limit {
    fn explicit(name: &'static str, bytes: u64) -> Limit {
        Limit {
            name,
            bytes,
            explicit: true,
            measure: Measure::Bytes,
        }
    }
}

fn usage(message: impl Into<String>) -> Error {
    Error::Usage(message.into())
}

/// A pattern `option` was given that does not compile.
pub(crate) fn invalid_pattern(pattern: &str, option: &str, err: &regex::Error) -> Error {
    // The regex crate explains over several lines; its last says what is
    // wrong.
    let why = err.to_string();
    let why = why
        .lines()
        .last()
        .unwrap_or_default()
        .trim_start_matches("error: ");
    usage(format!("invalid value '{pattern}' for '{option}': {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use SizeOrPercent::{Bytes, Percent};

    fn split(options: Options) -> Result<(u64, u64), String> {
        options
            .budget()
            .map(|budget| (budget.head, budget.tail))
            .map_err(|err| err.to_string())
    }

    #[test]
    fn budget_splits() {
        let o = Options::new;
        assert_eq!(split(o()), Ok((5_000, 5_000)));
        assert_eq!(split(o().max(11)), Ok((5, 6)));
        assert_eq!(split(o().tokens(100)), Ok((200, 200)));
        assert_eq!(split(o().max(10_000).head(Percent(20))), Ok((2_000, 8_000)));
        assert_eq!(
            split(o().max(10_000).tail(Bytes(3_000))),
            Ok((7_000, 3_000))
        );
        assert_eq!(split(o().max(10_000).head(Bytes(10_000))), Ok((10_000, 0)));
        // Both sides given: they are the budget, and the default 10k does
        // not limit them (nor does TOOLCAP_MAX), though percentages are of
        // that default.
        let both = o().head(Bytes(1_000)).tail(Bytes(20_000));
        assert_eq!(split(both), Ok((1_000, 20_000)));
        let from_env = o()
            .max_from_environment(1_000)
            .head(Percent(20))
            .tail(Percent(80));
        assert_eq!(split(from_env), Ok((200, 800)));
        let over_env = o()
            .max_from_environment(100)
            .head(Bytes(60))
            .tail(Bytes(50));
        assert_eq!(split(over_env), Ok((60, 50)));
        let env_head = o().max_from_environment(100).head(Bytes(200));
        assert_eq!(
            split(env_head),
            Err(
                "--head (200 bytes) exceeds TOOLCAP_MAX (100 bytes): TOOLCAP_MAX is the \
                 ceiling for head and tail together"
                    .into()
            )
        );
        let rounded = o().max(7).head(Percent(50)).tail(Percent(50));
        assert_eq!(split(rounded), Ok((3, 3)));
        assert_eq!(split(o().tokens(10).head(Percent(50))), Ok((20, 20)));
    }

    #[test]
    fn max_is_a_ceiling_nothing_exceeds() {
        assert_eq!(
            split(Options::new().max(100).head(Bytes(200))),
            Err(
                "--head (200 bytes) exceeds --max (100 bytes): --max is the ceiling for head \
                 and tail together"
                    .into()
            )
        );
        assert!(split(Options::new().head(Bytes(20_000))).is_err());
        assert!(split(Options::new().tokens(10).tail(Bytes(41))).is_err());
        let disagree = Options::new().max(100).head(Bytes(60)).tail(Bytes(50));
        assert!(
            split(disagree)
                .unwrap_err()
                .starts_with("--head and --tail (110 bytes together) exceed --max")
        );
        let tokens_and_both = Options::new().tokens(10).head(Bytes(1)).tail(Bytes(1));
        assert!(
            split(tokens_and_both)
                .unwrap_err()
                .starts_with("--tokens cannot")
        );
        assert!(
            split(Options::new().tokens(u64::MAX))
                .unwrap_err()
                .contains("too large")
        );
        assert!(split(Options::new().max(1).tokens(1)).is_err());
        assert_eq!(
            split(Options::new().chars(3).max(4)),
            Err(
                "--max and --chars cannot be used together: exactly one of them sets the budget"
                    .into()
            )
        );
    }

    #[test]
    fn stderr_budget_has_its_own_ceiling() {
        let options = Options::new().max(100).head(Percent(10));
        let budget = options.stderr_budget(Some(50)).unwrap();
        assert_eq!((budget.head, budget.tail), (5, 45));
        let options = Options::new().max(100).head(Bytes(60));
        let err = options.stderr_budget(Some(50)).unwrap_err().to_string();
        assert!(err.contains("exceeds --stderr-max (50 bytes)"), "{err}");
    }
}
