"""The README's Python recipes run as written: the harness's bash tool
with the store and --summary, and the drop-in truncate_tool_output."""

import re
from pathlib import Path

import toolcap

README = Path(__file__).resolve().parents[2] / "README.md"


def recipes():
    """The functions the README's "Python" section defines, the last
    definition of each name winning, as if its code blocks were one file."""
    text = README.read_text()
    section = text[text.index("\n## Python\n"):]
    section = section[: section.index("\n## ", 1)]
    blocks = re.findall(r"(?:\n(?:    .*)?)+", section)
    namespace = {}
    for block in blocks:
        code = "\n".join(line[4:] for line in block.split("\n"))
        if "def " in code:
            exec(compile(code, str(README), "exec"), namespace)
    return namespace


def test_the_bash_tool_recipe(private_cache):
    recipe = recipes()
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
    """The functions the README's "Harnesses" section defines."""
    text = README.read_text()
    section = text[text.index("\n## Harnesses\n"):]
    section = section[: section.index("\n## ", 1)]
    namespace = {}
    for block in re.findall(r"(?:\n(?:    .*)?)+", section):
        code = "\n".join(line[4:] for line in block.split("\n"))
        if "def " in code:
            exec(compile(code, str(README), "exec"), namespace)
    return namespace


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
