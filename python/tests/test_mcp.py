"""toolcap-mcp, the installed console script, through the MCP Python SDK's
own client (mcp.client.stdio.stdio_client, ClientSession), as an agent
would use it."""

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from conftest import environment

anyio = pytest.importorskip("anyio")
try:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
except ImportError:
    print("SKIPPED: the MCP Python SDK is not installed (pip install './python[mcp]')", file=sys.stderr)
    pytest.skip("SKIPPED: the MCP Python SDK is not installed", allow_module_level=True)

SERVER = shutil.which("toolcap-mcp", path=os.path.dirname(sys.executable))
if SERVER is None:
    print("SKIPPED: toolcap-mcp is not installed beside this Python", file=sys.stderr)
    pytest.skip("SKIPPED: toolcap-mcp is not installed", allow_module_level=True)

PYTEST_FAILING = """\
import pytest


@pytest.mark.parametrize("case", range(3000))
def test_case(case):
    assert case not in (1234, 2777), f"case {case} gave the wrong answer"
"""


# 40,000 lines that differ in words, which no fold shortens: cut, one FAILED.
WORDY_LOG = (
    "w = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike'.split(); "
    "[print('case', i, w[i % 13], w[i * 7 % 13], w[i * 3 % 11], 'FAILED' if i == 7777 else 'ok') for i in range(40000)]"
)


def hermetic(tmp_path):
    """The server's environment: a config and a cache of the test's own."""
    return {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_CACHE_HOME": str(tmp_path / "cache")}


@contextlib.asynccontextmanager
async def connect(tmp_path, *args):
    params = StdioServerParameters(
        command=SERVER, args=["--spill-dir", str(tmp_path / "store"), *args], env=hermetic(tmp_path)
    )
    with open(tmp_path / "server.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


def serve(tmp_path, body, *args):
    async def main():
        async with connect(tmp_path, *args) as session:
            return await body(session)

    return anyio.run(main)


def text_of(result):
    assert [block.type for block in result.content] == ["text"]
    return result.content[0].text


def processes_with(token):
    """Live processes whose environment holds `token` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as env:
                if token.encode() not in env.read():
                    continue
            with open(f"/proc/{entry}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
        except OSError:
            continue
        found.append(int(entry))
    return found


def wait_until(predicate, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.fixture
def token(needs_proc):
    """A mark in the environment of the commands a test starts; whatever
    still carries it when the test ends is killed."""
    mark = f"TOOLCAP_MCP_TEST={uuid.uuid4().hex}"
    yield mark
    for pid in processes_with(mark):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_four_tools_each_saying_results_may_be_cut(tmp_path):
    async def body(session):
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in serve(tmp_path, body)}
    assert sorted(tools) == ["list", "run", "show", "summary"]
    assert set(tools["run"].input_schema["properties"]) == {"command", "cwd", "timeout_s"}
    assert tools["run"].input_schema["required"] == ["command"]
    assert set(tools["show"].input_schema["properties"]) == {"id", "lines", "grep", "context"}
    assert tools["summary"].input_schema["required"] == ["id"]
    assert set(tools["list"].input_schema["properties"]) == {"limit"}
    assert set(tools["run"].output_schema["properties"]) == {
        "exit_code", "signal", "timed_out", "truncated", "bytes", "lines", "spill_id", "duration_s",
    }  # fmt: skip
    assert "may be cut" in tools["run"].description and "call `show`" in tools["run"].description
    assert "capped" in tools["show"].description


def test_run_pytest_with_failures(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_app.py").write_text(PYTEST_FAILING)
    command = f"{sys.executable} -m pytest -v -p no:cacheprovider test_app.py"

    async def body(session):
        return await session.call_tool("run", {"command": command, "cwd": str(project)})

    result = serve(tmp_path, body)
    assert not result.is_error
    text = text_of(result)
    fields = result.structured_content
    assert fields["exit_code"] == 1 and fields["signal"] is None and fields["timed_out"] is False
    # Both failures, their messages and the verdict reach the model.
    for case in (1234, 2777):
        assert f"test_app.py::test_case[{case}] FAILED" in text
        assert f"E       AssertionError: case {case} gave the wrong answer" in text
        assert f"FAILED test_app.py::test_case[{case}] - AssertionError" in text
    # Folded, it fits: the last line names the stored output the fold
    # markers' line ranges point into.
    verdict = r"=+ 2 failed, 2998 passed in [\d.]+s =+\n"
    note = r"\[\.\.\. cleaned: \d+ raw bytes became \d+ bytes; full output in \S+ \.\.\.\]\n"
    assert re.search(verdict + note + r"\[exit status: 1\]\n\Z", text), text[-300:]
    assert fields["duration_s"] > 0
    assert len(text) <= 16_000 + 1_000


def test_run_cut_show_lines_and_grep(tmp_path):
    # 200,000 lines, none similar enough to fold: the output is cut.
    make = "python3 -c \"import sys; [print('row', i, 'ERROR' if i % 40000 == 7 else 'ok', 'x' * (i % 13)) for i in range(1, 200001)]\""

    async def body(session):
        ran = await session.call_tool("run", {"command": make})
        spill_id = ran.structured_content["spill_id"]
        part = await session.call_tool("show", {"id": spill_id, "lines": "1200:1203"})
        found = await session.call_tool("show", {"id": spill_id, "grep": "ERROR"})
        near = await session.call_tool("show", {"id": spill_id, "grep": "ERROR", "lines": "40000:80010", "context": 1})
        none = await session.call_tool("show", {"id": spill_id, "grep": "no such line"})
        summary = await session.call_tool("summary", {"id": spill_id})
        listed = await session.call_tool("list", {"limit": 1})
        return ran, part, found, near, none, summary, listed

    ran, part, found, near, none, summary, listed = serve(tmp_path, body)
    fields = ran.structured_content
    spill_id = fields["spill_id"]
    assert fields["truncated"] is True and re.fullmatch(r"[0-9a-f]{8}", spill_id)
    assert fields["lines"] == 200_000 and fields["exit_code"] == 0
    assert spill_id in text_of(ran)

    def row(i):
        return f"row {i} {'ERROR' if i % 40000 == 7 else 'ok'} {'x' * (i % 13)}\n"

    assert text_of(part) == "".join(row(i) for i in range(1200, 1204))
    assert part.structured_content["truncated"] is False
    assert text_of(found) == "".join(f"{i}:{row(i)}" for i in (7, 40007, 80007, 120007, 160007))
    # As grep -n -C 1 prints them: context lines N-, groups apart --.
    assert text_of(near) == (
        f"40006-{row(40006)}40007:{row(40007)}40008-{row(40008)}--\n80006-{row(80006)}80007:{row(80007)}80008-{row(80008)}"
    )
    assert not none.is_error and text_of(none) == ""
    assert text_of(summary).startswith(f"[output {spill_id}: ") and "200,000 lines" in text_of(summary)
    assert text_of(listed).startswith(spill_id)


def test_show_of_a_20_mb_output_is_capped(tmp_path):
    # 20 MB of lines that differ in words, which no cleaning shortens.
    make = f"{sys.executable} -c \"{WORDY_LOG.replace('40000', '620000')}\"; echo the end"

    async def body(session):
        ran = await session.call_tool("run", {"command": make})
        whole = await session.call_tool("show", {"id": ran.structured_content["spill_id"]})
        return ran, whole

    ran, whole = serve(tmp_path, body)
    assert ran.structured_content["bytes"] > 20_000_000
    text = text_of(whole)
    assert whole.structured_content["truncated"] is True
    assert whole.structured_content["bytes"] == ran.structured_content["bytes"]
    assert len(text.encode()) < 16_000 + 1_000
    assert text.endswith("the end\n")
    assert re.search(r"\[\.\.\. [\d,]+ bytes truncated \(lines \d+-\d+\)", text), text[:500]


def test_unknown_id_is_a_tool_error_and_the_server_goes_on(tmp_path):
    async def body(session):
        unknown = await session.call_tool("show", {"id": "0bad0bad"})
        bad_range = await session.call_tool("summary", {"id": "not an id"})
        after = await session.call_tool("run", {"command": "echo still here"})
        return unknown, bad_range, after

    unknown, bad_range, after = serve(tmp_path, body)
    assert unknown.is_error
    message = text_of(unknown)
    assert "'0bad0bad'" in message and "\n" not in message.strip()
    assert bad_range.is_error and "\n" not in text_of(bad_range).strip()
    assert not after.is_error and text_of(after) == "still here\n"


def test_timeout_kills_the_group(tmp_path, token):
    async def body(session):
        started = time.monotonic()
        result = await session.call_tool("run", {"command": f"{token} sleep 100 & {token} sleep 100", "timeout_s": 1})
        return result, time.monotonic() - started

    result, elapsed = serve(tmp_path, body)
    fields = result.structured_content
    assert fields["timed_out"] is True and fields["exit_code"] == 124
    assert elapsed < 8
    assert text_of(result).endswith("[timed out after 1s]\n")
    assert wait_until(lambda: not processes_with(token), 5), processes_with(token)


def test_closing_the_client_mid_command_leaves_no_process(tmp_path, token):
    async def body(session):
        async with anyio.create_task_group() as group:
            group.start_soon(session.call_tool, "run", {"command": f"{token} sleep 100 & {token} sleep 100"})
            with anyio.fail_after(20):
                while len(processes_with(token)) < 2:
                    await anyio.sleep(0.05)
            group.cancel_scope.cancel()

    started = time.monotonic()
    serve(tmp_path, body)
    assert wait_until(lambda: not processes_with(token), 5), processes_with(token)
    # The server stopped on its own when its stdin closed, before the
    # client's 2 s escalation to SIGTERM.
    assert time.monotonic() - started < 20


CLIENT = textwrap.dedent(
    """
    import sys, anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def main():
        params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:4], env={"XDG_CACHE_HOME": sys.argv[4]})
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                print("ready", flush=True)
                await session.call_tool("run", {"command": sys.argv[5]})

    anyio.run(main)
    """
)


def test_a_killed_client_leaves_no_process(tmp_path, token):
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT, SERVER, "--spill-dir", str(tmp_path / "store"), str(tmp_path),
         f"{token} sleep 100"],
        stdout=subprocess.PIPE,
        env=environment(),
    )  # fmt: skip
    try:
        assert client.stdout.readline() == b"ready\n"
        assert wait_until(lambda: len(processes_with(token)) == 1, 20)
        client.kill()
        client.wait(timeout=10)
        assert wait_until(lambda: not processes_with(token), 5), processes_with(token)
    finally:
        client.kill()
        client.wait(timeout=10)


def test_cwd_root(tmp_path):
    root = tmp_path / "root"
    (root / "inside").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "outside", root / "escape")

    async def body(session):
        default = await session.call_tool("run", {"command": "pwd"})
        inside = await session.call_tool("run", {"command": "pwd", "cwd": "inside"})
        outside = await session.call_tool("run", {"command": "pwd", "cwd": str(tmp_path / "outside")})
        escape = await session.call_tool("run", {"command": "pwd", "cwd": "escape"})
        return default, inside, outside, escape

    default, inside, outside, escape = serve(tmp_path, body, "--cwd-root", str(root))
    assert text_of(default) == f"{root}\n"
    assert text_of(inside) == f"{root}/inside\n"
    assert outside.is_error
    assert text_of(outside) == f"cwd '{tmp_path}/outside' is outside --cwd-root '{root}'"
    assert escape.is_error and text_of(escape) == f"cwd 'escape' is outside --cwd-root '{root}'"


def test_bad_arguments_are_the_command_lines_errors(tmp_path):
    bad = subprocess.run(
        [SERVER, "--max", "1.5k"], capture_output=True, text=True, env=environment(**hermetic(tmp_path)), timeout=60
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("toolcap-mcp: ") and "'1.5k'" in bad.stderr and bad.stderr.count("\n") == 1
    usage = subprocess.run([SERVER, "--no-such"], capture_output=True, text=True, env=environment(), timeout=60)
    assert usage.returncode == 2 and "unrecognized arguments: --no-such" in usage.stderr


def test_python_m_toolcap_mcp_is_the_same_server(tmp_path):
    shown = subprocess.run(
        [sys.executable, "-m", "toolcap.mcp", "--help"], capture_output=True, text=True, env=environment(), timeout=60
    )
    assert shown.returncode == 0 and shown.stdout.startswith("usage: toolcap-mcp ")


def guide_section(title):
    """A section of the guide, docs/GUIDE.md, where the server is documented."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "GUIDE.md").read_text()
    section = text[text.index(f"\n## {title}\n") :]
    return section[: section.index("\n## ", 1)]


def indented_block(section, after):
    """The indented code block that follows the line holding `after`."""
    lines = section[section.index(after) :].split("\n")
    blank = next(i for i, line in enumerate(lines) if not line.strip())
    start = next(i for i, line in enumerate(lines) if i > blank and line.strip())
    indent = len(lines[start]) - len(lines[start].lstrip())
    block = []
    for line in lines[start:]:
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            break
        block.append(line[indent:])
    return "\n".join(block).strip() + "\n"


def test_the_readme_registrations_are_what_the_server_takes(tmp_path):
    import json
    import tomllib

    from toolcap.mcp import parse_arguments

    section = guide_section("MCP server")
    claude = indented_block(section, "- Claude Code:")
    assert claude == "claude mcp add toolcap -- toolcap-mcp --max 16k\n"
    codex = tomllib.loads(indented_block(section, "- Codex CLI"))["mcp_servers"]["toolcap"]
    gemini = json.loads(indented_block(section, "- Gemini CLI"))["mcpServers"]["toolcap"]
    for server in (codex, gemini):
        assert server["command"] == "toolcap-mcp"
        options, root = parse_arguments(server["args"] + ["--spill-dir", str(tmp_path / "store")])
        assert options["max"] == "16k" and options["clean"] is True and root is None
    assert parse_arguments(claude.split()[6:] + ["--spill-dir", str(tmp_path / "s")])[0]["max"] == "16k"


def test_the_readme_python_client_runs(tmp_path, capsys):
    code = indented_block(guide_section("MCP server"), "- A plain MCP client in Python")
    for old, new in [
        ('command="toolcap-mcp", args=["--max", "16k"]',
         f'command={SERVER!r}, args=["--max", "16k", "--spill-dir", {str(tmp_path / "store")!r}]'),
        ('"cargo test"', repr(f"{sys.executable} -c \"{WORDY_LOG}\"")),
    ]:  # fmt: skip
        assert old in code
        code = code.replace(old, new)
    exec(compile(code, "docs/GUIDE.md", "exec"), {})
    printed = capsys.readouterr().out
    # Line 7778 is case 7777; print() adds its newline to the text's.
    assert re.search(r"\n7778:case 7777 [a-z ]+ FAILED\n\n\Z", printed), printed[-300:]
    assert "Warning: truncated output" in printed


def test_secrets_are_redacted_in_run_and_show(tmp_path):
    secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    command = f"echo token={secret}; {sys.executable} -c \"{WORDY_LOG}\""

    async def body(session):
        ran = await session.call_tool("run", {"command": command})
        first = await session.call_tool("show", {"id": ran.structured_content["spill_id"], "lines": "1:1"})
        return ran, first

    ran, first = serve(tmp_path, body)
    assert text_of(ran).count("token=[REDACTED:github-token]\n") == 1 and secret not in text_of(ran)
    assert text_of(first) == "token=[REDACTED:github-token]\n"
    # The store keeps the raw bytes.
    store = tmp_path / "store" / f"{ran.structured_content['spill_id']}.log"
    assert store.read_bytes().startswith(f"token={secret}\n".encode())


def test_secrets_in_a_command_are_redacted_in_summary_and_list(tmp_path):
    secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    # Enough output to be cut, so that it is stored.
    command = f"echo GITHUB_TOKEN={secret} >/dev/null; {sys.executable} -c \"{WORDY_LOG}\""

    async def body(session):
        ran = await session.call_tool("run", {"command": command})
        summary = await session.call_tool("summary", {"id": ran.structured_content["spill_id"]})
        listed = await session.call_tool("list", {"limit": 1})
        return summary, listed

    summary, listed = serve(tmp_path, body)
    for result in (summary, listed):
        assert not result.is_error
        assert "GITHUB_TOKEN=[REDACTED:github-token]" in text_of(result) and secret not in text_of(result)
