//! `--profile auto` on real tool output, produced here: a pytest run of
//! thousands of parametrised tests with a few failures, `cargo build` and
//! `cargo test` of tiny generated crates with errors and panics, and a
//! `find` of a large generated tree. With a small budget, every failure,
//! error location and verdict must be in the output and the passing noise
//! folded; and folding must account for every line it removed.

use std::ffi::OsString;
use std::path::Path;

use assert_cmd::Command;

use crate::common::{Hermetic, Need, TempDir, require, toolcap};

/// toolcap with a config directory (and HOME) of its own, so the user's
/// profiles never leak in, and `dir` as the working directory.
fn toolcap_at(dir: &Path) -> Hermetic<Command> {
    let mut command = toolcap();
    command
        .current_dir(dir)
        .env("XDG_CONFIG_HOME", dir)
        .env("HOME", dir);
    command
}

/// The lines of `text` that contain `needle`.
fn count(text: &str, needle: &str) -> usize {
    text.lines().filter(|line| line.contains(needle)).count()
}

/// The count of a fold marker line.
fn folded(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("[... ")?;
    let (count, _) = rest
        .split_once(" similar lines folded")
        .or_else(|| rest.split_once(" similar line folded"))?;
    count.parse().ok()
}

/// Folding accounts for every line: walking `folded_text`, each shown
/// line is the next line of `unfolded`, and each marker skips as many as it
/// says; together they are all of `unfolded`.
fn assert_fold_accounts_for_every_line(folded_text: &str, unfolded: &str) {
    let lines: Vec<&str> = unfolded.lines().collect();
    let mut next = 0;
    let mut markers = 0;
    for line in folded_text.lines() {
        match folded(line) {
            Some(count) => {
                next += count;
                markers += 1;
            }
            None => {
                assert_eq!(
                    Some(&line),
                    lines.get(next),
                    "line {} of the unfolded stream",
                    next + 1
                );
                next += 1;
            }
        }
    }
    assert_eq!(next, lines.len(), "shown lines plus folded counts");
    assert!(markers > 0, "nothing was folded");
}

const PYTEST_FAILURES: [u32; 3] = [17, 1234, 1999];

#[test]
fn a_pytest_run_keeps_every_failure_and_folds_the_passes() {
    if !require(Need::Pytest) {
        return;
    }
    let dir = TempDir::new("pytest");
    let failing = format!("{:?}", PYTEST_FAILURES).replace(['[', ']'], "");
    std::fs::write(
        dir.join("test_big.py"),
        format!(
            "import pytest\n\n\
             @pytest.mark.parametrize(\"n\", range(2000))\n\
             def test_param(n):\n    \
                 assert n not in ({failing}), f\"bad value {{n}}\"\n\n\
             def test_error_in_code():\n    \
                 x = {{\"a\": 1}}\n    \
                 assert x[\"b\"] == 1\n"
        ),
    )
    .unwrap();
    let raw = dir.join("raw.log");
    // pytest prints its short summary whole, not cut to the width, when it
    // sees it runs in CI; the output must not depend on where the test runs.
    let output = toolcap_at(dir.path())
        .env_remove("PYTEST_ADDOPTS")
        .env_remove("CI")
        .env_remove("BUILD_NUMBER")
        .env("COLUMNS", "80")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .args(["--profile", "auto", "--max", "3600", "--spill"])
        .arg(&raw)
        .args([
            "--",
            "python3",
            "-m",
            "pytest",
            "-v",
            "-p",
            "no:cacheprovider",
            "test_big.py",
        ])
        .output()
        .expect("run toolcap");
    let out = String::from_utf8(output.stdout).expect("UTF-8");
    assert_eq!(output.status.code(), Some(1), "pytest's status: {out}");
    // Folded, the run fits the budget: shown whole (every failure where it
    // was), its last line naming the file the fold markers point into.
    assert!(!out.starts_with("Warning: truncated output"), "{out}");
    for n in PYTEST_FAILURES {
        for expected in [
            format!("FAILED test_big.py::test_param[{n}] - AssertionError: bad value {n}"),
            format!("E       AssertionError: bad value {n}"),
            format!(" test_param[{n}] __"),
        ] {
            assert!(out.contains(&expected), "{expected:?} missing:\n{out}");
        }
    }
    for expected in [
        "FAILED test_big.py::test_error_in_code - KeyError: 'b'",
        "test_big.py:5: AssertionError",
        "test_big.py:9: KeyError",
        "short test summary info",
        " 4 failed, 1997 passed in ",
    ] {
        assert!(out.contains(expected), "{expected:?} missing:\n{out}");
    }
    let note_end = format!(
        "; full output in {} ...]\n[exit status: 1]\n",
        raw.display()
    );
    assert!(out.ends_with(&note_end), "{out}");
    // 1,997 passing tests are a handful of lines now.
    assert!(count(&out, "similar lines folded") >= 3, "{out}");
    assert!(count(&out, " PASSED ") < 12, "{out}");
    // The budget, and the status line and the line naming the spill file
    // (its length is the temporary directory's).
    let bound = 3_600 + 200 + raw.as_os_str().len();
    assert!(
        out.len() < bound,
        "{} bytes, over {bound}:\n{out}",
        out.len()
    );

    // The same output read back: the input tells auto it is pytest's, and
    // folding (with a budget the folded output fits and the raw one does
    // not, so that folding applies) accounts for every line.
    let profile = toolcap_at(dir.path())
        .args(["--json", "--profile", "auto"])
        .arg(&raw)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&profile.stdout).unwrap();
    assert_eq!(report["profile"], "pytest");
    let cleaned = |max: &str, args: &[&str]| {
        let output = toolcap_at(dir.path())
            .args(["--max", max])
            .args(args)
            .arg(&raw)
            .output()
            .unwrap();
        String::from_utf8(output.stdout).unwrap()
    };
    let unfolded = cleaned(
        "10M",
        &["--strip-ansi", "--collapse-cr", "--squeeze", "--utf8"],
    );
    assert!(unfolded.lines().count() > 2_000);
    assert!(unfolded.len() > 50_000);
    let folded = cleaned("50k", &["--profile", "pytest"]);
    assert!(!folded.starts_with("Warning: truncated output"), "{folded}");
    assert_fold_accounts_for_every_line(&folded, &unfolded);
}

/// cargo, as the test run found it (the one running these tests).
fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// A crate in `dir/name` with `lib` as its src/lib.rs.
fn write_crate(dir: &Path, name: &str, lib: &str) {
    std::fs::create_dir_all(dir.join(name).join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"
    );
    std::fs::write(dir.join(name).join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join(name).join("src/lib.rs"), lib).unwrap();
}

/// toolcap running cargo offline in `dir/krate`, both crates building
/// into one target directory, with no settings of the caller's.
fn toolcap_cargo(dir: &Path, krate: &str) -> Hermetic<Command> {
    let mut command = toolcap_at(&dir.join(krate));
    command
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    command
}

#[test]
fn cargo_build_and_test_keep_every_error_and_panic() {
    let dir = TempDir::new("cargo");
    const MISMATCHES: u32 = 5;
    let broken: String = (0..MISMATCHES)
        .map(|i| format!("pub fn f{i}() -> u32 {{ \"not a number {i}\" }}\n"))
        .chain(["pub fn g() -> u32 { undefined_name }\n".to_string()])
        .collect();
    write_crate(dir.path(), "broken", &broken);
    let output = toolcap_cargo(dir.path(), "broken")
        // About 1.7k of output: cut, with the keep share holding the errors.
        .args(["--profile", "auto", "--max", "1200", "--"])
        .arg(cargo())
        .args(["build", "--offline"])
        .output()
        .expect("run toolcap");
    let out = String::from_utf8(output.stdout).expect("UTF-8");
    assert_eq!(output.status.code(), Some(101), "cargo's status: {out}");
    assert!(out.starts_with("Warning: truncated output"), "{out}");
    assert_eq!(
        count(&out, "error[E0308]: mismatched types"),
        MISMATCHES as usize,
        "{out}"
    );
    assert!(
        out.contains("error[E0425]: cannot find value `undefined_name` in this scope"),
        "{out}"
    );
    for line in 1..=MISMATCHES + 1 {
        let location = format!(" --> src/lib.rs:{line}:");
        assert!(out.contains(&location), "{location:?} missing:\n{out}");
    }
    assert!(out.contains("error: could not compile `broken`"), "{out}");

    // 400 tests, two of them panicking.
    let tests: String = (0..400)
        .map(|i| match i {
            137 => format!(
                "    #[test] fn case_{i}() {{ let v: Vec<u32> = Vec::new(); \
                 let _ = v[{i}]; }}\n"
            ),
            250 => format!(
                "    #[test] fn case_{i}() {{ \
                 assert_eq!(1 + 1, 3, \"arithmetic in case {i}\"); }}\n"
            ),
            _ => format!("    #[test] fn case_{i}() {{ assert!({i} < 1000); }}\n"),
        })
        .collect();
    write_crate(
        dir.path(),
        "demo",
        &format!("#[cfg(test)]\nmod tests {{\n{tests}}}\n"),
    );
    let output = toolcap_cargo(dir.path(), "demo")
        .args(["--json", "--profile", "auto", "--max", "1500", "--"])
        .arg(cargo())
        .args(["test", "--offline"])
        .output()
        .expect("run toolcap");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["profile"], "cargo");
    assert_eq!(report["exit"]["code"], 101);
    let out = report["output"].as_str().unwrap();
    for expected in [
        "test tests::case_137 ... FAILED",
        "test tests::case_250 ... FAILED",
        "---- tests::case_137 stdout ----",
        "panicked at src/lib.rs:140:",
        "index out of bounds: the len is 0 but the index is 137",
        "panicked at src/lib.rs:253:",
        "assertion `left == right` failed: arithmetic in case 250",
        "test result: FAILED. 398 passed; 2 failed;",
    ] {
        assert!(out.contains(expected), "{expected:?} missing:\n{out}");
    }
    assert!(count(out, "similar lines folded") >= 1, "{out}");
    assert!(count(out, " ... ok") < 10, "{out}");
    // Issue 21: the `failures:` name list is never folded.
    assert!(
        out.contains("failures:\n    tests::case_137\n    tests::case_250\n"),
        "{out}"
    );

    // 33 failures of 400: every name of the list, and no fold among them.
    let tests: String = (0..400)
        .map(|i| format!("    #[test] fn case_{i}() {{ assert!({i} % 12 != 5, \"case {i}\"); }}\n"))
        .collect();
    write_crate(
        dir.path(),
        "many",
        &format!("#[cfg(test)]\nmod tests {{\n{tests}}}\n"),
    );
    let output = toolcap_cargo(dir.path(), "many")
        .args(["--profile", "auto", "--max", "16k", "--"])
        .arg(cargo())
        .args(["test", "--offline"])
        .output()
        .expect("run toolcap");
    let out = String::from_utf8(output.stdout).expect("UTF-8");
    let list = out.rsplit_once("failures:\n").map_or("", |(_, list)| list);
    let names = list
        .lines()
        .take_while(|line| line.starts_with("    tests::"))
        .count();
    assert_eq!(names, (0..400).filter(|i| i % 12 == 5).count(), "{out}");
    assert!(
        out.contains("test result: FAILED. 367 passed; 33 failed;"),
        "{out}"
    );
}

#[test]
fn a_find_of_a_large_tree_is_folded_under_the_listings_cap() {
    let dir = TempDir::new("find");
    let tree = dir.join("tree");
    for d in 0..100 {
        let sub = tree.join(format!("dir{d}"));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..20 {
            std::fs::write(sub.join(format!("file{f}.txt")), "").unwrap();
        }
    }
    let find = crate::common::command("find")
        .arg("tree")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let listing = String::from_utf8(find.stdout).unwrap();
    assert_eq!(listing.lines().count(), 2_101);
    // A path that is not there: find's error comes last, on stderr.
    let output = toolcap_at(dir.path())
        .env("LC_ALL", "C")
        .args([
            "--json",
            "--profile",
            "auto",
            "--",
            "find",
            "tree",
            "missing",
        ])
        .output()
        .expect("run toolcap");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["profile"], "listing");
    assert_eq!(report["exit"]["code"], 1);
    let out = report["output"].as_str().unwrap();
    // The listing profile's cap, --max 4k, on a stream folded to four
    // lines a directory.
    assert_eq!(report["truncated"], true);
    assert!(
        report["head_bytes"].as_u64().unwrap() + report["tail_bytes"].as_u64().unwrap() <= 4_000
    );
    assert_eq!(report["lines"], 1 + 100 * 4 + 1, "{out}");
    assert!(
        count(out, "[... 18 similar lines folded ...]") >= 20,
        "{out}"
    );
    assert!(out.contains("\n\ntree\ntree/dir"), "{out}");
    let last_path = listing.lines().last().unwrap();
    assert!(
        out.ends_with(&format!(
            "\n{last_path}\nfind: 'missing': No such file or directory\n[exit status: 1]\n"
        )),
        "{out}"
    );
}

/// Issue 21: "in a build with 300 warnings before the error,
/// `error[E0308]` is not shown": the cargo profile's error patterns are
/// served before its warnings, so the error and its count are on screen
/// within `--max`, and the warnings not shown are counted.
#[test]
fn cargo_build_shows_the_error_and_its_location_among_400_warnings() {
    let dir = TempDir::new("cargo-warnings");
    // The error first in the source: rustc reports it before the 300
    // warnings, whose ` --> ` locations are nearer the tail than its own;
    // the build script's 100 warnings before it put it in the middle.
    let lib: String = ["pub fn g() -> u32 { \"not a number\" }\n".to_string()]
        .into_iter()
        .chain((0..300).map(|i| format!("pub fn f{i}() {{ let unused_{i} = {i}; }}\n")))
        .collect();
    write_crate(dir.path(), "noisy", &lib);
    std::fs::write(
        dir.join("noisy/build.rs"),
        "fn main() { for i in 0..100 { \
         println!(\"cargo:warning=build note {i}: the generated bindings are stale\"); } }\n",
    )
    .unwrap();
    let output = toolcap_cargo(dir.path(), "noisy")
        .args(["--profile", "auto", "--max", "4k", "--"])
        .arg(cargo())
        .args(["build", "--offline"])
        .output()
        .expect("run toolcap");
    let out = String::from_utf8(output.stdout).expect("UTF-8");
    assert_eq!(output.status.code(), Some(101), "cargo's status: {out}");
    // Issue 21: the error's location is served with it, before any
    // warning's.
    assert!(
        out.contains("error[E0308]: mismatched types\n --> src/lib.rs:1:21\n"),
        "{out}"
    );
    assert!(out.contains(" more matching lines not shown"), "{out}");
    // Within --max, but for the header and the last marker.
    let content: usize = out.len() - out.find("\n\n").map_or(0, |at| at + 2);
    assert!(content < 4_000 + 400, "{} bytes: {out}", content);
}

/// Issue 21: "`--keep-errors` keeps file names": `exceptions.py`,
/// `error.h` and `system_error` in `ls -lR` and `find` output are names,
/// not errors; a real error line among them still is.
#[test]
fn keep_errors_passes_over_file_names_in_listings() {
    let dir = TempDir::new("listing-names");
    let tree = dir.path().join("tree");
    for sub in 0..30 {
        let sub = tree.join(format!("pkg{sub:02}"));
        std::fs::create_dir_all(&sub).unwrap();
        for name in ["exceptions.py", "error.h", "system_error", "plain.txt"] {
            std::fs::write(sub.join(name), "x").unwrap();
        }
    }
    let ls = crate::common::command("ls")
        .arg("-lR")
        .arg(&tree)
        .output()
        .expect("run ls");
    let find = crate::common::command("find")
        .arg(&tree)
        .output()
        .expect("run find");
    for listing in [ls.stdout, find.stdout] {
        let mut input = listing.clone();
        input.extend_from_slice(b"error: the disk is full\n");
        input.extend_from_slice(&listing);
        let output = toolcap()
            .args(["--max", "2k", "--keep-errors"])
            .write_stdin(input)
            .output()
            .expect("run toolcap");
        let out = String::from_utf8_lossy(&output.stdout);
        assert!(out.contains("\nerror: the disk is full\n"), "{out}");
        assert!(
            !out.contains("more error line"),
            "a name was taken for an error: {out}"
        );
    }
}

/// Found in review: pytest prints a blank line between a failure's `E`
/// lines and its `test_a.py:12: AssertionError` location, so "right
/// under" never held; the location is served with its error.
#[test]
fn a_pytest_location_a_blank_line_under_its_error_is_kept_with_it() {
    if !require(Need::Pytest) {
        return;
    }
    let dir = TempDir::new("pytest-locations");
    let tests: String = (0..158)
        .map(|i| format!("def test_{i}():\n    assert {i} % 20 != 7, \"bad {i}\"\n"))
        .collect();
    std::fs::write(dir.join("test_a.py"), format!("import pytest\n{tests}")).unwrap();
    // pytest prints its short summary whole when it sees it runs in CI:
    // the output must not depend on where the test runs.
    let run = crate::common::command("python3")
        .current_dir(dir.path())
        .env_remove("PYTEST_ADDOPTS")
        .env_remove("CI")
        .env_remove("BUILD_NUMBER")
        .env("COLUMNS", "80")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_a.py"])
        .output()
        .expect("run pytest");
    let raw = dir.join("pytest.log");
    std::fs::write(&raw, [run.stdout, run.stderr].concat()).unwrap();
    let output = toolcap_at(dir.path())
        .args(["--max", "1000", "--profile", "pytest"])
        .arg(&raw)
        .output()
        .expect("run toolcap");
    let out = String::from_utf8(output.stdout).expect("UTF-8");
    // The last failure's error and its location, together.
    assert!(
        out.contains("E       assert (147 % 20) != 7\n\ntest_a.py:297: AssertionError\n"),
        "{out}"
    );
    // Every location shown comes a blank line under an `E` line.
    let lines: Vec<&str> = out.lines().collect();
    for (at, line) in lines.iter().enumerate() {
        if line.ends_with(": AssertionError") && line.starts_with("test_a.py:") {
            assert!(
                at >= 2 && lines[at - 2].starts_with("E "),
                "{line:?}:\n{out}"
            );
        }
    }
}
