#![no_main]
//! The capper against the spec's contract (the model in tests/it/model.rs):
//! random input, read chunking, budgets, `--lines`, `--cut` and header.

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

#[derive(Arbitrary, Debug)]
struct Case {
    input: Vec<u8>,
    chunks: Vec<u8>,
    head: u16,
    tail: u16,
    lines: Option<u8>,
    cut_lines: bool,
    header: bool,
}

fuzz_target!(|case: Case| {
    let spec = model::Spec {
        head: u64::from(case.head % 600),
        tail: u64::from(case.tail % 600),
        lines: case.lines.map(|lines| u64::from(lines % 40)),
        cut_lines: case.cut_lines,
        header: case.header,
        spill: None,
    };
    let options = spec_options::options(&spec);
    let report = common::stream(&options, &case.input, &case.chunks);
    let output = common::rendered(&report);
    common::assert_same(
        &output,
        &model::expected_output(&case.input, &spec),
        "capper",
    );
});
