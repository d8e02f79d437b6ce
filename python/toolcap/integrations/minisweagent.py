"""`ToolcapEnvironment`: mini-swe-agent's `LocalEnvironment`, each command
run through `toolcap.run` (docs/GUIDE.md, "mini-swe-agent").

The only module of the package that imports mini-swe-agent (the
`minisweagent` extra). It owns what mini would otherwise do to a command's
output: mini's observation template cuts an output of 10,000 characters or
more down to its first and last 5,000 (`output.output | length < 10000`,
Jinja's length of a str: characters), with no way back to the middle.
Here toolcap cuts first, keeping the errors, the verdict and the store id,
and the text is made to fit under mini's limit, so that mini never cuts
again. Everything else is mini's: the directory, the environment, the
timeout's report, the submission sentinel.
"""

import os
import shlex
import subprocess
from typing import Any, Optional

from minisweagent.environments.local import LocalEnvironment, LocalEnvironmentConfig

import toolcap

from .._recipe import AGENT_RECIPE, check

MINI_LIMIT = 9_999
"""The longest output (characters) that mini's default observation
template shows whole: it cuts at `length < 10000`."""

# How the default budget shares `total`: the head and tail (bytes, so
# also at most that many characters), the lines --keep-errors keeps, and
# the rest for the header, the markers and their gap markers (issue 21:
# those come on top of --max today). The text is measured after the run
# whatever the shares, and re-cut when over.
CONTENT_SHARE = 0.7
KEPT_SHARE = 0.1

SENTINEL = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
"""What mini's `_check_finished` looks for on the first line of an output."""
# Where the first line of a stored output is read, to see the sentinel.
SENTINEL_PEEK = 4096
# The options that change the lines they keep. A command that names the
# sentinel runs without them (nor a profile, which turns cleaning on), so
# that its output is either whole and as printed, or cut and whole in the
# store: mini's submission is the output as printed, which the model never
# reads (the run ends), and today's cleaning can fold lines of a diff
# without cutting anything, leaving no copy (issue 21).
CHANGE_LINES = (
    "clean", "strip_ansi", "collapse_cr", "squeeze", "fold", "fold_pattern", "utf8", "binary", "max_line",
    "redact", "redact_pattern",
)  # fmt: skip


class ToolcapEnvironmentConfig(LocalEnvironmentConfig):
    toolcap: "dict[str, Any]" = {}
    """toolcap's keyword options (`toolcap.run`'s), over the defaults: the
    agent recipe without its status line (mini reports the return code)
    and without plain_env (mini's `env` says what the command gets), and a
    budget sized from `total`. `total` is this environment's own: the most
    characters an output may have (default 9,999, what mini's observation
    template shows whole)."""


def _options(config: "dict[str, Any]") -> "tuple[dict[str, Any], int]":
    """toolcap's options for every command, and the total they must fit."""
    options = {name: value for name, value in AGENT_RECIPE.items() if name != "plain_env"}
    options["status"] = False
    given = dict(config)
    total = int(given.pop("total", MINI_LIMIT))
    if total < 1:
        raise ValueError(f"toolcap total must be a positive number of characters, not {total}")
    if any(name in given for name in ("max", "chars", "tokens")):
        del options["max"]
    else:
        options["max"] = int(total * CONTENT_SHARE)
        keeps = given.get("keep_errors", options.get("keep_errors")) or given.get("keep")
        if keeps and "keep_max" not in given:
            options["keep_max"] = int(total * KEPT_SHARE)
    options.update(given)
    for name in ("timeout", "cwd", "env", "extra_env", "cancel", "input"):
        if name in options:
            raise ValueError(f"toolcap option '{name}' is set by the environment, not in its toolcap config")
    return options, total


def _show_command(spill_id: Optional[str], store: Any) -> Optional[str]:
    if spill_id is None:
        return None
    if store is True or store is None:
        return f"toolcap --show {spill_id}"
    return f"toolcap --show {spill_id} --spill-dir {shlex.quote(os.fspath(store))}"


def fit(text: str, limit: int, show: Optional[str] = None) -> str:
    """`text` if it has at most `limit` characters, else its head and tail
    around one marker line, at most `limit` characters in all, cut at line
    ends where one is near. toolcap's own budget makes this rare: it is
    the guarantee under it, for what the budget does not bound yet."""
    if len(text) <= limit:
        return text
    where = f"; full output: {show}" if show else ""

    def marker(left_out: int) -> str:
        return f"[... {left_out:,} of {len(text):,} characters left out to fit {limit:,}{where} ...]\n"

    # The count is at most len(text): its marker is the longest there is.
    room = limit - len(marker(len(text))) - 1  # 1: a newline after a head that lacks one
    if room < 2:
        # Too small a limit for a marker: the head alone.
        return text[:limit]
    head_end = room // 2
    tail_start = len(text) - (room - head_end)
    # Whole lines where the cut can move to a line end within its half.
    newline = text.rfind("\n", head_end // 2, head_end + 1)
    if newline != -1:
        head_end = newline + 1
    newline = text.find("\n", tail_start, tail_start + (room - room // 2) // 2)
    if newline != -1:
        tail_start = newline + 1
    head = text[:head_end]
    if not head.endswith("\n"):
        head += "\n"
    return head + marker(tail_start - head_end) + text[tail_start:]


class ToolcapEnvironment(LocalEnvironment):
    """Runs each command as `LocalEnvironment` does, through `toolcap.run`.

    The output mini shows is toolcap's: the head, the tail, the errors of
    the middle, and the id of the full output in the store (also in the
    step's `extra` as `spill_id`), never longer than the config's
    `toolcap.total` characters."""

    def __init__(self, *, config_class: type = ToolcapEnvironmentConfig, **kwargs: Any):
        super().__init__(config_class=config_class, **kwargs)
        self.toolcap_options, self.total = _options(self.config.toolcap)
        check(self.toolcap_options)

    def execute(self, action: "dict[str, Any]", cwd: str = "", *, timeout: Optional[int] = None) -> "dict[str, Any]":
        command = action.get("command", "")
        cwd = cwd or self.config.cwd or os.getcwd()
        timeout = timeout or self.config.timeout
        spill_id = None
        raw_path = None
        options = self.toolcap_options
        if SENTINEL in command:
            options = {name: value for name, value in options.items() if name not in CHANGE_LINES}
            options["profile"] = "none"
        try:
            # mini kills the group with SIGKILL at its timeout: no grace.
            result = toolcap.run(
                command,
                cwd=cwd,
                env=os.environ | self.config.env,
                timeout=timeout,
                kill_after=0,
                **options,
            )
            spill_id = result.spill_id
            raw_path = result.spill
            text = fit(result.text, self.total, _show_command(spill_id, self.toolcap_options.get("store")))
            if result.timed_out:
                raise subprocess.TimeoutExpired(command, timeout, output=text)
            # subprocess, as mini runs it, says -N for a command killed by signal N.
            code = -result.signal if result.signal else result.exit_code
            output: "dict[str, Any]" = {"output": text, "returncode": code, "exception_info": ""}
        except Exception as e:
            # What LocalEnvironment.execute makes of a failure, word for word.
            raw_output = getattr(e, "output", None)
            raw_output = (
                raw_output.decode("utf-8", errors="replace") if isinstance(raw_output, bytes) else (raw_output or "")
            )
            output = {
                "output": raw_output,
                "returncode": -1,
                "exception_info": f"An error occurred while executing the command: {e}",
                "extra": {"exception_type": type(e).__name__, "exception": str(e)},
            }
        output.setdefault("extra", {})["spill_id"] = spill_id
        self._check_finished(self._as_printed(output, raw_path))
        return output

    @staticmethod
    def _as_printed(output: "dict[str, Any]", raw_path: Optional[str]) -> "dict[str, Any]":
        """The output as the command printed it, for mini's sentinel check:
        a cut output starts with toolcap's header, and its submission is
        the whole output, which the store holds."""
        if raw_path is None or output["returncode"] != 0:
            return output
        with open(raw_path, "rb") as raw:
            start = raw.read(SENTINEL_PEEK).decode("utf-8", errors="replace").lstrip()
            if start.split("\n", 1)[0].strip() != SENTINEL:
                return output
            raw.seek(0)
            whole = raw.read().decode("utf-8", errors="replace")
        return {**output, "output": whole}
