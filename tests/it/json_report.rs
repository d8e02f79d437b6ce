//! The `--json` report: every field in filter and wrap mode, invalid
//! UTF-8 replaced, the store's file and id named only while they exist.

use std::path::Path;

use serde_json::Value;

use crate::common::{TempDir, repeated, stored_outputs, toolcap, truncated};

/// toolcap's stdout as JSON, after it exits with `code`.
fn json_of(args: &[&str], stdin: &[u8], code: i32) -> Value {
    let output = toolcap()
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .expect("run toolcap");
    assert_eq!(output.status.code(), Some(code), "{output:?}");
    assert_eq!(
        output.stdout.iter().filter(|&&b| b == b'\n').count(),
        1,
        "one line"
    );
    serde_json::from_slice(&output.stdout).expect("toolcap printed JSON")
}

#[test]
fn json_report_in_filter_mode_has_every_field() {
    let input = repeated("abcd\n", 10);
    let report = json_of(&["--json", "--max", "10"], &input, 0);
    let text = String::from_utf8(truncated(
        50,
        10,
        b"abcd\n",
        "[... 40 bytes truncated ...]",
        b"abcd\n",
    ))
    .expect("UTF-8");
    assert_eq!(report["output"], text.as_str());
    assert_eq!(report["truncated"], true);
    assert_eq!(report["bytes"], 50);
    assert_eq!(report["lines"], 10);
    assert_eq!(report["tokens"], 13);
    assert_eq!(report["head_bytes"], 5);
    assert_eq!(report["tail_bytes"], 5);
    assert_eq!(report["omitted_bytes"], 40);
    assert_eq!(report["omitted_lines"], serde_json::json!([2, 9]));
    assert_eq!(report["spill"], Value::Null);
    assert_eq!(report["spill_id"], Value::Null);
    assert!(report.get("exit").is_none(), "no exit in filter mode");
    // Output that fits: nothing truncated, the input itself.
    let fits = json_of(&["--json"], b"short\n", 0);
    assert_eq!(fits["output"], "short\n");
    assert_eq!(fits["truncated"], false);
    assert_eq!(fits["omitted_lines"], Value::Null);
}

#[test]
fn json_report_replaces_invalid_utf8_and_names_the_store() {
    let dir = TempDir::new("json-store");
    let store = dir.join("store");
    let mut input = b"caf\xe9\n".to_vec();
    input.extend_from_slice(&repeated("line\n", 20));
    let report = json_of(
        &[
            "--json",
            "--max",
            "12",
            "--spill-dir",
            &store.display().to_string(),
        ],
        &input,
        0,
    );
    let output = report["output"].as_str().expect("a string");
    assert!(output.contains("caf\u{FFFD}\n"), "{output}");
    let outputs = stored_outputs(&store);
    assert_eq!(outputs.len(), 1);
    let id = outputs[0]
        .file_stem()
        .expect("a name")
        .to_string_lossy()
        .into_owned();
    assert_eq!(report["spill_id"], id.as_str());
    assert_eq!(report["spill"], outputs[0].display().to_string().as_str());
    assert_eq!(std::fs::read(&outputs[0]).expect("stored"), input);
}

#[test]
fn json_report_names_no_spill_file_when_the_store_removed_it() {
    let dir = TempDir::new("json-store-fits");
    let store = dir.join("store");
    let store = store.display().to_string();
    let report = json_of(&["--json", "--spill-dir", &store], b"short\n", 0);
    assert_eq!(report["spill"], Value::Null);
    assert_eq!(report["spill_id"], Value::Null);
    assert_eq!(report["spill_error"], Value::Null);
    assert!(stored_outputs(Path::new(&store)).is_empty());
}

#[test]
fn json_report_in_wrap_mode_says_how_the_command_ended() {
    let killed = json_of(&["--json", "-c", "echo partial; kill -9 $$"], b"", 137);
    assert_eq!(
        killed["output"],
        "partial\n[killed by signal 9 (SIGKILL)]\n"
    );
    assert_eq!(
        killed["exit"],
        serde_json::json!({"code": null, "signal": 9, "timed_out": false})
    );
    assert!(killed["duration_ms"].as_u64().is_some());
    let timed_out = json_of(
        &["--json", "--timeout", "200ms", "-c", "sleep 30"],
        b"",
        124,
    );
    assert_eq!(timed_out["exit"]["timed_out"], true);
    assert_eq!(timed_out["exit"]["signal"], 15);
    let separate = json_of(
        &[
            "--json",
            "--stderr",
            "separate",
            "-c",
            "echo out; echo err >&2; exit 2",
        ],
        b"",
        2,
    );
    assert_eq!(separate["output"], "out\n[exit status: 2]\n");
    assert_eq!(separate["exit"]["code"], 2);
    assert_eq!(separate["stderr"]["output"], "err\n");
    assert_eq!(separate["stderr"]["bytes"], 4);
}

#[test]
fn json_and_live_do_not_mix() {
    toolcap()
        .args(["--json", "--live"])
        .assert()
        .code(2)
        .stderr(
            "toolcap: --json and --live cannot be used together: the report comes at the end\n",
        );
}
