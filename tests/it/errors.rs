//! Bad input and faults: one clear line, the right exit status, nothing lost.

use predicates::prelude::*;

use crate::common::{Need, TempDir, repeated, require, toolcap, truncated};

#[test]
fn unreadable_file_is_reported_and_the_others_are_read() {
    let dir = TempDir::new("unreadable");
    std::fs::write(dir.join("good"), "good\n").expect("write the good file");
    std::fs::create_dir(dir.join("a-directory")).expect("create the directory");
    toolcap()
        .current_dir(dir.path())
        .args(["missing", "good", "a-directory", "", "good"])
        .assert()
        .code(1)
        .stdout("good\ngood\n")
        .stderr(
            "toolcap: 'missing': No such file or directory (os error 2)\n\
             toolcap: 'a-directory': Is a directory (os error 21)\n\
             toolcap: '': No such file or directory (os error 2)\n",
        );
    // An empty path to write to is a usage error that says so.
    for option in ["--spill", "--spill-dir"] {
        toolcap()
            .current_dir(dir.path())
            .args([option, "", "good"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!(
                "toolcap: invalid value '' for '{option} <{}>': expected a path, not an empty \
                 string\n",
                if option == "--spill" { "FILE" } else { "DIR" }
            ));
    }
}

#[test]
fn bad_sizes_are_usage_errors_that_quote_the_value() {
    for bad in ["1.5k", "10QB", "-3", "99999999999999999999", ""] {
        toolcap()
            .arg(format!("--max={bad}"))
            .assert()
            .code(2)
            .stdout("")
            .stderr(
                predicate::str::contains(format!("'{bad}'")).and(
                    predicate::str::contains("expected digits")
                        .or(predicate::str::contains("too large")),
                ),
            );
    }
    toolcap()
        .args(["--head", "120%"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("'120%'"));
    toolcap()
        .env("TOOLCAP_MAX", "ten")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "toolcap: invalid value 'ten' for TOOLCAP_MAX: expected digits",
        ));
}

#[test]
fn files_and_a_command_together_are_a_usage_error() {
    toolcap()
        .args(["file", "--", "echo"])
        .assert()
        .code(2)
        .stdout("");
    toolcap()
        .args(["--timeout", "1s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--timeout"));
}

#[test]
fn help_documents_sizes_format_and_exit_statuses() {
    toolcap().arg("--help").assert().success().stdout(
        predicate::str::contains("10k is 10,000 bytes")
            .and(predicate::str::contains("[... {N} bytes truncated ...]"))
            .and(predicate::str::contains("Exit status:"))
            .and(predicate::str::contains(
                "Wrap mode: the command's own status",
            )),
    );
}

#[test]
fn stdout_closed_early_is_a_quiet_success_and_the_spill_is_complete() {
    let dir = TempDir::new("closed-stdout");
    let spill = dir.join("full");
    let script = format!(
        "head -c 5000000 /dev/zero | tr '\\0' 'x' | fold -w 99 \
         | {} --max 2M --spill {} | head -c 10",
        crate::common::BIN,
        spill.display()
    );
    let output = crate::common::command("bash")
        .args(["-o", "pipefail", "-c", &script])
        .output()
        .expect("run bash");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(output.stdout, b"Warning: t");
    assert_eq!(output.stderr, b"");
    assert_eq!(
        std::fs::metadata(&spill).expect("the spill file").len(),
        5_000_000 + 5_000_000 / 99
    );
}

#[test]
fn stdout_that_fails_is_an_error() {
    if !require(Need::DevFull) {
        return;
    }
    let dev_full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("open /dev/full");
    let dir = TempDir::new("dev-full");
    let input = dir.join("input");
    std::fs::write(&input, "some output\n").expect("write the input");
    let output = crate::common::std_toolcap()
        .stdout(dev_full)
        .arg(&input)
        .output()
        .expect("run toolcap");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "toolcap: cannot write to stdout: No space left on device (os error 28)\n"
    );
}

#[test]
fn spill_failure_still_gives_the_capped_output() {
    let input = repeated("abcd\n", 10);
    for (spill, reason) in [
        (
            "/nonexistent/dir/spill",
            "cannot create spill file '/nonexistent/dir/spill': \
             No such file or directory (os error 2)",
        ),
        (
            "/dev/full",
            "cannot write spill file '/dev/full': No space left on device (os error 28)",
        ),
    ] {
        // The first case runs anywhere.
        if spill == "/dev/full" && !require(Need::DevFull) {
            continue;
        }
        let marker =
            format!("[... 40 bytes truncated (lines 2-9); full output not saved: {reason} ...]");
        toolcap()
            .args(["--max", "10", "--spill", spill])
            .write_stdin(input.clone())
            .assert()
            .code(1)
            .stdout(truncated(50, 10, b"abcd\n", &marker, b"abcd\n"))
            .stderr(format!("toolcap: {reason}\n"));
    }
}

#[test]
fn spill_failure_without_truncation_is_still_reported() {
    toolcap()
        .args(["--spill", "/nonexistent/spill"])
        .write_stdin("fits\n")
        .assert()
        .code(1)
        .stdout("fits\n")
        .stderr(predicate::str::starts_with(
            "toolcap: cannot create spill file '/nonexistent/spill'",
        ));
}

#[test]
fn max_is_a_ceiling_that_head_and_tail_may_not_exceed() {
    for (args, message) in [
        (
            &["--max", "100", "--head", "200"][..],
            "--head (200 bytes) exceeds --max (100 bytes): --max is the ceiling for head and \
             tail together",
        ),
        (
            &["--max", "100", "--tail", "101"],
            "--tail (101 bytes) exceeds --max (100 bytes): --max is the ceiling for head and \
             tail together",
        ),
        (
            &["--max", "100", "--head", "60", "--tail", "50"],
            "--head and --tail (110 bytes together) exceed --max (100 bytes): --max is the \
             ceiling for head and tail together",
        ),
        (
            &["--tokens", "10", "--head", "10", "--tail", "10"],
            "--tokens cannot be combined with both --head and --tail: give one of them, or --max",
        ),
        (
            &["--head", "20k"],
            "--head (20000 bytes) exceeds --max (10000 bytes): --max is the ceiling for head \
             and tail together",
        ),
    ] {
        toolcap()
            .args(args)
            .write_stdin("anything\n")
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!("toolcap: {message}\n"));
    }
}

#[test]
fn every_usage_error_is_one_line() {
    for (args, message) in [
        (
            &["--"][..],
            "no program after '--': give one, as in 'toolcap -- make test'",
        ),
        (
            &["--tokens", "1.5"],
            "invalid value '1.5' for '--tokens <COUNT>': expected a whole number, e.g. 100",
        ),
        (
            &["--lines", "1e3"],
            "invalid value '1e3' for '--lines <N>': expected a whole number, e.g. 100",
        ),
        // clap would suggest writing '-- -1', which runs a program '-1'.
        (&["-1"], "unexpected argument '-1' found"),
        (
            &["--maxx", "3"],
            "unexpected argument '--maxx' found (a similar argument exists: '--max')",
        ),
        (
            &["--timeout", "5s"],
            "--timeout is for wrap mode: give a command, as in 'toolcap --timeout ... -- \
             PROGRAM' or '-c STRING'",
        ),
        (
            &["--stderr-max", "1k", "file"],
            "--stderr-max is for wrap mode: give a command, as in 'toolcap --stderr-max ... -- \
             PROGRAM' or '-c STRING'",
        ),
        (
            &["--no-stdin"],
            "--no-stdin is for wrap mode: give a command, as in 'toolcap --no-stdin ... -- \
             PROGRAM' or '-c STRING'",
        ),
        (
            &["--spill", "a", "--no-spill"],
            "the argument '--spill <FILE>' cannot be used with '--no-spill'",
        ),
    ] {
        toolcap()
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!("toolcap: {message}\n"));
    }
}

#[test]
fn empty_environment_values_count_as_unset_and_no_spill_wins() {
    let dir = TempDir::new("empty-env");
    let input = repeated("abcd\n", 3_000);
    toolcap()
        .env("TOOLCAP_MAX", "")
        .env("TOOLCAP_SPILL_DIR", "")
        .write_stdin(input.clone())
        .assert()
        .success()
        .stdout(truncated(
            15_000,
            3_000,
            &input[..5_000],
            "[... 5000 bytes truncated ...]",
            &input[10_000..],
        ));
    toolcap()
        .env("TOOLCAP_SPILL_DIR", dir.path())
        .args(["--max", "10", "--no-spill"])
        .write_stdin(repeated("abcd\n", 10))
        .assert()
        .success()
        .stdout(truncated(
            50,
            10,
            b"abcd\n",
            "[... 40 bytes truncated ...]",
            b"abcd\n",
        ));
    assert_eq!(
        std::fs::read_dir(dir.path()).expect("list").count(),
        0,
        "--no-spill left a file"
    );
}

#[test]
fn toolcap_max_is_what_percentages_are_of() {
    // 20% + 80% of TOOLCAP_MAX=100: a head of 20 bytes and a tail of 80.
    let input: Vec<u8> = (0..1000)
        .flat_map(|i| format!("{i:04}\n").into_bytes())
        .collect();
    toolcap()
        .env("TOOLCAP_MAX", "100")
        .args(["--head", "20%", "--tail", "80%"])
        .write_stdin(input.clone())
        .assert()
        .success()
        .stdout(truncated(
            5_000,
            1_000,
            &input[..20],
            "[... 4900 bytes truncated ...]",
            &input[4_920..],
        ));
    toolcap()
        .env("TOOLCAP_MAX", "100")
        .args(["--head", "200"])
        .assert()
        .code(2)
        .stderr(
            "toolcap: --head (200 bytes) exceeds TOOLCAP_MAX (100 bytes): TOOLCAP_MAX is the \
             ceiling for head and tail together\n",
        );
}

#[test]
fn control_characters_in_names_and_values_stay_escaped_on_one_line() {
    toolcap()
        .arg("no\nsuch")
        .assert()
        .code(1)
        .stderr("toolcap: 'no\\nsuch': No such file or directory (os error 2)\n");
    toolcap()
        .arg("--max=1\n2")
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "toolcap: invalid value '1\\n2' for '--max <SIZE>': expected digits",
        ));
}

/// An executable `toolcap-test-prog` in `bin`, for a PATH of `bin` alone.
fn fake_program(bin: &TempDir) {
    let program = bin.join("toolcap-test-prog");
    std::fs::write(&program, "#!/bin/sh\necho ran\n").unwrap();
    let mut permissions = std::fs::metadata(&program).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&program, permissions).unwrap();
}

#[test]
fn a_file_that_names_a_program_on_path_gets_the_hint_to_run_it() {
    let bin = TempDir::new("hint-bin");
    let cwd = TempDir::new("hint-cwd");
    fake_program(&bin);
    let run = |args: &[&str]| {
        toolcap()
            .current_dir(cwd.path())
            .env("PATH", bin.path())
            .args(args)
            .assert()
            .code(1)
    };
    run(&["--max", "10k", "toolcap-test-prog", "test"]).stderr(
        "toolcap: 'toolcap-test-prog': No such file or directory (os error 2); to run it, put -- \
         before it: toolcap --max 10k -- toolcap-test-prog test\n\
         toolcap: 'test': No such file or directory (os error 2)\n",
    );
    run(&["toolcap-test-prog", "it's"]).stderr(
        "toolcap: 'toolcap-test-prog': No such file or directory (os error 2); to run it, put -- \
         before it: toolcap -- toolcap-test-prog 'it'\\''s'\n\
         toolcap: 'it's': No such file or directory (os error 2)\n",
    );
    // Options after it would be the program's: the hint says where -- goes.
    run(&["toolcap-test-prog", "--max", "3"]).stderr(
        "toolcap: 'toolcap-test-prog': No such file or directory (os error 2); to run it, put -- \
         before it and its arguments, after toolcap's options\n",
    );
    // Not on PATH, not the first FILE, or a path: no hint.
    run(&["no-such-program"])
        .stderr("toolcap: 'no-such-program': No such file or directory (os error 2)\n");
    run(&["./toolcap-test-prog"])
        .stderr("toolcap: './toolcap-test-prog': No such file or directory (os error 2)\n");
}

#[test]
fn an_unexpected_argument_after_a_program_on_path_gets_the_hint_to_run_it() {
    let bin = TempDir::new("hint-unexpected-bin");
    let cwd = TempDir::new("hint-unexpected-cwd");
    fake_program(&bin);
    let run = |args: &[&str]| {
        toolcap()
            .current_dir(cwd.path())
            .env("PATH", bin.path())
            .args(args)
            .assert()
            .code(2)
            .stdout("")
    };
    // clap refuses `-la` before the FILE is read: its error, then the hint.
    run(&["--max", "10k", "toolcap-test-prog", "-la"]).stderr(
        "toolcap: unexpected argument '-l' found; 'toolcap-test-prog' is a program: to run it, \
         put -- before it: toolcap --max 10k -- toolcap-test-prog -la\n",
    );
    run(&["toolcap-test-prog", "log", "--oneline", "it's"]).stderr(
        "toolcap: unexpected argument '--oneline' found; 'toolcap-test-prog' is a program: to run \
         it, put -- before it: toolcap -- toolcap-test-prog log --oneline 'it'\\''s'\n",
    );
    // A value of toolcap's option is not the FILE.
    run(&["--spill", "toolcap-test-prog", "toolcap-test-prog", "-j8"]).stderr(
        "toolcap: unexpected argument '-j' found; 'toolcap-test-prog' is a program: to run it, \
         put -- before it: toolcap --spill toolcap-test-prog -- toolcap-test-prog -j8\n",
    );
    // toolcap took an option between them: the hint says where -- goes.
    run(&["toolcap-test-prog", "--max", "3", "-la"]).stderr(
        "toolcap: unexpected argument '-l' found; 'toolcap-test-prog' is a program: to run it, \
         put -- before it and its arguments, after toolcap's options\n",
    );
    // An existing file, a word not on PATH, a path, no word before the
    // unexpected argument, or -c: clap's error alone.
    std::fs::write(cwd.join("toolcap-test-prog"), "a file\n").unwrap();
    run(&["toolcap-test-prog", "-la"]).stderr("toolcap: unexpected argument '-l' found\n");
    std::fs::remove_file(cwd.join("toolcap-test-prog")).unwrap();
    run(&["no-such-program", "-la"]).stderr("toolcap: unexpected argument '-l' found\n");
    run(&["./toolcap-test-prog", "-la"]).stderr("toolcap: unexpected argument '-l' found\n");
    run(&["-la", "toolcap-test-prog"]).stderr("toolcap: unexpected argument '-l' found\n");
    run(&["-c", "true", "toolcap-test-prog", "-la"])
        .stderr("toolcap: unexpected argument '-l' found\n");
}

#[test]
fn every_size_duration_and_count_error_names_the_option_and_quotes_the_value_once() {
    const SIZE: &str = "expected digits with an optional suffix b, k, kb, m, mb, g, gb (powers of \
                        1000) or ki, kib, mi, mib, gi, gib (powers of 1024), e.g. 10k or 4Mi";
    const COUNT: &str = "expected a whole number, e.g. 100";
    const DURATION: &str = "expected digits with an optional unit ms, s, m or h (plain digits \
                            are seconds), e.g. 500ms or 30s";
    let part = format!("{SIZE}, or a percentage from 0% to 100%");
    let options = [
        ("--max", "SIZE", SIZE),
        ("-m", "SIZE", SIZE),
        ("--count-limit", "SIZE", SIZE),
        ("--retain-size", "SIZE", SIZE),
        ("--max-line", "SIZE", SIZE),
        ("--keep-max", "SIZE", SIZE),
        ("--json-limit", "SIZE", SIZE),
        ("--stderr-max", "SIZE", SIZE),
        ("--head", "SIZE|PCT", &part),
        ("--tail", "SIZE|PCT", &part),
        ("--tokens", "COUNT", COUNT),
        ("--chars", "COUNT", COUNT),
        ("--lines", "N", COUNT),
        ("-n", "N", COUNT),
        ("--retain", "N", COUNT),
        ("--keep-context", "N", COUNT),
        ("--context", "N", COUNT),
        ("--timeout", "DURATION", DURATION),
        ("--kill-after", "DURATION", DURATION),
        ("--drain", "DURATION", DURATION),
    ];
    for (option, value_name, expected) in options {
        let long = match option {
            "-m" => "--max",
            "-n" => "--lines",
            long => long,
        };
        // A negative number is a value, not an unknown flag; each form of
        // giving it says the same.
        for (args, value) in [
            (vec![option, "-3"], "-3"),
            (vec![option, "1.5k"], "1.5k"),
            (vec![option, "x y"], "x y"),
        ] {
            toolcap()
                .args(&args)
                .assert()
                .code(2)
                .stdout("")
                .stderr(format!(
                    "toolcap: invalid value '{value}' for '{long} <{value_name}>': {expected}\n"
                ));
        }
    }
    for (args, message) in [
        (
            &["--max", "99999999999999999999"][..],
            "invalid value '99999999999999999999' for '--max <SIZE>': too large: at most \
             18446744073709551615 bytes",
        ),
        (
            &["--head", "120%"],
            "invalid value '120%' for '--head <SIZE|PCT>': expected a whole percentage from 0% \
             to 100%, e.g. 20%",
        ),
        (
            &["--retain", "99999999999999999999"],
            "invalid value '99999999999999999999' for '--retain <N>': too large: at most \
             18446744073709551615",
        ),
        (
            &["--lines", "3:x"],
            "invalid value '3:x' for '--lines <N>': expected a line range A:B with 1 <= A <= B, \
             e.g. 10:20",
        ),
        (
            &["--lines", "0:2"],
            "invalid value '0:2' for '--lines <N>': expected a line range A:B with 1 <= A <= B, \
             e.g. 10:20",
        ),
        (
            &["--tokens", "5000000000000000000"],
            "invalid value '5000000000000000000' for '--tokens <COUNT>': too large: at most \
             4611686018427387903",
        ),
    ] {
        toolcap()
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!("toolcap: {message}\n"));
    }
    toolcap()
        .env("TOOLCAP_MAX", "1.5k")
        .assert()
        .code(2)
        .stdout("")
        .stderr(format!(
            "toolcap: invalid value '1.5k' for TOOLCAP_MAX: {SIZE}\n"
        ));
}

#[test]
fn store_commands_refuse_the_options_they_do_not_apply() {
    let dir = TempDir::new("store-refusals");
    let store = dir.join("store");
    let output = toolcap()
        .args(["--max", "10", "--json", "--spill-dir"])
        .arg(&store)
        .write_stdin(repeated("line\n", 100))
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let id = report["spill_id"].as_str().expect("a spill id").to_string();
    let only_store = "which takes only --store or --spill-dir DIR";
    let show = "which takes only --lines A:B, --grep, --context, the store and the capping options";
    for (args, message) in [
        (
            vec!["--list", "--max", "5"],
            format!("--max does not apply to --list, {only_store}"),
        ),
        (
            vec!["--list", "-n", "3"],
            format!("--lines does not apply to --list, {only_store}"),
        ),
        (
            vec!["--list", "--clean"],
            format!("--clean does not apply to --list, {only_store}"),
        ),
        (
            vec!["--list", "--retain", "3"],
            format!("--retain does not apply to --list, {only_store}"),
        ),
        (
            vec!["--list", "--no-status"],
            format!("--no-status does not apply to --list, {only_store}"),
        ),
        (
            vec!["--summary", &id, "--style", "codex"],
            format!("--style does not apply to --summary, {only_store}"),
        ),
        (
            vec!["--summary", &id, "--profile", "cargo"],
            format!("--profile does not apply to --summary, {only_store}"),
        ),
        (
            vec!["--prune", "--max", "5"],
            format!("--max does not apply to --prune, {only_store}, --retain and --retain-size"),
        ),
        (
            vec!["--prune", "--keep-errors"],
            format!(
                "--keep-errors does not apply to --prune, {only_store}, --retain and --retain-size"
            ),
        ),
        (
            vec!["--show", &id, "--timeout", "5s"],
            format!("--timeout does not apply to --show, {show}"),
        ),
        (
            vec!["--show", &id, "--stderr", "separate"],
            format!("--stderr does not apply to --show, {show}"),
        ),
        (
            vec!["--show", &id, "--plain-env"],
            format!("--plain-env does not apply to --show, {show}"),
        ),
        (
            vec!["--show", &id, "--retain", "1"],
            format!("--retain does not apply to --show, {show}"),
        ),
        (
            vec!["--show", &id, "--retain-size", "1k"],
            format!("--retain-size does not apply to --show, {show}"),
        ),
        (
            vec!["--show", &id, "--json", "--max", "5"],
            format!("--json does not apply to --show, {show}"),
        ),
        (
            vec!["--show", &id, "--live"],
            format!("--live does not apply to --show, {show}"),
        ),
        (
            vec!["--show", &id, "--profile", "cargo"],
            format!("--profile does not apply to --show, {show}"),
        ),
    ] {
        toolcap()
            .arg("--spill-dir")
            .arg(&store)
            .args(&args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!("toolcap: {message}\n"));
    }
    // --spill and --no-spill name no store: refused as well.
    for (option, value) in [("--spill", Some("x")), ("--no-spill", None)] {
        toolcap()
            .env("TOOLCAP_SPILL_DIR", &store)
            .args(["--show", &id, option])
            .args(value)
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!(
                "toolcap: {option} does not apply to --show, {show}\n"
            ));
    }
    // What they apply is taken: --show's capping options cap its view,
    // --prune's retention prunes, and a budget from the environment is a
    // default, not a request.
    let row = toolcap()
        .env("TOOLCAP_MAX", "5")
        .arg("--spill-dir")
        .arg(&store)
        .arg("--list")
        .assert()
        .code(0)
        .stderr("")
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8(row).unwrap().starts_with(&id));
    toolcap()
        .arg("--spill-dir")
        .arg(&store)
        .args([
            "--show",
            &id,
            "--lines",
            "1:3",
            "--max",
            "10",
            "--cut",
            "bytes",
            "--no-header",
        ])
        .assert()
        .code(0)
        .stdout(format!(
            "line\n[... 5 bytes truncated (lines 2-2); full output in {} ...]\nline\n",
            store.join(format!("{id}.log")).display()
        ))
        .stderr("");
    toolcap()
        .arg("--spill-dir")
        .arg(&store)
        .args([
            "--show",
            &id,
            "--grep",
            "line",
            "--context",
            "1",
            "--keep-errors",
            "--max",
            "10",
        ])
        .assert()
        .code(0)
        .stderr("");
    toolcap()
        .arg("--spill-dir")
        .arg(&store)
        .args(["--prune", "--retain", "0", "--retain-size", "1k"])
        .assert()
        .code(0)
        .stdout("")
        .stderr("");
    assert!(!store.join(format!("{id}.log")).exists());
}
