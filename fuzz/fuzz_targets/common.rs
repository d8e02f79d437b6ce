//! What the fuzz targets share: the README model's options as the
//! library's, and a stream pushed through a `Capper` in random pieces.

use toolcap::{Capper, CutMode, Options, SizeOrPercent, StreamReport};

use crate::model::Spec;

/// The library options that mean the model's `spec` (no spill file: the
/// library names none).
pub fn options(spec: &Spec) -> Options {
    let mut options = Options::new()
        .head(SizeOrPercent::Bytes(spec.head))
        .tail(SizeOrPercent::Bytes(spec.tail))
        .cut(if spec.cut_lines {
            CutMode::Lines
        } else {
            CutMode::Bytes
        })
        .header(spec.header);
    if let Some(lines) = spec.lines {
        options = options.lines(lines);
    }
    options
}

/// `input` pushed in pieces of the sizes in `chunks` (taken in turn, 0 as
/// 1), as reads of a pipe would deliver it.
pub fn stream(options: &Options, input: &[u8], chunks: &[u8]) -> StreamReport {
    let mut capper = Capper::new(options).expect("valid options");
    let mut rest = input;
    let sizes = if chunks.is_empty() {
        &[255][..]
    } else {
        chunks
    };
    for &size in sizes.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (piece, after) = rest.split_at(usize::from(size).clamp(1, rest.len()));
        capper.push(piece);
        rest = after;
    }
    capper.finish()
}

/// What toolcap prints for `report`.
pub fn rendered(report: &StreamReport, options: &Options) -> Vec<u8> {
    let mut out = Vec::new();
    toolcap::render(report, options, &mut out).expect("write to a Vec");
    out
}

/// Asserts equal, showing the invisible bytes when they differ.
pub fn assert_same(actual: &[u8], expected: &[u8], what: &str) {
    assert!(
        actual == expected,
        "{what}\n  toolcap: {}\n    model: {}",
        actual.escape_ascii(),
        expected.escape_ascii()
    );
}
