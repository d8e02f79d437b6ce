//! The line splitting the line-wise transforms share: a chunk as segments
//! that each end a line, then the rest, which continues in the next chunk.

use memchr::memchr;

/// The pieces of `input`: each one ending in `\n` and then, if `input` does
/// not end in one, the unfinished rest. Each comes with whether it ends a
/// line.
pub(crate) fn segments(input: &[u8]) -> impl Iterator<Item = (&[u8], bool)> {
    let mut rest = input;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (segment, ends_line) = match memchr(b'\n', rest) {
            Some(p) => (&rest[..=p], true),
            None => (rest, false),
        };
        rest = &rest[segment.len()..];
        Some((segment, ends_line))
    })
}

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
    fn segments_end_lines_then_the_rest() {
        let pieces: Vec<_> = segments(b"a\nbc\n\nd").collect();
        assert_eq!(
            pieces,
            [(&b"a\n"[..], true), (b"bc\n", true), (b"\n", true), (b"d", false)]
        );
        assert_eq!(segments(b"").count(), 0);
    }

    #[test]
    fn terminators_are_lf_or_crlf() {
        assert_eq!(split_terminator(b"ab\r\n"), (&b"ab"[..], &b"\r\n"[..]));
        assert_eq!(split_terminator(b"ab\n"), (&b"ab"[..], &b"\n"[..]));
        assert_eq!(split_terminator(b"ab\r"), (&b"ab\r"[..], &b""[..]));
        assert_eq!(split_terminator(b"ab"), (&b"ab"[..], &b""[..]));
    }
}
