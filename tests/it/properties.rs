//! Property tests: the streaming capper, through the library and through
//! the real binary, against the model in `model.rs` (the spec's contract
//! applied to the whole input in memory), over random inputs, budgets and
//! read chunkings, as memchr tests its fast paths.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use proptest::prelude::*;
use toolcap::{Capper, SpillReport, StreamReport};

use crate::common::{TempDir, toolcap};
use crate::model::{Spec, expected_cuts, expected_output};
use crate::spec_options::options;

fn streamed_report(input: &[u8], spec: &Spec, chunk: usize) -> StreamReport {
    let mut capper = Capper::new(&options(spec)).expect("valid options");
    for piece in input.chunks(chunk) {
        capper.push(piece);
    }
    capper.finish()
}

fn streamed_output(input: &[u8], spec: &Spec, chunk: usize) -> Vec<u8> {
    let mut report = streamed_report(input, spec, chunk);
    if let Some(path) = &spec.spill {
        report.spill = Some(SpillReport::Saved {
            path: PathBuf::from(OsStr::from_bytes(path)),
            id: None,
        });
    }
    let mut out = Vec::new();
    toolcap::render(&report, &mut out).expect("write to a Vec");
    out
}

/// Bytes that make the rules matter: newlines, CR, ASCII, multi-byte
/// characters, and stray continuation and invalid bytes.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => Just(b"a".to_vec()),
        3 => Just(b"\n".to_vec()),
        1 => Just(b"\r\n".to_vec()),
        1 => Just("é".as_bytes().to_vec()),
        1 => Just("€".as_bytes().to_vec()),
        1 => Just("😀".as_bytes().to_vec()),
        1 => Just(vec![0x80]),
        1 => Just(vec![0xFF]),
        1 => Just(b"longer text".to_vec()),
    ];
    prop::collection::vec(piece, 0..120).prop_map(|pieces| pieces.concat())
}

/// Budgets, `--lines`, cut mode, header and a spill path: a whole spec of
/// the core (shared with the cleaning properties).
pub fn spec() -> impl Strategy<Value = Spec> {
    (
        0u64..80,
        0u64..80,
        prop::option::of(0u64..24),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(head, tail, lines, cut_lines, header, spill)| Spec {
            head,
            tail,
            lines,
            cut_lines,
            header,
            spill: spill.then(|| b"/spill/full output.log".to_vec()),
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(3000),
        ..ProptestConfig::default()
    })]

    #[test]
    fn streaming_matches_the_model(b in input(), spec in spec(), chunk in 1usize..70) {
        prop_assert_eq!(streamed_output(&b, &spec, chunk), expected_output(&b, &spec));
    }

    #[test]
    fn cuts_keep_a_prefix_and_a_suffix_and_add_up(
        b in input(),
        spec in spec(),
        chunk in 1usize..70,
    ) {
        let report = streamed_report(&b, &spec, chunk);
        prop_assert_eq!(report.bytes, b.len() as u64);
        match report.cut {
            None => prop_assert_eq!(&report.head, &b),
            Some(cut) => {
                prop_assert!(b.starts_with(&report.head));
                prop_assert!(b.ends_with(&report.tail));
                let kept = (report.head.len() + report.tail.len()) as u64;
                prop_assert_eq!(kept + cut.omitted_bytes(), b.len() as u64);
                prop_assert!(cut.omitted_bytes() > 0);
                prop_assert!(cut.first_omitted_line <= cut.last_omitted_line);
                let model = expected_cuts(&b, &spec).expect("the model cuts too");
                prop_assert_eq!(
                    (cut.first_omitted_line, cut.last_omitted_line),
                    (model.a, model.b)
                );
            }
        }
    }

    #[test]
    fn valid_utf8_stays_valid(s in "(a|é|€|😀|\n| ){0,100}", spec in spec()) {
        let report = streamed_report(s.as_bytes(), &spec, usize::MAX);
        prop_assert!(std::str::from_utf8(&report.head).is_ok());
        prop_assert!(std::str::from_utf8(&report.tail).is_ok());
    }
}

proptest! {
    // Each case starts a process: fewer cases, the same model.
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(64),
        ..ProptestConfig::default()
    })]

    /// The command line means what the model means: --head, --tail,
    /// --lines, --cut, --no-header and --spill, end to end, and the spill
    /// file holds the input byte for byte.
    #[test]
    fn the_binary_matches_the_model(b in input(), spec in spec()) {
        let dir = TempDir::new("property");
        let spill = dir.join("full output.log");
        let mut args = vec![
            format!("--head={}", spec.head),
            format!("--tail={}", spec.tail),
            format!("--cut={}", if spec.cut_lines { "lines" } else { "bytes" }),
        ];
        if let Some(lines) = spec.lines {
            args.push(format!("--lines={lines}"));
        }
        if !spec.header {
            args.push("--no-header".into());
        }
        let mut expected_spec = spec.clone();
        if spec.spill.is_some() {
            args.push(format!("--spill={}", spill.display()));
            expected_spec.spill = Some(spill.as_os_str().as_bytes().to_vec());
        }
        let output = toolcap().args(&args).write_stdin(b.clone()).output().expect("run toolcap");
        prop_assert!(output.status.success(), "{:?}", output);
        prop_assert_eq!(output.stdout, expected_output(&b, &expected_spec));
        if spec.spill.is_some() {
            prop_assert_eq!(std::fs::read(&spill).expect("spill file"), b);
        }
    }
}
