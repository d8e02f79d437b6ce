//! `--install-hook claude-code` and `--uninstall-hook claude-code`: the
//! hook's entry in a Claude Code settings file (`hooks.PreToolUse`, matcher
//! `Bash`), added or removed with every other setting kept as it was, in
//! its order. The file is replaced atomically (a temporary file in its
//! directory, renamed over it) after a copy of it is left as
//! `settings.json.bak`; a symlinked settings file is written through the
//! link, so dotfile managers keep working.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// The command the entry runs: found on PATH, as `toolcap` itself is by the
/// commands the hook rewrites.
pub(crate) const HOOK_COMMAND: &str = "toolcap --hook claude-code";

/// A JSON value whose objects keep the order of their keys (serde_json's
/// `Value` sorts them, unless a feature that would also reorder toolcap's
/// own `--json` report is turned on).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Object(fields) => fields
                .iter_mut()
                .find(|(name, _)| name == key)
                .map(|(_, value)| value),
            _ => None,
        }
    }

    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields
                .iter()
                .find(|(name, _)| name == key)
                .map(|(_, value)| value),
            _ => None,
        }
    }

    fn remove(&mut self, key: &str) {
        if let Json::Object(fields) = self {
            fields.retain(|(name, _)| name != key);
        }
    }

    /// The object's `key`, added empty (of the kind `empty` is) if
    /// missing; `None` when this is not an object.
    fn entry(&mut self, key: &str, empty: Json) -> Option<&mut Json> {
        let Json::Object(fields) = self else {
            return None;
        };
        let index = match fields.iter().position(|(name, _)| name == key) {
            Some(index) => index,
            None => {
                fields.push((key.to_string(), empty));
                fields.len() - 1
            }
        };
        Some(&mut fields[index].1)
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        struct JsonVisitor;
        impl<'de> Visitor<'de> for JsonVisitor {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E: de::Error>(self, value: bool) -> Result<Json, E> {
                Ok(Json::Bool(value))
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Json, E> {
                Ok(Json::Number(value.into()))
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Json, E> {
                Ok(Json::Number(value.into()))
            }
            fn visit_f64<E: de::Error>(self, value: f64) -> Result<Json, E> {
                serde_json::Number::from_f64(value)
                    .map(Json::Number)
                    .ok_or_else(|| E::custom("a number JSON cannot hold"))
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<Json, E> {
                Ok(Json::String(value.to_string()))
            }
            fn visit_string<E: de::Error>(self, value: String) -> Result<Json, E> {
                Ok(Json::String(value))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Json::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut fields: Vec<(String, Json)> = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, Json>()? {
                    // A repeated key: the last one wins, as in JavaScript.
                    fields.retain(|(name, _)| *name != key);
                    fields.push((key, value));
                }
                Ok(Json::Object(fields))
            }
        }
        deserializer.deserialize_any(JsonVisitor)
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(value) => serializer.serialize_bool(*value),
            Json::Number(number) => number.serialize(serializer),
            Json::String(text) => serializer.serialize_str(text),
            Json::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(fields) => {
                let mut map = serializer.serialize_map(Some(fields.len()))?;
                for (key, value) in fields {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

/// Whether `hook` (one object of an entry's `hooks`) is ours: a command
/// hook running `toolcap --hook claude-code`, toolcap named by any path.
fn is_ours(hook: &Json) -> bool {
    let Some(Json::String(command)) = hook.get("command") else {
        return false;
    };
    let words: Vec<&str> = command.split_whitespace().collect();
    matches!(words.as_slice(), [program, "--hook", "claude-code"]
        if *program == "toolcap" || program.ends_with("/toolcap"))
}

/// The entry `--install-hook` adds.
fn our_entry() -> Json {
    Json::Object(vec![
        ("matcher".into(), Json::String("Bash".into())),
        (
            "hooks".into(),
            Json::Array(vec![Json::Object(vec![
                ("type".into(), Json::String("command".into())),
                ("command".into(), Json::String(HOOK_COMMAND.into())),
            ])]),
        ),
    ])
}

/// What an install or uninstall did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// The file was written; the original, if there was one, is at this
    /// backup.
    Written { backup: Option<PathBuf> },
    /// Nothing to do: the entry was already there (install) or was not
    /// (uninstall).
    Unchanged,
}

/// `settings` with the hook's entry added, or `None` when it is there.
fn installed(mut settings: Json) -> Result<Option<Json>, String> {
    let Some(entries) = pre_tool_use(&mut settings, true)? else {
        return Ok(None);
    };
    let present = entries.iter().any(|entry| match entry.get("hooks") {
        Some(Json::Array(hooks)) => hooks.iter().any(is_ours),
        _ => false,
    });
    if present {
        return Ok(None);
    }
    entries.push(our_entry());
    Ok(Some(settings))
}

/// `settings` without the hook's entries, or `None` when it has none. An
/// entry left with no hooks goes, and so do `PreToolUse` and `hooks` when
/// that leaves them empty (as they were before an install made them).
fn uninstalled(mut settings: Json) -> Result<Option<Json>, String> {
    let Some(entries) = pre_tool_use(&mut settings, false)? else {
        return Ok(None);
    };
    let mut removed = false;
    entries.retain_mut(|entry| {
        let Some(Json::Array(hooks)) = entry.get_mut("hooks") else {
            return true;
        };
        let before = hooks.len();
        hooks.retain(|hook| !is_ours(hook));
        if hooks.len() == before {
            return true;
        }
        removed = true;
        !hooks.is_empty()
    });
    if !removed {
        return Ok(None);
    }
    if entries.is_empty()
        && let Some(hooks) = settings.get_mut("hooks")
    {
        hooks.remove("PreToolUse");
        if matches!(hooks, Json::Object(fields) if fields.is_empty()) {
            settings.remove("hooks");
        }
    }
    Ok(Some(settings))
}

/// The entries of `settings.hooks.PreToolUse`, made (an empty array in an
/// empty object) when `make` says so; an error naming the key that is not
/// of the kind Claude Code reads.
fn pre_tool_use(settings: &mut Json, make: bool) -> Result<Option<&mut Vec<Json>>, String> {
    if !matches!(settings, Json::Object(_)) {
        return Err("is not a JSON object".into());
    }
    if !make && settings.get("hooks").is_none() {
        return Ok(None);
    }
    let Some(hooks) = settings.entry("hooks", Json::Object(Vec::new())) else {
        return Ok(None);
    };
    if !make && hooks.get("PreToolUse").is_none() {
        return Ok(None);
    }
    match hooks.entry("PreToolUse", Json::Array(Vec::new())) {
        None => Err("has a 'hooks' that is not an object".into()),
        Some(Json::Array(entries)) => Ok(Some(entries)),
        Some(_) => Err("has a 'hooks.PreToolUse' that is not an array".into()),
    }
}

/// Adds the hook's entry to the settings file at `path` (made, with its
/// directory, if missing).
pub(crate) fn install(path: &Path) -> Result<Change, String> {
    edit(path, installed)
}

/// Removes the hook's entries from the settings file at `path`.
pub(crate) fn uninstall(path: &Path) -> Result<Change, String> {
    edit(path, uninstalled)
}

fn edit(path: &Path, change: fn(Json) -> Result<Option<Json>, String>) -> Result<Change, String> {
    // Through a symlink to the file it names, so that the link stays.
    let path = match fs::canonicalize(path) {
        Ok(real) => real,
        Err(err) if err.kind() == io::ErrorKind::NotFound => path.to_path_buf(),
        Err(err) => return Err(format!("cannot read '{}': {err}", path.display())),
    };
    let original = match fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(err) if err.kind() == io::ErrorKind::NotFound => None,
        Err(err) => return Err(format!("cannot read '{}': {err}", path.display())),
    };
    let settings = match &original {
        // An empty file is an empty object, as Claude Code reads it.
        Some(bytes) if !bytes.iter().all(u8::is_ascii_whitespace) => {
            serde_json::from_slice::<Json>(bytes).map_err(|err| {
                format!(
                    "'{}' is not JSON ({err}); it was left as it is",
                    path.display()
                )
            })?
        }
        _ => Json::Object(Vec::new()),
    };
    let changed = change(settings).map_err(|what| {
        format!(
            "'{}' {what}, as Claude Code's settings are; it was left as it is",
            path.display()
        )
    })?;
    let Some(changed) = changed else {
        return Ok(Change::Unchanged);
    };
    let mut text = serde_json::to_vec_pretty(&changed)
        .map_err(|err| format!("cannot write the settings: {err}"))?;
    text.push(b'\n');
    let backup = match &original {
        Some(bytes) => {
            let backup = sibling(&path, ".bak");
            fs::write(&backup, bytes)
                .map_err(|err| format!("cannot write the backup '{}': {err}", backup.display()))?;
            Some(backup)
        }
        None => {
            if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
                fs::create_dir_all(dir)
                    .map_err(|err| format!("cannot create '{}': {err}", dir.display()))?;
            }
            None
        }
    };
    replace(&path, &text)?;
    Ok(Change::Written { backup })
}

/// `path` with `suffix` added to its file name.
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// Writes `text` to a new file beside `path`, with `path`'s permissions
/// (0600 for a new one: settings may hold tokens), and renames it over
/// `path`: a reader sees the old file or the new one, never part of one.
fn replace(path: &Path, text: &[u8]) -> Result<(), String> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let temporary = sibling(path, &format!(".toolcap-{}.tmp", std::process::id()));
    let mode = fs::metadata(path).map_or(0o600, |meta| meta.permissions().mode() & 0o7777);
    let written = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&temporary)?;
        file.write_all(text)?;
        file.sync_all()?;
        fs::rename(&temporary, path)
    })();
    written.map_err(|err| {
        let _ = fs::remove_file(&temporary);
        format!("cannot write '{}': {err}", path.display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Json {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn install_keeps_the_order_and_uninstall_restores_the_original() {
        let original = json(
            r#"{"model":"opus","hooks":{
               "PostToolUse":[{"matcher":"Edit","hooks":[{"type":"command","command":"fmt"}]}],
               "PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"guard.sh"}]}]},
               "env":{"B":"1","A":"2"}}"#,
        );
        let with = installed(original.clone()).unwrap().unwrap();
        let text = serde_json::to_string(&with).unwrap();
        assert!(
            text.starts_with(r#"{"model":"opus","hooks":{"PostToolUse""#),
            "{text}"
        );
        assert!(
            text.ends_with(
                r#""command":"toolcap --hook claude-code"}]}]},"env":{"B":"1","A":"2"}}"#
            ),
            "{text}"
        );
        assert_eq!(installed(with.clone()).unwrap(), None);
        assert_eq!(uninstalled(with).unwrap(), Some(original.clone()));
        assert_eq!(uninstalled(original).unwrap(), None);
        let bare = json("{}");
        let with = installed(bare.clone()).unwrap().unwrap();
        assert_eq!(uninstalled(with).unwrap(), Some(bare));
    }

    #[test]
    fn settings_of_another_shape_are_refused() {
        assert_eq!(installed(json("[]")), Err("is not a JSON object".into()));
        assert_eq!(
            installed(json(r#"{"hooks":[]}"#)),
            Err("has a 'hooks' that is not an object".into())
        );
        assert_eq!(
            uninstalled(json(r#"{"hooks":{"PreToolUse":{}}}"#)),
            Err("has a 'hooks.PreToolUse' that is not an array".into())
        );
    }
}
