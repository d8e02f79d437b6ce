//! `--max` as a ceiling a harness can trust (issue 21), the regressions of
//! its leftovers, byte for byte through the binary: toolcap's own marker
//! lines are never cut in two.

use proptest::prelude::*;

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

/// Log-like lines: errors and their locations, warnings, test results,
/// repeats, similar lines, status-like fields, CSV rows, long and
/// multi-byte lines, escape codes and redraws.
fn log_line() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "error[E0308]: mismatched types\n",
        " --> src/lib.rs:3:5\n",
        "warning: unused variable: `x`\n",
        "test tests::case_1 ... ok\n",
        "test tests::case_2 ... FAILED\n",
        "FAILED test_x.py::test_a - AssertionError\n",
        "same line again\n",
        "GET /a 200 12ms\n",
        "GET /a 500 31ms\n",
        "job 3: exit 0\n",
        "id,name,email\n",
        "17,alice,a@example.com\n",
        "ok\n",
        "\n",
        "日本語のテキスト、行の長さ。\n",
        "\x1b[31merror\x1b[0m: in colour\n",
        "progress 10%\rprogress 90%\rdone\n",
        "a long line of text that goes on and on and on and on and on and on and on and on\n",
    ])
}

fn log() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(log_line(), 0..300).prop_map(|lines| lines.concat().into_bytes())
}

/// What the budget holds of `output` (GUIDE.md, `--max`): all but the
/// header lines and the blank line after them, and one cut marker line
/// (the longest, with the `\n` that ends a head cut mid-line) or the line
/// naming the spill file of an output not cut; in bytes or characters.
/// `header`: whether the output may start with one (not with
/// `--no-header`, where the text could start so).
pub(crate) fn content(output: &[u8], header: bool, chars: bool) -> u64 {
    let body = match header && output.starts_with(b"Warning: truncated output") {
        true => {
            let end = output
                .windows(2)
                .position(|pair| pair == b"\n\n")
                .expect("a blank line");
            &output[end + 2..]
        }
        false => output,
    };
    let marker =
        regex::bytes::Regex::new(r"^(\x1b\[0m)?\[\.\.\. (\d+ bytes truncated|cleaned: )").unwrap();
    let measure = |bytes: &[u8]| match chars {
        true => String::from_utf8_lossy(bytes).chars().count() as u64,
        false => bytes.len() as u64,
    };
    let longest_marker = body
        .split_inclusive(|&byte| byte == b'\n')
        .filter(|line| marker.is_match(line))
        .map(|line| measure(line) + 1)
        .max()
        .unwrap_or(0);
    measure(body).saturating_sub(longest_marker)
}

proptest! {
    // Each case starts a process.
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(96),
        ..ProptestConfig::default()
    })]

    /// Issue 21: "Everything printed except the two header lines (and the
    /// blank line after them), the status line and one cut marker fits in
    /// `--max`, in the budget's unit", over keeping, condensing, profiles,
    /// formats and units.
    #[test]
    fn the_content_fits_max_whatever_the_options(
        input in log(),
        max in 100u64..3_000,
        chars in any::<bool>(),
        keep in prop::sample::select(vec![
            &[][..],
            &["--keep-errors"],
            &["--keep", "FAILED|warning", "--keep-context", "2"],
            &["--keep-errors", "--keep-max", "40"],
        ]),
        condense in prop::sample::select(vec![&[][..], &["--clean"], &["--fold"], &["--squeeze"]]),
        profile in prop::sample::select(vec!["none", "cargo", "pytest", "auto"]),
        csv in any::<bool>(),
        store in any::<bool>(),
    ) {
        let dir = TempDir::new("ceiling-property");
        let mut args: Vec<String> = vec![
            match chars {
                true => format!("--chars={max}"),
                false => format!("--max={max}"),
            },
            format!("--profile={profile}"),
        ];
        args.extend(keep.iter().chain(condense).map(|arg| arg.to_string()));
        // Kept lines would break records apart: csv only without them.
        if csv && keep.is_empty() && profile == "none" && !chars {
            args.push("--format=csv".into());
        }
        if store {
            args.push(format!("--spill-dir={}", dir.join("store").display()));
        }
        let output = crate::common::toolcap()
            .args(&args)
            .write_stdin(input.clone())
            .output()
            .expect("run toolcap");
        prop_assert!(output.status.success(), "{args:?}: {:?}", output);
        let content = content(&output.stdout, true, chars);
        prop_assert!(
            content <= max,
            "{args:?}: {content} > {max}:\n{}",
            String::from_utf8_lossy(&output.stdout)
        );
    }
}
