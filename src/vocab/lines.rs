//! What the line-wise transforms share about lines: where a line's text
//! ends and its terminator begins.

/// The line without its terminator (`\n` or `\r\n`), and the terminator.
pub(crate) fn split_terminator(line: &[u8]) -> (&[u8], &[u8]) {
    match line.strip_suffix(b"\n") {
        None => (line, &[]),
        Some(body) => line.split_at(body.strip_suffix(b"\r").unwrap_or(body).len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminators_are_lf_or_crlf() {
        assert_eq!(split_terminator(b"ab\r\n"), (&b"ab"[..], &b"\r\n"[..]));
        assert_eq!(split_terminator(b"ab\n"), (&b"ab"[..], &b"\n"[..]));
        assert_eq!(split_terminator(b"ab\r"), (&b"ab\r"[..], &b""[..]));
        assert_eq!(split_terminator(b"ab"), (&b"ab"[..], &b""[..]));
    }
}
