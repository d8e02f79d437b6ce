//! A model of `--style codex`, written from the spec ("Exact formats"),
//! shared by the integration tests and the fuzz target.

/// codex's truncation, from its description: decode, then the characters
/// that end within the first floor(M/2) bytes, the marker, and those that
/// start within the last M - floor(M/2) bytes.
pub fn codex(input: &[u8], budget: usize, tokens: bool) -> String {
    let text = String::from_utf8_lossy(input).into_owned();
    let len = text.len();
    if len <= budget {
        return text;
    }
    let lines = text.matches('\n').count() + usize::from(!text.ends_with('\n'));
    let (left, right) = (budget / 2, budget - budget / 2);
    let mut prefix = String::new();
    let mut suffix = String::new();
    let mut omitted = 0;
    for (start, c) in text.char_indices() {
        if start + c.len_utf8() <= left {
            prefix.push(c);
        } else if start >= len - right {
            suffix.push(c);
        } else {
            omitted += 1;
        }
    }
    let marker = if tokens {
        format!(
            "\u{2026}{} tokens truncated\u{2026}",
            (len - budget).div_ceil(4)
        )
    } else {
        format!("\u{2026}{omitted} chars truncated\u{2026}")
    };
    format!(
        "Warning: truncated output (original token count: {})\nTotal output lines: {lines}\n\n\
         {prefix}{marker}{suffix}",
        len.div_ceil(4)
    )
}
