//! `--window TOKENS [--recent K] [--window-ceiling SIZE]`: the budget is
//! floor(TOKENS / 2K) tokens (K = 4 by default), at most the ceiling in
//! bytes (256 KiB by default) and at least 1,000 bytes, tokens being as for
//! `--tokens`. Each case is checked against the budget the guide's
//! arithmetic gives, spelled as `--max` (or `--tokens`), at its bounds.

use crate::common::{stdout_of, toolcap};

/// 700 KB of numbered lines: over every budget below.
fn input() -> Vec<u8> {
    (0..70_000)
        .flat_map(|i| format!("line {i:>4}\n").into_bytes())
        .collect()
}

#[test]
fn the_budget_is_the_window_over_twice_the_recent_results_in_bytes() {
    let input = input();
    let cases: &[(&[&str], &str)] = &[
        // 200k / 8 = 25,000 tokens of 4 bytes.
        (&["--window", "200k"], "100000"),
        (&["--window", "200000", "--recent", "1"], "262144"),
        (&["--window", "200k", "--recent", "5"], "80000"),
        // Rounded down: 2,007 / 8 = 250 tokens, the floor exactly.
        (&["--window", "2000"], "1000"),
        (&["--window", "2007"], "1000"),
        (&["--window", "2008"], "1004"),
        // Under the floor.
        (&["--window", "1999"], "1000"),
        (&["--window", "0"], "1000"),
        (&["--window", "100", "--recent", "1000"], "1000"),
        // At and over the default ceiling, 256 KiB: 65,536 tokens.
        (&["--window", "524288"], "262144"),
        (&["--window", "524296"], "262144"),
        (&["--window", "524280"], "262140"),
        (&["--window", "10G"], "262144"),
        // A ceiling of its own, and the floor under it.
        (&["--window", "200k", "--window-ceiling", "10k"], "10000"),
        (&["--window", "200k", "--window-ceiling", "1000"], "1000"),
        (&["--window", "10", "--window-ceiling", "1000"], "1000"),
    ];
    for (args, max) in cases {
        assert_eq!(
            stdout_of(args, &input),
            stdout_of(&["--max", max], &input),
            "{args:?} should be --max {max}"
        );
    }
    // --head and --tail are bytes of it, as under --tokens.
    assert_eq!(
        stdout_of(&["--window", "200k", "--head", "10%"], &input),
        stdout_of(&["--max", "100000", "--head", "10%"], &input)
    );
}

#[test]
fn with_a_real_tokenizer_the_budget_stays_in_tokens() {
    let input = input();
    let cases: &[(&[&str], &str)] = &[
        (&["--window", "200k"], "25000"),
        // The bounds, at 4 bytes a token: 250 and 65,536 tokens.
        (&["--window", "1000"], "250"),
        (&["--window", "10M"], "65536"),
        (&["--window", "200k", "--window-ceiling", "10k"], "2500"),
    ];
    for (args, tokens) in cases {
        let tokenizer = ["--tokenizer", "o200k"];
        assert_eq!(
            stdout_of(&[*args, &tokenizer[..]].concat(), &input),
            stdout_of(&["--tokens", tokens, "--tokenizer", "o200k"], &input),
            "{args:?} should be --tokens {tokens}"
        );
    }
}

#[test]
fn window_options_are_checked() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--window", "1k", "--max", "3"],
            "--max and --window cannot be used together: exactly one of them sets the budget",
        ),
        (
            &["--window", "1k", "--tokens", "3"],
            "--tokens and --window cannot be used together: exactly one of them sets the budget",
        ),
        (
            &["--window", "1k", "--recent", "0"],
            "invalid value '0' for '--recent <K>': at least 1 result is kept whole",
        ),
        (
            &["--window", "1k", "--window-ceiling", "999"],
            "invalid value '999' for '--window-ceiling <SIZE>': at least 1000 bytes, the least \
             budget --window gives",
        ),
        (
            &["--window", "1k", "--head", "1", "--tail", "1"],
            "--window cannot be combined with both --head and --tail: give one of them, or --max",
        ),
    ];
    for (args, message) in cases {
        toolcap()
            .args(*args)
            .write_stdin("x\n")
            .assert()
            .code(2)
            .stderr(format!("toolcap: {message}\n"));
    }
    for (option, name) in [
        (["--recent", "2"], "--recent"),
        (["--window-ceiling", "1k"], "--window-ceiling"),
    ] {
        toolcap()
            .args(option)
            .write_stdin("x\n")
            .assert()
            .code(2)
            .stderr(format!("toolcap: {name} needs --window\n"));
    }
    // TOOLCAP_MAX is a default: --window replaces it.
    let input = input();
    let output = toolcap()
        .args(["--window", "2000"])
        .env("TOOLCAP_MAX", "50k")
        .write_stdin(input.clone())
        .output()
        .expect("run toolcap");
    assert_eq!(output.stdout, stdout_of(&["--max", "1000"], &input));
}
