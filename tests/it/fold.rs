//! `--fold` through the binary, byte for byte: the marker with and without
//! a spill file, runs broken by protected lines, and the header and cut
//! markers of a folded stream. (The model comparison, over random input
//! and chunkings, is in clean_properties.rs.)

use crate::common::{TempDir, assert_condensed, assert_output, padded, toolcap};

fn numbered(prefix: &str, range: std::ops::RangeInclusive<u32>) -> String {
    range.map(|i| format!("{prefix}{i}\n")).collect()
}

#[test]
fn a_run_keeps_its_first_and_last_line() {
    let input = format!(
        "start\n{}end\n",
        numbered("t[", 0..=3).replace('\n', "] ok\n")
    );
    assert_condensed(
        &["--fold"],
        &input,
        "start\nt[0] ok\n[... 2 similar lines folded ...]\nt[3] ok\nend\n",
    );
    // Two similar lines are not a run; numbers, ids and spacing apart.
    assert_output(&["--fold"], "x 1\nx 2\ny\n", "x 1\nx 2\ny\n");
    assert_condensed(
        &["--fold"],
        "took 0.5s id=deadbeef01\ntook  12.25s id=0123456789abcdef\ntook\t3s id=cafebabe\n",
        "took 0.5s id=deadbeef01\n[... 1 similar line folded ...]\ntook\t3s id=cafebabe\n",
    );
    // Lines no longer than the marker stay, and so does a stream that
    // fits the budget as it is.
    assert_output(
        &["--fold", "--max", "20"],
        "n 1\nn 2\nn 3\nn 4\n",
        "n 1\nn 2\nn 3\nn 4\n",
    );
    let long = padded("n 1\nn 2\nn 3\nn 4\n");
    assert_output(&["--fold"], long.clone(), long);
}

#[test]
fn clean_folds_too() {
    assert_condensed(
        &["--clean"],
        "\x1b[32mok 1\x1b[0m\nok 2\nok 3\nok 4\n",
        "ok 1\n[... 2 similar lines folded ...]\nok 4\n",
    );
}

#[test]
fn markers_name_raw_lines_when_spilling() {
    let dir = TempDir::new("fold-spill");
    let spill = dir.join("full.log");
    // Raw lines 1-3 squeeze into two (the repeats are raw lines 2-3);
    // rows are raw lines 4-8, of which 5-7 are folded.
    let input = padded(&format!("a\na\na\n{}", numbered("row ", 1..=5)));
    let expected = padded(
        "a\n[... previous line repeated 2 more times (lines 2-3) ...]\nrow 1\n\
         [... 3 similar lines folded (lines 5-7) ...]\nrow 5\n",
    );
    // Nothing cut: the last line names the file the markers point into.
    let note = format!(
        "[... cleaned: {} raw bytes became {} bytes; full output in {} ...]\n",
        input.len(),
        expected.len(),
        spill.display()
    );
    toolcap()
        .args([
            "--squeeze",
            "--fold",
            "--max",
            &expected.len().to_string(),
            "--spill",
        ])
        .arg(&spill)
        .write_stdin(input.clone())
        .assert()
        .success()
        .stdout(expected + &note);
    assert_eq!(std::fs::read_to_string(&spill).unwrap(), input);
}

#[test]
fn a_cut_counts_the_folded_stream_and_names_raw_lines() {
    let dir = TempDir::new("fold-cut");
    let spill = dir.join("full.log");
    // Raw: head, row 0 .. row 99 (lines 2-101), tail (line 102). Folded:
    // head, row 0, the marker for raw lines 3-100, row 99, tail.
    let input = format!("head\n{}tail\n", numbered("row ", 0..=99));
    let marker = "[... 98 similar lines folded (lines 3-100) ...]\n";
    let folded = format!("head\nrow 0\n{marker}row 99\ntail\n");
    let output = toolcap()
        .args(["--fold", "--head", "11", "--tail", "12", "--spill"])
        .arg(&spill)
        .write_stdin(input.clone())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let expected = format!(
        "Warning: truncated output (original token count: {})\n\
         Total output lines: 5\n\
         Cleaned: {} raw bytes became {} bytes\n\n\
         head\nrow 0\n\
         [... {} bytes truncated (lines 3-100); full output in {} ...]\n\
         row 99\ntail\n",
        folded.len().div_ceil(4),
        input.len(),
        folded.len(),
        marker.len(),
        spill.display()
    );
    assert_eq!(String::from_utf8_lossy(&output), expected);
}

#[test]
fn a_protected_line_breaks_a_run_and_stays() {
    let input = numbered("check ", 1..=9).replace('\n', " passed\n");
    assert_condensed(
        &["--fold", "--keep", "^check 5 "],
        &input,
        "check 1 passed\n[... 2 similar lines folded ...]\ncheck 4 passed\n\
         check 5 passed\n\
         check 6 passed\n[... 2 similar lines folded ...]\ncheck 9 passed\n",
    );
    // --keep-errors protects every line here: nothing is folded.
    let retries = numbered("retry ", 1..=4).replace('\n', " failed\n");
    // (Under a budget the stream does not fit, so that folding would
    // apply: the cut output holds no fold marker.)
    let output = toolcap()
        .args(["--fold", "--keep-errors", "--max", "100"])
        .write_stdin(padded(&retries))
        .output()
        .expect("run toolcap");
    assert!(output.status.success());
    assert!(!String::from_utf8_lossy(&output.stdout).contains("folded"));
    assert_condensed(
        &["--fold"],
        &retries,
        "retry 1 failed\n[... 2 similar lines folded ...]\nretry 4 failed\n",
    );
}

#[test]
fn fold_patterns_make_lines_similar() {
    let input = "   Compiling serde v1.0.1\n   Compiling libc v0.2.3\n   Compiling regex v1.11.0\n\
                 error[E0308]: mismatched types\n";
    assert_condensed(&["--fold"], input, input);
    assert_condensed(
        &["--fold", "--fold-pattern", "^ +Compiling "],
        input,
        "   Compiling serde v1.0.1\n[... 1 similar line folded ...]\n   Compiling regex v1.11.0\n\
         error[E0308]: mismatched types\n",
    );
}

#[test]
fn fold_pattern_needs_fold() {
    toolcap()
        .args(["--fold-pattern", "x"])
        .write_stdin("x\n")
        .assert()
        .code(2)
        .stdout("")
        .stderr("toolcap: --fold-pattern needs --fold (or --clean)\n");
    toolcap()
        .args(["--fold", "--fold-pattern", "("])
        .write_stdin("x\n")
        .assert()
        .code(2)
        .stderr(predicates::str::starts_with(
            "toolcap: invalid value '(' for '--fold-pattern': ",
        ));
}

/// Issue 21: `--clean --keep-errors` folded away the one 500 of an access
/// log, and `job 2: exit 1` between two `exit 0` lines: a line with
/// another status is not similar to its neighbours.
#[test]
fn a_line_with_another_status_is_never_folded() {
    let log = "GET /a 200 12ms\nGET /a 200 9ms\nGET /a 500 31ms\nGET /a 200 8ms\nGET /a 200 7ms\n";
    assert_output(&["--clean", "--keep-errors"], log, log);
    let jobs = "job 1: exit 0\njob 2: exit 1\njob 3: exit 0\n";
    assert_output(&["--clean", "--keep-errors"], jobs, jobs);
    // The same statuses still fold.
    let ok: String = (0..6)
        .map(|i| format!("127.0.0.1 \"GET /x/{i} HTTP/1.1\" 200 {i}\n"))
        .collect();
    assert_condensed(
        &["--clean"],
        &ok,
        "127.0.0.1 \"GET /x/0 HTTP/1.1\" 200 0\n\
         [... 4 similar lines folded ...]\n\
         127.0.0.1 \"GET /x/5 HTTP/1.1\" 200 5\n",
    );
}
