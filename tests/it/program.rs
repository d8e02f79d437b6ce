//! The program itself on a hand-worked case: the real binary and the
//! library must print, byte for byte, the text that a model's unit test
//! worked out by hand, so that no such case checks only the model. Uses
//! the drivers of the property tests (`clean_properties.rs`).

use std::os::unix::ffi::OsStrExt;

use crate::clean_model::{CleanSpec, expected_output};
use crate::clean_properties::{arguments, streamed_output};
use crate::common::{TempDir, toolcap};
use crate::model::Spec;

/// The binary and the library (the input whole and byte by byte) print
/// `expected` for `input` under `spec`, which the caller has checked
/// against the model.
///
/// A spill path in the spec is only a name: the library names it as
/// given, and the binary spills to a file of its own, which must hold the
/// input. Its output is then the model's for that file's path (the path's
/// length can move a cut), which the model's for the spec's path, and so
/// `expected`, differs from only in the path.
pub fn prints(input: &[u8], spec: &CleanSpec, expected: &[u8]) {
    // A library run names its spill file only in the report, after the
    // stream: the binary summary line, written as the stream starts, can
    // name it only in the binary.
    let library_names_it = !(spec.binary_summary && spec.core.spill.is_some());
    for chunks in [&[input.len().max(1)][..], &[1]]
        .into_iter()
        .filter(|_| library_names_it)
    {
        assert_eq!(
            streamed_output(input, spec, chunks)
                .escape_ascii()
                .to_string(),
            expected.escape_ascii().to_string(),
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
    let expected = match &spill {
        None => expected.to_vec(),
        Some(file) => {
            assert_eq!(std::fs::read(file).expect("the spill file"), input);
            let spec = CleanSpec {
                core: Spec {
                    spill: Some(file.as_os_str().as_bytes().to_vec()),
                    ..spec.core.clone()
                },
                ..spec.clone()
            };
            expected_output(input, &spec)
        }
    };
    assert_eq!(
        output.stdout.escape_ascii().to_string(),
        expected.escape_ascii().to_string(),
        "the binary"
    );
}
