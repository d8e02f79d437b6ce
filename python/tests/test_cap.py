"""`toolcap.cap` is the command line, in process: byte for byte the same
output and the same report, over generated inputs and every option the
Python API exposes, and the command line's messages for bad options."""

import json
import re

import pytest

import toolcap
from conftest import argv, cli, environment

BUDGET = 100


def inputs():
    """Inputs the cut rules treat differently, by name."""
    ascii_lines = b"".join(b"line %d of the log\n" % i for i in range(400))
    multibyte = "".join(f"héllo wörld 日本語 🎉 {i}\n" for i in range(300)).encode()
    invalid = b"".join(b"ok %d \xff\xfe bad \xc3 cut \xe6\x97\n" % i for i in range(300))
    crlf = b"".join(b"row %d\r\n" % i for i in range(400))
    giant_line = b"x" * 60_000
    colour_and_progress = b"".join(
        b"\x1b[32mbuild %d\x1b[0m\r[%-20s]\r[done]\nsame line\nsame line\nsame line\n"
        % (i, b"#" * (i % 20))
        for i in range(200)
    )
    errors = b"".join(
        (b"error: case %d failed\n" if i % 37 == 0 else b"test case %d ... ok\n") % i
        for i in range(500)
    )
    binary = b"\x00\x01\x02" + bytes(range(256)) * 40
    # What --format and --profile auto look for.
    document = json.dumps(
        {"items": [{"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(200)], "total": 200}
    ).encode()
    pretty_document = json.dumps(json.loads(document), indent=2).encode()
    diff = b"".join(
        b"diff --git a/src/f%d.rs b/src/f%d.rs\n--- a/src/f%d.rs\n+++ b/src/f%d.rs\n"
        b"@@ -1,3 +1,3 @@\n context\n-old %d\n+new %d\n" % ((i,) * 6)
        for i in range(60)
    )
    csv = b"id,name,note\r\n" + b"".join(
        b'%d,row %d,"a note\nwith a newline, and a comma"\r\n' % (i, i) for i in range(300)
    )
    pytest_session = (
        b"============================= test session starts ==============================\n"
        b"platform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.7.0\n"
        + b"".join(b"tests/test_a.py::test_%d PASSED [ %d%%]\n" % (i, i // 3) for i in range(300))
        + b"FAILED tests/test_a.py::test_77 - assert 1 == 2\n"
        + b"========================= 1 failed, 299 passed in 1.91s =========================\n"
    )
    cargo_build = b"".join(b"   Compiling crate%d v0.%d.0\n" % (i, i) for i in range(200)) + (
        b"error[E0425]: cannot find value `x` in this scope\n --> src/main.rs:2:5\n"
        b"error: could not compile `demo` (bin \"demo\") due to 1 previous error\n"
    )
    # Fake credentials of the right shape.
    secrets = b"".join(
        b"step %d\nGITHUB_TOKEN=ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfake%04d\n"
        b"> Authorization: Bearer FAKEbearer%04dtoken\n"
        b"-----BEGIN PRIVATE KEY-----\nMIIFAKE%04d\n-----END PRIVATE KEY-----\n" % (i, i, i, i)
        for i in range(60)
    )
    return {
        "secrets": secrets,
        "ascii": ascii_lines,
        "multibyte": multibyte,
        "invalid utf-8": invalid,
        "crlf": crlf,
        "one giant line": giant_line,
        "empty": b"",
        "at the cap": ascii_lines[:BUDGET],
        "one over the cap": ascii_lines[:BUDGET + 1],
        "multibyte at the cap": multibyte[:BUDGET],
        "colour and progress": colour_and_progress,
        "errors": errors,
        "binary": binary,
        "json document": document,
        "pretty json document": pretty_document,
        "git diff": diff,
        "csv": csv,
        "pytest session": pytest_session,
        "cargo build": cargo_build,
    }


INPUTS = inputs()

# Every option of the Python API, alone and in the combinations that
# change each other's meaning.
OPTIONS = [
    {},
    {"max": BUDGET},
    {"max": "1k"},
    {"max": "1Ki", "head": 100},
    {"max": BUDGET, "head": "30%"},
    {"max": BUDGET, "tail": 20},
    {"head": 10, "tail": 200},
    {"max": 0},
    {"lines": 6},
    {"lines": 7, "max": "2k"},
    {"tokens": 25},
    {"tokens": 25, "head": 10},
    {"chars": 40},
    {"chars": 40, "tail": "75%"},
    {"max": BUDGET, "cut": "bytes"},
    {"max": BUDGET, "cut": "lines"},
    {"max": BUDGET, "header": False},
    {"max": BUDGET, "header": True},
    {"max": BUDGET, "header": "{bytes:,} bytes, {lines} lines, {omitted_chars} chars cut"},
    {"max": BUDGET, "header": ""},
    {"max": BUDGET, "marker": "<{omitted_bytes} bytes, lines {first_omitted_line}-{last_omitted_line}>"},
    {"max": BUDGET, "style": "codex"},
    {"tokens": 25, "style": "codex"},
    {"max": BUDGET, "style": "toolcap"},
    {"max": 200, "clean": True},
    {"max": 200, "strip_ansi": True},
    {"max": 200, "collapse_cr": True},
    {"max": 200, "squeeze": True},
    {"max": 200, "utf8": True},
    {"max": 200, "binary": "summary"},
    {"max": 200, "clean": True, "binary": "text"},
    {"max": 300, "max_line": 12},
    {"max": BUDGET, "keep": "error"},
    {"max": BUDGET, "keep": ["error", "line 2[0-9]{2} "], "keep_context": 1},
    {"max": BUDGET, "keep_errors": True, "keep_max": 60},
    {"max": BUDGET, "clean": True, "keep_errors": True, "lines": 10},
    {"tokens": 25, "tokenizer": "o200k"},
    {"tokens": 25, "tokenizer": "cl100k", "head": 5},
    {"max": BUDGET, "tokenizer": "o200k", "count_limit": 1000},
    {"max": BUDGET, "tokenizer": "approx"},
    {"max": 300, "fold": True},
    {"max": 300, "fold": True, "fold_pattern": "^tests/"},
    {"max": 300, "clean": True, "fold_pattern": ["^ +Compiling ", "^row "]},
    {"max": 200, "redact": True},
    {"max": 300, "clean": True, "redact": True, "keep_errors": True},
    {"max": 300, "redact_pattern": ["line 2[0-9]{2}", "step (?P<secret>[0-9]+)"]},
    {"max": 300, "format": "json"},
    {"max": 300, "format": "json", "pretty": True},
    {"max": 300, "format": "auto", "json_limit": 5000},
    {"max": 300, "format": "diff"},
    {"max": 300, "format": "csv"},
    {"max": 300, "format": "auto"},
    {"max": 300, "format": "text"},
    {"max": 300, "profile": "auto"},
    {"max": 300, "profile": "pytest"},
    {"max": 300, "profile": "cargo", "keep": "^row 1"},
    {"max": 300, "profile": "none", "clean": True},
]


def name(options):
    return ",".join(f"{key}={value}" for key, value in options.items()) or "defaults"


@pytest.mark.parametrize("options", OPTIONS, ids=name)
def test_cap_is_the_command_line_byte_for_byte(options):
    for label, data in INPUTS.items():
        expected = cli(argv(options), data)
        assert expected.returncode == 0, (label, expected.stderr)
        result = toolcap.cap(data, **options)
        assert result.data == expected.stdout, label
        report = json.loads(cli([*argv(options), "--json"], data).stdout)
        assert result.report == report, label
        assert result.text == report["output"] == expected.stdout.decode(errors="replace")
        for field, value in report.items():
            assert getattr(result, field) == value, (label, field)


@pytest.mark.parametrize("label", ["ascii", "multibyte", "crlf", "empty", "one over the cap"])
def test_a_str_is_capped_as_its_utf8_bytes(label):
    data = INPUTS[label]
    text = data.decode()
    for options in ({"max": BUDGET}, {"chars": 30}, {"max": BUDGET, "style": "codex"}):
        assert toolcap.cap(text, **options).data == toolcap.cap(data, **options).data
    # Longer than a piece of the str (64 Ki code points), with multi-byte
    # characters across every piece boundary.
    long_text = "日本語🎉é" * 100_000
    assert toolcap.cap(long_text).data == toolcap.cap(long_text.encode()).data
    assert toolcap.cap(bytearray(data)).data == toolcap.cap(memoryview(data)).data == toolcap.cap(data).data


def test_redact_masks_secrets_and_counts_them():
    data = INPUTS["secrets"]
    result = toolcap.cap(data, max=400, redact=True)
    assert result.redacted == {"bearer-token": 60, "github-token": 60, "private-key": 60}
    assert b"FAKE" not in result.data
    assert "GITHUB_TOKEN=[REDACTED:github-token]\n" in result.text
    assert toolcap.cap(data, max=400).redacted is None
    assert toolcap.cap(b"nothing here\n", redact=True).redacted == {}
    custom = toolcap.cap(b"id corp-42\n", redact_pattern="corp-[0-9]+")
    assert (custom.data, custom.redacted) == (b"id [REDACTED:custom]\n", {"custom": 1})
    capper = toolcap.Capper(max=400, redact=True)
    for start in range(0, len(data), 7):
        capper.push(data[start:start + 7])
    assert capper.finish().data == result.data


def test_a_str_with_a_lone_surrogate_is_refused_as_python_refuses_it():
    with pytest.raises(UnicodeEncodeError):
        toolcap.cap("ok \udcff not")


def test_results_say_what_was_cut():
    log = "".join(f"line {i}\n" for i in range(1, 1001))
    result = toolcap.cap(log, max=60)
    assert result.truncated
    assert (result.bytes, result.lines, result.tokens) == (len(log), 1000, -(-len(log) // 4))
    assert result.omitted_lines == [5, 997]
    assert result.text.endswith("line 998\nline 999\nline 1000\n")
    assert repr(result) == f"Result(truncated=True, bytes={len(log)}, lines=1000, tokens={-(-len(log) // 4)})"
    assert {"truncated", "omitted_bytes", "data", "text", "report"} <= set(dir(result))
    untouched = toolcap.cap("short\n")
    assert (untouched.data, untouched.truncated, untouched.omitted_lines) == (b"short\n", False, None)
    with pytest.raises(AttributeError):
        untouched.no_such_field


BAD_OPTIONS = [
    {"max": "1.5k"},
    {"max": -3},
    {"max": 18446744073709551616},
    {"head": "200%"},
    {"max": 100, "head": 200},
    {"max": 100, "head": 60, "tail": 50},
    {"max": 100, "tokens": 10},
    {"tokens": 10, "head": 1, "tail": 1},
    {"cut": "middle"},
    {"style": "fancy"},
    {"style": "codex", "cut": "bytes"},
    {"binary": "maybe"},
    {"keep": "("},
    {"keep_context": 2},
    {"header": "{nope}"},
    {"lines": "ten"},
    {"tokenizer": "gpt2"},
    {"count_limit": "lots"},
    {"tokens": 10, "tokenizer": "o200k", "format": "json"},
    {"fold_pattern": "x"},
    {"fold": True, "fold_pattern": "("},
    {"redact_pattern": "("},
    {"format": "yaml"},
    {"format": "json", "keep": "x"},
    {"format": "diff", "style": "codex"},
    {"pretty": True},
    {"json_limit": 100},
    {"profile": "nosuch"},
]


@pytest.mark.parametrize("options", BAD_OPTIONS, ids=name)
def test_bad_options_raise_value_error_with_the_command_lines_message(options):
    refused = cli(argv(options), b"x")
    assert refused.returncode == 2
    message = refused.stderr.decode()
    assert message.startswith("toolcap: ") and message.count("\n") == 1
    with pytest.raises(ValueError) as raised:
        toolcap.cap(b"x", **options)
    assert str(raised.value) == message[len("toolcap: "):-1]
    with pytest.raises(ValueError) as raised:
        toolcap.Capper(**options)
    assert str(raised.value) == message[len("toolcap: "):-1]


@pytest.mark.parametrize(
    "options, complaint",
    [
        ({"max": 1.5}, "max must be an int or a str, not float"),
        ({"max": True}, "max must be an int or a str, not bool"),
        ({"clean": "yes"}, "clean must be a bool, not str"),
        ({"keep": 3}, "keep must be a str or a sequence of str, not int"),
        ({"keep": ["ok", 3]}, "keep must be a str or a sequence of str, not int"),
        ({"header": 0}, "header must be a bool or a template str, not int"),
        ({"colour": True}, "cap() got an unexpected keyword argument 'colour'"),
        ({"timeout": 3}, "cap() got an unexpected keyword argument 'timeout'"),
    ],
)
def test_values_of_the_wrong_type_raise_type_error(options, complaint):
    with pytest.raises(TypeError, match=re.escape(complaint)):
        toolcap.cap(b"x", **options)


def test_data_of_the_wrong_type_raises_type_error():
    with pytest.raises(TypeError, match="data must be str or bytes"):
        toolcap.cap(42)


def test_the_environment_is_not_read(monkeypatch, tmp_path):
    monkeypatch.setenv("TOOLCAP_MAX", "10")
    monkeypatch.setenv("TOOLCAP_SPILL_DIR", str(tmp_path / "store"))
    data = INPUTS["ascii"]
    result = toolcap.cap(data)
    assert result.data == cli([], data).stdout
    assert result.spill is None
    assert not (tmp_path / "store").exists()


def test_spill_file_is_the_command_lines(tmp_path):
    data = INPUTS["multibyte"]
    spill = tmp_path / "full.log"
    expected = cli(["--max", str(BUDGET), "--spill", str(spill)], data)
    assert spill.read_bytes() == data
    spill.unlink()
    result = toolcap.cap(data, max=BUDGET, spill=spill)
    assert result.data == expected.stdout
    assert result.spill == str(spill)
    assert spill.read_bytes() == data
    assert toolcap.cap(data, max=BUDGET, spill=str(spill).encode()).data == expected.stdout


def test_a_spill_that_fails_is_reported_not_raised(tmp_path):
    data = INPUTS["ascii"]
    spill = tmp_path / "missing" / "full.log"
    expected = cli(["--max", str(BUDGET), "--spill", str(spill)], data)
    assert expected.returncode == 1
    result = toolcap.cap(data, max=BUDGET, spill=spill)
    assert result.data == expected.stdout
    assert "full output not saved" in result.text
    assert result.spill is None and "missing" in result.spill_error
    assert result.problems == [expected.stderr.decode()[len("toolcap: "):-1]]


def test_store_keeps_cut_outputs_and_summarises_them(tmp_path, private_cache):
    data = INPUTS["errors"]
    store = tmp_path / "store"
    expected = cli(["--max", str(BUDGET), "--spill-dir", str(store)], data)
    command_line_id = re.search(rb"full output in .*/(\w+)\.log", expected.stdout).group(1).decode()
    result = toolcap.cap(data, max=BUDGET, store=store)
    assert result.spill_id and result.spill_id != command_line_id
    assert result.data.replace(result.spill_id.encode(), b"ID") == expected.stdout.replace(
        command_line_id.encode(), b"ID"
    )
    assert (store / f"{result.spill_id}.log").read_bytes() == data
    line = cli(["--summary", result.spill_id[:5], "--spill-dir", str(store)]).stdout.decode()
    assert toolcap.summary(result.spill_id[:5], store=store) == line.rstrip("\n")
    assert line.startswith(f"[output {result.spill_id}: 10,") and "--spill-dir" in line
    # Output that fits leaves nothing in the store.
    fits = toolcap.cap(b"short\n", store=store)
    assert (fits.spill_id, fits.spill) == (None, None)
    assert len(list(store.glob("*.log"))) == 2
    # The default store, which the test moved into its own directory.
    default = toolcap.cap(data, max=BUDGET, store=True)
    assert (private_cache / "toolcap" / "spill" / f"{default.spill_id}.log").read_bytes() == data
    assert toolcap.summary(default.spill_id).endswith(f"full output: toolcap --show {default.spill_id}]")
    with pytest.raises(ValueError, match="no output 'ffffffffff'"):
        toolcap.summary("ffffffffff")


def test_a_store_others_can_write_is_refused_as_the_command_line_refuses_it(tmp_path):
    store = tmp_path / "shared"
    store.mkdir(mode=0o777)
    store.chmod(0o777)
    expected = cli(["--max", "10", "--spill-dir", str(store)], INPUTS["ascii"])
    result = toolcap.cap(INPUTS["ascii"], max=10, store=store)
    assert result.data == expected.stdout
    assert result.problems == [expected.stderr.decode()[len("toolcap: "):-1]]
    assert "refusing" in result.spill_error


DEPLOY_PROFILE = """\
[profiles.deploy]
match = ["deploy"]
detect = ['^Deploying ']
args = ["--max", "300", "--keep", "^FAILED "]

[profiles.quiet]
detect = ['^QUIET$']
args = ["--no-header", "--max", "50"]
"""


def deploy_log():
    steps = [b"step %d ok\n" % i for i in range(400)]
    steps[200] = b"FAILED step 200: disk full\n"
    return b"Deploying v2 to prod\n" + b"".join(steps)


def test_the_users_profiles_apply_as_on_the_command_line(tmp_path, monkeypatch):
    config = tmp_path / "config"
    (config / "toolcap").mkdir(parents=True)
    (config / "toolcap" / "profiles.toml").write_text(DEPLOY_PROFILE)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    data = deploy_log()
    for options in ({"profile": "auto"}, {"profile": "deploy"}, {"profile": "deploy", "max": 600}):
        expected = cli(argv(options), data)
        result = toolcap.cap(data, **options)
        assert result.data == expected.stdout, options
        assert b"FAILED step 200" in result.data
        assert result.profile == "deploy"
        capper = toolcap.Capper(**options)
        for start in range(0, len(data), 1000):
            capper.push(data[start:start + 1000])
        assert capper.finish().report == result.report
    quiet = b"QUIET\n" + b"line\n" * 400
    expected = cli(["--profile", "auto"], quiet).stdout
    assert toolcap.cap(quiet, profile="auto").data == expected
    assert expected.startswith(b"QUIET\nline\n")
    # Not detected past the first 4 KiB.
    late = b"x\n" * 2048 + data
    assert toolcap.cap(late, profile="auto").profile is None


def test_a_broken_profiles_file_is_the_command_lines_error(tmp_path, monkeypatch):
    config = tmp_path / "config"
    (config / "toolcap").mkdir(parents=True)
    (config / "toolcap" / "profiles.toml").write_text("[profiles.deploy]\nargs = 3\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    refused = cli(["--profile", "auto"], b"x")
    assert refused.returncode == 2
    with pytest.raises(ValueError) as raised:
        toolcap.cap(b"x", profile="auto")
    assert str(raised.value) == refused.stderr.decode()[len("toolcap: "):-1]
    # Only asked for profiles read the file.
    assert toolcap.cap(b"x").data == b"x"


def test_retention_of_the_store_is_the_command_lines(tmp_path):
    data = INPUTS["errors"]
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for _ in range(4):
        cli(["--max", str(BUDGET), "--spill-dir", str(theirs), "--retain", "2"], data)
        toolcap.cap(data, max=BUDGET, store=ours, retain=2)
    assert len(list(ours.glob("*.log"))) == len(list(theirs.glob("*.log"))) == 2
    # 3 outputs of 10,418 bytes do not fit in 25k: the oldest goes.
    toolcap.cap(data, max=BUDGET, store=ours, retain_size="25k")
    assert len(list(ours.glob("*.log"))) == 2
    with pytest.raises(ValueError, match="need a store"):
        toolcap.cap(data, retain=2)


def test_a_refused_str_leaves_the_spill_file_as_it_was(tmp_path):
    """Data is judged before the spill file is opened: a long str with a
    lone surrogate (or data of the wrong type) neither truncates nor writes
    it, nor creates one."""
    spill = tmp_path / "spill.log"
    spill.write_bytes(b"earlier\n")
    fresh = tmp_path / "fresh.log"
    text = "x" * 70_000 + "\udcff"
    for data, error in ((text, UnicodeEncodeError), (42, TypeError)):
        for path in (spill, fresh):
            with pytest.raises(error) as raised:
                toolcap.cap(data, spill=path, max=100)
            if error is UnicodeEncodeError:
                assert (raised.value.object, raised.value.start) == (text, 70_000)
    assert spill.read_bytes() == b"earlier\n"
    assert not fresh.exists()


def test_a_budget_from_the_context_window():
    # window // (2 * recent) tokens of 4 bytes, between 1,000 bytes and the
    # ceiling: the same text as that budget given as max.
    text = "".join(f"line {i}\n" for i in range(50_000))
    assert toolcap.cap(text, window=200_000).text == toolcap.cap(text, max=100_000).text
    assert toolcap.cap(text, window="200k", recent=2).text == toolcap.cap(text, max=200_000).text
    assert toolcap.cap(text, window=2_000).text == toolcap.cap(text, max=1_000).text
    assert toolcap.cap(text, window=200_000, window_ceiling="10k").text == toolcap.cap(text, max=10_000).text
    with pytest.raises(ValueError, match="--recent needs --window"):
        toolcap.cap(text, recent=2)
