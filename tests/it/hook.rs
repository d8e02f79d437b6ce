//! The Claude Code hook (issue 24, item 5): `--hook claude-code`'s JSON in
//! and out for real command lines, wrapped and left alone; the rewritten
//! command run through `sh -c` against toolcap run directly; and
//! `--install-hook` / `--uninstall-hook` on settings files with other hooks.
//! Every test has a HOME, XDG_CONFIG_HOME and XDG_CACHE_HOME of its own.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{BIN, Hermetic, TempDir, toolcap};

/// The options of a wrapped command by default, from the issue.
const DEFAULT: &str = "--max 16k --clean --keep-errors --profile auto --store --plain-env --redact";

/// toolcap with a home of its own under `dir`.
fn hermetic(dir: &TempDir) -> Hermetic<assert_cmd::Command> {
    let mut command = toolcap();
    command
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .current_dir(dir.path());
    command
}

/// The PreToolUse event of a Bash call of `command`.
fn event(command: &str) -> String {
    json!({
        "session_id": "abc123",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Run it", "timeout": 120000},
        "tool_use_id": "toolu_01",
    })
    .to_string()
}

/// `word` quoted for a POSIX shell as the guide says: in single quotes,
/// each `'` written `'\''`.
fn single_quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// What the hook prints for a wrapped `command` with `options`.
fn wrapped_answer(command: &str, options: &str) -> String {
    answer_deciding(command, options, "allow")
}

/// The same, with the permission decision `decision`.
fn answer_deciding(command: &str, options: &str, decision: &str) -> String {
    let rewritten = format!("toolcap {options} -c {}", single_quoted(command));
    let answer = json!({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": "toolcap caps the output; toolcap --show ID prints what it cut",
        "updatedInput": {"command": rewritten, "description": "Run it", "timeout": 120000},
    }});
    format!("{answer}\n")
}

const WRAPPED: &[&str] = &[
    "cargo test",
    "cargo build --release 2>&1 | tail -n 50",
    "npm install && npm test",
    "pytest -x -q tests/",
    "git log --oneline -20",
    "grep -rn \"TODO\" src/ | head -20",
    "ls -la",
    "python3 -c 'print(\"hi\")'",
    "make -j8 || echo failed",
    "find . -name '*.rs' | xargs wc -l",
    "echo \"$HOME\" && env | sort",
    "(cd sub && make)",
    "FOO=1 ./run.sh",
    "cat <<'EOF' > notes.txt\ncd /\nexport X=1\nEOF",
    "for f in *.py; do python3 \"$f\"; done",
    "if [ -f Makefile ]; then make; fi",
    "docker ps -a",
    "echo 'it'\"'\"'s'",
    "kubectl get pods -n default",
    "echo \"$(cd /tmp && pwd)\"",
    "git diff HEAD~1 -- src/ > /tmp/d.patch 2>/dev/null; echo $?",
    "RUST_BACKTRACE=1 cargo test -- --nocapture",
];

const LEFT_ALONE: &[&str] = &[
    "cd src && cargo test",
    "export RUST_LOG=debug",
    "source venv/bin/activate && pytest",
    ". ./env.sh",
    "alias ll='ls -la'",
    "unset FOO",
    "set -e",
    "pushd /tmp",
    "popd",
    "exec bash",
    "FOO=bar",
    "toolcap --list",
    "make test 2>&1 | toolcap --max 10k",
    "npm run dev &",
    "echo 'unterminated",
    "[[ -f x ]] && echo yes",
    "cargo build; cd target",
    "time cargo build",
    "echo {1..5}",
    "diff <(ls a) <(ls b)",
    "f() { echo hi; }",
    "case $x in a) echo a;; esac",
    "$EDITOR file.txt",
    "cat <<EOF\nno end",
    "ls\ncd /",
    "if true; then export X=1; fi",
    "",
];

#[test]
fn the_hook_wraps_commands_and_leaves_alone_those_that_change_the_shell() {
    let dir = TempDir::new("hook-table");
    assert!(WRAPPED.len() + LEFT_ALONE.len() >= 30);
    for command in WRAPPED {
        hermetic(&dir)
            .arg("--hook")
            .arg("claude-code")
            .write_stdin(event(command))
            .assert()
            .success()
            .stdout(wrapped_answer(command, DEFAULT))
            .stderr("");
    }
    for command in LEFT_ALONE {
        let out = hermetic(&dir)
            .args(["--hook", "claude-code"])
            .write_stdin(event(command))
            .output()
            .expect("hook");
        assert_eq!(
            (
                out.status.code(),
                out.stdout.as_slice(),
                out.stderr.as_slice()
            ),
            (Some(0), &b""[..], &b""[..]),
            "{command:?} should be left alone"
        );
    }
}

#[test]
fn other_tools_background_calls_and_other_events_are_left_alone() {
    let dir = TempDir::new("hook-others");
    let inputs = [
        json!({"hook_event_name": "PreToolUse", "tool_name": "Read",
               "tool_input": {"file_path": "/x"}}),
        json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": "npm run dev", "run_in_background": true}}),
        json!({"hook_event_name": "PostToolUse", "tool_name": "Bash",
               "tool_input": {"command": "ls"}}),
        json!({"hook_event_name": "PreToolUse", "tool_name": "Bash"}),
        json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": 3}}),
    ];
    for input in inputs {
        hermetic(&dir)
            .args(["--hook", "claude-code"])
            .write_stdin(input.to_string())
            .assert()
            .code(0)
            .stdout("")
            .stderr("");
    }
}

#[test]
fn bad_input_never_blocks_the_agent() {
    let dir = TempDir::new("hook-bad");
    for (input, message) in [
        (
            "not json",
            "toolcap: hook: the hook's input is not JSON: expected ident at line 1 column 2; the \
             command runs as it was\n",
        ),
        (
            "[1, 2]",
            "toolcap: hook: the hook's input is not a JSON object; the command runs as it was\n",
        ),
        (
            "",
            "toolcap: hook: the hook's input is not JSON: EOF while parsing a value \
             at line 1 column 0; the command runs as it was\n",
        ),
    ] {
        hermetic(&dir)
            .args(["--hook", "claude-code"])
            .write_stdin(input)
            .assert()
            .code(0)
            .stdout("")
            .stderr(message);
    }
    // Bad options: said once, and nothing is rewritten (exit 0, not 2,
    // which Claude Code reads as "block").
    hermetic(&dir)
        .env("TOOLCAP_HOOK_OPTIONS", "--max ten")
        .args(["--hook", "claude-code"])
        .write_stdin(event("ls"))
        .assert()
        .code(0)
        .stdout("")
        .stderr(
            "toolcap: hook: invalid hook options '--max ten': \
             invalid value 'ten' for '--max <SIZE>': \
             expected digits with an optional suffix b, k, kb, m, mb, g, gb \
             (powers of 1000) or ki, kib, mi, mib, gi, gib (powers of 1024), e.g. 10k or 4Mi; the \
             command runs as it was\n",
        );
    // A usage error of the hook's own command line: exit 1, never 2.
    hermetic(&dir)
        .args(["--hook", "claude-code", "--max", "5k"])
        .write_stdin(event("ls"))
        .assert()
        .code(1)
        .stdout("");
}

#[test]
fn options_come_from_the_environment_then_profiles_toml() {
    let dir = TempDir::new("hook-options");
    std::fs::create_dir_all(dir.join("config/toolcap")).expect("config dir");
    std::fs::write(
        dir.join("config/toolcap/profiles.toml"),
        "[hook]\nargs = [\"--max\", \"4k\", \"--keep\", \"FAILED|panicked\"]\n",
    )
    .expect("profiles.toml");
    hermetic(&dir)
        .args(["--hook", "claude-code"])
        .write_stdin(event("cargo test"))
        .assert()
        .success()
        .stdout(wrapped_answer(
            "cargo test",
            "--max 4k --keep 'FAILED|panicked'",
        ));
    hermetic(&dir)
        .env(
            "TOOLCAP_HOOK_OPTIONS",
            "--tokens 2000 --marker '[... {omitted_bytes} cut ...]'",
        )
        .args(["--hook", "claude-code"])
        .write_stdin(event("cargo test"))
        .assert()
        .success()
        .stdout(wrapped_answer(
            "cargo test",
            "--tokens 2000 --marker '[... {omitted_bytes} cut ...]'",
        ));
    // decision = "ask": Claude Code shows the rewritten command and asks.
    std::fs::write(
        dir.join("config/toolcap/profiles.toml"),
        "[hook]\ndecision = \"ask\"\n",
    )
    .expect("profiles.toml");
    hermetic(&dir)
        .args(["--hook", "claude-code"])
        .write_stdin(event("cargo test"))
        .assert()
        .success()
        .stdout(answer_deciding("cargo test", DEFAULT, "ask"));
    // A profiles.toml the hook cannot read: said, and nothing rewritten.
    std::fs::write(
        dir.join("config/toolcap/profiles.toml"),
        "[hook]\ndecision = \"yes\"\n",
    )
    .expect("profiles.toml");
    hermetic(&dir)
        .args(["--hook", "claude-code"])
        .write_stdin(event("cargo test"))
        .assert()
        .code(0)
        .stdout("")
        .stderr(format!(
            "toolcap: hook: {}:2: key 'hook.decision': expected \"allow\" or \"ask\"; \
             the command runs as it was\n",
            dir.join("config/toolcap/profiles.toml").display()
        ));
}

/// The command the hook rewrites `command` into.
fn rewritten(dir: &TempDir, command: &str) -> String {
    let out = hermetic(dir)
        .args(["--hook", "claude-code"])
        .write_stdin(event(command))
        .output()
        .expect("hook");
    let answer: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{command:?}: {out:?}"));
    answer["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .expect("a command")
        .to_string()
}

/// Runs `line` with `sh -c` where `toolcap` is the binary under test.
fn sh(dir: &TempDir, line: &str) -> std::process::Output {
    let bin_dir = Path::new(BIN).parent().expect("the binary's directory");
    crate::common::command("/bin/sh")
        .arg("-c")
        .arg(line)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
        .env("HOME", dir.path())
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("sh")
}

#[test]
fn the_rewritten_command_runs_the_same_bytes_and_keeps_the_exit_status() {
    let dir = TempDir::new("hook-run");
    for (command, expected, status) in [
        (
            "printf '%s\\n' \"it's\" 'say \"hi\"'; exit 3",
            "it's\nsay \"hi\"\n[exit status: 3]\n",
            3,
        ),
        (
            "printf '%s %s\\n' \"\\$X\" '$X'; echo `echo tick` \"${UNSET:-dflt}\"",
            "$X $X\ntick dflt\n",
            0,
        ),
        (
            "echo one\necho two\nfalse",
            "one\ntwo\n[exit status: 1]\n",
            1,
        ),
        (
            "cat <<'EOF'\n$HOME 'q' \"d\" \\n\nEOF\ncat <<EOF\nx${UNSET:-y}z\nEOF",
            "$HOME 'q' \"d\" \\n\nxyz\n",
            0,
        ),
        ("(exit 7)", "[exit status: 7]\n", 7),
        ("echo \"a\tb\" | tr '\\t' _", "a_b\n", 0),
    ] {
        let line = rewritten(&dir, command);
        assert!(line.starts_with("toolcap --max 16k "), "{line}");
        let out = sh(&dir, &line);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            expected,
            "{command:?} as {line:?}"
        );
        assert_eq!(out.status.code(), Some(status), "{command:?}");
        // The command alone, as the agent's shell would have run it.
        let direct = sh(&dir, command);
        assert_eq!(direct.status.code(), Some(status), "{command:?}");
        assert_eq!(
            String::from_utf8_lossy(&direct.stdout),
            expected.replace(&format!("[exit status: {status}]\n"), "")
        );
    }
}

#[test]
fn a_long_output_is_capped_and_the_rest_is_in_the_store() {
    let dir = TempDir::new("hook-long");
    // Lines that --clean's --fold does not take for similar ones.
    let words = [
        "apple", "grape", "lemon", "mango", "olive", "peach", "plum", "kiwi",
    ];
    let log: String = (1..=20_000)
        .map(|i| format!("line {i} {}\n", words[i % words.len()]))
        .collect();
    std::fs::write(dir.join("log.txt"), &log).expect("log");
    let line = rewritten(&dir, "cat log.txt; exit 2");
    let out = sh(&dir, &line);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(text.starts_with("Warning: truncated output"), "{text}");
    assert!(
        text.ends_with("line 20000 apple\n[exit status: 2]\n"),
        "{text}"
    );
    assert!(text.len() < 17_000, "{}", text.len());
    // The marker names the stored file, ID.log; `toolcap --show ID` prints it.
    let path = text
        .split("full output in ")
        .nth(1)
        .expect("a marker naming the store");
    let file = path.split(" ...]").next().expect("a path");
    let id = Path::new(file)
        .file_stem()
        .and_then(|id| id.to_str())
        .expect("an id");
    let all = sh(&dir, &format!("toolcap --show {id}"));
    assert_eq!(String::from_utf8_lossy(&all.stdout), log);
}

/// A settings file as people have them: other settings, and hooks of
/// their own, PreToolUse Bash ones included. (Its two long lines are
/// split in two pieces each, to stay within 100 columns here.)
const SETTINGS: &str = concat!(
    r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "#,
    r#""command": "~/.claude/guard.sh", "timeout": 5}]},
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "check-path"}]}
    ],
    "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "#,
    r#""command": "prettier --write"}]}]
  },
  "env": {"Z": "1", "A": "2"}
}
"#
);

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("settings")).expect("JSON")
}

#[test]
fn install_then_uninstall_gives_back_the_settings_and_a_second_install_changes_nothing() {
    let dir = TempDir::new("hook-install");
    let settings = dir.join("settings.json");
    std::fs::write(&settings, SETTINGS).expect("settings");
    let path = settings.display().to_string();
    hermetic(&dir)
        .args(["--install-hook", "claude-code", "--settings", &path])
        .assert()
        .success()
        .stdout(format!(
            "added the toolcap hook to '{path}' (the previous file is '{path}.bak')\n"
        ));
    assert_eq!(
        std::fs::read_to_string(dir.join("settings.json.bak")).expect("backup"),
        SETTINGS
    );
    let installed = read_json(&settings);
    let mut expected = read_json(&dir.join("settings.json.bak"));
    expected["hooks"]["PreToolUse"]
        .as_array_mut()
        .expect("array")
        .push(json!({"matcher": "Bash",
                     "hooks": [{"type": "command", "command": "toolcap --hook claude-code"}]}));
    assert_eq!(installed, expected);
    // The keys keep their order.
    let text = std::fs::read_to_string(&settings).expect("settings");
    let order: Vec<usize> = [
        "\"model\"",
        "\"permissions\"",
        "\"hooks\"",
        "\"env\"",
        "\"Z\"",
        "\"A\"",
    ]
    .iter()
    .map(|key| text.find(key).expect("key"))
    .collect();
    assert!(order.windows(2).all(|pair| pair[0] < pair[1]), "{text}");
    let before = std::fs::read(&settings).expect("settings");
    hermetic(&dir)
        .args(["--install-hook", "claude-code", "--settings", &path])
        .assert()
        .success()
        .stdout(format!("the toolcap hook is already in '{path}'\n"));
    assert_eq!(std::fs::read(&settings).expect("settings"), before);
    hermetic(&dir)
        .args(["--uninstall-hook", "claude-code", "--settings", &path])
        .assert()
        .success();
    assert_eq!(
        read_json(&settings),
        serde_json::from_str::<Value>(SETTINGS).expect("JSON")
    );
    hermetic(&dir)
        .args(["--uninstall-hook", "claude-code", "--settings", &path])
        .assert()
        .success()
        .stdout(format!("the toolcap hook is not in '{path}'\n"));
}

#[test]
fn install_finds_the_user_and_project_settings_and_follows_a_symlink() {
    let dir = TempDir::new("hook-places");
    // The user's: $HOME/.claude/settings.json, made with its directory.
    hermetic(&dir)
        .args(["--install-hook", "claude-code"])
        .assert()
        .success();
    let user = dir.join(".claude/settings.json");
    assert_eq!(
        read_json(&user),
        json!({"hooks": {"PreToolUse": [{
            "matcher": "Bash",
            "hooks": [{"type": "command", "command": "toolcap --hook claude-code"}]
        }]}})
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&user)
            .expect("settings")
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
    hermetic(&dir)
        .args(["--uninstall-hook", "claude-code"])
        .assert()
        .success();
    assert_eq!(read_json(&user), json!({}));
    // The project's, in the current directory; kept a symlink.
    let project = dir.join("project");
    std::fs::create_dir_all(project.join(".claude")).expect("project");
    std::fs::write(dir.join("real.json"), "{\"a\": 1}").expect("real");
    std::os::unix::fs::symlink(dir.join("real.json"), project.join(".claude/settings.json"))
        .expect("link");
    hermetic(&dir)
        .current_dir(&project)
        .args(["--install-hook", "claude-code", "--project"])
        .assert()
        .success();
    assert!(
        std::fs::symlink_metadata(project.join(".claude/settings.json"))
            .expect("link")
            .file_type()
            .is_symlink()
    );
    assert_eq!(read_json(&dir.join("real.json"))["a"], 1);
    assert!(read_json(&dir.join("real.json"))["hooks"]["PreToolUse"].is_array());
}

#[test]
fn settings_that_are_not_json_are_left_as_they_are() {
    let dir = TempDir::new("hook-broken");
    let settings = dir.join("settings.json");
    std::fs::write(&settings, "{\"a\": 1,}").expect("settings");
    let path = settings.display().to_string();
    hermetic(&dir)
        .args(["--install-hook", "claude-code", "--settings", &path])
        .assert()
        .code(1)
        .stdout("")
        .stderr(format!(
            "toolcap: '{path}' is not JSON (trailing comma at line 1 column 9); \
             it was left as it is\n"
        ));
    assert_eq!(
        std::fs::read_to_string(&settings).expect("settings"),
        "{\"a\": 1,}"
    );
    std::fs::write(&settings, "{\"hooks\": {\"PreToolUse\": {}}}").expect("settings");
    hermetic(&dir)
        .args(["--install-hook", "claude-code", "--settings", &path])
        .assert()
        .code(1)
        .stderr(format!(
            "toolcap: '{path}' has a 'hooks.PreToolUse' that is not an array, as Claude Code's \
             settings are; it was left as it is\n"
        ));
    hermetic(&dir)
        .args([
            "--install-hook",
            "claude-code",
            "--settings",
            &path,
            "--project",
        ])
        .assert()
        .code(2);
}
