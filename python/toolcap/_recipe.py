"""The agent recipe (README, "Recipe: an agent harness's bash tool") as
keyword options, written once: the MCP server and the mini-swe-agent
environment start from it, so that an option the recipe gains is one line
here."""

from typing import Any

AGENT_RECIPE: "dict[str, Any]" = {
    "max": "16k",
    "clean": True,
    "keep_errors": True,
    "profile": "auto",
    "plain_env": True,
    "store": True,
}
"""The recipe's capping options (what `toolcap --max 16k --clean
--keep-errors --profile auto --plain-env --store` sets), less its timeout,
which each integration maps to its own."""
