//! `--profile NAME|auto|none`: per-tool settings. A profile is plain data,
//! a list of ordinary options (so `--profiles` can show each as a command
//! line), put in front of the user's own arguments before they become a
//! `Config`: the capping core never hears of profiles. What a profile may
//! set, and how its options meet the user's, is each option's entry in the
//! registry: the user's options win, a profile's option is dropped when
//! the user gave the same one (or, for the budget, any option of the
//! budget's group: a profile's `--recent` without its `--window` means
//! nothing), except repeatable ones such as `--keep`, which add up.
//!
//! Built-ins are in `builtin.rs`; the user's `profiles.toml` (`file.rs`)
//! adds to them or replaces them. `auto` picks by the program the command
//! runs (`program.rs`), or in filter mode leaves the choice to the input's
//! first bytes (`ProfileChoice::FromInput`).

mod builtin;
pub(super) mod file;
mod program;

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Command;
use regex::RegexBuilder;

use super::draft::{Draft, Given};
use super::registry::{self, Flag, Group, Parsed, Takes};

use crate::run::{Config, InputProfile, Mode, ProfileChoice};

/// `--profile`: which profile, as a value, so that nothing after the
/// parse compares names with `auto` or `none`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Choice {
    /// `none`, the default.
    None,
    /// `auto`: by the command, or in filter mode by the input.
    Auto,
    /// A profile's name.
    Named(String),
}

impl Choice {
    /// The value of `--profile`: `auto`, `none` or a name (a profile of
    /// neither name may exist, so every word is a choice).
    pub(super) fn parse(word: &str) -> Choice {
        match word {
            "none" => Choice::None,
            "auto" => Choice::Auto,
            name => Choice::Named(name.to_string()),
        }
    }
}

/// A profile, built-in or the user's.
#[derive(Debug)]
struct Profile {
    name: String,
    /// What `auto` matches in wrap mode: `prog` or `prog sub`.
    matches: Vec<String>,
    /// What `auto` looks for in filter mode (regular expressions,
    /// multi-line, on the input's first 4 KiB).
    detect: Vec<String>,
    args: Vec<String>,
    origin: Origin,
}

#[derive(Debug)]
enum Origin {
    BuiltIn,
    User {
        file: PathBuf,
        line: usize,
        replaces: bool,
    },
}

impl Profile {
    /// How errors name it: `profile 'NAME'`, with its file and line.
    fn described(&self) -> String {
        match &self.origin {
            Origin::BuiltIn => format!("profile '{}'", self.name),
            Origin::User { file, line, .. } => {
                format!("profile '{}' ({}:{line})", self.name, file.display())
            }
        }
    }

    fn matches(&self, invocation: &program::Invocation) -> bool {
        self.matches.iter().any(|entry| {
            let mut words = entry.split_whitespace();
            words.next() == Some(invocation.program.as_str())
                && words
                    .next()
                    .is_none_or(|sub| invocation.subcommand() == Some(sub))
        })
    }

    /// Its args as options, each with its values; an error names the
    /// profile when one is not an option it may set.
    fn options(&self, command: &Command) -> Result<Vec<ProfileOption>, String> {
        let argv = std::iter::once("toolcap").chain(self.args.iter().map(String::as_str));
        command
            .clone()
            .try_get_matches_from(argv)
            .map_err(|err| format!("{}: {}", self.described(), super::args::one_line(&err)))?;
        let mut options = Vec::new();
        let mut words = self.args.iter();
        while let Some(word) = words.next() {
            let (flag, inline_value) = match word.strip_prefix("--") {
                Some(long) => {
                    let (name, value) = long
                        .split_once('=')
                        .map_or((long, None), |(n, v)| (n, Some(v)));
                    (registry::by_long(name), value)
                }
                None => {
                    let mut short = word.strip_prefix('-').unwrap_or_default().chars();
                    let flag = short.next().and_then(registry::by_short);
                    (flag, Some(short.as_str()).filter(|value| !value.is_empty()))
                }
            };
            let Some(flag) = flag else {
                return Err(format!(
                    "{}: '{word}' is not an option: a profile's args are options and their values",
                    self.described()
                ));
            };
            if !flag.in_profiles {
                return Err(format!(
                    "{}: {word} cannot be set by a profile: a profile says how output is cleaned, \
                     kept and capped, not what runs or where output goes",
                    self.described()
                ));
            }
            let value = match (flag.takes, inline_value) {
                (Takes::Nothing, _) => None,
                (_, Some(value)) => Some(value.to_string()),
                (_, None) => words.next().cloned(),
            };
            // clap has read the words above: a value that it would refuse is
            // refused there, with clap's message.
            let value = match value {
                None => Parsed::Switch,
                Some(value) => flag.parse_word(&value).map_err(|err| {
                    format!(
                        "{}: invalid value '{value}' for {}: {err}",
                        self.described(),
                        flag.name()
                    )
                })?,
            };
            options.push(ProfileOption { flag, value });
        }
        Ok(options)
    }
}

/// One of a profile's options, with its value (a switch:
/// [`Parsed::Switch`]).
struct ProfileOption {
    flag: &'static Flag,
    value: Parsed,
}

/// Every profile, in the order `auto` tries them: the user's (in file
/// order), then the built-ins they did not replace.
#[derive(Debug)]
struct Profiles {
    list: Vec<Profile>,
    /// The user's file, if there is a home to look for it in.
    file: Option<PathBuf>,
}

impl Profiles {
    fn load(env: &dyn Fn(&str) -> Option<OsString>) -> Result<Profiles, String> {
        let file = file::path(env);
        let user = match &file {
            Some(path) => file::read(path)?,
            None => Vec::new(),
        };
        let mut list = Vec::new();
        for user in user {
            let file = file.clone().unwrap_or_default();
            let built_in = builtin::BUILT_INS.iter().find(|b| b.name == user.name);
            let owned = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
            let args = match (user.args, built_in) {
                (Some(args), _) => args,
                (None, Some(built_in)) => owned(built_in.args),
                (None, None) => {
                    return Err(format!(
                        "{}:{}: key 'profiles.{}': missing args = [...]: a new profile needs its \
                         options",
                        file.display(),
                        user.line,
                        user.name
                    ));
                }
            };
            let profile = Profile {
                matches: user
                    .matches
                    .unwrap_or_else(|| owned(built_in.map_or(&[], |b| b.matches))),
                detect: user
                    .detect
                    .unwrap_or_else(|| owned(built_in.map_or(&[], |b| b.detect))),
                args,
                origin: Origin::User {
                    file,
                    line: user.line,
                    replaces: built_in.is_some(),
                },
                name: user.name,
            };
            check_user_profile(&profile)?;
            list.push(profile);
        }
        for built_in in builtin::BUILT_INS {
            if list.iter().all(|profile| profile.name != built_in.name) {
                let owned = |words: &[&str]| words.iter().map(|w| w.to_string()).collect();
                list.push(Profile {
                    name: built_in.name.to_string(),
                    matches: owned(built_in.matches),
                    detect: owned(built_in.detect),
                    args: owned(built_in.args),
                    origin: Origin::BuiltIn,
                });
            }
        }
        Ok(Profiles { list, file })
    }

    fn named(&self, name: &str) -> Result<&Profile, String> {
        self.list.iter().find(|profile| profile.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.list.iter().map(|profile| profile.name.as_str()).collect();
            format!(
                "unknown profile '{name}': expected auto, none or one of {} (toolcap --profiles \
                 lists them)",
                names.join(", ")
            )
        })
    }

    /// The profile for what `argv` runs: the innermost program that one
    /// matches (`sudo make` is make's), the profiles tried in order; in a
    /// script, its commands in order (`cd x && touch y && cargo build` is
    /// cargo's, `make && pytest` make's), then what runs the script.
    fn for_command(&self, argv: &[OsString]) -> Option<&Profile> {
        let words: Vec<String> = argv
            .iter()
            .map(|word| word.to_string_lossy().into_owned())
            .collect();
        let invocations = program::invocations(&words);
        let mut ordered: Vec<&program::Invocation> = invocations.iter().rev().collect();
        // Stable: each command keeps its innermost program first.
        ordered.sort_by_key(|invocation| match invocation.command {
            0 => usize::MAX,
            command => command,
        });
        ordered
            .into_iter()
            .find_map(|invocation| self.list.iter().find(|profile| profile.matches(invocation)))
    }

    /// `--profiles`: every profile, what it matches, and its options.
    fn listing(&self) -> String {
        let mut out = String::from(
            "Profiles: --profile NAME applies one; --profile auto picks the first that matches \
             the command (wrap mode) or the input's first 4 KiB (filter mode).\n",
        );
        match &self.file {
            Some(file) if file.exists() => {
                out.push_str(&format!("User profiles: {}\n", file.display()));
            }
            Some(file) => out.push_str(&format!(
                "User profiles: {} (no such file)\n",
                file.display()
            )),
            None => out.push_str("User profiles: none (neither XDG_CONFIG_HOME nor HOME is set)\n"),
        }
        for profile in &self.list {
            let origin = match &profile.origin {
                Origin::BuiltIn => "built-in".to_string(),
                Origin::User {
                    file,
                    line,
                    replaces,
                } => format!(
                    "{}:{line}{}",
                    file.display(),
                    if *replaces {
                        ", replaces the built-in"
                    } else {
                        ""
                    }
                ),
            };
            out.push_str(&format!("\n{} ({origin})\n", profile.name));
            let mut field = |name: &str, values: Vec<String>| {
                let mut label = format!("  {name:<8}");
                if values.is_empty() {
                    out.push_str(&format!("{label}(none)\n"));
                }
                for value in values {
                    out.push_str(&format!("{label}{value}\n"));
                    label = " ".repeat(10);
                }
            };
            field(
                "match",
                vec![profile.matches.join(", ")]
                    .into_iter()
                    .filter(|m| !m.is_empty())
                    .collect(),
            );
            field(
                "detect",
                profile
                    .detect
                    .iter()
                    .map(|pattern| shell_quote(pattern))
                    .collect(),
            );
            field("options", option_lines(&profile.args));
        }
        out
    }
}

/// A profile's args, one option with its values per line, quoted for a
/// shell so that each line can be typed as it is.
fn option_lines(args: &[String]) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for arg in args {
        let word = shell_quote(arg);
        match lines.last_mut() {
            Some(line) if !arg.starts_with('-') || arg == "-" => {
                line.push(' ');
                line.push_str(&word);
            }
            _ => lines.push(word),
        }
    }
    lines
}

fn shell_quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// What a user profile holds must make sense now, not when it is used:
/// its args, its match entries and its patterns.
fn check_user_profile(profile: &Profile) -> Result<(), String> {
    profile.options(&super::args::command())?;
    for entry in &profile.matches {
        let words = entry.split_whitespace().count();
        if !(1..=2).contains(&words) {
            return Err(format!(
                "{}: match entry '{entry}' is not 'prog' or 'prog sub'",
                profile.described()
            ));
        }
    }
    for pattern in &profile.detect {
        RegexBuilder::new(pattern)
            .multi_line(true)
            .build()
            .map_err(|err| {
                let why = err.to_string();
                let why = why
                    .lines()
                    .last()
                    .unwrap_or_default()
                    .trim_start_matches("error: ")
                    .to_string();
                format!(
                    "{}: invalid detect pattern '{pattern}': {why}",
                    profile.described()
                )
            })?;
    }
    Ok(())
}

/// `--profiles`: the listing, or why the user's profiles cannot be read.
/// The `[hook]` table of the user's profiles.toml (`args`: the options of
/// the commands `--hook` rewrites; `decision`), if it has one.
pub(super) fn hook_table(
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Option<file::HookTable>, String> {
    match file::path(env) {
        Some(path) => file::read_hook(&path),
        None => Ok(None),
    }
}

pub(super) fn listing(env: &dyn Fn(&str) -> Option<OsString>) -> Result<String, String> {
    Profiles::load(env).map(|profiles| profiles.listing())
}

/// `--list-profiles` (hidden, for the shell completions): the values
/// `--profile` takes, one a line: `auto`, `none`, then each profile's name,
/// the user's first. A profiles.toml that does not load leaves the
/// built-ins: a completion has nowhere to say why.
pub(super) fn names(env: &dyn Fn(&str) -> Option<OsString>) -> String {
    let names: Vec<String> = match Profiles::load(env) {
        Ok(profiles) => profiles
            .list
            .into_iter()
            .map(|profile| profile.name)
            .collect(),
        Err(_) => builtin::BUILT_INS
            .iter()
            .map(|b| b.name.to_string())
            .collect(),
    };
    let mut out = String::from("auto\nnone\n");
    for name in names {
        out.push_str(&name);
        out.push('\n');
    }
    out
}

/// `config` (made of the options `user` gave) with the
/// profile `choice` applied: its options' updates before the user's, so
/// that the user's replace them. `none`, and store commands, change
/// nothing.
pub(super) fn apply(
    choice: &Choice,
    config: Config,
    user: &Given,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Config, String> {
    if *choice == Choice::None || matches!(config.mode, Mode::Store(_)) {
        return Ok(config);
    }
    let profiles = Profiles::load(env)?;
    let command = super::args::command();
    let with = |profile: &Profile, wrap: bool| -> Result<Config, String> {
        let options = profile.options(&command)?;
        let given = |flag: &Flag| user.has(flag);
        let kept: Vec<&ProfileOption> = options
            .iter()
            .filter(|option| {
                let flag = option.flag;
                // A repeatable option (`--keep`) adds up with the user's.
                let overridden = match (flag.group, flag.takes) {
                    (Group::Budget, _) => registry::of_group(Group::Budget).any(given),
                    (_, Takes::Repeated(_)) => false,
                    _ => given(flag),
                };
                // Wrap mode's options mean nothing in filter mode.
                !overridden && (wrap || flag.group != Group::Wrap)
            })
            .collect();
        let in_profile = |err: String| format!("with {}: {err}", profile.described());
        // The profile's options, then the user's.
        let merged = |chosen: &[&ProfileOption]| {
            refuse_conflicts(chosen, user)?;
            let mut draft = draft_of(chosen)?;
            user.apply(&mut draft)?;
            draft.into_config(env)
        };
        let mut config = merged(&kept).map_err(in_profile)?;
        if let Some(err) = contradiction(&config)
            && merged(&[]).is_ok_and(|config| contradiction(&config).is_none())
        {
            // A contradiction within the profile itself names it; one
            // between the profile and the user's options goes the user's
            // way: the profile's options that contradict theirs are left
            // out (`--format diff` under their `--keep` or `--live`).
            let all: Vec<&ProfileOption> = options.iter().collect();
            let alone = draft_of(&all).and_then(|draft| draft.into_config(env));
            if alone.is_ok_and(|config| contradiction(&config).is_some()) {
                return Err(in_profile(err));
            }
            let mut chosen = Vec::new();
            for option in kept {
                chosen.push(option);
                if !merged(&chosen).is_ok_and(|config| contradiction(&config).is_none()) {
                    chosen.pop();
                }
            }
            config = merged(&chosen).map_err(in_profile)?;
        }
        config.profile = ProfileChoice::Applied(profile.name.clone());
        Ok(config)
    };
    match (&config.mode, choice) {
        (Mode::Wrap(wrap), Choice::Auto) => match profiles.for_command(&wrap.argv) {
            Some(profile) => with(profile, true),
            None => Ok(config),
        },
        (Mode::Wrap(_), Choice::Named(name)) => with(profiles.named(name)?, true),
        (_, Choice::Auto) => {
            let mut candidates = Vec::new();
            for profile in profiles
                .list
                .iter()
                .filter(|profile| !profile.detect.is_empty())
            {
                let options = with(profile, false)?.options;
                candidates.push(InputProfile::new(
                    profile.name.clone(),
                    profile.detect.clone(),
                    options,
                ));
            }
            let mut config = config;
            config.profile = ProfileChoice::FromInput(candidates);
            Ok(config)
        }
        (_, Choice::Named(name)) => with(profiles.named(name)?, false),
        (_, Choice::None) => Ok(config),
    }
}

/// The draft that `options` of a profile fill, in order.
fn draft_of(options: &[&ProfileOption]) -> Result<Draft, String> {
    let mut draft = Draft::default();
    for option in options {
        option.flag.apply(option.value.clone(), &mut draft)?;
    }
    Ok(draft)
}

/// What clap refuses of two options given together, when one is the
/// profile's and the other the user's: said as clap says it, the
/// profile's first, as it comes first.
fn refuse_conflicts(chosen: &[&ProfileOption], user: &Given) -> Result<(), String> {
    for option in chosen {
        let flag = option.flag;
        let conflict = registry::FLAGS.iter().find(|other| {
            user.has(other)
                && (flag.parse.conflicts.contains(&other.id)
                    || other.parse.conflicts.contains(&flag.id))
        });
        if let Some(other) = conflict {
            return Err(format!(
                "the argument '{}' cannot be used with '{}'",
                flag.shown(),
                other.shown()
            ));
        }
    }
    Ok(())
}

/// Why `config`'s options cannot run together, if they cannot: the
/// options' own rules, and what `--live` and `--json` exclude.
fn contradiction(config: &Config) -> Option<String> {
    crate::plan::Plan::compile(&config.options)
        .and_then(|_| crate::plan::check_output(config))
        .err()
        .map(|err| err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built_ins() -> Profiles {
        Profiles::load(&|_| None).unwrap()
    }

    #[test]
    fn built_in_profiles_are_valid_command_lines() {
        let command = super::super::args::command();
        for profile in &built_ins().list {
            profile.options(&command).unwrap();
            for pattern in &profile.detect {
                RegexBuilder::new(pattern).multi_line(true).build().unwrap();
            }
        }
    }

    #[test]
    fn auto_matches_the_innermost_program() {
        let profiles = built_ins();
        // Words are split at spaces, a `-c` script's at `|`.
        let name = |command: &str| {
            let argv: Vec<OsString> = command
                .split(' ')
                .map(|word| OsString::from(word.replace('|', " ")))
                .collect();
            profiles
                .for_command(&argv)
                .map(|profile| profile.name.clone())
        };
        for (command, expected) in [
            ("cargo test", Some("cargo")),
            ("cargo +nightly clippy --all-targets", Some("cargo")),
            ("cargo fmt", None),
            ("sudo make -j4", Some("make")),
            ("npx jest", Some("npm")),
            ("uv run python -m pytest -x", Some("pytest")),
            ("/bin/sh -c cd|x&&go|test|./...", Some("go")),
            ("bash -c go|mod|tidy", None),
            ("bash -euo pipefail -c cargo|test", Some("cargo")),
            (
                "sh -c exec|2>&1;|{|cd|x||||exit|1;|pytest;|}",
                Some("pytest"),
            ),
            ("sh -c echo|pytest", None),
            ("go mod tidy", None),
            ("find . -name x", Some("listing")),
            ("git diff HEAD~1", Some("git")),
            ("git log -p", Some("git")),
            ("git status", None),
            ("echo hi", None),
            // Every command of a chain, in order (issue 23).
            ("sh -c cd|x|&&|touch|y|&&|cargo|build", Some("cargo")),
            ("sh -c cargo|build|2>&1||tail|-n|5", Some("cargo")),
            ("sh -c echo|start;|sudo|make|-j4;|pytest", Some("make")),
            ("sh -c echo|a||grep|a;|uv|run|pytest", Some("pytest")),
            ("sh -c git|status;|npm|test", Some("npm")),
        ] {
            assert_eq!(name(command).as_deref(), expected, "{command}");
        }
    }

    #[test]
    fn option_lines_quote_for_a_shell() {
        let args: Vec<String> = ["--clean", "--keep", "^E ", "--max", "4k", "--keep", "it's"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            option_lines(&args),
            ["--clean", "--keep '^E '", "--max 4k", r"--keep 'it'\''s'"]
        );
    }
}
