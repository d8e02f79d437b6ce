//! What the fuzz targets share: a stream pushed through a `Capper` in
//! random pieces, rendered.

use toolcap::{Capper, Options, StreamReport};

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

/// What toolcap prints for `report`, in the style it was capped with.
pub fn rendered(report: &StreamReport) -> Vec<u8> {
    let mut out = Vec::new();
    toolcap::render(report, &mut out).expect("write to a Vec");
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
