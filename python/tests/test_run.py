"""`toolcap.run`: the command line's wrap mode, in process and without its
process-wide effects: the same output and report, exit statuses, signals,
timeouts that leave nothing of the command's group alive, background
processes that cannot hang it, and Ctrl-C."""

import _thread
import ctypes
import json
import os
import signal
import sys
import threading
import time

import pytest

import toolcap
from conftest import alive_in_group, argv, cli, kill_quietly
from test_cap import DEPLOY_PROFILE, deploy_log

COMMANDS = [
    "seq 2000",
    "printf 'a\\r\\nb'",
    "seq 500; exit 3",
    "printf 'h\\303\\251llo \\377\\n'; seq 300; kill -TERM $$",
    "for i in $(seq 300); do echo out $i; echo err $i >&2; done",
    "true",
    # What --format auto and --profile auto (by the command) look for.
    "printf '['; seq -s, 3000; printf ']\\n'",
    "ls /usr/bin",
]

OPTIONS = [
    {},
    {"max": 100},
    {"max": 100, "status": False},
    {"max": 150, "clean": True, "keep_errors": True},
    {"lines": 10, "header": False},
    {"tokens": 30, "style": "codex"},
    {"tokens": 30, "tokenizer": "o200k", "count_limit": "1k"},
    {"max": 200, "fold": True, "fold_pattern": "^err "},
    {"max": 300, "format": "auto", "pretty": True},
    {"max": 300, "profile": "auto"},
]


def without_duration(report):
    return {field: value for field, value in report.items() if field != "duration_ms"}


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_run_is_the_command_line_byte_for_byte(options):
    for command in COMMANDS:
        expected = cli([*argv(options), "--no-stdin", "-c", command])
        result = toolcap.run(command, **options)
        assert result.data == expected.stdout, command
        assert result.exit_code == expected.returncode, command
        report = json.loads(cli([*argv(options), "--json", "--no-stdin", "-c", command]).stdout)
        assert without_duration(result.report) == without_duration(report), command
        assert result.exit == report["exit"]
        assert result.duration_ms == int(result.duration * 1000)
    words = ["seq", "-f", "%04g", "900"]
    assert toolcap.run(words, **options).data == cli([*argv(options), "--no-stdin", "--", *words]).stdout


def test_a_separate_stderr_is_capped_on_its_own():
    command = "for i in $(seq 300); do echo out $i; echo err $i >&2; done; exit 2"
    options = {"max": 100, "stderr": "separate", "stderr_max": 60}
    expected = cli([*argv(options), "--no-stdin", "-c", command])
    result = toolcap.run(command, **options)
    assert (result.data, result.stderr.data, result.exit_code) == (
        expected.stdout,
        expected.stderr,
        expected.returncode,
    )
    assert result.stderr.truncated and result.stderr.bytes == len("".join(f"err {i}\n" for i in range(1, 301)))
    assert result.stderr.report == result.report["stderr"]
    assert toolcap.run("echo hi").stderr is None


@pytest.mark.parametrize("status", [0, 1, 3, 255])
def test_exit_codes_pass_through(status):
    result = toolcap.run(f"echo ran; exit {status}")
    assert (result.exit_code, result.signal, result.timed_out) == (status, None, False)
    assert result.exit == {"code": status, "signal": None, "timed_out": False}
    assert result.text == ("ran\n" if status == 0 else f"ran\n[exit status: {status}]\n")


@pytest.mark.parametrize("name", ["TERM", "KILL", "SEGV", "INT"])
def test_a_signal_is_128_plus_its_number(name):
    number = getattr(signal, f"SIG{name}")
    result = toolcap.run(["sh", "-c", f"echo before; kill -{name} $$; echo after"])
    assert (result.exit_code, result.signal) == (128 + number, number)
    assert result.text == f"before\n[killed by signal {number} (SIG{name})]\n"
    assert result.exit == {"code": None, "signal": number, "timed_out": False}


def test_a_command_that_cannot_run_is_127_or_126(tmp_path):
    missing = toolcap.run(["/no/such/program", "arg"])
    assert (missing.exit_code, missing.text) == (127, "")
    assert missing.problems == ["cannot run '/no/such/program': No such file or directory (os error 2)"]
    script = tmp_path / "script"
    script.write_text("echo hi\n")
    denied = toolcap.run([script])
    assert denied.exit_code == 126 and "Permission denied" in denied.problems[0]
    assert toolcap.run("no-such-command-here").exit_code == 127


def test_a_timeout_leaves_no_process_of_the_group_alive(needs_proc):
    started = time.monotonic()
    result = toolcap.run("echo $$; sleep 60 & sleep 60 & wait", timeout=0.3, kill_after=1)
    group = int(result.text.split()[0])
    assert (result.exit_code, result.signal, result.timed_out) == (124, signal.SIGTERM, True)
    assert result.text.endswith("[timed out after 300ms]\n")
    assert alive_in_group(group) == []
    assert time.monotonic() - started < 5


def test_a_group_that_ignores_sigterm_is_killed_after_kill_after(needs_proc):
    started = time.monotonic()
    result = toolcap.run("trap '' TERM; echo $$; sleep 60 & sleep 60 & wait", timeout="200ms", kill_after=0.3)
    group = int(result.text.split()[0])
    assert (result.exit_code, result.signal, result.timed_out) == (124, signal.SIGKILL, True)
    assert alive_in_group(group) == []
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("drain, limit", [(0.2, 1.5), (None, 3.5)])
def test_a_background_process_holding_the_pipe_does_not_hang_it(drain, limit):
    started = time.monotonic()
    result = toolcap.run("sleep 60 & echo $!", drain=drain)
    elapsed = time.monotonic() - started
    background = int(result.text)
    try:
        assert result.exit_code == 0
        assert elapsed < limit, elapsed
        # As a shell would, the run leaves it running.
        os.kill(background, 0)
    finally:
        kill_quietly(background)


def interrupt_with_a_signal():
    os.kill(os.getpid(), signal.SIGINT)


@pytest.mark.parametrize("interrupt", [_thread.interrupt_main, interrupt_with_a_signal], ids=["interrupt_main", "SIGINT"])
def test_keyboard_interrupt_kills_the_group_and_is_raised(interrupt, tmp_path, needs_proc):
    pid_file = tmp_path / "pid"
    timer = threading.Timer(0.3, interrupt)
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            toolcap.run(f"echo $$ > {pid_file}; sleep 60 & sleep 60 & wait", timeout=30)
    finally:
        timer.cancel()
    assert time.monotonic() - started < 2
    # The group was sent SIGKILL; a loaded machine may take a moment to
    # schedule each process so that it dies.
    group = int(pid_file.read_text())
    deadline = time.monotonic() + 2
    while alive_in_group(group) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert alive_in_group(group) == []


def test_cancel_set_from_another_thread_kills_the_group(needs_proc):
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    started = time.monotonic()
    timer.start()
    try:
        result = toolcap.run("echo $$; sleep 60 & sleep 60 & wait", cancel=cancel, timeout=30)
    finally:
        timer.cancel()
    assert time.monotonic() - started < 3
    assert (result.exit_code, result.signal, result.timed_out) == (137, signal.SIGKILL, False)
    group = int(result.text.split()[0])
    deadline = time.monotonic() + 2
    while alive_in_group(group) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert alive_in_group(group) == []
    # Unset, it changes nothing.
    assert toolcap.run("echo fine", cancel=threading.Event()).text == "fine\n"


def test_cancel_must_have_is_set_and_its_errors_are_raised():
    with pytest.raises(TypeError, match=r"^cancel must be an object with an is_set\(\) method \(a threading.Event\), not int$"):
        toolcap.run("true", cancel=3)

    class Broken:
        def is_set(self):
            raise LookupError("no flag here")

    started = time.monotonic()
    with pytest.raises(LookupError, match="no flag here"):
        toolcap.run("sleep 60", cancel=Broken())
    assert time.monotonic() - started < 3


def test_input_is_the_commands_stdin():
    data = b"".join(b"input line %d\n" % i for i in range(100_000))
    result = toolcap.run("cat", input=data, max=200)
    assert result.data == toolcap.cap(data, max=200).data
    assert toolcap.run("cat", input="ünï\n").data == "ünï\n".encode()
    assert toolcap.run("wc -c", input=bytearray(b"12345")).text.strip() == "5"
    # A command that reads part of it, or none, or none at all.
    assert toolcap.run("head -c 5", input=data).data == b"input"
    assert toolcap.run("exit 0", input=data).exit_code == 0
    assert toolcap.run("cat").data == b"", "no input: /dev/null"


def test_redact_masks_what_the_command_prints():
    script = "echo 'password=FAKEpw0042'; echo 'origin https://u:FAKEpw0043@example.com/r.git'"
    result = toolcap.run(script, redact=True)
    assert result.data == b"password=[REDACTED:password]\norigin https://[REDACTED:url-credentials]@example.com/r.git\n"
    assert result.redacted == {"password": 1, "url-credentials": 1}
    assert toolcap.run(script).redacted is None


def test_cwd_and_env(tmp_path):
    assert toolcap.run("pwd", cwd=tmp_path).text == f"{tmp_path}\n"
    assert toolcap.run(["pwd"], cwd=str(tmp_path).encode()).text == f"{tmp_path}\n"
    assert toolcap.run(["/usr/bin/env"], env={"ONLY": "this"}).text == "ONLY=this\n"
    assert toolcap.run(["/usr/bin/env"], env={b"RAW": b"\xff"}).data == b"RAW=\xff\n"
    plain = toolcap.run("echo $NO_COLOR $TERM ${FORCE_COLOR-unset}", env={"FORCE_COLOR": "1", "PATH": os.environ["PATH"]}, plain_env=True)
    assert plain.text == "1 dumb unset\n"
    with pytest.raises(FileNotFoundError, match="cannot run the command in"):
        toolcap.run("true", cwd=tmp_path / "missing")
    (tmp_path / "file").write_text("")
    with pytest.raises(NotADirectoryError):
        toolcap.run("true", cwd=tmp_path / "file")


def test_profile_auto_is_chosen_by_the_command(tmp_path, monkeypatch):
    config = tmp_path / "config"
    (config / "toolcap").mkdir(parents=True)
    (config / "toolcap" / "profiles.toml").write_text(DEPLOY_PROFILE)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    log = tmp_path / "log"
    log.write_bytes(deploy_log())
    deploy = tmp_path / "deploy"
    deploy.write_text(f"#!/bin/sh\ncat {log}\n")
    deploy.chmod(0o755)
    for cmd in ([str(deploy)], f"cd {tmp_path} && ./deploy --now"):
        words = ["--", *cmd] if isinstance(cmd, list) else ["-c", cmd]
        expected = cli(["--profile", "auto", "--no-stdin", *words])
        result = toolcap.run(cmd, profile="auto")
        assert result.data == expected.stdout, cmd
        assert result.profile == "deploy" and b"FAILED step 200" in result.data
    # By the command, not by what it prints: cat is no deploy.
    assert toolcap.run(["cat", str(log)], profile="auto").profile is None


def test_the_store_records_the_command_and_its_exit(tmp_path):
    store = tmp_path / "store"
    result = toolcap.run("seq 3000; exit 4", max=100, store=store)
    assert result.spill_id and (store / f"{result.spill_id}.log").exists()
    line = toolcap.summary(result.spill_id, store=store)
    assert line.startswith(f"[output {result.spill_id}: 13,893 bytes, 3,000 lines, exit 4, seq 3000; exit 4;")
    assert line == cli(["--summary", result.spill_id, "--spill-dir", str(store)]).stdout.decode().rstrip("\n")


def test_bad_options_and_commands_are_refused():
    with pytest.raises(ValueError, match="^--kill-after needs --timeout$"):
        toolcap.run("true", kill_after=1)
    with pytest.raises(ValueError, match="^invalid value '-1' for '--timeout <DURATION>'"):
        toolcap.run("true", timeout=-1)
    with pytest.raises(ValueError, match="^invalid value 'soon' for '--timeout <DURATION>'"):
        toolcap.run("true", timeout="soon")
    with pytest.raises(ValueError, match="no program after '--'"):
        toolcap.run([])
    with pytest.raises(TypeError, match="cmd must be a str or a sequence"):
        toolcap.run(b"true")
    with pytest.raises(TypeError, match="run\\(\\) got an unexpected keyword argument 'shell'"):
        toolcap.run("true", shell=True)
    assert toolcap.run("sleep 0.05", timeout="1s").timed_out is False


def test_the_process_wide_state_is_left_alone():
    handlers = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGHUP)}
    background = toolcap.run("sleep 60 & echo $!; exit 1", timeout=5, drain=0.05)
    kill_quietly(int(background.text.split()[0]))
    toolcap.run("exec sleep 1", timeout=0.05)
    assert handlers == {number: signal.getsignal(number) for number in handlers}
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        flag = ctypes.c_int(-1)
        pr_get_child_subreaper = 37
        assert libc.prctl(pr_get_child_subreaper, ctypes.byref(flag), 0, 0, 0) == 0
        assert flag.value == 0, "run() made this process a subreaper"


def test_threads_wait_on_commands_in_parallel():
    """The GIL is released while waiting: four one-second commands on four
    threads take about a second, whatever the machine is doing."""
    results = []
    threads = [threading.Thread(target=lambda: results.append(toolcap.run("sleep 1; echo done"))) for _ in range(4)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert time.monotonic() - started < 3
    assert [result.text for result in results] == ["done\n"] * 4


def test_a_separate_stderr_is_a_stream_result_without_the_runs_fields():
    result = toolcap.run("echo out; echo err >&2", stderr="separate")
    stderr = result.stderr
    assert type(stderr) is toolcap.StreamResult and not isinstance(stderr, toolcap.Result)
    assert isinstance(result, toolcap.Result) and isinstance(result, toolcap.StreamResult)
    assert repr(stderr) == "StreamResult(truncated=False, bytes=4, lines=1, tokens=1)"
    assert (stderr.text, stderr.data, stderr.truncated) == ("err\n", b"err\n", False)
    for field in ("problems", "tokenizer", "profile", "interrupted_by"):
        assert field in result.report and field not in stderr.report
        with pytest.raises(AttributeError, match=f"^'StreamResult' object has no attribute '{field}'$"):
            getattr(stderr, field)
    # The error names the class it is raised for, as Python's own does.
    with pytest.raises(AttributeError, match="^'RunResult' object has no attribute 'nope'$"):
        result.nope
    with pytest.raises(AttributeError, match="^'Result' object has no attribute 'nope'$"):
        toolcap.cap(b"x").nope


@pytest.mark.parametrize(
    "call, named",
    [
        (lambda: toolcap.run("echo a\0b"), "cmd"),
        (lambda: toolcap.run(["echo", "a\0b"]), "cmd[1]"),
        (lambda: toolcap.run([b"ec\0ho", "hi"]), "cmd[0]"),
        (lambda: toolcap.run("true", env={"A\0B": "x"}), "env key 'A\\x00B'"),
        (lambda: toolcap.run("true", env={b"A": b"x\0"}), "env[b'A']"),
        (lambda: toolcap.run("true", cwd="/tmp\0x"), "cwd"),
        (lambda: toolcap.run("true", spill="/tmp/spill\0x"), "spill"),
        (lambda: toolcap.cap("x", store=b"/tmp/store\0x"), "store"),
        (lambda: toolcap.summary("0", store="/tmp/store\0x"), "store"),
    ],
    ids=lambda value: value if isinstance(value, str) else "call",
)
def test_a_nul_byte_in_what_the_os_is_given_is_a_value_error_naming_it(call, named):
    """As subprocess and open() refuse it: the command is not started (before,
    exit code 126 and "cannot run '/bin/sh': nul byte found")."""
    with pytest.raises(ValueError) as raised:
        call()
    assert str(raised.value) == f"embedded null byte in {named}"


def test_an_equals_sign_in_an_env_name_is_refused_as_subprocess_refuses_it():
    with pytest.raises(ValueError, match="^illegal environment variable name in env: 'A=B'$"):
        toolcap.run("env", env={"A=B": "x"})


@pytest.mark.parametrize("name", ["timeout", "kill_after", "drain"])
@pytest.mark.parametrize(
    "seconds",
    [10**400, -(10**400), 2**64, 1e300, float("inf"), float("nan"), -0.5],
    ids=["10**400", "-10**400", "2**64", "1e300", "inf", "nan", "-0.5"],
)
def test_a_duration_out_of_range_is_the_command_lines_value_error(name, seconds):
    options = {"timeout": 5, name: seconds}
    with pytest.raises(ValueError, match=f"^invalid value '.*' for '--{name.replace('_', '-')} <DURATION>'"):
        toolcap.run("true", **options)


def test_durations_in_range_mean_what_the_command_line_says():
    assert toolcap.run("true", timeout=(2**64 - 1) // 1000).exit_code == 0
    assert toolcap.run("true", timeout=1e15, drain=0).exit_code == 0
    expected = cli(["--timeout", "100ms", "--no-stdin", "--", "sleep", "5"])
    for timeout in (0.1, 0.0999, "100ms"):
        result = toolcap.run(["sleep", "5"], timeout=timeout)
        assert (result.data, result.exit_code) == (expected.stdout, expected.returncode), timeout


def test_extra_env_is_merged_over_the_environment(monkeypatch):
    # env keeps subprocess's meaning, the whole environment; extra_env adds
    # to this process's environment, or to env when both are given.
    monkeypatch.setenv("TOOLCAP_TEST_INHERITED", "kept")
    monkeypatch.setenv("TOOLCAP_TEST_REPLACED", "old")
    merged = toolcap.run(
        "echo $TOOLCAP_TEST_INHERITED $TOOLCAP_TEST_REPLACED $TOOLCAP_TEST_ADDED",
        extra_env={"TOOLCAP_TEST_REPLACED": "new", "TOOLCAP_TEST_ADDED": "added"},
    )
    assert merged.text == "kept new added\n"
    whole = toolcap.run(["/usr/bin/env"], env={"ONLY": "this"}, extra_env={b"MORE": b"\xff"})
    assert sorted(whole.data.splitlines()) == [b"MORE=\xff", b"ONLY=this"]
    over = toolcap.run(["/usr/bin/env"], env={"A": "1", "B": "2"}, extra_env={"A": "3"})
    assert sorted(over.text.splitlines()) == ["A=3", "B=2"]
    with pytest.raises(ValueError, match="^illegal environment variable name in extra_env: 'A=B'$"):
        toolcap.run("env", extra_env={"A=B": "x"})
    with pytest.raises(TypeError, match="extra_env"):
        toolcap.run("env", extra_env=["A"])
