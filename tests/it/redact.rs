//! `--redact` (issue 25), through the real binary: every family at the
//! head, in the middle and at the tail of a generated log, across the cut
//! and kept by `--keep`; counted in the header and the JSON report; the
//! store keeps the raw bytes and `--show ID --redact` shows them
//! redacted; property tests of the two guarantees; and real output of
//! this machine's tools, which must pass unchanged.
//!
//! Every secret here is fake: the right shape, with FAKE, fake or 0 where
//! a real one has random characters.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;

use proptest::prelude::*;

use crate::common::{Need, TempDir, require, stdout_of, stored_outputs, toolcap};

/// One planted secret: the line that holds it, what must not survive of
/// it (the value; the key name around it stays), and its kind.
#[derive(Clone, Debug)]
struct Planted {
    line: String,
    secret: String,
    kind: &'static str,
}

fn planted(line: String, secret: String, kind: &'static str) -> Planted {
    Planted { line, secret, kind }
}

/// Example `n` of every family, each with a fake value of its vendor's
/// shape (`body` varies the random part).
fn examples(n: usize, body: &str) -> Vec<Planted> {
    let pad = |length: usize| -> String {
        let mut text = format!("{body}{n:04}");
        while text.len() < length {
            text.push_str("FAKEfake");
        }
        text.truncate(length);
        text
    };
    let upper = |length: usize| -> String {
        let mut text = format!("FAKE{n:012}");
        text.truncate(length);
        text
    };
    let mut all = Vec::new();
    let mut add = |line: String, secret: String, kind| all.push(planted(line, secret, kind));
    let key_id = format!("AKIA{}", upper(16));
    add(
        format!("aws_access_key_id = {key_id}"),
        key_id,
        "aws-access-key-id",
    );
    let secret = pad(40);
    add(
        format!("AWS_SECRET_ACCESS_KEY={secret}"),
        secret,
        "aws-secret-key",
    );
    let classic = format!("ghp_{}", pad(36));
    add(
        format!("using token {classic} for the push"),
        classic,
        "github-token",
    );
    let fine = format!("github_pat_{}_{}", pad(22), pad(59));
    add(format!("GH token: '{fine}'"), fine, "github-token");
    let gitlab = format!("glpat-{}", pad(20));
    add(
        format!("curl --header \"PRIVATE-TOKEN: {gitlab}\""),
        gitlab,
        "gitlab-token",
    );
    let slack = format!("xoxb-000000000{n}-{}", pad(24));
    add(format!("slack bot {slack} connected"), slack, "slack-token");
    let stripe = format!("sk_live_{}", pad(24));
    add(
        format!("stripe.api_key set ({stripe})"),
        stripe,
        "stripe-key",
    );
    let openai = format!("sk-proj-{}", pad(48));
    add(format!("openai client with {openai}"), openai, "openai-key");
    let anthropic = format!("sk-ant-api03-{}", pad(40));
    add(
        format!("anthropic: {anthropic}"),
        anthropic,
        "anthropic-key",
    );
    let google = format!("AIza{}", pad(35));
    add(format!("maps?key={google}&v=3"), google, "google-api-key");
    let jwt = format!("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlIn0.{}", pad(43));
    add(format!("session {jwt} issued"), jwt, "jwt");
    let bearer = pad(32);
    add(
        format!("> Authorization: Bearer {bearer}"),
        bearer,
        "bearer-token",
    );
    let basic = format!("ZmFrZTpmYWtl{}", pad(8));
    add(
        format!("< authorization: Basic {basic}"),
        basic,
        "basic-auth",
    );
    let userinfo = format!("fakeuser:{}", pad(16));
    add(
        format!("origin\thttps://{userinfo}@git.example.com/org/repo.git (fetch)"),
        userinfo,
        "url-credentials",
    );
    let password = pad(12);
    add(format!("DB_PASSWORD={password}"), password, "password");
    let client = pad(24);
    add(
        format!("  \"client_secret\": \"{client}\","),
        client,
        "secret",
    );
    let token = pad(20);
    add(format!("export SERVICE_TOKEN='{token}'"), token, "token");
    let api = pad(24);
    add(format!("api_key: \"{api}\""), api, "api-key");
    let flag = pad(14);
    add(format!("mysql --password {flag} -h db"), flag, "password");
    all
}

/// A PEM private key block of `lines` base64 lines, and those lines (the
/// secrets).
fn pem_block(n: usize, lines: usize) -> (String, Vec<String>) {
    let body: Vec<String> = (0..lines)
        .map(|line| format!("MIIE{n:04}FAKE{line:04}{}", "fAkE".repeat(13)))
        .collect();
    let block = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----",
        body.join("\n")
    );
    (block, body)
}

/// Ordinary lines that look like secrets to a careless eye.
fn ordinary(i: usize) -> String {
    match i % 6 {
        0 => format!("   Compiling crate-{i} v0.{i}.0 (/home/dev/src/crate-{i})"),
        1 => format!("commit 3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b{i:04}"),
        2 => format!(
            "tests/test_tokens.py::test_max_tokens_{i} PASSED [ {}%]",
            i % 100
        ),
        3 => format!(
            "uuid=123e4567-e89b-12d3-a456-4266141{i:05} sha256:9f86d081884c7d659a2feaa0c55ad015"
        ),
        4 => format!("GET https://example.com/api/v1/items?page={i} 200 OK"),
        _ => format!("drwxr-xr-x 2 dev dev 4096 Dec  1 12:00 password_reset_{i}"),
    }
}

/// Every substring of at least 8 bytes of `secret` that is in `output`.
fn survivors<'a>(output: &[u8], secret: &'a str) -> Option<&'a str> {
    let bytes = secret.as_bytes();
    if bytes.len() < 8 {
        return None;
    }
    (0..=bytes.len() - 8)
        .map(|start| &secret[start..start + 8])
        .find(|window| output.windows(8).any(|seen| seen == window.as_bytes()))
}

fn assert_none_survives(output: &[u8], secrets: &[String]) {
    for secret in secrets {
        if let Some(part) = survivors(output, secret) {
            panic!(
                "'{part}' of the secret '{secret}' survived in:\n{}",
                String::from_utf8_lossy(output)
            );
        }
    }
}

/// A log of `filler` ordinary lines with every family's examples planted
/// at the head, in the middle and at the tail (three of each, and three PEM
/// blocks); the secrets and the expected counts.
fn generated_log(filler: usize) -> (Vec<u8>, Vec<String>, BTreeMap<String, u64>) {
    let mut log = String::new();
    let mut secrets = Vec::new();
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for (place, body) in ["head", "middle", "tail"].iter().enumerate() {
        if place > 0 {
            for i in 0..filler {
                log.push_str(&ordinary(i));
                log.push('\n');
            }
        }
        for example in examples(place, &format!("FAKE{body}")) {
            log.push_str(&example.line);
            log.push('\n');
            *counts.entry(example.kind.to_string()).or_default() += 1;
            secrets.push(example.secret);
        }
        let (block, body) = pem_block(place, 4);
        log.push_str(&format!("key = {block}\n"));
        *counts.entry("private-key".to_string()).or_default() += 1;
        secrets.extend(body);
    }
    (log.into_bytes(), secrets, counts)
}

fn json_of(args: &[&str], input: &[u8]) -> serde_json::Value {
    let output = toolcap()
        .args(args)
        .arg("--json")
        .write_stdin(input.to_vec())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).expect("one JSON report")
}

fn counts_of(report: &serde_json::Value) -> BTreeMap<String, u64> {
    serde_json::from_value(report["redacted"].clone()).expect("redacted: {kind: count}")
}

#[test]
fn every_family_at_head_middle_and_tail_is_redacted_and_counted() {
    let (log, secrets, counts) = generated_log(400);
    // Every family at least three times.
    assert!(counts.values().all(|&count| count >= 3), "{counts:?}");
    let report = json_of(&["--redact", "--max", "6k"], &log);
    assert_eq!(report["truncated"], true);
    let output = report["output"].as_str().unwrap().as_bytes().to_vec();
    assert_none_survives(&output, &secrets);
    assert_eq!(counts_of(&report), counts);
    // The header says the same, in the same order.
    let listed: Vec<String> = counts
        .iter()
        .map(|(kind, count)| format!("{kind} {count}"))
        .collect();
    let header = format!("; redacted: {}\n", listed.join(", "));
    let text = String::from_utf8(output).unwrap();
    let cleaned = text.lines().nth(2).unwrap();
    assert!(cleaned.starts_with("Cleaned: "), "{text}");
    assert!(format!("{cleaned}\n").ends_with(&header), "{cleaned}");
    // Where it fits, all of it, each redacted in place.
    let whole = toolcap()
        .args(["--redact", "--max", "1G"])
        .write_stdin(log.clone())
        .output()
        .unwrap();
    assert_none_survives(&whole.stdout, &secrets);
    let whole = String::from_utf8(whole.stdout).unwrap();
    assert!(
        whole.contains("AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-key]\n"),
        "{whole}"
    );
    assert!(
        whole.contains("origin\thttps://[REDACTED:url-credentials]@git.example.com/org/repo.git")
    );
    assert!(whole.contains("> Authorization: Bearer [REDACTED:bearer-token]\n"));
    assert!(whole.contains("\nkey = [REDACTED:private-key]\n"));
    assert!(whole.contains("\nDB_PASSWORD=[REDACTED:password]\n"));
    // Without --redact nothing changes and nothing is counted.
    let plain = json_of(&["--max", "1G"], &log);
    assert_eq!(plain["redacted"], serde_json::Value::Null);
    assert_eq!(plain["output"].as_str().unwrap().as_bytes(), &log[..]);
}

#[test]
fn the_cut_is_made_on_the_redacted_text_wherever_it_falls() {
    // A small log, cut at every budget around its secrets: the head and
    // the tail end inside a secret's line at one budget or another, and
    // the budget counts what is shown.
    let examples = examples(7, "FAKEcut");
    let mut log = String::new();
    for (i, example) in examples.iter().enumerate() {
        log.push_str(&format!("{}\n{}\n", ordinary(i), example.line));
    }
    let secrets: Vec<String> = examples
        .iter()
        .map(|example| example.secret.clone())
        .collect();
    for max in (200..1_400).step_by(37) {
        for cut in ["lines", "bytes"] {
            let max = max.to_string();
            let report = json_of(
                &["--redact", "--no-header", "--max", &max, "--cut", cut],
                log.as_bytes(),
            );
            let output = report["output"].as_str().unwrap().as_bytes();
            assert_none_survives(output, &secrets);
            let shown =
                report["head_bytes"].as_u64().unwrap() + report["tail_bytes"].as_u64().unwrap();
            assert!(
                shown <= max.parse().unwrap(),
                "--max {max}: {shown} bytes shown"
            );
            assert!(report["bytes"].as_u64().unwrap() < log.len() as u64);
        }
    }
}

/// Found in review: a secret in an escape sequence's payload (an OSC 8
/// link's URL, an OSC title, a DCS string) reached the output whole
/// without `--strip-ansi`; a terminal hides it, a model reads it. A
/// sequence inside a secret still does not cut it in two.
#[test]
fn a_secret_inside_an_escape_sequence_is_redacted_and_the_sequence_kept() {
    let token = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5";
    for (input, expected) in [
        (
            "\x1b]8;;https://alice:S3cr3tPw0rd@example.com/x\x1b\\link\x1b]8;;\x1b\\\n".to_string(),
            "\x1b]8;;https://[REDACTED:url-credentials]@example.com/x\x1b\\link\x1b]8;;\x1b\\\n"
                .to_string(),
        ),
        (
            format!("\x1b]0;{token}\x07title\n"),
            "\x1b]0;[REDACTED:github-token]\x07title\n".to_string(),
        ),
        (
            format!("x\x1bP{token}\x1b\\\n"),
            "x\x1bP[REDACTED:github-token]\x1b\\\n".to_string(),
        ),
        // A link inside a token does not cut it in two.
        (
            format!(
                "{}\x1b]8;;https://x.org\x1b\\{} tail\n",
                &token[..20],
                &token[20..]
            ),
            "[REDACTED:github-token] tail\n".to_string(),
        ),
    ] {
        assert_eq!(
            String::from_utf8_lossy(&stdout_of(&["--redact"], input.as_bytes())),
            expected
        );
    }
}

#[test]
fn a_kept_line_is_redacted_too() {
    let mut log = String::new();
    for i in 0..300 {
        log.push_str(&ordinary(i));
        log.push('\n');
        if i == 150 {
            log.push_str("error: login failed with password=FAKEkept0042 for admin\n");
        }
    }
    let report = json_of(
        &["--redact", "--max", "2k", "--keep", "^error"],
        log.as_bytes(),
    );
    let output = report["output"].as_str().unwrap();
    assert!(
        output.contains("\nerror: login failed with password=[REDACTED:password] for admin\n"),
        "{output}"
    );
    assert!(!output.contains("FAKEkept"), "{output}");
    // --keep matches the redacted line: a pattern on the secret finds
    // nothing.
    let report = json_of(
        &["--redact", "--max", "2k", "--keep", "FAKEkept"],
        log.as_bytes(),
    );
    assert!(!report["output"].as_str().unwrap().contains("login failed"));
}

#[test]
fn the_store_keeps_the_raw_bytes_and_show_redact_shows_them_redacted() {
    let dir = TempDir::new("redact-store");
    let store = dir.join("store");
    let store = store.to_str().unwrap();
    let (log, secrets, _) = generated_log(200);
    let report = json_of(&["--redact", "--max", "4k", "--spill-dir", store], &log);
    let id = report["spill_id"].as_str().expect("stored").to_string();
    let files = stored_outputs(Path::new(store));
    assert_eq!(files.len(), 1);
    assert_eq!(
        std::fs::read(&files[0]).unwrap(),
        log,
        "the store holds the raw bytes"
    );
    let shown = toolcap()
        .args(["--spill-dir", store, "--show", &id])
        .output()
        .unwrap();
    assert_eq!(shown.stdout, log);
    let redacted = toolcap()
        .args(["--spill-dir", store, "--show", &id, "--redact"])
        .output()
        .unwrap();
    assert!(redacted.status.success(), "{redacted:?}");
    let whole = toolcap()
        .args(["--redact", "--max", "1G"])
        .write_stdin(log.clone())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&redacted.stdout),
        String::from_utf8_lossy(&whole.stdout)
    );
    assert_none_survives(&redacted.stdout, &secrets);
    // Lines A:B are raw lines; a PEM block started before A is still
    // redacted (its lines stand for one), and lines after B are not read.
    let text = String::from_utf8(log.clone()).unwrap();
    let begin = 1 + text
        .lines()
        .position(|line| line.starts_with("key = -----BEGIN"))
        .unwrap();
    let range = format!("{}:{}", begin + 2, begin + 6);
    let part = toolcap()
        .args([
            "--spill-dir",
            store,
            "--show",
            &id,
            "--lines",
            &range,
            "--redact",
        ])
        .output()
        .unwrap();
    // The block's lines begin..begin+5, then the first filler line.
    assert_eq!(
        String::from_utf8_lossy(&part.stdout),
        format!("key = [REDACTED:private-key]\n{}\n", ordinary(0))
    );
}

/// `--list` and `--summary` print each stored command: with `--redact`
/// (or `--redact-pattern`), redacted, as its output would be; without,
/// as typed.
#[test]
fn list_and_summary_redact_the_stored_command() {
    let dir = TempDir::new("redact-list");
    let store = dir.join("store");
    let store = store.to_str().unwrap();
    let token = "ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfake4242";
    let script = format!("GITHUB_TOKEN={token} corp=c0ffee42; seq 100");
    let output = toolcap()
        .args([
            "--json",
            "--max",
            "20",
            "--spill-dir",
            store,
            "--",
            "sh",
            "-c",
        ])
        .arg(&script)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let id = report["spill_id"].as_str().expect("stored").to_string();
    let run = |args: &[&str]| {
        let output = toolcap()
            .args(["--spill-dir", store])
            .args(args)
            .output()
            .unwrap();
        assert!(output.status.success(), "{args:?}: {output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let summary = run(&["--summary", &id]);
    let listed = run(&["--list"]);
    assert!(
        summary.contains(&script) && listed.contains(&script),
        "{summary}{listed}"
    );
    let redacted = "GITHUB_TOKEN=[REDACTED:github-token] corp=c0ffee42; seq 100";
    let summary = run(&["--summary", &id, "--redact"]);
    assert!(summary.contains(redacted), "{summary}");
    assert!(summary.starts_with(&format!("[output {id}: ")), "{summary}");
    let listed = run(&["--list", "--redact"]);
    assert!(
        listed.contains(redacted) && listed.starts_with(&id),
        "{listed}"
    );
    let listed = run(&["--list", "--redact-pattern", "corp=(?P<secret>[0-9a-f]+)"]);
    assert!(
        listed.contains("GITHUB_TOKEN=[REDACTED:github-token] corp=[REDACTED:custom]"),
        "{listed}"
    );
    for listing in [&summary, &listed] {
        assert!(!listing.contains(token), "{listing}");
    }
}

#[test]
fn user_patterns_add_to_the_families() {
    let input = "build id corp-0123456789abcdef ok\nticket=CORP-1234 done\n";
    let output = toolcap()
        .args([
            "--redact-pattern",
            r"corp-[0-9a-f]{16}",
            "--redact-pattern",
            r"ticket=(?P<secret>CORP-\d+)",
        ])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "build id [REDACTED:custom] ok\nticket=[REDACTED:custom] done\n"
    );
    toolcap()
        .args(["--redact-pattern", "(unclosed"])
        .write_stdin("x\n")
        .assert()
        .code(2)
        .stderr("toolcap: invalid value '(unclosed' for '--redact-pattern': unclosed group\n");
}

#[test]
fn a_profile_can_ask_for_redaction() {
    let dir = TempDir::new("redact-profile");
    std::fs::create_dir_all(dir.join("toolcap")).unwrap();
    std::fs::write(
        dir.join("toolcap/profiles.toml"),
        "[profiles.deploy]\nmatch = [\"deploy\"]\n\
         args = [\"--redact\", \"--redact-pattern\", \"corp-[0-9]{6}\"]\n",
    )
    .unwrap();
    let output = toolcap()
        .env("XDG_CONFIG_HOME", dir.path())
        .env("HOME", dir.path())
        .args(["--profile", "deploy"])
        .write_stdin("TOKEN=FAKEprofile42 corp-123456\n")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "TOKEN=[REDACTED:token] [REDACTED:custom]\n"
    );
}

#[test]
fn escape_sequences_inside_a_secret_do_not_let_it_through() {
    let token = "ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfake0042";
    let coloured = format!("push {}\x1b[1m{}\x1b[0m done\n", &token[..10], &token[10..]);
    let output = toolcap()
        .arg("--redact")
        .write_stdin(coloured.clone())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "push [REDACTED:github-token]\x1b[0m done\n"
    );
    let output = toolcap()
        .args(["--redact", "--strip-ansi"])
        .write_stdin(coloured)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "push [REDACTED:github-token] done\n"
    );
}

/// Words of ordinary output, none a secret: ids, hashes, paths, numbers,
/// base64 that is no token, and key names that do not name a secret.
const BENIGN: &[&str] = &[
    "ok",
    "error:",
    "token",
    "tokens: 5",
    "max_tokens=100",
    "tokenizer=o200k",
    "secret_name: db",
    "password_file=/etc/app/pw",
    "Authorization: required",
    "git@github.com:org/repo.git",
    "https://example.com/a?b=1",
    "3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49",
    "123e4567-e89b-12d3-a456-426614174000",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "aGVsbG8gd29ybGQ=",
    "tests/test_auth.py::test_password_reset",
    "PASSED",
    "/usr/lib/python3/dist-packages",
    "-rw-r--r--",
    "token: String,",
    "let secret = self.secret;",
    "password: Optional[str] = None",
    "${{ secrets.TOKEN }}",
    "api_key=$API_KEY",
    "key=value",
    "sk-learn",
    "task-0042",
    "AKIA",
    "eyJ",
    "-----BEGIN CERTIFICATE-----",
];

fn benign_text() -> impl Strategy<Value = String> {
    let word = prop::sample::select(BENIGN);
    let separator = prop::sample::select(&[" ", "\n", ", ", "\t", "; "][..]);
    prop::collection::vec((word, separator), 0..60).prop_map(|parts| {
        parts
            .into_iter()
            .map(|(word, separator)| format!("{word}{separator}"))
            .collect()
    })
}

/// A random value of `length` base62 characters, with a digit.
fn random_body() -> impl Strategy<Value = String> {
    "[A-Za-z0-9]{12,40}".prop_map(|body| format!("{body}7"))
}

proptest! {
    // Each case starts two processes.
    #![proptest_config(ProptestConfig {
        cases: crate::common::cases(64),
        ..ProptestConfig::default()
    })]

    /// Planted among ordinary words, whatever the words around it and
    /// whatever the budget, no 8 bytes in a row of a secret survive.
    #[test]
    fn no_planted_secret_survives(
        parts in prop::collection::vec((benign_text(), 0..20usize, random_body()), 1..6),
        max in 100..4000u64,
    ) {
        let mut text = String::new();
        let mut secrets = Vec::new();
        for (n, (words, family, body)) in parts.into_iter().enumerate() {
            text.push_str(&words);
            let example = examples(n, &body).swap_remove(family % 19);
            text.push('\n');
            text.push_str(&example.line);
            text.push('\n');
            secrets.push(example.secret);
        }
        for args in [
            vec!["--redact", "--max", "1G"],
            vec!["--redact", "--clean", "--max", &max.to_string()],
        ] {
            let output = toolcap().args(&args).write_stdin(text.clone()).output().unwrap();
            prop_assert!(output.status.success());
            for secret in &secrets {
                prop_assert!(
                    survivors(&output.stdout, secret).is_none(),
                    "{secret} in {}",
                    String::from_utf8_lossy(&output.stdout)
                );
            }
        }
    }

    /// Text without secrets passes byte for byte.
    #[test]
    fn text_without_secrets_is_unchanged(text in benign_text()) {
        let output = toolcap()
            .args(["--redact", "--max", "1G"])
            .write_stdin(text.clone())
            .output()
            .unwrap();
        prop_assert_eq!(String::from_utf8_lossy(&output.stdout), text);
    }
}

/// Runs `program args` in `dir`; its stdout and stderr together, or `None`
/// (with a loud skip) when it cannot run.
fn real_output(
    what: &str,
    dir: &Path,
    program: &str,
    args: &[&str],
    env: &[(&str, &Path)],
) -> Option<Vec<u8>> {
    let mut command = crate::common::command(program);
    command.args(args).current_dir(dir).stdin(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    match command.output() {
        Ok(output) if !output.stdout.is_empty() || !output.stderr.is_empty() => {
            Some([output.stdout, output.stderr].concat())
        }
        Ok(_) => {
            skipped(what, &format!("'{program}' printed nothing"));
            None
        }
        Err(err) => {
            skipped(what, &format!("cannot run '{program}': {err}"));
            None
        }
    }
}

/// A skip said on stderr itself, which libtest does not capture.
fn skipped(what: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: real_output_of_this_machine_is_left_alone: {what}: {why}"
    );
}

fn assert_unchanged(what: &str, output: &[u8]) {
    let report = json_of(&["--redact", "--max", "1G", "--no-header"], output);
    let counts = counts_of(&report);
    assert!(counts.is_empty(), "{what}: redacted {counts:?}");
    assert!(
        report["output"].as_str().unwrap().as_bytes() == output,
        "{what}: changed"
    );
}

#[test]
fn real_output_of_this_machine_is_left_alone() {
    let dir = TempDir::new("redact-real");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // This repository's history up to before --redact, whose tests and
    // docs hold fake secrets on purpose.
    if require(Need::Git) && root.join(".git").exists() {
        let home = dir.join("home");
        std::fs::create_dir_all(&home).unwrap();
        let env = [
            ("HOME", home.as_path()),
            ("GIT_CONFIG_GLOBAL", Path::new("/dev/null")),
        ];
        if let Some(log) = real_output(
            "git log -p",
            root,
            "git",
            &["log", "-p", "-n", "300", "--no-color", "107ef56"],
            &env,
        ) {
            assert_unchanged("git log -p", &log);
        }
    }
    // cargo build of a small crate, offline.
    let krate = dir.join("krate");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"krate\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(
        krate.join("src/main.rs"),
        "fn main() { let token_count = 3; println!(\"{token_count}\"); }\n",
    )
    .unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target = dir.join("target");
    if let Some(build) = real_output(
        "cargo build",
        &krate,
        &cargo,
        &["build", "-v", "--offline", "--color", "never"],
        &[("CARGO_TARGET_DIR", target.as_path())],
    ) {
        assert_unchanged("cargo build", &build);
    }
    // pytest -v on a few tests, one failing.
    if require(Need::Pytest) {
        std::fs::write(
            dir.join("test_auth.py"),
            concat!(
                "def test_token_refresh():\n",
                "    assert True\n",
                "\n",
                "def test_password_reset():\n",
                "    secret_name = 'db'\n",
                "    assert secret_name == 'x'\n",
            ),
        )
        .unwrap();
        if let Some(run) = real_output(
            "pytest -v",
            dir.path(),
            "python3",
            &[
                "-m",
                "pytest",
                "-v",
                "-p",
                "no:cacheprovider",
                "test_auth.py",
            ],
            &[],
        ) {
            assert_unchanged("pytest -v", &run);
        }
    }
    // pip install -v of a wheel made here, into a directory of its own.
    let wheel = dir.join("fake_pkg-1.0-py3-none-any.whl");
    let made = crate::common::command("python3")
        .args([
            "-c",
            concat!(
                "import sys, zipfile\n",
                "with zipfile.ZipFile(sys.argv[1], 'w') as z:\n",
                "    z.writestr('fake_pkg/__init__.py', 'TOKEN_LIMIT = 5\\n')\n",
                "    z.writestr('fake_pkg-1.0.dist-info/METADATA', ",
                "'Metadata-Version: 2.1\\nName: fake-pkg\\nVersion: 1.0\\n')\n",
                "    z.writestr('fake_pkg-1.0.dist-info/WHEEL', ",
                "'Wheel-Version: 1.0\\nGenerator: test\\n",
                "Root-Is-Purelib: true\\nTag: py3-none-any\\n')\n",
                "    z.writestr('fake_pkg-1.0.dist-info/RECORD', '')\n",
            ),
            wheel.to_str().unwrap(),
        ])
        .status();
    if made.is_ok_and(|status| status.success()) {
        let into = dir.join("site");
        if let Some(pip) = real_output(
            "pip install -v",
            dir.path(),
            "python3",
            &[
                "-m",
                "pip",
                "install",
                "-v",
                "--no-index",
                "--no-deps",
                "--no-cache-dir",
                "--disable-pip-version-check",
                "--target",
                into.to_str().unwrap(),
                wheel.to_str().unwrap(),
            ],
            &[("HOME", dir.path())],
        ) {
            assert_unchanged("pip install -v", &pip);
        }
    } else {
        skipped("pip install -v", "python3 cannot write a wheel");
    }
    // ls -lR and find over this repository's sources and the system's
    // Python.
    for (what, program, args) in [
        (
            "ls -lR",
            "ls",
            vec![
                "-lR".to_string(),
                root.join("src").to_str().unwrap().to_string(),
                "/usr/lib/python3".into(),
            ],
        ),
        (
            "find",
            "find",
            vec![
                root.to_str().unwrap().to_string(),
                "-path".into(),
                "*/target".into(),
                "-prune".into(),
                "-o".into(),
                "-print".into(),
            ],
        ),
        (
            "find /usr/share",
            "find",
            vec!["/usr/share/doc".into(), "-maxdepth".into(), "3".into()],
        ),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        if let Some(listing) = real_output(what, dir.path(), program, &args, &[]) {
            assert_unchanged(what, &listing);
        }
    }
}
