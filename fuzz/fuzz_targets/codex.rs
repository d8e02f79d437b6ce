#![no_main]
//! `--style codex` against its SPEC.md description (the model in
//! tests/it/codex_model.rs), under `--max` and `--tokens`.

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use toolcap::{Options, Style};

#[path = "../../tests/it/codex_model.rs"]
mod codex_model;

#[derive(Arbitrary, Debug)]
struct Case {
    input: Vec<u8>,
    budget: u16,
    tokens: bool,
}

fuzz_target!(|case: Case| {
    let budget = usize::from(case.budget % 512);
    let options = Options::new().style(Style::Codex);
    let (options, bytes) = if case.tokens {
        (options.tokens(budget as u64 / 4), budget / 4 * 4)
    } else {
        (options.max(budget as u64), budget)
    };
    let output = toolcap::cap(&case.input, &options).expect("valid options");
    let expected = codex_model::codex(&case.input, bytes, case.tokens);
    assert!(
        output == expected.as_bytes(),
        "codex\n  toolcap: {}\n    model: {}",
        output.escape_ascii(),
        expected.escape_default()
    );
});
