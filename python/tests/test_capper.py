"""`toolcap.Capper`: any chunking of a stream gives what `cap` gives for the
whole; memory stays bounded by the budget; capping releases the GIL, so
threads cap in parallel."""

import hashlib
import os
import random
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import toolcap
from test_cap import INPUTS

OPTIONS = [
    {},
    {"max": 100},
    {"max": 100, "cut": "bytes"},
    {"lines": 9},
    {"chars": 33},
    {"tokens": 20, "style": "codex"},
    {"max": 150, "clean": True},
    {"max": 100, "keep_errors": True, "keep_context": 1},
    {"max": 300, "max_line": 15, "header": False},
    {"tokens": 25, "tokenizer": "o200k"},
    {"max": 300, "fold": True},
    {"max": 300, "format": "auto"},
    {"max": 300, "format": "csv"},
    # The first 4 KiB choose, however they arrive.
    {"max": 300, "profile": "auto"},
]


def chunked(data, rng):
    """`data` cut at random places, with empty and one-byte chunks among them."""
    chunks, start = [], 0
    while start < len(data):
        size = rng.choice([0, 1, 1, 2, 3, 7, 64, 1000, rng.randrange(1, len(data) + 1)])
        chunks.append(data[start:start + size])
        start += size
    return chunks


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "defaults")
def test_any_chunking_gives_what_cap_gives(options):
    rng = random.Random(11)
    for label, data in INPUTS.items():
        whole = toolcap.cap(data, **options)
        for _ in range(8):
            capper = toolcap.Capper(**options)
            for chunk in chunked(data, rng):
                capper.push(chunk)
            result = capper.finish()
            assert (result.data, result.report) == (whole.data, whole.report), label


def test_str_chunks_are_pushed_as_utf8():
    text = "".join(f"ünïcödé {i} 🎉\n" for i in range(2000))
    capper = toolcap.Capper(max=200)
    for start in range(0, len(text), 777):
        capper.push(text[start:start + 777])
    assert capper.finish().data == toolcap.cap(text.encode(), max=200).data


def test_a_finished_capper_takes_nothing_more():
    capper = toolcap.Capper()
    capper.push(b"abc")
    assert capper.finish().data == b"abc"
    with pytest.raises(ValueError, match=r"push\(\) after finish\(\)"):
        capper.push(b"more")
    with pytest.raises(ValueError, match="already called"):
        capper.finish()


PEAK_RSS_PRELUDE = textwrap.dedent(
    """
    import toolcap

    def kib(field):
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])

    def reset_peak():
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
    """
)


def run_measuring_rss(body):
    """Runs `body` in a fresh interpreter, with `kib(field)` (a field of
    /proc/self/status, in KiB) and `reset_peak()` (VmHWM back to VmRSS)
    defined; returns what it printed."""
    if not os.path.exists("/proc/self/clear_refs"):
        pytest.skip("SKIPPED: needs /proc/self/clear_refs to reset the peak RSS")
    script = PEAK_RSS_PRELUDE + textwrap.dedent(body)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_a_gigabyte_through_a_capper_grows_rss_by_a_few_mib():
    """A fresh interpreter pushes 1 GiB in 1 MiB chunks through a capper
    with a 1 MiB budget. VmHWM (the peak) is reset after a warm-up that
    fills the head and the tail, then read before and after `finish`."""
    started = time.monotonic()
    grown = run_measuring_rss(
        """
        line = b"2026-11-30T12:34:56Z INFO worker[3] request id=0042 status=200 dur=12ms\\n"
        chunk = (line * (2**20 // len(line) + 1))[: 2**20]
        capper = toolcap.Capper(max="1Mi")
        for _ in range(16):
            capper.push(chunk)
        reset_peak()
        before = kib("VmRSS")
        for _ in range(1024 - 16):
            capper.push(chunk)
        streamed = kib("VmHWM")
        result = capper.finish()
        assert result.bytes == 2**30, result.bytes
        print(streamed - before, kib("VmHWM") - before)
        """
    )
    streaming, with_result = map(int, grown.split())
    # Streaming keeps nothing more; the result holds the 1 MiB output a few
    # times over (its bytes, its text, the report's output and their
    # renderings on the way).
    assert streaming <= 1024, f"RSS grew by {streaming} KiB while streaming"
    assert with_result <= 8 * 1024, f"RSS grew by {with_result} KiB with the result"
    assert time.monotonic() - started < 60


def cpu_bound_input():
    """Coloured log lines with progress redraws: --clean costs CPU on them."""
    line = b"\x1b[32m2026-11-30T12:34:56Z INFO\x1b[0m worker request\r[####      ] 40%%\r[done] id=%d\n"
    return b"".join(line % i for i in range(200_000))


def parallel_ratio(work):
    """Wall time of four `work`s on four threads over that of the same four
    in a row: about 0.5 on two idle cores, 1.0 or more with the GIL held."""

    def seconds(run):
        started = time.perf_counter()
        run()
        return time.perf_counter() - started

    def serial():
        for _ in range(4):
            work()

    def parallel():
        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    return seconds(parallel) / seconds(serial)


def test_four_threads_cap_faster_than_one():
    """Four threads capping large inputs finish faster than the same four
    caps in a row: in four fifths of the time at most, impossible with the GIL
    held. On a machine that others keep busy no code can be faster in
    parallel, so each try is judged by hashlib (which releases the GIL
    too), measured just before and just after: the test fails only when
    the machine had cores free on both sides of a try that toolcap did not
    use, and says it could not tell otherwise."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if (cores or 1) < 2:
        pytest.skip("SKIPPED: one core; threads cannot cap in parallel here")
    data = cpu_bound_input()
    block = os.urandom(1 << 20) * 32

    def cap():
        toolcap.cap(data, clean=True, keep_errors=True)

    def digest():
        hashed = hashlib.sha256()
        for _ in range(2):
            hashed.update(block)

    tries = []
    for _ in range(3):
        before, ours, after = parallel_ratio(digest), parallel_ratio(cap), parallel_ratio(digest)
        if ours < 0.8:
            return
        tries.append((round(before, 2), round(ours, 2), round(after, 2)))
    if all(max(before, after) >= 0.8 for before, _, after in tries):
        pytest.skip(f"SKIPPED: the machine is too busy for threads to run in parallel now "
                    f"(parallel/serial ratios of hashlib, toolcap, hashlib: {tries})")
    pytest.fail(f"parallel/serial ratios of hashlib, toolcap, hashlib: {tries}")


def test_other_python_threads_run_while_one_caps():
    """Independent of the number of cores: with the GIL held for the whole
    call, the counting thread would stand still."""
    data = cpu_bound_input() * 4
    counted = 0
    stop = threading.Event()

    def count():
        nonlocal counted
        while not stop.is_set():
            counted += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        time.sleep(0.05)
        before = counted
        started = time.perf_counter()
        toolcap.cap(data, clean=True)
        elapsed = time.perf_counter() - started
        during = counted - before
    finally:
        stop.set()
        counter.join()
    assert elapsed > 0.05, "the input is too small to tell"
    assert during > 1000, f"{during} iterations in {elapsed:.3f} s of capping"


PIECE = 65_536
"""Code points of a str encoded at a time (STR_PIECE in python/src/lib.rs)."""

# Lone surrogates past the first piece: after ASCII, after other text, a
# run of them across a piece boundary, and one at the very end.
LONG_STRS_WITH_A_SURROGATE = {
    "after 70,000 ASCII": "x" * 70_000 + "\udcff" + "tail\n",
    "after 70,000 others": "é" * 70_000 + "\udcff",
    "a run across a piece boundary": "🎉" * (PIECE - 2) + "\ud800\udc00\udfff" + "ok",
    "a run that ends the str": "日本" * PIECE + "\udcff" * 3,
}


@pytest.mark.parametrize("label", LONG_STRS_WITH_A_SURROGATE)
def test_a_long_str_with_a_lone_surrogate_is_refused_whole(label):
    """Nothing of it is pushed, and the error is the one `str.encode()`
    raises: its object is the whole str, its range the whole run."""
    text = LONG_STRS_WITH_A_SURROGATE[label]
    with pytest.raises(UnicodeEncodeError) as python_raised:
        text.encode()
    capper = toolcap.Capper(max=100)
    capper.push(b"before\n")
    with pytest.raises(UnicodeEncodeError) as raised:
        capper.push(text)
    ours, python = raised.value, python_raised.value
    assert ours.object is text
    assert (ours.encoding, ours.start, ours.end, ours.reason) == (python.encoding, python.start, python.end, python.reason)
    assert str(ours) == str(python)
    capper.push("after\n")
    assert capper.finish().data == b"before\nafter\n"


def test_a_long_str_that_is_not_ascii_is_checked_and_capped_in_bounded_memory():
    """Refusing a bad str whole must not mean encoding it whole: capping a
    str of 20 million code points (60 MB of UTF-8) grows the peak RSS by a
    few pieces, not by its UTF-8."""
    grown = run_measuring_rss(
        """
        text = "日本語 ok\\n" * 2_500_000
        toolcap.cap("warm-up " * 10_000, max="1Mi")
        reset_peak()
        before = kib("VmRSS")
        result = toolcap.cap(text, max=1000)
        print(kib("VmHWM") - before)
        assert result.bytes == len(text.encode()), result.bytes
        """
    )
    assert int(grown) <= 8 * 1024, f"RSS grew by {grown.strip()} KiB"
