//! The UTF-8 rule: a cut never splits a multi-byte character, and invalid
//! bytes never stop it (it moves at most 3 bytes, the most a character's
//! continuation bytes can span).

/// The rule moves a cut at most this many bytes: a character is at most 4
/// bytes long, so at most 3 of them are continuation bytes.
const MAX_CONTINUATION_BYTES: usize = 3;

/// 0x80-0xBF: the second to fourth byte of a multi-byte character.
pub(crate) fn is_continuation(byte: u8) -> bool {
    byte & 0xC0 == 0x80
}

/// Moves a head cut back while the byte at it is a continuation byte, at
/// most 3 times. `byte_at(h)` is B[h]; `h` is never moved past 0 or
/// looked up at `n`.
pub(crate) fn move_head_back(mut h: u64, n: u64, byte_at: impl Fn(u64) -> u8) -> u64 {
    for _ in 0..MAX_CONTINUATION_BYTES {
        if h > 0 && h < n && is_continuation(byte_at(h)) {
            h -= 1;
        } else {
            break;
        }
    }
    h
}

/// Moves a tail cut forward while the byte at it is a continuation byte,
/// at most 3 times, never past `n`.
pub(crate) fn move_tail_forward(mut t: u64, n: u64, byte_at: impl Fn(u64) -> u8) -> u64 {
    for _ in 0..MAX_CONTINUATION_BYTES {
        if t < n && is_continuation(byte_at(t)) {
            t += 1;
        } else {
            break;
        }
    }
    t
}

/// The length of `bytes` without what a later byte could still take back:
/// its trailing continuation bytes (at most 3) and the lead byte before
/// them. Even a complete last character is held back, since a stray
/// continuation byte after it would move a cut back over it.
pub(crate) fn complete_characters(bytes: &[u8]) -> usize {
    let mut end = bytes.len();
    let mut steps = 0;
    while end > 0 && steps < MAX_CONTINUATION_BYTES && is_continuation(bytes[end - 1]) {
        end -= 1;
        steps += 1;
    }
    if end > 0 && bytes[end - 1] >= 0xC0 {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_move_off_continuation_bytes_at_most_three_times() {
        let euro = "a€b".as_bytes(); // 61 E2 82 AC 62
        let at = |i: u64| euro[i as usize];
        assert_eq!(move_head_back(3, 5, at), 1);
        assert_eq!(move_tail_forward(2, 5, at), 4);
        let invalid = [b'a', 0x80, 0x80, 0x80, 0x80, b'b'];
        let at = |i: u64| invalid[i as usize];
        assert_eq!(move_head_back(4, 6, at), 1);
        assert_eq!(move_tail_forward(1, 6, at), 4);
    }

    #[test]
    fn a_last_multibyte_character_is_held_back() {
        assert_eq!(complete_characters("a€".as_bytes()), 1);
        assert_eq!(complete_characters(&"a€".as_bytes()[..3]), 1);
        assert_eq!(complete_characters("€a".as_bytes()), 4);
        assert_eq!(complete_characters(&[b'a', 0xF0]), 1);
        assert_eq!(complete_characters(&[0x80, 0x80, 0x80, 0x80]), 1);
    }
}
