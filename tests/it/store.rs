//! The spill store (`--spill-dir`, `--store`, `TOOLCAP_SPILL_DIR`): a
//! private file only for an output not shown as it came, concurrent runs, ids and the
//! manifest, `--show`/`--summary`/`--list`, retention, store commands that
//! create nothing, stores that are refused, and failures that leave
//! nothing behind.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::Value;

use crate::common::{
    BIN, KillOnDrop, TempDir, repeated, std_toolcap, stored_outputs, toolcap, truncated,
};

/// The one line of the store's manifest for each output.
pub fn manifest(store: &Path) -> Vec<Value> {
    std::fs::read_to_string(store.join("index.jsonl"))
        .expect("the manifest")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a whole JSON line"))
        .collect()
}

#[test]
fn sixteen_concurrent_runs_share_one_store_each_output_complete_and_listed() {
    // Eight commands (wrap mode) and eight piped inputs (filter mode)
    // write into one store at once: sixteen distinct ids, each output
    // whole and listed once, in a directory of the owner's only.
    let dir = TempDir::new("store-concurrent");
    let store = dir.join("store");
    let piped = |run: usize| repeated(&format!("run {run} line\n"), 20_000);
    let commands = (0..8).map(|run| {
        let mut guard = KillOnDrop::new();
        guard.spawn(std_toolcap().with(|c| {
            c.args(["--max", "100", "--spill-dir"])
                .arg(&store)
                .arg("-c")
                .arg(format!(
                    "i=0; while [ $i -lt 2000 ]; do echo run {run} line $i; i=$((i+1)); done"
                ))
                .stdout(Stdio::null())
        }));
        (guard, None)
    });
    let filters = (0..8).map(|run| {
        let mut guard = KillOnDrop::new();
        let child = guard.spawn(std_toolcap().with(|c| {
            c.arg("--spill-dir")
                .arg(&store)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
        }));
        let mut stdin = child.stdin.take().expect("piped stdin");
        let input = piped(run);
        let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
        (guard, Some(writer))
    });
    let runs: Vec<_> = commands.chain(filters).collect();
    for (mut run, writer) in runs {
        if let Some(writer) = writer {
            writer
                .join()
                .expect("the writer thread")
                .expect("write toolcap's stdin");
        }
        assert!(run.child().wait().expect("wait").success());
    }
    let outputs = stored_outputs(&store);
    assert_eq!(outputs.len(), 16);
    let entries = manifest(&store);
    assert_eq!(entries.len(), 16);
    let mut ids: Vec<&str> = entries
        .iter()
        .map(|entry| entry["id"].as_str().expect("id"))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 16, "distinct ids");
    let mut filtered = Vec::new();
    for entry in &entries {
        let file = store.join(entry["file"].as_str().expect("file"));
        let content = std::fs::read(&file).expect("stored output");
        assert_eq!(entry["bytes"], content.len());
        if entry["command"].is_null() {
            assert_eq!(entry["lines"], 20_000);
            filtered.push(content);
        } else {
            assert_eq!(String::from_utf8_lossy(&content).lines().count(), 2000);
            assert_eq!(entry["lines"], 2000);
            assert_eq!(entry["exit"], 0);
            assert_eq!(entry["command"][0], "/bin/sh");
        }
    }
    filtered.sort();
    assert_eq!(filtered, (0..8).map(piped).collect::<Vec<_>>());
    assert_eq!(
        std::fs::metadata(&store)
            .expect("store")
            .permissions()
            .mode()
            & 0o777,
        0o700
    );
}

#[test]
fn show_prints_stored_bytes_and_line_ranges_and_summary_stands_for_them() {
    let dir = TempDir::new("store-show");
    let store = dir.join("store").display().to_string();
    let input: Vec<u8> = (1..=1000)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect();
    toolcap()
        .args(["--max", "100", "--spill-dir", &store, "--", "cat"])
        .write_stdin(input.clone())
        .assert()
        .success();
    let entries = manifest(Path::new(&store));
    let id = entries[0]["id"].as_str().expect("id").to_string();
    toolcap()
        .args(["--spill-dir", &store, "--show", &id[..4]])
        .assert()
        .success()
        .stdout(input.clone());
    toolcap()
        .args(["--spill-dir", &store, "--show", &id, "--lines", "998:1005"])
        .assert()
        .success()
        .stdout("line 998\nline 999\nline 1000\n");
    toolcap()
        .args(["--spill-dir", &store, "--summary", &id])
        .assert()
        .success()
        .stdout(format!(
            "[output {id}: 8,893 bytes, 1,000 lines, exit 0, cat; full output: toolcap --show {id} \
             --spill-dir {store}]\n"
        ));
    let listed = toolcap()
        .args(["--spill-dir", &store, "--list"])
        .output()
        .expect("list");
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.starts_with(&format!("{id}  ")), "{listed}");
    assert!(
        listed.contains("8,893 bytes") && listed.trim_end().ends_with("cat"),
        "{listed}"
    );
    toolcap()
        .args(["--spill-dir", &store, "--show", "zzzz"])
        .assert()
        .code(1)
        .stderr(format!(
            "toolcap: no output 'zzzz' in the spill store '{store}' (toolcap --list shows them)\n"
        ));
}

#[test]
fn a_store_named_with_control_characters_is_shown_by_a_one_line_command() {
    let dir = TempDir::new("store-odd-name");
    let store = dir.join("st\x01ore\nnew'line");
    let input = repeated("line\n", 100);
    let output = toolcap()
        .args(["--max", "10", "--spill-dir"])
        .arg(&store)
        .args(["--marker", "[{show}]"])
        .write_stdin(input.clone())
        .output()
        .expect("run toolcap");
    assert!(output.status.success());
    let id = manifest(&store)[0]["id"].as_str().expect("id").to_string();
    let quoted = format!("$'{}/st\\x01ore\\nnew\\'line'", dir.path().display());
    let show = format!("toolcap --show {id} --spill-dir {quoted}");
    assert_eq!(
        output.stdout,
        truncated(500, 100, b"line\n", &format!("[{show}]"), b"line\n")
    );
    let summary = toolcap()
        .args(["--summary", &id, "--spill-dir"])
        .arg(&store)
        .output()
        .expect("summary");
    assert_eq!(
        String::from_utf8_lossy(&summary.stdout),
        format!("[output {id}: 500 bytes, 100 lines; full output: {show}]\n")
    );
    // The command, run by a shell, prints the output.
    let shown = crate::common::command("bash")
        .arg("-c")
        .arg(show.replacen("toolcap", BIN, 1))
        .output()
        .expect("this test needs bash to run the show command");
    assert_eq!(shown.stdout, input);
}

#[test]
fn retention_keeps_the_newest_outputs_by_count_and_by_size() {
    let dir = TempDir::new("store-retention");
    let store = dir.join("store").display().to_string();
    for run in 0..5 {
        toolcap()
            .args(["--max", "10", "--spill-dir", &store, "--retain", "3"])
            .write_stdin(repeated(&format!("run {run}\n"), 100))
            .assert()
            .success();
    }
    let entries = manifest(Path::new(&store));
    assert_eq!(entries.len(), 3);
    assert_eq!(stored_outputs(Path::new(&store)).len(), 3);
    let kept: Vec<String> = entries
        .iter()
        .map(|entry| {
            let file = Path::new(&store).join(entry["file"].as_str().expect("file"));
            std::fs::read_to_string(file)
                .expect("kept")
                .lines()
                .next()
                .expect("a line")
                .to_string()
        })
        .collect();
    assert_eq!(kept, ["run 2", "run 3", "run 4"]);
    // Each output is 600 bytes: 1,000 bytes hold one.
    toolcap()
        .args(["--spill-dir", &store, "--prune", "--retain-size", "1000"])
        .assert()
        .success()
        .stdout("");
    assert_eq!(manifest(Path::new(&store)).len(), 1);
    assert_eq!(stored_outputs(Path::new(&store)).len(), 1);
    // After a write, never the output just written, which its marker
    // names: it stays even alone over the limit (or with --retain 0).
    for retain in [["--retain-size", "100"], ["--retain", "0"]] {
        let output = toolcap()
            .args(["--max", "10", "--spill-dir", &store])
            .args(retain)
            .write_stdin(repeated("new\n", 200))
            .output()
            .expect("run toolcap");
        assert!(output.status.success(), "{output:?}");
        let entries = manifest(Path::new(&store));
        let id = entries[0]["id"].as_str().expect("id");
        assert_eq!(entries.len(), 1, "{retain:?}");
        let named = format!("full output in {store}/{id}.log");
        assert!(
            String::from_utf8_lossy(&output.stdout).contains(&named),
            "{retain:?}"
        );
        assert_eq!(
            stored_outputs(Path::new(&store)),
            [Path::new(&store).join(format!("{id}.log"))]
        );
    }
}

#[test]
fn a_separate_stderr_in_the_store_says_so() {
    let dir = TempDir::new("store-stderr");
    let store = dir.join("store");
    toolcap()
        .args(["--max", "5", "--stderr", "separate", "--spill-dir"])
        .arg(&store)
        .args(["-c", "seq 100; seq 100 >&2"])
        .assert()
        .success();
    let entries = manifest(&store);
    let streams: Vec<Option<&str>> = entries
        .iter()
        .map(|entry| entry["stream"].as_str())
        .collect();
    assert_eq!(
        streams
            .iter()
            .filter(|stream| **stream == Some("stderr"))
            .count(),
        1,
        "{entries:?}"
    );
    assert!(streams.contains(&None), "{entries:?}");
    let listed = toolcap()
        .args(["--list", "--spill-dir"])
        .arg(&store)
        .output()
        .expect("list");
    let mut commands: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(|row| row.rsplit("lines  ").next().unwrap_or("").to_string())
        .collect();
    commands.sort();
    assert_eq!(
        commands,
        ["seq 100; seq 100 >&2", "stderr of seq 100; seq 100 >&2"]
    );
}

#[test]
fn retention_spares_both_outputs_of_a_run_with_a_separate_stderr() {
    let dir = TempDir::new("store-retain-stderr");
    let store = dir.join("store");
    for run in 0..2 {
        let output = toolcap()
            .args([
                "--max",
                "50",
                "--stderr",
                "separate",
                "--retain",
                "1",
                "--spill-dir",
            ])
            .arg(&store)
            .args(["-c", "seq 100; seq 100 >&2"])
            .output()
            .expect("run toolcap");
        assert!(output.status.success(), "{output:?}");
        // Each marker names an output that is still there, and the older
        // run's two are gone.
        let mut named: Vec<PathBuf> = [&output.stdout, &output.stderr]
            .iter()
            .map(|text| {
                let text = String::from_utf8_lossy(text);
                let (_, after) = text.split_once("full output in ").expect("a marker");
                PathBuf::from(after.split_whitespace().next().expect("a path"))
            })
            .collect();
        named.sort();
        assert_eq!(stored_outputs(&store), named, "run {run}");
        assert_eq!(manifest(&store).len(), 2, "run {run}");
    }
}

#[test]
fn store_commands_create_no_store_and_name_it_absolutely() {
    let dir = TempDir::new("store-absent");
    let absent = dir.join("absent");
    for command in [&["--list"][..], &["--prune"]] {
        toolcap()
            .args(command)
            .arg("--spill-dir")
            .arg(&absent)
            .assert()
            .success()
            .stdout("");
    }
    for command in ["--show", "--summary"] {
        toolcap()
            .current_dir(dir.path())
            .args([command, "abc", "--spill-dir", "absent"])
            .assert()
            .code(1)
            .stderr(format!(
                "toolcap: no output 'abc': there is no spill store '{}'\n",
                absent.display()
            ));
    }
    assert!(!absent.exists());
    // A relative --spill-dir: the summary's show command works from
    // anywhere. The command column is one line, and `-c` is a command
    // string only to a shell.
    let store = dir.join("store");
    for argv in [
        &["-c", "echo one\necho two"][..],
        &["--", "grep", "-c", "1"],
    ] {
        toolcap()
            .current_dir(dir.path())
            .args(["--max", "1", "--spill-dir", "store"])
            .args(argv)
            .write_stdin("1\n1\n")
            .assert()
            .success();
    }
    let entries = manifest(&store);
    let id = entries[0]["id"].as_str().expect("id");
    toolcap()
        .current_dir(dir.path())
        .args(["--summary", id, "--spill-dir", "store"])
        .assert()
        .success()
        .stdout(format!(
            "[output {id}: 8 bytes, 2 lines, exit 0, echo one\\necho two; full output: toolcap \
             --show {id} --spill-dir {}]\n",
            store.display()
        ));
    let listed = toolcap()
        .args(["--list", "--spill-dir"])
        .arg(&store)
        .output()
        .expect("list");
    let listed = String::from_utf8_lossy(&listed.stdout);
    let commands: Vec<&str> = listed
        .lines()
        .map(|row| row.rsplit("lines  ").next().unwrap_or(""))
        .collect();
    assert_eq!(commands, ["grep -c 1", "echo one\\necho two"], "{listed}");
}

#[test]
fn a_store_others_can_write_or_a_planted_manifest_link_is_refused() {
    let dir = TempDir::new("store-security");
    let store = dir.join("shared");
    std::fs::create_dir(&store).expect("create");
    std::fs::set_permissions(&store, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let reason = format!(
        "refusing spill directory '{}': others can write to it (mode 0777); make it private with \
         chmod 700",
        store.display()
    );
    toolcap()
        .args(["--max", "10", "--spill-dir"])
        .arg(&store)
        .write_stdin(repeated("abcd\n", 10))
        .assert()
        .code(1)
        .stdout(truncated(
            50,
            10,
            b"abcd\n",
            &format!("[... 40 bytes truncated (lines 2-9); full output not saved: {reason} ...]"),
            b"abcd\n",
        ))
        .stderr(format!("toolcap: {reason}\n"));
    toolcap()
        .args(["--list", "--spill-dir"])
        .arg(&store)
        .assert()
        .code(1)
        .stderr(format!("toolcap: {reason}\n"));
    // Named by the environment, which the user may have forgotten: the
    // message says so.
    for args in [&["--max", "10"][..], &["--list"]] {
        toolcap()
            .env("TOOLCAP_SPILL_DIR", &store)
            .args(args)
            .write_stdin(repeated("abcd\n", 10))
            .assert()
            .code(1)
            .stderr(format!("toolcap: {reason} (set by TOOLCAP_SPILL_DIR)\n"));
    }
    // A private store whose manifest someone linked elsewhere: the output
    // is saved, but the link is not followed to write the manifest.
    let private = dir.join("private");
    std::fs::create_dir(&private).expect("create");
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let target = dir.join("elsewhere");
    std::fs::write(&target, "").expect("target");
    std::os::unix::fs::symlink(&target, private.join("index.jsonl")).expect("plant");
    let output = toolcap()
        .args(["--max", "10", "--spill-dir"])
        .arg(&private)
        .write_stdin(repeated("abcd\n", 10))
        .output()
        .expect("run toolcap");
    // The output is saved (nothing lost): only its listing failed.
    assert_eq!(output.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .starts_with("toolcap: warning: cannot update the spill store"),
        "{output:?}"
    );
    assert_eq!(
        std::fs::read(&target).expect("target"),
        b"",
        "nothing written through the link"
    );
}

#[test]
fn spill_dir_keeps_a_private_file_only_when_truncated() {
    let root = TempDir::new("spill-dir");
    let dir = root.join("made/by/toolcap");
    toolcap()
        .arg("--spill-dir")
        .arg(&dir)
        .write_stdin("fits\n")
        .assert()
        .success()
        .stdout("fits\n");
    assert_eq!(
        std::fs::metadata(&dir)
            .expect("the spill directory")
            .permissions()
            .mode()
            & 0o777,
        0o700
    );
    assert_eq!(
        stored_outputs(&dir).len(),
        0,
        "fitting output leaves no file"
    );

    let input = repeated("line\n", 100);
    let output = toolcap()
        .arg("--spill-dir")
        .arg(&dir)
        .arg("--max=20")
        .write_stdin(input.clone())
        .output()
        .expect("run toolcap");
    assert!(output.status.success());
    let files = stored_outputs(&dir);
    assert_eq!(files.len(), 1);
    assert_eq!(
        std::fs::read(&files[0]).expect("read the spill file"),
        input
    );
    assert_eq!(
        std::fs::metadata(&files[0])
            .expect("the spill file")
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
    let marker = format!(
        "[... 480 bytes truncated (lines 3-98); full output in {} ...]",
        files[0].display()
    );
    assert_eq!(
        output.stdout,
        truncated(500, 100, &input[..10], &marker, &input[490..])
    );
}

/// Issue 21: "Folded lines are lost for good": a test run whose folded
/// output fits keeps its entry, and the output names it.
#[test]
fn a_folded_output_that_fits_keeps_and_names_its_file() {
    let root = TempDir::new("spill-dir-folded");
    let dir = root.join("store");
    let mut input = b"collected 3000 items\n".to_vec();
    for case in 0..3000 {
        input.extend_from_slice(format!("test_x.py::test_case[{case}] PASSED\n").as_bytes());
    }
    input.extend_from_slice(b"=== 3000 passed in 4.50s ===\n");
    let output = toolcap()
        .args(["--clean", "--max", "2k", "--spill-dir"])
        .arg(&dir)
        .write_stdin(input.clone())
        .output()
        .expect("run toolcap");
    assert!(output.status.success());
    let files = stored_outputs(&dir);
    assert_eq!(files.len(), 1, "the entry is kept");
    assert_eq!(std::fs::read(&files[0]).expect("read the entry"), input);
    let folded = "[... 2998 similar lines folded (lines 3-3000) ...]\n";
    let shown = format!(
        "collected 3000 items\ntest_x.py::test_case[0] PASSED\n{folded}\
         test_x.py::test_case[2999] PASSED\n=== 3000 passed in 4.50s ===\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!(
            "{shown}[... cleaned: {} raw bytes became {} bytes; full output in {} ...]\n",
            input.len(),
            shown.len(),
            files[0].display()
        )
    );
    // `sed -n '3,3000p'` of the entry is what the marker stands for.
    let lines: Vec<&[u8]> = input.split_inclusive(|&b| b == b'\n').collect();
    assert!(lines[2].starts_with(b"test_x.py::test_case[1] "));
    assert!(lines[2999].starts_with(b"test_x.py::test_case[2998] "));
}

#[test]
fn spill_dir_from_the_environment() {
    let dir = TempDir::new("spill-env");
    let input = b"a\nb\nc\nd\n";
    let output = toolcap()
        .env("TOOLCAP_SPILL_DIR", dir.path())
        .arg("--max=4")
        .write_stdin(input.to_vec())
        .output()
        .expect("run toolcap");
    assert!(output.status.success(), "{output:?}");
    let files = stored_outputs(dir.path());
    assert_eq!(files.len(), 1, "{files:?}");
    let spill = &files[0];
    assert_eq!(std::fs::read(spill).expect("read the spill file"), input);
    assert_eq!(
        std::fs::metadata(spill)
            .expect("the spill file")
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
    let marker = format!(
        "[... 4 bytes truncated (lines 2-3); full output in {} ...]",
        spill.display()
    );
    assert_eq!(output.stdout, truncated(8, 4, b"a\n", &marker, b"d\n"));
    assert_eq!(output.stderr, b"");
}

#[test]
fn spill_dir_that_is_a_file_says_not_a_directory() {
    let dir = TempDir::new("spill-dir-file");
    let file = dir.join("file");
    std::fs::write(&file, "").expect("create the file");
    let reason = format!(
        "cannot create spill directory '{}': not a directory",
        file.display()
    );
    toolcap()
        .args(["--max", "10", "--spill-dir"])
        .arg(&file)
        .write_stdin(repeated("abcd\n", 10))
        .assert()
        .code(1)
        .stdout(truncated(
            50,
            10,
            b"abcd\n",
            &format!("[... 40 bytes truncated (lines 2-9); full output not saved: {reason} ...]"),
            b"abcd\n",
        ))
        .stderr(format!("toolcap: {reason}\n"));
    assert!(file.is_file(), "toolcap removed the file it could not use");
}

/// A path that cannot be a spill directory is someone's file: it is never
/// removed, nor its `.stderr` sibling, nor a symlink; and two streams
/// failing the same way give one warning.
#[test]
fn spill_dir_never_removes_what_it_did_not_create() {
    let dir = TempDir::new("spill-dir-not-mine");
    let notes = dir.join("notes");
    std::fs::write(&notes, "important\n").expect("write notes");
    std::fs::write(dir.join("notes.stderr"), "keep\n").expect("write notes.stderr");
    let link = dir.join("link");
    std::os::unix::fs::symlink(&notes, &link).expect("symlink");
    toolcap()
        .args(["--stderr", "separate", "--spill-dir"])
        .arg(&notes)
        .args(["--", "sh", "-c", "echo o; echo e >&2"])
        .assert()
        .success()
        .stdout("o\n")
        .stderr(format!(
            "e\ntoolcap: warning: cannot create spill directory '{}': not a directory\n",
            notes.display()
        ));
    toolcap()
        .arg("--spill-dir")
        .arg(&link)
        .write_stdin("x\n")
        .assert()
        .success()
        .stdout("x\n");
    assert_eq!(std::fs::read(&notes).expect("notes"), b"important\n");
    assert_eq!(
        std::fs::read(dir.join("notes.stderr")).expect("sibling"),
        b"keep\n"
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("link")
            .file_type()
            .is_symlink()
    );
}

/// A full cache disk must not fail every command whose output fit: the
/// spill file was going to be deleted anyway.
#[test]
fn spill_dir_failure_is_only_a_warning_when_nothing_was_cut() {
    let dir = TempDir::new("spill-dir-unusable");
    // A directory that cannot be created: its parent is a regular file.
    std::fs::write(dir.join("file"), "").expect("create the file");
    let spill_dir = dir.join("file/spill");
    let warning = format!(
        "toolcap: warning: cannot create spill directory '{}': Not a directory (os error 20)\n",
        spill_dir.display()
    );
    for args in [&["--spill-dir"][..], &["-c", "echo fits", "--spill-dir"]] {
        let stdin = if args.len() == 1 { "fits\n" } else { "" };
        toolcap()
            .args(args)
            .arg(&spill_dir)
            .write_stdin(stdin)
            .assert()
            .code(0)
            .stdout("fits\n")
            .stderr(warning.clone());
    }
}

/// On a disk that fills up part-way, the spill-dir file is removed (the
/// marker says it was not saved), and the exit status depends on whether
/// anything was cut. Needs a private tmpfs mount (util-linux unshare).
#[test]
fn spill_dir_file_that_failed_part_way_is_removed() {
    if !crate::common::require(crate::common::Need::PrivateMount) {
        return;
    }
    let dir = TempDir::new("spill-dir-full");
    // toolcap's stderr goes outside the private mount, to be read here.
    let errors_dir = TempDir::new("spill-dir-full-stderr");
    let errors_file = errors_dir.join("stderr");
    let bin = crate::common::BIN;
    for (max, code) in [("100", 1), ("1M", 0)] {
        // 200,000 bytes into a 64 KiB disk; then list what is left on it.
        // A fresh tmpfs is writable by all; a store must be private.
        let script = format!(
            "chmod 700 '{dir}' && head -c 200000 /dev/zero | tr '\\0' x \
             | {bin} --max {max} --spill-dir '{dir}' >/dev/null 2>'{errors}'; \
             echo $?; ls -A '{dir}'",
            dir = dir.path().display(),
            errors = errors_file.display()
        );
        let output = crate::common::with_tiny_tmpfs(dir.path(), &script)
            .output()
            .expect("run unshare");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            format!("{code}\nindex.lock\n"),
            "--max {max}: exit status, then no file left but the store's lock; stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let errors = std::fs::read_to_string(&errors_file).expect("toolcap's stderr");
        let expected_start = if code == 0 {
            "toolcap: warning: cannot write spill file"
        } else {
            "toolcap: cannot write spill file"
        };
        assert!(errors.starts_with(expected_start), "{errors}");
        assert!(errors.contains("No space left on device"), "{errors}");
    }
}
