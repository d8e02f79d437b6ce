"""The agent recipe (GUIDE.md, "Recipe: an agent harness's bash tool") as
keyword options, written once: the MCP server and the mini-swe-agent
environment start from it, so that an option the recipe gains is one line
here."""

from typing import Any

from ._toolcap import run

AGENT_RECIPE: "dict[str, Any]" = {
    "max": "16k",
    "clean": True,
    "keep_errors": True,
    "profile": "auto",
    "plain_env": True,
    "store": True,
    "redact": True,
}
"""The recipe's capping options (what `toolcap --max 16k --clean
--keep-errors --profile auto --plain-env --store --redact` sets), less its
timeout, which each integration maps to its own."""


def check(options: "dict[str, Any]") -> None:
    """Raises ValueError, with the command line's message, when `run` would
    refuse `options`: the command line's own parser is the one place that
    checks them, asked here once by a run of a command that does nothing,
    so that a bad option is refused when an integration starts, not at its
    first command."""
    run(["/bin/sh", "-c", ":"], **options)
