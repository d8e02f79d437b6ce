//! `--max` as a ceiling a harness can trust (issue 21), the regressions of
//! its leftovers, byte for byte through the binary: toolcap's own marker
//! lines are never cut in two.

use crate::common::{TempDir, assert_output};

/// The header of a cut output whose cleaning changed the stream.
fn header(raw_bytes: usize, lines: usize, cleaned: usize) -> String {
    format!(
        "Warning: truncated output (original token count: {})\nTotal output lines: {lines}\n\
         Cleaned: {raw_bytes} raw bytes became {cleaned} bytes\n\n",
        cleaned.div_ceil(4)
    )
}

/// Regression: `seq 1 40 | toolcap --clean --max 45 --spill F` showed
/// `[... 38 similar line`, a cut marker, then `d (lines 2-39) ...]`. The
/// fold marker is one unit at the cut: the head ends before it, the tail
/// starts after it.
#[test]
fn the_cut_never_splits_a_fold_marker() {
    let dir = TempDir::new("fold-marker-cut");
    let spill = dir.join("F");
    let input: String = (1..=40).map(|i| format!("{i}\n")).collect();
    let expected = format!(
        "{}1\n[... 47 bytes truncated (lines 2-39); full output in {} ...]\n40\n",
        header(input.len(), 3, 52),
        spill.display()
    );
    let spill_arg = spill.to_str().expect("a UTF-8 path");
    assert_output(
        &["--clean", "--max", "45", "--spill", spill_arg],
        input.as_bytes(),
        expected.as_bytes(),
    );
}

/// The same for a squeeze marker, cut at bytes (where no line rule moves
/// the cut), and with `--live`, which prints the head as it settles: it
/// never prints part of the marker.
#[test]
fn the_cut_never_splits_a_squeeze_marker() {
    let input = format!("head\nhead\n{}end\n", "same same same line\n".repeat(50));
    let shown = "head\nhead\nsame same same line\n[... 47 bytes truncated ...]\nend\n";
    let expected = format!("{}{shown}", header(input.len(), 5, 81));
    assert_output(
        &["--squeeze", "--max", "80", "--cut", "bytes"],
        input.as_bytes(),
        expected.as_bytes(),
    );
    let (first_two, _) = expected.split_once("\n\n").expect("a header");
    let live = format!("{shown}{}\n", first_two);
    assert_output(
        &["--squeeze", "--max", "80", "--cut", "bytes", "--live"],
        input.as_bytes(),
        live.as_bytes(),
    );
}

/// `--max-line`'s marker inside a line is toolcap's own text too: a cut
/// at bytes lands before or after it, never inside.
#[test]
fn the_cut_never_splits_a_long_line_marker() {
    let input = format!("a\n{}\nb\n", "x".repeat(300));
    let expected = format!(
        "{}a\nxxxxxxxxxx\n[... 44 bytes truncated ...]\nxxxxxxxxxx\nb\n",
        header(input.len(), 3, 69)
    );
    assert_output(
        &["--max-line", "20", "--max", "50", "--cut", "bytes"],
        input.as_bytes(),
        expected.as_bytes(),
    );
}
