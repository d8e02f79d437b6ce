"""Cap command output at a budget, keeping its head and its tail.

The same program as the `toolcap` command line, in process::

    import toolcap

    toolcap.cap(text, max="4k").text          # a str or bytes, capped
    toolcap.run("make test", timeout=600)     # a command, capped, with its exit
    capper = toolcap.Capper(max="1Mi")        # a stream, in bounded memory
    toolcap.show(id, grep="FAILED", max="16k")  # a stored output, searched, capped

Options are the command line's long options (`--keep-errors` is
`keep_errors=True`) and mean exactly what they mean there; see python/README.md's
"Python" section, and `help(toolcap.cap)`.
"""

from ._toolcap import (
    Capper,
    Result,
    RunResult,
    StreamResult,
    __version__,
    cap,
    list_outputs,
    run,
    show,
    summary,
)

__all__ = [
    "Capper",
    "Result",
    "RunResult",
    "StreamResult",
    "__version__",
    "cap",
    "list_outputs",
    "run",
    "show",
    "summary",
]
