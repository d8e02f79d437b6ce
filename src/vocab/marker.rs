//! The wording of the markers that stand for what the stages before the
//! renderer removed or shortened (repeated or similar lines, the middle of a
//! long line; a JSON document's and a binary stream's are in their own
//! rooms), and the
//! escaping that keeps any marker on one line of valid UTF-8. The stages
//! word their markers here, below them all, so that none of them needs the
//! renderer; the renderer's own lines (header, cut marker, status) use the
//! same helpers.

/// `line` or `lines`, by count.
pub(crate) fn lines_word(count: u64) -> &'static str {
    if count == 1 { "line" } else { "lines" }
}

/// Keeps the marker on one line, and valid UTF-8, whatever a path
/// contains: `\n`, `\r` and `\t` become those two-character escapes,
/// other control bytes and each byte of invalid UTF-8 `\xNN` (so the
/// lines toolcap writes are valid UTF-8 even where the text it passes on
/// is not).
pub(crate) fn escape_for_marker(text: &[u8]) -> Vec<u8> {
    let mut escaped = Vec::with_capacity(text.len());
    let hex = |byte: u8, escaped: &mut Vec<u8>| {
        escaped.extend_from_slice(format!("\\x{byte:02x}").as_bytes());
    };
    for chunk in text.utf8_chunks() {
        for &byte in chunk.valid().as_bytes() {
            match byte {
                b'\n' => escaped.extend_from_slice(b"\\n"),
                b'\r' => escaped.extend_from_slice(b"\\r"),
                b'\t' => escaped.extend_from_slice(b"\\t"),
                0..=0x1F | 0x7F => hex(byte, &mut escaped),
                _ => escaped.push(byte),
            }
        }
        chunk
            .invalid()
            .iter()
            .for_each(|&byte| hex(byte, &mut escaped));
    }
    escaped
}

/// `--squeeze`'s marker for a line repeated `repeats` more times, naming
/// the raw lines of the repeats when a spill file holds them.
pub(crate) fn repeat_marker(repeats: u64, raw_lines: Option<(u64, u64)>) -> Vec<u8> {
    match raw_lines {
        None => format!("[... previous line repeated {repeats} more times ...]\n"),
        Some((a, b)) => {
            format!("[... previous line repeated {repeats} more times (lines {a}-{b}) ...]\n")
        }
    }
    .into_bytes()
}

/// `--fold`'s marker for `folded` similar lines, naming the raw lines
/// they were when a spill file holds them.
pub(crate) fn fold_marker(folded: u64, raw_lines: Option<(u64, u64)>) -> Vec<u8> {
    let lines = lines_word(folded);
    match raw_lines {
        None => format!("[... {folded} similar {lines} folded ...]\n"),
        Some((a, b)) => format!("[... {folded} similar {lines} folded (lines {a}-{b}) ...]\n"),
    }
    .into_bytes()
}

/// `--max-line`'s marker inside a line, for `removed` bytes.
pub(crate) fn line_cut_marker(removed: u64) -> Vec<u8> {
    format!(" [... {removed} bytes of this line truncated ...] ").into_bytes()
}
