//! Spill files: the full input is saved, and the marker says where.

use std::os::unix::fs::PermissionsExt;

use crate::common::{KillOnDrop, TempDir, repeated, toolcap, truncated};

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
        std::fs::read_dir(&dir)
            .expect("list the spill directory")
            .count(),
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
    let files: Vec<_> = std::fs::read_dir(&dir)
        .expect("list the spill directory")
        .map(|entry| entry.expect("a spill directory entry").path())
        .collect();
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
    let files: Vec<_> = std::fs::read_dir(dir.path())
        .expect("list the spill directory")
        .map(|entry| entry.expect("a spill directory entry").path())
        .collect();
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
            let child = guard.spawn(
                crate::common::std_toolcap()
                    .arg("--spill-dir")
                    .arg(dir.path())
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::null()),
            );
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
    let mut contents: Vec<Vec<u8>> = std::fs::read_dir(dir.path())
        .expect("list the spill directory")
        .map(|entry| {
            let path = entry.expect("a spill directory entry").path();
            std::fs::read(&path)
                .unwrap_or_else(|err| panic!("cannot read '{}': {err}", path.display()))
        })
        .collect();
    contents.sort();
    let expected: Vec<Vec<u8>> = (0..8)
        .map(|run| repeated(&format!("run {run} line\n"), 20_000))
        .collect();
    assert_eq!(contents, expected);
}
