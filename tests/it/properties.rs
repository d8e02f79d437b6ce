//! Property tests: the streaming capper against a naive model that applies
//! the README's contract to the whole input in memory, over random inputs,
//! budgets and read chunkings (as memchr tests its fast paths).

use proptest::prelude::*;
use toolcap::capture::{Budget, Capper, CutMode};
use toolcap::render::{HeaderPlace, SpillNote, write_capped};

fn newline_ends(b: &[u8]) -> Vec<usize> {
    (0..b.len())
        .filter(|&i| b[i] == b'\n')
        .map(|i| i + 1)
        .collect()
}

/// The contract, literally, on the whole input: (h, t) or None if it fits.
fn naive_cuts(b: &[u8], budget: &Budget) -> Option<(usize, usize)> {
    let n = b.len();
    let (big_h, big_t) = (budget.head as usize, budget.tail as usize);
    let newline_ends: Vec<usize> = newline_ends(b);
    let lines = newline_ends.len() + usize::from(n > 0 && b[n - 1] != b'\n');
    if n <= big_h + big_t && budget.lines.is_none_or(|max| lines as u64 <= max) {
        return None;
    }
    let mut h = big_h as i64;
    let mut t = n as i64 - big_t as i64;
    if let Some(max) = budget.lines {
        let (k, m) = ((max / 2) as usize, (max - max / 2) as usize);
        let end_of_line_k = if k == 0 {
            0i64
        } else {
            newline_ends.get(k - 1).map_or(i64::MAX, |&end| end as i64)
        };
        h = h.min(end_of_line_k);
        let start_of_last_m = if m == 0 {
            n
        } else if m >= lines {
            0
        } else {
            newline_ends[lines - m - 1]
        };
        t = t.max(start_of_last_m as i64);
    }
    let (mut h, mut t) = (h as usize, t as usize);
    let continuation = |i: usize| b[i] & 0xC0 == 0x80;
    for _ in 0..3 {
        if h > 0 && h < n && continuation(h) {
            h -= 1;
        }
    }
    for _ in 0..3 {
        if t < n && continuation(t) {
            t += 1;
        }
    }
    if budget.cut == CutMode::Lines {
        if let Some(p) = b[..h].iter().rposition(|&c| c == b'\n').map(|p| p + 1)
            && h - p <= big_h / 4
        {
            h = p;
        }
        if let Some(q) = b[t - 1..]
            .iter()
            .position(|&c| c == b'\n')
            .map(|i| t - 1 + i + 1)
            && q - t <= big_t / 4
        {
            t = q;
        }
    }
    Some((h, t))
}

fn naive_output(b: &[u8], budget: &Budget) -> Vec<u8> {
    let Some((h, t)) = naive_cuts(b, budget) else {
        return b.to_vec();
    };
    let count = |s: &[u8]| s.iter().filter(|&&c| c == b'\n').count();
    let lines = count(b) + usize::from(b.last().is_some_and(|&c| c != b'\n'));
    let mut out = format!(
        "Warning: truncated output (original token count: {})\nTotal output lines: {lines}\n\n",
        b.len().div_ceil(4)
    )
    .into_bytes();
    out.extend_from_slice(&b[..h]);
    if h > 0 && b[h - 1] != b'\n' {
        out.push(b'\n');
    }
    let (a, z) = (1 + count(&b[..h]), 1 + count(&b[..t - 1]));
    out.extend_from_slice(
        format!(
            "[... {} bytes truncated (lines {a}-{z}); full output in /s ...]\n",
            t - h
        )
        .as_bytes(),
    );
    out.extend_from_slice(&b[t..]);
    out
}

fn streamed_output(b: &[u8], budget: Budget, chunk: usize) -> Vec<u8> {
    let mut capper = Capper::new(budget);
    for piece in b.chunks(chunk) {
        capper.push(piece);
    }
    let mut out = Vec::new();
    write_capped(
        &mut out,
        &capper.finish(),
        0,
        HeaderPlace::Top,
        SpillNote::SavedIn(b"/s"),
    )
    .unwrap();
    out
}

/// Bytes that make the rules matter: newlines, CR, ASCII, multi-byte
/// characters, and stray continuation and invalid bytes.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => Just(b"a".to_vec()),
        3 => Just(b"\n".to_vec()),
        1 => Just(b"\r\n".to_vec()),
        1 => Just("é".as_bytes().to_vec()),
        1 => Just("€".as_bytes().to_vec()),
        1 => Just("😀".as_bytes().to_vec()),
        1 => Just(vec![0x80]),
        1 => Just(vec![0xFF]),
        1 => Just(b"longer text".to_vec()),
    ];
    prop::collection::vec(piece, 0..120).prop_map(|pieces| pieces.concat())
}

fn budget() -> impl Strategy<Value = Budget> {
    (
        0u64..80,
        0u64..80,
        prop::option::of(0u64..24),
        any::<bool>(),
    )
        .prop_map(|(head, tail, lines, bytes)| Budget {
            head,
            tail,
            lines,
            cut: if bytes {
                CutMode::Bytes
            } else {
                CutMode::Lines
            },
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn streaming_matches_the_naive_model(b in input(), budget in budget(), chunk in 1usize..70) {
        prop_assert_eq!(streamed_output(&b, budget, chunk), naive_output(&b, &budget));
    }

    #[test]
    fn cuts_keep_a_prefix_and_a_suffix_and_add_up(b in input(), budget in budget(), chunk in 1usize..70) {
        let mut capper = Capper::new(budget);
        for piece in b.chunks(chunk) {
            capper.push(piece);
        }
        let capture = capper.finish();
        prop_assert_eq!(capture.total_bytes(), b.len() as u64);
        match capture.cut() {
            None => prop_assert_eq!(capture.head(), &b[..]),
            Some(cut) => {
                prop_assert!(b.starts_with(capture.head()));
                prop_assert!(b.ends_with(capture.tail()));
                let kept = (capture.head().len() + capture.tail().len()) as u64;
                prop_assert_eq!(kept + cut.omitted_bytes(), b.len() as u64);
                prop_assert!(cut.omitted_bytes() > 0);
                prop_assert!(cut.first_omitted_line <= cut.last_omitted_line);
            }
        }
    }

    #[test]
    fn valid_utf8_stays_valid(s in "(a|é|€|😀|\n| ){0,100}", budget in budget()) {
        let mut capper = Capper::new(budget);
        capper.push(s.as_bytes());
        let capture = capper.finish();
        prop_assert!(std::str::from_utf8(capture.head()).is_ok());
        prop_assert!(std::str::from_utf8(capture.tail()).is_ok());
    }

    /// What `--live` prints early is always the start of the final head,
    /// and on valid UTF-8 the output is the same as without `--live`.
    #[test]
    fn live_prints_only_the_final_head(s in "(a|é|€|\n|\r\n|xyz){0,100}", budget in budget(), chunk in 1usize..40) {
        let b = s.as_bytes();
        let mut capper = Capper::new(budget);
        let mut printed = 0;
        for piece in b.chunks(chunk) {
            capper.push(piece);
            let settled = capper.settled_head_len();
            prop_assert_eq!(&capper.head_bytes()[..settled], &b[..settled]);
            printed = printed.max(settled);
        }
        let capture = capper.finish_with_head_at_least(printed);
        let expected = naive_cuts(b, &budget);
        match capture.cut() {
            None => prop_assert_eq!(expected, None),
            Some(cut) => prop_assert_eq!(Some((cut.head_end as usize, cut.tail_start as usize)), expected),
        }
    }
}
