"""The documented Python recipes run as written: the harness's bash tool
with the store and --summary (the package's page, python/README.md, and
the README's short copy of it), the drop-in truncate_tool_output, and the
harness recipes of the guide (docs/GUIDE.md)."""

import re
from pathlib import Path

import pytest
import toolcap

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PACKAGE_PAGE = ROOT / "python" / "README.md"
GUIDE = ROOT / "docs" / "GUIDE.md"


def defined(path, text):
    """The functions `text`'s indented code blocks define, the last
    definition of each name winning, as if its code blocks were one file."""
    blocks = re.findall(r"(?:\n(?:    .*)?)+", text)
    namespace = {}
    for block in blocks:
        code = "\n".join(line[4:] for line in block.split("\n"))
        if "def " in code:
            exec(compile(code, str(path), "exec"), namespace)
    return namespace


def section(path, title):
    """The section of `path` under the heading `title`, up to the next
    heading of its level or higher."""
    text = path.read_text()
    level = title[: title.index(" ")]
    start = text.index(f"\n{title}\n")
    ends = [text.find(f"\n{hashes} ", start + 1) for hashes in ("#" * n for n in range(1, len(level) + 1))]
    ends = [end for end in ends if end != -1]
    return text[start : min(ends)] if ends else text[start:]


def recipes():
    """The functions the package's page defines (its recipes)."""
    return defined(PACKAGE_PAGE, PACKAGE_PAGE.read_text())


# The package's page has the recipe; the README's common uses copy it.
BASH_TOOLS = {
    "package page": recipes,
    "README": lambda: defined(README, section(README, "### An agent harness's bash tool")),
}


@pytest.mark.parametrize("where", BASH_TOOLS)
def test_the_bash_tool_recipe(private_cache, where):
    recipe = BASH_TOOLS[where]()
    # Lines that differ in letters, which folding keeps apart.
    failing = recipe["bash_tool"]("seq 20000 | tr 0-9 a-j; echo 'error: disk full' >&2; exit 3")
    assert failing.exit_code == 3 and failing.truncated
    shown = recipe["shown"](failing)
    assert shown.endswith("error: disk full\n[exit status: 3]\n")
    assert f"full output in {private_cache}/toolcap/spill/{failing.spill_id}.log" in shown
    line = recipe["forgotten"](failing)
    assert line == toolcap.summary(failing.spill_id)
    assert line.startswith(f"[output {failing.spill_id}: ") and ", exit 3, seq 20000 | tr 0-9 a-j;" in line
    fits = recipe["bash_tool"]("echo fine")
    assert (recipe["shown"](fits), recipe["forgotten"](fits)) == ("fine\n", "fine\n")
    # A fake credential the command prints stays out of what the model sees.
    leaky = recipe["bash_tool"]("echo 'API_KEY=FAKEkey00000042'")
    assert recipe["shown"](leaky) == "API_KEY=[REDACTED:api-key]\n"


def test_the_drop_in_truncate_tool_output():
    truncate_tool_output = recipes()["truncate_tool_output"]
    assert truncate_tool_output.__code__.co_names.count("toolcap"), "the toolcap one is the last"
    log = "".join(f"tëst {i} passed\n" for i in range(5000)) + "FAILED: 1 of 5000\n"
    capped = truncate_tool_output(log)
    assert capped.endswith("FAILED: 1 of 5000\n")
    assert capped == toolcap.cap(log, chars=16_000).text
    assert truncate_tool_output("short\n") == "short\n"
    assert truncate_tool_output("password=FAKEpw0042\n") == "password=[REDACTED:password]\n"


def harness_recipes():
    """The functions the guide's "Harnesses" section defines."""
    return defined(GUIDE, section(GUIDE, "## Harnesses"))


def test_the_harness_recipes(private_cache):
    # The plain function: the window's budget, the environment added to.
    tool_result = harness_recipes()["tool_result"]
    assert tool_result("echo $CI") == "1\n"
    # Lines that differ in letters, which folding keeps apart.
    long = tool_result("seq 100000 | tr 0-9 a-j")
    assert long.startswith("Warning: truncated output") and long.endswith("baaaaa\n")
    assert len(long.encode()) < 100_000 + 1_000
    # The verifiers import the recipe names.
    from toolcap.compat.verifiers import truncate_tool_output

    text = "".join(f"line {i}\n" for i in range(5000))
    assert truncate_tool_output(text) == toolcap.cap(text, style="verifiers", max=20_000).text
    assert truncate_tool_output(text, max_bytes=10_000) == toolcap.cap(text, style="verifiers", max=10_000).text
