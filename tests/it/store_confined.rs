//! The spill store is confined (issue 21, item 8): a manifest line names an
//! id, the file is derived from it inside the store, and a line that names
//! anything else is skipped with a warning. Retention, `--prune` and
//! `--show` never read or delete a path outside the store.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::common::{TempDir, toolcap};

/// `lines` numbered lines, one per line.
fn numbers(lines: usize) -> String {
    (1..=lines).map(|n| format!("{n}\n")).collect()
}

/// Records one cut output of `lines` lines in `store`; returns its id.
fn record(store: &Path, lines: usize, retain: &str) -> String {
    let output = toolcap()
        .args(["--max", "10", "--json", "--retain", retain, "--spill-dir"])
        .arg(store)
        .write_stdin(numbers(lines))
        .output()
        .expect("run toolcap");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    report["spill_id"].as_str().expect("a spill id").to_string()
}

/// A manifest line as earlier versions wrote it, with `file` if given.
fn line(id: &str, file: Option<&str>) -> String {
    let mut entry = json!({
        "id": id,
        "created": "2026-12-01T00:00:00Z",
        "bytes": 9,
        "lines": 1,
        "omitted_lines": null,
        "command": null,
        "exit": null,
    });
    if let Some(file) = file {
        entry["file"] = json!(file);
    }
    format!("{entry}\n")
}

/// Files outside the store that a manifest names, with their contents.
struct Outside(Vec<(PathBuf, &'static str)>);

impl Outside {
    fn create(files: Vec<(PathBuf, &'static str)>) -> Outside {
        for (path, content) in &files {
            std::fs::write(path, content).expect("write an outside file");
        }
        Outside(files)
    }

    /// Each is still there, unchanged.
    fn assert_untouched(&self, after: &str) {
        for (path, content) in &self.0 {
            assert_eq!(
                std::fs::read_to_string(path).ok().as_deref(),
                Some(*content),
                "{} after {after}",
                path.display()
            );
        }
    }
}

#[test]
fn manifest_lines_that_name_paths_or_foreign_ids_are_skipped_and_never_acted_on() {
    let dir = TempDir::new("store-confined");
    let store = dir.join("store");
    let id = record(&store, 100, "200");
    let outside = Outside::create(vec![
        (dir.join("precious"), "precious\n"),
        (dir.join("x"), "x\n"),
        (dir.join("dots.log"), "dots\n"),
        (dir.join("linked"), "linked\n"),
    ]);
    let manifest = store.join("index.jsonl");
    let precious = dir.join("precious").display().to_string();
    let foreign = [
        line("0123abcd", Some(&precious)),
        line("0123abcd", Some("../x")),
        // Without a file, an id outside the alphabet would make the path
        // ../dots.log.
        line("../dots", None),
        line("89ABCDEF", Some("89ABCDEF.log")),
    ]
    .concat();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&manifest)
        .and_then(|mut file| file.write_all(foreign.as_bytes()))
        .expect("append to the manifest");
    // The listed output's file becomes a symlink out of the store.
    let output = store.join(format!("{id}.log"));
    std::fs::remove_file(&output).expect("remove the output");
    std::os::unix::fs::symlink(dir.join("linked"), &output).expect("plant a symlink");

    let m = manifest.display();
    let warnings = |first: usize| {
        format!(
            "toolcap: warning: line {} of the spill store's manifest '{m}' is not an output: it \
             names the file '{precious}', but output 0123abcd is 0123abcd.log in the store, so \
             '{precious}' is never touched; skipped\n\
             toolcap: warning: line {} of the spill store's manifest '{m}' is not an output: it \
             names the file '../x', but output 0123abcd is 0123abcd.log in the store, so '../x' \
             is never touched; skipped\n\
             toolcap: warning: line {} of the spill store's manifest '{m}' is not an output: its \
             id '../dots' is not 8 lower-case hex digits, so nothing it names is touched; \
             skipped\n\
             toolcap: warning: line {} of the spill store's manifest '{m}' is not an output: its \
             id '89ABCDEF' is not 8 lower-case hex digits, so nothing it names is touched; \
             skipped\n",
            first,
            first + 1,
            first + 2,
            first + 3
        )
    };

    let listed = toolcap()
        .arg("--list")
        .arg("--spill-dir")
        .arg(&store)
        .output()
        .unwrap();
    assert_eq!(listed.status.code(), Some(0));
    let rows = String::from_utf8(listed.stdout).unwrap();
    assert_eq!(rows.lines().count(), 1, "{rows}");
    assert!(rows.starts_with(&id), "{rows}");
    assert_eq!(String::from_utf8(listed.stderr).unwrap(), warnings(2));

    // The id a skipped line names is no output; the warnings say why.
    toolcap()
        .args(["--show", "0123"])
        .arg("--spill-dir")
        .arg(&store)
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!(
            "{}toolcap: no output '0123' in the spill store '{}' (toolcap --list shows them)\n",
            warnings(2),
            store.display()
        ));
    // A symlink in the store is not followed, byte for byte or capped.
    for capping in [&[][..], &["--max", "5"], &["--grep", "l"]] {
        toolcap()
            .args(["--show", &id])
            .args(capping)
            .arg("--spill-dir")
            .arg(&store)
            .assert()
            .code(1)
            .stdout("")
            .stderr(format!(
                "{}toolcap: cannot read the stored output '{}': it is a symbolic link, which \
                 toolcap does not follow\n",
                warnings(2),
                output.display()
            ));
    }
    outside.assert_untouched("--list and --show");

    // Retention in a run drops the oldest output (its symlink, inside the
    // store) and keeps the skipped lines as they are, silently.
    let newer = record(&store, 50, "1");
    assert!(
        std::fs::symlink_metadata(&output).is_err(),
        "the symlink is gone"
    );
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.starts_with(&foreign), "{text}");
    assert_eq!(text.lines().count(), 5, "{text}");
    outside.assert_untouched("retention");

    toolcap()
        .args(["--prune", "--retain", "0", "--spill-dir"])
        .arg(&store)
        .assert()
        .code(0)
        .stdout("")
        .stderr(warnings(1));
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), foreign);
    assert!(!store.join(format!("{newer}.log")).exists());
    outside.assert_untouched("--prune");
}

#[test]
fn old_manifest_lines_without_a_file_or_with_their_own_are_read() {
    let dir = TempDir::new("store-old-lines");
    let store = dir.join("store");
    let id = record(&store, 100, "200");
    // The lines as versions before issue 21 wrote them name `ID.log`; a
    // line with the id alone is read too.
    let manifest = store.join("index.jsonl");
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains(&format!("\"file\":\"{id}.log\"")), "{text}");
    std::fs::write(&manifest, line(&id, None)).unwrap();
    toolcap()
        .args(["--show", &id, "--lines", "99:100", "--spill-dir"])
        .arg(&store)
        .assert()
        .code(0)
        .stdout("99\n100\n")
        .stderr("");
}

#[test]
fn a_dangling_symlink_where_the_store_should_be_says_so() {
    let dir = TempDir::new("store-dangling");
    let link = dir.join("store");
    std::os::unix::fs::symlink("gone", &link).expect("plant a dangling symlink");
    let why = format!(
        "'{}': it is a symbolic link to 'gone', which does not exist",
        link.display()
    );
    toolcap()
        .arg("--spill-dir")
        .arg(&link)
        .args(["--max", "20"])
        .write_stdin(numbers(30))
        .assert()
        .code(1)
        .stdout(format!(
            "Warning: truncated output (original token count: 21)\nTotal output lines: 30\n\n\
             1\n2\n3\n4\n5\n[... 62 bytes truncated (lines 6-27); full output not saved: cannot \
             create spill directory {why} ...]\n28\n29\n30\n"
        ))
        .stderr(format!("toolcap: cannot create spill directory {why}\n"));
    // Below the link too: it is named, not the directory that would be.
    let below = link.join("sub");
    toolcap()
        .arg("--spill-dir")
        .arg(&below)
        .write_stdin("fits\n")
        .assert()
        .code(0)
        .stdout("fits\n")
        .stderr(format!(
            "toolcap: warning: cannot create spill directory '{}': '{}' is a symbolic link to \
             'gone', which does not exist\n",
            below.display(),
            link.display()
        ));
    for command in [
        &["--list"][..],
        &["--prune"],
        &["--show", "0123"],
        &["--summary", "0123"],
    ] {
        toolcap()
            .args(command)
            .arg("--spill-dir")
            .arg(&link)
            .assert()
            .code(1)
            .stdout("")
            .stderr(format!("toolcap: cannot read spill directory {why}\n"));
    }
    assert!(
        std::fs::symlink_metadata(dir.join("gone")).is_err(),
        "nothing was created"
    );
}

#[test]
fn a_manifest_that_is_a_symlink_out_of_the_store_is_not_read() {
    let dir = TempDir::new("store-manifest-link");
    let store = dir.join("store");
    record(&store, 100, "200");
    let manifest = store.join("index.jsonl");
    let outside = Outside::create(vec![(
        dir.join("elsewhere.jsonl"),
        "{\"id\":\"0123abcd\"}\n",
    )]);
    std::fs::remove_file(&manifest).unwrap();
    std::os::unix::fs::symlink(dir.join("elsewhere.jsonl"), &manifest).unwrap();
    let why = "it is a symbolic link, which toolcap does not follow";
    toolcap()
        .arg("--list")
        .arg("--spill-dir")
        .arg(&store)
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!(
            "toolcap: cannot read the spill store's manifest '{}': {why}\n",
            manifest.display()
        ));
    toolcap()
        .args(["--prune", "--retain", "0", "--spill-dir"])
        .arg(&store)
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!("toolcap: cannot prune the spill store: {why}\n"));
    outside.assert_untouched("--list and --prune");
    assert!(
        std::fs::symlink_metadata(&manifest)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}
