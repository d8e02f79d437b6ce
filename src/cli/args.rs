//! The command line: clap's definition, built from the registry of options
//! (its arguments) and the texts around them (usage, sections), and the
//! parse of a command line into a [`Config`]: clap reads the words, each
//! option's update fills a [`Draft`], the draft makes the `Config`. The
//! only part of `cli` that runs clap; the rest of toolcap sees the
//! `Config`. Also home of the test that keeps `man/` and `completions/` in
//! step with this definition.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{ArgGroup, ArgMatches};

use super::draft::{Agent, Draft, Given};
use super::profile;
use super::registry::{self, Flag, Group};
use crate::config::{Config, Mode, StoreCommand};
use crate::hook;

/// --help is wrapped at the terminal's width, but never wider than this.
const HELP_WIDTH: usize = 80;

const ABOUT: &str = "Cap command output at a budget, keeping its head and tail";

const LONG_ABOUT: &str = "\
Cap command output at a budget, keeping its head and tail.

toolcap reads FILEs (or standard input, or the output of a command it runs) \
as one stream. Output within the budget is passed through byte for byte. \
Longer output keeps its first and last part; the middle is replaced by one \
marker line that says exactly what was removed, under a two-line warning \
header with the original size and line count. Memory stays bounded by the \
budget, whatever the size of the input.

Examples:
  make test 2>&1 | toolcap --max 10k
  toolcap --max 10k -- cargo test
  toolcap --spill-dir /tmp/out -c 'make -j8'

The second runs the command itself (wrap mode) and keeps its exit status; \
the third keeps the full output on disk when it is cut.";

/// The sections after the options, in `--help` and in the man page (where
/// each is a section of its own). Placeholders are written `{N}`, never
/// `{n}`: clap turns `{n}` into a line break.
const SECTIONS: [(&str, &str); 4] = [
    (
        "Sizes and durations",
        "\
SIZE: digits with an optional suffix, case-insensitive: none or b = bytes; \
k, kb = 1000; ki, kib = 1024; m, mb = 10^6; mi, mib = 2^20; g, gb = 10^9; \
gi, gib = 2^30. So 10k is 10,000 bytes, unlike GNU head where K is 1024 \
(write 10ki for that). PCT: a whole percentage of --max, such as 20%. \
COUNT (--tokens, --lines): plain digits.

DURATION: digits with an optional unit ms, s, m or h; plain digits are \
seconds (500ms, 30s, 5m, 1h, 30).",
    ),
    (
        "Output format",
        "\
When the input does not fit:
  Warning: truncated output (original token count: {T})
  Total output lines: {L}
  <blank line>
  {head}
  [... {N} bytes truncated ...]
  {tail}
where T = ceil(bytes/4) (or the --tokenizer's count; ~T when estimated) and \
L is the number of lines. With a spill file \
the marker reads
  [... {N} bytes truncated (lines {A}-{B}); full output in {PATH} ...]
Cuts never split a UTF-8 character, and with --cut lines (the default) they \
move to a line boundary when that costs at most a quarter of the side's \
budget.",
    ),
    (
        "Exit status",
        "\
Filter mode: 0 success (also when stdout was closed early); 1 a FILE could \
not be read, the spill file failed, or stdout could not be written; 2 usage \
error; 125 a bug in toolcap (a thread of its own panicked); 128+N when \
signal N (SIGINT, SIGTERM, SIGHUP) interrupted the reading: what was read \
is still capped and printed.

--hook: always 0 (a line on stderr says what went wrong), 1 for a usage \
error, never 2, which Claude Code reads as 'block this call'. \
--install-hook, --uninstall-hook: 0 success, 1 failure, 2 usage error.

Store commands (--list, --show, --summary, --prune): 0 success; 1 no such \
output, a store refused or unreadable, or --show --grep found no matching \
line; 2 usage error.

Wrap mode: the command's own status; 128+N when it was killed by signal N; \
124 on --timeout; 126 when it cannot be executed; 127 when it is not found; \
125 when toolcap itself failed (then the command's status, if it was not 0, \
still wins); 2 usage error.",
    ),
    (
        "Environment",
        "\
TOOLCAP_MAX sets the default of --max; TOOLCAP_TOKENIZER the default of \
--tokenizer; TOOLCAP_SPILL_DIR sets the default of --spill-dir (--no-spill \
turns it off); TOOLCAP_HOOK_OPTIONS the options of the commands --hook \
rewrites. Empty values count as unset.",
    ),
];

/// The three ways to call toolcap: the usage line and the man page's
/// SYNOPSIS.
const SYNOPSIS: [&str; 3] = [
    "[OPTIONS] [FILE]...",
    "[OPTIONS] -- PROGRAM [ARGS]...",
    "[OPTIONS] -c STRING",
];

/// The full clap definition, with the sections after the options.
pub(super) fn command() -> clap::Command {
    let after: Vec<String> = SECTIONS
        .iter()
        .map(|(title, text)| format!("{title}:\n{text}"))
        .collect();
    let usage: Vec<String> = SYNOPSIS
        .iter()
        .enumerate()
        .map(|(index, form)| {
            let indent = if index == 0 { "" } else { "       " };
            format!("{indent}toolcap {form}")
        })
        .collect();
    let command = clap::Command::new("toolcap")
        .version(env!("CARGO_PKG_VERSION"))
        .about(ABOUT)
        .long_about(LONG_ABOUT)
        .help_expected(true)
        .max_term_width(HELP_WIDTH)
        .group(
            ArgGroup::new("wrapped")
                .args([registry::COMMAND.id, registry::PROGRAM.id])
                .multiple(false),
        );
    registry::FLAGS
        .iter()
        .fold(command, |command, flag| command.arg(flag.arg()))
        .override_usage(usage.join("\n"))
        .after_long_help(after.join("\n\n"))
}

/// Why parsing ended without a `Config`: help or version (for stdout,
/// exit 0), or a usage error (one line for stderr, exit 2).
pub(crate) enum Stop {
    /// `--help` or `--version`: clap prints it, coloured only on a terminal.
    Info(clap::Error),
    /// A usage error, as one line.
    Usage(String),
    /// Text for stdout (`--profiles`), exit 0.
    Print(String),
    /// `--hook`, `--install-hook`, `--uninstall-hook`.
    Hook(hook::Command),
}

/// Parses the arguments (`argv[0]` first) and the process's environment
/// into a `Config`.
pub(crate) fn parse(argv: impl IntoIterator<Item = OsString>) -> Result<Config, Stop> {
    let argv: Vec<OsString> = argv.into_iter().collect();
    parse_from(argv.clone(), |name| std::env::var_os(name)).map_err(|stop| match stop {
        Stop::Usage(message) => match unexpected_hint(&argv) {
            Some(hint) => Stop::Usage(format!("{message}; {hint}")),
            None => Stop::Usage(message),
        },
        stop => stop,
    })
}

/// `toolcap --max 10k ls -la` is refused by clap at `-la`, before the
/// missing FILE `ls` would get its hint (issue 23): when clap refused an
/// unexpected argument, a word before it read as the first FILE is no file
/// and names a program on PATH, the same hint, naming the program. Only
/// for the command line: the Python functions and the hook name no
/// `toolcap` command to run.
fn unexpected_hint(argv: &[OsString]) -> Option<String> {
    use clap::error::ErrorKind;
    let definition = command();
    let parse = |end: usize| definition.clone().try_get_matches_from(&argv[..end]);
    let unknown = |err: clap::Error| err.kind() == ErrorKind::UnknownArgument;
    if !parse(argv.len()).is_err_and(unknown) {
        return None;
    }
    // clap reads left to right and stops at the first unexpected word: the
    // shortest prefix refused that way ends with it.
    let end = (1..=argv.len()).find(|&end| parse(end).is_err_and(unknown))?;
    let unexpected = end - 1;
    // The first FILE: the word that gives a prefix its first FILE, as long
    // as no -c STRING makes it a command line that cannot take one.
    let first_file = |at: usize| {
        let matches = parse(at + 1).ok()?;
        if matches.value_source(registry::COMMAND.id).is_some() {
            return None;
        }
        matches
            .get_many::<PathBuf>(registry::FILES.id)?
            .next()
            .cloned()
    };
    let at = (1..unexpected)
        .find(|&at| first_file(at).is_some_and(|file| file.as_os_str() == argv[at]))?;
    let name = argv[at].as_os_str();
    let missing =
        std::fs::metadata(name).is_err_and(|err| err.kind() == std::io::ErrorKind::NotFound);
    if !missing || !super::on_path(name) {
        return None;
    }
    // The words after the unexpected one are the program's, as it is; an
    // option between the program and it was taken as toolcap's, and may
    // have been meant so.
    let unsure = argv[at + 1..unexpected]
        .iter()
        .any(|word| word.as_encoded_bytes().starts_with(b"-"));
    let hint = super::dash_hint(&argv[1..], at - 1, unsure);
    Some(format!("'{}' is a program: {hint}", name.to_string_lossy()))
}

/// What `toolcap` says of `toolcap --` with nothing after it, which would
/// read stdin and hang on a terminal.
pub(super) const NO_PROGRAM: &str = "no program after '--': give one, as in 'toolcap -- make test'";

pub(crate) fn parse_from(
    argv: impl IntoIterator<Item = OsString>,
    env: impl Fn(&str) -> Option<OsString>,
) -> Result<Config, Stop> {
    let argv: Vec<OsString> = argv.into_iter().collect();
    let given = parse_args(&argv)?;
    let draft = given.draft().map_err(Stop::Usage)?;
    // What follows `--` is the program, and there is none.
    let dangling_separator = argv.last().is_some_and(|last| last == "--");
    if draft.program.is_empty() && draft.command.is_none() && dangling_separator {
        return Err(Stop::Usage(NO_PROGRAM.into()));
    }
    configure(&given, draft, env)
}

/// The `Config` the options `given` make, `draft` being what they fill:
/// the command line's, once clap has read them, and a caller's
/// ([`super::config`]) alike.
pub(super) fn configure(
    given: &Given,
    draft: Draft,
    env: impl Fn(&str) -> Option<OsString>,
) -> Result<Config, Stop> {
    if draft.profiles {
        return Err(profile::listing(&env).map_or_else(Stop::Usage, Stop::Print));
    }
    if let Some(command) = hook_command(&draft, given, &env)? {
        return Err(Stop::Hook(command));
    }
    if draft.list_profiles {
        return Err(Stop::Print(profile::names(&env)));
    }
    let choice = draft.profile.clone();
    let config = draft.into_config(&env).map_err(Stop::Usage)?;
    if let Mode::Store(store_command) = &config.mode {
        refuse_unapplied(store_command, given).map_err(Stop::Usage)?;
    }
    match choice {
        None => Ok(config),
        Some(choice) => profile::apply(&choice, config, given, &env).map_err(Stop::Usage),
    }
}

/// Refuses an option given that the store command does
/// not apply, naming it (issue 21): `--list`, `--summary` and `--prune` take
/// only the store (`--prune` its retention too, `--list` and `--summary`
/// `--redact` for the commands they print, issue 25); `--show` takes what
/// its capped view applies. An option from the environment (TOOLCAP_MAX) is
/// a default, not a request, and is not refused.
fn refuse_unapplied(store_command: &StoreCommand, given: &Given) -> Result<(), String> {
    let (command, takes) = match store_command {
        StoreCommand::List => (&registry::LIST, "--store or --spill-dir DIR"),
        StoreCommand::Summary { .. } => (&registry::SUMMARY, "--store or --spill-dir DIR"),
        StoreCommand::Prune => (
            &registry::PRUNE,
            "--store or --spill-dir DIR, --retain and --retain-size",
        ),
        StoreCommand::Show { .. } => (
            &registry::SHOW,
            "--lines A:B, --grep, --context, the store and the capping options",
        ),
    };
    let applies = |flag: &Flag| {
        let own = flag == command || flag.group == Group::Store;
        match store_command {
            StoreCommand::List | StoreCommand::Summary { .. } => {
                own || flag.group == Group::Redaction
            }
            StoreCommand::Prune => own || flag.group == Group::Retention,
            StoreCommand::Show { .. } => flag.applies_to_show(),
        }
    };
    // FILEs and a program are refused before, with their own message.
    let refused = registry::FLAGS
        .iter()
        .find(|flag| flag.group != Group::Input && given.has(flag) && !applies(flag));
    match refused {
        Some(flag) => Err(format!(
            "{} does not apply to {}, which takes only {takes}",
            flag.name(),
            command.name()
        )),
        None => Ok(()),
    }
}

/// What `--hook`, `--install-hook` or `--uninstall-hook` asks, if one is
/// given; they take no other option (the hook's options come from
/// TOOLCAP_HOOK_OPTIONS or profiles.toml, so that the settings entry stays
/// one fixed line).
fn hook_command(
    draft: &Draft,
    given: &Given,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Option<hook::Command>, Stop> {
    let settings_given = draft.settings.is_some() || draft.project;
    let misplaced = || {
        Stop::Usage("--settings and --project are for --install-hook and --uninstall-hook".into())
    };
    let asked = match (draft.hook, draft.install_hook, draft.uninstall_hook) {
        (Some(Agent::ClaudeCode), ..) => HookAsk::Rewrite,
        (_, Some(Agent::ClaudeCode), _) => HookAsk::Install,
        (.., Some(Agent::ClaudeCode)) => HookAsk::Uninstall,
        _ if settings_given => return Err(misplaced()),
        _ => return Ok(None),
    };
    let other = registry::FLAGS
        .iter()
        .find(|flag| flag.group != Group::Hook && given.has(flag));
    if let Some(flag) = other {
        return Err(Stop::Usage(format!(
            "the hook commands take no other option (got '{}'): the hook's options come from \
             TOOLCAP_HOOK_OPTIONS or a [hook] table in profiles.toml",
            flag.name()
        )));
    }
    if asked == HookAsk::Rewrite {
        if settings_given {
            return Err(misplaced());
        }
        return Ok(Some(hook::Command::Rewrite(hook_options(env))));
    }
    let settings = match (&draft.settings, draft.project) {
        (Some(file), _) => file.clone(),
        (None, true) => PathBuf::from(".claude/settings.json"),
        (None, false) => match env("HOME").filter(|home| !home.is_empty()) {
            Some(home) => PathBuf::from(home).join(".claude/settings.json"),
            None => {
                return Err(Stop::Usage(
                    "the user's Claude Code settings are in $HOME/.claude: set HOME, or give \
                     --settings FILE or --project"
                        .into(),
                ));
            }
        },
    };
    Ok(Some(match asked {
        HookAsk::Install => hook::Command::Install(settings),
        _ => hook::Command::Uninstall(settings),
    }))
}

/// Which hook command was given.
#[derive(Clone, Copy, PartialEq, Eq)]
enum HookAsk {
    Rewrite,
    Install,
    Uninstall,
}

/// The options a wrapped command runs with: TOOLCAP_HOOK_OPTIONS, else the
/// `[hook]` table's `args`, else the default, and the table's `decision`;
/// the options checked as the command line reads them, so that a bad one
/// is said once, by the hook, instead of by every command it would wrap.
fn hook_options(env: &dyn Fn(&str) -> Option<OsString>) -> Result<hook::Rewrite, String> {
    const VARIABLE: &str = "TOOLCAP_HOOK_OPTIONS";
    let table = profile::hook_table(env)?.unwrap_or_default();
    let decision = match table.decision.as_deref() {
        Some("ask") => hook::Decision::Ask,
        _ => hook::Decision::Allow,
    };
    let words = match env(VARIABLE).filter(|value| !value.is_empty()) {
        Some(value) => {
            let text = value
                .to_str()
                .ok_or("invalid TOOLCAP_HOOK_OPTIONS: not UTF-8")?;
            hook::split_options(text)?
        }
        None => match table.args {
            Some(args) => args,
            None => hook::DEFAULT_OPTIONS
                .iter()
                .map(|word| word.to_string())
                .collect(),
        },
    };
    let argv = std::iter::once("toolcap")
        .chain(words.iter().map(String::as_str))
        .chain(["-c", "true"])
        .map(OsString::from);
    let refused = |why: String| format!("invalid hook options '{}': {why}", words.join(" "));
    let config = match parse_from(argv.collect::<Vec<_>>(), |name| env(name)) {
        Ok(config) => config,
        Err(Stop::Usage(why)) => return Err(refused(why)),
        Err(_) => return Err(refused("expected capping options only".into())),
    };
    // What the run would refuse of how it prints (`--live` with codex's
    // header first), said once here too.
    crate::plan::check_output(&config).map_err(|err| refused(err.to_string()))?;
    match &config.mode {
        Mode::Wrap(wrap) if wrap.argv.last().is_some_and(|last| last == "true") => {
            Ok(hook::Rewrite {
                options: words,
                decision,
            })
        }
        _ => Err(refused("expected capping options only".into())),
    }
}

/// The arguments as clap reads them.
fn parse_args(argv: &[OsString]) -> Result<Given, Stop> {
    let matches: ArgMatches = command().try_get_matches_from(argv).map_err(|err| {
        if err.use_stderr() {
            Stop::Usage(one_line(&err))
        } else {
            Stop::Info(err)
        }
    })?;
    Ok(Given::from_matches(&matches))
}

/// clap's error as one line: its first line without `error: `, the
/// indented list that may follow it (missing arguments) joined in, and its
/// suggestions kept, except the tip to write `-- -1`, which would run a
/// program named `-1`.
pub(super) fn one_line(err: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    // A value our parsers refused: built from its parts, so that a value
    // with a newline in it is quoted whole.
    if err.kind() == ErrorKind::ValueValidation
        && let (Some(ContextValue::String(arg)), Some(ContextValue::String(value))) = (
            err.get(ContextKind::InvalidArg),
            err.get(ContextKind::InvalidValue),
        )
    {
        let reason = std::error::Error::source(err).map(ToString::to_string);
        return format!(
            "invalid value '{value}' for '{arg}': {}",
            reason.unwrap_or_default()
        );
    }
    let text = err.render().to_string();
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    let mut message = first.strip_prefix("error: ").unwrap_or(first).to_string();
    let mut items = Vec::new();
    for line in lines {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if let Some(tip) = line.strip_prefix("tip: ") {
            if !tip.contains("use '-- ") {
                message.push_str(&format!(" ({tip})"));
            }
        } else {
            items.push(line.to_string());
        }
    }
    if !items.is_empty() {
        message.push(' ');
        message.push_str(&items.join(", "));
    }
    message
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;
    use crate::spill::{SpillTarget, StoreTarget};

    fn config_with_env(args: &[&str], vars: &[(&str, &str)]) -> Result<Config, String> {
        let argv = std::iter::once("toolcap")
            .chain(args.iter().copied())
            .map(OsString::from);
        parse_from(argv, |name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.into())
        })
        .map_err(|stop| match stop {
            Stop::Usage(message) | Stop::Print(message) => message,
            Stop::Info(info) => info.to_string(),
            Stop::Hook(command) => format!("{command:?}"),
        })
    }

    fn config(args: &[&str]) -> Result<Config, String> {
        config_with_env(args, &[])
    }

    /// The head and tail budgets the configuration asks for.
    fn budget(config: &Config) -> (u64, u64) {
        let mut capper = crate::Capper::new(&config.options).unwrap();
        // Cap a long line of known bytes and read the budget off the cut.
        capper.push(&vec![b'x'; 100_000]);
        let report = capper.finish();
        (report.head.len() as u64, report.tail.len() as u64)
    }

    #[test]
    fn a_tokenizer_from_the_environment_yields_to_codex_style_and_a_flag_does_not() {
        let env = [("TOOLCAP_TOKENIZER", "o200k")];
        let capper = |args: &[&str]| {
            let config = config_with_env(args, &env).unwrap();
            crate::Capper::new(&config.options)
                .map(drop)
                .map_err(|err| err.to_string())
        };
        assert_eq!(capper(&["--style", "codex"]), Ok(()));
        let refused = capper(&["--style", "codex", "--tokenizer", "o200k"]);
        assert!(refused.is_err_and(|err| err.contains("--tokenizer o200k")));
    }

    #[test]
    fn environment_sets_defaults_and_flags_win() {
        let env = [("TOOLCAP_MAX", "1k"), ("TOOLCAP_SPILL_DIR", "/tmp/s")];
        let from_env = config_with_env(&[], &env).unwrap();
        assert_eq!(budget(&from_env), (500, 500));
        let mut named = StoreTarget::new("/tmp/s");
        named.named_by = Some("TOOLCAP_SPILL_DIR");
        assert_eq!(from_env.spill, Some(SpillTarget::Store(named)));
        let flags = config_with_env(&["--tokens", "1", "--spill", "f"], &env).unwrap();
        assert_eq!(budget(&flags), (2, 2));
        assert_eq!(flags.spill, Some(SpillTarget::File("f".into())));
        let no_spill = config_with_env(&["--no-spill"], &env).unwrap();
        assert_eq!(no_spill.spill, None);
        // Both sides given: the environment's default does not limit them.
        let both = config_with_env(&["--head", "2k", "--tail", "1k"], &env).unwrap();
        assert_eq!(budget(&both), (2_000, 1_000));
        let err = config_with_env(&[], &[("TOOLCAP_MAX", "lots")]).unwrap_err();
        assert!(
            err.starts_with("invalid value 'lots' for TOOLCAP_MAX: expected digits"),
            "{err}"
        );
    }

    #[test]
    fn empty_environment_values_count_as_unset() {
        let config =
            config_with_env(&[], &[("TOOLCAP_MAX", ""), ("TOOLCAP_SPILL_DIR", "")]).unwrap();
        assert_eq!(budget(&config), (5_000, 5_000));
        assert_eq!(config.spill, None);
    }

    #[test]
    fn usage_errors() {
        for args in [
            &["--max", "1.5k"][..],
            &["--max", "1k", "--tokens", "3"],
            &["--spill", "a", "--spill-dir", "b"],
            &["--spill", "a", "--no-spill"],
            &["file", "--", "echo"],
            &["-c", "true", "--", "echo"],
            &["--timeout", "1s"],
            &["--shell", "bash"],
            &["--shell", "bash", "--", "echo"],
            &["--stderr-max", "1k", "--", "true"],
            &["--kill-after", "1s", "--", "true"],
            &["--tokens", "1.5"],
            &["--lines", "1e3"],
            &["--"],
            &["--max", "5", "--"],
        ] {
            assert!(config(args).is_err(), "{args:?}");
        }
    }

    #[test]
    fn usage_errors_are_one_line_with_the_value_and_the_expected_form() {
        for (args, expected) in [
            (
                &["--tokens", "1.5"][..],
                "invalid value '1.5' for '--tokens <COUNT>': expected a whole number, e.g. 100",
            ),
            (
                &["--lines", "1e3"],
                "invalid value '1e3' for '--lines <N>': expected a whole number, e.g. 100",
            ),
            (
                &["--maxx", "3"],
                "unexpected argument '--maxx' found (a similar argument exists: '--max')",
            ),
            (&["-1"], "unexpected argument '-1' found"),
            (
                &["--timeout", "1s"],
                "--timeout is for wrap mode: give a command, as in 'toolcap --timeout ... -- \
                 PROGRAM' or '-c STRING'",
            ),
            (
                &["--stderr-max", "1k"],
                "--stderr-max is for wrap mode: give a command, as in 'toolcap --stderr-max ... \
                 -- PROGRAM' or '-c STRING'",
            ),
            (
                &["--cut", "words"],
                "invalid value 'words' for '--cut <WHERE>' [possible values: lines, bytes]",
            ),
        ] {
            assert_eq!(config(args).unwrap_err(), expected, "{args:?}");
        }
    }

    /// A caller's options ([`crate::cli::config`]) are refused as the same
    /// options on the command line are, with the same message: a value
    /// its option's parser refuses (not UTF-8, none of a choice's names),
    /// options clap refuses together, in the order given.
    #[test]
    fn a_callers_options_are_refused_as_the_command_lines() {
        use crate::cli::{Function, Value, keyword};
        use std::os::unix::ffi::OsStringExt;
        let not_utf8 = || OsString::from_vec(b"a\xff".to_vec());
        let cases: [&[(&str, OsString)]; 9] = [
            &[("max", "1.5k".into())],
            &[("max", "".into())],
            &[("max", not_utf8())],
            &[("cut", "lnes".into())],
            &[("style", "fancy".into())],
            &[("max", "100".into()), ("tokens", "10".into())],
            &[("tokens", "10".into()), ("max", "100".into())],
            &[
                ("max", "1".into()),
                ("tokens", "2".into()),
                ("chars", "3".into()),
            ],
            &[("spill", "".into())],
        ];
        for options in cases {
            let mut argv = vec![OsString::from("toolcap")];
            for (name, value) in options {
                let mut word = OsString::from(format!("--{name}="));
                word.push(value);
                argv.push(word);
            }
            let expected = parse_from(argv, |_| None).err().map(|stop| match stop {
                Stop::Usage(message) => message,
                _ => panic!("not a usage error"),
            });
            let named = options.iter().map(|(name, value)| {
                let named = keyword(name, Function::Cap).unwrap();
                (named, Value::Word(value.clone()))
            });
            assert_eq!(crate::cli::config(named).err(), expected, "{options:?}");
            assert!(expected.is_some(), "{options:?}");
        }
    }

    #[test]
    fn wrap_mode_arguments() {
        let Mode::Wrap(wrap) = config(&["--shell", "bash", "-c", "echo hi"]).unwrap().mode else {
            panic!("not wrap mode")
        };
        assert_eq!(wrap.argv, ["bash", "-c", "echo hi"]);
        let Mode::Wrap(wrap) = config(&["--timeout", "0", "--", "ls", "-l"]).unwrap().mode else {
            panic!("not wrap mode")
        };
        assert_eq!((wrap.argv.len(), wrap.timeout), (2, None));
    }

    #[test]
    fn clap_definition_is_consistent() {
        command().debug_assert();
    }

    /// Every line of --help fits 80 columns, and no placeholder was eaten
    /// by clap (it reads `{n}` as a line break).
    #[test]
    fn help_fits_80_columns_and_keeps_its_placeholders() {
        let help = command()
            .term_width(HELP_WIDTH)
            .render_long_help()
            .to_string();
        for line in help.lines() {
            assert!(line.chars().count() <= HELP_WIDTH, "too wide: {line:?}");
        }
        assert!(help.contains("[... {N} bytes truncated ...]"), "{help}");
        assert!(
            help.contains("[... {N} bytes truncated (lines {A}-{B}); full output in {PATH} ...]"),
            "{help}"
        );
        assert!(help.contains(registry::WRAP_MODE), "{help}");
    }

    /// The man page: clap_mangen's sections, but a SYNOPSIS with the three
    /// forms and the sections after the options as sections of their own.
    fn man_page() -> Vec<u8> {
        use roff::{Roff, bold, italic, roman};
        let man = clap_mangen::Man::new(command());
        let mut page = Vec::new();
        man.render_title(&mut page).unwrap();
        man.render_name_section(&mut page).unwrap();
        let mut synopsis = Roff::new();
        synopsis.control("SH", ["SYNOPSIS"]);
        for (index, form) in SYNOPSIS.iter().enumerate() {
            if index > 0 {
                synopsis.control("br", []);
            }
            let mut line = vec![bold("toolcap"), roman(" ")];
            for word in form.split(' ') {
                if word.starts_with('[') || word.starts_with('-') {
                    line.push(roman(word));
                } else {
                    line.push(italic(word));
                }
                line.push(roman(" "));
            }
            line.pop();
            synopsis.text(line);
        }
        page.extend(synopsis.render().into_bytes());
        man.render_description_section(&mut page).unwrap();
        man.render_options_section(&mut page).unwrap();
        let mut sections = Roff::new();
        for (title, text) in SECTIONS {
            sections.control("SH", [title.to_uppercase().as_str()]);
            for (index, paragraph) in text.split("\n\n").enumerate() {
                if index > 0 {
                    sections.control("PP", []);
                }
                // Prose is filled; indented lines are examples, kept as
                // they are.
                let mut literal = false;
                for line in paragraph.lines() {
                    let indented = line.starts_with("  ");
                    if indented != literal {
                        sections.control(if indented { "nf" } else { "fi" }, []);
                        literal = indented;
                    }
                    sections.text([roman(line)]);
                }
                if literal {
                    sections.control("fi", []);
                }
            }
        }
        page.extend(sections.render().into_bytes());
        man.render_version_section(&mut page).unwrap();
        // Each part rendered on its own repeats roff's preamble; once will do.
        let text = String::from_utf8(page).unwrap();
        let preamble = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";
        let (first, rest) = text.split_at(text.find(preamble).unwrap() + preamble.len());
        (first.to_string() + &rest.replace(preamble, "")).into_bytes()
    }

    /// A completion script whose `--profile` offers the names `toolcap
    /// --list-profiles` prints (the built-ins and the user's profiles.toml,
    /// read when completing) instead of file names: clap's static scripts
    /// know only values fixed in the definition.
    fn with_profile_names(shell: clap_complete::Shell, script: String) -> String {
        let names = "toolcap --list-profiles 2>/dev/null";
        let (from, to) = match shell {
            clap_complete::Shell::Bash => (
                "--profile)\n                    COMPREPLY=($(compgen -f \"${cur}\"))".to_string(),
                format!(
                    "--profile)\n                    \
                     COMPREPLY=($(compgen -W \"$({names})\" -- \"${{cur}}\"))"
                ),
            ),
            clap_complete::Shell::Zsh => (
                ":NAME:_default'".to_string(),
                format!(":NAME:{{compadd -- ${{(f)\"$({names})\"}}}}'"),
            ),
            clap_complete::Shell::Fish => {
                let line = script
                    .lines()
                    .find(|line| line.starts_with("complete -c toolcap -l profile "))
                    .unwrap()
                    .to_string();
                let patched = format!("{line} -f -a \"({names})\"");
                (line, patched)
            }
            _ => unreachable!("no completions for {shell}"),
        };
        assert!(
            script.contains(&from),
            "{shell}: no --profile completion to replace"
        );
        script.replace(&from, &to)
    }

    /// The man page and completions are generated from this definition; a
    /// difference from the checked-in copies fails with the fix.
    #[test]
    fn generated_files_are_current() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut expected = vec![(root.join("man/toolcap.1"), man_page())];
        for (shell, file) in [
            (clap_complete::Shell::Bash, "toolcap.bash"),
            (clap_complete::Shell::Zsh, "_toolcap"),
            (clap_complete::Shell::Fish, "toolcap.fish"),
        ] {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut command(), "toolcap", &mut script);
            let script = with_profile_names(shell, String::from_utf8(script).unwrap());
            expected.push((root.join("completions").join(file), script.into_bytes()));
        }
        let update = std::env::var_os("TOOLCAP_UPDATE_GENERATED").is_some_and(|v| v == "1");
        let mut stale = Vec::new();
        for (path, content) in expected {
            if update {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &content).unwrap();
            } else if std::fs::read(&path).ok().as_deref() != Some(&content[..]) {
                stale.push(path.display().to_string());
            }
        }
        assert!(
            stale.is_empty(),
            "generated files differ from the clap definition: {stale:?}\n\
             regenerate them with: \
             TOOLCAP_UPDATE_GENERATED=1 cargo test generated_files_are_current"
        );
    }
}
