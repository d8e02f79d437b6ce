//! The user's profiles: `${XDG_CONFIG_HOME:-~/.config}/toolcap/profiles.toml`,
//! with `[profiles.NAME]` tables of `match`, `detect` and `args`, and a
//! `[hook]` table of `args` and `decision` (`toolcap --hook`'s options). Anything else in
//! the file is an error naming the file, the line and the key.

use std::ffi::OsString;
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// One `[profiles.NAME]` table, as written: a key left out is `None`.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct UserProfile {
    pub(super) name: String,
    /// Where its table starts.
    pub(super) line: usize,
    pub(super) matches: Option<Vec<String>>,
    pub(super) detect: Option<Vec<String>>,
    pub(super) args: Option<Vec<String>>,
}

/// Where the user's profiles are, if there is a home to look in.
pub(super) fn path(env: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    // The XDG spec: a relative XDG_CONFIG_HOME is to be ignored.
    let config = env("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| env("HOME").map(|home| Path::new(&home).join(".config")))?;
    Some(config.join("toolcap").join("profiles.toml"))
}

/// The profiles in `path`, in the order they are written; none if there
/// is no such file.
pub(super) fn read(path: &Path) -> Result<Vec<UserProfile>, String> {
    let text = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(format!("cannot read '{}': {err}", path.display())),
    };
    let text = String::from_utf8(text)
        .map_err(|_| format!("{}: not UTF-8 text, as TOML must be", path.display()))?;
    parse(&text).map_err(|at| at.message(path, &text))
}

/// What is wrong, and where.
#[derive(Debug)]
struct Wrong {
    span: Range<usize>,
    /// The key, dotted (`profiles.pytest.args`), when one is to blame.
    key: Option<String>,
    what: String,
}

impl Wrong {
    fn at(span: Range<usize>, key: impl Into<String>, what: impl Into<String>) -> Wrong {
        Wrong {
            span,
            key: Some(key.into()),
            what: what.into(),
        }
    }

    /// `FILE:LINE: key 'KEY': WHAT`, one line.
    fn message(&self, path: &Path, text: &str) -> String {
        let start = self.span.start.min(text.len());
        let line = 1 + text[..start].matches('\n').count();
        let key = self.key.clone().or_else(|| key_on_line(text, start));
        let what = self.what.lines().next().unwrap_or_default().trim();
        match key {
            Some(key) => format!("{}:{line}: key '{key}': {what}", path.display()),
            None => format!("{}:{line}: {what}", path.display()),
        }
    }
}

/// For a syntax error: the key the broken line sets, or the table it
/// opens, if it reads as one.
fn key_on_line(text: &str, at: usize) -> Option<String> {
    let start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
    let line = text[start..].lines().next().unwrap_or_default().trim();
    let key = match line.strip_prefix('[') {
        Some(table) => table.trim_start_matches('[').split(']').next()?,
        None => line.split('=').next().filter(|_| line.contains('='))?,
    };
    let key = key.trim();
    (!key.is_empty()).then(|| key.to_string())
}

/// The `[hook]` table, as written: a key left out is `None`.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct HookTable {
    /// The options of the commands `toolcap --hook` rewrites.
    pub(crate) args: Option<Vec<String>>,
    /// The permission decision it answers with: `allow` or `ask`.
    pub(crate) decision: Option<String>,
}

/// The `[hook]` table in `path`, if the file has one.
pub(super) fn read_hook(path: &Path) -> Result<Option<HookTable>, String> {
    let text = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(format!("cannot read '{}': {err}", path.display())),
    };
    let text = String::from_utf8(text)
        .map_err(|_| format!("{}: not UTF-8 text, as TOML must be", path.display()))?;
    parse_document(&text)
        .map(|(_, hook)| hook)
        .map_err(|at| at.message(path, &text))
}

fn parse(text: &str) -> Result<Vec<UserProfile>, Wrong> {
    parse_document(text).map(|(profiles, _)| profiles)
}

/// The profiles, and the `[hook]` table.
fn parse_document(text: &str) -> Result<(Vec<UserProfile>, Option<HookTable>), Wrong> {
    let document = DeTable::parse(text).map_err(|err| Wrong {
        span: err.span().unwrap_or(0..0),
        key: None,
        what: format!("invalid TOML: {}", err.message()),
    })?;
    let mut profiles = Vec::new();
    let mut hook = None;
    for (key, value) in document.get_ref() {
        if key.get_ref() == "hook" {
            hook = Some(hook_table(value)?);
            continue;
        }
        if key.get_ref() != "profiles" {
            return Err(Wrong::at(
                key.span(),
                key.get_ref().to_string(),
                "unknown key: the file holds [profiles.NAME] tables and a [hook] table",
            ));
        }
        let DeValue::Table(table) = value.get_ref() else {
            return Err(Wrong::at(
                value.span(),
                "profiles",
                "expected [profiles.NAME] tables",
            ));
        };
        for (name, profile) in table {
            profiles.push(profile_table(name, profile)?);
        }
    }
    // The file's order, which the map does not keep.
    profiles.sort_by_key(|profile| profile.line);
    let mut lines = 1;
    let mut counted = 0;
    for profile in &mut profiles {
        lines += text[counted..profile.line].matches('\n').count();
        counted = profile.line;
        profile.line = lines;
    }
    Ok((profiles, hook))
}

/// `[hook]`: `args = [...]`, the options of the commands the hook
/// rewrites, and `decision`, the permission decision it answers with.
fn hook_table(value: &Spanned<DeValue>) -> Result<HookTable, Wrong> {
    let DeValue::Table(table) = value.get_ref() else {
        return Err(Wrong::at(value.span(), "hook", "expected a table, [hook]"));
    };
    let mut hook = HookTable::default();
    for (field, value) in table {
        let key = format!("hook.{}", field.get_ref());
        match field.get_ref().as_ref() {
            "args" => {
                hook.args = Some(strings(value).ok_or_else(|| {
                    Wrong::at(
                        value.span(),
                        key,
                        "expected an array of strings, [\"...\", ...]",
                    )
                })?);
            }
            "decision" => match value.get_ref() {
                DeValue::String(text) if ["allow", "ask"].contains(&text.as_ref()) => {
                    hook.decision = Some(text.to_string());
                }
                _ => {
                    return Err(Wrong::at(
                        value.span(),
                        key,
                        "expected \"allow\" or \"ask\"",
                    ));
                }
            },
            _ => {
                return Err(Wrong::at(
                    field.span(),
                    key,
                    "unknown key: [hook] has args and decision",
                ));
            }
        }
    }
    Ok(hook)
}

/// `[profiles.NAME]`; its `line` is its offset until `parse` counts lines.
fn profile_table(
    name: &Spanned<std::borrow::Cow<str>>,
    value: &Spanned<DeValue>,
) -> Result<UserProfile, Wrong> {
    let key = format!("profiles.{}", name.get_ref());
    let DeValue::Table(table) = value.get_ref() else {
        return Err(Wrong::at(
            value.span(),
            key,
            "expected a table, [profiles.NAME]",
        ));
    };
    let valid_name = !name.get_ref().is_empty()
        && name
            .get_ref()
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.');
    if !valid_name {
        return Err(Wrong::at(
            name.span(),
            key,
            "a profile's name is letters, digits, '-', '_' and '.'",
        ));
    }
    if ["auto", "none"].contains(&name.get_ref().as_ref()) {
        return Err(Wrong::at(
            name.span(),
            key,
            "'auto' and 'none' are not names: --profile auto picks a profile, none uses none",
        ));
    }
    let mut profile = UserProfile {
        name: name.get_ref().to_string(),
        line: name.span().start,
        ..UserProfile::default()
    };
    for (field, value) in table {
        let key = format!("{key}.{}", field.get_ref());
        // The key first: a wrong value under a wrong key is the key's fault.
        let slot = match field.get_ref().as_ref() {
            "match" => &mut profile.matches,
            "detect" => &mut profile.detect,
            "args" => &mut profile.args,
            _ => {
                return Err(Wrong::at(
                    field.span(),
                    key,
                    "unknown key: a profile has match, detect and args",
                ));
            }
        };
        *slot = Some(strings(value).ok_or_else(|| {
            Wrong::at(
                value.span(),
                key,
                "expected an array of strings, [\"...\", ...]",
            )
        })?);
    }
    Ok(profile)
}

fn strings(value: &Spanned<DeValue>) -> Option<Vec<String>> {
    let DeValue::Array(items) = value.get_ref() else {
        return None;
    };
    items
        .iter()
        .map(|item| match item.get_ref() {
            DeValue::String(text) => Some(text.to_string()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> String {
        parse(text).unwrap_err().message(Path::new("/p.toml"), text)
    }

    #[test]
    fn profiles_in_file_order() {
        let text = "# mine\n[profiles.zeta]\nargs = [\"--fold\"]\n\n\
                    [profiles.alpha]\nmatch = [\"a b\"]\n\
                    detect = ['^x']\nargs = []\n";
        let profiles = parse(text).unwrap();
        assert_eq!(
            profiles,
            [
                UserProfile {
                    name: "zeta".into(),
                    line: 2,
                    args: Some(vec!["--fold".into()]),
                    ..UserProfile::default()
                },
                UserProfile {
                    name: "alpha".into(),
                    line: 5,
                    matches: Some(vec!["a b".into()]),
                    detect: Some(vec!["^x".into()]),
                    args: Some(Vec::new()),
                },
            ]
        );
        assert_eq!(parse("").unwrap(), []);
        let (profiles, hook) =
            parse_document("[hook]\nargs = [\"--max\", \"8k\"]\ndecision = \"ask\"\n").unwrap();
        let table = HookTable {
            args: Some(vec!["--max".into(), "8k".into()]),
            decision: Some("ask".into()),
        };
        assert_eq!((profiles, hook), (Vec::new(), Some(table)));
    }

    #[test]
    fn errors_name_the_line_and_the_key() {
        for (text, expected) in [
            (
                "[profiles.x]\nargs = \"--fold\"\n",
                "/p.toml:2: key 'profiles.x.args': expected an array of strings, [\"...\", ...]",
            ),
            (
                "[profiles.x]\nargs = []\nargz = []\n",
                "/p.toml:3: key 'profiles.x.argz': unknown key: \
                 a profile has match, detect and args",
            ),
            (
                "\n[profiles.x]\nargs = [\"--fold\", 3]\n",
                "/p.toml:3: key 'profiles.x.args': expected an array of strings, [\"...\", ...]",
            ),
            (
                "[other]\n",
                "/p.toml:1: key 'other': unknown key: the file holds [profiles.NAME] tables and a \
                 [hook] table",
            ),
            (
                "[hook]\nargz = []\n",
                "/p.toml:2: key 'hook.argz': unknown key: [hook] has args and decision",
            ),
            (
                "[hook]\ndecision = \"deny\"\n",
                "/p.toml:2: key 'hook.decision': expected \"allow\" or \"ask\"",
            ),
            (
                "[hook]\nargs = \"--max 8k\"\n",
                "/p.toml:2: key 'hook.args': expected an array of strings, [\"...\", ...]",
            ),
            (
                "[profiles.x]\nfoo = true\n",
                "/p.toml:2: key 'profiles.x.foo': unknown key: \
                 a profile has match, detect and args",
            ),
            (
                "[profiles]\nx = 1\n",
                "/p.toml:2: key 'profiles.x': expected a table, [profiles.NAME]",
            ),
            (
                "[profiles.auto]\nargs = []\n",
                "/p.toml:1: key 'profiles.auto': 'auto' and 'none' are not names: \
                 --profile auto picks a profile, none uses none",
            ),
        ] {
            assert_eq!(error(text), expected, "{text:?}");
        }
        let syntax = error("[profiles.x]\nargs = [\"--fold\"\n");
        assert!(syntax.starts_with("/p.toml:"), "{syntax}");
        assert!(syntax.contains("invalid TOML: "), "{syntax}");
        let syntax = error("[profiles.x]\nargs = [--fold]\n");
        assert!(
            syntax.starts_with("/p.toml:2: key 'args': invalid TOML: "),
            "{syntax}"
        );
    }
}
