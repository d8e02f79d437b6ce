//! The library `Options` that mean a spec model's spec: shared by the
//! property tests and the fuzz targets (which include this file by path),
//! so that both drive the library the same way.

use toolcap::{Binary, CutMode, Options, SizeOrPercent};

use crate::clean_model::CleanSpec;
use crate::model::Spec;

/// The library options that mean `spec` (no spill file: the library
/// names none).
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

/// The library options that mean a cleaning `spec`.
pub fn clean_options(spec: &CleanSpec) -> Options {
    let mut options = options(&spec.core)
        .strip_ansi(spec.strip_ansi)
        .collapse_cr(spec.collapse_cr)
        .utf8(spec.utf8)
        .squeeze(spec.squeeze)
        .binary(if spec.binary_summary {
            Binary::Summary
        } else {
            Binary::Text
        })
        .keep_errors(spec.keep_errors)
        .keep_context(spec.keep_context)
        .fold(spec.fold);
    if let Some(size) = spec.max_line {
        options = options.max_line(size);
    }
    if let Some(size) = spec.keep_max {
        options = options.keep_max(size);
    }
    for pattern in &spec.keep {
        options = options.keep(pattern.clone());
    }
    for pattern in &spec.fold_patterns {
        options = options.fold_pattern(pattern.clone());
    }
    options
}
