//! Real tool output, generated here: compiler errors, a test runner, a
//! progress bar. The verdict at the end must survive the cap.

use crate::common::{TempDir, toolcap};

fn stdout_of(assert: assert_cmd::assert::Assert) -> String {
    String::from_utf8(assert.get_output().stdout.clone()).expect("toolcap's output is UTF-8")
}

#[test]
fn rustc_errors_keep_the_first_error_and_the_summary() {
    let dir = TempDir::new("rustc");
    let source: String = (0..200)
        .map(|i| format!("fn f{i}() -> u32 {{ \"not a number {i}\" }}\n"))
        .collect();
    std::fs::write(dir.join("broken.rs"), source + "fn main() {}\n").expect("write broken.rs");
    let assert = toolcap()
        .current_dir(dir.path())
        .args([
            "--max",
            "2k",
            "--",
            "rustc",
            "--color=never",
            "--crate-type=bin",
            "broken.rs",
        ])
        .assert()
        .code(1);
    let out = stdout_of(assert);
    assert!(out.starts_with("Warning: truncated output"), "{out}");
    assert!(out.contains("error[E0308]: mismatched types"), "{out}");
    assert!(out.contains(" bytes truncated ...]\n"), "{out}");
    assert!(
        out.contains("error: aborting due to 200 previous errors"),
        "{out}"
    );
    assert!(out.ends_with("[exit status: 1]\n"), "{out}");
    assert!(out.len() < 2_300, "{}", out.len());
}

#[test]
fn test_runner_output_keeps_the_verdict() {
    // A libtest-style run of 5,000 tests, one failing at the end.
    // (The verdict's long line is split in two pieces, to stay within 100
    // columns here.)
    let script = concat!(
        r#"echo "running 5000 tests"
i=0; while [ $i -lt 4999 ]; do echo "test tests::case_$i ... ok"; i=$((i+1)); done
echo "test tests::case_4999 ... FAILED"
echo
echo "failures:"
echo "    tests::case_4999"
echo
echo "test result: FAILED. 4999 passed; 1 failed; 0 ignored; "#,
        r#"0 measured; 0 filtered out; finished in 1.23s"
exit 101"#
    );
    let out = stdout_of(
        toolcap()
            .args(["--max", "1k", "-c", script])
            .assert()
            .code(101),
    );
    assert!(
        out.contains("running 5000 tests\ntest tests::case_0 ... ok\n"),
        "{out}"
    );
    assert!(
        out.contains("test result: FAILED. 4999 passed; 1 failed;"),
        "{out}"
    );
    assert!(
        out.ends_with("finished in 1.23s\n[exit status: 101]\n"),
        "{out}"
    );
    let header = "Warning: truncated output (original token count: ";
    assert!(out.starts_with(header), "{out}");
    assert!(out.contains("Total output lines: 5006\n"), "{out}");
}

#[test]
fn progress_bar_redraws_are_one_line_cut_mid_line() {
    // A \r-redrawn progress bar is one giant line: the cut cannot move to a
    // line boundary and stays at the byte budget, never splitting a char.
    let bar: String = (0..=1000)
        .map(|i| format!("\r[{:<50}] {i:>4}/1000 ▕", "█".repeat(i / 20)))
        .collect();
    let input = format!("{bar}\ndone\n");
    let out = stdout_of(
        toolcap()
            .args(["--max", "400"])
            .write_stdin(input.clone())
            .assert()
            .success(),
    );
    assert!(out.contains("Total output lines: 2\n"), "{out}");
    assert!(out.ends_with(" 1000/1000 ▕\ndone\n"), "{out}");
    // Valid UTF-8 in, valid UTF-8 out.
    assert!(std::str::from_utf8(out.as_bytes()).is_ok());
}
