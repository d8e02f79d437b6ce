//! The entries of the registry, one an option, in the order `--help`
//! lists them: each with its names, what it takes, its help text, and its
//! update of the [`Draft`](super::Draft). Imports the registry's types and
//! the vocabulary its choices name.

use super::Group::*;
use super::Keyword::{Cap, No, Run};
use super::Kind::{Count, Duration, Files, Lines, Os, Path, Share, Size, Text};
use super::Takes::{Nothing, One, Repeated};
use super::{Choice, Doc, Flag, Kind, PLAIN, Parse, Pick};
use crate::cli::draft::{Agent, StderrChoice};
use crate::cli::profile;
use crate::cut::CutMode;
use crate::format::Format;
use crate::measure::Tokenizer;
use crate::options::{Binary, Options, Style};

pub(crate) const WRAP_MODE: &str = "Wrap mode";
const CLEANING: &str = "Cleaning (before the cap; the spill file stays raw)";
const KEEPING: &str = "Keeping lines from the cut middle";
const STORE_HEADING: &str = "Spill store";
const FORMATS: &str = "Formats (cuts never land inside a record)";
const PROFILES_HEADING: &str = "Profiles (per-tool options)";
const HOOKS: &str = "Agent hooks";

/// A choice without help of its own.
const fn choice(name: &'static str, pick: Pick) -> Choice {
    Choice {
        name,
        help: None,
        pick,
    }
}

const TOKENIZERS: &[Choice] = &[
    choice("approx", Pick::Tokenizer(Tokenizer::Approx)),
    choice("o200k", Pick::Tokenizer(Tokenizer::O200k)),
    choice("cl100k", Pick::Tokenizer(Tokenizer::Cl100k)),
];

const CUTS: &[Choice] = &[
    choice("lines", Pick::Cut(CutMode::Lines)),
    choice("bytes", Pick::Cut(CutMode::Bytes)),
];

const STYLES: &[Choice] = &[
    choice("toolcap", Pick::Style(Style::Toolcap)),
    choice("codex", Pick::Style(Style::Codex)),
    choice("verifiers", Pick::Style(Style::Verifiers)),
];

const BINARIES: &[Choice] = &[
    choice("text", Pick::Binary(Binary::Text)),
    choice("summary", Pick::Binary(Binary::Summary)),
];

const RECORD_FORMATS: &[Choice] = &[
    choice("text", Pick::Format(Format::Text)),
    choice("json", Pick::Format(Format::Json)),
    choice("diff", Pick::Format(Format::Diff)),
    choice("csv", Pick::Format(Format::Csv)),
    choice("auto", Pick::Format(Format::Auto)),
];

/// The agents toolcap can be a hook of.
const AGENTS: &[Choice] = &[Choice {
    name: "claude-code",
    help: Some("Claude Code: a PreToolUse hook for its Bash tool"),
    pick: Pick::Agent(Agent::ClaudeCode),
}];

const STDERRS: &[Choice] = &[
    choice("merged", Pick::Stderr(StderrChoice::Merged)),
    choice("separate", Pick::Stderr(StderrChoice::Separate)),
];

pub(crate) const FILES: Flag = Flag {
    id: "files",
    long: None,
    short: None,
    takes: Repeated(Files),
    group: Input,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("FILE"),
        heading: None,
        help: "Files to read, in order, as one stream ('-' or none: stdin)",
        long_help: None,
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.files.push(value.path()?);
        Ok(())
    },
};

pub(crate) const MAX: Flag = Flag {
    id: "max",
    long: Some("max"),
    short: Some('m'),
    takes: One(Size),
    group: Budget,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("SIZE"),
        heading: None,
        help: "Budget for the kept output (head + tail) [default: 10k]",
        long_help: Some(
            "Budget for the kept output: head + tail, a ceiling nothing exceeds. \
            Output within it passes unchanged. [default: 10k, or TOOLCAP_MAX]\n\nExample: --max \
            4Mi",
        ),
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.set(Options::max, value.number()?);
        Ok(())
    },
};

pub(crate) const TOTAL: Flag = Flag {
    id: "total",
    long: Some("total"),
    short: None,
    takes: One(Size),
    group: Budget,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("SIZE"),
        heading: None,
        help: "Everything printed, header and markers included, within SIZE",
        long_help: Some(
            "Everything toolcap prints (header, markers, kept lines, the status line) \
            is at most SIZE bytes, for a harness that cuts again. It sets the budget: --max \
            becomes SIZE less the room the header, one marker and a status line can take. A SIZE \
            smaller than that room is a usage error naming the least SIZE that works. Not with \
            --max, --tokens, --chars, --format, --header, --marker, --style codex or verifiers, \
            --stderr separate or --json.\n\nExample: --total 10k fits mini-swe-agent's \
            10,000-character cut",
        ),
        hide: false,
    },
    parse: Parse {
        conflicts: &["json"],
        ..PLAIN
    },
    update: |value, draft| {
        draft.set(Options::total, value.number()?);
        Ok(())
    },
};

pub(crate) const TOKENS: Flag = Flag {
    id: "tokens",
    long: Some("tokens"),
    short: None,
    takes: One(Count),
    group: Budget,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("COUNT"),
        heading: None,
        help: "Budget in tokens (of 4 bytes, or of --tokenizer)",
        long_help: Some(
            "Budget in tokens. With --tokenizer approx (the default) a token is 4 \
            bytes: --max = 4 * COUNT bytes, and --head or --tail (not both) are bytes. With a \
            real tokenizer the head is the longest prefix of at most floor(COUNT/2) tokens and \
            the tail the longest suffix of the rest, each counted on its own, then snapped to \
            lines as --cut says; --head and --tail are then tokens too.\n\nExample: --tokens 2500 \
            --tokenizer o200k",
        ),
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        conflicts: &["max"],
        ..PLAIN
    },
    update: |value, draft| {
        draft.set(Options::tokens, value.number()?);
        Ok(())
    },
};

pub(crate) const WINDOW: Flag = Flag {
    id: "window",
    long: Some("window"),
    short: None,
    takes: One(Size),
    group: Budget,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("TOKENS"),
        heading: None,
        help: "Budget from a context window of TOKENS: floor(TOKENS / (2 * --recent)) tokens",
        long_help: Some(
            "Budget from the model's context window of TOKENS tokens (200k is \
            200,000): floor(TOKENS / (2 * K)) tokens, K being --recent, so that the K latest \
            results a harness keeps whole take at most half the window. Never more than \
            --window-ceiling bytes, never less than 1k bytes. Tokens are as for --tokens: 4 bytes \
            each, or with a real --tokenizer its tokens (the bounds then count 4 bytes a \
            token).\n\nExample: --window 200k (25,000 tokens: 100,000 bytes)",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.set(Options::window, value.number()?);
        Ok(())
    },
};

pub(crate) const RECENT: Flag = Flag {
    id: "recent",
    long: Some("recent"),
    short: None,
    takes: One(Count),
    group: Budget,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("K"),
        heading: None,
        help: "With --window: the results kept whole in the context [default: 4]",
        long_help: None,
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.set(Options::recent, value.number()?);
        Ok(())
    },
};

pub(crate) const WINDOW_CEILING: Flag = Flag {
    id: "window_ceiling",
    long: Some("window-ceiling"),
    short: None,
    takes: One(Size),
    group: Budget,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("SIZE"),
        heading: None,
        help: "With --window: the most bytes its budget may be [default: 256Ki]",
        long_help: None,
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.set(Options::window_ceiling, value.number()?);
        Ok(())
    },
};

pub(crate) const TOKENIZER: Flag = Flag {
    id: "tokenizer",
    long: Some("tokenizer"),
    short: None,
    takes: One(Kind::Choice(TOKENIZERS)),
    group: Capping,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("NAME"),
        heading: None,
        help: "What a token is: approx (4 bytes), o200k or cl100k [default: approx]",
        long_help: Some(
            "What a token is, for --tokens and the header's original token count. \
            approx: ceil(bytes/4), free. o200k (GPT-4o, GPT-4.1, o-series, GPT-5) and cl100k \
            (GPT-4, GPT-3.5): OpenAI's vocabularies, built in; invalid UTF-8 is counted as \
            U+FFFD. Loading one takes about 0.1 s; counting runs on a thread of its own. \
            [default: approx, or TOOLCAP_TOKENIZER]",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.tokenizer = Some(value.tokenizer()?);
        Ok(())
    },
};

pub(crate) const COUNT_LIMIT: Flag = Flag {
    id: "count_limit",
    long: Some("count-limit"),
    short: None,
    takes: One(Size),
    group: Capping,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("SIZE"),
        heading: None,
        help: "Count real tokens exactly up to SIZE bytes, then extrapolate",
        long_help: Some(
            "With a real --tokenizer, the header's count is exact for the first SIZE \
            bytes of the stream and extrapolated past them at the same tokens per byte, shown as \
            ~N. [default: 64Mi]",
        ),
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.set(Options::count_limit, value.number()?);
        Ok(())
    },
};

pub(crate) const CHARS: Flag = Flag {
    id: "chars",
    long: Some("chars"),
    short: None,
    takes: One(Count),
    group: Budget,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("COUNT"),
        heading: None,
        help: "Budget in Unicode characters instead of bytes",
        long_help: Some(
            "Budget in Unicode characters (each byte of invalid UTF-8 counts one): the \
            head is the longest prefix of at most floor(COUNT/2) characters, the tail the longest \
            suffix of the rest, each then snapped to lines as --cut says. --head and --tail are \
            then characters too.\n\nExample: --chars 30000",
        ),
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        conflicts: &["max", "tokens"],
        ..PLAIN
    },
    update: |value, draft| {
        draft.set(Options::chars, value.number()?);
        Ok(())
    },
};

pub(crate) const HEAD: Flag = Flag {
    id: "head",
    long: Some("head"),
    short: None,
    takes: One(Share),
    group: Capping,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("SIZE|PCT"),
        heading: None,
        help: "Bytes kept from the start (default: half of --max)",
        long_help: Some(
            "Bytes kept from the start, at most --max. Default: floor(max/2). Given \
            alone, the tail gets the rest of --max; with --tail too, the two are the budget (and \
            may not exceed an explicit --max). PCT is floor(max * PCT / 100).\n\nExample: --head \
            20% keeps 2k of a 10k budget from the start",
        ),
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.set(Options::head, value.share()?);
        Ok(())
    },
};

pub(crate) const TAIL: Flag = Flag {
    id: "tail",
    long: Some("tail"),
    short: None,
    takes: One(Share),
    group: Capping,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("SIZE|PCT"),
        heading: None,
        help: "Bytes kept from the end (default: the rest of --max)",
        long_help: Some(
            "Bytes kept from the end, at most --max. Default: max - head. Given alone, \
            the head gets the rest of --max.\n\nExample: --tail 80% keeps the last 8k of a 10k \
            budget",
        ),
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.set(Options::tail, value.share()?);
        Ok(())
    },
};

pub(crate) const LINES: Flag = Flag {
    id: "lines",
    long: Some("lines"),
    short: Some('n'),
    takes: One(Lines),
    group: Capping,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("N"),
        heading: None,
        help: "Also cap by lines: first N/2 and last N - N/2 lines",
        long_help: Some(
            "Also cap by lines: keep at most the first floor(N/2) and the last N - \
            floor(N/2) lines. The byte budget still applies; the stricter of the two wins at each \
            end. With --show, A:B prints only lines A to B.\n\nExample: -n 100",
        ),
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.lines = Some(value.lines()?);
        Ok(())
    },
};

pub(crate) const CUT: Flag = Flag {
    id: "cut",
    long: Some("cut"),
    short: None,
    takes: One(Kind::Choice(CUTS)),
    group: Capping,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("WHERE"),
        heading: None,
        help: "Where cuts land: lines (near a line boundary) or bytes",
        long_help: Some(
            "Where cuts land. lines: at a line boundary when that loses at most a \
            quarter of the side's budget, else mid-line. bytes: exactly at the budget. Neither \
            splits a UTF-8 character. [default: lines]",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.set(Options::cut, value.cut()?);
        Ok(())
    },
};

pub(crate) const SPILL: Flag = Flag {
    id: "spill",
    long: Some("spill"),
    short: None,
    takes: One(Path),
    group: Spill,
    in_profiles: false,
    keyword: Cap,
    doc: Doc {
        value_name: Some("FILE"),
        heading: None,
        help: "Save every input byte to FILE (created 0600 or truncated)",
        long_help: Some(
            "Write every input byte to FILE as it is read, so the full output is never \
            lost; the marker names FILE by its absolute path. Created with mode 0600, or \
            truncated; never through a symlink, and never when FILE is also an input or an \
            output. In wrap mode with --stderr separate, the stderr goes to FILE.stderr.",
        ),
        hide: false,
    },
    parse: Parse {
        conflicts: &["spill_dir", "no_spill"],
        ..PLAIN
    },
    update: |value, draft| {
        draft.spill = Some(value.path()?);
        Ok(())
    },
};

pub(crate) const SPILL_DIR: Flag = Flag {
    id: "spill_dir",
    long: Some("spill-dir"),
    short: None,
    takes: One(Path),
    group: Store,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("DIR"),
        heading: None,
        help: "Save the full input in the spill store DIR; kept only if cut",
        long_help: Some(
            "Use DIR as a spill store (created mode 0700 if missing; refused if \
            another user owns it or others can write to it): the full input goes to a new file in \
            it (created exclusively, mode 0600) under a short id. The file is kept, and listed in \
            DIR/index.jsonl, when the output names it (it was cut); otherwise it is deleted, and \
            failing to write it is only a warning. [env: TOOLCAP_SPILL_DIR]",
        ),
        hide: false,
    },
    parse: Parse {
        conflicts: &["no_spill", "store"],
        ..PLAIN
    },
    update: |value, draft| {
        draft.spill_dir = Some(value.path()?);
        Ok(())
    },
};

pub(crate) const STORE: Flag = Flag {
    id: "store",
    long: Some("store"),
    short: None,
    takes: Nothing,
    group: Store,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("STORE"),
        heading: Some(STORE_HEADING),
        help: "Spill into the default store (~/.cache/toolcap/spill)",
        long_help: Some(
            "Use the default spill store, \
            ${XDG_CACHE_HOME:-$HOME/.cache}/toolcap/spill, as --spill-dir would. With --list, \
            --show, --summary and --prune, the store they read (also the default when no store is \
            named).",
        ),
        hide: false,
    },
    parse: Parse {
        conflicts: &["no_spill"],
        ..PLAIN
    },
    update: |_, draft| {
        draft.store = true;
        Ok(())
    },
};

pub(crate) const NO_SPILL: Flag = Flag {
    id: "no_spill",
    long: Some("no-spill"),
    short: None,
    takes: Nothing,
    group: Spill,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("NO_SPILL"),
        heading: None,
        help: "Do not spill, even when TOOLCAP_SPILL_DIR is set",
        long_help: None,
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.no_spill = true;
        Ok(())
    },
};

pub(crate) const LIST: Flag = Flag {
    id: "list",
    long: Some("list"),
    short: None,
    takes: Nothing,
    group: StoreCommand,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("LIST"),
        heading: Some(STORE_HEADING),
        help: "List the store's outputs, newest first",
        long_help: Some(
            "List the store's outputs, newest first: id, time, size, lines, command. \
            Takes only --store or --spill-dir DIR; any other option is refused.",
        ),
        hide: false,
    },
    parse: Parse {
        in_group: Some("store_command"),
        ..PLAIN
    },
    update: |_, draft| {
        draft.list = true;
        Ok(())
    },
};

pub(crate) const SHOW: Flag = Flag {
    id: "show",
    long: Some("show"),
    short: None,
    takes: One(Text),
    group: StoreCommand,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("ID"),
        heading: Some(STORE_HEADING),
        help: "Print a stored output byte for byte (ID: any unique prefix)",
        long_help: Some(
            "Print the stored output ID (any unique prefix of its id) byte for byte; \
            with --lines A:B, only its lines A to B (1-based, inclusive). Given a budget (--max, \
            --tokens, --chars, --head or --tail) or --grep, the view is capped like any output, \
            its marker naming the stored output's lines left out. Wrap mode's options, --spill, \
            --no-spill, --retain, --retain-size, --json, --live and --profile do not apply to it \
            and are refused.",
        ),
        hide: false,
    },
    parse: Parse {
        in_group: Some("store_command"),
        ..PLAIN
    },
    update: |value, draft| {
        draft.show = Some(value.text()?);
        Ok(())
    },
};

pub(crate) const GREP: Flag = Flag {
    id: "grep",
    long: Some("grep"),
    short: None,
    takes: One(Text),
    group: Show,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("REGEX"),
        heading: Some(STORE_HEADING),
        help: "With --show: only the lines matching REGEX, each as NUMBER:LINE",
        long_help: Some(
            "With --show: print only the lines of the stored output that match REGEX \
            (--keep's syntax, matched without the line end), in order, each after its 1-based \
            line number and ':' (1234:LINE); with --lines A:B, only lines A to B are searched. \
            The result is capped like any output (the default budget when none is given; --keep \
            and --fold do not apply to it); its marker says how many matching lines were left out \
            and which lines they span. No matching line: nothing is printed, exit status 1, as \
            grep.\n\nExample: toolcap --show 3f9a --grep 'FAILED|panicked' --context 2",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.grep = Some(value.text()?);
        Ok(())
    },
};

pub(crate) const CONTEXT: Flag = Flag {
    id: "context",
    long: Some("context"),
    short: None,
    takes: One(Count),
    group: Show,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("N"),
        heading: Some(STORE_HEADING),
        help: "With --grep: N lines of context around each match, as grep -C N",
        long_help: Some(
            "With --grep: also print the N lines before and after each matching line, \
            as grep -C N does: a context line is NUMBER-LINE (1233-LINE), and a line '--' \
            separates groups that are not adjacent. [default: 0]",
        ),
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.context = Some(value.number()?);
        Ok(())
    },
};

pub(crate) const SUMMARY: Flag = Flag {
    id: "summary",
    long: Some("summary"),
    short: None,
    takes: One(Text),
    group: StoreCommand,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("ID"),
        heading: Some(STORE_HEADING),
        help: "Print one line that stands for a stored output",
        long_help: Some(
            "Print one line a harness can put in place of a tool result it clears from \
            the context: [output ID: BYTES bytes, LINES lines, exit STATUS, COMMAND; full output: \
            toolcap --show ID]. Takes only --store or --spill-dir DIR; any other option is \
            refused.",
        ),
        hide: false,
    },
    parse: Parse {
        in_group: Some("store_command"),
        ..PLAIN
    },
    update: |value, draft| {
        draft.summary = Some(value.text()?);
        Ok(())
    },
};

pub(crate) const PRUNE: Flag = Flag {
    id: "prune",
    long: Some("prune"),
    short: None,
    takes: Nothing,
    group: StoreCommand,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("PRUNE"),
        heading: Some(STORE_HEADING),
        help: "Apply retention to the store now, and remove the outputs of killed runs, which no \
            run will list",
        long_help: Some(
            "Apply retention to the store now (--retain, --retain-size), and remove \
            the outputs of killed runs, which no run will list. Takes only --store or --spill-dir \
            DIR, --retain and --retain-size; any other option is refused.",
        ),
        hide: false,
    },
    parse: Parse {
        in_group: Some("store_command"),
        ..PLAIN
    },
    update: |_, draft| {
        draft.prune = true;
        Ok(())
    },
};

pub(crate) const RETAIN: Flag = Flag {
    id: "retain",
    long: Some("retain"),
    short: None,
    takes: One(Count),
    group: Retention,
    in_profiles: false,
    keyword: Cap,
    doc: Doc {
        value_name: Some("N"),
        heading: Some(STORE_HEADING),
        help: "Keep at most N outputs in the store [default: 200]",
        long_help: None,
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.retain = Some(value.number()?);
        Ok(())
    },
};

pub(crate) const RETAIN_SIZE: Flag = Flag {
    id: "retain_size",
    long: Some("retain-size"),
    short: None,
    takes: One(Size),
    group: Retention,
    in_profiles: false,
    keyword: Cap,
    doc: Doc {
        value_name: Some("SIZE"),
        heading: Some(STORE_HEADING),
        help: "Keep at most SIZE of outputs in the store [default: 1Gi]",
        long_help: None,
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.retain_size = Some(value.number()?);
        Ok(())
    },
};

pub(crate) const STYLE: Flag = Flag {
    id: "style",
    long: Some("style"),
    short: None,
    takes: One(Kind::Choice(STYLES)),
    group: Look,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("STYLE"),
        heading: None,
        help: "Output format: toolcap, codex or verifiers (as those harnesses truncate)",
        long_help: Some(
            "toolcap: the format above. codex: the truncation the codex agent shows \
            its models, byte for byte: the output decoded as UTF-8 (invalid bytes become U+FFFD), \
            unchanged within --max bytes (or 4 * --tokens); else the header, then the characters \
            that end within the first floor(M/2) bytes, '\u{2026}{C} chars truncated\u{2026}' \
            ('\u{2026}{T} tokens truncated\u{2026}' under --tokens) and the characters that start \
            within the last M - floor(M/2) bytes, with no newline added. Not with --head, --tail, \
            --lines, --cut, --keep, --header, --marker or --live.\n\nverifiers: verifiers 0.4.0's \
            truncate_tool_output with TOOL_OUTPUT_MAX_BYTES = --max, byte for byte: the output \
            decoded as UTF-8 (invalid bytes become U+FFFD), unchanged within --max bytes; else \
            'Warning: truncated output (original token count: ceil(C/4))', 'Total output lines: \
            {newlines + 1}', a blank line, the first floor(M/2) bytes, '[... {n - 2*floor(M/2)} \
            bytes truncated ...]' on its own line and the last floor(M/2) bytes (less a character \
            either cut splits). At --max 0 or 1 both sides are empty. Only --max sets its budget; \
            no cleaning, --keep, --format, --header, --no-header, --marker or --live. --spill and \
            --store still save the output, without a word in the text. [default: toolcap]",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.set(Options::style, value.style()?);
        Ok(())
    },
};

pub(crate) const HEADER: Flag = Flag {
    id: "header_template",
    long: Some("header"),
    short: None,
    takes: One(Text),
    group: Look,
    in_profiles: true,
    keyword: No,
    doc: Doc {
        value_name: Some("TEMPLATE"),
        heading: None,
        help: "Header text, with placeholders ('' for none)",
        long_help: Some(
            "Replace the two header lines with TEMPLATE (an empty one: no header). \
            Placeholders: {tokens}, {lines}, {bytes}, {omitted_bytes}, {omitted_chars}, \
            {omitted_lines}, {first_omitted_line}, {last_omitted_line}, {hidden_matches}, \
            {spill}, {id}, {show}; {bytes:,} groups thousands; \\n is a newline, {{ and }} are \
            braces.\n\nExample: --header 'Output cut: {bytes:,} bytes, full output: {show}'",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.set(Options::header_template, value.text()?);
        Ok(())
    },
};

pub(crate) const MARKER: Flag = Flag {
    id: "marker_template",
    long: Some("marker"),
    short: None,
    takes: One(Text),
    group: Look,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("TEMPLATE"),
        heading: None,
        help: "Marker text, with placeholders",
        long_help: Some(
            "Replace the marker line's text with TEMPLATE (placeholders as for \
            --header, for each gap). A newline follows it.\n\nExample: --marker '[... \
            {omitted_bytes:,} of {bytes:,} bytes omitted; full output in {spill} ...]'",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.set(Options::marker_template, value.text()?);
        Ok(())
    },
};

pub(crate) const NO_HEADER: Flag = Flag {
    id: "no_header",
    long: Some("no-header"),
    short: None,
    takes: Nothing,
    group: Look,
    in_profiles: true,
    keyword: No,
    doc: Doc {
        value_name: Some("NO_HEADER"),
        heading: None,
        help: "Omit the warning header",
        long_help: Some("Omit the two header lines (and the blank line after them)."),
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.set(Options::header, false);
        Ok(())
    },
};

pub(crate) const JSON: Flag = Flag {
    id: "json",
    long: Some("json"),
    short: None,
    takes: Nothing,
    group: RunOutput,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("JSON"),
        heading: None,
        help: "Print one JSON object (the report) instead of the text",
        long_help: Some(
            "Print one JSON object on one line instead of the text: 'output' (exactly \
            the text toolcap would have printed), 'truncated', 'bytes', 'lines', 'tokens', \
            'head_bytes', 'tail_bytes', 'omitted_bytes', 'omitted_lines', 'spill', 'spill_id', \
            and in wrap mode 'exit' and 'duration_ms' (see the README for the whole schema).",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.json = true;
        Ok(())
    },
};

pub(crate) const LIVE: Flag = Flag {
    id: "live",
    long: Some("live"),
    short: None,
    takes: Nothing,
    group: RunOutput,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("LIVE"),
        heading: None,
        help: "Print the head as it arrives; header lines go last",
        long_help: Some(
            "Stream the head to stdout as it arrives, flushed per chunk, so a CI log \
            shows progress while the job runs. Once the head budget is spent nothing more is \
            printed until the end; then the marker, the tail and, because they could not come \
            first, the two header lines. Output within the budget is still passed through \
            unchanged.",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.live = true;
        Ok(())
    },
};

pub(crate) const STRIP_ANSI: Flag = Flag {
    id: "strip_ansi",
    long: Some("strip-ansi"),
    short: None,
    takes: Nothing,
    group: Cleaning,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("STRIP_ANSI"),
        heading: Some(CLEANING),
        help: "Remove ANSI escape sequences (colours, cursor moves)",
        long_help: Some(
            "Remove ANSI/ECMA-48 escape sequences: CSI (colours, cursor moves), OSC \
            (titles, hyperlinks) up to BEL or ESC \\, DCS/SOS/PM/APC strings, and other ESC \
            sequences. Every other byte, invalid UTF-8 included, passes unchanged.",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.set(Options::strip_ansi, true);
        Ok(())
    },
};

pub(crate) const COLLAPSE_CR: Flag = Flag {
    id: "collapse_cr",
    long: Some("collapse-cr"),
    short: None,
    takes: Nothing,
    group: Cleaning,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("COLLAPSE_CR"),
        heading: Some(CLEANING),
        help: "Keep only the last frame of lines redrawn with \\r",
        long_help: Some(
            "In each line, a bare \\r (not part of \\r\\n) discards what came before \
            it once more text follows, so a progress bar leaves its final frame; a backspace \
            removes the character before it. A frame over 1 MiB passes as it is.",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.set(Options::collapse_cr, true);
        Ok(())
    },
};

pub(crate) const SQUEEZE: Flag = Flag {
    id: "squeeze",
    long: Some("squeeze"),
    short: None,
    takes: Nothing,
    group: Cleaning,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("SQUEEZE"),
        heading: Some(CLEANING),
        help: "Replace 3+ identical lines in a row with one and a count",
        long_help: Some(
            "A run of k >= 3 identical consecutive lines becomes the first line and \
            '[... previous line repeated {K} more times ...]' (K = k - 1; with a spill file \
            '(lines a-b)' before the '...]' names the raw lines of the repeats). Lines over \
            64 KiB are never squeezed.",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.set(Options::squeeze, true);
        Ok(())
    },
};

pub(crate) const MAX_LINE: Flag = Flag {
    id: "max_line",
    long: Some("max-line"),
    short: None,
    takes: One(Size),
    group: Cleaning,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("SIZE"),
        heading: Some(CLEANING),
        help: "Shorten lines longer than SIZE, keeping both ends",
        long_help: Some(
            "A line longer than SIZE bytes (not counting its newline) keeps its first \
            floor(SIZE/2) and last SIZE - floor(SIZE/2) bytes, with ' [... {N} bytes of this line \
            truncated ...] ' between them, never splitting a character.",
        ),
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.set(Options::max_line, value.number()?);
        Ok(())
    },
};

pub(crate) const BINARY: Flag = Flag {
    id: "binary",
    long: Some("binary"),
    short: None,
    takes: One(Kind::Choice(BINARIES)),
    group: Cleaning,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("HOW"),
        heading: Some(CLEANING),
        help: "Binary input: text (as is) or summary (one line)",
        long_help: Some(
            "summary: input whose first 8 KiB contain a NUL byte becomes the single \
            line '[binary output: {N} bytes]', naming the spill file when there is one. [default: \
            text]",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.binary = Some(value.binary()?);
        Ok(())
    },
};

pub(crate) const UTF8: Flag = Flag {
    id: "utf8",
    long: Some("utf8"),
    short: None,
    takes: Nothing,
    group: Cleaning,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("UTF8"),
        heading: Some(CLEANING),
        help: "Replace invalid UTF-8 with U+FFFD",
        long_help: Some(
            "Replace invalid UTF-8 sequences with U+FFFD (one per maximal invalid \
            subpart), so the output is valid UTF-8.",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.set(Options::utf8, true);
        Ok(())
    },
};

pub(crate) const CLEAN: Flag = Flag {
    id: "clean",
    long: Some("clean"),
    short: None,
    takes: Nothing,
    group: Cleaning,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("CLEAN"),
        heading: Some(CLEANING),
        help: "All of the above that agents want: --strip-ansi --collapse-cr --squeeze --fold \
            --binary summary --utf8",
        long_help: Some(
            "Shorthand for --strip-ansi --collapse-cr --squeeze --fold --binary \
            summary --utf8, the recommended setting for agents.",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.clean = true;
        Ok(())
    },
};

pub(crate) const KEEP: Flag = Flag {
    id: "keep",
    long: Some("keep"),
    short: None,
    takes: Repeated(Text),
    group: Keeping,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("REGEX"),
        heading: Some(KEEPING),
        help: "Also show lines of the middle matching REGEX (repeatable)",
        long_help: Some(
            "Lines of the cut middle that match REGEX (Rust regex syntax, matched on \
            bytes) are shown between head and tail, in order, each gap with its own marker. May \
            be given several times.\n\nExample: --keep 'FAILED|panicked'",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.set(Options::keep, value.text()?);
        Ok(())
    },
};

pub(crate) const KEEP_ERROR: Flag = Flag {
    id: "keep_error",
    long: Some("keep-error"),
    short: None,
    takes: Repeated(Text),
    group: Keeping,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("REGEX"),
        heading: Some(KEEPING),
        help: "As --keep, but the lines are errors, shown first (repeatable)",
        long_help: Some(
            "As --keep, but the lines that match REGEX are errors: when not every \
            match fits, errors are served before the other kept lines, the ones nearest the tail \
            first. The profiles mark their error patterns this way. May be given several \
            times.\n\nExample: --keep-error '^error(\\[E\\d+\\])?: '",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.set(Options::keep_error, value.text()?);
        Ok(())
    },
};

pub(crate) const KEEP_ERRORS: Flag = Flag {
    id: "keep_errors",
    long: Some("keep-errors"),
    short: None,
    takes: Nothing,
    group: Keeping,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("KEEP_ERRORS"),
        heading: Some(KEEPING),
        help: "Keep lines that look like errors (error, failed, panic, ...)",
        long_help: Some(
            "Keep lines of the middle that say error or exception (also TypeError, \
            NullPointerException), fail, failed, failure, panic, panicked, traceback or fatal, in \
            any case, and pytest's 'E   ' lines. They are errors: served before --keep's lines \
            when not every match fits.",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.set(Options::keep_errors, true);
        Ok(())
    },
};

pub(crate) const KEEP_CONTEXT: Flag = Flag {
    id: "keep_context",
    long: Some("keep-context"),
    short: None,
    takes: One(Count),
    group: Keeping,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("N"),
        heading: Some(KEEPING),
        help: "Lines kept before and after each kept match [default: 0]",
        long_help: None,
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.set(Options::keep_context, value.number()?);
        Ok(())
    },
};

pub(crate) const KEEP_MAX: Flag = Flag {
    id: "keep_max",
    long: Some("keep-max"),
    short: None,
    takes: One(Size),
    group: Keeping,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("SIZE"),
        heading: Some(KEEPING),
        help: "Share of the budget for kept lines and their markers [default: a quarter]",
        long_help: Some(
            "The share of the budget (in its unit) that the kept lines and the markers \
            between them may use, taken from the head and the tail in proportion when the \
            stream is cut, so the output stays within --max; a stream within the budget is \
            shown whole. When not every match fits, errors come first, then the other matches, \
            each class nearest the tail first, and the last marker says how many of each are \
            not shown. [default: a quarter of the head and tail budgets, floor((H+T)/4)]",
        ),
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.set(Options::keep_max, value.number()?);
        Ok(())
    },
};

pub(crate) const FORMAT: Flag = Flag {
    id: "format",
    long: Some("format"),
    short: None,
    takes: One(Kind::Choice(RECORD_FORMATS)),
    group: Formats,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("FORMAT"),
        heading: Some(FORMATS),
        help: "What the input holds: text, json, diff, csv or auto",
        long_help: Some(
            "What the input holds, so that no cut lands inside a record. text: lines \
            and bytes. json: one document, shortened inside until it fits (valid JSON of the same \
            shape, every count exact; the budget counts its bytes as printed); not JSON, or \
            larger than --json-limit: capped as text, with a 'Format: not JSON (REASON); capped \
            as text' header line. diff: cuts at hunk or file boundaries, the marker naming the \
            hunks and files left out. csv: cuts at rows (quoted newlines respected), the header \
            row repeated before the tail. auto: json when the first non-blank byte is { or [ and \
            the input parses, diff when it starts with 'diff --git' or '--- ', else text. Not \
            with --live or --style codex; json, diff and csv not with --keep. [default: \
            text]\n\nExample: git diff | toolcap --format diff",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.set(Options::format, value.format()?);
        Ok(())
    },
};

pub(crate) const JSON_LIMIT: Flag = Flag {
    id: "json_limit",
    long: Some("json-limit"),
    short: None,
    takes: One(Size),
    group: Formats,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("SIZE"),
        heading: Some(FORMATS),
        help: "Largest JSON document parsed (default 64Mi); larger is text",
        long_help: Some(
            "--format json and auto hold the document in memory up to SIZE; a larger \
            one is capped as text. [default: 64Mi]",
        ),
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.set(Options::json_limit, value.number()?);
        Ok(())
    },
};

pub(crate) const PRETTY: Flag = Flag {
    id: "pretty",
    long: Some("pretty"),
    short: None,
    takes: Nothing,
    group: Formats,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("PRETTY"),
        heading: Some(FORMATS),
        help: "Print a shortened JSON document pretty (2 spaces)",
        long_help: Some(
            "Print a shortened JSON document pretty, indented by 2 spaces. By default \
            it is printed as the input looked: pretty when a newline lies within its first 200 \
            bytes, else compact. A document that fits passes unchanged.",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.set(Options::pretty, true);
        Ok(())
    },
};

pub(crate) const FOLD: Flag = Flag {
    id: "fold",
    long: Some("fold"),
    short: None,
    takes: Nothing,
    group: Cleaning,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("FOLD"),
        heading: Some(CLEANING),
        help: "Fold runs of 3+ similar lines (equal but for numbers, ids, spacing)",
        long_help: Some(
            "A run of k >= 3 consecutive similar lines becomes its first line, '[... \
            {K} similar lines folded ...]' (K = k - 2; with a spill file '(lines {A}-{B})' names \
            the raw lines) and its last line. Similar: equal after masking, where a run of 8+ hex \
            digits or of digits (with one '.' inside) is one placeholder, and spaces and tabs one \
            space. Lines --keep or --keep-errors match are never folded. Lines over 64 KiB are \
            never folded.",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.set(Options::fold, true);
        Ok(())
    },
};

pub(crate) const FOLD_PATTERN: Flag = Flag {
    id: "fold_pattern",
    long: Some("fold-pattern"),
    short: None,
    takes: Repeated(Text),
    group: Cleaning,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("REGEX"),
        heading: Some(CLEANING),
        help: "With --fold: lines matching REGEX are similar to each other",
        long_help: Some(
            "With --fold: lines that match REGEX are similar to each other, whatever \
            else they hold; a line belongs to the first pattern it matches, and lines of \
            different patterns (or of none) are not similar. May be given several \
            times.\n\nExample: --fold-pattern '^ +Compiling '",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.set(Options::fold_pattern, value.text()?);
        Ok(())
    },
};

pub(crate) const REDACT: Flag = Flag {
    id: "redact",
    long: Some("redact"),
    short: None,
    takes: Nothing,
    group: Redaction,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("REDACT"),
        heading: Some(CLEANING),
        help: "Replace credentials (tokens, keys, passwords) with [REDACTED:KIND]",
        long_help: Some(
            "Replace every credential toolcap recognises with [REDACTED:KIND], keeping \
            what names the place: an assignment's key (API_KEY=[REDACTED:api-key]), a URL's \
            scheme and host, a header's name and scheme. Kinds: AWS access key ids and labelled \
            secret keys, GitHub, GitLab, Slack, Stripe live, OpenAI, Anthropic and Google API \
            keys, JSON web tokens, PEM private key blocks, Authorization headers, credentials in \
            URLs, and values of keys that name a secret (password, secret, token, api_key, \
            access_key, private_key). The budget, --keep and --fold see the redacted text; the \
            spill file and the store keep the raw bytes (--show ID --redact shows them redacted). \
            A secret in a format it does not know passes: see the README for the list and the \
            limits.",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.set(Options::redact, true);
        Ok(())
    },
};

pub(crate) const REDACT_PATTERN: Flag = Flag {
    id: "redact_pattern",
    long: Some("redact-pattern"),
    short: None,
    takes: Repeated(Text),
    group: Redaction,
    in_profiles: true,
    keyword: Cap,
    doc: Doc {
        value_name: Some("REGEX"),
        heading: Some(CLEANING),
        help: "Also redact what REGEX matches (repeatable; implies --redact)",
        long_help: Some(
            "Also redact what REGEX matches within a line (Rust regex syntax, matched \
            on bytes), as [REDACTED:custom]; if REGEX has a group named secret, only that group \
            is replaced. May be given several times; implies --redact.\n\nExample: \
            --redact-pattern 'corp_key=(?P<secret>[0-9a-f]{32})'",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.set(Options::redact_pattern, value.text()?);
        Ok(())
    },
};

pub(crate) const PROFILE: Flag = Flag {
    id: "profile",
    long: Some("profile"),
    short: None,
    takes: One(Text),
    group: Profiles,
    in_profiles: false,
    keyword: Cap,
    doc: Doc {
        value_name: Some("NAME"),
        heading: Some(PROFILES_HEADING),
        help: "Per-tool options: NAME, auto (by the command or input) or none",
        long_help: Some(
            "Add a profile's options, which know what matters in a tool's output \
            (pytest, cargo, go, npm, make, git, listing, json, and the user's own in \
            ${XDG_CONFIG_HOME:-~/.config}/toolcap/profiles.toml). auto: the profile that matches \
            the command (looking through env, sudo, time, nice, timeout, uv run, npx, python -m \
            and sh -c), or in filter mode the input's first 4 KiB; none if nothing matches. \
            Options given on the command line win. [default: none]\n\nExample: --profile auto",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.profile = Some(profile::Choice::parse(&value.text()?));
        Ok(())
    },
};

pub(crate) const PROFILES: Flag = Flag {
    id: "profiles",
    long: Some("profiles"),
    short: None,
    takes: Nothing,
    group: Profiles,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("PROFILES"),
        heading: Some(PROFILES_HEADING),
        help: "List the profiles: what each matches, and its options",
        long_help: None,
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.profiles = true;
        Ok(())
    },
};

pub(crate) const HOOK: Flag = Flag {
    id: "hook",
    long: Some("hook"),
    short: None,
    takes: One(Kind::Choice(AGENTS)),
    group: Hook,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("AGENT"),
        heading: Some(HOOKS),
        help: "Be AGENT's hook: rewrite its shell call (stdin JSON) to run through toolcap",
        long_help: Some(
            "Be AGENT's hook (claude-code: a PreToolUse hook for the Bash tool): read \
            the event's JSON on stdin and print the JSON whose updatedInput runs the same command \
            through toolcap -c, with the options of TOOLCAP_HOOK_OPTIONS, else of the [hook] \
            table of profiles.toml (args = [...]), else --max 16k --clean --keep-errors --profile \
            auto --store --plain-env --redact. Prints nothing (the call runs as it was) for \
            another tool, a background call, and a command that changes the shell (cd, export, \
            source, alias, set, exec, an assignment, ...), already runs toolcap, starts a \
            background job, uses bash-only syntax or cannot be read with certainty. Never blocks \
            the agent: bad input is one line on stderr, and exit status 0.",
        ),
        hide: false,
    },
    parse: Parse {
        in_group: Some("hook_command"),
        ..PLAIN
    },
    update: |value, draft| {
        draft.hook = Some(value.agent()?);
        Ok(())
    },
};

pub(crate) const INSTALL_HOOK: Flag = Flag {
    id: "install_hook",
    long: Some("install-hook"),
    short: None,
    takes: One(Kind::Choice(AGENTS)),
    group: Hook,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("AGENT"),
        heading: Some(HOOKS),
        help: "Add toolcap's hook to AGENT's settings (kept otherwise as they were)",
        long_help: Some(
            "Add the entry that runs 'toolcap --hook AGENT' to AGENT's settings \
            (claude-code: hooks.PreToolUse, matcher Bash, in ~/.claude/settings.json, or \
            --settings FILE, or --project's .claude/settings.json). Every other setting and hook \
            stays as it was, in its order; the file is replaced atomically, after a copy of it is \
            left as FILE.bak. Run again, it changes nothing.",
        ),
        hide: false,
    },
    parse: Parse {
        in_group: Some("hook_command"),
        ..PLAIN
    },
    update: |value, draft| {
        draft.install_hook = Some(value.agent()?);
        Ok(())
    },
};

pub(crate) const UNINSTALL_HOOK: Flag = Flag {
    id: "uninstall_hook",
    long: Some("uninstall-hook"),
    short: None,
    takes: One(Kind::Choice(AGENTS)),
    group: Hook,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("AGENT"),
        heading: Some(HOOKS),
        help: "Remove toolcap's hook from AGENT's settings",
        long_help: Some(
            "Remove exactly the entry --install-hook added (any command hook that runs \
            'toolcap --hook AGENT'), from the same settings file; a backup is left as FILE.bak.",
        ),
        hide: false,
    },
    parse: Parse {
        in_group: Some("hook_command"),
        ..PLAIN
    },
    update: |value, draft| {
        draft.uninstall_hook = Some(value.agent()?);
        Ok(())
    },
};

pub(crate) const SETTINGS: Flag = Flag {
    id: "settings",
    long: Some("settings"),
    short: None,
    takes: One(Path),
    group: Hook,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("FILE"),
        heading: Some(HOOKS),
        help: "With --install-hook/--uninstall-hook: the settings file [default: \
            ~/.claude/settings.json]",
        long_help: None,
        hide: false,
    },
    parse: Parse {
        conflicts: &["project"],
        ..PLAIN
    },
    update: |value, draft| {
        draft.settings = Some(value.path()?);
        Ok(())
    },
};

pub(crate) const PROJECT: Flag = Flag {
    id: "project",
    long: Some("project"),
    short: None,
    takes: Nothing,
    group: Hook,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("PROJECT"),
        heading: Some(HOOKS),
        help: "With --install-hook/--uninstall-hook: the project's .claude/settings.json",
        long_help: None,
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.project = true;
        Ok(())
    },
};

pub(crate) const LIST_PROFILES: Flag = Flag {
    id: "list_profiles",
    long: Some("list-profiles"),
    short: None,
    takes: Nothing,
    group: Profiles,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("LIST_PROFILES"),
        heading: None,
        help: "The values of --profile, one a line (for the shell completions)",
        long_help: None,
        hide: true,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.list_profiles = true;
        Ok(())
    },
};

pub(crate) const COMMAND: Flag = Flag {
    id: "command",
    long: Some("command"),
    short: Some('c'),
    takes: One(Os),
    group: Wrap,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("STRING"),
        heading: Some(WRAP_MODE),
        help: "Run STRING with /bin/sh -c (or --shell)",
        long_help: None,
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.command = Some(value.os()?);
        Ok(())
    },
};

pub(crate) const SHELL: Flag = Flag {
    id: "shell",
    long: Some("shell"),
    short: None,
    takes: One(Os),
    group: Wrap,
    in_profiles: true,
    keyword: No,
    doc: Doc {
        value_name: Some("PATH"),
        heading: Some(WRAP_MODE),
        help: "Shell for -c [default: /bin/sh]",
        long_help: None,
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.shell = Some(value.os()?);
        Ok(())
    },
};

pub(crate) const STDERR: Flag = Flag {
    id: "stderr",
    long: Some("stderr"),
    short: None,
    takes: One(Kind::Choice(STDERRS)),
    group: Wrap,
    in_profiles: true,
    keyword: Run,
    doc: Doc {
        value_name: Some("HOW"),
        heading: Some(WRAP_MODE),
        help: "Child's stderr: merged into stdout, or capped separately",
        long_help: Some(
            "merged: the child's stdout and stderr share one pipe, exactly as 2>&1, so \
            lines keep their order. separate: the stderr is capped on its own onto toolcap's \
            stderr, with its own header and marker. [default: merged]",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |value, draft| {
        draft.stderr = Some(value.stderr()?);
        Ok(())
    },
};

pub(crate) const STDERR_MAX: Flag = Flag {
    id: "stderr_max",
    long: Some("stderr-max"),
    short: None,
    takes: One(Size),
    group: Wrap,
    in_profiles: true,
    keyword: Run,
    doc: Doc {
        value_name: Some("SIZE"),
        heading: Some(WRAP_MODE),
        help: "Budget for the separate stderr [default: --max]",
        long_help: Some(
            "Budget for the child's stderr with --stderr separate; --head, --tail, \
            --lines and --cut apply to it as to stdout, and a PCT is of --stderr-max. [default: \
            same as --max]",
        ),
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.stderr_max = Some(value.number()?);
        Ok(())
    },
};

pub(crate) const TIMEOUT: Flag = Flag {
    id: "timeout",
    long: Some("timeout"),
    short: None,
    takes: One(Duration),
    group: Wrap,
    in_profiles: true,
    keyword: Run,
    doc: Doc {
        value_name: Some("DURATION"),
        heading: Some(WRAP_MODE),
        help: "Stop the command after DURATION (exit 124)",
        long_help: Some(
            "Stop the command after DURATION: SIGTERM to its whole process group, then \
            SIGKILL after --kill-after. What it printed until then is capped and printed; exit \
            status 124. 0 means no timeout.\n\nExample: --timeout 5m",
        ),
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.timeout = Some(value.duration()?);
        Ok(())
    },
};

pub(crate) const KILL_AFTER: Flag = Flag {
    id: "kill_after",
    long: Some("kill-after"),
    short: None,
    takes: One(Duration),
    group: Wrap,
    in_profiles: true,
    keyword: Run,
    doc: Doc {
        value_name: Some("DURATION"),
        heading: Some(WRAP_MODE),
        help: "Wait this long after SIGTERM before SIGKILL [default: 5s]",
        long_help: None,
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.kill_after = Some(value.duration()?);
        Ok(())
    },
};

pub(crate) const DRAIN: Flag = Flag {
    id: "drain",
    long: Some("drain"),
    short: None,
    takes: One(Duration),
    group: Wrap,
    in_profiles: true,
    keyword: Run,
    doc: Doc {
        value_name: Some("DURATION"),
        heading: Some(WRAP_MODE),
        help: "Read at most this long after the command exits [default: 2s]",
        long_help: Some(
            "After the command exits, read its pipes for at most DURATION more, so a \
            background process that keeps them open cannot hang toolcap. [default: 2s]",
        ),
        hide: false,
    },
    parse: Parse {
        negative_numbers: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.drain = Some(value.duration()?);
        Ok(())
    },
};

pub(crate) const NO_STATUS: Flag = Flag {
    id: "no_status",
    long: Some("no-status"),
    short: None,
    takes: Nothing,
    group: Wrap,
    in_profiles: true,
    keyword: No,
    doc: Doc {
        value_name: Some("NO_STATUS"),
        heading: Some(WRAP_MODE),
        help: "Do not append the [exit status: N] line",
        long_help: Some(
            "Do not append the status line that follows the output when the command \
            did not exit 0: [exit status: 3], [killed by signal 9 (SIGKILL)] or [timed out after \
            30s].",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.no_status = true;
        Ok(())
    },
};

pub(crate) const NO_STDIN: Flag = Flag {
    id: "no_stdin",
    long: Some("no-stdin"),
    short: None,
    takes: Nothing,
    group: Wrap,
    in_profiles: true,
    keyword: No,
    doc: Doc {
        value_name: Some("NO_STDIN"),
        heading: Some(WRAP_MODE),
        help: "Give the command /dev/null as stdin",
        long_help: None,
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.no_stdin = true;
        Ok(())
    },
};

pub(crate) const PLAIN_ENV: Flag = Flag {
    id: "plain_env",
    long: Some("plain-env"),
    short: None,
    takes: Nothing,
    group: Wrap,
    in_profiles: true,
    keyword: Run,
    doc: Doc {
        value_name: Some("PLAIN_ENV"),
        heading: Some(WRAP_MODE),
        help: "Ask the command for plain output (NO_COLOR=1, TERM=dumb, ...)",
        long_help: Some(
            "Run the command with NO_COLOR=1, TERM=dumb, PAGER=cat, GIT_PAGER=cat, \
            CLICOLOR=0 and without FORCE_COLOR and CLICOLOR_FORCE, so tools stop decorating their \
            output for a terminal nobody sees.",
        ),
        hide: false,
    },
    parse: PLAIN,
    update: |_, draft| {
        draft.plain_env = true;
        Ok(())
    },
};

pub(crate) const PROGRAM: Flag = Flag {
    id: "program",
    long: None,
    short: None,
    takes: Repeated(Os),
    group: Input,
    in_profiles: false,
    keyword: No,
    doc: Doc {
        value_name: Some("PROGRAM"),
        heading: None,
        help: "Run PROGRAM with ARGS directly (no shell) and cap its output",
        long_help: None,
        hide: false,
    },
    parse: Parse {
        last: true,
        ..PLAIN
    },
    update: |value, draft| {
        draft.program.push(value.os()?);
        Ok(())
    },
};

/// Every option, in the order of the clap definition (so that the first
/// one refused is the first one `--help` lists).
pub(crate) const FLAGS: &[&Flag] = &[
    &FILES,
    &MAX,
    &TOTAL,
    &TOKENS,
    &WINDOW,
    &RECENT,
    &WINDOW_CEILING,
    &TOKENIZER,
    &COUNT_LIMIT,
    &CHARS,
    &HEAD,
    &TAIL,
    &LINES,
    &CUT,
    &SPILL,
    &SPILL_DIR,
    &STORE,
    &NO_SPILL,
    &LIST,
    &SHOW,
    &GREP,
    &CONTEXT,
    &SUMMARY,
    &PRUNE,
    &RETAIN,
    &RETAIN_SIZE,
    &STYLE,
    &HEADER,
    &MARKER,
    &NO_HEADER,
    &JSON,
    &LIVE,
    &STRIP_ANSI,
    &COLLAPSE_CR,
    &SQUEEZE,
    &MAX_LINE,
    &BINARY,
    &UTF8,
    &CLEAN,
    &KEEP,
    &KEEP_ERROR,
    &KEEP_ERRORS,
    &KEEP_CONTEXT,
    &KEEP_MAX,
    &FORMAT,
    &JSON_LIMIT,
    &PRETTY,
    &FOLD,
    &FOLD_PATTERN,
    &REDACT,
    &REDACT_PATTERN,
    &PROFILE,
    &PROFILES,
    &HOOK,
    &INSTALL_HOOK,
    &UNINSTALL_HOOK,
    &SETTINGS,
    &PROJECT,
    &LIST_PROFILES,
    &COMMAND,
    &SHELL,
    &STDERR,
    &STDERR_MAX,
    &TIMEOUT,
    &KILL_AFTER,
    &DRAIN,
    &NO_STATUS,
    &NO_STDIN,
    &PLAIN_ENV,
    &PROGRAM,
];
