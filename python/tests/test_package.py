"""The package itself: the `toolcap` command it installs behaves exactly as
the cargo-built binary, and its typing stub describes what it has."""

import ast
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import toolcap
from conftest import TIMEOUT, environment

PACKAGE = Path(toolcap.__file__).parent
SCRIPT = shutil.which("toolcap", path=os.path.dirname(sys.executable))
BINARY = os.environ.get("TOOLCAP_BIN")


def run(command, args, data=b"", **kwargs):
    return subprocess.run(
        [command, *args], input=data, capture_output=True, env=environment(), timeout=TIMEOUT, **kwargs
    )


@pytest.fixture
def binary():
    if not BINARY:
        pytest.skip("SKIPPED: set TOOLCAP_BIN to the cargo-built binary to compare the command with it")
    return BINARY


def test_the_command_is_installed_with_the_package():
    assert SCRIPT, "pip install puts `toolcap` beside the interpreter"
    assert run(SCRIPT, ["--version"]).stdout.decode() == f"toolcap {toolcap.__version__}\n"
    assert run(sys.executable, ["-m", "toolcap", "--max", "3"], b"hello\n").stdout.endswith(b"]\no\n")


INVOCATIONS = [
    ["--version"],
    ["--help"],
    ["-h"],
    ["--max", "1.5k"],
    ["--no-such-option"],
    ["--max", "40"],
    ["--max", "40", "--json"],
    ["--max", "40", "--clean", "--keep-errors"],
    ["--max", "40", "--", "seq", "1000"],
    ["--max", "40", "--no-stdin", "-c", "seq 1000; echo oops >&2; exit 3"],
    ["--max", "40", "--stderr", "separate", "-c", "seq 100 >&2; kill -TERM $$"],
    ["--timeout", "100ms", "--", "sleep", "5"],
    ["--", "/no/such/program"],
    ["-c", "exit 7"],
    ["--show", "nothing"],
    ["--max", "40", "--tokenizer", "o200k"],
    ["--max", "40", "--profile", "auto", "--format", "auto"],
    ["--profiles"],
]


@pytest.mark.parametrize("args", INVOCATIONS, ids=" ".join)
def test_the_command_is_the_cargo_built_binary(binary, args, private_cache):
    data = b"".join(b"error %d\n" % i if i % 50 == 0 else b"line %d\n" % i for i in range(500))
    ours, theirs = run(SCRIPT, args, data), run(binary, args, data)
    if "--json" in args:
        ours_report, theirs_report = json.loads(ours.stdout), json.loads(theirs.stdout)
        ours_report.pop("duration_ms", None)
        theirs_report.pop("duration_ms", None)
        assert ours_report == theirs_report
    else:
        assert ours.stdout == theirs.stdout
    assert (ours.stderr, ours.returncode) == (theirs.stderr, theirs.returncode)


def test_the_command_handles_sigint_as_the_binary_does(binary):
    """Python catches SIGINT; the command gives it back its default
    disposition, so the first one stops the reading (exit 130, the capped
    view printed) and toolcap's own handling is the binary's."""
    outcomes = []
    for command in (SCRIPT, binary):
        child = subprocess.Popen(
            [command, "--max", "30"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=environment()
        )
        try:
            child.stdin.write(b"".join(b"line %d\n" % i for i in range(100)))
            child.stdin.flush()
            time.sleep(0.5)
            child.send_signal(signal.SIGINT)
            stdout, _ = child.communicate(timeout=TIMEOUT)
        finally:
            child.kill()
            child.wait()
        outcomes.append((child.returncode, stdout))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == 130
    assert outcomes[0][1].endswith(b"[input interrupted by signal 2 (SIGINT); totals are of what was read]\n")


def stub():
    return ast.parse((PACKAGE / "_toolcap.pyi").read_text())


def class_fields(tree, name):
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            fields = {item.target.id for item in node.body if isinstance(item, ast.AnnAssign)}
            fields |= {item.name for item in node.body if isinstance(item, ast.FunctionDef)}
            bases = [base.id for base in node.bases if isinstance(base, ast.Name)]
            for base in bases:
                if base not in ("TypedDict",):
                    fields |= class_fields(tree, base)
            return fields
    raise AssertionError(f"no class {name} in the stub")


def test_the_package_is_typed():
    assert (PACKAGE / "py.typed").exists()
    names = {node.name for node in stub().body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    assert set(toolcap.__all__) - {"__version__"} <= names


def test_the_stub_lists_exactly_the_options_the_functions_take():
    tree = stub()
    cap_options = class_fields(tree, "CapOptions")
    run_options = class_fields(tree, "RunOptions")
    for option in cap_options:
        toolcap.cap(b"", **{option: None})
        toolcap.Capper(**{option: None})
    for option in run_options:
        toolcap.run("true", **{option: None})
    for option in run_options - cap_options:
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            toolcap.cap(b"", **{option: None})


# The command line's options that are no keyword argument, and why.
NOT_KEYWORDS = {
    "--spill-dir": "store=DIR",
    "--no-spill": "nothing to turn off: the API reads no TOOLCAP_SPILL_DIR",
    "--no-header": "header=False",
    "--no-status": "status=False",
    "--no-stdin": "run's stdin is `input`, or /dev/null",
    "--json": "every result carries the report",
    "--live": "a result comes whole, at the end",
    "--command": "run(str)",
    "--shell": "run(str) is /bin/sh -c; run([shell, '-c', ...]) for another",
    "--summary": "toolcap.summary()",
    "--list": "toolcap.list_outputs()",
    "--show": "toolcap.show()",
    "--grep": "toolcap.show(id, grep=...)",
    "--context": "toolcap.show(id, grep=..., context=...)",
    "--prune": "the store commands are the command line's",
    "--profiles": "a listing for people: the command line's",
    "--hook": "a hook is a process Claude Code starts: the command line's",
    "--install-hook": "edits the agent's settings: the command line's",
    "--uninstall-hook": "edits the agent's settings: the command line's",
    "--settings": "for --install-hook: the command line's",
    "--project": "for --install-hook: the command line's",
    "--help": "help()",
    "--version": "toolcap.__version__",
}


def test_every_option_of_the_command_line_is_a_keyword_or_said_why_not():
    tree = stub()
    keywords = class_fields(tree, "RunOptions")
    help_text = subprocess.run([SCRIPT, "--help"], capture_output=True, text=True, check=True).stdout
    options = set(re.findall(r"^ +(?:-\w, )?(--[a-z0-9-]+)", help_text, re.MULTILINE))
    assert len(options) > 40, help_text
    missing = {option for option in options if option[2:].replace("-", "_") not in keywords}
    assert missing == set(NOT_KEYWORDS), missing ^ set(NOT_KEYWORDS)


def test_the_stub_lists_every_field_of_the_report():
    tree = stub()
    result_fields = class_fields(tree, "Result")
    assert set(toolcap.cap(b"x").report) <= result_fields
    assert set(toolcap.run("true").report) <= class_fields(tree, "RunResult")
    assert {"data", "text", "report", "exit_code", "signal", "timed_out", "duration", "stderr"} <= class_fields(
        tree, "RunResult"
    )


def annotated(tree, name):
    """The attributes the stub's class `name` declares (not its properties),
    with those of its bases."""
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            fields = {item.target.id for item in node.body if isinstance(item, ast.AnnAssign)}
            for base in node.bases:
                if isinstance(base, ast.Name) and base.id != "TypedDict":
                    fields |= annotated(tree, base.id)
            return fields
    raise AssertionError(f"no class {name} in the stub")


def test_the_stub_declares_exactly_the_fields_each_result_has():
    """A separate stderr's report has no run-wide fields (tokenizer,
    problems, profile, interrupted_by): the stub types it as a
    StreamResult, which declares none of them, and each class declares no
    field its report lacks."""
    tree = stub()
    separate = toolcap.run("echo out; echo err >&2", stderr="separate")
    assert annotated(tree, "StreamResult") == set(separate.stderr.report)
    assert annotated(tree, "Result") == set(toolcap.cap(b"x").report)
    assert annotated(tree, "RunResult") | {"stderr"} == set(separate.report)
    properties = {
        node.name: ast.unparse(node.returns)
        for cls in tree.body
        if isinstance(cls, ast.ClassDef) and cls.name == "RunResult"
        for node in cls.body
        if isinstance(node, ast.FunctionDef)
    }
    assert properties["stderr"] == "StreamResult | None"


def test_every_option_in_the_stub_takes_none_as_the_functions_do():
    """"None, or leaving it out, is the command line's default" (CapOptions):
    every key takes None at run time (the test above), so its type must."""
    tree = stub()
    refused = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in ("CapOptions", "RunOptions"):
            for item in node.body:
                if isinstance(item, ast.AnnAssign):
                    members, todo = set(), [item.annotation]
                    while todo:
                        part = todo.pop()
                        if isinstance(part, ast.BinOp) and isinstance(part.op, ast.BitOr):
                            todo += [part.left, part.right]
                        else:
                            members.add(ast.unparse(part))
                    if "None" not in members:
                        refused.append(f"{node.name}.{item.target.id}: {ast.unparse(item.annotation)}")
    assert not refused


TYPED_USE = '''
import toolcap
from toolcap.compat.verifiers import truncate_tool_output

shown: str = truncate_tool_output("x") + truncate_tool_output("x", max_bytes=10_000)
windowed = toolcap.run("true", window="200k", recent=4, window_ceiling=None, extra_env={"CI": "1"},
                       style="verifiers")

result = toolcap.run("true", stderr="separate", header=None, clean=None, keep=None, status=None,
                     plain_env=None, fold_pattern=(p for p in ["^x"]), timeout=None)
capped = toolcap.cap("x", strip_ansi=None, collapse_cr=None, squeeze=None, utf8=None, fold=None,
                     keep_errors=None, pretty=None)
view: toolcap.Result = toolcap.show("3f2a", lines="1:20", grep="FAILED", context=2, store="/tmp/s", max="16k")
rows: str = toolcap.list_outputs(5, store=True) + toolcap.list_outputs()
problems: list[str] = capped.problems + result.problems
if result.stderr is not None:
    stream: toolcap.StreamResult = result.stderr
    truncated: bool = stream.truncated
'''


def test_mypy_strict_takes_what_the_functions_take_and_no_field_a_stream_lacks(tmp_path):
    """The stub as a type checker reads it: None for every option, and no
    `problems` on a separate stderr."""
    pytest.importorskip("mypy", reason="SKIPPED: needs mypy (pip install mypy) to type-check the stub")

    def check(source):
        (tmp_path / "use.py").write_text(source)
        checked = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), "use.py"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        return checked.returncode, checked.stdout

    assert check(TYPED_USE) == (0, "Success: no issues found in 1 source file\n")
    status, report = check(TYPED_USE + "    stream.problems\n")
    assert status == 1 and '"StreamResult" has no attribute "problems"' in report, report
