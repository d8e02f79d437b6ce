//! The command line: the clap definition and its translation into a plain
//! [`Config`]. The only module that knows clap; the rest of toolcap sees the
//! `Config`. Also home of the test that keeps `man/` and `completions/` in
//! step with this definition.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::builder::{OsStringValueParser, TypedValueParser};
use clap::{ArgGroup, ArgMatches, CommandFactory, FromArgMatches, Parser, ValueEnum};

use super::profile;
use super::registry::{self, Flag, Group};
use crate::hook;
use crate::run::{Config, Input, Mode, StderrMode, WrapConfig};
use crate::size::{parse_count, parse_duration, parse_size, parse_size_or_percent};
use crate::store::{Grep, SpillTarget, StoreCommand, StoreTarget};
use crate::{Binary, CutMode, Format, Options, SizeOrPercent, Style, Tokenizer};

const DEFAULT_SHELL: &str = "/bin/sh";

/// --help is wrapped at the terminal's width, but never wider than this.
const HELP_WIDTH: usize = 80;

const ABOUT: &str = "Cap command output at a budget, keeping its head and tail";

const LONG_ABOUT: &str = "\
Cap command output at a budget, keeping its head and tail.

toolcap reads FILEs (or standard input, or the output of a command it runs) \
as one stream. Output within the budget is passed through byte for byte. \
Longer output keeps its first and last part; the middle is replaced by one \
marker line that says exactly what was removed, under a two-line warning \
header with the original size and line count. Memory stays bounded by the \
budget, whatever the size of the input.

Examples:
  make test 2>&1 | toolcap --max 10k
  toolcap --max 10k -- cargo test
  toolcap --spill-dir /tmp/out -c 'make -j8'

The second runs the command itself (wrap mode) and keeps its exit status; \
the third keeps the full output on disk when it is cut.";

/// The sections after the options, in `--help` and in the man page (where
/// each is a section of its own). Placeholders are written `{N}`, never
/// `{n}`: clap turns `{n}` into a line break.
const SECTIONS: [(&str, &str); 4] = [
    (
        "Sizes and durations",
        "\
SIZE: digits with an optional suffix, case-insensitive: none or b = bytes; \
k, kb = 1000; ki, kib = 1024; m, mb = 10^6; mi, mib = 2^20; g, gb = 10^9; \
gi, gib = 2^30. So 10k is 10,000 bytes, unlike GNU head where K is 1024 \
(write 10ki for that). PCT: a whole percentage of --max, such as 20%. \
COUNT (--tokens, --lines): plain digits.

DURATION: digits with an optional unit ms, s, m or h; plain digits are \
seconds (500ms, 30s, 5m, 1h, 30).",
    ),
    (
        "Output format",
        "\
When the input does not fit:
  Warning: truncated output (original token count: {T})
  Total output lines: {L}
  <blank line>
  {head}
  [... {N} bytes truncated ...]
  {tail}
where T = ceil(bytes/4) (or the --tokenizer's count; ~T when estimated) and \
L is the number of lines. With a spill file \
the marker reads
  [... {N} bytes truncated (lines {A}-{B}); full output in {PATH} ...]
Cuts never split a UTF-8 character, and with --cut lines (the default) they \
move to a line boundary when that costs at most a quarter of the side's \
budget.",
    ),
    (
        "Exit status",
        "\
Filter mode: 0 success (also when stdout was closed early); 1 a FILE could \
not be read, the spill file failed, or stdout could not be written; 2 usage \
error; 125 a bug in toolcap (a thread of its own panicked); 128+N when \
signal N (SIGINT, SIGTERM, SIGHUP) interrupted the reading: what was read \
is still capped and printed.

--hook: always 0 (a line on stderr says what went wrong), 1 for a usage \
error, never 2, which Claude Code reads as 'block this call'. \
--install-hook, --uninstall-hook: 0 success, 1 failure, 2 usage error.

Store commands (--list, --show, --summary, --prune): 0 success; 1 no such \
output, a store refused or unreadable, or --show --grep found no matching \
line; 2 usage error.

Wrap mode: the command's own status; 128+N when it was killed by signal N; \
124 on --timeout; 126 when it cannot be executed; 127 when it is not found; \
125 when toolcap itself failed (then the command's status, if it was not 0, \
still wins); 2 usage error.",
    ),
    (
        "Environment",
        "\
TOOLCAP_MAX sets the default of --max; TOOLCAP_TOKENIZER the default of \
--tokenizer; TOOLCAP_SPILL_DIR sets the default of --spill-dir (--no-spill \
turns it off); TOOLCAP_HOOK_OPTIONS the options of the commands --hook \
rewrites. Empty values count as unset.",
    ),
];

/// The three ways to call toolcap: the usage line and the man page's
/// SYNOPSIS.
const SYNOPSIS: [&str; 3] = [
    "[OPTIONS] [FILE]...",
    "[OPTIONS] -- PROGRAM [ARGS]...",
    "[OPTIONS] -c STRING",
];

const WRAP_MODE: &str = "Wrap mode";
const CLEANING: &str = "Cleaning (before the cap; the spill file stays raw)";
const KEEPING: &str = "Keeping lines from the cut middle";
const STORE: &str = "Spill store";
const FORMATS: &str = "Formats (cuts never land inside a record)";
const PROFILES: &str = "Profiles (per-tool options)";
const HOOK: &str = "Agent hooks";

// Every option that takes a number has `allow_negative_numbers`, so that
// `--max -3` reaches its parser, which refuses it naming the option, instead
// of clap reading `-3` as an unknown flag and `--max` as given no value.
#[derive(Parser, Debug)]
#[command(
    name = "toolcap",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    help_expected = true,
    max_term_width = HELP_WIDTH,
    group(ArgGroup::new("wrapped").args(["command", "program"]).multiple(false)),
)]
struct Args {
    /// Files to read, in order, as one stream ('-' or none: stdin)
    // An empty name is a FILE that cannot be read, as for `cat`: the others
    // still are (clap's path parser would refuse the whole command line).
    #[arg(value_name = "FILE", value_parser = OsStringValueParser::new().map(PathBuf::from))]
    files: Vec<PathBuf>,

    /// Budget for the kept output (head + tail) [default: 10k]
    #[arg(
        short,
        long,
        value_name = "SIZE",
        value_parser = parse_size,
        allow_negative_numbers = true,
        long_help = "Budget for the kept output: head + tail, a ceiling nothing exceeds. Output \
                     within it passes unchanged. [default: 10k, or TOOLCAP_MAX]\n\nExample: \
                     --max 4Mi"
    )]
    max: Option<u64>,

    /// Everything printed, header and markers included, within SIZE
    #[arg(
        long,
        value_name = "SIZE",
        value_parser = parse_size,
        conflicts_with = "json",
        long_help = "Everything toolcap prints (header, markers, kept lines, the status line) is \
                     at most SIZE bytes, for a harness that cuts again. It sets the budget: \
                     --max becomes SIZE less the room the header, one marker and a status line \
                     can take. A SIZE smaller than that room is a usage error naming the least \
                     SIZE that works. Not with --max, --tokens, --chars, --format, --header, \
                     --marker, --style codex or verifiers, --stderr separate or --json.\n\n\
                     Example: --total 10k fits mini-swe-agent's 10,000-character cut"
    )]
    total: Option<u64>,

    /// Budget in tokens (of 4 bytes, or of --tokenizer)
    #[arg(
        long,
        value_name = "COUNT",
        value_parser = parse_count,
        allow_negative_numbers = true,
        conflicts_with = "max",
        long_help = "Budget in tokens. With --tokenizer approx (the default) a token is 4 bytes: \
                     --max = 4 * COUNT bytes, and --head or --tail (not both) are bytes. With a \
                     real tokenizer the head is the longest prefix of at most floor(COUNT/2) \
                     tokens and the tail the longest suffix of the rest, each counted on its \
                     own, then snapped to lines as --cut says; --head and --tail are then \
                     tokens too.\n\nExample: --tokens 2500 --tokenizer o200k"
    )]
    tokens: Option<u64>,

    /// Budget from a context window of TOKENS: floor(TOKENS / (2 * --recent)) tokens
    #[arg(
        long,
        value_name = "TOKENS",
        value_parser = parse_size,
        long_help = "Budget from the model's context window of TOKENS tokens (200k is 200,000): \
                     floor(TOKENS / (2 * K)) tokens, K being --recent, so that the K latest \
                     results a harness keeps whole take at most half the window. Never more \
                     than --window-ceiling bytes, never less than 1k bytes. Tokens are as for \
                     --tokens: 4 bytes each, or with a real --tokenizer its tokens (the bounds \
                     then count 4 bytes a token).\n\nExample: --window 200k (25,000 tokens: \
                     100,000 bytes)"
    )]
    window: Option<u64>,

    /// With --window: the results kept whole in the context [default: 4]
    #[arg(long, value_name = "K", value_parser = parse_count)]
    recent: Option<u64>,

    /// With --window: the most bytes its budget may be [default: 256Ki]
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    window_ceiling: Option<u64>,

    /// What a token is: approx (4 bytes), o200k or cl100k [default: approx]
    #[arg(
        long,
        value_name = "NAME",
        value_enum,
        long_help = "What a token is, for --tokens and the header's original token count. \
                     approx: ceil(bytes/4), free. o200k (GPT-4o, GPT-4.1, o-series, GPT-5) and \
                     cl100k (GPT-4, GPT-3.5): OpenAI's vocabularies, built in; invalid UTF-8 is \
                     counted as U+FFFD. Loading one takes about 0.1 s; counting runs on a \
                     thread of its own. [default: approx, or TOOLCAP_TOKENIZER]"
    )]
    tokenizer: Option<TokenizerArg>,

    /// Count real tokens exactly up to SIZE bytes, then extrapolate
    #[arg(
        long,
        value_name = "SIZE",
        value_parser = parse_size,
        allow_negative_numbers = true,
        long_help = "With a real --tokenizer, the header's count is exact for the first SIZE \
                     bytes of the stream and extrapolated past them at the same tokens per \
                     byte, shown as ~N. [default: 64Mi]"
    )]
    count_limit: Option<u64>,

    /// Budget in Unicode characters instead of bytes
    #[arg(
        long,
        value_name = "COUNT",
        value_parser = parse_count,
        allow_negative_numbers = true,
        conflicts_with_all = ["max", "tokens"],
        long_help = "Budget in Unicode characters (each byte of invalid UTF-8 counts one): the \
                     head is the longest prefix of at most floor(COUNT/2) characters, the tail \
                     the longest suffix of the rest, each then snapped to lines as --cut says. \
                     --head and --tail are then characters too.\n\nExample: --chars 30000"
    )]
    chars: Option<u64>,

    /// Bytes kept from the start (default: half of --max)
    #[arg(
        long,
        value_name = "SIZE|PCT",
        value_parser = parse_size_or_percent,
        allow_negative_numbers = true,
        long_help = "Bytes kept from the start, at most --max. Default: floor(max/2). Given \
                     alone, the tail gets the rest of --max; with --tail too, the two are the \
                     budget (and may not exceed an explicit --max). PCT is floor(max * PCT / \
                     100).\n\nExample: --head 20% keeps 2k of a 10k budget from the start"
    )]
    head: Option<SizeOrPercent>,

    /// Bytes kept from the end (default: the rest of --max)
    #[arg(
        long,
        value_name = "SIZE|PCT",
        value_parser = parse_size_or_percent,
        allow_negative_numbers = true,
        long_help = "Bytes kept from the end, at most --max. Default: max - head. Given alone, \
                     the head gets the rest of --max.\n\nExample: --tail 80% keeps the last 8k \
                     of a 10k budget"
    )]
    tail: Option<SizeOrPercent>,

    /// Also cap by lines: first N/2 and last N - N/2 lines
    #[arg(
        short = 'n',
        long,
        value_name = "N",
        value_parser = parse_lines,
        allow_negative_numbers = true,
        long_help = "Also cap by lines: keep at most the first floor(N/2) and the last N - \
                     floor(N/2) lines. The byte budget still applies; the stricter of the two \
                     wins at each end. With --show, A:B prints only lines A to B.\n\nExample: \
                     -n 100"
    )]
    lines: Option<LinesArg>,

    /// Where cuts land: lines (near a line boundary) or bytes
    #[arg(
        long,
        value_enum,
        value_name = "WHERE",
        long_help = "Where cuts land. lines: at a line boundary when that loses at most a quarter \
                     of the side's budget, else mid-line. bytes: exactly at the budget. Neither \
                     splits a UTF-8 character. [default: lines]"
    )]
    cut: Option<CutArg>,

    /// Save every input byte to FILE (created 0600 or truncated)
    #[arg(
        long,
        value_name = "FILE",
        value_parser = non_empty_path(),
        conflicts_with_all = ["spill_dir", "no_spill"],
        long_help = "Write every input byte to FILE as it is read, so the full output is never \
                     lost; the marker names FILE by its absolute path. Created with mode 0600, \
                     or truncated; never through a symlink, and never when FILE is also an \
                     input or an output. In wrap mode with --stderr separate, the stderr goes to \
                     FILE.stderr."
    )]
    spill: Option<PathBuf>,

    /// Save the full input in the spill store DIR; kept only if cut
    #[arg(
        long,
        value_name = "DIR",
        value_parser = non_empty_path(),
        conflicts_with_all = ["no_spill", "store"],
        long_help = "Use DIR as a spill store (created mode 0700 if missing; refused if another \
                     user owns it or others can write to it): the full input goes to a new file \
                     in it (created exclusively, mode 0600) under a short id. The file is kept, \
                     and listed in DIR/index.jsonl, when the output names it (it was cut); \
                     otherwise it is deleted, and failing to write it is only a warning. \
                     [env: TOOLCAP_SPILL_DIR]"
    )]
    spill_dir: Option<PathBuf>,

    /// Spill into the default store (~/.cache/toolcap/spill)
    #[arg(
        long,
        conflicts_with = "no_spill",
        help_heading = STORE,
        long_help = "Use the default spill store, ${XDG_CACHE_HOME:-$HOME/.cache}/toolcap/spill, \
                     as --spill-dir would. With --list, --show, --summary and --prune, the store \
                     they read (also the default when no store is named)."
    )]
    store: bool,

    /// Do not spill, even when TOOLCAP_SPILL_DIR is set
    #[arg(long)]
    no_spill: bool,

    /// List the store's outputs, newest first
    #[arg(
        long,
        help_heading = STORE,
        group = "store_command",
        long_help = "List the store's outputs, newest first: id, time, size, lines, command. \
                     Takes only --store or --spill-dir DIR; any other option is refused."
    )]
    list: bool,

    /// Print a stored output byte for byte (ID: any unique prefix)
    #[arg(
        long,
        value_name = "ID",
        help_heading = STORE,
        group = "store_command",
        long_help = "Print the stored output ID (any unique prefix of its id) byte for byte; with \
                     --lines A:B, only its lines A to B (1-based, inclusive). Given a budget \
                     (--max, --tokens, --chars, --head or --tail) or --grep, the view is capped \
                     like any output, its marker naming the stored output's lines left out. \
                     Wrap mode's options, --spill, --no-spill, --retain, --retain-size, --json, \
                     --live and --profile do not apply to it and are refused."
    )]
    show: Option<String>,

    /// With --show: only the lines matching REGEX, each as NUMBER:LINE
    #[arg(
        long,
        value_name = "REGEX",
        help_heading = STORE,
        long_help = "With --show: print only the lines of the stored output that match REGEX \
                     (--keep's syntax, matched without the line end), in order, each after its \
                     1-based line number and ':' (1234:LINE); with --lines A:B, only lines A to \
                     B are searched. The result is capped like any output (the default budget \
                     when none is given; --keep and --fold do not apply to it); its marker says \
                     how many matching lines were left out and which lines they span. No \
                     matching line: nothing is printed, exit status 1, as grep.\n\nExample: \
                     toolcap --show 3f9a --grep 'FAILED|panicked' --context 2"
    )]
    grep: Option<String>,

    /// With --grep: N lines of context around each match, as grep -C N
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_count,
        allow_negative_numbers = true,
        help_heading = STORE,
        long_help = "With --grep: also print the N lines before and after each matching line, as \
                     grep -C N does: a context line is NUMBER-LINE (1233-LINE), and a line '--' \
                     separates groups that are not adjacent. [default: 0]"
    )]
    context: Option<u64>,

    /// Print one line that stands for a stored output
    #[arg(
        long,
        value_name = "ID",
        help_heading = STORE,
        group = "store_command",
        long_help = "Print one line a harness can put in place of a tool result it clears from \
                     the context: [output ID: BYTES bytes, LINES lines, exit STATUS, COMMAND; \
                     full output: toolcap --show ID]. Takes only --store or --spill-dir DIR; any \
                     other option is refused."
    )]
    summary: Option<String>,

    /// Apply retention to the store now, and remove the outputs of killed
    /// runs, which no run will list
    #[arg(
        long,
        help_heading = STORE,
        group = "store_command",
        long_help = "Apply retention to the store now (--retain, --retain-size), and remove the \
                     outputs of killed runs, which no run will list. Takes only --store or \
                     --spill-dir DIR, --retain and --retain-size; any other option is refused."
    )]
    prune: bool,

    /// Keep at most N outputs in the store [default: 200]
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_count,
        allow_negative_numbers = true,
        help_heading = STORE,
    )]
    retain: Option<u64>,

    /// Keep at most SIZE of outputs in the store [default: 1Gi]
    #[arg(
        long,
        value_name = "SIZE",
        value_parser = parse_size,
        allow_negative_numbers = true,
        help_heading = STORE,
    )]
    retain_size: Option<u64>,

    /// Output format: toolcap, codex or verifiers (as those harnesses truncate)
    #[arg(
        long,
        value_enum,
        value_name = "STYLE",
        long_help = "toolcap: the format above. codex: the truncation the codex agent shows its \
                     models, byte for byte: the output decoded as UTF-8 (invalid bytes become \
                     U+FFFD), unchanged within --max bytes (or 4 * --tokens); else the header, \
                     then the characters that end within the first floor(M/2) bytes, \
                     '\u{2026}{C} chars truncated\u{2026}' ('\u{2026}{T} tokens truncated\u{2026}' \
                     under --tokens) and the characters that start within the last M - \
                     floor(M/2) bytes, with no newline added. Not with --head, --tail, --lines, \
                     --cut, --keep, --header, --marker or --live.\n\nverifiers: verifiers 0.4.0's \
                     truncate_tool_output with TOOL_OUTPUT_MAX_BYTES = --max, byte for byte: the \
                     output decoded as UTF-8 (invalid bytes become U+FFFD), unchanged within \
                     --max bytes; else 'Warning: truncated output (original token count: \
                     ceil(C/4))', 'Total output lines: {newlines + 1}', a blank line, the first \
                     floor(M/2) bytes, '[... {n - 2*floor(M/2)} bytes truncated ...]' on its own \
                     line and the last floor(M/2) bytes (less a character either cut splits). At \
                     --max 0 or 1 both sides are empty. Only --max sets its budget; no cleaning, \
                     --keep, --format, --header, --no-header, --marker or --live. --spill and \
                     --store still save the output, without a word in the text. [default: \
                     toolcap]"
    )]
    style: Option<StyleArg>,

    /// Header text, with placeholders ('' for none)
    #[arg(
        long = "header",
        value_name = "TEMPLATE",
        long_help = "Replace the two header lines with TEMPLATE (an empty one: no header). \
                     Placeholders: {tokens}, {lines}, {bytes}, {omitted_bytes}, {omitted_chars}, \
                     {omitted_lines}, {first_omitted_line}, {last_omitted_line}, \
                     {hidden_matches}, {spill}, {id}, {show}; {bytes:,} groups thousands; \\n is a \
                     newline, {{ and }} are braces.\n\nExample: --header 'Output cut: {bytes:,} \
                     bytes, full output: {show}'"
    )]
    header_template: Option<String>,

    /// Marker text, with placeholders
    #[arg(
        long = "marker",
        value_name = "TEMPLATE",
        long_help = "Replace the marker line's text with TEMPLATE (placeholders as for --header, \
                     for each gap). A newline follows it.\n\nExample: --marker '[... \
                     {omitted_bytes:,} of {bytes:,} bytes omitted; full output in {spill} ...]'"
    )]
    marker_template: Option<String>,

    /// Omit the warning header
    #[arg(
        long,
        long_help = "Omit the two header lines (and the blank line after them)."
    )]
    no_header: bool,

    /// Print one JSON object (the report) instead of the text
    #[arg(
        long,
        long_help = "Print one JSON object on one line instead of the text: 'output' (exactly \
                     the text toolcap would have printed), 'truncated', 'bytes', 'lines', \
                     'tokens', 'head_bytes', 'tail_bytes', 'omitted_bytes', 'omitted_lines', \
                     'spill', 'spill_id', and in wrap mode 'exit' and 'duration_ms' (see the \
                     README for the whole schema)."
    )]
    json: bool,

    /// Print the head as it arrives; header lines go last
    #[arg(
        long,
        long_help = "Stream the head to stdout as it arrives, flushed per chunk, so a CI log \
                     shows progress while the job runs. Once the head budget is spent nothing more \
                     is printed until the end; then the marker, the tail and, because they could \
                     not come first, the two header lines. Output within the budget is still \
                     passed through unchanged."
    )]
    live: bool,

    /// Remove ANSI escape sequences (colours, cursor moves)
    #[arg(
        long,
        help_heading = CLEANING,
        long_help = "Remove ANSI/ECMA-48 escape sequences: CSI (colours, cursor moves), OSC \
                     (titles, hyperlinks) up to BEL or ESC \\, DCS/SOS/PM/APC strings, and other \
                     ESC sequences. Every other byte, invalid UTF-8 included, passes unchanged."
    )]
    strip_ansi: bool,

    /// Keep only the last frame of lines redrawn with \r
    #[arg(
        long,
        help_heading = CLEANING,
        long_help = "In each line, a bare \\r (not part of \\r\\n) discards what came before it \
                     once more text follows, so a progress bar leaves its final frame; a \
                     backspace removes the character before it. A frame over 1 MiB passes as it \
                     is."
    )]
    collapse_cr: bool,

    /// Replace 3+ identical lines in a row with one and a count
    #[arg(
        long,
        help_heading = CLEANING,
        long_help = "A run of k >= 3 identical consecutive lines becomes the first line and \
                     '[... previous line repeated {K} more times ...]' (K = k - 1). Lines over \
                     64 KiB are never squeezed."
    )]
    squeeze: bool,

    /// Shorten lines longer than SIZE, keeping both ends
    #[arg(
        long,
        value_name = "SIZE",
        value_parser = parse_size,
        allow_negative_numbers = true,
        help_heading = CLEANING,
        long_help = "A line longer than SIZE bytes (not counting its newline) keeps its first \
                     floor(SIZE/2) and last SIZE - floor(SIZE/2) bytes, with ' [... {N} bytes of \
                     this line truncated ...] ' between them, never splitting a character."
    )]
    max_line: Option<u64>,

    /// Binary input: text (as is) or summary (one line)
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        help_heading = CLEANING,
        long_help = "summary: input whose first 8 KiB contain a NUL byte becomes the single \
                     line '[binary output: {N} bytes]', naming the spill file when there is one. \
                     [default: text]"
    )]
    binary: Option<BinaryArg>,

    /// Replace invalid UTF-8 with U+FFFD
    #[arg(
        long,
        help_heading = CLEANING,
        long_help = "Replace invalid UTF-8 sequences with U+FFFD (one per maximal invalid \
                     subpart), so the output is valid UTF-8."
    )]
    utf8: bool,

    /// All of the above that agents want: --strip-ansi --collapse-cr --squeeze --fold --binary
    /// summary --utf8
    #[arg(
        long,
        help_heading = CLEANING,
        long_help = "Shorthand for --strip-ansi --collapse-cr --squeeze --fold --binary summary \
                     --utf8, the recommended setting for agents."
    )]
    clean: bool,

    /// Also show lines of the middle matching REGEX (repeatable)
    #[arg(
        long,
        value_name = "REGEX",
        help_heading = KEEPING,
        long_help = "Lines of the cut middle that match REGEX (Rust regex syntax, matched on \
                     bytes) are shown between head and tail, in order, each gap with its own \
                     marker. May be given several times.\n\nExample: --keep 'FAILED|panicked'"
    )]
    keep: Vec<String>,

    /// As --keep, but the lines are errors, shown first (repeatable)
    #[arg(
        long,
        value_name = "REGEX",
        help_heading = KEEPING,
        long_help = "As --keep, but the lines that match REGEX are errors: when not every match \
                     fits, errors are served before the other kept lines, the ones nearest the \
                     tail first. The profiles mark their error patterns this way. May be given \
                     several times.\n\nExample: --keep-error '^error(\\[E\\d+\\])?: '"
    )]
    keep_error: Vec<String>,

    /// Keep lines that look like errors (error, failed, panic, ...)
    #[arg(
        long,
        help_heading = KEEPING,
        long_help = "Keep lines of the middle that say error or exception (also TypeError, \
                     NullPointerException), fail, failed, failure, panic, panicked, traceback \
                     or fatal, in any case, and pytest's 'E   ' lines. They are errors: served \
                     before --keep's lines when not every match fits."
    )]
    keep_errors: bool,

    /// Lines kept before and after each kept match [default: 0]
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_count,
        allow_negative_numbers = true,
        help_heading = KEEPING,
    )]
    keep_context: Option<u64>,

    /// Share of the budget for kept lines and their markers [default: a quarter]
    #[arg(
        long,
        value_name = "SIZE",
        value_parser = parse_size,
        allow_negative_numbers = true,
        help_heading = KEEPING,
        long_help = "The share of the budget (in its unit) that the kept lines and the markers \
                     between them may use, taken from the head and the tail in proportion, so \
                     the output stays within --max. When not every match fits, errors come \
                     first, then the other matches, each class nearest the tail first, and the \
                     last marker says how many of each are not shown. [default: a quarter of the \
                     head and tail budgets, floor((H+T)/4)]"
    )]
    keep_max: Option<u64>,

    /// What the input holds: text, json, diff, csv or auto
    #[arg(
        long,
        value_enum,
        value_name = "FORMAT",
        help_heading = FORMATS,
        long_help = "What the input holds, so that no cut lands inside a record. text: lines \
                     and bytes. json: one document, shortened inside until it fits (valid JSON \
                     of the same shape, every count exact; the budget counts its bytes as \
                     printed); not JSON, or larger than --json-limit: capped as text, with a \
                     'Format: not JSON (REASON); capped as text' header line. diff: cuts at hunk \
                     or file boundaries, the marker naming the hunks and files left out. csv: \
                     cuts at rows (quoted newlines respected), the header row repeated before \
                     the tail. auto: json when the first non-blank byte is { or [ and the input \
                     parses, diff when it starts with 'diff --git' or '--- ', else text. Not \
                     with --live or --style codex; json, diff and csv not with --keep. \
                     [default: text]\n\nExample: git diff | toolcap --format diff"
    )]
    format: Option<FormatArg>,

    /// Largest JSON document parsed (default 64Mi); larger is text
    #[arg(
        long,
        value_name = "SIZE",
        value_parser = parse_size,
        allow_negative_numbers = true,
        help_heading = FORMATS,
        long_help = "--format json and auto hold the document in memory up to SIZE; a larger \
                     one is capped as text. [default: 64Mi]"
    )]
    json_limit: Option<u64>,

    /// Print a shortened JSON document pretty (2 spaces)
    #[arg(
        long,
        help_heading = FORMATS,
        long_help = "Print a shortened JSON document pretty, indented by 2 spaces. By default it \
                     is printed as the input looked: pretty when a newline lies within its \
                     first 200 bytes, else compact. A document that fits passes unchanged."
    )]
    pretty: bool,
    // --fold and --profile (issue 13).
    /// Fold runs of 3+ similar lines (equal but for numbers, ids, spacing)
    #[arg(
        long,
        help_heading = CLEANING,
        long_help = "A run of k >= 3 consecutive similar lines becomes its first line, '[... {K} \
                     similar lines folded ...]' (K = k - 2; with a spill file '(lines {A}-{B})' \
                     names the raw lines) and its last line. Similar: equal after masking, \
                     where a run of 8+ hex digits or of digits (with one '.' inside) is one \
                     placeholder, and spaces and tabs one space. Lines --keep or --keep-errors \
                     match are never folded. Lines over 64 KiB are never folded."
    )]
    fold: bool,

    /// With --fold: lines matching REGEX are similar to each other
    #[arg(
        long,
        value_name = "REGEX",
        help_heading = CLEANING,
        long_help = "With --fold: lines that match REGEX are similar to each other, whatever \
                     else they hold; a line belongs to the first pattern it matches, and lines \
                     of different patterns (or of none) are not similar. May be given several \
                     times.\n\nExample: --fold-pattern '^ +Compiling '"
    )]
    fold_pattern: Vec<String>,

    /// Replace credentials (tokens, keys, passwords) with [REDACTED:KIND]
    #[arg(
        long,
        help_heading = CLEANING,
        long_help = "Replace every credential toolcap recognises with [REDACTED:KIND], keeping \
                     what names the place: an assignment's key (API_KEY=[REDACTED:api-key]), a \
                     URL's scheme and host, a header's name and scheme. Kinds: AWS access key \
                     ids and labelled secret keys, GitHub, GitLab, Slack, Stripe live, OpenAI, \
                     Anthropic and Google API keys, JSON web tokens, PEM private key blocks, \
                     Authorization headers, credentials in URLs, and values of keys that name a \
                     secret (password, secret, token, api_key, access_key, private_key). The \
                     budget, --keep and --fold see the redacted text; the spill file and the \
                     store keep the raw bytes (--show ID --redact shows them redacted). A secret \
                     in a format it does not know passes: see the README for the list and the \
                     limits."
    )]
    redact: bool,

    /// Also redact what REGEX matches (repeatable; implies --redact)
    #[arg(
        long,
        value_name = "REGEX",
        help_heading = CLEANING,
        long_help = "Also redact what REGEX matches within a line (Rust regex syntax, matched on \
                     bytes), as [REDACTED:custom]; if REGEX has a group named secret, only that \
                     group is replaced. May be given several times; implies \
                     --redact.\n\nExample: --redact-pattern 'corp_key=(?P<secret>[0-9a-f]{32})'"
    )]
    redact_pattern: Vec<String>,

    /// Per-tool options: NAME, auto (by the command or input) or none
    #[arg(
        long,
        value_name = "NAME",
        help_heading = PROFILES,
        long_help = "Add a profile's options, which know what matters in a tool's output \
                     (pytest, cargo, go, npm, make, git, listing, json, and the user's own in \
                     ${XDG_CONFIG_HOME:-~/.config}/toolcap/profiles.toml). auto: the profile \
                     that matches the command (looking through env, sudo, time, nice, timeout, \
                     uv run, npx, python -m and sh -c), or in filter mode the input's first 4 \
                     KiB; none if nothing matches. Options given on the command line win. \
                     [default: none]\n\nExample: --profile auto",
        value_parser = profile::Choice::parse,
    )]
    profile: Option<profile::Choice>,

    /// List the profiles: what each matches, and its options
    #[arg(long, help_heading = PROFILES)]
    profiles: bool,

    /// Be AGENT's hook: rewrite its shell call (stdin JSON) to run through toolcap
    #[arg(
        long,
        value_name = "AGENT",
        value_enum,
        help_heading = HOOK,
        group = "hook_command",
        long_help = "Be AGENT's hook (claude-code: a PreToolUse hook for the Bash tool): read the \
                     event's JSON on stdin and print the JSON whose updatedInput runs the same \
                     command through toolcap -c, with the options of TOOLCAP_HOOK_OPTIONS, else of \
                     the [hook] table of profiles.toml (args = [...]), else --max 16k --clean \
                     --keep-errors --profile auto --store --plain-env --redact. Prints nothing \
                     (the call runs as it was) for another tool, a background call, and a command \
                     that changes the shell (cd, export, source, alias, set, exec, an assignment, \
                     ...), already runs toolcap, starts a background job, uses bash-only syntax or \
                     cannot be read with certainty. Never blocks the agent: bad input is one line \
                     on stderr, and exit status 0."
    )]
    hook: Option<AgentArg>,

    /// Add toolcap's hook to AGENT's settings (kept otherwise as they were)
    #[arg(
        long,
        value_name = "AGENT",
        value_enum,
        help_heading = HOOK,
        group = "hook_command",
        long_help = "Add the entry that runs 'toolcap --hook AGENT' to AGENT's settings \
                     (claude-code: hooks.PreToolUse, matcher Bash, in ~/.claude/settings.json, or \
                     --settings FILE, or --project's .claude/settings.json). Every other setting \
                     and hook stays as it was, in its order; the file is replaced atomically, \
                     after a copy of it is left as FILE.bak. Run again, it changes nothing."
    )]
    install_hook: Option<AgentArg>,

    /// Remove toolcap's hook from AGENT's settings
    #[arg(
        long,
        value_name = "AGENT",
        value_enum,
        help_heading = HOOK,
        group = "hook_command",
        long_help = "Remove exactly the entry --install-hook added (any command hook that runs \
                     'toolcap --hook AGENT'), from the same settings file; a backup is left as \
                     FILE.bak."
    )]
    uninstall_hook: Option<AgentArg>,

    /// With --install-hook/--uninstall-hook: the settings file [default: ~/.claude/settings.json]
    #[arg(
        long,
        value_name = "FILE",
        value_parser = non_empty_path(),
        help_heading = HOOK,
        conflicts_with = "project",
    )]
    settings: Option<PathBuf>,

    /// With --install-hook/--uninstall-hook: the project's .claude/settings.json
    #[arg(long, help_heading = HOOK)]
    project: bool,

    /// The values of --profile, one a line (for the shell completions)
    #[arg(long, hide = true)]
    list_profiles: bool,

    /// Run STRING with /bin/sh -c (or --shell)
    #[arg(
        short = 'c',
        long = "command",
        value_name = "STRING",
        help_heading = WRAP_MODE
    )]
    command: Option<OsString>,

    /// Shell for -c [default: /bin/sh]
    #[arg(long, value_name = "PATH", help_heading = WRAP_MODE)]
    shell: Option<OsString>,

    /// Child's stderr: merged into stdout, or capped separately
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        help_heading = WRAP_MODE,
        long_help = "merged: the child's stdout and stderr share one pipe, exactly as 2>&1, so \
                     lines keep their order. separate: the stderr is capped on its own onto \
                     toolcap's stderr, with its own header and marker. [default: merged]"
    )]
    stderr: Option<StderrArg>,

    /// Budget for the separate stderr [default: --max]
    #[arg(
        long,
        value_name = "SIZE",
        value_parser = parse_size,
        allow_negative_numbers = true,
        help_heading = WRAP_MODE,
        long_help = "Budget for the child's stderr with --stderr separate; --head, --tail, --lines \
                     and --cut apply to it as to stdout, and a PCT is of --stderr-max. [default: \
                     same as --max]"
    )]
    stderr_max: Option<u64>,

    /// Stop the command after DURATION (exit 124)
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_duration,
        allow_negative_numbers = true,
        help_heading = WRAP_MODE,
        long_help = "Stop the command after DURATION: SIGTERM to its whole process group, then \
                     SIGKILL after --kill-after. What it printed until then is capped and \
                     printed; exit status 124. 0 means no timeout.\n\nExample: --timeout 5m"
    )]
    timeout: Option<Duration>,

    /// Wait this long after SIGTERM before SIGKILL [default: 5s]
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_duration,
        allow_negative_numbers = true,
        help_heading = WRAP_MODE
    )]
    kill_after: Option<Duration>,

    /// Read at most this long after the command exits [default: 2s]
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_duration,
        allow_negative_numbers = true,
        help_heading = WRAP_MODE,
        long_help = "After the command exits, read its pipes for at most DURATION more, so a \
                     background process that keeps them open cannot hang toolcap. [default: 2s]"
    )]
    drain: Option<Duration>,

    /// Do not append the [exit status: N] line
    #[arg(
        long,
        help_heading = WRAP_MODE,
        long_help = "Do not append the status line that follows the output when the command did \
                     not exit 0: [exit status: 3], [killed by signal 9 (SIGKILL)] or [timed out \
                     after 30s]."
    )]
    no_status: bool,

    /// Give the command /dev/null as stdin
    #[arg(long, help_heading = WRAP_MODE)]
    no_stdin: bool,

    /// Ask the command for plain output (NO_COLOR=1, TERM=dumb, ...)
    #[arg(
        long,
        help_heading = WRAP_MODE,
        long_help = "Run the command with NO_COLOR=1, TERM=dumb, PAGER=cat, GIT_PAGER=cat, \
                     CLICOLOR=0 and without FORCE_COLOR and CLICOLOR_FORCE, so tools stop \
                     decorating their output for a terminal nobody sees."
    )]
    plain_env: bool,

    /// Run PROGRAM with ARGS directly (no shell) and cap its output
    #[arg(last = true, value_name = "PROGRAM")]
    program: Vec<OsString>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum CutArg {
    Lines,
    Bytes,
}

/// `--lines`: a count N to cap by, or a range A:B for `--show`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LinesArg {
    Count(u64),
    Range(u64, u64),
}

fn parse_lines(text: &str) -> Result<LinesArg, String> {
    let Some((first, last)) = text.split_once(':') else {
        return parse_count(text).map(LinesArg::Count);
    };
    match (parse_count(first), parse_count(last)) {
        (Ok(first), Ok(last)) if 1 <= first && first <= last => Ok(LinesArg::Range(first, last)),
        _ => Err("expected a line range A:B with 1 <= A <= B, e.g. 10:20".into()),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum TokenizerArg {
    Approx,
    O200k,
    Cl100k,
}

impl From<TokenizerArg> for Tokenizer {
    fn from(arg: TokenizerArg) -> Tokenizer {
        match arg {
            TokenizerArg::Approx => Tokenizer::Approx,
            TokenizerArg::O200k => Tokenizer::O200k,
            TokenizerArg::Cl100k => Tokenizer::Cl100k,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum StyleArg {
    Toolcap,
    Codex,
    Verifiers,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    Text,
    Json,
    Diff,
    Csv,
    Auto,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum BinaryArg {
    Text,
    Summary,
}

/// The agents toolcap can be a hook of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum AgentArg {
    /// Claude Code: a PreToolUse hook for its Bash tool.
    ClaudeCode,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum StderrArg {
    Merged,
    Separate,
}

/// The full clap definition, with the sections after the options.
pub(super) fn command() -> clap::Command {
    let after: Vec<String> = SECTIONS
        .iter()
        .map(|(title, text)| format!("{title}:\n{text}"))
        .collect();
    let usage: Vec<String> = SYNOPSIS
        .iter()
        .enumerate()
        .map(|(index, form)| {
            let indent = if index == 0 { "" } else { "       " };
            format!("{indent}toolcap {form}")
        })
        .collect();
    Args::command()
        .override_usage(usage.join("\n"))
        .after_long_help(after.join("\n\n"))
}

/// Why parsing ended without a `Config`: help or version (for stdout,
/// exit 0), or a usage error (one line for stderr, exit 2).
pub(crate) enum Stop {
    /// `--help` or `--version`: clap prints it, coloured only on a terminal.
    Info(clap::Error),
    /// A usage error, as one line.
    Usage(String),
    /// Text for stdout (`--profiles`), exit 0.
    Print(String),
    /// `--hook`, `--install-hook`, `--uninstall-hook`.
    Hook(hook::Command),
}

/// Parses the arguments (`argv[0]` first) and the process's environment
/// into a `Config`.
pub(crate) fn parse(argv: impl IntoIterator<Item = OsString>) -> Result<Config, Stop> {
    let argv: Vec<OsString> = argv.into_iter().collect();
    parse_from(argv.clone(), |name| std::env::var_os(name)).map_err(|stop| match stop {
        Stop::Usage(message) => match unexpected_hint(&argv) {
            Some(hint) => Stop::Usage(format!("{message}; {hint}")),
            None => Stop::Usage(message),
        },
        stop => stop,
    })
}

/// `toolcap --max 10k ls -la` is refused by clap at `-la`, before the
/// missing FILE `ls` would get its hint (issue 23): when clap refused an
/// unexpected argument, a word before it read as the first FILE is no file
/// and names a program on PATH, the same hint, naming the program. Only
/// for the command line: the Python functions and the hook name no
/// `toolcap` command to run.
fn unexpected_hint(argv: &[OsString]) -> Option<String> {
    use clap::error::ErrorKind;
    let definition = command();
    let parse = |end: usize| definition.clone().try_get_matches_from(&argv[..end]);
    let unknown = |err: clap::Error| err.kind() == ErrorKind::UnknownArgument;
    if !parse(argv.len()).is_err_and(unknown) {
        return None;
    }
    // clap reads left to right and stops at the first unexpected word: the
    // shortest prefix refused that way ends with it.
    let end = (1..=argv.len()).find(|&end| parse(end).is_err_and(unknown))?;
    let unexpected = end - 1;
    // The first FILE: the word that gives a prefix its first FILE, as long
    // as no -c STRING makes it a command line that cannot take one.
    let first_file = |at: usize| {
        let matches = parse(at + 1).ok()?;
        if matches.value_source(registry::COMMAND.id).is_some() {
            return None;
        }
        matches
            .get_many::<PathBuf>(registry::FILES.id)?
            .next()
            .cloned()
    };
    let at = (1..unexpected)
        .find(|&at| first_file(at).is_some_and(|file| file.as_os_str() == argv[at]))?;
    let name = argv[at].as_os_str();
    let missing =
        std::fs::metadata(name).is_err_and(|err| err.kind() == std::io::ErrorKind::NotFound);
    if !missing || !super::on_path(name) {
        return None;
    }
    // The words after the unexpected one are the program's, as it is; an
    // option between the program and it was taken as toolcap's, and may
    // have been meant so.
    let unsure = argv[at + 1..unexpected]
        .iter()
        .any(|word| word.as_encoded_bytes().starts_with(b"-"));
    let hint = super::dash_hint(&argv[1..], at - 1, unsure);
    Some(format!("'{}' is a program: {hint}", name.to_string_lossy()))
}

pub(crate) fn parse_from(
    argv: impl IntoIterator<Item = OsString>,
    env: impl Fn(&str) -> Option<OsString>,
) -> Result<Config, Stop> {
    let argv: Vec<OsString> = argv.into_iter().collect();
    let (matches, args) = parse_args(&argv)?;
    // `toolcap --` alone would read stdin and hang on a terminal: what
    // follows `--` is the program, and there is none.
    let dangling_separator = argv.last().is_some_and(|last| last == "--");
    if args.program.is_empty() && args.command.is_none() && dangling_separator {
        return Err(Stop::Usage(
            "no program after '--': give one, as in 'toolcap -- make test'".into(),
        ));
    }
    if args.profiles {
        return Err(profile::listing(&env).map_or_else(Stop::Usage, Stop::Print));
    }
    if let Some(command) = hook_command(&args, &matches, &env)? {
        return Err(Stop::Hook(command));
    }
    if args.list_profiles {
        return Err(Stop::Print(profile::names(&env)));
    }
    let choice = args.profile.clone();
    let config = args.into_config(&env).map_err(Stop::Usage)?;
    if let Mode::Store(store_command) = &config.mode {
        refuse_unapplied(store_command, &matches).map_err(Stop::Usage)?;
    }
    match choice {
        None => Ok(config),
        Some(choice) => {
            // The profile's options in front of the user's, parsed again.
            let reparse = |argv: Vec<OsString>| {
                let (_, args) = parse_args(&argv).map_err(|stop| match stop {
                    Stop::Usage(message) | Stop::Print(message) => message,
                    Stop::Info(info) => one_line(&info),
                    Stop::Hook(_) => "a profile's options cannot be a hook command".into(),
                })?;
                args.into_config(&env)
            };
            profile::apply(&choice, config, &argv, &matches, &env, &reparse).map_err(Stop::Usage)
        }
    }
}

/// Refuses an option given on the command line that the store command does
/// not apply, naming it (issue 21): `--list`, `--summary` and `--prune` take
/// only the store (`--prune` its retention too, `--list` and `--summary`
/// `--redact` for the commands they print, issue 25); `--show` takes what
/// its capped view applies. An option from the environment (TOOLCAP_MAX) is
/// a default, not a request, and is not refused.
fn refuse_unapplied(store_command: &StoreCommand, matches: &ArgMatches) -> Result<(), String> {
    let (command, takes) = match store_command {
        StoreCommand::List => (&registry::LIST, "--store or --spill-dir DIR"),
        StoreCommand::Summary { .. } => (&registry::SUMMARY, "--store or --spill-dir DIR"),
        StoreCommand::Prune => (
            &registry::PRUNE,
            "--store or --spill-dir DIR, --retain and --retain-size",
        ),
        StoreCommand::Show { .. } => (
            &registry::SHOW,
            "--lines A:B, --grep, --context, the store and the capping options",
        ),
    };
    let applies = |flag: &Flag| {
        let own = flag == command || flag.group == Group::Store;
        match store_command {
            StoreCommand::List | StoreCommand::Summary { .. } => {
                own || flag.group == Group::Redaction
            }
            StoreCommand::Prune => own || flag.group == Group::Retention,
            StoreCommand::Show { .. } => flag.applies_to_show(),
        }
    };
    // FILEs and a program are refused before, with their own message.
    let refused = registry::FLAGS
        .iter()
        .find(|flag| flag.group != Group::Input && given(matches, flag) && !applies(flag));
    match refused {
        Some(flag) => Err(format!(
            "{} does not apply to {}, which takes only {takes}",
            flag.name(),
            command.name()
        )),
        None => Ok(()),
    }
}

/// Whether `flag` was given on the command line (not only defaulted or
/// taken from the environment).
fn given(matches: &ArgMatches, flag: &Flag) -> bool {
    matches.value_source(flag.id) == Some(clap::parser::ValueSource::CommandLine)
}

/// What `--hook`, `--install-hook` or `--uninstall-hook` asks, if one is
/// given; they take no other option (the hook's options come from
/// TOOLCAP_HOOK_OPTIONS or profiles.toml, so that the settings entry stays
/// one fixed line).
fn hook_command(
    args: &Args,
    matches: &ArgMatches,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Option<hook::Command>, Stop> {
    let settings_given = args.settings.is_some() || args.project;
    let misplaced = || {
        Stop::Usage("--settings and --project are for --install-hook and --uninstall-hook".into())
    };
    let asked = match (args.hook, args.install_hook, args.uninstall_hook) {
        (Some(AgentArg::ClaudeCode), ..) => HookAsk::Rewrite,
        (_, Some(AgentArg::ClaudeCode), _) => HookAsk::Install,
        (.., Some(AgentArg::ClaudeCode)) => HookAsk::Uninstall,
        _ if settings_given => return Err(misplaced()),
        _ => return Ok(None),
    };
    let other = registry::FLAGS
        .iter()
        .find(|flag| flag.group != Group::Hook && given(matches, flag));
    if let Some(flag) = other {
        return Err(Stop::Usage(format!(
            "the hook commands take no other option (got '{}'): the hook's options come from \
             TOOLCAP_HOOK_OPTIONS or a [hook] table in profiles.toml",
            flag.name()
        )));
    }
    if asked == HookAsk::Rewrite {
        if settings_given {
            return Err(misplaced());
        }
        return Ok(Some(hook::Command::Rewrite(hook_options(env))));
    }
    let settings = match (&args.settings, args.project) {
        (Some(file), _) => file.clone(),
        (None, true) => PathBuf::from(".claude/settings.json"),
        (None, false) => match env("HOME").filter(|home| !home.is_empty()) {
            Some(home) => PathBuf::from(home).join(".claude/settings.json"),
            None => {
                return Err(Stop::Usage(
                    "the user's Claude Code settings are in $HOME/.claude: set HOME, or give \
                     --settings FILE or --project"
                        .into(),
                ));
            }
        },
    };
    Ok(Some(match asked {
        HookAsk::Install => hook::Command::Install(settings),
        _ => hook::Command::Uninstall(settings),
    }))
}

/// Which hook command was given.
#[derive(Clone, Copy, PartialEq, Eq)]
enum HookAsk {
    Rewrite,
    Install,
    Uninstall,
}

/// The options a wrapped command runs with: TOOLCAP_HOOK_OPTIONS, else the
/// `[hook]` table's `args`, else the default, and the table's `decision`;
/// the options checked as the command line reads them, so that a bad one
/// is said once, by the hook, instead of by every command it would wrap.
fn hook_options(env: &dyn Fn(&str) -> Option<OsString>) -> Result<hook::Rewrite, String> {
    const VARIABLE: &str = "TOOLCAP_HOOK_OPTIONS";
    let table = profile::hook_table(env)?.unwrap_or_default();
    let decision = match table.decision.as_deref() {
        Some("ask") => hook::Decision::Ask,
        _ => hook::Decision::Allow,
    };
    let words = match env(VARIABLE).filter(|value| !value.is_empty()) {
        Some(value) => {
            let text = value
                .to_str()
                .ok_or("invalid TOOLCAP_HOOK_OPTIONS: not UTF-8")?;
            hook::split_options(text)?
        }
        None => match table.args {
            Some(args) => args,
            None => hook::DEFAULT_OPTIONS
                .iter()
                .map(|word| word.to_string())
                .collect(),
        },
    };
    let argv = std::iter::once("toolcap")
        .chain(words.iter().map(String::as_str))
        .chain(["-c", "true"])
        .map(OsString::from);
    let refused = |why: String| format!("invalid hook options '{}': {why}", words.join(" "));
    let config = match parse_from(argv.collect::<Vec<_>>(), |name| env(name)) {
        Ok(config) => config,
        Err(Stop::Usage(why)) => return Err(refused(why)),
        Err(_) => return Err(refused("expected capping options only".into())),
    };
    // What the run would refuse of how it prints (`--live` with codex's
    // header first), said once here too.
    crate::plan::check_output(&config).map_err(|err| refused(err.to_string()))?;
    match &config.mode {
        Mode::Wrap(wrap) if wrap.argv.last().is_some_and(|last| last == "true") => {
            Ok(hook::Rewrite {
                options: words,
                decision,
            })
        }
        _ => Err(refused("expected capping options only".into())),
    }
}

/// The arguments as clap reads them, and as `Args`.
fn parse_args(argv: &[OsString]) -> Result<(ArgMatches, Args), Stop> {
    let matches: ArgMatches = command().try_get_matches_from(argv).map_err(|err| {
        if err.use_stderr() {
            Stop::Usage(one_line(&err))
        } else {
            Stop::Info(err)
        }
    })?;
    let args = Args::from_arg_matches(&matches).map_err(|err| Stop::Usage(one_line(&err)))?;
    Ok((matches, args))
}

/// clap's error as one line: its first line without `error: `, the
/// indented list that may follow it (missing arguments) joined in, and its
/// suggestions kept, except the tip to write `-- -1`, which would run a
/// program named `-1`.
pub(super) fn one_line(err: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    // A value our parsers refused: built from its parts, so that a value
    // with a newline in it is quoted whole.
    if err.kind() == ErrorKind::ValueValidation
        && let (Some(ContextValue::String(arg)), Some(ContextValue::String(value))) = (
            err.get(ContextKind::InvalidArg),
            err.get(ContextKind::InvalidValue),
        )
    {
        let reason = std::error::Error::source(err).map(ToString::to_string);
        return format!(
            "invalid value '{value}' for '{arg}': {}",
            reason.unwrap_or_default()
        );
    }
    let text = err.render().to_string();
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    let mut message = first.strip_prefix("error: ").unwrap_or(first).to_string();
    let mut items = Vec::new();
    for line in lines {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if let Some(tip) = line.strip_prefix("tip: ") {
            if !tip.contains("use '-- ") {
                message.push_str(&format!(" ({tip})"));
            }
        } else {
            items.push(line.to_string());
        }
    }
    if !items.is_empty() {
        message.push(' ');
        message.push_str(&items.join(", "));
    }
    message
}

impl Args {
    fn into_config(self, env: impl Fn(&str) -> Option<OsString>) -> Result<Config, String> {
        // An empty variable counts as unset, as for most tools.
        let env = |name: &str| env(name).filter(|value| !value.is_empty());
        let mut options = Options::new();
        if let Some(window) = self.window {
            options = options.window(window);
        }
        if let Some(recent) = self.recent {
            options = options.recent(recent);
        }
        if let Some(ceiling) = self.window_ceiling {
            options = options.window_ceiling(ceiling);
        }
        if let Some(total) = self.total {
            options = options.total(total);
        }
        match (self.max, self.tokens) {
            (Some(max), _) => options = options.max(max),
            (None, Some(tokens)) => options = options.tokens(tokens),
            (None, None)
                if self.chars.is_some() || self.window.is_some() || self.total.is_some() => {}
            (None, None) => {
                if let Some(value) = env("TOOLCAP_MAX") {
                    let text = value.to_str().ok_or("invalid TOOLCAP_MAX: not UTF-8")?;
                    let max = parse_size(text)
                        .map_err(|err| format!("invalid value '{text}' for TOOLCAP_MAX: {err}"))?;
                    options = options.max_from_environment(max);
                }
            }
        }
        if let Some(chars) = self.chars {
            options = options.chars(chars);
        }
        let tokenizer = match (self.tokenizer, env("TOOLCAP_TOKENIZER")) {
            (Some(arg), _) => arg,
            // Codex style counts as codex does: a default set for every run
            // must not refuse it.
            (None, Some(_))
                if matches!(self.style, Some(StyleArg::Codex | StyleArg::Verifiers)) =>
            {
                TokenizerArg::Approx
            }
            (None, Some(value)) => value
                .to_str()
                .and_then(|name| TokenizerArg::from_str(name, false).ok())
                .ok_or_else(|| {
                    format!(
                        "invalid TOOLCAP_TOKENIZER '{}': expected approx, o200k or cl100k",
                        value.to_string_lossy()
                    )
                })?,
            (None, None) => TokenizerArg::Approx,
        };
        options = options.tokenizer(tokenizer.into());
        if let Some(limit) = self.count_limit {
            options = options.count_limit(limit);
        }
        if let Some(head) = self.head {
            options = options.head(head);
        }
        if let Some(tail) = self.tail {
            options = options.tail(tail);
        }
        let show_lines = match self.lines {
            Some(LinesArg::Count(lines)) if self.show.is_none() => {
                options = options.lines(lines);
                None
            }
            Some(LinesArg::Range(first, last)) if self.show.is_some() => Some((first, last)),
            Some(LinesArg::Range(..)) => {
                return Err("--lines A:B is for --show; to cap by lines give a count".into());
            }
            Some(LinesArg::Count(_)) => {
                return Err("with --show, --lines takes a range A:B, e.g. 10:20".into());
            }
            None => None,
        };
        if let Some(cut) = self.cut {
            options = options.cut(match cut {
                CutArg::Lines => CutMode::Lines,
                CutArg::Bytes => CutMode::Bytes,
            });
        }
        options = options.header(!self.no_header);
        match self.style {
            Some(StyleArg::Codex) => options = options.style(Style::Codex),
            Some(StyleArg::Verifiers) => options = options.style(Style::Verifiers),
            Some(StyleArg::Toolcap) | None => {}
        }
        if let Some(template) = self.header_template {
            options = options.header_template(template);
        }
        if let Some(template) = self.marker_template {
            options = options.marker_template(template);
        }
        // --clean is the six below; an explicit --binary still wins.
        options = options
            .strip_ansi(self.clean || self.strip_ansi)
            .collapse_cr(self.clean || self.collapse_cr)
            .squeeze(self.clean || self.squeeze)
            .fold(self.clean || self.fold)
            .utf8(self.clean || self.utf8)
            .binary(match (self.binary, self.clean) {
                (Some(BinaryArg::Summary), _) | (None, true) => Binary::Summary,
                _ => Binary::Text,
            });
        if let Some(limit) = self.max_line {
            options = options.max_line(limit);
        }
        let keeps = !self.keep.is_empty() || !self.keep_error.is_empty() || self.keep_errors;
        if !keeps && (self.keep_context.is_some() || self.keep_max.is_some()) {
            return Err("--keep-context and --keep-max need --keep or --keep-errors".into());
        }
        for pattern in self.keep {
            options = options.keep(pattern);
        }
        for pattern in self.keep_error {
            options = options.keep_error(pattern);
        }
        for pattern in self.fold_pattern {
            options = options.fold_pattern(pattern);
        }
        options = options.redact(self.redact);
        for pattern in self.redact_pattern {
            options = options.redact_pattern(pattern);
        }
        options = options.keep_errors(self.keep_errors);
        if let Some(lines) = self.keep_context {
            options = options.keep_context(lines);
        }
        if let Some(max) = self.keep_max {
            options = options.keep_max(max);
        }
        if let Some(format) = self.format {
            options = options.format(match format {
                FormatArg::Text => Format::Text,
                FormatArg::Json => Format::Json,
                FormatArg::Diff => Format::Diff,
                FormatArg::Csv => Format::Csv,
                FormatArg::Auto => Format::Auto,
            });
        }
        if let Some(limit) = self.json_limit {
            options = options.json_limit(limit);
        }
        options = options.pretty(self.pretty);
        let default_store = || {
            StoreTarget::default_dir(env)
                .ok_or("--store needs a home for the default store: set HOME or XDG_CACHE_HOME")
        };
        if self.grep.is_none() && self.context.is_some() {
            return Err("--context needs --grep (and --show ID)".into());
        }
        if self.show.is_none() && self.grep.is_some() {
            return Err("--grep is for --show ID: it searches a stored output".into());
        }
        let budget_given = self.max.is_some()
            || self.tokens.is_some()
            || self.chars.is_some()
            || self.head.is_some()
            || self.tail.is_some();
        let grep = self.grep.map(|pattern| {
            let mut grep = Grep::new(pattern);
            grep.context = self.context.unwrap_or(0);
            grep
        });
        let store_command = match (self.list, self.show, self.summary, self.prune) {
            (true, ..) => Some(StoreCommand::List),
            (_, Some(id), ..) => Some(StoreCommand::Show {
                id,
                lines: show_lines,
                grep,
                capped: budget_given,
            }),
            (_, _, Some(id), _) => Some(StoreCommand::Summary { id }),
            (.., true) => Some(StoreCommand::Prune),
            _ => None,
        };
        const SPILL_DIR_VARIABLE: &str = "TOOLCAP_SPILL_DIR";
        let store_dir = match (self.spill_dir, self.store, self.no_spill) {
            (_, _, true) => None,
            (Some(dir), ..) => Some((dir, None)),
            (None, true, _) => Some((default_store()?, None)),
            (None, false, _) => match env(SPILL_DIR_VARIABLE) {
                Some(dir) => Some((dir.into(), Some(SPILL_DIR_VARIABLE))),
                // The store commands read the default store unless told.
                None if store_command.is_some() => Some((default_store()?, None)),
                None => None,
            },
        };
        let store = store_dir.map(|(dir, named_by)| {
            let mut target = StoreTarget::new(dir);
            target.named_by = named_by;
            target.retain = self.retain.unwrap_or(target.retain);
            target.retain_bytes = self.retain_size.unwrap_or(target.retain_bytes);
            target
        });
        if store.is_none() && (self.retain.is_some() || self.retain_size.is_some()) {
            return Err("--retain and --retain-size need a store: --store or --spill-dir".into());
        }
        let spill = match (self.spill, store) {
            (Some(file), _) => Some(SpillTarget::File(file)),
            (None, store) => store.map(SpillTarget::Store),
        };
        let wrap_only = [
            (&registry::SHELL, self.shell.is_some()),
            (&registry::STDERR, self.stderr.is_some()),
            (&registry::STDERR_MAX, self.stderr_max.is_some()),
            (&registry::TIMEOUT, self.timeout.is_some()),
            (&registry::KILL_AFTER, self.kill_after.is_some()),
            (&registry::DRAIN, self.drain.is_some()),
            (&registry::NO_STATUS, self.no_status),
            (&registry::NO_STDIN, self.no_stdin),
            (&registry::PLAIN_ENV, self.plain_env),
        ];
        let given_wrap_only = wrap_only
            .iter()
            .find_map(|(flag, given)| given.then(|| flag.name()));
        let argv = match (self.command, self.program) {
            (Some(string), _) => Some(vec![
                self.shell.unwrap_or_else(|| DEFAULT_SHELL.into()),
                "-c".into(),
                string,
            ]),
            (None, program) if !program.is_empty() => {
                if self.shell.is_some() {
                    return Err("--shell is for -c STRING; '-- PROGRAM' runs no shell".into());
                }
                Some(program)
            }
            _ => None,
        };
        if argv.is_some() && !self.files.is_empty() {
            return Err(
                "FILE arguments and a command cannot be combined: toolcap caps either FILEs or \
                 what a command prints"
                    .into(),
            );
        }
        if let Some(command) = store_command {
            if argv.is_some() || !self.files.is_empty() {
                return Err(
                    "--list, --show, --summary and --prune read the store; they take no FILE \
                     and no command"
                        .into(),
                );
            }
            let mut config = Config::new(Mode::Store(command));
            // What a capped --show view is capped by (`--show ID --redact`
            // reads --redact and --redact-pattern there too).
            config.options = options;
            config.spill = spill;
            return Ok(config);
        }
        let mode = match argv {
            None => {
                if let Some(name) = given_wrap_only {
                    return Err(format!(
                        "{name} is for wrap mode: give a command, as in 'toolcap {name} ... -- \
                         PROGRAM' or '-c STRING'"
                    ));
                }
                let inputs = self.files.into_iter().map(|path| {
                    if path.as_os_str() == "-" {
                        Input::Stdin
                    } else {
                        Input::File(path)
                    }
                });
                let mut inputs: Vec<Input> = inputs.collect();
                if inputs.is_empty() {
                    inputs.push(Input::Stdin);
                }
                Mode::Filter(inputs)
            }
            Some(argv) => {
                let mut wrap = WrapConfig::new(argv);
                wrap.stderr = match (self.stderr, self.stderr_max) {
                    (Some(StderrArg::Separate), max) => StderrMode::Separate { max },
                    (_, Some(_)) => return Err("--stderr-max needs --stderr separate".into()),
                    (_, None) => StderrMode::Merged,
                };
                if self.kill_after.is_some() && self.timeout.is_none_or(|t| t.is_zero()) {
                    return Err("--kill-after needs --timeout".into());
                }
                wrap.timeout = self.timeout.filter(|timeout| !timeout.is_zero());
                wrap.kill_after = self.kill_after.unwrap_or(wrap.kill_after);
                wrap.drain = self.drain.unwrap_or(wrap.drain);
                wrap.status_line = !self.no_status;
                wrap.inherit_stdin = !self.no_stdin;
                wrap.plain_env = self.plain_env;
                Mode::Wrap(wrap)
            }
        };
        let mut config = Config::new(mode);
        config.options = options;
        config.live = self.live;
        config.json = self.json;
        config.spill = spill;
        Ok(config)
    }
}

/// A path that is not empty, for an option that writes there: clap's own
/// parser would say no value was given.
fn non_empty_path() -> impl TypedValueParser<Value = PathBuf> {
    OsStringValueParser::new().try_map(|path| {
        if path.is_empty() {
            Err("expected a path, not an empty string")
        } else {
            Ok(PathBuf::from(path))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_with_env(args: &[&str], vars: &[(&str, &str)]) -> Result<Config, String> {
        let argv = std::iter::once("toolcap")
            .chain(args.iter().copied())
            .map(OsString::from);
        parse_from(argv, |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.into())
        })
        .map_err(|stop| match stop {
            Stop::Usage(message) | Stop::Print(message) => message,
            Stop::Info(info) => info.to_string(),
            Stop::Hook(command) => format!("{command:?}"),
        })
    }

    fn config(args: &[&str]) -> Result<Config, String> {
        config_with_env(args, &[])
    }

    /// The head and tail budgets the configuration asks for.
    fn budget(config: &Config) -> (u64, u64) {
        let mut capper = crate::Capper::new(&config.options).unwrap();
        // Cap a long line of known bytes and read the budget off the cut.
        capper.push(&vec![b'x'; 100_000]);
        let report = capper.finish();
        (report.head.len() as u64, report.tail.len() as u64)
    }

    #[test]
    fn a_tokenizer_from_the_environment_yields_to_codex_style_and_a_flag_does_not() {
        let env = [("TOOLCAP_TOKENIZER", "o200k")];
        let capper = |args: &[&str]| {
            let config = config_with_env(args, &env).unwrap();
            crate::Capper::new(&config.options)
                .map(drop)
                .map_err(|err| err.to_string())
        };
        assert_eq!(capper(&["--style", "codex"]), Ok(()));
        let refused = capper(&["--style", "codex", "--tokenizer", "o200k"]);
        assert!(refused.is_err_and(|err| err.contains("--tokenizer o200k")));
    }

    #[test]
    fn environment_sets_defaults_and_flags_win() {
        let env = [("TOOLCAP_MAX", "1k"), ("TOOLCAP_SPILL_DIR", "/tmp/s")];
        let from_env = config_with_env(&[], &env).unwrap();
        assert_eq!(budget(&from_env), (500, 500));
        let mut named = StoreTarget::new("/tmp/s");
        named.named_by = Some("TOOLCAP_SPILL_DIR");
        assert_eq!(from_env.spill, Some(SpillTarget::Store(named)));
        let flags = config_with_env(&["--tokens", "1", "--spill", "f"], &env).unwrap();
        assert_eq!(budget(&flags), (2, 2));
        assert_eq!(flags.spill, Some(SpillTarget::File("f".into())));
        let no_spill = config_with_env(&["--no-spill"], &env).unwrap();
        assert_eq!(no_spill.spill, None);
        // Both sides given: the environment's default does not limit them.
        let both = config_with_env(&["--head", "2k", "--tail", "1k"], &env).unwrap();
        assert_eq!(budget(&both), (2_000, 1_000));
        let err = config_with_env(&[], &[("TOOLCAP_MAX", "lots")]).unwrap_err();
        assert!(
            err.starts_with("invalid value 'lots' for TOOLCAP_MAX: expected digits"),
            "{err}"
        );
    }

    #[test]
    fn empty_environment_values_count_as_unset() {
        let config =
            config_with_env(&[], &[("TOOLCAP_MAX", ""), ("TOOLCAP_SPILL_DIR", "")]).unwrap();
        assert_eq!(budget(&config), (5_000, 5_000));
        assert_eq!(config.spill, None);
    }

    #[test]
    fn usage_errors() {
        for args in [
            &["--max", "1.5k"][..],
            &["--max", "1k", "--tokens", "3"],
            &["--spill", "a", "--spill-dir", "b"],
            &["--spill", "a", "--no-spill"],
            &["file", "--", "echo"],
            &["-c", "true", "--", "echo"],
            &["--timeout", "1s"],
            &["--shell", "bash"],
            &["--shell", "bash", "--", "echo"],
            &["--stderr-max", "1k", "--", "true"],
            &["--kill-after", "1s", "--", "true"],
            &["--tokens", "1.5"],
            &["--lines", "1e3"],
            &["--"],
            &["--max", "5", "--"],
        ] {
            assert!(config(args).is_err(), "{args:?}");
        }
    }

    #[test]
    fn usage_errors_are_one_line_with_the_value_and_the_expected_form() {
        for (args, expected) in [
            (
                &["--tokens", "1.5"][..],
                "invalid value '1.5' for '--tokens <COUNT>': expected a whole number, e.g. 100",
            ),
            (
                &["--lines", "1e3"],
                "invalid value '1e3' for '--lines <N>': expected a whole number, e.g. 100",
            ),
            (
                &["--maxx", "3"],
                "unexpected argument '--maxx' found (a similar argument exists: '--max')",
            ),
            (&["-1"], "unexpected argument '-1' found"),
            (
                &["--timeout", "1s"],
                "--timeout is for wrap mode: give a command, as in 'toolcap --timeout ... -- \
                 PROGRAM' or '-c STRING'",
            ),
            (
                &["--stderr-max", "1k"],
                "--stderr-max is for wrap mode: give a command, as in 'toolcap --stderr-max ... \
                 -- PROGRAM' or '-c STRING'",
            ),
            (
                &["--cut", "words"],
                "invalid value 'words' for '--cut <WHERE>' [possible values: lines, bytes]",
            ),
        ] {
            assert_eq!(config(args).unwrap_err(), expected, "{args:?}");
        }
    }

    #[test]
    fn wrap_mode_arguments() {
        let Mode::Wrap(wrap) = config(&["--shell", "bash", "-c", "echo hi"]).unwrap().mode else {
            panic!("not wrap mode")
        };
        assert_eq!(wrap.argv, ["bash", "-c", "echo hi"]);
        let Mode::Wrap(wrap) = config(&["--timeout", "0", "--", "ls", "-l"]).unwrap().mode else {
            panic!("not wrap mode")
        };
        assert_eq!((wrap.argv.len(), wrap.timeout), (2, None));
    }

    /// The registry and the clap definition name the same arguments, in
    /// the same order, each with the same names, what it takes, and wrap
    /// mode's under its heading.
    #[test]
    fn the_registry_is_the_clap_definition() {
        use clap::ArgAction;
        let definition = command();
        let arguments: Vec<&clap::Arg> = definition.get_arguments().collect();
        let ids: Vec<&str> = arguments.iter().map(|arg| arg.get_id().as_str()).collect();
        let registered: Vec<&str> = registry::FLAGS.iter().map(|flag| flag.id).collect();
        assert_eq!(ids, registered);
        for (arg, flag) in arguments.iter().zip(registry::FLAGS) {
            assert_eq!(arg.get_long(), flag.long, "{}", flag.id);
            assert_eq!(arg.get_short(), flag.short, "{}", flag.id);
            let takes = match arg.get_action() {
                ArgAction::SetTrue => "nothing",
                ArgAction::Append => "repeated",
                ArgAction::Set => "one",
                action => panic!("{}: {action:?}", flag.id),
            };
            let (registered, value) = match flag.takes {
                registry::Takes::Nothing => ("nothing", None),
                registry::Takes::Repeated(value) => ("repeated", Some(value)),
                registry::Takes::One(value) => ("one", Some(value)),
            };
            assert_eq!(takes, registered, "{}", flag.id);
            // A path is parsed as one, a duration as one; a word as neither.
            let parsed = arg.get_value_parser().type_id();
            let is = |id: std::any::TypeId| parsed == id;
            let parsed_as = if is(std::any::TypeId::of::<PathBuf>()) {
                registry::Value::Path
            } else if is(std::any::TypeId::of::<Duration>()) {
                registry::Value::Duration
            } else {
                registry::Value::Word
            };
            if let Some(value) = value {
                assert_eq!(parsed_as, value, "{}", flag.id);
            }
            let wrap = arg.get_help_heading() == Some(WRAP_MODE);
            assert_eq!(wrap, flag.group == Group::Wrap, "{}", flag.id);
        }
    }

    #[test]
    fn clap_definition_is_consistent() {
        command().debug_assert();
    }

    /// Every line of --help fits 80 columns, and no placeholder was eaten
    /// by clap (it reads `{n}` as a line break).
    #[test]
    fn help_fits_80_columns_and_keeps_its_placeholders() {
        let help = command()
            .term_width(HELP_WIDTH)
            .render_long_help()
            .to_string();
        for line in help.lines() {
            assert!(line.chars().count() <= HELP_WIDTH, "too wide: {line:?}");
        }
        assert!(help.contains("[... {N} bytes truncated ...]"), "{help}");
        assert!(
            help.contains("[... {N} bytes truncated (lines {A}-{B}); full output in {PATH} ...]"),
            "{help}"
        );
        assert!(help.contains(WRAP_MODE), "{help}");
    }

    /// The man page: clap_mangen's sections, but a SYNOPSIS with the three
    /// forms and the sections after the options as sections of their own.
    fn man_page() -> Vec<u8> {
        use roff::{Roff, bold, italic, roman};
        let man = clap_mangen::Man::new(command());
        let mut page = Vec::new();
        man.render_title(&mut page).unwrap();
        man.render_name_section(&mut page).unwrap();
        let mut synopsis = Roff::new();
        synopsis.control("SH", ["SYNOPSIS"]);
        for (index, form) in SYNOPSIS.iter().enumerate() {
            if index > 0 {
                synopsis.control("br", []);
            }
            let mut line = vec![bold("toolcap"), roman(" ")];
            for word in form.split(' ') {
                if word.starts_with('[') || word.starts_with('-') {
                    line.push(roman(word));
                } else {
                    line.push(italic(word));
                }
                line.push(roman(" "));
            }
            line.pop();
            synopsis.text(line);
        }
        page.extend(synopsis.render().into_bytes());
        man.render_description_section(&mut page).unwrap();
        man.render_options_section(&mut page).unwrap();
        let mut sections = Roff::new();
        for (title, text) in SECTIONS {
            sections.control("SH", [title.to_uppercase().as_str()]);
            for (index, paragraph) in text.split("\n\n").enumerate() {
                if index > 0 {
                    sections.control("PP", []);
                }
                // Prose is filled; indented lines are examples, kept as
                // they are.
                let mut literal = false;
                for line in paragraph.lines() {
                    let indented = line.starts_with("  ");
                    if indented != literal {
                        sections.control(if indented { "nf" } else { "fi" }, []);
                        literal = indented;
                    }
                    sections.text([roman(line)]);
                }
                if literal {
                    sections.control("fi", []);
                }
            }
        }
        page.extend(sections.render().into_bytes());
        man.render_version_section(&mut page).unwrap();
        // Each part rendered on its own repeats roff's preamble; once will do.
        let text = String::from_utf8(page).unwrap();
        let preamble = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";
        let (first, rest) = text.split_at(text.find(preamble).unwrap() + preamble.len());
        (first.to_string() + &rest.replace(preamble, "")).into_bytes()
    }

    /// A completion script whose `--profile` offers the names `toolcap
    /// --list-profiles` prints (the built-ins and the user's profiles.toml,
    /// read when completing) instead of file names: clap's static scripts
    /// know only values fixed in the definition.
    fn with_profile_names(shell: clap_complete::Shell, script: String) -> String {
        let names = "toolcap --list-profiles 2>/dev/null";
        let (from, to) = match shell {
            clap_complete::Shell::Bash => (
                "--profile)\n                    COMPREPLY=($(compgen -f \"${cur}\"))".to_string(),
                format!(
                    "--profile)\n                    \
                     COMPREPLY=($(compgen -W \"$({names})\" -- \"${{cur}}\"))"
                ),
            ),
            clap_complete::Shell::Zsh => (
                ":NAME:_default'".to_string(),
                format!(":NAME:{{compadd -- ${{(f)\"$({names})\"}}}}'"),
            ),
            clap_complete::Shell::Fish => {
                let line = script
                    .lines()
                    .find(|line| line.starts_with("complete -c toolcap -l profile "))
                    .unwrap()
                    .to_string();
                let patched = format!("{line} -f -a \"({names})\"");
                (line, patched)
            }
            _ => unreachable!("no completions for {shell}"),
        };
        assert!(
            script.contains(&from),
            "{shell}: no --profile completion to replace"
        );
        script.replace(&from, &to)
    }

    /// The man page and completions are generated from this definition; a
    /// difference from the checked-in copies fails with the fix.
    #[test]
    fn generated_files_are_current() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut expected = vec![(root.join("man/toolcap.1"), man_page())];
        for (shell, file) in [
            (clap_complete::Shell::Bash, "toolcap.bash"),
            (clap_complete::Shell::Zsh, "_toolcap"),
            (clap_complete::Shell::Fish, "toolcap.fish"),
        ] {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut command(), "toolcap", &mut script);
            let script = with_profile_names(shell, String::from_utf8(script).unwrap());
            expected.push((root.join("completions").join(file), script.into_bytes()));
        }
        let update = std::env::var_os("TOOLCAP_UPDATE_GENERATED").is_some_and(|v| v == "1");
        let mut stale = Vec::new();
        for (path, content) in expected {
            if update {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &content).unwrap();
            } else if std::fs::read(&path).ok().as_deref() != Some(&content[..]) {
                stale.push(path.display().to_string());
            }
        }
        assert!(
            stale.is_empty(),
            "generated files differ from the clap definition: {stale:?}\n\
             regenerate them with: \
             TOOLCAP_UPDATE_GENERATED=1 cargo test generated_files_are_current"
        );
    }
}
