//! The Claude Code hook (issue 24): `toolcap --hook claude-code` turns the
//! JSON of a `PreToolUse` event for the `Bash` tool into the JSON that runs
//! the same command through toolcap (`hookSpecificOutput.updatedInput`),
//! and [`settings`] installs and removes the hook's entry. Reads and writes
//! only what it is handed; the command line (src/cli) reads stdin, the
//! environment and profiles.toml, and owns the exit status.

pub(crate) mod settings;
mod shell;

use std::path::PathBuf;

use serde_json::{Value, json};

/// What the command line asks of the hook.
#[derive(Debug)]
pub(crate) enum Command {
    /// `--hook claude-code`: rewrite the event on stdin so (or say why the
    /// options are refused, and rewrite nothing).
    Rewrite(Result<Rewrite, String>),
    /// `--install-hook claude-code`, into this settings file.
    Install(PathBuf),
    /// `--uninstall-hook claude-code`, from this settings file.
    Uninstall(PathBuf),
}

/// The options a wrapped command runs with when neither
/// `TOOLCAP_HOOK_OPTIONS` nor a `[hook]` table says otherwise: the agent
/// recipe (GUIDE.md, "Recipe: an agent harness's bash tool"), with a store so
/// that `toolcap --show ID` recovers what was cut.
pub(crate) const DEFAULT_OPTIONS: &[&str] = &[
    "--max",
    "16k",
    "--clean",
    "--keep-errors",
    "--profile",
    "auto",
    "--store",
    "--plain-env",
    "--redact",
];

/// How the hook rewrites a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rewrite {
    /// The words put before `-c`.
    pub(crate) options: Vec<String>,
    /// The permission decision that goes with the new input.
    pub(crate) decision: Decision,
}

/// The `permissionDecision` the hook answers with: Claude Code applies an
/// `updatedInput` only with one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Run it without asking (the default: a prompt for every command
    /// would make the hook unusable).
    Allow,
    /// Show the user the rewritten command and ask (`decision = "ask"` in
    /// profiles.toml's `[hook]`).
    Ask,
}

impl Decision {
    fn name(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Ask => "ask",
        }
    }
}

/// What Claude Code is told about the rewrite (its debug log shows it).
const REASON: &str = "toolcap caps the output; toolcap --show ID prints what it cut";

/// The hook's answer to the event `input`: the JSON to print, or `None` to
/// leave the call alone (print nothing), the command rewritten as `how`
/// says. An error when `input` is not a JSON object.
pub(crate) fn rewrite(input: &[u8], how: &Rewrite) -> Result<Option<String>, String> {
    let event: Value = serde_json::from_slice(input)
        .map_err(|err| format!("the hook's input is not JSON: {err}"))?;
    let Some(event) = event.as_object() else {
        return Err("the hook's input is not a JSON object".into());
    };
    let field = |name: &str| event.get(name).and_then(Value::as_str);
    if field("tool_name") != Some("Bash")
        || field("hook_event_name").is_some_and(|name| name != "PreToolUse")
    {
        return Ok(None);
    }
    let Some(tool_input) = event.get("tool_input").and_then(Value::as_object) else {
        return Ok(None);
    };
    let Some(command) = tool_input.get("command").and_then(Value::as_str) else {
        return Ok(None);
    };
    // A background job's output is read later, by another tool.
    if tool_input.get("run_in_background").and_then(Value::as_bool) == Some(true) {
        return Ok(None);
    }
    if shell::judge(command) != shell::Verdict::Wrap {
        return Ok(None);
    }
    // updatedInput replaces the whole input: the other fields go along.
    let mut updated = tool_input.clone();
    updated.insert(
        "command".into(),
        Value::String(wrapped(command, &how.options)),
    );
    let answer = json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": how.decision.name(),
            "permissionDecisionReason": REASON,
            "updatedInput": updated,
        }
    });
    Ok(Some(answer.to_string()))
}

/// `command` run through toolcap with `options`: `toolcap OPTIONS -c
/// 'COMMAND'`, every word quoted for a POSIX shell so that the shell
/// hands toolcap exactly these bytes.
fn wrapped(command: &str, options: &[String]) -> String {
    let mut line = String::from("toolcap");
    for word in options.iter().map(String::as_str).chain(["-c", command]) {
        line.push(' ');
        line.push_str(&quoted(word));
    }
    line
}

/// `word` as one POSIX shell word: as it is when nothing in it is special,
/// else in single quotes, inside which every byte is literal (newlines
/// too) but `'`, written `'\''`.
fn quoted(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `TOOLCAP_HOOK_OPTIONS` as words: split at blanks, with '...' and "..."
/// quoting and `\` escaping as in a shell, and nothing expanded.
pub(crate) fn split_options(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    let unclosed = || format!("invalid TOOLCAP_HOOK_OPTIONS '{text}': a quote is not closed");
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => words.extend(word.take()),
            '\'' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => current.push(c),
                        None => return Err(unclosed()),
                    }
                }
            }
            '"' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => current.extend(chars.next()),
                        Some(c) => current.push(c),
                        None => return Err(unclosed()),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_for_a_posix_shell() {
        assert_eq!(quoted("--max"), "--max");
        assert_eq!(quoted("a b"), "'a b'");
        assert_eq!(quoted("it's $HOME\n"), "'it'\\''s $HOME\n'");
        assert_eq!(quoted(""), "''");
        let options: Vec<String> = DEFAULT_OPTIONS.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            wrapped("make test", &options),
            "toolcap --max 16k --clean --keep-errors --profile auto --store --plain-env --redact \
             -c 'make test'"
        );
    }

    #[test]
    fn options_split_as_a_shell_would_without_expanding() {
        assert_eq!(
            split_options(
                " --max 8k  --keep 'FAILED|panicked' \
                 --marker \"[... {omitted_bytes} ...]\" a\\ b $HOME"
            )
            .unwrap(),
            [
                "--max",
                "8k",
                "--keep",
                "FAILED|panicked",
                "--marker",
                "[... {omitted_bytes} ...]",
                "a b",
                "$HOME"
            ]
        );
        assert_eq!(split_options("").unwrap(), Vec::<String>::new());
        assert_eq!(split_options("''").unwrap(), [""]);
        assert!(split_options("--keep 'x").is_err());
    }
}
