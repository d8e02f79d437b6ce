//! Spill files: the full input is saved, and the marker says where.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;

use crate::common::{KillOnDrop, TempDir, repeated, stored_outputs, toolcap, truncated};

#[test]
fn spill_file_equals_the_input_and_the_marker_names_it() {
    let dir = TempDir::new("spill-file");
    let spill = dir.join("full.log");
    let input = repeated("abcd\n", 10_000);
    let marker = format!(
        "[... 40000 bytes truncated (lines 1001-9000); full output in {} ...]",
        spill.display()
    );
    let expected = truncated(50_000, 10_000, &input[..5_000], &marker, &input[45_000..]);
    toolcap()
        .arg("--spill")
        .arg(&spill)
        .write_stdin(input.clone())
        .assert()
        .success()
        .stdout(expected);
    assert_eq!(std::fs::read(&spill).expect("read the spill file"), input);
    assert_eq!(
        std::fs::metadata(&spill)
            .expect("the spill file")
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
}

#[test]
fn spill_file_is_written_even_when_the_output_fits() {
    let dir = TempDir::new("spill-fits");
    let spill = dir.join("full.log");
    std::fs::write(&spill, "old content that is longer").expect("write the old spill file");
    toolcap()
        .arg("--spill")
        .arg(&spill)
        .write_stdin("short\n")
        .assert()
        .success()
        .stdout("short\n");
    assert_eq!(
        std::fs::read(&spill).expect("read the spill file"),
        b"short\n"
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
fn eight_concurrent_spill_dir_runs_get_eight_distinct_complete_files() {
    let dir = TempDir::new("spill-concurrent");
    let runs: Vec<_> = (0..8)
        .map(|run| {
            let input = repeated(&format!("run {run} line\n"), 20_000);
            let mut guard = KillOnDrop::new();
            let child = guard.spawn(crate::common::std_toolcap().with(|c| {
                c.arg("--spill-dir")
                    .arg(dir.path())
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::null())
            }));
            let mut stdin = child.stdin.take().expect("piped stdin");
            let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
            (guard, writer)
        })
        .collect();
    for (mut guard, writer) in runs {
        writer
            .join()
            .expect("the writer thread")
            .expect("write toolcap's stdin");
        assert!(guard.child().wait().expect("wait for toolcap").success());
    }
    let mut contents: Vec<Vec<u8>> = stored_outputs(dir.path())
        .iter()
        .map(|path| {
            std::fs::read(path)
                .unwrap_or_else(|err| panic!("cannot read '{}': {err}", path.display()))
        })
        .collect();
    contents.sort();
    let expected: Vec<Vec<u8>> = (0..8)
        .map(|run| repeated(&format!("run {run} line\n"), 20_000))
        .collect();
    assert_eq!(contents, expected);
}

#[test]
fn spill_file_that_is_an_input_is_refused_and_left_alone() {
    let dir = TempDir::new("spill-is-input");
    let log = dir.join("log");
    let content = repeated("keep me\n", 100);
    std::fs::write(&log, &content).expect("write the input file");
    let refusal = |what: &str| {
        format!(
            "toolcap: the spill file '{}' is also {what}: writing it would destroy what toolcap \
             reads or writes; choose another file\n",
            log.display()
        )
    };
    // As a FILE argument, as stdin, and through a second name (a hard link).
    let alias = dir.join("alias");
    std::fs::hard_link(&log, &alias).expect("link the input");
    for (args, stdin_from_log, what) in [
        (
            vec!["--max", "100", "--spill", "log", "log"],
            false,
            "the input 'log'".to_string(),
        ),
        (vec!["--spill", "log"], true, "standard input".to_string()),
        (
            vec!["--spill", "log", "alias"],
            false,
            "the input 'alias'".to_string(),
        ),
        (
            vec!["--spill", "log", "--", "cat"],
            true,
            "standard input".to_string(),
        ),
    ] {
        // A real file descriptor on stdin (assert_cmd would pipe a copy).
        let mut command = crate::common::std_toolcap();
        command.current_dir(dir.path()).args(&args);
        if stdin_from_log {
            command.stdin(std::fs::File::open(&log).expect("open the input file"));
        }
        let output = command.output().expect("run toolcap");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(output.stdout, b"", "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            refusal(&what).replace(&log.display().to_string(), "log"),
            "{args:?}"
        );
        assert_eq!(
            std::fs::read(&log).expect("read the input"),
            content,
            "{args:?}"
        );
    }
}

#[test]
fn spill_file_that_is_stdout_is_refused() {
    let dir = TempDir::new("spill-is-stdout");
    let out = dir.join("out");
    std::fs::write(&out, "before\n").expect("create the output file");
    let stdout = std::fs::OpenOptions::new()
        .append(true)
        .open(&out)
        .expect("open the output file");
    let output = crate::common::std_toolcap()
        .arg("--spill")
        .arg(&out)
        .stdout(stdout)
        .output()
        .expect("run toolcap");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!(
            "toolcap: the spill file '{}' is also standard output: writing it would destroy what \
             toolcap reads or writes; choose another file\n",
            out.display()
        )
    );
    assert_eq!(std::fs::read(&out).expect("read"), b"before\n");
}

#[test]
fn spill_file_is_never_written_through_a_symlink() {
    let dir = TempDir::new("spill-symlink");
    let target = dir.join("target");
    std::fs::write(&target, "precious\n").expect("create the target");
    let dangling_target = dir.join("created-by-nobody");
    for (link, points_to) in [("link", &target), ("dangling", &dangling_target)] {
        let link = dir.join(link);
        std::os::unix::fs::symlink(points_to, &link).expect("plant the symlink");
        let reason = format!(
            "cannot create spill file '{}': it is a symbolic link, which toolcap does not follow",
            link.display()
        );
        let marker =
            format!("[... 40 bytes truncated (lines 2-9); full output not saved: {reason} ...]");
        let input = repeated("abcd\n", 10);
        toolcap()
            .args(["--max", "10", "--spill"])
            .arg(&link)
            .write_stdin(input)
            .assert()
            .code(1)
            .stdout(truncated(50, 10, b"abcd\n", &marker, b"abcd\n"))
            .stderr(format!("toolcap: {reason}\n"));
    }
    assert_eq!(std::fs::read(&target).expect("read"), b"precious\n");
    assert!(
        !dangling_target.exists(),
        "a dangling link's target was created"
    );
}

#[test]
fn the_marker_names_the_spill_file_by_its_absolute_path_on_one_line() {
    let dir = TempDir::new("spill-absolute");
    let input = repeated("abcd\n", 10);
    // A relative spill directory, and a file name with a newline and an
    // escape character in it.
    let output = toolcap()
        .current_dir(dir.path())
        .env("TOOLCAP_SPILL_DIR", "relative/dir")
        .arg("--max=10")
        .write_stdin(input.clone())
        .output()
        .expect("run toolcap");
    assert!(output.status.success());
    let stored = stored_outputs(&dir.join("relative/dir"));
    assert_eq!(stored.len(), 1);
    assert!(stored[0].is_absolute());
    let marker = format!(
        "[... 40 bytes truncated (lines 2-9); full output in {} ...]",
        stored[0].display()
    );
    assert_eq!(
        output.stdout,
        truncated(50, 10, b"abcd\n", &marker, b"abcd\n")
    );

    // Control characters, and bytes that are not UTF-8, escaped: the
    // marker stays one line of valid UTF-8 (`--utf8` promises that of
    // everything printed).
    for (name, escaped) in [
        (&b"odd\nname\x1b[31m"[..], "odd\\nname\\x1b[31m"),
        (b"caf\xe9-\xff.log", "caf\\xe9-\\xff.log"),
    ] {
        let spill = dir.join(OsStr::from_bytes(name));
        toolcap()
            .args(["--max", "10", "--utf8", "--spill"])
            .arg(&spill)
            .write_stdin(input.clone())
            .assert()
            .success()
            .stdout(truncated(
                50,
                10,
                b"abcd\n",
                &format!(
                    "[... 40 bytes truncated (lines 2-9); full output in {}/{escaped} ...]",
                    dir.path().display()
                ),
                b"abcd\n",
            ));
        assert_eq!(std::fs::read(&spill).expect("read"), input);
    }
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
            "chmod 700 '{dir}' && head -c 200000 /dev/zero | tr '\\0' x | {bin} --max {max} --spill-dir '{dir}' \
             >/dev/null 2>'{errors}'; echo $?; ls -A '{dir}'",
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
