//! Issue 21, "Nothing lost", as a property of the real binary over random
//! inputs and option mixes (cleaning, folding, squeezing, keeping, cuts):
//! with `--spill-dir`, an output that is not its input byte for byte keeps
//! exactly one entry, which holds the input byte for byte, is the file
//! every path in the output names (and an output that points to raw lines
//! names it), and holds every `lines a-b` the output points to; an output
//! equal to its input keeps none.

use proptest::prelude::*;
use regex::bytes::Regex;

use crate::clean_properties::{arguments, clean_spec, input};
use crate::common::{TempDir, stored_outputs, toolcap};

/// The raw line count of `input`: its `\n`s, and one more for an
/// unterminated last line.
fn raw_lines(input: &[u8]) -> u64 {
    let newlines = input.iter().filter(|&&byte| byte == b'\n').count() as u64;
    newlines + u64::from(input.last().is_some_and(|&byte| byte != b'\n'))
}

proptest! {
    // Each case starts a process.
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(64),
        ..ProptestConfig::default()
    })]

    #[test]
    fn an_output_that_changed_keeps_and_names_its_input(b in input(), spec in clean_spec()) {
        let dir = TempDir::new("nothing-lost");
        let store = dir.join("store");
        let output = toolcap()
            .args(arguments(&spec, None))
            .arg(format!("--spill-dir={}", store.display()))
            .write_stdin(b.to_vec())
            .output()
            .expect("run toolcap");
        prop_assert!(output.status.success(), "{:?}", output);
        let entries = if store.exists() { stored_outputs(&store) } else { Vec::new() };
        if output.stdout == *b {
            prop_assert!(entries.is_empty(), "an output equal to its input kept {entries:?}");
            return Ok(());
        }
        prop_assert_eq!(entries.len(), 1, "{}", String::from_utf8_lossy(&output.stdout));
        let entry = &entries[0];
        prop_assert_eq!(std::fs::read(entry).expect("read the entry"), b.to_vec());
        let shown = String::from_utf8_lossy(&output.stdout);
        // An output that points to raw lines names the file that has them.
        let named = format!("full output in {}", entry.display());
        prop_assert!(
            !shown.contains("(lines ") || shown.contains(&named),
            "{named:?} missing:\n{shown}"
        );
        let paths = Regex::new(r"full output in ([^\s\];]+)").unwrap();
        for found in paths.captures_iter(&output.stdout) {
            prop_assert_eq!(&found[1], entry.as_os_str().as_encoded_bytes());
        }
        let lines = raw_lines(&b);
        let ranges = Regex::new(r"\(lines (\d+)-(\d+)\)").unwrap();
        for found in ranges.captures_iter(&output.stdout) {
            let number = |at: usize| -> u64 {
                std::str::from_utf8(&found[at]).unwrap().parse().unwrap()
            };
            let (first, last) = (number(1), number(2));
            prop_assert!(
                1 <= first && first <= last && last <= lines,
                "lines {first}-{last} of {lines}:\n{shown}"
            );
        }
    }
}
