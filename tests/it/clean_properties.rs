//! Property tests of cleaning and `--keep`: the library (`Capper`, then
//! `render`) and the real binary against the model in `clean_model.rs`,
//! over inputs built from the pieces that make the rules matter (escape
//! sequences of every kind, broken ones, `\r`, `\r\n`, backspace, repeated
//! lines, invalid UTF-8, multi-byte characters, NUL, long lines), random
//! options and random read chunkings. Each disagreement found is pinned
//! below as a deterministic regression test with its literal input.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use proptest::prelude::*;
use toolcap::{Capper, Options, SpillReport, StreamReport};

use crate::ceiling::content;
use crate::clean_model::tests::{README_BUILD_LOG, README_BUILD_LOG_CLEANED, readme_keep_input};
use crate::clean_model::{CleanSpec, cleaned, expected_output, strip_ansi_bytes, text};
use crate::common::{TempDir, toolcap};
use crate::model::{Spec, escape_sequences};
use crate::spec_options::clean_options;

/// `input` pushed in pieces of the sizes in `chunks`, taken in turn.
fn streamed_report(input: &[u8], options: &Options, chunks: &[usize]) -> StreamReport {
    let mut capper = Capper::new(options).expect("valid options");
    let mut rest = input;
    for &size in chunks.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (piece, after) = rest.split_at(size.clamp(1, rest.len()));
        capper.push(piece);
        rest = after;
    }
    capper.finish()
}

/// What the library prints for `input` under `options`, naming `spill`.
fn render(report: StreamReport, spill: Option<&[u8]>) -> Vec<u8> {
    let mut report = report;
    if let Some(path) = spill {
        report.spill = Some(SpillReport::Saved {
            path: PathBuf::from(OsStr::from_bytes(path)),
            id: None,
        });
    }
    let mut out = Vec::new();
    toolcap::render(&report, &mut out).expect("write to a Vec");
    out
}

/// What the library prints for `input` under `spec`, pushed in pieces of
/// the sizes in `chunks`, its marker naming the spec's spill path.
pub fn streamed_output(input: &[u8], spec: &CleanSpec, chunks: &[usize]) -> Vec<u8> {
    let options = clean_options(spec);
    render(
        streamed_report(input, &options, chunks),
        spec.core.spill.as_deref(),
    )
}

/// Compares escaped, so that a failure shows the invisible bytes.
fn escaped(bytes: &[u8]) -> String {
    bytes.escape_ascii().to_string()
}

/// Generated input, shown escaped when proptest reports a minimal case.
#[derive(Clone)]
pub(crate) struct Bytes(Vec<u8>);

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

/// The pieces inputs are made of, each with its weight: text (short,
/// long, multi-byte, invalid), line ends, carriage returns, backspace and
/// other controls, escape sequences of every kind, broken and unfinished
/// ones, repeated lines, and lines `--keep` and `--keep-errors` look for.
/// The simplest come first: proptest shrinks a choice towards the start.
const PIECES: &[(usize, &[u8])] = &[
    (6, b"a"),
    (6, b"\n"),
    (2, b"word "),
    (1, b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    (1, "é".as_bytes()),
    (1, "€".as_bytes()),
    (1, "😀".as_bytes()),
    (1, b"\x80"),
    (1, b"\xFF"),
    (1, b"\xC3"),
    (1, b"\xE2\x82"),
    (2, b"\r\n"),
    (3, b"\r"),
    (2, b"\x08"),
    (1, b"\t"),
    (1, b"\x07"),
    (1, b"\x18"),
    (1, b"\x1a"),
    (1, b"\0"),
    (2, b"\x1b[31m"),
    (2, b"\x1b[0m"),
    (1, b"\x1b[1;32m"),
    (1, b"\x1b[m"),
    (1, b"\x1b[38;5;1m"),
    (1, b"\x1b[2K"),
    (1, b"\x1b[?25l"),
    (1, b"\x1b[1 q"),
    (1, b"\x1b]0;title\x07"),
    (1, b"\x1b]8;;http://x\x1b\\"),
    (1, b"\x1bP1$q\x07\x1b\\"),
    (1, b"\x1b_apc\x1b\\"),
    (1, b"\x1b(B"),
    (1, b"\x1b7"),
    (1, b"\x1b"),
    (1, b"\x1b["),
    (1, b"\x1b[3"),
    (1, b"\x1b]"),
    (1, b"\x1b]0;"),
    (1, b"\x1bP"),
    (1, b"same\nsame\n"),
    (1, b"same\nsame\nsame\n"),
    (1, b"same\nsame\nsame\nsame\n"),
    (1, b"error: boom\n"),
    (1, b"test t ... FAILED\n"),
    (1, b"E   assert\n"),
    (1, b"ok\n"),
    (1, b"TypeError\n"),
    (1, b"thread panicked\n"),
    (1, b"x Failed 2 ErRoRs\n"),
    // Lines that fold: numbers, ids and spacing apart.
    (2, b"n 1\n"),
    (2, b"n 22\n"),
    (1, b"n 3.5\n"),
    (1, b"n\t 7\n"),
    (1, b"id deadbeef01\n"),
    (1, b"id cafe\n"),
    (1, b"9"),
];

/// Bytes that make the cleaning rules matter: up to 100 pieces. (A
/// `prop_oneof!` of the pieces took 19 s per 1,000 inputs in a debug
/// build; a weighted table through `select` takes a fraction of that.)
pub(crate) fn input() -> impl Strategy<Value = Bytes> {
    let table: Vec<&'static [u8]> = PIECES
        .iter()
        .flat_map(|&(weight, piece)| std::iter::repeat_n(piece, weight))
        .collect();
    prop::collection::vec(prop::sample::select(table), 0..100)
        .prop_map(|pieces| Bytes(pieces.concat()))
}

/// Read sizes, used in turn: sequences and characters split anywhere.
fn chunks() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..24, 1..6)
}

/// `--keep` patterns: words, anchors, classes, and one on an ESC byte;
/// in any case (the matcher skips to lower-cased literals).
fn patterns() -> impl Strategy<Value = Vec<String>> {
    let pattern = prop_oneof![
        Just("FAILED".to_string()),
        Just("^ok$".to_string()),
        Just("x{5}".to_string()),
        Just("[é€]".to_string()),
        Just("\\x1b".to_string()),
        Just("a a".to_string()),
        Just("(?i)fail(ed)?\\b".to_string()),
        Just("[A-Z]rRoR|o[K]".to_string()),
    ];
    prop::collection::vec(pattern, 0..3)
}

/// `--fold-pattern`s: a class of lines, and one that holds everything.
fn fold_patterns() -> impl Strategy<Value = Vec<String>> {
    let pattern = prop_oneof![
        Just("^n".to_string()),
        Just("a".to_string()),
        Just("^".to_string())
    ];
    prop::collection::vec(pattern, 0..3)
}

pub(crate) fn clean_spec() -> impl Strategy<Value = CleanSpec> {
    (
        crate::properties::spec(),
        prop::array::uniform6(any::<bool>()),
        prop::option::of(0u64..40),
        patterns(),
        // `--keep-errors` compiles a large case-insensitive Unicode regex:
        // 16 ms per run in a debug build, so it is on in few cases.
        prop::bool::weighted(0.1),
        0u64..4,
        prop::option::of(0u64..80),
        fold_patterns(),
    )
        .prop_map(
            |(core, flags, max_line, keep, keep_errors, keep_context, keep_max, fold_patterns)| {
                let [binary_summary, strip_ansi, collapse_cr, utf8, squeeze, fold] = flags;
                // The binary summary and the fold and squeeze markers name
                // the spill file or its lines inside the cleaned stream, and
                // an output that any cleaning changed ends with a line naming
                // it when it is not cut, before the library's report can be
                // given a path: the library cannot express those, the binary
                // runs test them.
                // So do the kept lines' markers, whose length the keep
                // share pays for.
                let keeping = !keep.is_empty() || keep_errors;
                let cleaning = flags.iter().any(|&on| on) || max_line.is_some();
                let core = Spec {
                    spill: core.spill.filter(|_| !cleaning && !keeping),
                    ..core
                };
                // "--keep-max ... exceeds the budget" is a usage error.
                let keep_max = keep_max.map(|max| max.min(core.head.saturating_add(core.tail)));
                CleanSpec {
                    core,
                    binary_summary,
                    strip_ansi,
                    collapse_cr,
                    utf8,
                    squeeze,
                    max_line,
                    keep,
                    keep_errors,
                    keep_context,
                    keep_max,
                    fold,
                    // --fold-pattern without --fold is a usage error.
                    fold_patterns: if fold { fold_patterns } else { Vec::new() },
                }
            },
        )
}

/// A spec that keeps: a pattern or `--keep-errors`.
fn keeping_spec() -> impl Strategy<Value = CleanSpec> {
    clean_spec().prop_map(|mut spec| {
        if spec.keep.is_empty() && !spec.keep_errors {
            spec.keep = vec!["FAILED".into(), "a a".into()];
            spec.core.spill = None;
        }
        spec
    })
}

/// The byte counts of the marker lines in `output`: `[... N bytes
/// truncated`, after an optional `ESC[0m`.
fn marker_counts(output: &[u8]) -> Vec<u64> {
    output
        .split(|&byte| byte == b'\n')
        .filter_map(|line| {
            let line = line.strip_prefix(b"\x1b[0m").unwrap_or(line);
            let rest = line.strip_prefix(b"[... ")?;
            let digits = rest.iter().take_while(|byte| byte.is_ascii_digit()).count();
            if digits == 0 || !rest[digits..].starts_with(b" bytes truncated") {
                return None;
            }
            std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(1500),
        ..ProptestConfig::default()
    })]

    #[test]
    fn cleaned_and_kept_runs_match_the_model(
        b in input(),
        spec in clean_spec(),
        chunks in chunks(),
    ) {
        prop_assert_eq!(
            escaped(&streamed_output(&b, &spec, &chunks)),
            escaped(&expected_output(&b, &spec))
        );
    }

    #[test]
    fn keep_runs_match_the_model(b in input(), spec in keeping_spec(), chunks in chunks()) {
        prop_assert_eq!(
            escaped(&streamed_output(&b, &spec, &chunks)),
            escaped(&expected_output(&b, &spec))
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(1000),
        ..ProptestConfig::default()
    })]

    /// Issue 21: `--max` is the ceiling of the content, kept lines, their
    /// markers and the fold and squeeze markers included, whatever the
    /// options and the chunking.
    #[test]
    fn the_content_fits_the_budget(b in input(), spec in clean_spec(), chunks in chunks()) {
        let output = streamed_output(&b, &spec, &chunks);
        let budget = spec.core.head.saturating_add(spec.core.tail);
        let content = content(&output, spec.core.header, false);
        prop_assert!(content <= budget, "{content} > {budget}: {}", escaped(&output));
    }

    /// The same by the model (which the binary agrees with, above) with a
    /// spill file, whose path the markers name.
    #[test]
    fn the_content_fits_the_budget_with_a_spill_file(b in input(), spec in keeping_spec()) {
        let spec = CleanSpec {
            core: Spec { spill: Some(b"/tmp/x".to_vec()), ..spec.core },
            ..spec
        };
        let output = expected_output(&b, &spec);
        let budget = spec.core.head.saturating_add(spec.core.tail);
        let content = content(&output, spec.core.header, false);
        prop_assert!(content <= budget, "{content} > {budget}: {}", escaped(&output));
    }

    #[test]
    fn chunking_never_changes_the_output(
        b in input(),
        spec in clean_spec(),
        first in chunks(),
        second in chunks(),
    ) {
        prop_assert_eq!(
            escaped(&streamed_output(&b, &spec, &first)),
            escaped(&streamed_output(&b, &spec, &second))
        );
    }

    /// `--strip-ansi` with a budget the input fits: the output is the input
    /// with its escape sequences removed, and not one byte more.
    #[test]
    fn strip_ansi_drops_only_escape_sequences(b in input(), chunks in chunks()) {
        let spec = CleanSpec {
            strip_ansi: true,
            ..CleanSpec::new(Spec::from_max(1 << 20))
        };
        let output = streamed_output(&b, &spec, &chunks);
        let sequences = escape_sequences(&b);
        let dropped: usize = sequences.iter().map(|range| range.len()).sum();
        prop_assert!(sequences.iter().all(|range| b[range.start] == 0x1b));
        prop_assert_eq!(output.len() + dropped, b.len());
        prop_assert_eq!(escaped(&output), escaped(&strip_ansi_bytes(&b)));
    }

    /// `--utf8`, whatever else is on and wherever the cuts fall: the whole
    /// output is valid UTF-8.
    #[test]
    fn utf8_output_is_valid_utf8(b in input(), spec in clean_spec(), chunks in chunks()) {
        let spec = CleanSpec { utf8: true, ..spec };
        let output = streamed_output(&b, &spec, &chunks);
        prop_assert!(std::str::from_utf8(&output).is_ok(), "{}", escaped(&output));
    }

    /// With `--keep`, "every removed byte is accounted for": the head, the
    /// kept blocks, the markers' byte counts and the tail add up to the
    /// cleaned length.
    #[test]
    fn keep_accounts_for_every_byte(b in input(), spec in keeping_spec(), chunks in chunks()) {
        let options = clean_options(&spec);
        let report = streamed_report(&b, &options, &chunks);
        let cleaned_length = report.bytes;
        prop_assert_eq!(report.raw_bytes, b.len() as u64);
        prop_assert_eq!(cleaned_length, text(&cleaned(&b, &spec)).len() as u64);
        let shown = report.head.len()
            + report.kept.iter().map(|kept| kept.bytes.len()).sum::<usize>()
            + report.tail.len();
        let output = render(report, spec.core.spill.as_deref());
        let omitted: u64 = marker_counts(&output).iter().sum();
        prop_assert_eq!(shown as u64 + omitted, cleaned_length, "{}", escaped(&output));
    }

    /// `Options::clean` is "`--strip-ansi --collapse-cr --squeeze --fold
    /// --binary summary --utf8`".
    #[test]
    fn clean_means_its_six_transforms(
        b in input(),
        core in crate::properties::spec(),
        chunks in chunks(),
    ) {
        let core = Spec { spill: None, ..core }; // as in clean_spec()
        let options = crate::spec_options::options(&core).clean();
        let output = render(
            streamed_report(&b, &options, &chunks),
            core.spill.as_deref(),
        );
        let spec = CleanSpec::new(core).clean();
        prop_assert_eq!(escaped(&output), escaped(&expected_output(&b, &spec)));
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(500),
        ..ProptestConfig::default()
    })]

    /// Fold accounting: with a budget the input fits, the lines shown plus
    /// the counts in the fold markers are the lines of the stream cleaned
    /// the same way without `--fold`, and each shown line is the next of
    /// those after the lines its marker folded.
    #[test]
    fn fold_accounting_adds_up(b in input(), spec in clean_spec(), chunks in chunks()) {
        let spec = CleanSpec {
            core: Spec::from_max(1 << 20),
            fold: true,
            max_line: None,
            ..spec
        };
        let unfolded = cleaned(&b, &CleanSpec { fold: false, ..spec.clone() });
        let unfolded: Vec<&[u8]> = unfolded.iter().map(|line| line.text.as_slice()).collect();
        let output = streamed_output(&b, &spec, &chunks);
        let mut next = 0;
        for line in output.split_inclusive(|&byte| byte == b'\n') {
            match fold_count(line) {
                Some(folded) => next += folded,
                None => {
                    prop_assert_eq!(escaped(line), escaped(unfolded[next]));
                    next += 1;
                }
            }
        }
        prop_assert_eq!(next, unfolded.len(), "{}", escaped(&output));
    }
}

/// The count of a fold marker line, `[... K similar lines folded ...]`.
fn fold_count(line: &[u8]) -> Option<usize> {
    let rest = line.strip_prefix(b"[... ")?;
    let digits = rest.iter().take_while(|byte| byte.is_ascii_digit()).count();
    let after = &rest[digits..];
    if digits == 0
        || !(after.starts_with(b" similar lines folded")
            || after.starts_with(b" similar line folded"))
    {
        return None;
    }
    std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
}

#[test]
fn fold_split_anywhere_matches_the_model() {
    // Runs of classes and masks, a protected line, an unterminated end.
    let input = b"n 1\nn 22\nn\t3.5\nid deadbeef01\nid 0123456789\nid 7\nFAILED 1\nn 4\nn 5\nn 6";
    for fold_patterns in [vec![], vec!["^n".to_string()], vec!["^".to_string()]] {
        let spec = CleanSpec {
            fold: true,
            keep: vec!["FAILED".into()],
            fold_patterns,
            ..CleanSpec::new(Spec::from_max(10_000))
        };
        every_split_matches_the_model(input, &spec);
    }
}

/// The command-line arguments that mean `spec`, spilling to `spill`.
pub fn arguments(spec: &CleanSpec, spill: Option<&std::path::Path>) -> Vec<String> {
    let core = &spec.core;
    let mut args = vec![
        format!("--head={}", core.head),
        format!("--tail={}", core.tail),
        format!("--cut={}", if core.cut_lines { "lines" } else { "bytes" }),
    ];
    if let Some(spill) = spill {
        args.push(format!("--spill={}", spill.display()));
    }
    if let Some(lines) = core.lines {
        args.push(format!("--lines={lines}"));
    }
    if !core.header {
        args.push("--no-header".into());
    }
    let all_of_clean = spec.strip_ansi
        && spec.collapse_cr
        && spec.utf8
        && spec.squeeze
        && spec.fold
        && spec.binary_summary;
    if all_of_clean {
        args.push("--clean".into());
    } else {
        for (on, flag) in [
            (spec.strip_ansi, "--strip-ansi"),
            (spec.collapse_cr, "--collapse-cr"),
            (spec.utf8, "--utf8"),
            (spec.squeeze, "--squeeze"),
            (spec.fold, "--fold"),
        ] {
            if on {
                args.push(flag.into());
            }
        }
        // Explicit, so that --clean's summary could not sneak in.
        let binary = if spec.binary_summary {
            "summary"
        } else {
            "text"
        };
        args.push(format!("--binary={binary}"));
    }
    if spec.keep_errors {
        args.push("--keep-errors".into());
    }
    if let Some(size) = spec.max_line {
        args.push(format!("--max-line={size}"));
    }
    // --keep-context and --keep-max without --keep or --keep-errors are
    // usage errors.
    if spec.keeping() {
        args.push(format!("--keep-context={}", spec.keep_context));
        if let Some(size) = spec.keep_max {
            args.push(format!("--keep-max={size}"));
        }
    }
    for pattern in &spec.keep {
        args.push(format!("--keep={pattern}"));
    }
    for pattern in &spec.fold_patterns {
        args.push(format!("--fold-pattern={pattern}"));
    }
    args
}

proptest! {
    // Each case starts a process: fewer cases, the same model.
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(48),
        ..ProptestConfig::default()
    })]

    /// The command line means what the model means, end to end, and the
    /// spill file holds the raw input byte for byte, whatever cleaning did.
    #[test]
    fn the_binary_cleans_and_keeps_like_the_model(b in input(), spec in clean_spec()) {
        let dir = TempDir::new("clean-property");
        let spill = dir.join("full output.log");
        let output = toolcap()
            .args(arguments(&spec, Some(&spill)))
            .write_stdin(b.0.clone())
            .output()
            .expect("run toolcap");
        prop_assert!(output.status.success(), "{:?}", output);
        let spec = CleanSpec {
            core: Spec {
                spill: Some(spill.as_os_str().as_bytes().to_vec()),
                ..spec.core.clone()
            },
            ..spec
        };
        let saved = std::fs::read(&spill).expect("read the spill file");
        prop_assert_eq!(escaped(&saved), escaped(&b.0));
        prop_assert_eq!(escaped(&output.stdout), escaped(&expected_output(&b, &spec)));
    }
}

/// Every chunking of `input` into two pieces, and into pieces of every
/// size, gives the model's output: a sequence or character split anywhere.
fn every_split_matches_the_model(input: &[u8], spec: &CleanSpec) {
    let expected = escaped(&expected_output(input, spec));
    for size in 1..=input.len() {
        assert_eq!(
            escaped(&streamed_output(input, spec, &[size])),
            expected,
            "pieces of {size}"
        );
    }
    for at in 1..input.len() {
        assert_eq!(
            escaped(&streamed_output(input, spec, &[at, input.len()])),
            expected,
            "split at {at}"
        );
    }
}

#[test]
fn escape_sequences_split_anywhere_are_still_stripped() {
    let spec = CleanSpec {
        strip_ansi: true,
        ..CleanSpec::new(Spec::from_max(10_000))
    };
    every_split_matches_the_model(
        b"\x1b[1;31merror\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1bP1$q\x07\x1b\\done\n",
        &spec,
    );
    every_split_matches_the_model(b"a\x1b[3\nb\x1b]0;t\x1ac\x1b", &spec);
}

#[test]
fn carriage_returns_and_backspaces_split_anywhere_collapse_the_same() {
    let spec = CleanSpec {
        collapse_cr: true,
        ..CleanSpec::new(Spec::from_max(10_000))
    };
    every_split_matches_the_model("10%\r20%\r\nab\x08c\ré\x08x\r\n50%\r".as_bytes(), &spec);
}

#[test]
fn a_cut_inside_a_sequence_split_anywhere_moves_the_same() {
    // The cut model's escape step, through the library: h = 8 is inside
    // the CSI at 7..14 and moves back to 7; the head ESC "[31mab" leaves
    // red on, so the marker starts with ESC[0m.
    every_split_matches_the_model(
        b"\x1b[31mab\x1b[1;32mcdefgh",
        &CleanSpec::new(Spec::new(8, 2)),
    );
}

#[test]
fn the_readme_keep_example_through_the_library() {
    let input = readme_keep_input();
    let spec = CleanSpec {
        keep: vec!["FAILED".into()],
        ..CleanSpec::new(Spec::from_max(300))
    };
    let expected = escaped(&expected_output(&input, &spec));
    for chunks in [&[4096][..], &[1], &[7, 64]] {
        assert_eq!(escaped(&streamed_output(&input, &spec, chunks)), expected);
    }
}

#[test]
fn the_readme_examples_through_the_binary() {
    // "Before and after `toolcap --clean --max 200` on a build log".
    let output = toolcap()
        .args(["--clean", "--max", "200"])
        .write_stdin(README_BUILD_LOG)
        .output()
        .expect("run toolcap");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(escaped(&output.stdout), escaped(README_BUILD_LOG_CLEANED));
    // "`cargo test 2>&1 | toolcap --max 300 --keep FAILED`".
    let input = readme_keep_input();
    let spec = CleanSpec {
        keep: vec!["FAILED".into()],
        ..CleanSpec::new(Spec::from_max(300))
    };
    let output = toolcap()
        .args(["--max", "300", "--keep", "FAILED"])
        .write_stdin(input.clone())
        .output()
        .expect("run toolcap");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        escaped(&output.stdout),
        escaped(&expected_output(&input, &spec))
    );
}

/// Regression tests: each is a disagreement between the library and the
/// GUIDE.md, found by the properties above and shrunk by hand.
mod regressions {
    use super::{CleanSpec, Spec, escaped, expected_output, streamed_output};

    /// The library prints what the model says (for the cases whose exact
    /// bytes the byte-exact tests elsewhere pin).
    fn agrees(input: &[u8], spec: &CleanSpec) {
        assert_eq!(
            escaped(&streamed_output(input, spec, &[input.len().max(1)])),
            escaped(&expected_output(input, spec)),
        );
        assert_eq!(
            escaped(&streamed_output(input, spec, &[1])),
            escaped(&expected_output(input, spec)),
        );
    }

    fn check(input: &[u8], spec: &CleanSpec, expected: &[u8]) {
        // The model agrees with the literal expectation, so a failure below
        // is the implementation's.
        assert_eq!(
            escaped(&expected_output(input, spec)),
            escaped(expected),
            "model"
        );
        assert_eq!(
            escaped(&streamed_output(input, spec, &[input.len().max(1)])),
            escaped(expected),
            "library"
        );
    }

    /// GUIDE.md ambiguity (model, ambiguities 30): `--max-line` runs after
    /// `--squeeze`, but the squeeze marker is toolcap's own line, so a
    /// small SIZE should not cut it in half.
    #[test]
    fn max_line_does_not_cut_a_squeeze_marker() {
        let spec = CleanSpec {
            squeeze: true,
            max_line: Some(10),
            ..CleanSpec::new(Spec::from_max(56))
        };
        // Six lines of 10 bytes, 60 in all, over the budget of 56: five
        // repeats (50 bytes) become the 46-byte marker.
        check(
            &b"same line\n".repeat(6),
            &spec,
            b"same line\n[... previous line repeated 5 more times ...]\n",
        );
    }

    /// GUIDE.md ambiguity (model, ambiguities 30): the binary summary is
    /// toolcap's own line; `--max-line` should not cut it.
    #[test]
    fn max_line_does_not_cut_the_binary_summary() {
        let spec = CleanSpec {
            binary_summary: true,
            max_line: Some(10),
            ..CleanSpec::new(Spec::from_max(10_000))
        };
        check(b"ab\0cd\n", &spec, b"[binary output: 6 bytes]\n");
    }

    /// Implementation bug, found by the capper fuzz target: "on" means the
    /// last SGR has a parameter other than 0, and `ESC[:m` has one (`:`),
    /// so the marker after it starts with a reset.
    #[test]
    fn a_sub_parameter_leaves_the_style_on() {
        check(
            b"\x1b[:mred\nmiddle\n",
            &CleanSpec::new(Spec::new(8, 0)),
            b"Warning: truncated output (original token count: 4)\n\
              Total output lines: 2\n\n\
              \x1b[:mred\n\
              \x1b[0m[... 7 bytes truncated ...]\n",
        );
    }

    /// Implementation bug, found by the capper fuzz target: in a CSI,
    /// intermediate bytes follow the parameter bytes, so a `;` after a `+`
    /// cannot continue the sequence and ends it; a tail cut inside it moves
    /// only to that `;`, not to the end of the input.
    #[test]
    fn a_parameter_byte_after_an_intermediate_ends_a_csi() {
        check(
            b"abc\x1b[;;;;+;;;",
            &CleanSpec::new(Spec::new(0, 6)),
            b"Warning: truncated output (original token count: 4)\n\
              Total output lines: 1\n\n\
              [... 10 bytes truncated ...]\n\
              ;;;",
        );
    }

    /// Implementation bug: "if t falls inside one [sequence], t moves
    /// forward to just after its last byte". A lone ESC before another ESC
    /// is a sequence of one byte ("a byte that cannot continue a sequence
    /// ends it and is itself text"), so t = 9, between it and `ESC[m`, is
    /// inside neither; the library moves t to 12 and drops the tail's
    /// `ESC[m`.
    #[test]
    fn a_tail_cut_between_a_lone_esc_and_a_csi_stays() {
        check(
            b"abcdefgh\x1b\x1b[mXY",
            &CleanSpec::new(Spec::new(2, 5)),
            b"Warning: truncated output (original token count: 4)\n\
              Total output lines: 1\n\n\
              ab\n\
              [... 7 bytes truncated ...]\n\
              \x1b[mXY",
        );
    }

    /// Implementation bug: "if h falls inside an escape sequence ..., h
    /// moves back to the ESC that starts it". `ESC [ 3` followed by `\r` is
    /// a sequence ended by a byte that cannot continue it: its last byte is
    /// the `3`, so h = 5, just after it, is not inside and stays. The
    /// library moves h back to 2 whenever the head ends in such a broken
    /// sequence (a CSI, an OSC or `ESC (` ended by `\r`, `\n`, CAN or ESC,
    /// or a lone ESC before another ESC).
    #[test]
    fn a_head_cut_just_after_a_broken_sequence_stays() {
        check(
            b"ab\x1b[3\rcdefgh",
            &CleanSpec::new(Spec::new(5, 2)),
            b"Warning: truncated output (original token count: 3)\n\
              Total output lines: 1\n\n\
              ab\x1b[3\n\
              [... 5 bytes truncated ...]\n\
              gh",
        );
        check(
            b"ab\x1b\x1b[mcdefgh",
            &CleanSpec::new(Spec::new(3, 2)),
            b"Warning: truncated output (original token count: 3)\n\
              Total output lines: 1\n\n\
              ab\x1b\n\
              [... 7 bytes truncated ...]\n\
              gh",
        );
    }

    /// Implementation bug: an OSC `ESC ]` followed by `ESC[m`. The model
    /// ends the OSC before the second ESC (model, ambiguities 19), so t = 10
    /// is at a sequence boundary and stays. No reading of the guide gives
    /// the library's t = 13: with the ESC inside the OSC, `[` would end it
    /// and t would be 11; with the ESC as string content, the OSC would run
    /// to the end (15).
    #[test]
    fn a_tail_cut_between_an_osc_and_a_csi_stays() {
        check(
            b"abcdefgh\x1b]\x1b[mXY",
            &CleanSpec::new(Spec::new(2, 5)),
            b"Warning: truncated output (original token count: 4)\n\
              Total output lines: 1\n\n\
              ab\n\
              [... 8 bytes truncated ...]\n\
              \x1b[mXY",
        );
    }

    /// GUIDE.md ambiguity (model, ambiguities 23): `ESC[31 m` has an
    /// intermediate byte, so it is not SGR (ECMA-48: SGR is `CSI Ps... m`);
    /// it turns nothing on and the marker needs no `ESC[0m`. The library
    /// counts it as SGR.
    #[test]
    fn a_csi_with_an_intermediate_byte_is_not_sgr() {
        check(
            b"\x1b[31 mabc\nzzzzzzzz\n",
            &CleanSpec::new(Spec::new(10, 2)),
            b"Warning: truncated output (original token count: 5)\n\
              Total output lines: 2\n\n\
              \x1b[31 mabc\n\
              [... 7 bytes truncated ...]\n\
              z\n",
        );
    }

    /// Implementation bug: "`--keep-context N`: keep N lines before and
    /// after each kept match". "err bbbbbbbbbbbbbbbb" is the first unit in
    /// priority order (nearest the tail) and does not fit `--keep-max 50`
    /// with the marker before it, so neither it nor its context is shown,
    /// and it stops the keeping: "err a" is counted too.
    #[test]
    fn no_context_for_a_match_that_is_not_shown() {
        let spec = CleanSpec {
            keep: vec!["err".into()],
            keep_max: Some(50),
            keep_context: 1,
            ..CleanSpec::new(Spec::new(25, 25))
        };
        agrees(
            b"head\nerr a\nerr bbbbbbbbbbbbbbbb\nc\nd\n\
              zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\ntail\n",
            &spec,
        );
    }

    /// Implementation bug: "the whole lines of the cut middle B[h:t] that
    /// match ... are kept". With T = 0 the middle runs to the end, and the
    /// last line "FAIL", without a `\n`, is a whole line of it (it does not
    /// straddle t = n); the library never kept it.
    #[test]
    fn an_unterminated_last_line_in_the_middle_is_kept() {
        let spec = CleanSpec {
            keep: vec!["FAIL".into()],
            keep_max: Some(100),
            ..CleanSpec::new(Spec::new(105, 0))
        };
        check(
            &[&b"head\n"[..], &b"x".repeat(200), b"\nFAIL"].concat(),
            &spec,
            b"Warning: truncated output (original token count: 53)\n\
              Total output lines: 3\n\n\
              head\n\
              [... 201 bytes truncated ...]\n\
              FAIL",
        );
    }

    /// Implementation bug: "When the text before a marker line (the head,
    /// or kept lines) leaves colours or styles on, the marker line starts
    /// with `ESC[0m`, so it is never painted in the text's colour". The
    /// kept "error: boom" follows the head with no marker between them, so
    /// the red the head turned on is still on at the marker (model,
    /// ambiguities 24); the library looked at the kept line alone and
    /// painted the marker red.
    #[test]
    fn esc_0m_after_a_block_that_follows_a_coloured_head() {
        let spec = CleanSpec {
            keep_errors: true,
            keep_max: Some(100),
            ..CleanSpec::new(Spec::new(60, 60))
        };
        agrees(
            &[
                &b"\x1b[31mred\nerror: boom\n"[..],
                &b"x".repeat(300),
                b"\ntail\n",
            ]
            .concat(),
            &spec,
        );
        // Something is kept, with a marker after it.
        assert!(
            streamed_output(
                &[
                    &b"\x1b[31mred\nerror: boom\n"[..],
                    &b"x".repeat(300),
                    b"\ntail\n"
                ]
                .concat(),
                &spec,
                &[1]
            )
            .ends_with(b"tail\n")
        );
    }

    /// Implementation bug: `--collapse-cr`: "a backspace removes the
    /// character before it (a UTF-8 character, or one invalid byte)". After
    /// "a€" a stray 0x80 is one invalid byte, and so is the 82 of a
    /// truncated € (E2 82); the library removes them together with the
    /// bytes before them ("a" is all that is left).
    #[test]
    fn backspace_removes_one_invalid_byte() {
        let spec = CleanSpec {
            collapse_cr: true,
            ..CleanSpec::new(Spec::from_max(10_000))
        };
        check(b"a\xe2\x82\xac\x80\x08\n", &spec, "a€\n".as_bytes());
        check(b"a\xe2\x82\x08\n", &spec, b"a\xe2\n");
    }

    /// Implementation bug: `--keep-context N` "keep[s] N lines before and
    /// after each kept match ..., as far as they fit"; what fits does not
    /// depend on what follows. Once about 256 bytes of the middle followed
    /// the match, the library dropped context lines.
    #[test]
    fn context_lines_do_not_depend_on_what_follows() {
        let spec = |context| CleanSpec {
            keep_errors: true,
            keep_context: context,
            keep_max: Some(100),
            ..CleanSpec::new(Spec::new(55, 55))
        };
        let long_middle = |start: &[u8]| [start, &b"z".repeat(300), b"\ntail\n"].concat();
        let head = "h".repeat(54);
        agrees(
            &long_middle(format!("{head}\nerror\nafter\n").as_bytes()),
            &spec(1),
        );
        agrees(
            &long_middle(format!("{head}\nbefore\nerror\n").as_bytes()),
            &spec(1),
        );
        agrees(
            &long_middle(format!("{head}\ne\nf\nerror: boom\n").as_bytes()),
            &spec(2),
        );
    }

    /// GUIDE.md ambiguity (model, ambiguities 33): the raw input's last line
    /// is `ESC[0m` alone, without a `\n`; `--strip-ansi` leaves nothing of
    /// it. The gap that runs to the end omits it too, so `sed -n 'a,bp'`
    /// should print it: lines 2-3. The library names lines 2-2.
    #[test]
    fn a_vanished_last_line_is_named_by_the_last_gap() {
        let spec = CleanSpec {
            strip_ansi: true,
            ..CleanSpec::new(Spec {
                spill: Some(b"/s".to_vec()),
                ..Spec::new(3, 0)
            })
        };
        check(
            b"ab\ncd\n\x1b[0m",
            &spec,
            b"Warning: truncated output (original token count: 2)\n\
              Total output lines: 2\n\
              Cleaned: 10 raw bytes became 6 bytes\n\n\
              ab\n\
              [... 3 bytes truncated (lines 2-3); full output in /s ...]\n",
        );
    }

    /// Settled GUIDE.md ambiguity (model, ambiguities 27): "a backspace is
    /// not text: it only moves the cursor back", so the backspace after the
    /// `\r` draws nothing over "a", as a terminal would show it.
    #[test]
    fn a_frame_of_backspaces_draws_nothing_after_a_cr() {
        let spec = CleanSpec {
            collapse_cr: true,
            ..CleanSpec::new(Spec::from_max(10_000))
        };
        check(b"a\r\x08\n", &spec, b"a\n");
    }

    /// Implementation bug: what is shown must not depend on what follows.
    /// With a short middle the library showed "err c" after "err bbbbbbb"
    /// did not fit; with about 256 bytes more in the middle it hid it. A
    /// match longer than `--keep-max` has no unit and stops nothing.
    #[test]
    fn a_match_that_does_not_fit_hides_no_later_match() {
        let spec = CleanSpec {
            keep: vec!["err".into()],
            keep_max: Some(60),
            ..CleanSpec::new(Spec::new(35, 35))
        };
        let input = [
            &b"head\nerr a\nok\nerr "[..],
            &b"b".repeat(70),
            b"\nerr c\nok\n",
            &b"z".repeat(300),
            b"\ntail\n",
        ]
        .concat();
        agrees(&input, &spec);
    }

    /// GUIDE.md ambiguity (model, ambiguities 21): "a string also ends ...
    /// after 64 KiB" is counted here from the string's ESC, so `ESC ]` and
    /// 65,534 bytes of content are the sequence and the rest of the x's are
    /// text. The library counts 64 KiB of content after `ESC ]`, two bytes
    /// more.
    #[test]
    fn a_string_ends_64_kib_after_its_esc() {
        let spec = CleanSpec {
            strip_ansi: true,
            ..CleanSpec::new(Spec::from_max(1 << 20))
        };
        let input = [&b"\x1b]"[..], &b"x".repeat(70_000), b"\nend\n"].concat();
        let output = [&b"x".repeat(70_002 - 65_536)[..], b"\nend\n"].concat();
        check(&input, &spec, &output);
    }

    /// Implementation bug, found once the steering above was removed:
    /// context "as far as they fit" stops at the first line that does not
    /// fit (model, ambiguities 36): the library went on past a line that
    /// did not fit to the "same" after it.
    #[test]
    fn context_stops_at_the_first_line_that_does_not_fit() {
        let spec = CleanSpec {
            keep: vec!["[é€]".into()],
            keep_context: 2,
            keep_max: Some(40),
            ..CleanSpec::new(Spec {
                cut_lines: false,
                header: false,
                ..Spec::new(40, 40)
            })
        };
        let input = [
            &"h".repeat(39).into_bytes()[..],
            "\nsame\néerror: boom boom boom\nsame\n".as_bytes(),
            &b"z".repeat(100),
            b"\n",
            &b"t".repeat(40),
        ]
        .concat();
        agrees(&input, &spec);
    }

    /// Implementation bug: the raw input's last line, `ESC[31m` alone,
    /// vanished in cleaning, so the last cleaned line stands for it too
    /// (model, ambiguities 33): a gap that touches that line names it,
    /// not only a gap that runs to the end. The library named lines 1-3.
    #[test]
    fn a_vanished_last_line_is_named_by_a_gap_that_touches_the_line_before() {
        let spec = CleanSpec {
            strip_ansi: true,
            ..CleanSpec::new(Spec {
                cut_lines: false,
                header: false,
                spill: Some(b"/s".to_vec()),
                ..Spec::new(0, 1)
            })
        };
        check(
            b"same\nsame\nsame\n\x1b[31m",
            &spec,
            b"[... 14 bytes truncated (lines 1-4); full output in /s ...]\n\n",
        );
    }

    /// Implementation bug: h = H falls on the ESC that ends the string
    /// `ESC ] x` and starts `ESC [31m`, so h is not inside a sequence and
    /// stays. The library saw one byte past h only, could not tell that
    /// ESC from the `ESC \` that would end the string, and moved h back
    /// (when the rest of the stream was too long for the buffers to join).
    #[test]
    fn a_head_cut_on_the_esc_that_ends_a_string_stays() {
        let spec = CleanSpec::new(Spec {
            cut_lines: false,
            header: false,
            ..Spec::new(5, 0)
        });
        let mut input = b"ab\x1b]x\x1b[31m".to_vec();
        input.extend_from_slice(&[b'c'; 300]);
        check(&input, &spec, b"ab\x1b]x\n[... 305 bytes truncated ...]\n");
    }
}
