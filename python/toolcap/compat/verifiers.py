"""verifiers' `truncate_tool_output`, from toolcap.

An environment built on verifiers (0.4.0) switches to toolcap without
changing a byte of what the model sees::

    from toolcap.compat.verifiers import truncate_tool_output

    content = truncate_tool_output(result)          # 20,000 bytes, as verifiers
    content = truncate_tool_output(result, 10_000)  # the RLM engine's cap

The result is verifiers' own for every str and every budget of at least 2
bytes (`.ci/run` checks it against the package's wheel). At 0 and 1, where
verifiers keeps the whole text after its marker, this keeps nothing of it:
the marker's count of truncated bytes is then the whole text.
"""

from .._toolcap import cap

__all__ = ["TOOL_OUTPUT_MAX_BYTES", "truncate_tool_output"]

TOOL_OUTPUT_MAX_BYTES = 20_000
"""verifiers' budget for one tool result, in bytes of UTF-8."""


def truncate_tool_output(text: str, max_bytes: int = TOOL_OUTPUT_MAX_BYTES) -> str:
    """Keeps the first and last max_bytes // 2 bytes of `text` when its
    UTF-8 is longer than `max_bytes`, under verifiers' header and marker;
    returns `text` itself when it fits."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    return cap(text, style="verifiers", max=max_bytes).text
