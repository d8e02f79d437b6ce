//! `--show ID --grep PATTERN` (issue 24, item 1), and `--show` capped by a
//! budget: the numbered matching lines, --lines, --context, the cap and
//! its marker, no match, bad input.

use crate::common::{TempDir, toolcap};

/// A store under `dir` holding `input` (cut at 100 bytes, so kept), and
/// the id of that output.
fn stored(dir: &TempDir, input: &[u8]) -> (String, String) {
    let store = dir.join("store").display().to_string();
    toolcap()
        .args(["--max", "100", "--spill-dir", &store])
        .write_stdin(input.to_vec())
        .assert()
        .success();
    let listed = toolcap()
        .args(["--spill-dir", &store, "--list"])
        .output()
        .expect("list");
    let listed = String::from_utf8(listed.stdout).expect("UTF-8");
    let id = listed.split_whitespace().next().expect("an id").to_string();
    (store, id)
}

/// 3,000 lines of progress, every 300th a failure.
fn progress_log() -> Vec<u8> {
    (1..=3000)
        .map(|i| {
            if i % 300 == 0 {
                format!("FAILED test_{i}\n")
            } else {
                format!("progress {i}\n")
            }
        })
        .collect::<String>()
        .into_bytes()
}

#[test]
fn grep_prints_matching_lines_with_their_numbers_in_order() {
    let dir = TempDir::new("grep-lines");
    let (store, id) = stored(&dir, &progress_log());
    let expected: String = (1..=10)
        .map(|k| format!("{0}:FAILED test_{0}\n", k * 300))
        .collect();
    toolcap()
        .args([
            "--spill-dir",
            &store,
            "--show",
            &id[..4],
            "--grep",
            "FAILED",
        ])
        .assert()
        .success()
        .stdout(expected);
    // The pattern is --keep's: a regex, matched without the line end.
    toolcap()
        .args([
            "--spill-dir",
            &store,
            "--show",
            &id,
            "--grep",
            "^progress 29[89]$|test_3000$",
        ])
        .assert()
        .success()
        .stdout("298:progress 298\n299:progress 299\n3000:FAILED test_3000\n");
}

#[test]
fn grep_within_a_line_range_and_with_context() {
    let dir = TempDir::new("grep-context");
    let (store, id) = stored(&dir, &progress_log());
    toolcap()
        .args([
            "--spill-dir",
            &store,
            "--show",
            &id,
            "--grep",
            "FAILED",
            "--lines",
            "301:900",
        ])
        .assert()
        .success()
        .stdout("600:FAILED test_600\n900:FAILED test_900\n");
    toolcap()
        .args([
            "--spill-dir",
            &store,
            "--show",
            &id,
            "--grep",
            "FAILED",
            "--lines",
            "299:601",
            "--context",
            "1",
        ])
        .assert()
        .success()
        .stdout(
            "299-progress 299\n300:FAILED test_300\n301-progress 301\n--\n599-progress 599\n\
             600:FAILED test_600\n601-progress 601\n",
        );
    // Adjacent groups join without a separator; context stops at the range.
    toolcap()
        .args([
            "--spill-dir",
            &store,
            "--show",
            &id,
            "--grep",
            "^progress (5|7)$|FAILED",
            "--lines",
            "4:8",
            "--context",
            "1",
        ])
        .assert()
        .success()
        .stdout("4-progress 4\n5:progress 5\n6-progress 6\n7:progress 7\n8-progress 8\n");
}

#[test]
fn grep_is_capped_and_its_marker_counts_the_matching_lines_left_out() {
    let dir = TempDir::new("grep-capped");
    let input: Vec<u8> = (1..=2000)
        .map(|i| {
            if i % 100 == 0 {
                format!("error {i:04}\n")
            } else {
                format!("ok {i:04}\n")
            }
        })
        .collect::<String>()
        .into_bytes();
    let (store, id) = stored(&dir, &input);
    // 9 rows of 15 bytes ("100:error 0100\n") and 11 of 16: 311 bytes,
    // 78 tokens; --max 100 keeps 50 of each end, snapped to lines: 3 rows
    // (45 bytes) and 3 (48), so 218 bytes are left out.
    let path = format!("{store}/{id}.log");
    let out = toolcap()
        .args([
            "--spill-dir",
            &store,
            "--show",
            &id,
            "--grep",
            "error",
            "--max",
            "100",
        ])
        .output()
        .expect("show");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).expect("UTF-8"),
        format!(
            "Warning: truncated output (original token count: 78)\nTotal output lines: 20\n\n\
             100:error 0100\n200:error 0200\n300:error 0300\n\
             [... 218 bytes truncated: 14 matching lines left out (lines 400-1700); full output \
             in {path} ...]\n\
             1800:error 1800\n1900:error 1900\n2000:error 2000\n"
        )
    );
    // Within the default budget (10k): no marker.
    let out = toolcap()
        .args(["--spill-dir", &store, "--show", &id, "--grep", "error"])
        .output()
        .expect("show");
    assert_eq!(out.stdout.len(), 9 * 15 + 11 * 16);
    // --keep does not pick among matching lines; --tokens is a budget too.
    let out = toolcap()
        .args([
            "--spill-dir",
            &store,
            "--show",
            &id,
            "--grep",
            "error",
            "--tokens",
            "25",
            "--keep",
            "1000",
        ])
        .output()
        .expect("show");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(!text.contains("1000:error"), "{text}");
    assert!(text.contains(" matching lines left out (lines "), "{text}");
}

#[test]
fn show_with_a_budget_caps_and_its_marker_names_the_stored_lines() {
    let dir = TempDir::new("show-capped");
    let input: Vec<u8> = (1..=1000)
        .map(|i| format!("line {i}\n"))
        .collect::<String>()
        .into_bytes();
    let (store, id) = stored(&dir, &input);
    let path = format!("{store}/{id}.log");
    toolcap()
        .args(["--spill-dir", &store, "--show", &id])
        .args(["--lines", "501:600", "--max", "60", "--no-header"])
        .assert()
        .success()
        .stdout(format!(
            "line 501\nline 502\nline 503\n\
             [... 846 bytes truncated (lines 504-597); full output in {path} ...]\n\
             line 598\nline 599\nline 600\n"
        ));
    // No budget: byte for byte, as before.
    toolcap()
        .args(["--spill-dir", &store, "--show", &id])
        .assert()
        .success()
        .stdout(input);
}

#[test]
fn grep_without_a_match_prints_nothing_and_exits_1() {
    let dir = TempDir::new("grep-none");
    let (store, id) = stored(&dir, &progress_log());
    toolcap()
        .args(["--spill-dir", &store, "--show", &id, "--grep", "panicked"])
        .assert()
        .code(1)
        .stdout("")
        .stderr("");
    // Matches outside the range do not count.
    toolcap()
        .args([
            "--spill-dir",
            &store,
            "--show",
            &id,
            "--grep",
            "FAILED",
            "--lines",
            "1:299",
        ])
        .assert()
        .code(1)
        .stdout("");
}

#[test]
fn grep_refuses_a_bad_pattern_and_options_without_their_partner() {
    let dir = TempDir::new("grep-bad");
    let (store, id) = stored(&dir, &progress_log());
    for (args, message) in [
        (
            vec!["--show", &id, "--grep", "(FAILED"],
            "toolcap: invalid value '(FAILED' for '--grep': unclosed group\n",
        ),
        (
            vec!["--grep", "x"],
            "toolcap: --grep is for --show ID: it searches a stored output\n",
        ),
        (
            vec!["--list", "--grep", "x"],
            "toolcap: --grep is for --show ID: it searches a stored output\n",
        ),
        (
            vec!["--show", &id, "--context", "2"],
            "toolcap: --context needs --grep (and --show ID)\n",
        ),
        (
            vec!["--show", &id, "--grep", "x", "--context", "two"],
            "toolcap: invalid value 'two' for '--context <N>': expected a whole number, e.g. 100\n",
        ),
    ] {
        toolcap()
            .args(["--spill-dir", &store])
            .args(&args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(message);
    }
    toolcap()
        .args(["--spill-dir", &store, "--show", "zzzz", "--grep", "x"])
        .assert()
        .code(1)
        .stderr(format!(
            "toolcap: no output 'zzzz' in the spill store '{store}' (toolcap --list shows them)\n"
        ));
}

#[test]
fn grep_numbers_a_last_line_without_newline_and_ends_it() {
    let dir = TempDir::new("grep-last");
    let input: Vec<u8> = (1..=200)
        .map(|i| format!("row {i}\n"))
        .collect::<String>()
        .into_bytes();
    let mut input = input;
    input.extend_from_slice(b"row end");
    let (store, id) = stored(&dir, &input);
    toolcap()
        .args([
            "--spill-dir",
            &store,
            "--show",
            &id,
            "--grep",
            "end$|^row 200$",
        ])
        .assert()
        .success()
        .stdout("200:row 200\n201:row end\n");
}

#[test]
fn show_of_a_large_output_with_a_budget_is_capped() {
    let dir = TempDir::new("show-large");
    // 2 MB: a 1 MB line without a newline between many short lines.
    let mut input: Vec<u8> = (1..=50_000)
        .map(|i| format!("row {i}\n"))
        .collect::<String>()
        .into_bytes();
    input.extend(std::iter::repeat_n(b'x', 1_000_000));
    input.extend(
        (50_001..=100_000)
            .map(|i| format!("\nrow {i}"))
            .collect::<String>()
            .into_bytes(),
    );
    input.push(b'\n');
    let (store, id) = stored(&dir, &input);
    let out = toolcap()
        .args([
            "--spill-dir",
            &store,
            "--show",
            &id,
            "--max",
            "16k",
            "--no-header",
        ])
        .output()
        .expect("show");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(text.len() < 16_500, "{}", text.len());
    assert!(
        text.starts_with("row 1\nrow 2\n") && text.ends_with("row 99999\nrow 100000\n"),
        "{text}"
    );
    assert!(text.contains(" bytes truncated (lines "), "{text}");
}
