"""The native module of toolcap; import from `toolcap`.

Options are the command line's long options with `_` for `-` (`--keep-errors`
is `keep_errors=True`), parsed by the command line's own parser: they mean
exactly what they mean there, and a bad one raises ValueError with the
command line's message. Unlike the command line, nothing is read from the
environment (no TOOLCAP_MAX, TOOLCAP_TOKENIZER or TOOLCAP_SPILL_DIR) but
where the default store and the user's profiles.toml are (HOME,
XDG_CACHE_HOME, XDG_CONFIG_HOME).
"""

import builtins
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, Protocol, TypedDict, final

if sys.version_info >= (3, 11):
    from typing import Unpack
else:
    from typing_extensions import Unpack

__version__: str

Size = int | str
"""Bytes: an int, or a SIZE such as "10k" (10,000) or "4Mi" (4 * 2**20)."""
SizeOrPercent = int | str
"""A Size, or a whole percentage of the budget such as "20%"."""
Seconds = int | float | str
"""Seconds (a float rounded up to whole milliseconds), or a DURATION such as
"500ms", "30s", "5m"; at most 2**64 - 1 ms, as on the command line."""
Path = str | bytes | os.PathLike[str] | os.PathLike[bytes]

class CapOptions(TypedDict, total=False):
    """How a stream is capped: the options of `cap`, `Capper` and `run`.

    Each is the long option of the same name (README, "Options" and
    "Cleaning and keeping what matters"); None, or leaving it out, is the
    command line's default.
    """

    max: Size | None
    """Budget for the kept output, head + tail (default 10k)."""
    head: SizeOrPercent | None
    """Bytes kept from the start (default: half the budget)."""
    tail: SizeOrPercent | None
    """Bytes kept from the end (default: the rest of the budget)."""
    lines: int | None
    """Also keep at most the first lines//2 and the last lines - lines//2 lines."""
    total: Size | None
    """Everything printed, header, markers and status line included, within
    this many bytes (sets the budget; for a harness that cuts again)."""
    tokens: int | None
    """Budget in tokens (of 4 bytes, or of `tokenizer`), instead of max. With a
    real tokenizer the head is the longest prefix of at most tokens//2 tokens
    and the tail the longest suffix of the rest; head and tail are then
    tokens too."""
    window: Size | None
    """Budget from the model's context window of this many tokens, instead of
    max: window // (2 * recent) tokens, at most window_ceiling bytes and at
    least 1,000 bytes (README, "Budgets from the context window")."""
    recent: int | None
    """With window: the results a harness keeps whole (default 4)."""
    window_ceiling: Size | None
    """With window: the most bytes its budget may be (default 256Ki)."""
    tokenizer: Literal["approx", "o200k", "cl100k"] | None
    """What a token is, for `tokens` and the token counts of the header and
    the report: approx (ceil(bytes/4), the default), o200k (GPT-4o, GPT-4.1,
    o-series, GPT-5) or cl100k (GPT-4, GPT-3.5), OpenAI's vocabularies, built
    in. Loading one takes about 0.1 s, once per process."""
    count_limit: Size | None
    """With a real tokenizer, the count is exact for this many bytes of the
    stream and extrapolated past them, shown as ~N (default 64Mi)."""
    chars: int | None
    """Budget in Unicode characters, instead of max."""
    cut: Literal["lines", "bytes"] | None
    """Where cuts land: near a line boundary (default), or exactly."""
    header: bool | str | None
    """False: no warning header; a str: a header template (README, "Exact formats")."""
    marker: str | None
    """A marker template (README, "Exact formats")."""
    style: Literal["toolcap", "codex", "verifiers"] | None
    """The format of cut output."""
    clean: bool | None
    """strip_ansi, collapse_cr, squeeze, fold, utf8 and binary="summary": the
    setting for agents."""
    strip_ansi: bool | None
    """Remove escape sequences."""
    collapse_cr: bool | None
    """Keep only the last frame of lines redrawn with a carriage return."""
    squeeze: bool | None
    """Three or more identical lines in a row become one and a count."""
    utf8: bool | None
    """Replace invalid UTF-8 with U+FFFD."""
    binary: Literal["text", "summary"] | None
    """summary: binary input becomes one line saying its size."""
    max_line: Size | None
    """Shorten lines longer than this, keeping both ends."""
    fold: bool | None
    """Fold runs of 3 or more similar lines (equal but for numbers, ids and
    spacing) into their first and last line and a count."""
    fold_pattern: str | Iterable[str] | None
    """With fold: regular expressions; the lines one matches are similar to
    each other, whatever else they hold."""
    redact: bool | None
    """Replace the credentials toolcap recognises (cloud and API keys, tokens,
    JWTs, PEM private keys, Authorization headers, passwords in URLs, values
    of keys that name a secret) with [REDACTED:KIND] before the cap (README,
    "Redacting secrets"); the spill file and the store keep the raw bytes.
    A secret in a format it does not know passes."""
    redact_pattern: str | Iterable[str] | None
    """Regular expressions whose matches within a line are redacted too, as
    [REDACTED:custom] (only the group named `secret`, if there is one);
    implies redact."""
    keep: str | Iterable[str] | None
    """Regular expressions: lines of the cut middle that match are shown too."""
    keep_error: str | Iterable[str] | None
    """Regular expressions like keep's whose matches are errors: served
    before the other kept lines (README, "Keeping lines")."""
    keep_errors: bool | None
    """Keep lines of the cut middle that look like errors."""
    keep_context: int | None
    """Lines kept around each kept match (default 0)."""
    keep_max: Size | None
    """Bytes the kept lines may use (default: a quarter of the budget)."""
    format: Literal["text", "json", "diff", "csv", "auto"] | None
    """What the input holds, so that no cut lands inside a record (README,
    "Formats"): text (default); json, one document shortened inside to valid
    JSON of the same shape (text when it is not JSON or is larger than
    json_limit); diff, cut at hunks or files; csv, cut at rows with the header
    row repeated; auto, json or diff when the input looks like one, else text."""
    json_limit: Size | None
    """The largest JSON document that format="json" or "auto" parses (default 64Mi)."""
    pretty: bool | None
    """Print a shortened JSON document indented by 2 spaces."""
    profile: str | None
    """Add a profile's options (README, "Profiles"): a name (pytest, cargo, go,
    npm, make, git, listing, or one of the user's profiles.toml), "none", or
    "auto": in `cap` and `Capper` the profile that the data's first 4 KiB
    match, in `run` the one that matches the command. Options given here win
    over the profile's."""
    spill: Path | None
    """Save the whole input to this file (mode 0600; never through a symlink)."""
    store: bool | Path | None
    """Save the whole input to the spill store when the output is cut: True for
    the default one (~/.cache/toolcap/spill), or a directory. The marker then
    names `toolcap --show ID`, and `spill_id` is ID."""
    retain: int | None
    """With store: keep at most this many outputs in it (default 200)."""
    retain_size: Size | None
    """With store: keep at most this many bytes of outputs in it (default 1Gi)."""

class RunOptions(CapOptions, total=False):
    """The options of `run` besides the capping ones."""

    timeout: Seconds | None
    """SIGTERM the command's process group after this long, SIGKILL it after
    kill_after; exit_code is then 124. None or 0: no timeout."""
    kill_after: Seconds | None
    """From SIGTERM to SIGKILL on timeout (default 5 s); needs timeout."""
    drain: Seconds | None
    """How long to read the pipes after the command exits (default 2 s), so
    that a background process holding them cannot hang the run."""
    stderr: Literal["merged", "separate"] | None
    """merged (default): stderr shares stdout's pipe, as 2>&1. separate: the
    stderr is capped on its own, as RunResult.stderr."""
    stderr_max: Size | None
    """Budget of a separate stderr (default: the main budget)."""
    plain_env: bool | None
    """Run with NO_COLOR=1 TERM=dumb PAGER=cat GIT_PAGER=cat CLICOLOR=0, and
    without FORCE_COLOR and CLICOLOR_FORCE."""
    status: bool | None
    """False: no [exit status: N] line after the output."""

class Cancel(Protocol):
    """What `run` takes as `cancel`: a threading.Event, or any object with
    an `is_set()` method."""

    def is_set(self) -> builtins.bool: ...

class ExitReport(TypedDict):
    """How the command ended, as the JSON report's `exit` says it."""

    code: int | None
    signal: int | None
    timed_out: bool

class StreamResult:
    """The result of capping one stream: a `Result`, or a separate stderr
    (`RunResult.stderr`).

    Its attributes are the fields of the command line's `--json` report for
    one stream (README, "JSON report"), plus `data`, `text` and `report`.
    """

    @property
    def data(self) -> builtins.bytes:
        """Exactly the bytes the command line prints."""
    @property
    def text(self) -> str:
        """`data` as a str, invalid UTF-8 replaced by U+FFFD (the report's `output`)."""
    @property
    def report(self) -> dict[str, Any]:
        """The `--json` report, as a dict with its schema."""
    output: str
    """The same as `text`."""
    truncated: bool
    """Whether the middle was cut out."""
    bytes: int
    """The length of the capped stream (after cleaning)."""
    lines: int
    """Its number of lines: newlines, plus one for an unterminated last line."""
    tokens: int
    """Its token count: ceil(bytes / 4), or the tokenizer's."""
    tokens_estimated: bool
    """Whether `tokens` was extrapolated past count_limit (the header shows ~N)."""
    head_bytes: int
    """The length of the kept head."""
    tail_bytes: int
    """The length of the kept tail."""
    omitted_bytes: int
    """Bytes left out (less the lines `keep` kept)."""
    omitted_lines: list[int] | None
    """[a, b]: the raw lines the cut touched."""
    kept_bytes: int
    """Bytes of lines `keep` kept."""
    hidden_matches: int
    """Matching lines that did not fit keep_max."""
    hidden_errors: int
    """Of hidden_matches, the lines of the error patterns (keep_errors,
    keep_error, a profile's errors)."""
    raw_bytes: int
    """The stream's length before cleaning."""
    cleaned: bool
    """Whether cleaning changed the stream."""
    redacted: dict[str, int] | None
    """With redact: how many secrets of each kind were redacted ({} for
    none); None without it."""
    spill: str | None
    """The spill file's absolute path."""
    spill_id: str | None
    """Its id in the spill store (`toolcap --show ID`, `toolcap.summary(ID)`)."""
    spill_error: str | None
    """Why the spill file was not saved."""
    format: str
    """The format that applied: text, json, diff or csv."""
    format_fallback: str | None
    """Why format="json" (or "auto" on a document) fell back to text."""
    omitted_hunks: int | None
    """A cut diff: the hunks its marker counts."""
    omitted_files: int | None
    """A cut diff: the files its marker counts."""

class Result(StreamResult):
    """The result of capping: a `StreamResult`, and the fields of the
    `--json` report that are the whole run's."""

    tokenizer: str
    """approx, o200k or cl100k."""
    interrupted_by: int | None
    """Always None here (the command line's filter mode: a signal that stopped the reading)."""
    profile: str | None
    """The profile whose options were used, or None."""
    problems: list[str]
    """Errors the command line would print on stderr (a spill file that failed)."""

@final
class RunResult(Result):
    """The result of `run`: the capped output, and how the command ended."""

    @property
    def exit_code(self) -> int:
        """The status a shell would report: the command's exit status, 128+N
        after signal N, 124 after the timeout, 127 when it was not found, 126
        when it could not be executed (the command line's exit status)."""
    @property
    def signal(self) -> int | None:
        """The signal that killed it, if one did."""
    @property
    def timed_out(self) -> bool:
        """Whether the timeout stopped it."""
    @property
    def duration(self) -> float:
        """Seconds from start to exit."""
    @property
    def stderr(self) -> StreamResult | None:
        """With stderr="separate", the capped stderr (its `report` is the JSON
        report's `stderr` object)."""
    exit: ExitReport
    """The JSON report's `exit`."""
    duration_ms: int
    """The JSON report's `duration_ms`."""

def cap(data: str | bytes | bytearray | memoryview, **options: Unpack[CapOptions]) -> Result:
    """Caps `data` (a str is capped as its UTF-8 bytes).

    The result's `data` is byte for byte what `toolcap OPTIONS` prints for the
    same input. The GIL is released while capping, so threads cap in
    parallel; a large str is encoded a piece at a time, never copied whole.

    Raises ValueError for bad options (with the command line's message),
    TypeError for values of the wrong type, UnicodeEncodeError for a str with
    lone surrogates (the error `data.encode()` raises, found before anything
    is capped or spilled: a long str that is not ASCII is read twice), OSError
    when toolcap itself cannot go on. A spill file
    that cannot be written is not an exception: the marker says so, and
    `spill_error` and `problems` say why.
    """

@final
class Capper:
    """Caps a stream pushed in chunks, in memory bounded by the budget.

        capper = toolcap.Capper(max="16k", clean=True)
        for chunk in chunks:
            capper.push(chunk)
        result = capper.finish()

    `finish()` gives what `cap` gives for the whole stream, however it was
    chunked. Not for pushing from two threads at once.
    """

    def __init__(self, **options: Unpack[CapOptions]) -> None:
        """Raises ValueError for bad options, as `cap` does."""
    def push(self, data: str | bytes | bytearray | memoryview) -> None:
        """Consumes the next chunk, with the GIL released. A str is pushed as
        its UTF-8 bytes, a piece at a time; one with a lone surrogate raises
        the UnicodeEncodeError `data.encode()` raises, and none of it is
        pushed (a long str that is not ASCII is read twice: once to check it).
        A KeyboardInterrupt while a long str is pushed may leave part of it
        pushed. Raises ValueError after `finish()`."""
    def finish(self) -> Result:
        """Ends the stream and decides the cuts. Raises ValueError when called twice."""

def run(
    cmd: str | Sequence[Path],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | Mapping[bytes, bytes] | None = None,
    extra_env: Mapping[str, str] | Mapping[bytes, bytes] | None = None,
    input: str | bytes | bytearray | memoryview | None = None,
    cancel: Cancel | None = None,
    **options: Unpack[RunOptions],
) -> RunResult:
    """Runs a command and caps what it prints (stdout and stderr merged, by
    default), as `toolcap OPTIONS -c CMD` (a str, run by /bin/sh) or
    `toolcap OPTIONS -- CMD...` (a sequence, no shell) would.

    The command runs in its own process group, so a timeout kills everything
    it started. Its stdin is `input` (then closed), or /dev/null: a command
    in another process group that read the terminal would be stopped. `cwd`
    is its working directory; `env`, its whole environment, as for
    subprocess (default: this process's); `extra_env`, variables set over
    that environment (`env` when given, else this process's), the way a
    harness adds a few variables without restating the rest.

    Nothing process-wide changes: no signal handler, no subreaper, no
    terminal handover. The GIL is released while the command runs. A
    KeyboardInterrupt (Ctrl-C) kills the command's group and is re-raised.
    `cancel` (a threading.Event, or any object with an `is_set()` method) is
    asked every 50 ms: once it is set, the group is killed with SIGKILL and
    the run returns as for any killed command (signal 9, exit_code 137), so
    that another thread can stop a run; an exception from `is_set()` kills
    the group too and is raised.

    A command that cannot be found or executed is not an exception: as in a
    shell, exit_code is 127 or 126, and `problems` says why. Raises
    ValueError for bad options, and, as subprocess does, for a NUL byte in
    `cmd`, `cwd`, `env` or `extra_env` or a "=" in a name of either; OSError
    (FileNotFoundError...) for a `cwd` that is not a directory or a pipe that
    cannot be made.
    """

def summary(
    id: str,
    *,
    store: bool | Path | None = None,
    redact: bool | None = None,
    redact_pattern: str | Sequence[str] | None = None,
) -> str:
    """The line `toolcap --summary ID` prints: one line a harness can put in
    place of a tool result that it clears from its context, such as

        [output 3f2a9c1b: 74,880 bytes, 1,204 lines, exit 101, cargo test; full output: toolcap --show 3f2a9c1b]

    `id` may be any unique prefix of a `spill_id`. `store` is the store that
    holds it: the default one (None or True), or a directory. With `redact`
    (or `redact_pattern`, as for `cap`) the command is redacted, as
    `--summary ID --redact` does. Raises ValueError for an unknown or
    ambiguous id, a store that is refused, or a pattern that is not a regex.
    """

def show(
    id: str,
    *,
    lines: str | None = None,
    grep: str | None = None,
    context: int | None = None,
    store: bool | Path | None = None,
    **options: Any,
) -> Result:
    """The capped view of a stored output: exactly what `toolcap --show ID`
    prints given a budget, as a Result (`spill_id` is the output's id when
    the view was cut; `omitted_lines` are the stored output's lines).

    `id` is any unique prefix of a `spill_id`; `store` the store that holds
    it (the default one for None or True, or a directory). `lines` ("A:B",
    1-based, inclusive) limits the view to those lines. With `grep` (a
    regex in `keep`'s syntax) the view is only the matching lines, each
    after its number and ":" ("1234:FAILED test_x"); `context` adds that
    many lines around each match, numbered "1233-" with "--" between groups
    that are not adjacent, as grep -n -C prints them. The view is capped by
    `options`, the options of `cap` but `lines`, `spill`, `store`, `retain`,
    `retain_size` and `profile` (the default budget, 10k, when none is given; `keep`,
    `keep_errors` and `fold` do not apply to a `grep` view); the marker of a
    cut `grep` view says how many matching lines were left out and which
    stored lines they span.

    No matching line: a Result with an empty text (`lines` 0), where the
    command line exits 1. Raises ValueError, with the command line's
    one-line message, for an unknown or ambiguous id, a bad range, a bad
    pattern or a bad option, or a store that is refused.
    """

def list_outputs(
    limit: int | None = None,
    *,
    store: bool | Path | None = None,
    redact: bool | None = None,
    redact_pattern: str | Sequence[str] | None = None,
) -> str:
    """What `toolcap --list` prints: a line for each of the newest `limit`
    outputs of the store (all of them for None), newest first, such as

        3f2a9c1b  2026-12-01T23:45:25Z         74,880 bytes       1,204 lines  cargo test

    `store` as for `show`; `redact` and `redact_pattern` as for `summary`.
    An empty str when there is no store. Raises ValueError for a negative
    limit, a store that is refused, or a pattern that is not a regex.
    """

def main() -> int:
    """The toolcap command line, on sys.argv: what the `toolcap` command
    runs. Returns its exit status."""
