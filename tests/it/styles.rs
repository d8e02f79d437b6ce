//! `--style codex` against its description, and the `--header`/`--marker`
//! templates reproducing other agents' notices.

use crate::codex_model::codex;
use crate::common::{TempDir, toolcap};
use crate::store::manifest;

#[test]
fn codex_style_matches_its_description() {
    let cases: [(&[u8], &[&str], usize, bool); 8] = [
        (b"abcdefghijklmnopqrstuvwxyz\n", &["--max", "10"], 10, false),
        // Both cuts inside multi-byte characters.
        (
            "héllo wörld, ça va très bien €€€\n".as_bytes(),
            &["--max", "9"],
            9,
            false,
        ),
        // One byte over the budget, and exactly at it.
        (b"0123456789a", &["--max", "10"], 10, false),
        (b"0123456789", &["--max", "10"], 10, false),
        // M = 0: the marker alone, counting everything.
        (b"abc\ndef\n", &["--max", "0"], 0, false),
        // Under --tokens, tokens are counted.
        (b"abcdefghijklmnopqrstuvwxyz", &["--tokens", "3"], 12, true),
        // Invalid UTF-8 is decoded first (each bad byte becomes 3 bytes).
        (b"ab\xff\xfecdefghijklmnop", &["--max", "6"], 6, false),
        (
            b"line one\nline two\nline three\n",
            &["--max", "12"],
            12,
            false,
        ),
    ];
    for (input, args, budget, tokens) in cases {
        let output = toolcap()
            .arg("--style=codex")
            .args(args)
            .write_stdin(input.to_vec())
            .output()
            .expect("run toolcap");
        assert!(output.status.success(), "{output:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            codex(input, budget, tokens),
            "{args:?} on {:?}",
            String::from_utf8_lossy(input)
        );
    }
    toolcap()
        .args(["--style", "codex", "--head", "5"])
        .assert()
        .code(2)
        .stderr(
            "toolcap: --style codex sets its own cuts and wording: it cannot be combined with \
             --head\n",
        );
}

#[test]
fn templates_reproduce_other_agents_notices() {
    let dir = TempDir::new("templates");
    let spill = dir.join("out-17.txt");
    let input: Vec<u8> = (0..7_488)
        .flat_map(|i| format!("{i:09}\n").into_bytes())
        .collect();
    let output = toolcap()
        .args(["--max", "13676", "--cut", "bytes", "--spill"])
        .arg(&spill)
        .args([
            "--marker",
            "[... {omitted_bytes:,} of {bytes:,} bytes omitted; full output in {spill} ...]",
        ])
        .write_stdin(input.clone())
        .output()
        .expect("run toolcap");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains(&format!(
            "\n[... 61,204 of 74,880 bytes omitted; full output in {} ...]\n",
            spill.display()
        )),
        "{text}"
    );
    // A pointer-only result: one copy-pasteable line instead of the output.
    let store = dir.join("store");
    let pointer = toolcap()
        .args(["--head", "0", "--tail", "0", "--no-header", "--spill-dir"])
        .arg(&store)
        .args([
            "--marker",
            "[Tool output compressed: {bytes} bytes \u{2192} {show}]",
        ])
        .write_stdin(input.clone())
        .output()
        .expect("run toolcap");
    let id = manifest(&store)[0]["id"].as_str().expect("id").to_string();
    assert_eq!(
        String::from_utf8_lossy(&pointer.stdout),
        format!(
            "[Tool output compressed: 74880 bytes \u{2192} toolcap --show {id} --spill-dir {}]\n",
            store.display()
        )
    );
    // The spec: "With `--tail 2k --keep-errors --keep-max 2k` instead
    // of `--tail 0`, the lines it keeps still appear between the pointer
    // lines" (the keep share comes from the tail, which is left with 0),
    // for an output longer than the 2k.
    let with_errors = toolcap()
        .args(["--head", "0", "--tail", "2k", "--no-header", "--spill-dir"])
        .arg(&store)
        .args([
            "--marker",
            "[compressed: {bytes} bytes]",
            "--keep-errors",
            "--keep-max",
            "2k",
        ])
        .write_stdin(format!(
            "{}error: x\n{}",
            "ok line\n".repeat(150),
            "ok line\n".repeat(150)
        ))
        .output()
        .expect("run toolcap");
    assert_eq!(
        String::from_utf8_lossy(&with_errors.stdout),
        "[compressed: 2409 bytes]\nerror: x\n[compressed: 2409 bytes]\n"
    );
    // An empty header template: no header at all.
    toolcap()
        .args([
            "--max",
            "4",
            "--header",
            "",
            "--marker",
            "[{omitted_lines} lines cut]",
        ])
        .write_stdin("a\nb\nc\nd\n")
        .assert()
        .success()
        .stdout("a\n[2 lines cut]\nd\n");
    toolcap()
        .args(["--marker", "{bites}"])
        .assert()
        .code(2)
        .stderr(predicates::str::starts_with(
            "toolcap: invalid value for '--marker': unknown placeholder '{bites}'",
        ));
}
