//! `--style verifiers`: verifiers 0.4.0's `truncate_tool_output` with
//! `TOOL_OUTPUT_MAX_BYTES` = `--max`, byte for byte. The expected outputs
//! here are worked by hand from the function's description in docs/SPEC.md
//! ("Harnesses"): k = floor(M/2) bytes each side less a character a cut
//! splits, the marker counting n - 2k whatever was dropped, lines counted
//! as newlines + 1, tokens as ceil(characters / 4). The differential test
//! against the package's own wheel is python/tests/test_verifiers.py.

use proptest::prelude::*;
use toolcap::{Capper, Options, Style};

use crate::common::{TempDir, assert_output, toolcap};

/// verifiers' truncation from its description (SPEC.md, "Exact formats"),
/// on the whole input in memory: decode with U+FFFD, and past the budget
/// M keep k = floor(M/2) bytes each side, dropping what a cut splits.
fn model(input: &[u8], budget: usize) -> String {
    let text = String::from_utf8_lossy(input).into_owned();
    let n = text.len();
    if n <= budget {
        return text;
    }
    let k = budget / 2;
    let head_end = (0..=k)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let tail_start = if k == 0 {
        n
    } else {
        (n - k..=n).find(|&i| text.is_char_boundary(i)).unwrap_or(n)
    };
    format!(
        "Warning: truncated output (original token count: {})\n\
         Total output lines: {}\n\n{}\n[... {} bytes truncated ...]\n{}",
        text.chars().count().div_ceil(4),
        text.matches('\n').count() + 1,
        &text[..head_end],
        n - 2 * k,
        &text[tail_start..]
    )
}

/// The library's capper, fed `input` in pieces of `chunk` bytes.
fn streamed(input: &[u8], budget: u64, chunk: usize) -> Vec<u8> {
    let options = Options::new().style(Style::Verifiers).max(budget);
    let mut capper = Capper::new(&options).expect("valid options");
    for piece in input.chunks(chunk) {
        capper.push(piece);
    }
    let mut output = Vec::new();
    toolcap::render(&capper.finish(), &mut output).expect("render");
    output
}

/// Bytes that make the cuts interesting: ASCII, newlines, 2- to 4-byte
/// characters, and invalid UTF-8 (lone continuation and lead bytes, a
/// surrogate's encoding).
fn input() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"a".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just("\u{e9}".as_bytes().to_vec()),
        Just("\u{65e5}".as_bytes().to_vec()),
        Just("\u{1f389}".as_bytes().to_vec()),
        Just(b"\xff".to_vec()),
        Just(b"\x80".to_vec()),
        Just(b"\xe6\x97".to_vec()),
        Just(b"\xed\xa0\x80".to_vec()),
    ];
    prop::collection::vec(piece, 0..80).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(2000),
        ..ProptestConfig::default()
    })]

    /// Streamed in any pieces, at every budget of at least 2, the output
    /// is the model's.
    #[test]
    fn streaming_matches_the_model(b in input(), budget in 2usize..60, chunk in 1usize..20) {
        let output = streamed(&b, budget as u64, chunk);
        prop_assert_eq!(String::from_utf8(output).expect("UTF-8"), model(&b, budget));
    }
}

/// The header and blank line verifiers puts above a cut text.
fn header(tokens: u64, lines: u64) -> String {
    format!(
        "Warning: truncated output (original token count: {tokens})\n\
         Total output lines: {lines}\n\n"
    )
}

fn verifiers(max: &str, input: &[u8], expected: impl Into<Vec<u8>>) {
    assert_output(&["--style", "verifiers", "--max", max], input, expected);
}

#[test]
fn a_trailing_newline_starts_one_more_line_and_the_head_newline_is_kept() {
    // 50 bytes, 10 newlines: 11 lines, ceil(50/4) = 13 tokens; the head
    // ends in \n and verifiers still writes one before the marker.
    let input = "abcd\n".repeat(10);
    let expected = header(13, 11) + "abcd\nabcd\n\n[... 30 bytes truncated ...]\nabcd\nabcd\n";
    verifiers("20", input.as_bytes(), expected);
}

#[test]
fn without_a_trailing_newline_the_tail_starts_after_one() {
    let input = "abcd\n".repeat(9) + "abcd";
    let expected = header(13, 10) + "abcd\nabcd\n\n[... 29 bytes truncated ...]\n\nabcd\nabcd";
    verifiers("20", input.as_bytes(), expected);
}

#[test]
fn a_split_character_is_dropped_at_either_cut_and_the_marker_ignores_it() {
    // é is 2 bytes: k = 3 splits the second one at the head and at the tail.
    let input = "é".repeat(20);
    verifiers(
        "7",
        input.as_bytes(),
        header(5, 1) + "é\n[... 34 bytes truncated ...]\né",
    );
    // Only the head cut splits a character (the tail's starts at a byte
    // of € and keeps 'cd').
    verifiers(
        "7",
        "ab€€€cd".as_bytes(),
        header(2, 1) + "ab\n[... 7 bytes truncated ...]\ncd",
    );
    // Three-byte characters on both sides.
    verifiers(
        "10",
        "日本語のテキスト".as_bytes(),
        header(2, 1) + "日\n[... 14 bytes truncated ...]\nト",
    );
}

#[test]
fn exactly_at_the_budget_is_unchanged_and_one_over_is_cut() {
    let at = "0123456789".repeat(2);
    verifiers("20", at.as_bytes(), at.clone());
    let over = at + "x";
    verifiers(
        "20",
        over.as_bytes(),
        header(6, 1) + "0123456789\n[... 1 bytes truncated ...]\n123456789x",
    );
    // An odd budget: a text of exactly M bytes is still whole, and one
    // over keeps floor(M/2) each side.
    verifiers("21", &[b'x'; 21], "x".repeat(21));
    verifiers(
        "21",
        &[b'x'; 22],
        header(6, 1) + "xxxxxxxxxx\n[... 2 bytes truncated ...]\nxxxxxxxxxx",
    );
}

#[test]
fn budgets_two_and_three_keep_one_byte_each_side() {
    verifiers(
        "2",
        b"abc",
        header(1, 1) + "a\n[... 1 bytes truncated ...]\nc",
    );
    verifiers(
        "3",
        b"abcd",
        header(1, 1) + "a\n[... 2 bytes truncated ...]\nd",
    );
    verifiers("2", b"ab", "ab");
}

#[test]
fn budgets_zero_and_one_keep_nothing() {
    // verifiers' data[-0:] would keep the whole text after the marker: a
    // ceiling cannot, so both sides are empty and the marker counts all.
    verifiers(
        "0",
        b"abc\ndef",
        header(2, 2) + "\n[... 7 bytes truncated ...]\n",
    );
    verifiers(
        "1",
        b"abc\ndef",
        header(2, 2) + "\n[... 7 bytes truncated ...]\n",
    );
    verifiers("1", b"a", "a");
    verifiers("0", b"", "");
}

#[test]
fn invalid_utf8_is_decoded_with_replacement_first() {
    // ab\xffcd\xfe is "ab\u{FFFD}cd\u{FFFD}": 10 bytes, 6 characters.
    verifiers(
        "7",
        b"ab\xffcd\xfe",
        header(2, 1) + "ab\n[... 4 bytes truncated ...]\n\u{FFFD}",
    );
    // Within the budget once decoded: the replacement, whole.
    verifiers("20", b"a\xffb", "a\u{FFFD}b");
}

#[test]
fn crlf_lines_count_their_newlines() {
    verifiers(
        "8",
        b"one\r\ntwo\r\nthree\r\n",
        header(5, 4) + "one\r\n[... 9 bytes truncated ...]\nee\r\n",
    );
}

#[test]
fn wrap_mode_adds_only_the_status_line() {
    let cut = header(13, 11) + "abcd\nabcd\n\n[... 30 bytes truncated ...]\nabcd\nabcd\n";
    let script = "for i in 1 2 3 4 5 6 7 8 9 10; do echo abcd; done";
    toolcap()
        .args([
            "--style",
            "verifiers",
            "--max",
            "20",
            "--no-status",
            "-c",
            script,
        ])
        .assert()
        .success()
        .stdout(cut.clone());
    toolcap()
        .args([
            "--style",
            "verifiers",
            "--max",
            "20",
            "-c",
            &format!("{script}; exit 3"),
        ])
        .assert()
        .code(3)
        .stdout(cut + "[exit status: 3]\n");
}

#[test]
fn a_spill_is_written_and_not_named() {
    let dir = TempDir::new("verifiers-spill");
    let spill = dir.join("full.txt");
    let input = "abcd\n".repeat(10);
    toolcap()
        .args(["--style", "verifiers", "--max", "20", "--spill"])
        .arg(&spill)
        .write_stdin(input.clone())
        .assert()
        .success()
        .stdout(header(13, 11) + "abcd\nabcd\n\n[... 30 bytes truncated ...]\nabcd\nabcd\n");
    assert_eq!(std::fs::read(&spill).expect("spill file"), input.as_bytes());
}

#[test]
fn options_that_change_the_bytes_are_refused_by_name() {
    let sets =
        "--style verifiers sets its own budget, cuts and wording: it cannot be combined with";
    let shows = "--style verifiers shows the output as verifiers does: it cannot be combined with";
    let cases: &[(&[&str], String)] = &[
        (&["--head", "5"], format!("{sets} --head")),
        (&["--tail", "5"], format!("{sets} --tail")),
        (&["--lines", "5"], format!("{sets} --lines")),
        (&["--cut", "bytes"], format!("{sets} --cut")),
        (&["--tokens", "5"], format!("{sets} --tokens")),
        (&["--chars", "5"], format!("{sets} --chars")),
        (&["--header", "x"], format!("{sets} --header")),
        (&["--no-header"], format!("{sets} --no-header")),
        (&["--marker", "x"], format!("{sets} --marker")),
        (&["--keep", "x"], format!("{shows} --keep")),
        (&["--keep-errors"], format!("{shows} --keep-errors")),
        (&["--clean"], format!("{shows} --clean")),
        (&["--strip-ansi"], format!("{shows} --strip-ansi")),
        (&["--squeeze"], format!("{shows} --squeeze")),
        (&["--fold"], format!("{shows} --fold")),
        (&["--max-line", "100"], format!("{shows} --max-line")),
        (&["--live"], format!("{shows} --live")),
        (
            &["--tokenizer", "o200k"],
            "--style verifiers counts tokens as verifiers does (4 characters each): it cannot be \
             combined with --tokenizer o200k"
                .into(),
        ),
        (
            &["--format", "json"],
            "--format json cannot be combined with --style verifiers: verifiers sets its own cuts"
                .into(),
        ),
    ];
    for (args, message) in cases {
        toolcap()
            .args(["--style", "verifiers"])
            .args(*args)
            .write_stdin("x\n")
            .assert()
            .code(2)
            .stderr(format!("toolcap: {message}\n"));
    }
    // --utf8 is what verifiers does anyway, and a tokenizer from the
    // environment yields to the style.
    assert_output(
        &["--style", "verifiers", "--utf8"],
        "a\u{FFFD}\n",
        "a\u{FFFD}\n",
    );
    toolcap()
        .args(["--style", "verifiers"])
        .env("TOOLCAP_TOKENIZER", "o200k")
        .write_stdin("x\n")
        .assert()
        .success()
        .stdout("x\n");
}

#[test]
fn a_budget_from_the_window_is_verifiers_budget() {
    // --window 2000 is 1,000 bytes (GUIDE.md, "Budgets from the context window").
    let input = "abcd\n".repeat(1_000);
    assert_eq!(
        crate::common::stdout_of(
            &["--style", "verifiers", "--window", "2000"],
            input.as_bytes()
        ),
        crate::common::stdout_of(&["--style", "verifiers", "--max", "1000"], input.as_bytes())
    );
}

#[test]
fn a_separate_stderr_is_cut_by_its_own_budget() {
    let script = "for i in 1 2 3 4 5 6 7 8 9 10; do echo abcd; echo abcd >&2; done";
    toolcap()
        .args([
            "--style",
            "verifiers",
            "--max",
            "20",
            "--stderr",
            "separate",
            "--stderr-max",
            "10",
        ])
        .args(["--no-status", "-c", script])
        .assert()
        .success()
        .stdout(header(13, 11) + "abcd\nabcd\n\n[... 30 bytes truncated ...]\nabcd\nabcd\n")
        .stderr(header(13, 11) + "abcd\n\n[... 40 bytes truncated ...]\nabcd\n");
}

#[test]
fn a_profiles_options_that_would_change_the_bytes_are_left_out() {
    // The user's --style wins, as with --style codex: pytest's --clean,
    // --keep and --fold-pattern go, and the text is verifiers' own.
    let config = TempDir::new("verifiers-profile");
    let input: String = (0..100)
        .map(|i| format!("test_{i} PASSED \x1b[32mok\x1b[0m\n"))
        .collect();
    let plain =
        crate::common::stdout_of(&["--style", "verifiers", "--max", "100"], input.as_bytes());
    for profile in ["pytest", "auto"] {
        toolcap()
            .env("XDG_CONFIG_HOME", config.path())
            .env("HOME", config.path())
            .args(["--style", "verifiers", "--max", "100", "--profile", profile])
            .write_stdin(input.clone())
            .assert()
            .success()
            .stdout(plain.clone());
    }
}
