"""`--style verifiers` is verifiers 0.4.0's `truncate_tool_output`, byte
for byte: the command (filter and wrap mode), `toolcap.cap(style=
"verifiers")` and `toolcap.compat.verifiers.truncate_tool_output` against
the function itself, run from the package's wheel.

The wheel is what `.ci/run` downloads (`pip download --no-deps
verifiers==0.4.0 -d target/verifiers`), or the file TOOLCAP_VERIFIERS_WHEEL
names. Its module imports openai at the top, so the test takes only the two
functions it needs out of the wheel's source (with `ast`) and runs them
with the one constant they read; nothing of it is copied here.
"""

import ast
import json
import os
import random
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import toolcap
from conftest import TIMEOUT, cli, environment
from toolcap.compat.verifiers import truncate_tool_output as compat_truncate

ROOT = Path(__file__).resolve().parents[2]
WHEEL = Path(
    os.environ.get("TOOLCAP_VERIFIERS_WHEEL")
    or ROOT / "target" / "verifiers" / "verifiers-0.4.0-py3-none-any.whl"
)
MODULE = "verifiers/v1/harnesses/utils/compaction.py"
FUNCTIONS = ("truncate_tool_output", "estimated_tokens")
BUDGETS = (2, 3, 7, 101, 10_000, 20_000)


@pytest.fixture(scope="module")
def reference():
    """verifiers' truncate_tool_output(text, budget), from the wheel."""
    if not WHEEL.is_file():
        message = (
            f"SKIPPED: the verifiers 0.4.0 wheel is not at {WHEEL}: run "
            "`pip download --no-deps verifiers==0.4.0 -d target/verifiers` (as .ci/run does) "
            "or set TOOLCAP_VERIFIERS_WHEEL"
        )
        print(message, file=sys.stderr)
        pytest.skip(message)
    with zipfile.ZipFile(WHEEL) as wheel:
        source = wheel.read(MODULE).decode()
    tree = ast.parse(source, MODULE)
    wanted = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in FUNCTIONS]
    assert sorted(node.name for node in wanted) == sorted(FUNCTIONS), "the wheel's module changed"
    namespace = {"__builtins__": __builtins__}
    exec(compile(ast.Module(body=wanted, type_ignores=[]), MODULE, "exec"), namespace)

    def truncate(text, budget):
        # The constant the function reads from its module's globals.
        namespace["TOOL_OUTPUT_MAX_BYTES"] = budget
        return namespace["truncate_tool_output"](text)

    return truncate


def run_pytest_session(directory):
    """A real `pytest -v` run with failures, a traceback and a warning."""
    test_file = directory / "test_generated.py"
    test_file.write_text(
        "import warnings\n"
        "import pytest\n\n"
        "@pytest.mark.parametrize('n', range(60))\n"
        "def test_value(n):\n"
        "    assert n % 17 != 3, f'value {n} is off'\n\n"
        "def test_error():\n"
        "    {}['missing']\n\n"
        "def test_warns():\n"
        "    warnings.warn('deprecated: use the other one')\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", str(test_file)],
        capture_output=True,
        cwd=directory,
        env=environment(),
        timeout=TIMEOUT,
    )
    assert b"FAILED" in result.stdout, result.stdout[-2000:]
    return result.stdout


def run_cargo_errors(directory):
    """A real cargo build that fails, with colours."""
    cargo = shutil.which("cargo")
    if cargo is None:
        return None
    crate = directory / "broken"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "broken"\nversion = "0.1.0"\nedition = "2021"\n')
    (crate / "src" / "main.rs").write_text(
        "fn main() {\n    let x: u32 = \"text\";\n    let unused = 5;\n    undefined_call(x);\n}\n"
    )
    env = environment(CARGO_TARGET_DIR=str(directory / "target"), CARGO_TERM_COLOR="always")
    result = subprocess.run(
        [cargo, "build", "--offline", "--color", "always"],
        capture_output=True,
        cwd=crate,
        env=env,
        timeout=TIMEOUT,
    )
    assert result.returncode != 0 and b"\x1b[" in result.stderr, result.stderr[-2000:]
    return result.stderr


def real_outputs(directory):
    """The texts to compare on, by name, as bytes (the command's input)."""
    outputs = {"pytest -v": run_pytest_session(directory)}
    cargo = run_cargo_errors(directory)
    if cargo is None:
        print("SKIPPED: no cargo on PATH: the cargo-errors input is left out", file=sys.stderr)
    else:
        outputs["cargo errors, coloured"] = cargo
    outputs["CJK and emoji"] = "".join(
        f"第{i}行：日本語のテキスト、한국어 텍스트 🎉👩‍💻🇯🇵 {i}\n" for i in range(800)
    ).encode()
    outputs["CRLF"] = b"".join(b"row %d, value %d\r\n" % (i, i * i) for i in range(2000))
    outputs["a 10 MB line"] = ("é" + "x" * 98 + "€") * (10_000_000 // 102)
    outputs["a 10 MB line"] = outputs["a 10 MB line"].encode()
    outputs["JSON"] = json.dumps(
        {"items": [{"id": i, "name": f"naïve item {i}", "tags": ["a", "b"]} for i in range(1500)]},
        ensure_ascii=False,
    ).encode()
    outputs["no trailing newline"] = b"\n".join(b"line %d" % i for i in range(3000))
    outputs["only newlines"] = b"\n" * 25_000
    return outputs


def random_texts(count, seed):
    """Random bytes around the budgets: ASCII, newlines, multi-byte
    characters and invalid UTF-8, some short of a budget, some just over."""
    rng = random.Random(seed)
    pieces = [b"a", b"\n", b"\r\n", b" ", "é".encode(), "日".encode(), "🎉".encode(), b"\xff", b"\xc3",
              b"\xe6\x97", b"\xed\xa0\x80", b"\x1b[31m", b"\x00"]
    texts = []
    for _ in range(count):
        length = rng.choice([0, 1, 2, 3, 4, 5, 7, 8, 50, 101, 102, 200, 9_999, 10_001, 20_003])
        data = b""
        while len(data) < length:
            data += rng.choice(pieces)
        texts.append(data)
    return texts


def command(data, budget, extra=()):
    result = cli(["--style=verifiers", f"--max={budget}", *extra], data)
    assert result.returncode == 0, result.stderr
    return result.stdout


def check(reference, data, budget, label):
    text = data.decode("utf-8", errors="replace")
    expected = reference(text, budget)
    assert command(data, budget).decode() == expected, f"{label}, budget {budget}: the command"
    assert toolcap.cap(data, style="verifiers", max=budget).text == expected, f"{label}, {budget}: cap"
    assert toolcap.cap(text, style="verifiers", max=budget).text == expected, f"{label}, {budget}: cap(str)"
    assert compat_truncate(text, budget) == expected, f"{label}, {budget}: compat"


def test_real_outputs_are_verifiers_own(reference, tmp_path):
    outputs = real_outputs(tmp_path)
    for label, data in outputs.items():
        for budget in BUDGETS:
            check(reference, data, budget, label)


def test_random_text_is_verifiers_own(reference):
    for index, data in enumerate(random_texts(120, seed=23)):
        for budget in BUDGETS:
            check(reference, data, budget, f"random text {index} ({data[:40]!r}...)")


def test_the_compat_default_is_verifiers_default(reference):
    text = "".join(f"line {i}: ok\n" for i in range(5000))
    assert compat_truncate(text) == reference(text, 20_000)
    assert compat_truncate(text).startswith("Warning: truncated output (original token count: ")


def test_wrap_mode_without_status_is_verifiers_own(reference, tmp_path):
    data = "".join(f"résultat {i} 🎉\n" for i in range(3000)).encode()
    source = tmp_path / "out.txt"
    source.write_bytes(data)
    for budget in (7, 10_000):
        result = cli(["--style=verifiers", f"--max={budget}", "--no-status", "--", "cat", str(source)])
        assert result.returncode == 0, result.stderr
        assert result.stdout.decode() == reference(data.decode(), budget)
        # The Python wrap mode too.
        run = toolcap.run(["cat", str(source)], style="verifiers", max=budget, status=False)
        assert run.text == reference(data.decode(), budget)


def test_a_spill_is_written_and_the_text_is_unchanged(reference, tmp_path):
    data = b"".join(b"line %d\n" % i for i in range(5000))
    spill = tmp_path / "full.log"
    out = command(data, 101, ["--spill", str(spill)])
    assert out.decode() == reference(data.decode(), 101)
    assert spill.read_bytes() == data
    store = tmp_path / "store"
    out = command(data, 101, ["--spill-dir", str(store)])
    assert out.decode() == reference(data.decode(), 101)
    assert [path.read_bytes() for path in store.rglob("*.log")] == [data]


def test_budgets_under_two_keep_nothing_of_either_side():
    # verifiers' data[-0:] keeps the whole text there, which a ceiling
    # cannot; toolcap keeps nothing and says so (GUIDE.md, "Harnesses").
    for budget in (0, 1):
        assert compat_truncate("abc\ndef", budget) == (
            "Warning: truncated output (original token count: 2)\nTotal output lines: 2\n\n"
            "\n[... 7 bytes truncated ...]\n"
        )
