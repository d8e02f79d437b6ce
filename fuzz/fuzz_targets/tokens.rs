#![no_main]
//! Budgets in real tokens (SPEC.md, "Bytes, characters or tokens"): the
//! header's count is the tokenizer's own, and the head and tail are each
//! within their budget and the longest so (one more character would not
//! be, where no escape sequence moves the cut), whatever the text and the
//! chunking.

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use toolcap::{CutMode, Options, Tokenizer};

#[allow(dead_code)]
#[path = "common.rs"]
mod common;

#[derive(Arbitrary, Debug)]
struct Case {
    input: Vec<u8>,
    chunks: Vec<u8>,
    budget: u8,
    cl100k: bool,
}

fn count(cl100k: bool, bytes: &[u8]) -> u64 {
    let tokenizer = if cl100k {
        bpe_openai::cl100k_base()
    } else {
        bpe_openai::o200k_base()
    };
    tokenizer.count(String::from_utf8_lossy(bytes).as_ref()) as u64
}

/// The length of the character (or invalid sequence) `bytes` starts with.
fn first_char_len(bytes: &[u8]) -> usize {
    let chunk = bytes.utf8_chunks().next().expect("a byte");
    chunk
        .valid()
        .chars()
        .next()
        .map_or(chunk.invalid().len(), char::len_utf8)
}

/// The length of the character (or invalid sequence) `bytes` ends with.
fn last_char_len(bytes: &[u8]) -> usize {
    let chunk = bytes.utf8_chunks().last().expect("a byte");
    if chunk.invalid().is_empty() {
        chunk.valid().chars().next_back().map_or(0, char::len_utf8)
    } else {
        chunk.invalid().len()
    }
}

fuzz_target!(|case: Case| {
    let budget = u64::from(case.budget);
    let tokenizer = if case.cl100k {
        Tokenizer::Cl100k
    } else {
        Tokenizer::O200k
    };
    let options = Options::new()
        .tokens(budget)
        .tokenizer(tokenizer)
        .cut(CutMode::Bytes);
    let report = common::stream(&options, &case.input, &case.chunks);
    let input = &case.input[..];
    assert!(!report.tokens_estimated);
    assert_eq!(report.tokens, count(case.cl100k, input));
    let (head_budget, tail_budget) = (budget / 2, budget - budget / 2);
    let Some(cut) = report.cut else {
        // SPEC.md: the whole fits, or a head and a tail, each counted on
        // its own, hold all of it (h >= t).
        let held = || {
            (0..=input.len()).any(|p| {
                count(case.cl100k, &input[..p]) <= head_budget
                    && count(case.cl100k, &input[p..]) <= tail_budget
            })
        };
        assert!(report.tokens <= budget || held());
        return;
    };
    let (h, t) = (cut.head_end as usize, cut.tail_start as usize);
    assert!(
        count(case.cl100k, &input[..h]) <= head_budget,
        "head over budget"
    );
    assert!(
        count(case.cl100k, &input[t..]) <= tail_budget,
        "tail over budget"
    );
    // A cut never lands inside an escape sequence (SPEC.md, "Output
    // format", step 3): it moves past one, so near an ESC the longest
    // prefix within budget may not be a cut toolcap can make.
    if input.contains(&0x1b) {
        return;
    }
    // A cut never lands on a continuation byte either (step 2): a longer
    // head or tail that would is no cut toolcap can make.
    let legal = |at: usize| {
        input
            .get(at)
            .is_none_or(|byte| !(0x80..=0xBF).contains(byte))
    };
    let longer_head = h + first_char_len(&input[h..]);
    assert!(
        !legal(longer_head) || count(case.cl100k, &input[..longer_head]) > head_budget,
        "head not longest"
    );
    let longer_tail = t - last_char_len(&input[..t]);
    assert!(
        !legal(longer_tail) || count(case.cl100k, &input[longer_tail..]) > tail_budget,
        "tail not longest"
    );
});
