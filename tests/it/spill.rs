//! Spill files: the full input is saved, and the marker says where.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;

use crate::common::{TempDir, repeated, stored_outputs, toolcap, truncated};

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
