//! The program itself on a hand-worked case: the real binary and the
//! library must print, byte for byte, the text that a model's unit test
//! worked out by hand, so that no such case checks only the model. Uses
//! the drivers of the property tests (`clean_properties.rs`).

use std::os::unix::ffi::OsStrExt;

use crate::clean_model::CleanSpec;
use crate::clean_properties::{arguments, streamed_output};
use crate::common::{TempDir, toolcap};
use crate::model::marker_path;

/// The binary and the library (the input whole and byte by byte) print
/// `expected` for `input` under `spec`. A spill path in the spec is the
/// the marker names: the binary spills to a file of its own (which must
/// hold the input), and its marker's path reads as the spec's.
pub fn prints(input: &[u8], spec: &CleanSpec, expected: &[u8]) {
    let expected = expected.escape_ascii().to_string();
    for chunks in [&[input.len().max(1)][..], &[1]] {
        assert_eq!(
            streamed_output(input, spec, chunks)
                .escape_ascii()
                .to_string(),
            expected,
            "the library, in pieces of {chunks:?}"
        );
    }
    let dir = TempDir::new("hand-worked");
    let spill = spec.core.spill.as_ref().map(|_| dir.join("spill.log"));
    let output = toolcap()
        .args(arguments(spec, spill.as_deref()))
        .write_stdin(input.to_vec())
        .output()
        .expect("run toolcap");
    assert!(output.status.success(), "{output:?}");
    let mut stdout = output.stdout;
    if let (Some(file), Some(named)) = (&spill, &spec.core.spill) {
        let named = marker_path(named);
        stdout = replaced(&stdout, file.as_os_str().as_bytes(), named.as_bytes());
        assert_eq!(std::fs::read(file).expect("the spill file"), input);
    }
    assert_eq!(stdout.escape_ascii().to_string(), expected, "the binary");
}

/// `bytes` with each `from` replaced by `to`.
fn replaced(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = rest.windows(from.len()).position(|window| window == from) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
}
