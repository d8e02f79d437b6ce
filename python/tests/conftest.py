"""What the tests of the Python package share: the command line that the
package must agree with, run hermetically, and the processes of a group.

The reference command is the cargo-built binary when TOOLCAP_BIN names it
(.ci/run does), else the `toolcap` command this package installed.
"""

import atexit
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

TOOLCAP = os.environ.get("TOOLCAP_BIN") or shutil.which(
    "toolcap", path=os.path.dirname(sys.executable)
)
# No test may hang for ever, even when toolcap does.
TIMEOUT = 60


# A home, a configuration and a cache directory of the session's own, empty
# and removed at its end, so that no profiles.toml or store of the user's
# reaches toolcap (or what it runs), in the reference command or in-process.
HOME = tempfile.mkdtemp(prefix="toolcap-pytest-home-")
atexit.register(shutil.rmtree, HOME, ignore_errors=True)
HERMETIC = {
    "HOME": os.path.join(HOME, "home"),
    "XDG_CONFIG_HOME": os.path.join(HOME, "config"),
    "XDG_CACHE_HOME": os.path.join(HOME, "cache"),
}
for _directory in HERMETIC.values():
    os.mkdir(_directory)
# The tools the tests run (cargo, through rustup) find their toolchain
# from HOME unless told where it is: they keep the one this session
# started with, which holds nothing of toolcap's.
for _tool_home, _default in (("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")):
    if _tool_home not in os.environ and "HOME" in os.environ:
        os.environ[_tool_home] = os.path.join(os.environ["HOME"], _default)
# The whole session runs with them; a test that sets its own (a
# profiles.toml of its own, with monkeypatch) sets it for the reference
# command too, since environment() copies this process's environment.
os.environ.update(HERMETIC)


def environment(**changes):
    """This process's environment without the user's TOOLCAP_* settings:
    the session's own HOME, XDG_CONFIG_HOME and XDG_CACHE_HOME, or what the
    test set in their place."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("TOOLCAP_")}
    env.update(changes)
    return env


@pytest.fixture(autouse=True)
def _hermetic(monkeypatch):
    """The package's own calls, in this process, see the same."""
    for name in [name for name in os.environ if name.startswith("TOOLCAP_")]:
        monkeypatch.delenv(name)
    for name, value in HERMETIC.items():
        monkeypatch.setenv(name, value)


def cli(args, data=b"", command=None, env=None):
    """Runs the reference command with `args` on `data`."""
    return subprocess.run(
        [command or TOOLCAP, *args],
        input=data,
        capture_output=True,
        env=env or environment(),
        timeout=TIMEOUT,
    )


def argv(options):
    """The command line's spelling of keyword options, by the rule the
    package page (python/README.md) gives: `_` becomes `-`, True is the bare flag, a list repeats it;
    header=False is --no-header (True is the default), store=True --store, store=DIR --spill-dir,
    status=False --no-status, seconds are whole milliseconds. Values are
    joined to their flag with `=`, so that `-3` is a value, not a flag."""
    args = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is None:
            continue
        if name == "header" and isinstance(value, bool):
            args += [] if value else ["--no-header"]
        elif name == "status":
            args += [] if value else ["--no-status"]
        elif name == "store":
            args.append("--store" if value is True else f"--spill-dir={value}")
        elif value is True:
            args.append(flag)
        elif value is False:
            continue
        elif isinstance(value, (list, tuple)):
            args += [f"{flag}={item}" for item in value]
        elif isinstance(value, float):
            args.append(f"{flag}={round(value * 1000)}ms")
        else:
            args.append(f"{flag}={value}")
    return args


def alive_in_group(group):
    """Processes of process group `group` that are not zombies, from /proc."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, pgrp = fields[0], int(fields[2])
        if pgrp == group and state != "Z":
            alive.append(int(entry))
    return alive


@pytest.fixture(scope="session")
def empty_config(tmp_path_factory):
    return tmp_path_factory.mktemp("config")


@pytest.fixture(autouse=True)
def no_user_profiles(empty_config, monkeypatch):
    """The user's profiles.toml never leaks into a test: an empty config
    directory, for the package and the command line alike."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(empty_config))


@pytest.fixture
def needs_proc():
    if not os.path.isdir("/proc/self"):
        pytest.skip("SKIPPED: needs /proc to see a process group's members")


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """A default store of the test's own: ~/.cache is never touched."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache


def kill_quietly(pid, signal=9):
    try:
        os.kill(pid, signal)
    except ProcessLookupError:
        pass
