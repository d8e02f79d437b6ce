//! [`Options`]: how one stream is capped and rendered, as the library's
//! callers, the command line, profiles.toml and the Python keywords set
//! it. Plain data: nothing here checks one option against another or
//! derives a budget ([`Plan::compile`](crate::plan::Plan::compile) does).
//! Imports only the vocabulary of the stages (cut modes, formats,
//! tokenizers, cleaning).

use crate::cut::CutMode;
use crate::format::Format;
use crate::measure::Tokenizer;
use crate::size::SizeOrPercent;
use crate::transform::Cleaning;

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
/// [`Capper::new`](crate::Capper::new) or [`run::command`](crate::run::command).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    pub(crate) max: Option<u64>,
    /// `--total`: everything printed within this many bytes.
    pub(crate) total: Option<u64>,
    /// The default budget from the environment (`TOOLCAP_MAX`).
    pub(crate) default_max: Option<u64>,
    pub(crate) tokens: Option<u64>,
    /// `--window`, `--recent`, `--window-ceiling`.
    pub(crate) window: Option<Window>,
    pub(crate) tokenizer: Tokenizer,
    pub(crate) count_limit: Option<u64>,
    pub(crate) chars: Option<u64>,
    pub(crate) head: Option<SizeOrPercent>,
    pub(crate) tail: Option<SizeOrPercent>,
    pub(crate) lines: Option<u64>,
    /// `None`: lines, the default (kept apart from an explicit `--cut`,
    /// which `--style codex` refuses).
    pub(crate) cut: Option<CutMode>,
    pub(crate) header: bool,
    pub(crate) style: Style,
    pub(crate) header_template: Option<String>,
    pub(crate) marker_template: Option<String>,
    pub(crate) cleaning: Cleaning,
    pub(crate) keep: Vec<String>,
    /// `--keep-error`: patterns of the error class.
    pub(crate) keep_error: Vec<String>,
    pub(crate) keep_errors: bool,
    pub(crate) keep_context: Option<u64>,
    pub(crate) keep_max: Option<u64>,
    /// `--format`, `--json-limit`, `--pretty` (README, "Formats").
    pub(crate) format: Format,
    pub(crate) json_limit: Option<u64>,
    pub(crate) pretty: bool,
    // --fold (issue 13): kept apart from `Cleaning`, whose transforms need
    // nothing compiled.
    pub(crate) fold: bool,
    pub(crate) fold_patterns: Vec<String>,
    /// `--redact` and `--redact-pattern` (issue 25): compiled into
    /// [`RedactRules`], so kept apart from `Cleaning` too.
    pub(crate) redact: bool,
    pub(crate) redact_patterns: Vec<String>,
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
            keep_context: None,
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
    /// `window_ceiling` bytes and at least 1,000 bytes. Tokens
    /// are as for [`tokens`](Options::tokens).
    pub fn window(mut self, tokens: u64) -> Options {
        self.window.get_or_insert_with(Window::default).tokens = Some(tokens);
        self
    }

    /// `--recent`: with `window`, the results a harness keeps whole
    /// (default 4).
    pub fn recent(mut self, results: u64) -> Options {
        self.window.get_or_insert_with(Window::default).recent = Some(results);
        self
    }

    /// `--window-ceiling`: with `window`, the most bytes its budget may
    /// come to (default 256 KiB).
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
    /// 64 MiB).
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
    /// [`KEEP_ERRORS`](crate::KEEP_ERRORS)).
    pub fn keep_errors(mut self, on: bool) -> Options {
        self.keep_errors = on;
        self
    }

    /// `--keep-context`: lines kept before and after each kept match.
    pub fn keep_context(mut self, lines: u64) -> Options {
        self.keep_context = Some(lines);
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
        self.keep_context = None;
        self.keep_max = None;
        self.fold = false;
        self.fold_patterns.clear();
        self
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

    /// Whether the warning header is printed: the getter of
    /// [`header`](Options::header).
    pub fn has_header(&self) -> bool {
        self.header
    }
}

/// What each setter set, read back: `get_NAME` for the setter `NAME`, as
/// clap's builders name their getters.
impl Options {
    /// `--max`, if given.
    pub fn get_max(&self) -> Option<u64> {
        self.max
    }

    /// `--total`, if given.
    pub fn get_total(&self) -> Option<u64> {
        self.total
    }

    /// The default budget from the environment (`TOOLCAP_MAX`), if given.
    pub fn get_max_from_environment(&self) -> Option<u64> {
        self.default_max
    }

    /// `--tokens`, if given.
    pub fn get_tokens(&self) -> Option<u64> {
        self.tokens
    }

    /// `--window`, if given.
    pub fn get_window(&self) -> Option<u64> {
        self.window.and_then(|window| window.tokens)
    }

    /// `--recent`, if given.
    pub fn get_recent(&self) -> Option<u64> {
        self.window.and_then(|window| window.recent)
    }

    /// `--window-ceiling`, if given.
    pub fn get_window_ceiling(&self) -> Option<u64> {
        self.window.and_then(|window| window.ceiling)
    }

    /// `--tokenizer`.
    pub fn get_tokenizer(&self) -> Tokenizer {
        self.tokenizer
    }

    /// `--count-limit`, if given.
    pub fn get_count_limit(&self) -> Option<u64> {
        self.count_limit
    }

    /// `--chars`, if given.
    pub fn get_chars(&self) -> Option<u64> {
        self.chars
    }

    /// `--head`, if given.
    pub fn get_head(&self) -> Option<SizeOrPercent> {
        self.head
    }

    /// `--tail`, if given.
    pub fn get_tail(&self) -> Option<SizeOrPercent> {
        self.tail
    }

    /// `--lines`, if given.
    pub fn get_lines(&self) -> Option<u64> {
        self.lines
    }

    /// `--cut`, if given (`None` cuts at lines).
    pub fn get_cut(&self) -> Option<CutMode> {
        self.cut
    }

    /// `--style`.
    pub fn get_style(&self) -> Style {
        self.style
    }

    /// `--header`, if given.
    pub fn get_header_template(&self) -> Option<&str> {
        self.header_template.as_deref()
    }

    /// `--marker`, if given.
    pub fn get_marker_template(&self) -> Option<&str> {
        self.marker_template.as_deref()
    }

    /// `--strip-ansi`.
    pub fn get_strip_ansi(&self) -> bool {
        self.cleaning.strip_ansi
    }

    /// `--collapse-cr`.
    pub fn get_collapse_cr(&self) -> bool {
        self.cleaning.collapse_cr
    }

    /// `--squeeze`.
    pub fn get_squeeze(&self) -> bool {
        self.cleaning.squeeze
    }

    /// `--utf8`.
    pub fn get_utf8(&self) -> bool {
        self.cleaning.utf8
    }

    /// `--binary`.
    pub fn get_binary(&self) -> Binary {
        if self.cleaning.binary_summary {
            Binary::Summary
        } else {
            Binary::Text
        }
    }

    /// `--max-line`, if given.
    pub fn get_max_line(&self) -> Option<u64> {
        self.cleaning.max_line
    }

    /// `--keep`: the patterns, in order.
    pub fn get_keep(&self) -> &[String] {
        &self.keep
    }

    /// `--keep-error`: the patterns, in order.
    pub fn get_keep_error(&self) -> &[String] {
        &self.keep_error
    }

    /// `--keep-errors`.
    pub fn get_keep_errors(&self) -> bool {
        self.keep_errors
    }

    /// `--keep-context`, if given (none: 0).
    pub fn get_keep_context(&self) -> Option<u64> {
        self.keep_context
    }

    /// `--keep-max`, if given.
    pub fn get_keep_max(&self) -> Option<u64> {
        self.keep_max
    }

    /// `--format`.
    pub fn get_format(&self) -> Format {
        self.format
    }

    /// `--json-limit`, if given.
    pub fn get_json_limit(&self) -> Option<u64> {
        self.json_limit
    }

    /// `--pretty`.
    pub fn get_pretty(&self) -> bool {
        self.pretty
    }

    /// `--fold`.
    pub fn get_fold(&self) -> bool {
        self.fold
    }

    /// `--fold-pattern`: the patterns, in order.
    pub fn get_fold_pattern(&self) -> &[String] {
        &self.fold_patterns
    }

    /// `--redact` (`redact_pattern` also turns it on).
    pub fn get_redact(&self) -> bool {
        self.redact
    }

    /// `--redact-pattern`: the patterns, in order.
    pub fn get_redact_pattern(&self) -> &[String] {
        &self.redact_patterns
    }
}

/// `--window TOKENS [--recent K] [--window-ceiling SIZE]`, as given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) tokens: Option<u64>,
    pub(crate) recent: Option<u64>,
    pub(crate) ceiling: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn getters_read_back_what_the_setters_set() {
        let options = Options::new()
            .window(200_000)
            .recent(2)
            .head(SizeOrPercent::Percent(20))
            .cut(CutMode::Bytes)
            .keep("^E ")
            .keep("panic")
            .keep_context(3)
            .binary(Binary::Summary)
            .header(false);
        assert_eq!(options.get_window(), Some(200_000));
        assert_eq!(options.get_recent(), Some(2));
        assert_eq!(options.get_window_ceiling(), None);
        assert_eq!(options.get_head(), Some(SizeOrPercent::Percent(20)));
        assert_eq!(options.get_cut(), Some(CutMode::Bytes));
        assert_eq!(options.get_keep(), ["^E ", "panic"]);
        assert_eq!(options.get_keep_context(), Some(3));
        assert_eq!(options.get_binary(), Binary::Summary);
        assert!(!options.has_header());
        let clean = Options::new().clean();
        assert!(clean.get_strip_ansi() && clean.get_fold() && clean.get_utf8());
        assert_eq!(Options::new().get_max(), None);
        assert_eq!(Options::new().get_style(), Style::Toolcap);
    }
}
