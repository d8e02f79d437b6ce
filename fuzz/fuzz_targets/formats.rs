#![no_main]
//! `--format json` and `--format diff` against the spec's promises (the
//! checks in tests/it/format_model.rs): a shortened document always parses,
//! has the input's shape with every count adding up, and its JSON part is
//! within the budget; a cut diff keeps every hunk it shows whole. Any
//! bytes at all, under `json`, `diff`, `csv` and `auto`, never panic.

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use toolcap::{Format, Options, SizeOrPercent};

#[allow(dead_code)]
#[path = "../../tests/it/format_model.rs"]
mod format_model;

/// A JSON value the fuzzer builds, bounded in depth and width.
fn value(u: &mut Unstructured, depth: u32) -> arbitrary::Result<Value> {
    let kind = if depth >= 5 {
        u.int_in_range(0..=4)?
    } else {
        u.int_in_range(0..=6)?
    };
    Ok(match kind {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::from(u.arbitrary::<i64>()?),
        3 => serde_json::Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        4 => Value::String(u.arbitrary()?),
        5 => {
            let len = u.int_in_range(0..=40)?;
            Value::Array(
                (0..len)
                    .map(|_| value(u, depth + 1))
                    .collect::<Result<_, _>>()?,
            )
        }
        _ => {
            let len = u.int_in_range(0..=12)?;
            let mut object = Map::new();
            for _ in 0..len {
                object.insert(u.arbitrary()?, value(u, depth + 1)?);
            }
            Value::Object(object)
        }
    })
}

/// A git-style diff of a few files, each with hunks of random shapes.
fn diff(u: &mut Unstructured) -> arbitrary::Result<Vec<u8>> {
    let mut text = String::new();
    for file in 0..u.int_in_range(1..=6)? {
        text += &format!(
            "diff --git a/f{file} b/f{file}\nindex 1..2 100644\n--- a/f{file}\n+++ b/f{file}\n"
        );
        let mut start = 1;
        for _ in 0..u.int_in_range(1..=5)? {
            let (mut old, mut new, mut body) = (0, 0, String::new());
            for line in 0..u.int_in_range(1..=12)? {
                match u.int_in_range(0..=2)? {
                    0 => (old, new, body) = (old + 1, new + 1, body + &format!(" ctx {line}\n")),
                    1 => (old, body) = (old + 1, body + &format!("-old {line}\n")),
                    _ => (new, body) = (new + 1, body + &format!("+new {line}\n")),
                }
            }
            text += &format!("@@ -{start},{old} +{start},{new} @@\n{body}");
            start += old + 10;
        }
    }
    Ok(text.into_bytes())
}

fn json_case(u: &mut Unstructured) -> arbitrary::Result<()> {
    let document = value(u, 0)?;
    let input = if u.arbitrary()? {
        serde_json::to_vec_pretty(&document)
    } else {
        serde_json::to_vec(&document)
    }
    .expect("a Value serialises");
    let budget = u.int_in_range(0..=4000u64)?;
    let options = Options::new()
        .max(budget)
        .format(Format::Json)
        .pretty(u.arbitrary()?);
    let output = toolcap::cap(&input, &options).expect("valid options");
    if input.len() as u64 <= budget {
        assert!(output == input, "a document that fits was changed");
        return Ok(());
    }
    let (header, part) = format_model::split_header(&output).expect("a header");
    if String::from_utf8_lossy(header).contains("Format: not JSON") {
        // Allowed only when even the smallest form is over the budget.
        assert!(
            String::from_utf8_lossy(header).contains("even its shortest form is over the budget"),
            "{}",
            String::from_utf8_lossy(header)
        );
        return Ok(());
    }
    assert!(
        part.len() as u64 <= budget,
        "JSON part of {} bytes, budget {budget}",
        part.len()
    );
    let shortened: Value = serde_json::from_slice(part).unwrap_or_else(|e| {
        panic!("not JSON: {e}: {}", String::from_utf8_lossy(part));
    });
    let original: Value = serde_json::from_slice(&input).expect("the input parses");
    if let Err(why) = format_model::same_shape(&original, &shortened, "$") {
        panic!(
            "{why}\n  input: {}\n output: {}",
            String::from_utf8_lossy(&input),
            String::from_utf8_lossy(part)
        );
    }
    Ok(())
}

fn diff_case(u: &mut Unstructured) -> arbitrary::Result<()> {
    let input = diff(u)?;
    let (head, tail) = (u.int_in_range(0..=3000u64)?, u.int_in_range(0..=3000u64)?);
    let options = Options::new()
        .head(SizeOrPercent::Bytes(head))
        .tail(SizeOrPercent::Bytes(tail))
        .format(Format::Diff);
    let output = toolcap::cap(&input, &options).expect("valid options");
    let part = format_model::split_header(&output).map_or(&output[..], |(_, part)| part);
    if let Err(why) = format_model::hunks_are_whole(part) {
        panic!("{why}\n{}", String::from_utf8_lossy(&output));
    }
    Ok(())
}

fn any_bytes(u: &mut Unstructured) -> arbitrary::Result<()> {
    let format = *u.choose(&[Format::Json, Format::Diff, Format::Csv, Format::Auto])?;
    let budget = u.int_in_range(0..=600u64)?;
    let input: Vec<u8> = u.arbitrary()?;
    toolcap::cap(&input, &Options::new().max(budget).format(format)).expect("valid options");
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let _ = match u.int_in_range(0..=2u8) {
        Ok(0) => json_case(&mut u),
        Ok(1) => diff_case(&mut u),
        _ => any_bytes(&mut u),
    };
});
