"""toolcap.integrations.minisweagent against the real mini-swe-agent (the
`minisweagent` extra): its own DefaultAgent, its scripted test model and
its default config's observation template drive ToolcapEnvironment."""

import importlib
import os
import random
import re
import subprocess
import sys
import time

import pytest

from conftest import alive_in_group, environment

PYTEST_FAILING = '''\
import sys

import pytest


@pytest.mark.parametrize("case", range(3000))
def test_case(case):
    assert case not in (1234, 2777), f"case {case} gave the wrong answer"


WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike".split()


def test_progress_bar():
    # A log no fold can shorten (each line different words), then a bar.
    for step in range(2000):
        print(" ".join(WORDS[(step * k + k) % len(WORDS)] for k in range(1, 6)), WORDS[step % 7])
    for done in range(0, 101):
        sys.stdout.write("\\rdownloading [%-50s] %3d%%" % ("#" * (done // 2), done))
    sys.stdout.write("\\n")
    assert False, "the download never finished"
'''


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    """mini-swe-agent's modules, imported with a config directory of the
    test's own (importing it creates one and reads its .env)."""
    config = tmp_path_factory.mktemp("mini-config")
    saved = {name: os.environ.get(name) for name in ("MSWEA_GLOBAL_CONFIG_DIR", "MSWEA_SILENT_STARTUP")}
    os.environ["MSWEA_GLOBAL_CONFIG_DIR"] = str(config)
    os.environ["MSWEA_SILENT_STARTUP"] = "1"
    try:
        try:
            importlib.import_module("minisweagent")
        except ImportError:
            print("SKIPPED: mini-swe-agent is not installed (pip install './python[minisweagent]')", file=sys.stderr)
            pytest.skip("SKIPPED: mini-swe-agent is not installed")
        modules = {
            name: importlib.import_module(f"minisweagent.{name}")
            for name in ("agents.default", "models.test_models", "config", "exceptions")
        }
        modules["integration"] = importlib.import_module("toolcap.integrations.minisweagent")
        yield modules
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def default_config(mini):
    import yaml

    path = os.path.join(os.path.dirname(mini["config"].__file__), "default.yaml")
    with open(path) as file:
        return yaml.safe_load(file)


def test_the_agent_sees_failures_and_verdict_and_submits(mini, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_app.py").write_text(PYTEST_FAILING)
    (project / "fix.patch").write_text("".join(f"+    assert value_{i} == {i}\n" for i in range(400)))
    store = tmp_path / "store"
    config = default_config(mini)
    make_output = mini["models.test_models"].make_output
    pytest_command = f"{sys.executable} -m pytest -v -p no:cacheprovider test_app.py"
    model = mini["models.test_models"].DeterministicModel(
        outputs=[
            make_output("THOUGHT: run the tests", [{"command": pytest_command}]),
            make_output("THOUGHT: done", [{"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat fix.patch"}]),
        ],
        observation_template=config["model"]["observation_template"],
    )
    env = mini["integration"].ToolcapEnvironment(
        cwd=str(project), env=config["environment"]["env"], toolcap={"store": str(store)}
    )
    agent = mini["agents.default"].DefaultAgent(model, env, **config["agent"])
    exit_info = agent.run("make the tests pass")

    observation = agent.messages[3]
    assert observation["role"] == "user"
    content = observation["content"]
    # mini showed it whole: its template cuts at 10,000 characters.
    assert "<output>" in content and "<output_head>" not in content, content[:500]
    assert len(observation["extra"]["raw_output"]) < 10_000
    assert "<returncode>1</returncode>" in content
    # The failures, their messages and the verdict reach the model.
    assert "FAILED test_app.py::test_case[1234]" in content
    assert "FAILED test_app.py::test_case[2777]" in content
    assert "FAILED test_app.py::test_progress_bar" in content
    assert re.search(r"3 failed, 2998 passed", content), content[-800:]
    assert "Warning: truncated output" in content
    # The progress bar is its last frame only.
    assert "downloading [##################################################] 100%" in content
    assert "downloading [#" not in content.replace("downloading [##################################################] 100%", "")
    spill_id = observation["extra"]["spill_id"]
    assert re.fullmatch(r"[0-9a-f]{8}", spill_id)
    assert f"{store}/{spill_id}.log" in content  # the marker names the full output
    import toolcap

    assert "exit 1" in toolcap.summary(spill_id, store=store)

    # The submission: the sentinel line first, the patch whole (mini's own check).
    assert exit_info["exit_status"] == "Submitted"
    assert exit_info["submission"] == (project / "fix.patch").read_text()


def test_timeout_reads_as_mini_reports_it(mini, tmp_path):
    env = mini["integration"].ToolcapEnvironment(cwd=str(tmp_path), timeout=1, toolcap={"store": str(tmp_path / "s")})
    started = time.monotonic()
    output = env.execute({"command": "echo started; sleep 100"})
    assert time.monotonic() - started < 10
    local = mini["integration"].LocalEnvironment(cwd=str(tmp_path), timeout=1)
    expected = local.execute({"command": "echo started; sleep 100"})
    assert {name: output[name] for name in ("output", "returncode", "exception_info")} == {
        name: expected[name] for name in ("output", "returncode", "exception_info")
    }
    assert output["extra"] == {**expected["extra"], "spill_id": None}


def test_same_cwd_env_and_return_codes_as_local(mini, tmp_path):
    command = 'pwd; echo "$TOOLCAP_MINI_TEST"; kill -TERM $$'
    kwargs = {"cwd": str(tmp_path), "env": {"TOOLCAP_MINI_TEST": "from the config"}}
    ours = mini["integration"].ToolcapEnvironment(**kwargs).execute({"command": command})
    theirs = mini["integration"].LocalEnvironment(**kwargs).execute({"command": command})
    assert ours["output"] == theirs["output"] == f"{tmp_path}\nfrom the config\n"
    assert ours["returncode"] == theirs["returncode"] == -15
    failing = mini["integration"].ToolcapEnvironment(**kwargs).execute({"command": "exit 3"})
    assert (failing["output"], failing["returncode"], failing["extra"]) == ("", 3, {"spill_id": None})


NASTY = {
    # issue 21's: kept lines and their gap markers on top of --max.
    "alternating errors": "for i in range(200000): print('error' if i % 2 else 'ok line %d' % i)",
    "one long line": "print('x' * 3_000_000)",
    "CJK": "print('\u4e2d\u6587' * 40000)",
    "many errors": "for i in range(50000): print('error[E%04d]: mismatched types at src/%d.rs' % (i, i))",
    "short": "print('fine')",
}


@pytest.mark.parametrize("name", sorted(NASTY))
def test_mini_never_cuts_again(mini, tmp_path, name):
    env = mini["integration"].ToolcapEnvironment(cwd=str(tmp_path), toolcap={"store": str(tmp_path / "s")})
    output = env.execute({"command": f"{sys.executable} -c \"{NASTY[name]}\""})
    assert output["returncode"] == 0
    assert len(output["output"]) <= mini["integration"].MINI_LIMIT
    if name == "short":
        assert output["output"] == "fine\n"
    else:
        assert output["extra"]["spill_id"] in output["output"]
    if name == "alternating errors":
        # --max is the ceiling of the content, kept lines included: toolcap
        # alone fits, and no re-cut is needed (test_total_is_a_ceiling_in_
        # characters makes one).
        assert "characters left out to fit" not in output["output"]
        assert output["output"].rstrip("\n").endswith("error")


def test_total_is_a_ceiling_in_characters(mini, tmp_path):
    env = mini["integration"].ToolcapEnvironment(
        cwd=str(tmp_path), toolcap={"store": str(tmp_path / "s"), "total": 2000, "max": 1800, "keep_max": 1500}
    )
    output = env.execute({"command": f"{sys.executable} -c \"{NASTY['alternating errors']}\""})
    assert len(output["output"]) <= 2000
    assert output["extra"]["spill_id"] in output["output"]


def test_fit_against_its_contract(mini):
    fit = mini["integration"].fit
    rng = random.Random(23)
    alphabet = ["a", "b", "\n", "\u00e9", "\u4e2d", "\U0001f600", " "]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 400)))
        limit = rng.randrange(0, 300)
        show = rng.choice([None, "toolcap --show 0123abcd"])
        fitted = fit(text, limit, show)
        assert len(fitted) <= max(limit, 0)
        if len(text) <= limit:
            assert fitted == text
            continue
        marker = re.search(r"\[\.\.\. ([\d,]+) of ([\d,]+) characters left out to fit [\d,]+.*\.\.\.\]\n", fitted)
        if marker is None:
            assert fitted == text[:limit]  # no room for a marker
            continue
        head, tail = fitted[: marker.start()], fitted[marker.end() :]
        if not text.startswith(head):
            # The newline added after a head that did not end with one.
            assert head.endswith("\n")
            head = head[:-1]
        left_out = int(marker.group(1).replace(",", ""))
        assert text.startswith(head) and text.endswith(tail)
        assert len(head) + left_out + len(tail) == len(text)
        assert int(marker.group(2).replace(",", "")) == len(text)
        if show:
            assert "full output: toolcap --show 0123abcd" in marker.group(0)


def test_options_from_the_config(mini):
    options, total = mini["integration"]._options({})
    assert total == 9_999
    assert options == {
        "max": 6_999, "clean": True, "keep_errors": True, "profile": "auto", "store": True,
        "redact": True, "status": False, "keep_max": 999,
    }  # fmt: skip
    options, _ = mini["integration"]._options({"chars": 5000, "keep_errors": False, "store": "/x"})
    assert "max" not in options and "keep_max" not in options and options["store"] == "/x"
    with pytest.raises(ValueError, match="'timeout' is set by the environment"):
        mini["integration"]._options({"timeout": 5})
    with pytest.raises(ValueError, match="toolcap total must be a positive"):
        mini["integration"]._options({"total": 0})
    # toolcap's own message, when the environment is made.
    with pytest.raises(ValueError, match="'1.5k'"):
        mini["integration"].ToolcapEnvironment(toolcap={"max": "1.5k"})


def test_extra_is_imported_only_by_its_module():
    """`import toolcap` works without mini-swe-agent: nothing else imports it."""
    code = "import sys, toolcap, toolcap.mcp; assert not any(m.startswith('minisweagent') for m in sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True, env=environment(), timeout=60)


def test_the_readme_config_makes_the_environment(mini, tmp_path):
    import yaml
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "GUIDE.md").read_text()
    section = text[text.index("\n## mini-swe-agent\n") :]
    block = section[section.index("    environment:") :].split("\n\n")[0]
    config = yaml.safe_load("\n".join(line[4:] for line in block.split("\n")))
    config["environment"]["cwd"] = str(tmp_path)
    environments = importlib.import_module("minisweagent.environments")
    env = environments.get_environment(config["environment"])
    assert isinstance(env, mini["integration"].ToolcapEnvironment)
    assert env.toolcap_options["max"] == "8k" and env.toolcap_options["profile"] == "pytest"
    assert env.config.timeout == 60
    assert env.execute({"command": "echo from the readme"})["output"] == "from the readme\n"


@pytest.mark.parametrize("lines", [3, 50, 4000])
def test_the_submission_is_the_output_as_printed(mini, tmp_path, lines):
    # Lines alike but for numbers, which cleaning would fold: a diff.
    patch = "".join(f"+    assert value_{i} == {i}\n" for i in range(lines))
    (tmp_path / "fix.patch").write_text(patch)
    env = mini["integration"].ToolcapEnvironment(cwd=str(tmp_path), toolcap={"store": str(tmp_path / "s")})
    with pytest.raises(mini["exceptions"].Submitted) as submitted:
        env.execute({"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat fix.patch"})
    assert submitted.value.messages[0]["extra"]["submission"] == patch
    # The sentinel with a failing command is no submission, as in mini.
    output = env.execute({"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT; cat fix.patch; exit 1"})
    assert output["returncode"] == 1 and len(output["output"]) <= mini["integration"].MINI_LIMIT


def test_secrets_are_redacted_for_the_model(mini, tmp_path):
    env = mini["integration"].ToolcapEnvironment(cwd=str(tmp_path), toolcap={"store": str(tmp_path / "s")})
    output = env.execute({"command": "echo token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"})
    assert output["output"] == "token=[REDACTED:github-token]\n"
