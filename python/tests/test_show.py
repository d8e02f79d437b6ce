"""toolcap.show() and toolcap.list_outputs() (issue 24): the capped view of
a stored output and the store's listing, each exactly what the command
line prints for the same words (`--show ID` given a budget, `--list`), and
the command line's one-line messages as ValueError."""

import pytest

import toolcap
from conftest import cli

# 3,000 lines of progress, every 300th a failure.
LOG = b"".join(
    (f"FAILED test_{i}\n" if i % 300 == 0 else f"progress {i}\n").encode() for i in range(1, 3001)
)


@pytest.fixture
def store(tmp_path):
    """A store holding LOG, and two smaller outputs stored after it."""
    store = tmp_path / "store"
    for data in (LOG, b"second\n" * 100, b"third\n" * 100):
        assert cli(["--max", "100", f"--spill-dir={store}"], data).returncode == 0
    return store


def stored_id(store, index=-1):
    """The id of the `index`-th listed output (newest first)."""
    rows = cli([f"--spill-dir={store}", "--list"]).stdout.decode().splitlines()
    return rows[index].split()[0]


@pytest.mark.parametrize(
    "words, keywords",
    [
        (["--grep=FAILED"], {"grep": "FAILED"}),
        (["--grep=FAILED", "--max=120"], {"grep": "FAILED", "max": 120}),
        (["--grep=FAILED", "--lines=250:700", "--context=2"], {"grep": "FAILED", "lines": "250:700", "context": 2}),
        (["--grep=FAILED|^progress 1$", "--context=1", "--max=200"], {"grep": "FAILED|^progress 1$", "context": 1, "max": 200}),
        (["--max=16k"], {"max": "16k"}),
        (["--max=300", "--keep-errors", "--clean"], {"max": 300, "keep_errors": True, "clean": True}),
        (["--lines=10:12", "--max=10k"], {"lines": "10:12"}),
        (["--grep=FAILED", "--tokens=30", "--no-header"], {"grep": "FAILED", "tokens": 30, "header": False}),
    ],
)
def test_show_is_what_the_command_line_prints(store, words, keywords):
    log = stored_id(store)
    expected = cli([f"--spill-dir={store}", f"--show={log[:4]}", *words])
    assert expected.returncode == 0, expected
    result = toolcap.show(log[:4], store=store, **keywords)
    assert result.data == expected.stdout
    assert isinstance(result, toolcap.Result)
    if result.truncated:
        assert result.spill_id == log


def test_a_cut_grep_view_names_the_stored_lines_it_left_out(store):
    log = stored_id(store)
    result = toolcap.show(log, store=store, grep="FAILED", max=120)
    assert result.truncated
    assert "matching lines left out (lines 1200-2400)" in result.text
    assert result.omitted_lines == [1200, 2400]
    assert result.text.splitlines()[3] == "300:FAILED test_300"


def test_no_match_is_an_empty_result_where_the_command_line_exits_1(store):
    log = stored_id(store)
    assert cli([f"--spill-dir={store}", f"--show={log}", "--grep=panicked"]).returncode == 1
    result = toolcap.show(log, store=store, grep="panicked")
    assert (result.text, result.data, result.truncated, result.lines) == ("", b"", False, 0)


@pytest.mark.parametrize(
    "id, keywords",
    [
        ("ffffffff", {}),
        (None, {"lines": "9:3"}),
        (None, {"grep": "(FAILED"}),
        (None, {"context": 2}),
        (None, {"lines": "7"}),
        (None, {"max": "ten"}),
    ],
)
def test_bad_ids_ranges_and_patterns_raise_the_command_lines_message(store, id, keywords):
    id = id or stored_id(store)
    words = [f"--{name}={value}" for name, value in keywords.items()]
    expected = cli([f"--spill-dir={store}", f"--show={id}", *words])
    assert expected.returncode in (1, 2), expected
    message = expected.stderr.decode().removeprefix("toolcap: ").rstrip("\n")
    with pytest.raises(ValueError) as raised:
        toolcap.show(id, store=store, **keywords)
    assert str(raised.value) == message


def test_an_ambiguous_id_is_a_value_error(store):
    # The empty prefix starts every id of a store of three.
    expected = cli([f"--spill-dir={store}", "--show="])
    message = expected.stderr.decode().removeprefix("toolcap: ").rstrip("\n")
    assert "is ambiguous" in message
    with pytest.raises(ValueError) as raised:
        toolcap.show("", store=store)
    assert str(raised.value) == message


def test_show_takes_no_spill_options_and_needs_a_str_id(store):
    for name, value in [("spill", "x"), ("retain", 3), ("retain_size", "1k"), ("profile", "cargo"), ("store_dir", "x")]:
        with pytest.raises(TypeError, match=f"show\\(\\) got an unexpected keyword argument '{name}'"):
            toolcap.show("abcd", store=store, **{name: value})
    with pytest.raises(TypeError, match="id must be a str, not int"):
        toolcap.show(1234, store=store)
    with pytest.raises(ValueError, match="show\\(\\) needs a store"):
        toolcap.show("abcd", store=False)


def test_show_reads_the_default_store(private_cache):
    result = toolcap.cap(LOG, max=100, store=True)
    assert toolcap.show(result.spill_id, grep="test_3000$").text == "3000:FAILED test_3000\n"


def test_list_outputs_is_the_listing_newest_first(store):
    listing = cli([f"--spill-dir={store}", "--list"]).stdout.decode()
    assert len(listing.splitlines()) == 3
    assert toolcap.list_outputs(store=store) == listing
    assert toolcap.list_outputs(2, store=store) == "".join(listing.splitlines(keepends=True)[:2])
    assert toolcap.list_outputs(0, store=store) == ""
    assert toolcap.list_outputs(limit=10, store=store) == listing
    # No store there: nothing, as `--list` prints nothing.
    assert toolcap.list_outputs(store=store / "missing") == ""
    with pytest.raises(ValueError, match="invalid limit -1"):
        toolcap.list_outputs(-1, store=store)
    with pytest.raises(TypeError, match="limit must be an int, not str"):
        toolcap.list_outputs("2", store=store)
