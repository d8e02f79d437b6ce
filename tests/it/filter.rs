//! Filter mode: the output contract, byte for byte.

use crate::common::{TempDir, assert_output, assert_truncated, repeated, toolcap, truncated};

#[test]
fn readme_example_10000_lines_of_abcd() {
    let input = repeated("abcd\n", 10_000);
    let expected = truncated(
        50_000,
        10_000,
        &input[..5_000],
        "[... 40000 bytes truncated ...]",
        &input[45_000..],
    );
    toolcap()
        .write_stdin(input)
        .assert()
        .success()
        .stdout(expected)
        .stderr("");
}

#[test]
fn empty_input_gives_empty_output() {
    toolcap().write_stdin("").assert().success().stdout("");
}

#[test]
fn input_below_and_at_the_cap_passes_unchanged() {
    assert_output(&["--max", "10"], "123456789", "123456789");
    assert_output(&["--max", "10"], "123456789\n", "123456789\n");
}

#[test]
fn one_byte_over_the_cap_cuts_one_byte() {
    assert_truncated(&["--max", "10"], "1234567890\n", 1, b"12345", 1, b"7890\n");
}

#[test]
fn no_trailing_newline_counts_the_last_line() {
    let input = "line1\nline2\nline3\nline4\nlast-line-without-newline";
    assert_truncated(
        &["--head", "8", "--tail", "25"],
        input,
        5,
        b"line1\n",
        18,
        b"last-line-without-newline",
    );
}

#[test]
fn crlf_lines_cut_after_the_newline() {
    let input = "one\r\ntwo\r\nthree\r\nfour\r\nfive\r\n";
    assert_truncated(
        &["--head", "11", "--tail", "7"],
        input,
        5,
        b"one\r\ntwo\r\n",
        13,
        b"five\r\n",
    );
}

#[test]
fn multibyte_characters_straddling_both_cuts_stay_whole() {
    // "€" is E2 82 AC. Head budget 8 ends inside the second "€" (B[8] is a
    // continuation byte): h moves back to 7. The tail starts at 24, on "y".
    let input = "abcd€€€€€€wxyz€€".as_bytes();
    assert_truncated(
        &["--max", "16", "--cut", "bytes"],
        input,
        1,
        "abcd€".as_bytes(),
        17,
        "yz€€".as_bytes(),
    );
}

#[test]
fn invalid_utf8_at_the_cuts_passes_as_bytes() {
    let input = b"a\x80\x80\x80\x80\x80cdefgh\x80\x80\x80\x80".to_vec();
    // Head: h = 4 moves back over continuation bytes at most 3 times, to 1
    // (B[1] is still one). Tail: t = 12 moves forward 3 times, to 15.
    assert_truncated(
        &["--max", "8", "--cut", "bytes"],
        input,
        1,
        b"a",
        14,
        b"\x80",
    );
}

#[test]
fn one_giant_line_is_cut_mid_line() {
    let input = "x".repeat(100_000);
    assert_truncated(
        &["--max", "100"],
        &input,
        1,
        &input.as_bytes()[..50],
        99900,
        &input.as_bytes()[..50],
    );
}

#[test]
fn cut_moves_to_a_line_boundary_only_within_a_quarter_budget() {
    // Head budget 20: the line starts at 11, 9 bytes back (> 20/4): the cut
    // stays mid-line. Tail budget 25: t = 34 and the next line starts at 37,
    // 3 bytes on (<= 25/4): the cut moves there.
    let input = "first-line\nsecond-line-is-long\nthird\nfourth-line\nlast-line\n";
    assert_truncated(
        &["--head", "20", "--tail", "25"],
        input,
        5,
        b"first-line\nsecond-li",
        17,
        b"fourth-line\nlast-line\n",
    );
}

#[test]
fn cut_bytes_cuts_exactly_at_the_budget() {
    let input = repeated("abcd\n", 10);
    assert_truncated(
        &["--max", "14", "--cut", "bytes", "--head", "7"],
        input,
        10,
        b"abcd\nab",
        36,
        b"d\nabcd\n",
    );
}

#[test]
fn lines_cap_keeps_half_at_each_end() {
    let input: String = (1..=20).map(|i| format!("{i}\n")).collect();
    assert_truncated(
        &["--lines", "5"],
        &input,
        20,
        b"1\n2\n",
        38,
        b"18\n19\n20\n",
    );
    // Within the line cap and the byte cap: unchanged.
    assert_output(&["-n", "20"], input, input_of(20));
}

fn input_of(lines: usize) -> String {
    (1..=lines).map(|i| format!("{i}\n")).collect()
}

#[test]
fn stricter_of_lines_and_bytes_wins_at_each_end() {
    // Lines allow 2 at each end (4 and 6 bytes); bytes allow 3. The head is
    // cut at 3, mid-line (the line start is 1 byte back, more than 3/4); the
    // tail starts at 51 - 3 = 48, already a line start.
    let input = input_of(20);
    assert_truncated(
        &["--lines", "4", "--head", "3", "--tail", "3"],
        input,
        20,
        b"1\n2",
        45,
        b"20\n",
    );
}

#[test]
fn head_and_tail_as_sizes_and_percentages() {
    // 100 lines of 11 bytes. --head 200 of --max 200 leaves no tail and
    // moves back to the line boundary at 198.
    let input = repeated("0123456789\n", 100);
    for (args, head_end, tail_start) in [
        (&["--max", "110", "--head", "20%"][..], 22, 1_012),
        (&["--max", "110", "--tail", "44"], 66, 1_056),
        (
            &["--head", "11", "--tail", "3%", "--max", "1100"],
            11,
            1_067,
        ),
        (&["--max", "200", "--head", "200"], 198, 1_100),
    ] {
        let marker = format!("[... {} bytes truncated ...]", tail_start - head_end);
        let expected = truncated(
            1_100,
            100,
            &input[..head_end],
            &marker,
            &input[tail_start..],
        );
        assert_output(args, input.clone(), expected);
    }
}

#[test]
fn tokens_budget_is_four_bytes_per_token() {
    let input = repeated("abc\n", 100);
    assert_truncated(
        &["--tokens", "10"],
        &input,
        100,
        &input[..20],
        360,
        &input[380..],
    );
}

#[test]
fn toolcap_max_environment_sets_the_default() {
    let input = repeated("abc\n", 100);
    let expected = truncated(
        400,
        100,
        &input[..20],
        "[... 360 bytes truncated ...]",
        &input[380..],
    );
    toolcap()
        .env("TOOLCAP_MAX", "40")
        .write_stdin(input.clone())
        .assert()
        .success()
        .stdout(expected);
    toolcap()
        .env("TOOLCAP_MAX", "40")
        .args(["--max", "1k"])
        .write_stdin(input.clone())
        .assert()
        .stdout(input);
}

#[test]
fn no_header_omits_the_header_and_blank_line() {
    assert_output(
        &["--max", "4", "--no-header"],
        "a\nb\nc\nd\n",
        "a\n[... 4 bytes truncated ...]\nd\n",
    );
}

#[test]
fn file_and_stdin_give_the_same_output() {
    let dir = TempDir::new("file-vs-stdin");
    let input = repeated("some log line\n", 1_000);
    let path = dir.join("log");
    std::fs::write(&path, &input).expect("write the input file");
    // 14,000 bytes over the default 5,000 + 5,000: each cut moves 2 bytes to
    // a line boundary, leaving 357 whole lines of 14 bytes at each end.
    let expected = truncated(
        14_000,
        1_000,
        &input[..4_998],
        "[... 4004 bytes truncated ...]",
        &input[9_002..],
    );
    toolcap()
        .write_stdin(input.clone())
        .assert()
        .success()
        .stdout(expected.clone())
        .stderr("");
    toolcap()
        .arg(&path)
        .assert()
        .success()
        .stdout(expected.clone())
        .stderr("");
    toolcap()
        .arg("-")
        .pipe_stdin(&path)
        .expect("open the input file")
        .assert()
        .success()
        .stdout(expected)
        .stderr("");
}

#[test]
fn several_files_are_one_stream_in_order() {
    let dir = TempDir::new("several-files");
    std::fs::write(dir.join("a"), "a1\na2\n").expect("write a");
    std::fs::write(dir.join("b"), "b1\nb2").expect("write b");
    std::fs::write(dir.join("c"), "\nc1\n").expect("write c");
    toolcap()
        .current_dir(dir.path())
        .args(["a", "b", "-", "c"])
        .write_stdin("in\n")
        .assert()
        .success()
        .stdout("a1\na2\nb1\nb2in\n\nc1\n");
    let expected = truncated(15, 5, b"a1", "[... 10 bytes truncated ...]", b"c1\n");
    toolcap()
        .current_dir(dir.path())
        .args(["--max", "5", "a", "b", "c"])
        .write_stdin("")
        .assert()
        .stdout(expected);
}

#[test]
fn binary_input_passes_through_unchanged() {
    let input: Vec<u8> = (0..=255u8).cycle().take(1_000).collect();
    assert_output(&["--max", "1k"], input.clone(), input);
}
