#![no_main]
//! Cleaning, `--fold` and `--keep` against the guide's contract (the model in
//! tests/it/clean_model.rs), plus the invariants that say why it matters:
//! the read chunking never changes the output, `--utf8` output is valid
//! UTF-8, and with `--keep` every removed byte is counted by a marker.

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../tests/it/clean_model.rs"]
mod clean_model;
#[path = "common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/it/model.rs"]
mod model;
#[allow(dead_code)]
#[path = "../../tests/it/spec_options.rs"]
mod spec_options;

use clean_model::CleanSpec;

/// `--keep` patterns of the kinds users write.
const PATTERNS: [&str; 6] = ["FAIL", "^E ", "error|warning", r"\d{3}", "a$", "(?i)panic"];
/// `--fold-pattern`s: a class of lines, and one that holds everything.
const FOLD_PATTERNS: [&str; 3] = ["^n", "a", "^"];

#[derive(Arbitrary, Debug)]
struct Case {
    input: Vec<u8>,
    chunks: Vec<u8>,
    head: u16,
    tail: u16,
    lines: Option<u8>,
    cut_lines: bool,
    header: bool,
    strip_ansi: bool,
    collapse_cr: bool,
    utf8: bool,
    squeeze: bool,
    binary_summary: bool,
    max_line: Option<u8>,
    keep: Vec<u8>,
    keep_errors: bool,
    keep_context: u8,
    keep_max: Option<u16>,
    fold: bool,
    fold_patterns: Vec<u8>,
}

/// The byte counts of the marker lines: `[... N bytes truncated`, after an
/// optional `ESC[0m`.
fn marker_counts(output: &[u8]) -> u64 {
    output
        .split(|&byte| byte == b'\n')
        .filter_map(|line| {
            let line = line.strip_prefix(b"\x1b[0m").unwrap_or(line);
            let rest = line.strip_prefix(b"[... ")?;
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 || !rest[digits..].starts_with(b" bytes truncated") {
                return None;
            }
            std::str::from_utf8(&rest[..digits])
                .ok()?
                .parse::<u64>()
                .ok()
        })
        .sum()
}

fuzz_target!(|case: Case| {
    let spec = CleanSpec {
        core: model::Spec {
            head: u64::from(case.head % 600),
            tail: u64::from(case.tail % 600),
            lines: case.lines.map(|lines| u64::from(lines % 40)),
            cut_lines: case.cut_lines,
            header: case.header,
            spill: None,
        },
        binary_summary: case.binary_summary,
        strip_ansi: case.strip_ansi,
        collapse_cr: case.collapse_cr,
        utf8: case.utf8,
        squeeze: case.squeeze,
        max_line: case.max_line.map(u64::from),
        keep: case
            .keep
            .iter()
            .take(3)
            .map(|&i| PATTERNS[usize::from(i) % PATTERNS.len()].to_string())
            .collect(),
        keep_errors: case.keep_errors,
        keep_context: u64::from(case.keep_context % 4),
        keep_max: case.keep_max.map(|size| u64::from(size % 400)),
        fold: case.fold,
        // --fold-pattern needs --fold.
        fold_patterns: case
            .fold_patterns
            .iter()
            .filter(|_| case.fold)
            .take(2)
            .map(|&i| FOLD_PATTERNS[usize::from(i) % FOLD_PATTERNS.len()].to_string())
            .collect(),
    };
    let options = spec_options::clean_options(&spec);
    let report = common::stream(&options, &case.input, &case.chunks);
    let output = common::rendered(&report);
    let whole = common::rendered(&common::stream(&options, &case.input, &[255]));
    common::assert_same(&output, &whole, "the chunking changed the output");
    if spec.utf8 {
        assert!(
            std::str::from_utf8(&output).is_ok(),
            "--utf8 output is not UTF-8"
        );
    }
    if report.truncated() {
        let shown = report.head.len()
            + report
                .kept
                .iter()
                .map(|kept| kept.bytes.len())
                .sum::<usize>()
            + report.tail.len();
        assert_eq!(
            shown as u64 + marker_counts(&output),
            report.bytes,
            "unaccounted bytes"
        );
    }
    common::assert_same(
        &output,
        &clean_model::expected_output(&case.input, &spec),
        "cleaning",
    );
});
