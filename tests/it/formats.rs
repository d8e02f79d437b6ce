//! `--format json|diff|csv|auto` on real inputs made here: `cargo
//! metadata`, a pretty array of 20,000 objects, a nested document with one
//! huge string, a `git diff` of many files in a temporary repository, a CSV
//! with a quoted newline. Byte-exact examples, and property tests against
//! the spec's words (`format_model.rs`) over many budgets.

use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{Value, json};
use toolcap::{Format, Options, SizeOrPercent};

use crate::common::{Need, TempDir, assert_output, require, toolcap};
use crate::format_model::{
    cleaned_hunks_are_whole, diff_marker, hunks_are_whole, read_diff, same_shape, split_header,
};

fn cap(input: &[u8], options: &Options) -> Vec<u8> {
    toolcap::cap(input, options).expect("valid options")
}

/// The spec's promises for `--format json` on `input` capped at
/// `budget` bytes: unchanged when it fits; else the header, then a JSON
/// part of at most `budget` bytes (a document and a newline) that parses
/// and has the input's shape, every count adding up.
fn check_json(input: &[u8], budget: u64) -> Result<(), String> {
    let output = cap(input, &Options::new().max(budget).format(Format::Json));
    if input.len() as u64 <= budget {
        return if output == input {
            Ok(())
        } else {
            Err("a document that fits was changed".into())
        };
    }
    let (header, part) = split_header(&output).ok_or("no header")?;
    let lines =
        input.iter().filter(|&&b| b == b'\n').count() + usize::from(!input.ends_with(b"\n"));
    let expected_header = format!(
        "Warning: truncated output (original token count: {})\nTotal output lines: {lines}\n\n",
        input.len().div_ceil(4)
    );
    if header != expected_header.as_bytes() {
        return Err(format!("header {:?}", String::from_utf8_lossy(header)));
    }
    if part.len() as u64 > budget || !part.ends_with(b"\n") {
        return Err(format!(
            "JSON part of {} bytes for a budget of {budget}",
            part.len()
        ));
    }
    let original: Value = serde_json::from_slice(input).map_err(|e| format!("input: {e}"))?;
    let shortened: Value = serde_json::from_slice(part)
        .map_err(|e| format!("output is not JSON: {e}: {}", String::from_utf8_lossy(part)))?;
    same_shape(&original, &shortened, "$")
}

fn cargo_metadata() -> &'static [u8] {
    static METADATA: OnceLock<Vec<u8>> = OnceLock::new();
    METADATA.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let run = |extra: &[&str]| {
            crate::common::command(&cargo)
                .args([
                    "metadata",
                    "--format-version",
                    "1",
                    "--offline",
                    "--manifest-path",
                    manifest,
                ])
                .args(extra)
                .output()
                .ok()
                .filter(|out| out.status.success())
                .map(|out| out.stdout)
        };
        // With the dependencies when they are at hand (offline), else the
        // package alone.
        run(&[])
            .or_else(|| run(&["--no-deps"]))
            .expect("cargo metadata runs")
    })
}

/// A pretty array of 20,000 objects, as an API dump looks.
fn pretty_array() -> &'static [u8] {
    static ARRAY: OnceLock<Vec<u8>> = OnceLock::new();
    ARRAY.get_or_init(|| {
        let items: Vec<Value> = (0..20_000)
            .map(|i| {
                json!({
                    "id": i,
                    "name": format!("user-{i}"),
                    "score": (i as f64) * 0.25,
                    "active": i % 3 == 0,
                    "tags": if i % 2 == 0 { json!(["a", "b"]) } else { json!([]) },
                    "address": {"city": "Zürich", "zip": format!("{:04}", i % 10_000)},
                })
            })
            .collect();
        let mut text = serde_json::to_vec_pretty(&items).expect("serialize");
        text.push(b'\n');
        text
    })
}

/// A nested document with one huge string (escapes and non-ASCII in it).
fn huge_string_document() -> &'static [u8] {
    static DOCUMENT: OnceLock<Vec<u8>> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        let log: String = (0..40_000)
            .map(|i| format!("step {i}: \"ok\" ✓\n"))
            .collect();
        let document = json!({
            "job": {"id": 123456789012345678u64, "name": "build", "labels": ["ci", "nightly"]},
            "result": {"status": "failed", "exit": 101, "output": {"log": log, "truncated": false}},
            "timings": [1.5, 2.25, 1e-3],
        });
        serde_json::to_vec(&document).expect("serialize")
    })
}

#[test]
fn json_examples_byte_for_byte() {
    let users: Vec<String> = (1..=100)
        .map(|i| format!(r#"{{"id":{i},"name":"user{i}"}}"#))
        .collect();
    let input = format!(
        r#"{{"total":100,"users":[{}],"big":12345678901234567890123.0e+5}}"#,
        users.join(",")
    ) + "\n";
    let expected = format!(
        "Warning: truncated output (original token count: {})\nTotal output lines: 1\n\n\
         {{\"total\":100,\"users\":[{{\"id\":1,\"name\":\"user1\"}},\
         \"[... 98 of 100 items truncated; objects with keys: id, name ...]\",\
         {{\"id\":100,\"name\":\"user100\"}}],\"big\":12345678901234567890123.0e+5}}\n",
        input.len().div_ceil(4)
    );
    assert_output(
        &["--format", "json", "--max", "180"],
        input.clone(),
        expected,
    );
    // Pretty in, pretty out; and --pretty on a compact input.
    let pretty = concat!(
        "{\n  \"a\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18],\n",
        "  \"b\": {}\n}\n",
    );
    let shortened =
        "{\n  \"a\": [\n    1,\n    \"[... 17 of 18 items truncated ...]\"\n  ],\n  \"b\": {}\n}\n";
    let header = "Warning: truncated output (original token count: 22)\nTotal output lines: 4\n\n";
    assert_output(
        &["--format", "json", "--max", "80"],
        pretty,
        format!("{header}{shortened}"),
    );
    let numbers: Vec<String> = (1..=30).map(|i| i.to_string()).collect();
    let compact = format!("{{\"a\":[{}],\"b\":{{}}}}", numbers.join(","));
    let header = "Warning: truncated output (original token count: 24)\nTotal output lines: 1\n\n";
    assert_output(
        &["--format", "json", "--max", "80", "--pretty"],
        compact,
        format!("{header}{}", shortened.replace("17 of 18", "29 of 30")),
    );
    // Within the budget: byte for byte, odd spacing and all.
    assert_output(&["--format", "json"], " [1 ,2] \n", " [1 ,2] \n");
}

#[test]
fn json_that_is_not_json_or_too_large_falls_back_to_text_with_the_reason() {
    let broken = format!("{{\"a\": [{}\n", "1, ".repeat(30));
    let out = toolcap()
        .args(["--format", "json", "--max", "40"])
        .write_stdin(broken)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.starts_with(
            "Warning: truncated output (original token count: 25)\nTotal output lines: 1\n\
             Format: not JSON (EOF while parsing a value at line 2 column 1); capped as text\n\n"
        ),
        "{text}"
    );
    assert!(text.contains(" bytes truncated ...]\n"), "{text}");
    let large = format!("[{}1]", "1,".repeat(600));
    let out = toolcap()
        .args(["--format", "json", "--max", "100", "--json-limit", "1k"])
        .write_stdin(large)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains(
            "\nFormat: not JSON (larger than --json-limit (1000 bytes)); capped as text\n\n"
        ),
        "{text}"
    );
    // auto falls back without a word: JSON Lines is text.
    let lines = "{\"a\":1}\n".repeat(50);
    let out = toolcap()
        .args(["--format", "auto", "--max", "40"])
        .write_stdin(lines)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(!text.contains("Format:"), "{text}");
    assert!(text.contains("\n\n{\"a\":1}\n"), "{text}");
}

#[test]
fn json_real_documents_keep_their_promises() {
    for (name, input) in [
        ("cargo metadata", cargo_metadata()),
        ("pretty array", pretty_array()),
        ("huge string", huge_string_document()),
    ] {
        for budget in [100, 1_000, 10_000, 200_000, 1_000_000] {
            if let Err(why) = check_json(input, budget) {
                panic!("{name} at {budget} bytes: {why}");
            }
        }
    }
}

#[test]
fn json_shortening_keeps_the_first_and_last_records_and_the_huge_string_ends() {
    let out = cap(
        pretty_array(),
        &Options::new().max(2_000).format(Format::Json),
    );
    let text = String::from_utf8(out).expect("UTF-8");
    // serde_json prints keys sorted: "active" comes first.
    assert!(text.contains("\n\n[\n  {\n    \"active\": true,"), "{text}");
    assert!(
        text.contains("\"id\": 0,\n    \"name\": \"user-0\","),
        "{text}"
    );
    assert!(
        text.contains("items truncated; objects with keys: "),
        "{text}"
    );
    assert!(text.contains("\"id\": 19999,"), "{text}");
    let out = cap(
        huge_string_document(),
        &Options::new().max(1_000).format(Format::Json),
    );
    let text = String::from_utf8(out).expect("UTF-8");
    assert!(
        text.contains(r#""log":"step 0: \"ok\" ✓\nstep 1:"#),
        "{text}"
    );
    assert!(
        text.contains(r#"step 39999: \"ok\" ✓\n","truncated":false}"#),
        "{text}"
    );
    assert!(text.contains(r#""id":123456789012345678,"#), "{text}");
}

/// A JSON value of any shape, with keys and strings that need escaping.
fn json_value() -> impl Strategy<Value = Value> {
    let text = prop_oneof![
        Just("a".to_string()),
        Just("key".to_string()),
        Just("é€😀".to_string()),
        Just("quote \" and \\ and \n".to_string()),
        "[a-z]{0,40}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        text.clone().prop_map(Value::String),
        text.clone().prop_map(|s| Value::String(s.repeat(30))),
    ];
    leaf.prop_recursive(5, 400, 30, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..40).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{1,8}", inner), 0..12)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(64),
        ..ProptestConfig::default()
    })]

    #[test]
    fn json_random_documents_keep_their_promises(
        value in json_value(),
        pretty in any::<bool>(),
        budget in 100u64..3_000,
    ) {
        let input = if pretty {
            serde_json::to_vec_pretty(&value).unwrap()
        } else {
            serde_json::to_vec(&value).unwrap()
        };
        if let Err(why) = check_json(&input, budget) {
            return Err(TestCaseError::fail(why));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(16),
        ..ProptestConfig::default()
    })]

    /// Budgets from 100 bytes to 1 MB, spread evenly on a log scale.
    #[test]
    fn json_real_documents_at_any_budget(which in 0usize..3, exponent in 2.0f64..6.0) {
        let input = [cargo_metadata(), pretty_array(), huge_string_document()][which];
        let budget = 10f64.powf(exponent) as u64;
        if let Err(why) = check_json(input, budget) {
            return Err(TestCaseError::fail(format!("input {which} at {budget} bytes: {why}")));
        }
    }
}

/// `git diff` of a real change to many files, in a temporary repository,
/// and the changed files' names in order.
fn git_diff() -> Option<&'static (Vec<u8>, Vec<String>)> {
    static DIFF: OnceLock<Option<(Vec<u8>, Vec<String>)>> = OnceLock::new();
    DIFF.get_or_init(|| {
        let dir = TempDir::new("git-diff");
        let git = |args: &[&str]| crate::common::git(dir.path(), args);
        git(&["init", "-q"]);
        let source = |file: usize, version: usize| -> String {
            (0..120)
                .map(|line| {
                    let changed =
                        version == 1 && (line % 37 == file % 37 || line == 119 - file % 5);
                    if changed {
                        format!("fn f{line}() -> u32 {{ {} }} // changed\n", line * 2)
                    } else {
                        format!("fn f{line}() -> u32 {{ {line} }}\n")
                    }
                })
                .collect()
        };
        for file in 0..60 {
            std::fs::create_dir_all(dir.join(format!("src/m{}", file % 7))).unwrap();
            std::fs::write(
                dir.join(format!("src/m{}/f{file}.rs", file % 7)),
                source(file, 0),
            )
            .unwrap();
        }
        std::fs::write(dir.join("gone.txt"), "bye\n").unwrap();
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "start"]);
        for file in 0..60 {
            if file % 4 != 3 {
                std::fs::write(
                    dir.join(format!("src/m{}/f{file}.rs", file % 7)),
                    source(file, 1),
                )
                .unwrap();
            }
        }
        std::fs::remove_file(dir.join("gone.txt")).unwrap();
        std::fs::write(dir.join("new.md"), "# new\n\nhello\n").unwrap();
        git(&["add", "-A"]);
        let diff = git(&["diff", "--cached", "--no-color"]);
        let names = String::from_utf8(git(&["diff", "--cached", "--name-only"])).unwrap();
        Some((diff, names.lines().map(String::from).collect()))
    })
    .as_ref()
}

/// The spec's rules for `--format diff` on `input` with head and tail
/// budgets `head` and `tail`, after the cleaning `clean` adds (none, or
/// `--fold` and `--squeeze`): where each cut lands in the cleaned stream,
/// whole hunks, and a marker naming exactly the omitted hunks and files.
fn check_diff(
    input: &[u8],
    head: u64,
    tail: u64,
    clean: fn(Options) -> Options,
) -> Result<(), String> {
    let options = clean(Options::new())
        .head(SizeOrPercent::Bytes(head))
        .tail(SizeOrPercent::Bytes(tail))
        .format(Format::Diff);
    let output = cap(input, &options);
    // "Everything below is about the cleaned stream B": the output of the
    // same cleaning when nothing is cut. Squeeze and fold condense only a
    // stream that would be cut, so B is the output within a budget of its
    // own size, which the header's `Cleaned:` line gives.
    let cleaned_size = String::from_utf8_lossy(&output)
        .lines()
        .take(3)
        .find_map(|line| {
            line.strip_prefix("Cleaned: ")?
                .split(" became ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse()
                .ok()
        });
    let cleaned = cap(
        input,
        &clean(Options::new()).max(cleaned_size.unwrap_or(1 << 40)),
    );
    let whole = if cleaned == input {
        hunks_are_whole
    } else {
        cleaned_hunks_are_whole
    };
    let input = &cleaned[..];
    let n = input.len() as u64;
    if n <= head + tail {
        return if output == input {
            Ok(())
        } else {
            Err("a diff that fits was changed".into())
        };
    }
    let (_, rest) = split_header(&output).ok_or("no header")?;
    // The cut's marker, not one that `--fold` or `--squeeze` put in.
    let is_marker = |line: &[u8]| {
        let digits = line
            .iter()
            .skip(5)
            .take_while(|b| b.is_ascii_digit())
            .count();
        line.starts_with(b"[... ") && line[5 + digits..].starts_with(b" bytes truncated")
    };
    let mut marker_at = 0;
    for line in rest.split_inclusive(|&b| b == b'\n') {
        if is_marker(line) {
            break;
        }
        marker_at += line.len();
    }
    let marker_end = marker_at
        + rest[marker_at..]
            .iter()
            .position(|&b| b == b'\n')
            .ok_or("no marker")?
        + 1;
    let mut kept_head = &rest[..marker_at];
    // The newline added after a head cut mid-line; when the input's next
    // byte is a newline too, the output cannot tell the two apart, and
    // only the shorter head is within the budget.
    if !input.starts_with(kept_head) || kept_head.len() as u64 > head {
        kept_head = &kept_head[..kept_head.len() - 1];
    }
    let kept_tail = &rest[marker_end..];
    let (h, t) = (kept_head.len() as u64, n - kept_tail.len() as u64);
    if !input.starts_with(kept_head) || !input.ends_with(kept_tail) || h > head || t < n - tail {
        return Err(format!(
            "head {h} or tail from {t} is not the input's within budget"
        ));
    }
    let diff = read_diff(input);
    let mut boundaries: Vec<u64> = diff
        .files
        .iter()
        .chain(diff.hunks.iter().map(|h| &h.0))
        .map(|&b| b as u64)
        .collect();
    boundaries.sort();
    // "The head ends and the tail starts at a hunk or file boundary when one
    // lies within the budget, else where the core's rules put it."
    if let Some(&b) = boundaries.iter().rev().find(|&&b| b > 0 && b <= head) {
        if h != b {
            return Err(format!(
                "head ends at {h}, the last boundary within {head} is {b}"
            ));
        }
        whole(kept_head)?;
    }
    if let Some(&b) = boundaries.iter().find(|&&b| b >= n - tail && b < n) {
        if t != b {
            return Err(format!(
                "tail starts at {t}, the first boundary within it is {b}"
            ));
        }
        whole(kept_tail)?;
    }
    let omitted = |at: usize| (h..t).contains(&(at as u64));
    let hunks = diff.hunks.iter().filter(|hunk| omitted(hunk.0)).count();
    let files: Vec<&str> = (0..diff.files.len())
        .filter(|&f| {
            omitted(diff.files[f]) || diff.hunks.iter().any(|hunk| hunk.1 == f && omitted(hunk.0))
        })
        .map(|f| diff.names[f].as_str())
        .collect();
    let expected = diff_marker(t - h, hunks, &files);
    let marker = String::from_utf8_lossy(&rest[marker_at..marker_end]);
    if marker != expected {
        return Err(format!("marker {marker:?}, expected {expected:?}"));
    }
    // A tail that starts at a hunk: the marker names that hunk's file last.
    if let Some(&(_, file, _)) = diff.hunks.iter().find(|hunk| hunk.0 as u64 == t)
        && h < t
        && !marker.ends_with(&format!(" {} ...]\n", diff.names[file]))
    {
        return Err(format!(
            "the tail starts in {}: {marker:?}",
            diff.names[file]
        ));
    }
    Ok(())
}

/// No cleaning.
fn raw(options: Options) -> Options {
    options
}

/// Cleaning that shortens hunks.
fn fold_and_squeeze(options: Options) -> Options {
    options.fold(true).squeeze(true)
}

#[test]
fn diff_real_git_diff_byte_for_byte_through_the_binary() {
    if !require(Need::Git) {
        return;
    }
    let (diff, names) = git_diff().expect("a diff");
    assert!(names.len() > 40, "{names:?}");
    let out = toolcap()
        .args(["--format", "diff", "--max", "3k"])
        .write_stdin(diff.clone())
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains(" files: src/m"), "{text}");
    assert!(text.contains(" more, src/m"), "{text}");
    assert_eq!(&read_diff(diff).names, names);
    check_diff(diff, 1_500, 1_500, raw).unwrap();
    // auto sees a diff too.
    let auto = toolcap()
        .args(["--format", "auto", "--max", "3k"])
        .write_stdin(diff.clone())
        .assert()
        .success();
    assert_eq!(auto.get_output().stdout, out.get_output().stdout);
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(200),
        ..ProptestConfig::default()
    })]

    #[test]
    fn diff_cuts_keep_hunks_whole_and_name_the_omitted_files(
        head in 0u64..8_000,
        tail in 0u64..8_000,
    ) {
        if !require(Need::Git) {
            return Ok(());
        }
        let (diff, _) = git_diff().expect("a diff");
        if let Err(why) = check_diff(diff, head, tail, raw) {
            return Err(TestCaseError::fail(why));
        }
    }

    /// `--fold` shortens nearly every hunk of this diff (its lines differ
    /// only in digits), `--squeeze` the runs of one line.
    #[test]
    fn diff_cuts_of_a_cleaned_diff_land_on_hunks_and_count_them(
        head in 0u64..6_000,
        tail in 0u64..6_000,
    ) {
        if !require(Need::Git) {
            return Ok(());
        }
        let (diff, _) = git_diff().expect("a diff");
        if let Err(why) = check_diff(diff, head, tail, fold_and_squeeze) {
            return Err(TestCaseError::fail(why));
        }
    }
}

#[test]
fn diff_marker_with_a_spill_file_and_a_plain_unified_diff() {
    let dir = TempDir::new("diff-spill");
    let spill = dir.join("full.diff");
    let mut input = String::new();
    for file in ["a.txt", "b.txt", "c.txt"] {
        input += &format!(
            "--- {file}\t2026-01-01\n+++ {file}\t2026-01-02\n@@ -1,2 +1,2 @@\n-old\n+new\n same\n"
        );
    }
    let expected = format!(
        "Warning: truncated output (original token count: 56)\nTotal output lines: 18\n\n\
         --- a.txt\t2026-01-01\n+++ a.txt\t2026-01-02\n@@ -1,2 +1,2 @@\n-old\n+new\n same\n\
         [... 74 bytes truncated (lines 7-12): 1 hunks in 1 files: b.txt; full output in {} ...]\n\
         --- c.txt\t2026-01-01\n+++ c.txt\t2026-01-02\n@@ -1,2 +1,2 @@\n-old\n+new\n same\n",
        spill.display()
    );
    let spill_arg = spill.to_str().unwrap();
    assert_output(
        &["--format", "diff", "--max", "160", "--spill", spill_arg],
        input.clone(),
        expected,
    );
    assert_eq!(std::fs::read(&spill).unwrap(), input.as_bytes());
}

#[test]
fn csv_cuts_at_rows_and_repeats_the_header_row_before_the_tail() {
    let mut input = String::from("id,name,note\n");
    for i in 0..400 {
        let note = if i == 1 || i == 398 {
            "\"two\nlines, \"\"quoted\"\"\"".to_string()
        } else {
            format!("n{i}")
        };
        input += &format!("{i},user{i},{note}\n");
    }
    // 67 bytes a side, less the 13 of the header row repeated (6 from the
    // head, 7 from the tail): a head of 55 and a tail of 48 (+ 13).
    let out = toolcap()
        .args(["--format", "csv", "--max", "134"])
        .write_stdin(input.clone())
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let (_, body) = text.split_once("\n\n").unwrap();
    let (head, rest) = body.split_once("[... ").unwrap();
    let (marker, tail) = rest.split_once(" ...]\n").unwrap();
    assert_eq!(
        head,
        "id,name,note\n0,user0,n0\n1,user1,\"two\nlines, \"\"quoted\"\"\"\n"
    );
    assert_eq!(
        tail,
        "id,name,note\n398,user398,\"two\nlines, \"\"quoted\"\"\"\n399,user399,n399\n"
    );
    let tail_rows = &tail["id,name,note\n".len()..];
    assert!(input.ends_with(tail_rows));
    let omitted = input.len() - (head.len() + tail_rows.len());
    assert_eq!(marker, format!("{omitted} bytes truncated"));
    // A last row longer than the tail's budget: the text rules start the
    // tail inside it, and no header row labels that fragment (the room
    // left for it, 4 bytes of the tail's 20, stays unused).
    let long_row = format!("id,name\n1,{}\n", "x".repeat(300));
    toolcap()
        .args(["--format", "csv", "--max", "40", "--no-header"])
        .write_stdin(long_row)
        .assert()
        .success()
        .stdout(format!(
            "id,name\n[... 287 bytes truncated ...]\n{}\n",
            "x".repeat(15)
        ));
    // A byte-order mark starts the document, and is not repeated with the
    // header row (whose 8 bytes leave 16 a side).
    let with_bom = format!(
        "\u{feff}id,v\n{}",
        (0..200).map(|i| format!("{i},x\n")).collect::<String>()
    );
    toolcap()
        .args(["--format", "csv", "--max", "40", "--no-header"])
        .write_stdin(with_bom)
        .assert()
        .success()
        .stdout("\u{feff}id,v\n0,x\n1,x\n[... 1070 bytes truncated ...]\nid,v\n198,x\n199,x\n");
    // As text, the same budget cuts the quoted row in two.
    let plain = toolcap()
        .args(["--max", "134"])
        .write_stdin(input)
        .assert()
        .success();
    let plain = String::from_utf8(plain.get_output().stdout.clone()).unwrap();
    assert!(plain.contains("\nline"), "{plain}");
}

#[test]
fn json_report_names_the_format_and_library_render_prints_the_document() {
    let input = format!(
        "[{}]",
        (0..100)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    let out = toolcap()
        .args(["--json", "--format", "auto", "--max", "60"])
        .write_stdin(input.clone())
        .assert()
        .success();
    let report: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(report["format"], "json");
    assert_eq!(report["format_fallback"], Value::Null);
    assert_eq!(report["truncated"], true);
    let text = report["output"].as_str().unwrap();
    assert_eq!(
        text,
        format!(
            "Warning: truncated output (original token count: 73)\nTotal output lines: 1\n\n\
         [0,1,2,3,\"[... 92 of 100 items truncated ...]\",96,97,98,99]\n"
        )
    );
    assert_eq!(report["head_bytes"], 60);
    assert_eq!(report["omitted_bytes"], input.len() - 60);
    // The library renders the same.
    let mut capper = toolcap::Capper::new(&Options::new().max(60).format(Format::Auto)).unwrap();
    capper.push(input.as_bytes());
    let stream = capper.finish();
    assert!(stream.truncated());
    let mut rendered = Vec::new();
    toolcap::render(&stream, &mut rendered).unwrap();
    assert_eq!(rendered, text.as_bytes());
}

#[test]
fn formats_refuse_what_they_cannot_combine_with() {
    for (args, message) in [
        (
            &["--format", "json", "--live"][..],
            "--format json cannot be combined with --live",
        ),
        (
            &["--format", "diff", "--keep", "x"],
            "--format diff cannot be combined with --keep",
        ),
        (
            &["--format", "csv", "--style", "codex"],
            "--format csv cannot be combined with --style codex",
        ),
        (
            &["--format", "json", "--lines", "10"],
            "--format json cannot be combined with --lines",
        ),
        (&["--pretty"], "--pretty needs --format json or auto"),
        (
            &["--format", "diff", "--json-limit", "1k"],
            "--json-limit needs --format json or auto",
        ),
    ] {
        let out = toolcap().args(args).write_stdin("x").assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            stderr.starts_with(&format!("toolcap: {message}")),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn wrap_mode_shortens_the_commands_json_and_adds_the_status_line() {
    let script = "printf '{\"items\": ['; \
                  i=0; while [ $i -lt 300 ]; do printf '%s, ' $i; i=$((i+1)); done; \
                  printf '300]}\\n'; exit 3";
    let out = toolcap()
        .args(["--format", "json", "--max", "100", "-c", script])
        .assert()
        .code(3);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let (_, part) = text.split_once("\n\n").unwrap();
    let (document, status) = part.split_once('\n').unwrap();
    assert_eq!(status, "[exit status: 3]\n");
    assert!(document.len() < 100, "{document}");
    let value: Value = serde_json::from_str(document).unwrap();
    assert_eq!(value["items"][0], 0);
}

#[test]
fn auto_applies_keep_and_lines_to_text_only() {
    // A diff found by auto keeps no lines of its middle: they would break
    // its hunks apart.
    let mut diff = String::new();
    for file in 0..20 {
        diff += &format!(
            "diff --git a/f{file} b/f{file}\n--- a/f{file}\n+++ b/f{file}\n\
             @@ -1 +1 @@\n-error {file}\n+fixed\n"
        );
    }
    let out = toolcap()
        .args(["--format", "auto", "--keep", "error", "--max", "200"])
        .write_stdin(diff.clone())
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(text.matches(" bytes truncated: ").count(), 1, "{text}");
    assert!(!text.contains("-error 10\n"), "{text}");
    // The same lines as text keep their matches.
    let as_text = format!("log\n{diff}");
    let out = toolcap()
        .args(["--format", "auto", "--keep", "error 10", "--max", "400"])
        .write_stdin(as_text)
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).contains("\n-error 10\n"));
    // A document within the budget in bytes passes whole, whatever
    // --lines says; the same lines as text are cut.
    let pretty = "[\n  1,\n  2,\n  3,\n  4\n]\n";
    assert_output(&["--format", "auto", "--lines", "2"], pretty, pretty);
    let cut = toolcap()
        .args(["--lines", "2"])
        .write_stdin(pretty)
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&cut.get_output().stdout).contains("bytes truncated"));
}

/// A CSV field: plain, or quoted with commas, doubled quotes and newlines.
fn csv_field() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z0-9 ]{0,12}",
        1 => "[a-z,\n\" ]{0,16}".prop_map(|text| format!("\"{}\"", text.replace('"', "\"\""))),
    ]
}

fn csv_table() -> impl Strategy<Value = String> {
    let row = prop::collection::vec(csv_field(), 1..5)
        .prop_map(|fields| fields.join(","))
        // A row of one empty field is a blank line, which the csv crate
        // skips; keep rows visible.
        .prop_filter("not blank", |row| !row.is_empty());
    prop::collection::vec(row, 1..60).prop_map(|rows| rows.join("\n") + "\n")
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(300),
        ..ProptestConfig::default()
    })]

    /// Where the csv crate says rows start, the cuts land (when a row
    /// start lies within the budget), and the header row comes again
    /// before the tail.
    #[test]
    fn csv_cuts_land_where_the_csv_crate_starts_rows(
        table in csv_table(),
        head in 0u64..400,
        tail in 0u64..400,
    ) {
        let input = table.as_bytes();
        let n = input.len() as u64;
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(input);
        let starts: Vec<u64> = reader
            .byte_records()
            .map(|record| record.expect("valid CSV").position().expect("a position").byte())
            .collect();
        let options = Options::new()
            .head(SizeOrPercent::Bytes(head))
            .tail(SizeOrPercent::Bytes(tail))
            .format(Format::Csv);
        let output = cap(input, &options);
        if n <= head + tail {
            prop_assert_eq!(output, input);
            return Ok(());
        }
        let (_, rest) = split_header(&output).expect("a header");
        // "A stream that does not fit first gives R, the length of its
        // first row, from the budget as kept lines do: floor(R·H/(H+T))
        // from the head, the rest from the tail."
        let first_row = starts.get(1).map_or(n, |&start| start);
        let share = first_row.min(head + tail);
        let from_head = share * head / (head + tail);
        let (head, tail) = (head - from_head, tail - (share - from_head));
        let expected_h = starts.iter().rev().find(|&&b| b > 0 && b <= head).copied();
        let expected_t = starts.iter().find(|&&b| b >= n - tail && b < n).copied();
        let (Some(h), Some(t)) = (expected_h, expected_t) else {
            // The text rules decide; nothing more is promised.
            return Ok(());
        };
        let header_row = &input[..starts.get(1).map_or(input.len(), |&s| s as usize)];
        let marker = format!("[... {} bytes truncated ...]\n", t - h);
        let mut expected = input[..h as usize].to_vec();
        expected.extend_from_slice(marker.as_bytes());
        if h as usize >= header_row.len() {
            expected.extend_from_slice(header_row);
        }
        expected.extend_from_slice(&input[t as usize..]);
        prop_assert_eq!(String::from_utf8_lossy(rest), String::from_utf8_lossy(&expected));
    }
}

/// Found by the formats fuzz target: a string that holds `[... ` itself
/// is shortened with a marker after it, and the check must read the real
/// marker, not the text's.
#[test]
fn json_strings_that_hold_marker_text_are_checked_by_their_real_marker() {
    let text = format!(
        "[... 2 {}[... 9 bytes truncated ...]{}",
        "x".repeat(300),
        "y".repeat(300)
    );
    let input = serde_json::to_vec(&serde_json::json!({ "log": text })).unwrap();
    for budget in [60, 120, 400] {
        check_json(&input, budget).unwrap();
    }
}

/// Found in review: for a shortened document the line placeholders are 0
/// and the characters left out are the input's less the JSON part's.
#[test]
fn json_header_template_placeholders_describe_the_shortened_document() {
    let users = format!(
        "[{}]\n",
        (0..300)
            .map(|i| format!("{{\"id\":{i},\"name\":\"ü{i}\"}}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let output = toolcap()
        .args(["--format", "json", "--max", "400", "--header"])
        .arg("H {omitted_lines} {first_omitted_line} {omitted_chars} {omitted_bytes}")
        .write_stdin(users.clone())
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    // The header line, the blank line after it, the JSON part.
    let (header, part) = text.split_once("\n\n").unwrap();
    let chars = users.chars().count() - part.chars().count();
    let bytes = users.len() - part.len();
    assert_eq!(header, format!("H 0 0 {chars} {bytes}"));
}

/// Issue 21: "`--format json --clean --max 300` on a CRLF JSON document
/// cleans it until it fits and prints invalid JSON (a fold marker inside
/// it), with no header". Line transforms do not run inside a document:
/// it is shortened from the raw bytes, valid, with its header; and one
/// within the budget is printed whole, CRLF and all.
#[test]
fn json_is_valid_whatever_the_cleaning() {
    let doc: String = "[\r\n".to_string()
        + &(0..300)
            .map(|i| format!("  {i}"))
            .collect::<Vec<_>>()
            .join(",\r\n")
        + "\r\n]\r\n";
    let out = toolcap()
        .args(["--format", "json", "--clean", "--max", "300"])
        .write_stdin(doc.clone())
        .output()
        .expect("run toolcap");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let (header, document) = text.split_once("\n\n").expect("a header");
    assert_eq!(
        header,
        format!(
            "Warning: truncated output (original token count: {})\nTotal output lines: 302",
            doc.len().div_ceil(4)
        )
    );
    serde_json::from_str::<serde_json::Value>(document).expect("valid JSON");
    assert!(!document.contains("folded"), "{document}");
    assert!(document.len() <= 300, "{}", document.len());
    let whole = toolcap()
        .args(["--format", "json", "--clean", "--max", "3000"])
        .write_stdin(doc.clone())
        .output()
        .expect("run toolcap");
    assert_eq!(String::from_utf8(whole.stdout).expect("UTF-8"), doc);
}

/// `render(report, options)` took its style from options of its own:
/// with a `{omitted_chars}` marker that the capper's options lacked, it
/// printed `[0 chars cut]` (issue 22). The report carries its style.
#[test]
fn a_report_renders_in_the_style_it_was_capped_with() {
    let input: String = (0..100).map(|i| format!("ligne {i} é\n")).collect();
    let options = Options::new()
        .max(60)
        .marker_template("[{omitted_chars} chars cut]");
    let mut capper = toolcap::Capper::new(&options).unwrap();
    capper.push(input.as_bytes());
    let report = capper.finish();
    let cut = report.cut.unwrap();
    let omitted = &input.as_bytes()[cut.head_end as usize..cut.tail_start as usize];
    let chars = String::from_utf8(omitted.to_vec()).unwrap().chars().count();
    assert!(chars > 0);
    let mut out = Vec::new();
    toolcap::render(&report, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains(&format!("\n[{chars} chars cut]\n")), "{out}");
}
