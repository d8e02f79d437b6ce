//! Budgets in characters and in real tokens (SPEC.md, "Bytes, characters or
//! tokens"): the header's count equals the tokenizer's own count of the
//! same text, the kept head and tail are within their budgets and longest
//! (one more character would not be), and the default path is unchanged.

use proptest::prelude::*;

use crate::common::{assert_output, stdout_of, toolcap};

/// The tokenizer's own count of `bytes`, read as a harness would decode
/// them (invalid UTF-8 as U+FFFD).
fn o200k(bytes: &[u8]) -> u64 {
    bpe_openai::o200k_base().count(String::from_utf8_lossy(bytes).as_ref()) as u64
}

fn cl100k(bytes: &[u8]) -> u64 {
    bpe_openai::cl100k_base().count(String::from_utf8_lossy(bytes).as_ref()) as u64
}

/// The header's `original token count`, as printed (`~N` when estimated).
fn header_count(output: &[u8]) -> String {
    let text = String::from_utf8_lossy(output);
    let start = text.find("original token count: ").expect("a header") + 22;
    let end = start + text[start..].find(')').expect("the header's end");
    text[start..end].to_string()
}

/// The cuts (h, t) of `input` in an output with one marker line and no
/// header: t from the tail, h from the marker's byte count (a head that
/// does not end in a newline gets one before the marker, so its printed
/// length cannot tell).
fn cuts(input: &[u8], output: &[u8]) -> (usize, usize) {
    let marker = output
        .windows(5)
        .position(|w| w == b"[... ")
        .expect("a marker");
    let rest = &output[marker + 5..];
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let omitted: usize = std::str::from_utf8(&rest[..digits])
        .unwrap()
        .parse()
        .unwrap();
    let after = marker
        + output[marker..]
            .iter()
            .position(|&b| b == b'\n')
            .expect("its end")
        + 1;
    let t = input.len() - (output.len() - after);
    assert!(input.ends_with(&output[after..]), "the tail is B[t:n]");
    let h = t - omitted;
    assert!(output.starts_with(&input[..h]), "the head is B[0:h]");
    (h, t)
}

/// A test run's output, a compiler's errors, CJK prose, emoji and invalid
/// UTF-8: what the counts must agree on.
fn samples() -> Vec<Vec<u8>> {
    let mut run = Vec::new();
    for i in 1..=400 {
        let verdict = if i % 97 == 0 { "FAILED" } else { "ok" };
        run.extend_from_slice(format!("test tests::case_{i} ... {verdict}\n").as_bytes());
    }
    run.extend_from_slice(b"\ntest result: FAILED. 396 passed; 4 failed\n");
    let compiler = concat!(
        "error[E0308]: mismatched types\n",
        "  --> src/main.rs:4:18\n",
        "   |\n",
        "4  |     let x: u32 = \"text\";\n",
        "   |            ---   ^^^^^^ expected `u32`, found `&str`\n",
    )
    .as_bytes()
    .repeat(30);
    let cjk = "日本語のテキストを数える。中文文本也要计算，标点符号也一样。\n".repeat(80);
    let emoji = "build ok 🚀✨ tests 🧪 passed ✅ 👍🏽 family 👨‍👩‍👧\n".repeat(60);
    let invalid = b"caf\xe9 \xff\xfe valid \xe2\x82 then \xf0\x9f\x98 end\r\n".repeat(70);
    vec![run, compiler, cjk.into_bytes(), emoji.into_bytes(), invalid]
}

#[test]
fn the_header_counts_what_the_tokenizer_counts() {
    for sample in samples() {
        for (name, count) in [("o200k", o200k as fn(&[u8]) -> u64), ("cl100k", cl100k)] {
            let output = stdout_of(&["--max", "200", "--tokenizer", name], &sample);
            assert_eq!(header_count(&output), count(&sample).to_string(), "{name}");
        }
    }
}

#[test]
fn heads_and_tails_are_the_longest_within_their_token_budgets() {
    for sample in samples() {
        for budget in [10, 51, 300] {
            let args = [
                "--tokens",
                &budget.to_string(),
                "--tokenizer",
                "o200k",
                "--cut",
                "bytes",
                "--no-header",
            ];
            let output = stdout_of(&args, &sample);
            assert_longest(
                &sample,
                cuts(&sample, &output),
                budget / 2,
                budget - budget / 2,
            );
        }
    }
}

/// B[0:h] and B[t:n] are each within its budget, and one more character
/// would take it over.
fn assert_longest(input: &[u8], (h, t): (usize, usize), head_budget: u64, tail_budget: u64) {
    assert!(o200k(&input[..h]) <= head_budget, "head over budget: {h}");
    assert!(o200k(&input[t..]) <= tail_budget, "tail over budget: {t}");
    let next = h + char_len(&input[h..]);
    assert!(o200k(&input[..next]) > head_budget, "head not longest: {h}");
    let previous = t - last_char_len(&input[..t]);
    assert!(
        o200k(&input[previous..]) > tail_budget,
        "tail not longest: {t}"
    );
}

/// The length of the character (or invalid sequence) `bytes` starts with.
fn char_len(bytes: &[u8]) -> usize {
    let chunk = bytes.utf8_chunks().next().expect("a byte");
    match chunk.valid().chars().next() {
        Some(c) => c.len_utf8(),
        None => chunk.invalid().len(),
    }
}

/// The length of the character (or invalid sequence) `bytes` ends with.
fn last_char_len(bytes: &[u8]) -> usize {
    let mut last = 0;
    for chunk in bytes.utf8_chunks() {
        if let Some(c) = chunk.valid().chars().next_back() {
            last = c.len_utf8();
        }
        if !chunk.invalid().is_empty() {
            last = chunk.invalid().len();
        }
    }
    last
}

/// Text made of the places tokenizers treat apart: words, numbers,
/// punctuation, runs of spaces and newlines, `\r`, CJK, emoji, invalid
/// bytes.
fn text() -> impl Strategy<Value = Vec<u8>> {
    let part = prop::sample::select(vec![
        &b"word "[..],
        b"Word",
        b"  ",
        b"\n",
        b"\r\n",
        b",\r\n",
        b"\r",
        b"12345",
        b"/path/to",
        b"'s",
        b"!!",
        b"\t",
        b"\xff",
        b"\xe2\x82",
        "日本".as_bytes(),
        "😀".as_bytes(),
        "\u{3000}".as_bytes(),
    ]);
    prop::collection::vec(part, 0..300).prop_map(|parts| parts.concat())
}

proptest! {
    // Each case starts a process.
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(40),
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_text_is_cut_within_the_token_budget(input in text(), budget in 0u64..80) {
        let output = stdout_of(
            &["--tokens", &budget.to_string(), "--tokenizer", "o200k", "--cut", "bytes",
              "--no-header"],
            &input,
        );
        let (head_budget, tail_budget) = (budget / 2, budget - budget / 2);
        if o200k(&input) <= budget {
            prop_assert_eq!(output, input);
        } else if output == input {
            // SPEC.md: each part counted on its own, "the two parts can
            // hold all of B (h >= t) although B counts more than N: then
            // nothing is cut". Some split must leave both within budget.
            let meet = (0..=input.len())
                .any(|p| o200k(&input[..p]) <= head_budget && o200k(&input[p..]) <= tail_budget);
            prop_assert!(meet, "printed whole, but no head and tail hold it all");
        } else {
            assert_longest(&input, cuts(&input, &output), head_budget, tail_budget);
        }
    }
}

/// Found by the property test above: the longest head and tail within 25
/// o200k tokens each meet, though the whole counts 51. The output used to
/// be the input with a newline added where they met, and no marker.
#[test]
fn a_head_and_tail_that_hold_everything_leave_the_input_whole() {
    let input = b"word word \xe6\x97\xa5\xe6\x9c\xacword \xff\xe6\x97\xa5\xe6\x9c\xacword \
                  Word\xe6\x97\xa5\xe6\x9c\xacword \xffword Word\xe6\x97\xa5\xe6\x9c\xac\n\
                  12345word !!\r\n'sword /path/toword   ,\r\n\xe6\x97\xa5\xe6\x9c\xac\r\
                  12345Word!!12345\t!!\xf0\x9f\x98\x80's/path/to\n\
                  \xe2\x82  ,\r\n\r\n\xf0\x9f\x98\x80\t";
    assert!(o200k(input) > 50);
    let output = stdout_of(
        &["--tokens", "50", "--tokenizer", "o200k", "--cut", "bytes"],
        input,
    );
    assert_eq!(output, input);
}

#[test]
fn lines_mode_gives_up_at_most_a_quarter_of_the_bytes() {
    let log: String = (1..=200)
        .map(|i| format!("line number {i}: status ok\n"))
        .collect();
    let output = stdout_of(
        &["--tokens", "100", "--tokenizer", "o200k", "--no-header"],
        log.as_bytes(),
    );
    let (h, t) = cuts(log.as_bytes(), &output);
    let (head, tail) = (&log.as_bytes()[..h], &log.as_bytes()[t..]);
    // Whole lines at both ends, each within 50 tokens.
    assert!(head.ends_with(b"\n") && log.as_bytes()[t - 1] == b'\n');
    assert!(o200k(head) <= 50 && o200k(tail) <= 50);
    // One more line would not fit either side.
    let next_line = log.as_bytes()[head.len()..]
        .split_inclusive(|&b| b == b'\n')
        .next()
        .unwrap();
    assert!(o200k(&[head, next_line].concat()) > 50);
}

#[test]
fn past_the_count_limit_the_count_is_extrapolated_and_marked() {
    // 1000 identical lines of 9 bytes; the counted part ends at the last
    // line start within 1000 bytes (111 lines), so the estimate is exact.
    let line = b"error: x\n";
    let input = line.repeat(1000);
    let per_line = o200k(line);
    let output = stdout_of(
        &[
            "--max",
            "100",
            "--tokenizer",
            "o200k",
            "--count-limit",
            "1000",
        ],
        &input,
    );
    assert_eq!(header_count(&output), format!("~{}", per_line * 1000));
    // Within the limit: exact, unmarked.
    let output = stdout_of(&["--max", "100", "--tokenizer", "o200k"], &input);
    assert_eq!(header_count(&output), o200k(&input).to_string());
}

#[test]
fn a_10_mb_line_is_counted_and_cut() {
    // Words: breaks between a letter and a space, so the count is exact.
    let words = b"token ".repeat(10 * 1024 * 1024 / 6);
    let output = stdout_of(&["--tokens", "40", "--tokenizer", "o200k"], &words);
    assert_eq!(header_count(&output), o200k(&words).to_string());
    // One letter repeated: no place where pieces surely break, so the count
    // is taken in 1 MiB parts and marked as an estimate; the cut still
    // keeps its budgets.
    let letters = vec![b'a'; 10 * 1024 * 1024];
    let output = stdout_of(
        &["--tokens", "40", "--tokenizer", "o200k", "--cut", "bytes"],
        &letters,
    );
    assert!(header_count(&output).starts_with('~'));
    let body = &output[output.windows(2).position(|w| w == b"\n\n").unwrap() + 2..];
    assert_longest(&letters, cuts(&letters, body), 20, 20);
}

#[test]
fn the_default_tokenizer_is_four_bytes_a_token() {
    let log: String = (1..=100).map(|i| format!("line {i}\n")).collect();
    let default = stdout_of(&["--tokens", "20"], log.as_bytes());
    assert_eq!(
        default,
        stdout_of(&["--tokens", "20", "--tokenizer", "approx"], log.as_bytes())
    );
    assert_eq!(header_count(&default), log.len().div_ceil(4).to_string());
    // The environment sets the default; the option wins.
    let from_env = toolcap()
        .args(["--max", "50"])
        .env("TOOLCAP_TOKENIZER", "cl100k")
        .write_stdin(log.clone())
        .output()
        .unwrap();
    assert_eq!(
        header_count(&from_env.stdout),
        cl100k(log.as_bytes()).to_string()
    );
    let overridden = toolcap()
        .args(["--max", "50", "--tokenizer", "approx"])
        .env("TOOLCAP_TOKENIZER", "cl100k")
        .write_stdin(log.clone())
        .output()
        .unwrap();
    assert_eq!(
        header_count(&overridden.stdout),
        log.len().div_ceil(4).to_string()
    );
}

#[test]
fn the_json_report_names_the_tokenizer_and_an_estimate() {
    let input = b"error: x\n".repeat(1000);
    let output = stdout_of(
        &[
            "--max",
            "100",
            "--tokenizer",
            "o200k",
            "--count-limit",
            "1000",
            "--json",
        ],
        &input,
    );
    let report: serde_json::Value = serde_json::from_slice(&output).unwrap();
    assert_eq!(report["tokenizer"], "o200k");
    assert_eq!(report["tokens_estimated"], true);
    assert_eq!(report["tokens"], o200k(b"error: x\n") * 1000);
    let plain: serde_json::Value = serde_json::from_slice(&stdout_of(&["--json"], b"a\n")).unwrap();
    assert_eq!(plain["tokenizer"], "approx");
    assert_eq!(plain["tokens_estimated"], false);
}

#[test]
fn bad_tokenizer_settings_are_usage_errors() {
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case; 5] = [
        (
            &["--tokenizer", "gpt2"],
            &[],
            "toolcap: invalid value 'gpt2' for '--tokenizer <NAME>'",
        ),
        (
            &[],
            &[("TOOLCAP_TOKENIZER", "gpt2")],
            "toolcap: invalid TOOLCAP_TOKENIZER 'gpt2': expected approx, o200k or cl100k\n",
        ),
        (
            &["--tokenizer", "o200k", "--style", "codex"],
            &[],
            "toolcap: --style codex counts tokens as codex does (4 bytes each): it cannot be \
             combined with --tokenizer o200k\n",
        ),
        (
            &["--tokenizer", "o200k", "--count-limit", "0"],
            &[],
            "toolcap: invalid value '0' for '--count-limit <SIZE>': at least 1 byte must be \
             counted\n",
        ),
        (
            &[
                "--tokenizer",
                "cl100k",
                "--tokens",
                "100",
                "--format",
                "json",
            ],
            &[],
            "toolcap: --format json cannot be combined with --tokens with --tokenizer cl100k: a \
             document's budget is in bytes\n",
        ),
    ];
    for (args, env, message) in cases {
        let output = toolcap()
            .args(args)
            .envs(env.iter().copied())
            .write_stdin("x\n")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with(message), "{args:?}: {stderr}");
    }
}

#[test]
fn characters_budget_multibyte_text() {
    // 13 characters of 3 bytes each and a newline per line.
    let line = "日本語のテキストを数える。\n";
    let input = line.repeat(10);
    // Head 14 characters (one line), tail 14: the middle 8 lines.
    assert_output(
        &["--chars", "28", "--no-header"],
        input.as_bytes(),
        format!("{line}[... {} bytes truncated ...]\n{line}", 8 * line.len()),
    );
    // A cut inside a line never splits a character: 13 characters of head.
    assert_output(
        &["--chars", "26", "--no-header"],
        input.as_bytes(),
        "日本語のテキストを数える。\n[... 324 bytes truncated ...]\n本語のテキストを数える。\n",
    );
    // Invalid bytes count one each: 6 of them and a newline fit 7.
    assert_output(
        &["--chars", "7"],
        b"\xff\xfe\xfd\xfc\xfb\xfa\n".to_vec(),
        b"\xff\xfe\xfd\xfc\xfb\xfa\n".to_vec(),
    );
}
