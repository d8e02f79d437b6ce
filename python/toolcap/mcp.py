"""`toolcap-mcp`: an MCP server over stdio whose tools run commands and
read back the store, every result capped (docs/GUIDE.md, "MCP server").

It is built on the official MCP Python SDK (`mcp`, 2.x, installed by
`pip install 'toolcap[mcp]'`) and imports nothing of it until `main` or
`server` runs, so that `import toolcap` never needs it. It owns the
command line of the server (toolcap's capping options, checked by
toolcap's own parser), the four tools, and the rule that no command
outlives its client: every run carries a cancel flag that the run polls
every 50 ms, set when its call is cancelled, when stdin closes, or when
the server is told to stop.
"""

import argparse
import functools
import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any, Optional

import toolcap

from ._recipe import AGENT_RECIPE, check

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

# How long the server waits, once it has to stop, for its killed commands
# to be reaped and their pipes drained (the run's own drain is 2 s).
STOP_WAIT_S = 10.0
# The default timeout of `run`, the recipe's.
DEFAULT_TIMEOUT = "10m"

# The command line's options that the server takes, by kind: each becomes
# the keyword option of the same name (`--keep-errors` is keep_errors).
VALUE_OPTIONS = (
    "max", "head", "tail", "lines", "tokens", "tokenizer", "count-limit", "chars",
    "cut", "marker", "style", "binary", "max-line", "keep-context", "keep-max",
    "format", "json-limit", "profile", "retain", "retain-size",
    "timeout", "kill-after", "drain",
)  # fmt: skip
REPEATED_OPTIONS = ("keep", "fold-pattern", "redact-pattern")
FLAG_OPTIONS = (
    "clean", "strip-ansi", "collapse-cr", "squeeze", "utf8", "fold", "keep-errors",
    "pretty", "plain-env", "redact",
)  # fmt: skip
# What `show` applies of the server's options: the budget and its wording,
# and redaction (what the model may not read stays unread, the store
# keeps it). Cleaning or keeping would change the raw lines that `show`
# promises; the line budget (--lines) is left out, as show's `lines` is
# its range.
SHOW_OPTIONS = (
    "max", "head", "tail", "tokens", "tokenizer", "count_limit", "chars", "cut", "header", "marker",
    "redact", "redact_pattern",
)  # fmt: skip

RUN_DESCRIPTION = """Run a shell command (/bin/sh -c) and return what it printed, stdout and stderr merged.

The output may be cut to fit a budget: then its first lines say so, and a marker line
in the middle says how many bytes and which lines were left out and gives the id of
the full output, which is kept in a store. To read what was left out, call `show`
with that id (`lines` for a range, `grep` for the lines matching a pattern); each
answer is capped too. A failing command is a normal result: look at `exit_code`
(124 after the timeout, 128+N after signal N); the text then ends with a line such
as [exit status: 1]. The command runs in its own process group, killed on timeout
(`timeout_s`, default {timeout}); its stdin is empty. `cwd` is its directory."""

SHOW_DESCRIPTION = """Show a stored output, or part of it, by the id that a cut result's marker gives.

`lines` ("A:B", 1-based, inclusive) returns those raw lines; `grep` (a regular
expression) returns the lines that match, each prefixed by its line number (1234:),
with `context` lines around each match, within `lines` when both are given. The
answer is capped like any result: when it is cut, its marker says which lines were
left out, so ask again for a narrower range or a tighter pattern. No match is an
empty result."""

SUMMARY_DESCRIPTION = """One line that stands for a stored output: its id, size, lines, exit status
and command, and how to show it. Put it in place of an old result to keep the
context small; `show` still gets the whole output back."""

LIST_DESCRIPTION = """The newest outputs of the store, one line each (id, time, size, lines,
command), newest first; `limit` says how many. Any of these ids works with `show`
and `summary`."""


class UsageError(Exception):
    """A server argument that toolcap refuses, with toolcap's message."""


def parse_arguments(argv: "list[str]") -> "tuple[dict[str, Any], Optional[str]]":
    """The keyword options and the cwd root that the server's command line
    asks for: the agent recipe, with each option given replacing the
    recipe's (all of it with `--no-recipe`), and always a store."""
    parser = argparse.ArgumentParser(
        prog="toolcap-mcp",
        description="An MCP server over stdio: tools run, show, summary and list, "
        "every result capped with toolcap's options (default: the agent recipe, "
        "--max 16k --clean --keep-errors --profile auto --plain-env --store --redact).",
        epilog="Commands run as the user who started the server, as any shell tool does. "
        "See docs/GUIDE.md, \"MCP server\".",
    )
    for name in VALUE_OPTIONS:
        parser.add_argument(f"--{name}", metavar="VALUE")
    for name in REPEATED_OPTIONS:
        parser.add_argument(f"--{name}", metavar="REGEX", action="append")
    for name in FLAG_OPTIONS:
        parser.add_argument(f"--{name}", action="store_true", default=None)
    parser.add_argument("--header", metavar="TEMPLATE")
    parser.add_argument("--no-header", dest="header", action="store_false", default=None)
    parser.add_argument("--no-status", dest="status", action="store_false", default=None)
    parser.add_argument(
        "--spill-dir", metavar="DIR", help="the store to keep full outputs in (default: the default store)"
    )
    parser.add_argument(
        "--cwd-root", metavar="DIR", help="refuse a run whose cwd is outside DIR (and run in DIR by default)"
    )
    parser.add_argument(
        "--no-recipe", action="store_true", help="start from toolcap's own defaults instead of the agent recipe"
    )
    parser.add_argument("--version", action="version", version=f"toolcap-mcp {toolcap.__version__}")
    args = vars(parser.parse_args(argv))
    cwd_root = args.pop("cwd_root")
    spill_dir = args.pop("spill_dir")
    options = {} if args.pop("no_recipe") else dict(AGENT_RECIPE)
    options.update({name: value for name, value in args.items() if value is not None})
    options["store"] = spill_dir if spill_dir is not None else True
    options.setdefault("timeout", DEFAULT_TIMEOUT)
    if cwd_root is not None:
        if not os.path.isdir(cwd_root):
            raise UsageError(f"--cwd-root '{cwd_root}' is not a directory")
        cwd_root = os.path.realpath(cwd_root)
    try:
        check(options)
    except ValueError as err:
        raise UsageError(str(err)) from None
    return options, cwd_root


class _Cancel:
    """A run's cancel flag (`toolcap.run(cancel=...)`): set for this run, or
    for all of them once the server stops. A plain attribute, so that a
    signal handler may set it without taking a lock."""

    __slots__ = ("asked", "runs")

    def __init__(self, runs: "_Runs"):
        self.asked = False
        self.runs = runs

    def is_set(self) -> bool:
        return self.asked or self.runs.stopping


class _Runs:
    """The commands under way, so that the server can stop them all."""

    def __init__(self) -> None:
        self.stopping = False
        self._count = 0
        self._idle = threading.Condition()

    def run(self, *args: Any, **kwargs: Any) -> "toolcap.RunResult":
        with self._idle:
            self._count += 1
        try:
            return toolcap.run(*args, **kwargs)
        finally:
            with self._idle:
                self._count -= 1
                self._idle.notify_all()

    def stop(self, wait_s: float = STOP_WAIT_S) -> bool:
        """Kills every command's group and waits for their runs to return;
        whether they all did."""
        self.stopping = True
        with self._idle:
            return self._idle.wait_for(lambda: self._count == 0, timeout=wait_s)


# What `summary` and `list` apply of the server's options: redaction of the
# commands they print (a token typed on a command line is a secret too).
REDACT_OPTIONS = ("redact", "redact_pattern")


def _show_options(options: "dict[str, Any]") -> "dict[str, Any]":
    return {name: value for name, value in options.items() if name in SHOW_OPTIONS}


def _redact_options(options: "dict[str, Any]") -> "dict[str, Any]":
    return {name: value for name, value in options.items() if name in REDACT_OPTIONS}


def server(options: "dict[str, Any]", cwd_root: Optional[str] = None, runs: Optional[_Runs] = None) -> "MCPServer":
    """The MCP server whose tools cap every result with `options` (keyword
    options of `toolcap.run`, with a store)."""
    from typing import Annotated

    import anyio
    from mcp.server.mcpserver import MCPServer
    from mcp_types import CallToolResult, TextContent, ToolAnnotations
    from pydantic import BaseModel, Field

    runs = runs or _Runs()
    store = options["store"]
    timeout = options.get("timeout", DEFAULT_TIMEOUT)
    run_options = {name: value for name, value in options.items() if name != "timeout"}

    class RunOutput(BaseModel):
        exit_code: int = Field(description="the exit status: 124 after the timeout, 128+N after signal N")
        signal: Optional[int] = Field(description="the signal that killed the command, if one did")
        timed_out: bool = Field(description="whether the timeout stopped it")
        truncated: bool = Field(description="whether the output was cut (the rest is in the store)")
        bytes: int = Field(description="the output's full length")
        lines: int = Field(description="the output's full number of lines")
        spill_id: Optional[str] = Field(description="the id for show and summary; null when nothing was left out")
        duration_s: float = Field(description="seconds from start to exit")

    class ShowOutput(BaseModel):
        truncated: bool = Field(description="whether this answer was cut (ask for less to see the rest)")
        bytes: int = Field(description="the length of what was asked for, before capping")
        lines: int = Field(description="its number of lines")

    def failure(message: str) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)

    def resolve_cwd(cwd: Optional[str]) -> str:
        base = cwd_root or os.getcwd()
        path = os.path.join(base, cwd) if cwd else base
        if cwd_root is not None:
            real = os.path.realpath(path)
            if os.path.commonpath([real, cwd_root]) != cwd_root:
                raise ValueError(f"cwd '{cwd}' is outside --cwd-root '{cwd_root}'")
        return path

    mcp = MCPServer(
        name="toolcap",
        version=toolcap.__version__,
        # The client shows the server's stderr: a line for each rejected
        # call would be noise there (the model gets the error anyway).
        log_level="WARNING",
        instructions="Shell commands whose output is capped; cut outputs are kept whole in a store, "
        "read back with show (a line range or a pattern) by the id the result gives.",
    )

    async def run(
        command: Annotated[str, Field(description="the shell command (/bin/sh -c)")],
        cwd: Annotated[Optional[str], Field(description="its working directory")] = None,
        timeout_s: Annotated[
            Optional[float], Field(gt=0, description=f"seconds before its process group is killed (default {timeout})")
        ] = None,
    ) -> Annotated[CallToolResult, RunOutput]:
        try:
            directory = resolve_cwd(cwd)
        except ValueError as err:
            return failure(str(err))
        cancel = _Cancel(runs)
        call = functools.partial(
            runs.run,
            command,
            cwd=directory,
            cancel=cancel,
            timeout=timeout if timeout_s is None else timeout_s,
            **run_options,
        )
        try:
            # Abandoned on cancel (the client's cancellation, or stdin closed):
            # the flag then kills the group, and the run returns in its thread.
            result = await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            cancel.asked = True
            raise
        except (ValueError, OSError) as err:
            return failure(str(err))
        fields = RunOutput(
            exit_code=result.exit_code,
            signal=result.signal,
            timed_out=result.timed_out,
            truncated=result.truncated,
            bytes=result.bytes,
            lines=result.lines,
            spill_id=result.spill_id,
            duration_s=round(result.duration, 3),
        )
        return CallToolResult(
            content=[TextContent(type="text", text=result.text)], structured_content=fields.model_dump()
        )

    async def show(
        id: Annotated[str, Field(description="the id a result's marker gives (any unique prefix)")],
        lines: Annotated[Optional[str], Field(description='a range of lines "A:B", 1-based, inclusive')] = None,
        grep: Annotated[Optional[str], Field(description="a regular expression: only the lines that match")] = None,
        context: Annotated[Optional[int], Field(ge=0, description="with grep: lines shown around each match")] = None,
    ) -> Annotated[CallToolResult, ShowOutput]:
        call = functools.partial(
            toolcap.show, id, lines=lines, grep=grep, context=context, store=store, **_show_options(options)
        )
        try:
            result = await anyio.to_thread.run_sync(call)
        except (ValueError, OSError) as err:
            return failure(str(err))
        fields = ShowOutput(truncated=result.truncated, bytes=result.bytes, lines=result.lines)
        return CallToolResult(
            content=[TextContent(type="text", text=result.text)], structured_content=fields.model_dump()
        )

    async def summary(
        id: Annotated[str, Field(description="the id of a stored output (any unique prefix)")],
    ) -> CallToolResult:
        try:
            call = functools.partial(toolcap.summary, id, store=store, **_redact_options(options))
            line = await anyio.to_thread.run_sync(call)
        except (ValueError, OSError) as err:
            return failure(str(err))
        return CallToolResult(content=[TextContent(type="text", text=line)])

    async def list_outputs(
        limit: Annotated[Optional[int], Field(ge=1, description="at most this many (default: all)")] = None,
    ) -> CallToolResult:
        try:
            call = functools.partial(toolcap.list_outputs, limit, store=store, **_redact_options(options))
            text = await anyio.to_thread.run_sync(call)
        except (ValueError, OSError) as err:
            return failure(str(err))
        return CallToolResult(content=[TextContent(type="text", text=text)])

    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    mcp.add_tool(
        run,
        description=RUN_DESCRIPTION.format(timeout=timeout),
        annotations=ToolAnnotations(destructive_hint=True, open_world_hint=True),
    )
    mcp.add_tool(show, description=SHOW_DESCRIPTION, annotations=read_only)
    mcp.add_tool(summary, description=SUMMARY_DESCRIPTION, annotations=read_only)
    mcp.add_tool(list_outputs, name="list", description=LIST_DESCRIPTION, annotations=read_only)
    return mcp


def main(argv: "Optional[list[str]]" = None) -> int:
    """The `toolcap-mcp` command: serves until stdin closes, then kills
    the process groups of the commands still running."""
    try:
        options, cwd_root = parse_arguments(sys.argv[1:] if argv is None else argv)
    except UsageError as err:
        print(f"toolcap-mcp: {err}", file=sys.stderr)
        return 2
    try:
        import mcp  # noqa: F401
    except ImportError:
        print("toolcap-mcp: needs the MCP Python SDK: pip install 'toolcap[mcp]'", file=sys.stderr)
        return 1
    runs = _Runs()

    def stop(signum: int, frame: Any) -> None:
        # The commands first (the flag is all a signal handler may touch),
        # then the server, as Ctrl-C would.
        runs.stopping = True
        raise KeyboardInterrupt

    for name in ("SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), stop)
    try:
        server(options, cwd_root, runs).run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        runs.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
