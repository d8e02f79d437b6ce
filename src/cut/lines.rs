//! `--cut lines`: a cut moves to the nearest line boundary when that loses
//! at most a quarter of its side's budget; otherwise it stays mid-line (one
//! giant line, such as a progress bar redrawn with `\r`).

use memchr::{memchr, memrchr};

/// Moves h back to just after the last `\n` in B[0:h] when that loses at
/// most floor(H/4) bytes.
pub(super) fn snap_head(head: &[u8], h: u64, head_budget: u64) -> u64 {
    match memrchr(b'\n', &head[..h as usize]) {
        Some(p) if h - (p as u64 + 1) <= head_budget / 4 => p as u64 + 1,
        _ => h,
    }
}

/// How far t moves forward: to just after the first `\n` at or after t-1,
/// when that loses at most floor(T/4) bytes. `from_before_t` is B[t-1:n].
pub(super) fn snap_tail(from_before_t: &[u8], tail_budget: u64) -> u64 {
    match memchr(b'\n', from_before_t) {
        Some(i) if i as u64 <= tail_budget / 4 => i as u64,
        _ => 0,
    }
}

/// The end of the last complete line within B[from:to], if one ends there.
pub(super) fn last_line_end(bytes: &[u8], from: usize, to: usize) -> Option<usize> {
    if from >= to {
        return None;
    }
    memrchr(b'\n', &bytes[from..to]).map(|p| from + p + 1)
}
