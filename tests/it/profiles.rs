//! `--profile` and `--profiles`: built-ins chosen by the command or the
//! input, the user's profiles.toml adding to and replacing them, the
//! user's own options winning, and the errors a broken file gives. Every
//! run here gets a config directory of its own, so the profiles of
//! whoever runs the tests never leak in.

use std::path::Path;

use assert_cmd::Command;

use crate::common::{Hermetic, Need, TempDir, require, std_toolcap, toolcap};

/// toolcap with `config` as its XDG_CONFIG_HOME (and HOME).
fn toolcap_in(config: &Path) -> Hermetic<Command> {
    let mut command = toolcap();
    command.env("XDG_CONFIG_HOME", config).env("HOME", config);
    command
}

/// Writes the user's profiles file under `config`.
fn write_profiles(config: &Path, text: &str) -> std::path::PathBuf {
    let dir = config.join("toolcap");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("profiles.toml");
    std::fs::write(&file, text).unwrap();
    file
}

fn stdout(command: &mut Command) -> String {
    let output = command.output().expect("run toolcap");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// The `profile` field of a JSON report.
fn json_profile(command: &mut Command) -> serde_json::Value {
    let output = command.output().expect("run toolcap");
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("one JSON object");
    report["profile"].clone()
}

/// A cargo build's first lines, as cargo prints them.
const CARGO_START: &str =
    "   Compiling libc v0.2.3\n   Compiling serde v1.0.1\n   Compiling demo v0.1.0\n";

#[test]
fn auto_in_filter_mode_chooses_by_the_input() {
    let config = TempDir::new("profile-filter");
    let profile = |input: &str| {
        json_profile(
            toolcap_in(config.path())
                .args(["--json", "--profile", "auto"])
                .write_stdin(input.to_string()),
        )
    };
    assert_eq!(profile(CARGO_START), "cargo");
    assert_eq!(
        profile(
            "============================= test session starts ==============================\n"
        ),
        "pytest"
    );
    assert_eq!(profile("=== RUN   TestA\n--- PASS: TestA (0.00s)\n"), "go");
    assert_eq!(profile(".\n./a\n./a/b\n./c\n"), "listing");
    // grep -rn's hits, and a linter's, are not paths.
    assert_eq!(
        profile("./a.py:1:x = 1\n./a.py:5:x = 1\n./a.py:9:x = 1\n"),
        serde_json::Value::Null
    );
    assert_eq!(
        profile("/src/a.py:1:1: E302\n/src/b.py:2:1: E302\n/src/c.py:3:1: W291\n"),
        serde_json::Value::Null
    );
    assert_eq!(profile("diff --git a/x b/x\n--- a/x\n+++ b/x\n"), "git");
    // Colours do not hide it (git diff --color=always).
    assert_eq!(
        profile("\x1b[1mdiff --git a/x b/x\x1b[m\n\x1b[1m--- a/x\x1b[m\n"),
        "git"
    );
    assert_eq!(profile("hello\n"), serde_json::Value::Null);
    // Without --profile there is none.
    let none = json_profile(
        toolcap_in(config.path())
            .arg("--json")
            .write_stdin(CARGO_START),
    );
    assert_eq!(none, serde_json::Value::Null);
}

#[test]
fn auto_with_no_match_changes_nothing() {
    let config = TempDir::new("profile-none");
    let input = "x\n".repeat(10) + "line 1\nline 2\nline 3\n";
    let plain = stdout(
        toolcap_in(config.path())
            .args(["--max", "12"])
            .write_stdin(input.clone()),
    );
    let auto = stdout(
        toolcap_in(config.path())
            .args(["--max", "12", "--profile", "auto"])
            .write_stdin(input.clone()),
    );
    assert_eq!(auto, plain);
    let wrapped = stdout(
        toolcap_in(config.path())
            .args(["--max", "12", "--profile", "auto", "--", "printf", "%s"])
            .arg(&input),
    );
    assert_eq!(wrapped, plain);
}

#[test]
fn auto_in_filter_mode_reads_past_a_short_first_chunk() {
    // The session header arrives after a pause, past the first read.
    let config = TempDir::new("profile-late");
    let script = "printf 'platform x -- Python 3, pytest-9\\n'; sleep 0.2; \
                  printf 'a[1] PASSED\\na[2] PASSED\\na[3] PASSED\\n'";
    let mut sh = crate::common::command("sh");
    let mut child = sh
        .args(["-c", script])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run sh");
    let pipe = child.stdout.take().expect("a pipe");
    let output = std_toolcap()
        .env("XDG_CONFIG_HOME", config.path())
        .env("HOME", config.path())
        .args(["--json", "--profile", "auto"])
        .stdin(pipe)
        .output()
        .expect("run toolcap");
    child.wait().expect("wait for sh");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["profile"], "pytest");
    // Within the budget as it is: shown whole, nothing folded.
    assert_eq!(
        report["output"],
        "platform x -- Python 3, pytest-9\na[1] PASSED\na[2] PASSED\na[3] PASSED\n"
    );
}

#[test]
fn auto_in_wrap_mode_chooses_by_the_command() {
    let config = TempDir::new("profile-wrap");
    let dir = TempDir::new("profile-wrap-tree");
    for i in 0..300 {
        std::fs::write(dir.join(format!("file{i}.txt")), "").unwrap();
    }
    // ls through `env` and `nice`, and as the command after `cd` in -c.
    let profile = json_profile(
        toolcap_in(config.path())
            .env("LC_ALL", "C")
            .args([
                "--json",
                "--profile",
                "auto",
                "--",
                "env",
                "LC_ALL=C",
                "nice",
                "ls",
            ])
            .arg(dir.path()),
    );
    assert_eq!(profile, "listing");
    let script = format!("cd '{}' && ls -1", dir.path().display());
    let output = toolcap_in(config.path())
        .env("LC_ALL", "C")
        .args(["--json", "--profile", "auto", "--max", "2k", "-c", &script])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["profile"], "listing");
    // `ls -1` sorts file0, file1, file10, file100, ...: all similar, and
    // over the budget of 2k: folded.
    let text = report["output"].as_str().unwrap();
    assert!(
        text.starts_with("file0.txt\n[... 298 similar lines folded ...]\nfile99.txt\n"),
        "{text}"
    );
    // A command no profile matches gets none.
    let none =
        json_profile(toolcap_in(config.path()).args(["--json", "--profile", "auto", "--", "true"]));
    assert_eq!(none, serde_json::Value::Null);
}

#[test]
fn auto_in_wrap_mode_looks_through_shell_idioms() {
    // Fake `cargo` and `pytest` that print their arguments, first on PATH.
    let config = TempDir::new("profile-idioms");
    let bin = TempDir::new("profile-idioms-bin");
    for tool in ["cargo", "pytest"] {
        let path = bin.join(tool);
        std::fs::write(&path, "#!/bin/sh\necho \"${0##*/}\" \"$@\"\n").unwrap();
        let mut permissions = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(&path, permissions).unwrap();
    }
    std::fs::create_dir(config.join("x")).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for (script, expected) in [
        ("bash -o pipefail -c 'cargo test'", Some("cargo")),
        ("bash -eo pipefail -c 'cargo test'", Some("cargo")),
        ("bash -O extglob -c 'cargo test'", Some("cargo")),
        ("cd x || exit 1; pytest", Some("pytest")),
        ("cd x || true; pytest", Some("pytest")),
        ("exec 2>&1; pytest", Some("pytest")),
        ("{ pytest; }", Some("pytest")),
        ("( pytest )", Some("pytest")),
        ("exec pytest", Some("pytest")),
        ("echo pytest", None),
    ] {
        let output = toolcap_in(config.path())
            .current_dir(config.path())
            .env("PATH", &path)
            .args(["--json", "--profile", "auto", "-c", script])
            .output()
            .expect("run toolcap");
        let report: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("one JSON object");
        assert_eq!(report["profile"].as_str(), expected, "{script}");
        // What ran was the fake (or echo), so the choice was made on the
        // very command the shell ran.
        let ran = report["output"].as_str().unwrap_or_default();
        assert!(
            ran == "pytest\n" || ran == "cargo test\n",
            "{script}: {ran:?}"
        );
    }
}

#[test]
fn the_command_lines_options_win() {
    let config = TempDir::new("profile-override");
    let input: String = (0..2000)
        .map(|i| format!("./dir/file{i}.txt\n./dir/sub{i}\n"))
        .collect();
    let length = |args: &[&str]| {
        let report: serde_json::Value = serde_json::from_slice(
            &toolcap_in(config.path())
                .args(["--json", "--profile", "listing"])
                .args(args)
                .write_stdin(input.clone())
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        (
            report["head_bytes"].as_u64().unwrap() + report["tail_bytes"].as_u64().unwrap(),
            report["profile"].clone(),
        )
    };
    // The listing profile's --max 4k, then the user's --max or --tokens.
    let (kept, profile) = length(&[]);
    assert!(kept <= 4_000 && kept > 3_000, "{kept}");
    assert_eq!(profile, "listing");
    assert!(length(&["--max", "1k"]).0 <= 1_000);
    assert!(length(&["--tokens", "100"]).0 <= 400);
    // TOOLCAP_MAX is a default; the profile's --max is given.
    let report: serde_json::Value = serde_json::from_slice(
        &toolcap_in(config.path())
            .env("TOOLCAP_MAX", "100k")
            .args(["--json", "--profile", "listing"])
            .write_stdin(input.clone())
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(report["truncated"], true);
}

#[test]
fn keep_patterns_add_up() {
    let config = TempDir::new("profile-keep");
    write_profiles(
        config.path(),
        "[profiles.mine]\nargs = [\"--keep\", \"^ALPHA\"]\n",
    );
    let mut input: String = (0..400)
        .map(|i| format!("filler line {i:04} xx\n"))
        .collect();
    // At line starts: 20 bytes a line.
    input.insert_str(6_000, "BETA two\n");
    input.insert_str(4_000, "ALPHA one\n");
    let output = stdout(
        toolcap_in(config.path())
            .args(["--profile", "mine", "--max", "500", "--keep", "^BETA"])
            .write_stdin(input),
    );
    assert!(output.contains("\nALPHA one\n"), "{output}");
    assert!(output.contains("\nBETA two\n"), "{output}");
}

#[test]
fn a_user_profile_replaces_a_built_in_and_adds_new_ones() {
    let config = TempDir::new("profile-user");
    let file = write_profiles(
        config.path(),
        "# my settings\n\
         [profiles.pytest]\n\
         args = [\"--max\", \"240\", \"--keep\", \"^MINE\"]\n\
         \n\
         [profiles.terraform]\n\
         match = [\"terraform plan\"]\n\
         detect = ['^Terraform will perform']\n\
         args = [\"--fold\", \"--max\", \"200\", \"--timeout\", \"10m\"]\n",
    );
    // pytest's options are the user's now (no --clean, so no folding), and
    // its match and detect are still the built-in's.
    let input = "=== test session starts ===\n".to_string()
        + &(0..40)
            .map(|i| format!("t[{i}] PASSED\n"))
            .collect::<String>()
        + "MINE here\n"
        + &(40..80)
            .map(|i| format!("t[{i}] PASSED\n"))
            .collect::<String>();
    let output = stdout(
        toolcap_in(config.path())
            .args(["--profile", "auto"])
            .write_stdin(input),
    );
    assert!(output.contains("\nMINE here\n"), "{output}");
    assert!(!output.contains("similar lines folded"), "{output}");
    assert!(output.starts_with("Warning: truncated output"), "{output}");
    // A new profile, by the input; its wrap-only --timeout is left out in
    // filter mode.
    // (280 bytes, over its budget of 200: folding applies.)
    let plan = String::from("Terraform will perform the following actions:\n")
        + &(0..6)
            .map(|i| format!("  + aws_instance.web[{i}] will be created\n"))
            .collect::<String>();
    let output = stdout(
        toolcap_in(config.path())
            .args(["--profile", "auto"])
            .write_stdin(plan),
    );
    assert_eq!(
        output,
        "Terraform will perform the following actions:\n\
         \x20 + aws_instance.web[0] will be created\n\
         [... 4 similar lines folded ...]\n\
         \x20 + aws_instance.web[5] will be created\n"
    );
    // --profiles lists both, from the file, and the other built-ins.
    let listing = stdout(toolcap_in(config.path()).arg("--profiles"));
    let file = file.display();
    for expected in [
        format!("User profiles: {file}\n"),
        format!("\npytest ({file}:2, replaces the built-in)\n"),
        "  options --max 240\n          --keep '^MINE'\n".to_string(),
        format!(
            "\nterraform ({file}:5)\n  match   terraform plan\n  \
             detect  '^Terraform will perform'\n"
        ),
        "\ncargo (built-in)\n".to_string(),
        "\nlisting (built-in)\n  match   ls, find, tree, du\n".to_string(),
    ] {
        assert!(
            listing.contains(&expected),
            "{expected:?} not in:\n{listing}"
        );
    }
    // User profiles come first, in the file's order.
    assert!(listing.find("\npytest (").unwrap() < listing.find("\nterraform (").unwrap());
    assert!(listing.find("\nterraform (").unwrap() < listing.find("\ncargo (").unwrap());
}

#[test]
fn a_malformed_profiles_file_is_one_error_naming_file_line_and_key() {
    let config = TempDir::new("profile-broken");
    let file = write_profiles(
        config.path(),
        "[profiles.ok]\nargs = []\n\n[profiles.bad]\nargs = \"--fold\"\n",
    );
    let expected = format!(
        "toolcap: {}:5: key 'profiles.bad.args': expected an array of strings, [\"...\", ...]\n",
        file.display()
    );
    for args in [
        &["--profile", "auto"][..],
        &["--profile", "ok"],
        &["--profiles"],
    ] {
        toolcap_in(config.path())
            .args(args)
            .write_stdin("x\n")
            .assert()
            .code(2)
            .stdout("")
            .stderr(expected.clone());
    }
    // Only asked-for profiles read the file.
    toolcap_in(config.path())
        .write_stdin("x\n")
        .assert()
        .success()
        .stdout("x\n");
    toolcap_in(config.path())
        .args(["--profile", "none"])
        .write_stdin("x\n")
        .assert()
        .success()
        .stdout("x\n");
    // A syntax error names the line too.
    write_profiles(config.path(), "[profiles.x]\nargs = [\"--fold\"\n");
    toolcap_in(config.path())
        .args(["--profile", "x"])
        .assert()
        .code(2)
        .stderr(predicates::str::starts_with(format!(
            "toolcap: {}:",
            file.display()
        )))
        .stderr(predicates::str::contains("invalid TOML"));
}

#[test]
fn bad_options_in_a_profile_name_it() {
    let config = TempDir::new("profile-bad-args");
    let file = write_profiles(
        config.path(),
        "[profiles.typo]\nargs = [\"--kepp\", \"x\"]\n\n[profiles.json]\nargs = [\"--json\"]\n",
    );
    toolcap_in(config.path())
        .args(["--profile", "none"])
        .write_stdin("x\n")
        .assert()
        .success();
    toolcap_in(config.path())
        .args(["--profile", "auto"])
        .write_stdin("x\n")
        .assert()
        .code(2)
        .stderr(format!(
            "toolcap: profile 'typo' ({}:1): unexpected argument '--kepp' found (a similar \
             argument exists: '--keep')\n",
            file.display()
        ));
    write_profiles(config.path(), "[profiles.json]\nargs = [\"--json\"]\n");
    toolcap_in(config.path())
        .args(["--profile", "json"])
        .write_stdin("x\n")
        .assert()
        .code(2)
        .stderr(format!(
            "toolcap: profile 'json' ({}:1): --json cannot be set by a profile: a profile says how \
             output is cleaned, kept and capped, not what runs or where output goes\n",
            file.display()
        ));
    // A broken profile breaks every --profile run; a sound file names its
    // profiles among the known.
    write_profiles(config.path(), "[profiles.mine]\nargs = [\"--fold\"]\n");
    toolcap_in(config.path())
        .args(["--profile", "nosuch"])
        .write_stdin("x\n")
        .assert()
        .code(2)
        .stderr(
            "toolcap: unknown profile 'nosuch': expected auto, none or one of mine, pytest, cargo, \
             go, npm, make, git, listing, json (toolcap --profiles lists them)\n",
        );
}

#[test]
fn a_contradiction_within_a_profile_names_it() {
    let config = TempDir::new("profile-contradiction");
    let file = write_profiles(
        config.path(),
        "[profiles.broken]\nargs = [\"--format\", \"json\", \"--keep\", \"x\"]\n",
    );
    toolcap_in(config.path())
        .args(["--profile", "broken"])
        .write_stdin("x\n")
        .assert()
        .code(2)
        .stderr(format!(
            "toolcap: with profile 'broken' ({}:1): --format json cannot be combined with --keep: \
             kept lines would break records apart\n",
            file.display()
        ));
}

/// Options clap refuses together are refused when the profile gives one
/// and the command line the other, as when both are typed (the profile's
/// named first, as its options come first).
#[test]
fn a_profile_option_clap_refuses_beside_yours_is_its_error() {
    let config = TempDir::new("profile-clap-conflict");
    let file = write_profiles(
        config.path(),
        "[profiles.cut]\nargs = [\"--total\", \"2k\"]\n",
    );
    toolcap_in(config.path())
        .args(["--profile", "cut", "--json"])
        .write_stdin("x\n")
        .assert()
        .code(2)
        .stderr(format!(
            "toolcap: with profile 'cut' ({}:1): the argument '--total <SIZE>' cannot be used \
             with '--json'\n",
            file.display()
        ));
}

/// Your options win: a profile's option that contradicts one of yours is
/// left out, and the rest of the profile applies.
#[test]
fn a_profile_option_that_contradicts_yours_is_left_out() {
    let config = TempDir::new("profile-yours-win");
    let diff = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-a\n+b\n".repeat(40);
    // git's --format diff cannot be combined with --keep-errors or --live:
    // the profile applies without it.
    let report = json_profile(
        toolcap_in(config.path())
            .args([
                "--profile",
                "auto",
                "--max",
                "300",
                "--keep-errors",
                "--json",
            ])
            .write_stdin(diff.clone()),
    );
    assert_eq!(report, "git");
    let live = stdout(
        toolcap_in(config.path())
            .args(["--profile", "git", "--max", "300", "--live"])
            .write_stdin(diff.clone()),
    );
    assert!(
        live.contains(" bytes truncated ...]\n"),
        "a text marker: {live}"
    );
    // pytest's --keep cannot be combined with --style codex.
    let output = stdout(
        toolcap_in(config.path())
            .args(["--profile", "pytest", "--style", "codex", "--max", "40"])
            .write_stdin("x\n".repeat(100)),
    );
    assert!(output.contains("…"), "{output}");
    // With no profile matching, --profile auto changes nothing, whatever
    // the other options.
    let users = format!(
        "[{}]",
        (0..300)
            .map(|i| format!("{{\"id\":{i}}}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    for args in [&["--format", "json"][..], &["--style", "codex"]] {
        let with_auto = stdout(
            toolcap_in(config.path())
                .args(["--profile", "auto", "--max", "200"])
                .args(args)
                .write_stdin(users.clone()),
        );
        let without = stdout(
            toolcap_in(config.path())
                .args(["--max", "200"])
                .args(args)
                .write_stdin(users.clone()),
        );
        assert_eq!(with_auto, without, "{args:?}");
    }
}

#[test]
fn git_diff_in_wrap_mode_is_cut_at_hunks_with_its_colours_removed() {
    if !require(Need::Git) {
        return;
    }
    let dir = TempDir::new("profile-git");
    for side in ["old", "new"] {
        std::fs::create_dir_all(dir.join(side)).unwrap();
        for file in 0..30 {
            let lines: String = (0..40)
                .map(|line| {
                    if side == "new" && line % 13 == 5 {
                        format!("changed {file} {line}\n")
                    } else {
                        format!("line {file} {line}\n")
                    }
                })
                .collect();
            std::fs::write(dir.join(side).join(format!("f{file:02}.txt")), lines).unwrap();
        }
    }
    // The same diff, uncoloured, through --format diff by hand.
    let plain = crate::common::command("git")
        .current_dir(dir.path())
        .args(["diff", "--no-index", "--no-color", "old", "new"])
        .output()
        .unwrap();
    let expected = toolcap_in(dir.path())
        .args(["--format", "diff", "--max", "2k"])
        .write_stdin(plain.stdout)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&expected.stdout).contains(" hunks in "));
    let wrapped = toolcap_in(dir.path())
        .current_dir(dir.path())
        .args(["--profile", "auto", "--max", "2k", "--no-status", "--"])
        // The subcommand comes after an option's value.
        .args([
            "git",
            "-c",
            "color.ui=always",
            "diff",
            "--no-index",
            "old",
            "new",
        ])
        .output()
        .unwrap();
    // git diff --no-index exits 1 when the trees differ.
    assert_eq!(wrapped.status.code(), Some(1), "{wrapped:?}");
    // The same text, but for the header's line on what cleaning removed.
    let wrapped = String::from_utf8(wrapped.stdout).unwrap();
    let (before, after) = wrapped.split_once("Cleaned: ").expect("a Cleaned: line");
    let after = after.split_once('\n').unwrap().1;
    assert_eq!(
        before.to_string() + after,
        String::from_utf8_lossy(&expected.stdout)
    );
}

#[test]
fn the_librarys_capper_chooses_by_the_first_4_kib_as_filter_mode_does() {
    // The model: a stream is capped exactly as with the options of the
    // first profile one of whose patterns its first 4 KiB match, however
    // it is pushed, and the report names that profile.
    use toolcap::run::{Config, InputProfile, Mode, ProfileChoice};
    use toolcap::{Capper, Options};
    let lines = Options::new().max(40).lines(4);
    let small = Options::new().max(25);
    let mut config = Config::new(Mode::Filter(Vec::new()));
    config.options = Options::new().max(60);
    config.profile = ProfileChoice::FromInput(vec![
        InputProfile::new("lines", vec!["^LINES$".into()], lines.clone()),
        InputProfile::new(
            "small",
            vec!["^SMALL".into(), "^TINY$".into()],
            small.clone(),
        ),
    ]);
    let filler = |n: usize| (0..n).map(|i| format!("line {i:05}\n")).collect::<String>();
    let sniff = toolcap::run::PROFILE_SNIFF_BYTES;
    let cases: Vec<(String, Option<&str>, &Options)> = vec![
        (format!("LINES\n{}", filler(600)), Some("lines"), &lines),
        (
            format!("{}TINY\n{}", filler(100), filler(600)),
            Some("small"),
            &small,
        ),
        // Both match: the first profile listed wins.
        (
            format!("SMALL\nLINES\n{}", filler(600)),
            Some("lines"),
            &lines,
        ),
        // Shorter than the sniff: chosen with what there is.
        ("SMALLER\n".repeat(20), Some("small"), &small),
        // The pattern's line starts at byte 4096, just past the sniff.
        (
            format!("{}x\nLINES\n{}", "a".repeat(sniff - 2), filler(600)),
            None,
            &config.options,
        ),
        (String::new(), None, &config.options),
    ];
    for (input, profile, options) in cases {
        let input = input.as_bytes();
        let expected = toolcap::cap(input, options).unwrap();
        let mut splits = vec![0, 1, 7, sniff - 1, sniff, sniff + 1, input.len()];
        splits.retain(|&split| split <= input.len());
        for split in splits {
            let mut capper = Capper::for_run(&config).unwrap();
            for piece in [&input[..split], &input[split..]] {
                // Also a byte at a time across the sniff's end.
                if split == sniff {
                    piece.chunks(1).for_each(|byte| capper.push(byte));
                } else {
                    capper.push(piece);
                }
            }
            let report = capper.finish_run();
            assert_eq!(report.profile.as_deref(), profile, "split at {split}");
            let rendered = toolcap::run::render(&report, &config).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&rendered.output),
                String::from_utf8_lossy(&expected),
                "split at {split}"
            );
        }
    }
}

#[test]
fn a_profile_the_input_chooses_applies_its_no_header_as_when_named() {
    let config = TempDir::new("profile-no-header");
    write_profiles(
        config.path(),
        "[profiles.quiet]\ndetect = ['^QUIET$']\nargs = [\"--no-header\", \"--max\", \"50\"]\n",
    );
    let input = format!("QUIET\n{}", "line\n".repeat(400));
    let run = |profile: &str| {
        stdout(
            toolcap_in(config.path())
                .args(["--profile", profile])
                .write_stdin(input.clone()),
        )
    };
    let named = run("quiet");
    assert!(named.starts_with("QUIET\nline\n"), "{named}");
    assert_eq!(run("auto"), named);
}

#[test]
fn auto_looks_at_every_command_of_a_chain_and_the_header_names_it() {
    // A fake `cargo` first on PATH, printing a coloured build.
    let config = TempDir::new("profile-chain");
    let bin = TempDir::new("profile-chain-bin");
    let cargo = bin.join("cargo");
    std::fs::write(
        &cargo,
        "#!/bin/sh\ni=0\nwhile [ $i -lt 40 ]; do \
         printf '\\033[1mwarning\\033[0m: unused %s\\n' $i; i=$((i+1)); done\n",
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&cargo).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&cargo, permissions).unwrap();
    std::fs::create_dir(config.join("x")).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for script in [
        "cd x && touch y && cargo build",
        "echo start; cargo build",
        "cargo build 2>&1 | cat",
    ] {
        let output = toolcap_in(config.path())
            .current_dir(config.path())
            .env("PATH", &path)
            .args(["--json", "--profile", "auto", "-c", script])
            .output()
            .expect("run toolcap");
        let report: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("one JSON object");
        assert_eq!(report["profile"].as_str(), Some("cargo"), "{script}");
    }
    // The text says which profile cleaned it, where it says what cleaning did.
    let text = stdout(
        toolcap_in(config.path())
            .current_dir(config.path())
            .env("PATH", &path)
            .args([
                "--profile",
                "auto",
                "--max",
                "200",
                "--no-status",
                "-c",
                "cd x && cargo build",
            ]),
    );
    let header = "Warning: truncated output (original token count: 188)\nTotal output lines: 40\n\
                  Cleaned: 1070 raw bytes became 750 bytes (profile cargo)\n\n";
    assert!(text.starts_with(header), "{text}");
    // So does filter mode's choice by the input, in text and JSON alike.
    let warnings: String = (0..40)
        .map(|i| format!("\x1b[1mwarning\x1b[0m: unused {i}\n"))
        .collect();
    let input = format!("{CARGO_START}{warnings}");
    let text = stdout(
        toolcap_in(config.path())
            .args(["--profile", "auto", "--max", "200"])
            .write_stdin(input),
    );
    assert!(text.contains("bytes (profile cargo)\n\n"), "{text}");
    // A profile named on the command line too.
    let text = stdout(
        toolcap_in(config.path())
            .args(["--profile", "cargo", "--max", "100"])
            .write_stdin(warnings),
    );
    assert!(
        text.contains("Cleaned: 1070 raw bytes became 750 bytes (profile cargo)\n"),
        "{text}"
    );
}

#[test]
fn auto_recognises_a_json_document_and_caps_it_as_one() {
    let config = TempDir::new("profile-json");
    let document: String = format!(
        "{{\"items\":[{}]}}\n",
        (0..300)
            .map(|i| format!("{{\"id\":{i}}}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let report = |command: &mut Command| -> serde_json::Value {
        let output = command.output().expect("run toolcap");
        serde_json::from_slice(&output.stdout).expect("one JSON object")
    };
    // Filter mode, by the document's first bytes.
    let filtered = report(
        toolcap_in(config.path())
            .args(["--json", "--profile", "auto", "--max", "300"])
            .write_stdin(document.clone()),
    );
    assert_eq!(
        (filtered["profile"].as_str(), filtered["format"].as_str()),
        (Some("json"), Some("json"))
    );
    let shortened = filtered["output"].as_str().unwrap();
    let part = shortened.split_once("\n\n").unwrap().1;
    serde_json::from_str::<serde_json::Value>(part).expect("the shortened document parses");
    // The same as --format json would give it.
    let by_hand = report(
        toolcap_in(config.path())
            .args(["--json", "--format", "json", "--max", "300"])
            .write_stdin(document.clone()),
    );
    assert_eq!(filtered["output"], by_hand["output"]);
    // Text that only starts like one is not chosen, or falls back silently.
    for text in ["[INFO] starting\n", "[abc]\n", "{ not json\n"] {
        let plain = report(
            toolcap_in(config.path())
                .args(["--json", "--profile", "auto"])
                .write_stdin(text),
        );
        assert_eq!(plain["output"].as_str(), Some(text), "{text}");
        assert_eq!(plain["format"].as_str(), Some("text"), "{text}");
    }
    // Wrap mode, by the program: a fake `jq`, first on PATH.
    let bin = TempDir::new("profile-json-bin");
    let jq = bin.join("jq");
    std::fs::write(&jq, format!("#!/bin/sh\nprintf '%s' '{document}'\n")).unwrap();
    let mut permissions = std::fs::metadata(&jq).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&jq, permissions).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let wrapped = report(toolcap_in(config.path()).env("PATH", &path).args([
        "--json",
        "--profile",
        "auto",
        "--max",
        "300",
        "-c",
        "jq . data.json",
    ]));
    assert_eq!(
        (wrapped["profile"].as_str(), wrapped["format"].as_str()),
        (Some("json"), Some("json"))
    );
}

#[test]
fn the_completions_list_the_profiles_the_user_has() {
    // The shell completions call `toolcap --list-profiles` for --profile's
    // values: auto, none, the user's profiles, then the built-ins.
    let config = TempDir::new("profile-names");
    let built_in = "auto\nnone\npytest\ncargo\ngo\nnpm\nmake\ngit\nlisting\njson\n";
    assert_eq!(
        stdout(toolcap_in(config.path()).arg("--list-profiles")),
        built_in
    );
    write_profiles(
        config.path(),
        "[profiles.terraform]\nargs = [\"--clean\"]\n",
    );
    assert_eq!(
        stdout(toolcap_in(config.path()).arg("--list-profiles")),
        "auto\nnone\nterraform\npytest\ncargo\ngo\nnpm\nmake\ngit\nlisting\njson\n"
    );
    // A broken file still completes the built-ins.
    write_profiles(config.path(), "[profiles.broken\n");
    assert_eq!(
        stdout(toolcap_in(config.path()).arg("--list-profiles")),
        built_in
    );
    // What the bash script does with it.
    if !require(Need::Bash) {
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/completions/toolcap.bash");
    let bin = std::path::Path::new(crate::common::BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let complete = |words: &str| {
        let output = crate::common::command("bash")
            .env("PATH", &path)
            .env("XDG_CONFIG_HOME", config.path())
            .env("HOME", config.path())
            .arg("-c")
            .arg(format!(
                "source {script}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
                 _toolcap toolcap \"${{COMP_WORDS[COMP_CWORD]}}\" \
                 \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
                 echo \"${{COMPREPLY[*]}}\""
            ))
            .output()
            .expect("run bash");
        String::from_utf8(output.stdout).unwrap()
    };
    write_profiles(
        config.path(),
        "[profiles.terraform]\nargs = [\"--clean\"]\n",
    );
    assert_eq!(complete("toolcap --profile t"), "terraform\n");
    assert_eq!(complete("toolcap --style v"), "verifiers\n");
    assert_eq!(complete("toolcap --stderr s"), "separate\n");
}
