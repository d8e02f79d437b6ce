//! `--total SIZE` (issue 21): everything toolcap prints, header, markers,
//! kept lines and the status line included, is at most SIZE bytes, for a
//! harness whose own cap cuts again. Checked on the real binary over
//! random inputs and option mixes, in filter and wrap mode, with and
//! without a spill store.

use proptest::prelude::*;

use crate::common::{TempDir, toolcap};

/// Lines a log has: short and long, similar ones, errors, repeats, colour.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        Just("ok\n".to_string()),
        Just("test case_17 ... ok\n".to_string()),
        Just("error[E0308]: mismatched types\n".to_string()),
        Just("warning: unused variable `x`\n".to_string()),
        Just("\x1b[31mFAILED\x1b[0m tests/test_a.py::test_b\n".to_string()),
        Just("same line\n".to_string()),
        // Fake credentials, for --redact's counts in the Cleaned: line.
        Just("GITHUB_TOKEN=ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfake0000\n".to_string()),
        Just("password=FAKEpw0042 url https://u:FAKEpass00@example.com/x\n".to_string()),
        "[a-z ]{0,120}\n",
        (0u32..100_000).prop_map(|n| format!("GET /a/{n} 200 {n}ms\n")),
    ];
    prop::collection::vec(line, 0..400).prop_map(|lines| lines.concat().into_bytes())
}

fn options() -> impl Strategy<Value = Vec<&'static str>> {
    prop::collection::vec(
        prop::sample::select(vec![
            "--clean",
            "--keep-errors",
            "--no-header",
            "--squeeze",
            "--fold",
            "--strip-ansi",
            "--live",
            "--redact",
        ]),
        0..4,
    )
    .prop_map(|mut options| {
        options.sort();
        options.dedup();
        options
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(200),
        ..ProptestConfig::default()
    })]

    #[test]
    fn everything_printed_fits_the_total(
        b in input(),
        options in options(),
        total in 600u64..6_000,
        keep in prop::option::of("error|FAILED"),
        context in 0u64..3,
        store in any::<bool>(),
        exit in prop::option::of(prop::sample::select(vec![1u8, 3, 5])),
    ) {
        // --redact's counts take up to 822 bytes more of the total.
        let total = if options.contains(&"--redact") { total + 822 } else { total };
        let dir = TempDir::new("total");
        let mut command = toolcap();
        command.arg(format!("--total={total}")).args(&options);
        if let Some(pattern) = &keep {
            command.arg(format!("--keep={pattern}")).arg(format!("--keep-context={context}"));
        }
        if store {
            command.arg("--spill-dir").arg(dir.path().join("store with a long name"));
        }
        let input = dir.path().join("input.log");
        std::fs::write(&input, &b).unwrap();
        match exit {
            // Wrap mode: the status line counts too.
            Some(code) => {
                command
                    .arg("--")
                    .arg("sh")
                    .arg("-c")
                    .arg(format!("cat \"$0\"; exit {code}"))
                    .arg(&input);
            }
            None => {
                command.arg(&input);
            }
        }
        let output = command.output().unwrap();
        // Not a usage error (the command exits 1, 3 or 5).
        prop_assert!(
            output.status.code() != Some(2),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        prop_assert!(
            output.stdout.len() as u64 <= total,
            "{} > {total}: {}",
            output.stdout.len(),
            String::from_utf8_lossy(&output.stdout)
        );
    }
}

/// Found in review: a spill file's long name went over a `--total` whose
/// budget could not give it room; now that `--total` is refused, naming
/// the least that works, which then holds.
#[test]
fn a_total_too_small_for_the_spill_files_name_names_the_least_that_works() {
    let dir = TempDir::new("total-long-spill");
    let spill = dir.join(format!("{}.log", "a-long-name-".repeat(18)));
    let input = "x\n".repeat(1000);
    let refused = toolcap()
        .arg("--total=293")
        .arg(format!("--spill={}", spill.display()))
        .write_stdin(input.clone())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let message = String::from_utf8(refused.stderr).unwrap();
    let least: u64 = message
        .strip_prefix(
            "toolcap: --total 293 is too small: the header, one marker naming the spill file \
             and the status line take up to ",
        )
        .and_then(|rest| rest.split_once(' '))
        .and_then(|(number, _)| number.parse().ok())
        .unwrap_or_else(|| panic!("{message}"));
    assert!(
        message.ends_with(&format!("; the least --total that works is {least}\n")),
        "{message}"
    );
    assert!(least > 293 + spill.as_os_str().len() as u64, "{message}");
    let output = toolcap()
        .arg(format!("--total={least}"))
        .arg(format!("--spill={}", spill.display()))
        .write_stdin(input.clone())
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(
        output.stdout.len() as u64 <= least,
        "{} > {least}",
        output.stdout.len()
    );
    assert_eq!(std::fs::read(&spill).unwrap(), input.as_bytes());
}

#[test]
fn a_total_too_small_names_the_least_that_works() {
    toolcap()
        .args(["--total", "100"])
        .write_stdin("x\n")
        .assert()
        .code(2)
        .stderr(
            "toolcap: --total 100 is too small: the header, one marker and the status line take \
             up to 293 bytes; the least --total that works is 293\n",
        );
    // The least works: a header and a marker, nothing of the content.
    let out = toolcap()
        .args(["--total", "293"])
        .write_stdin("x\n".repeat(1000))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.len() <= 293, "{}", out.stdout.len());
    toolcap()
        .args(["--total", "10k", "--max", "5k"])
        .write_stdin("x\n")
        .assert()
        .code(2)
        .stderr(
            "toolcap: --max and --total cannot be used together: \
             exactly one of them sets the budget\n",
        );
}

/// Output that fits is printed as it is, without a header: --total only
/// sets how much fits.
#[test]
fn output_within_the_total_is_unchanged() {
    toolcap()
        .args(["--total", "10k"])
        .write_stdin("a\nb\n")
        .assert()
        .success()
        .stdout("a\nb\n");
}
