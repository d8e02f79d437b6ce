//! The one registry of options: every argument of the command line, once,
//! with its name, what it takes, the group it belongs to and whether a
//! profile may set it (after ripgrep's table of flags). The rest of `cli`
//! asks an option's entry what it is instead of comparing its name with a
//! string: the profiles (what a profile may set, what the user's options
//! replace), the store and hook commands (what they take), wrap mode's
//! options, and the Python package's keyword arguments (each the long
//! option of the same name, `_` for `-`), which it reaches through
//! [`keyword`] and [`spelled`]. The clap definition in `args.rs` holds the
//! help text; a test there keeps it and this table in step, argument for
//! argument and in the same order. Imports nothing of the crate.

use std::ffi::{OsStr, OsString};

/// What an option does, by the part of a run it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Group {
    /// The FILEs, or the program after `--`.
    Input,
    /// What sets the budget: the user's one replaces all of a profile's.
    Budget,
    /// How the budget is shared and where cuts land.
    Capping,
    /// A spill file, or none.
    Spill,
    /// Where the spill store is.
    Store,
    /// The store's retention.
    Retention,
    /// The commands that read the store.
    StoreCommand,
    /// `--show`'s own options.
    Show,
    /// How the capped text looks.
    Look,
    /// What only a capping run prints: the JSON report, the live head.
    RunOutput,
    Cleaning,
    /// The cleaning that also redacts the commands the store commands
    /// print (`--list --redact`, issue 25).
    Redaction,
    Keeping,
    Formats,
    /// Choosing and listing profiles.
    Profiles,
    /// The hook commands and their settings.
    Hook,
    /// What only wrap mode means: the command and how it runs.
    Wrap,
}

/// What an option takes after its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Takes {
    /// A switch: nothing.
    Nothing,
    /// One value; given again, the last one counts.
    One(Value),
    /// A value each time it is given, all of which count (`--keep`).
    Repeated(Value),
}

/// What an option's value is, as a caller that is not a command line
/// spells it (the parser of each option judges it then).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    /// A word: a number, a SIZE, a name, a pattern, a template.
    Word,
    /// A path, handed to the OS.
    Path,
    /// A DURATION.
    Duration,
}

/// Which of the Python package's functions take an option as a keyword
/// argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Keyword {
    /// None: it has no keyword, or one of another shape ([`spelled`]).
    No,
    /// `cap`, `Capper` and `run` (and `show`, as its view's options).
    Cap,
    /// `run` only.
    Run,
}

/// One option of the command line.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Flag {
    /// clap's id of the argument.
    pub(super) id: &'static str,
    /// `--LONG`; none for the FILEs and the program.
    pub(super) long: Option<&'static str>,
    pub(super) short: Option<char>,
    pub(super) takes: Takes,
    pub(super) group: Group,
    /// Whether a profile may set it: a profile says how output is cleaned,
    /// kept and capped, not what runs, where output goes or what is read.
    pub(super) in_profiles: bool,
    pub(super) keyword: Keyword,
}

impl Flag {
    /// How messages name it: `--LONG`, or its id for an argument without
    /// one.
    pub(super) fn name(&self) -> String {
        match self.long {
            Some(long) => format!("--{long}"),
            None => self.id.to_string(),
        }
    }

    /// Whether `--show`'s capped view applies it: the capping options do,
    /// what only a capping run does (wrap mode, a spill file, retention, a
    /// JSON report, live output, a profile) does not.
    pub(super) fn applies_to_show(&self) -> bool {
        !matches!(
            self.group,
            Group::Wrap | Group::Spill | Group::Retention | Group::RunOutput | Group::Profiles
        )
    }

    /// Whether one of `words`, as a command line reads them, is this
    /// option (`--LONG` or `--LONG=VALUE`), before anything else is parsed.
    pub(super) fn spelled_in<W: AsRef<OsStr>>(&self, words: &[W]) -> bool {
        let Some(long) = self.long else {
            return false;
        };
        words.iter().any(|word| {
            let word = word.as_ref().as_encoded_bytes();
            word.strip_prefix(b"--")
                .and_then(|rest| rest.strip_prefix(long.as_bytes()))
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(b"="))
        })
    }
}

/// An entry of the table, written in one line each below.
const fn flag(
    id: &'static str,
    long: Option<&'static str>,
    short: Option<char>,
    takes: Takes,
    group: Group,
    in_profiles: bool,
    keyword: Keyword,
) -> Flag {
    Flag {
        id,
        long,
        short,
        takes,
        group,
        in_profiles,
        keyword,
    }
}

/// The table, one line an option, left unformatted so that it reads down
/// its columns: clap's id, `--long`, `-short`, what it takes, its group,
/// whether a profile may set it, and which Python functions take it as a
/// keyword.
#[rustfmt::skip]
mod table {
    use super::{flag, Flag};
    use super::Group::*;
    use super::Keyword::{Cap, No, Run};
    use super::Takes::{Nothing, One, Repeated};
    use super::Value::{Duration, Path, Word};

    pub(crate) const FILES:          Flag = flag("files",           None,                   None,      Repeated(Path), Input,        false, No);
    pub(crate) const MAX:            Flag = flag("max",             Some("max"),            Some('m'), One(Word),      Budget,       true,  Cap);
    pub(crate) const TOTAL:          Flag = flag("total",           Some("total"),          None,      One(Word),      Budget,       true,  Cap);
    pub(crate) const TOKENS:         Flag = flag("tokens",          Some("tokens"),         None,      One(Word),      Budget,       true,  Cap);
    pub(crate) const WINDOW:         Flag = flag("window",          Some("window"),         None,      One(Word),      Budget,       true,  Cap);
    pub(crate) const RECENT:         Flag = flag("recent",          Some("recent"),         None,      One(Word),      Budget,       true,  Cap);
    pub(crate) const WINDOW_CEILING: Flag = flag("window_ceiling",  Some("window-ceiling"), None,      One(Word),      Budget,       true,  Cap);
    pub(crate) const TOKENIZER:      Flag = flag("tokenizer",       Some("tokenizer"),      None,      One(Word),      Capping,      true,  Cap);
    pub(crate) const COUNT_LIMIT:    Flag = flag("count_limit",     Some("count-limit"),    None,      One(Word),      Capping,      true,  Cap);
    pub(crate) const CHARS:          Flag = flag("chars",           Some("chars"),          None,      One(Word),      Budget,       true,  Cap);
    pub(crate) const HEAD:           Flag = flag("head",            Some("head"),           None,      One(Word),      Capping,      true,  Cap);
    pub(crate) const TAIL:           Flag = flag("tail",            Some("tail"),           None,      One(Word),      Capping,      true,  Cap);
    pub(crate) const LINES:          Flag = flag("lines",           Some("lines"),          Some('n'), One(Word),      Capping,      true,  Cap);
    pub(crate) const CUT:            Flag = flag("cut",             Some("cut"),            None,      One(Word),      Capping,      true,  Cap);
    pub(crate) const SPILL:          Flag = flag("spill",           Some("spill"),          None,      One(Path),      Spill,        false, Cap);
    pub(crate) const SPILL_DIR:      Flag = flag("spill_dir",       Some("spill-dir"),      None,      One(Path),      Store,        false, No);
    pub(crate) const STORE:          Flag = flag("store",           Some("store"),          None,      Nothing,        Store,        false, No);
    pub(crate) const NO_SPILL:       Flag = flag("no_spill",        Some("no-spill"),       None,      Nothing,        Spill,        false, No);
    pub(crate) const LIST:           Flag = flag("list",            Some("list"),           None,      Nothing,        StoreCommand, false, No);
    pub(crate) const SHOW:           Flag = flag("show",            Some("show"),           None,      One(Word),      StoreCommand, false, No);
    pub(crate) const GREP:           Flag = flag("grep",            Some("grep"),           None,      One(Word),      Show,         false, No);
    pub(crate) const CONTEXT:        Flag = flag("context",         Some("context"),        None,      One(Word),      Show,         false, No);
    pub(crate) const SUMMARY:        Flag = flag("summary",         Some("summary"),        None,      One(Word),      StoreCommand, false, No);
    pub(crate) const PRUNE:          Flag = flag("prune",           Some("prune"),          None,      Nothing,        StoreCommand, false, No);
    pub(crate) const RETAIN:         Flag = flag("retain",          Some("retain"),         None,      One(Word),      Retention,    false, Cap);
    pub(crate) const RETAIN_SIZE:    Flag = flag("retain_size",     Some("retain-size"),    None,      One(Word),      Retention,    false, Cap);
    pub(crate) const STYLE:          Flag = flag("style",           Some("style"),          None,      One(Word),      Look,         true,  Cap);
    pub(crate) const HEADER:         Flag = flag("header_template", Some("header"),         None,      One(Word),      Look,         true,  No);
    pub(crate) const MARKER:         Flag = flag("marker_template", Some("marker"),         None,      One(Word),      Look,         true,  Cap);
    pub(crate) const NO_HEADER:      Flag = flag("no_header",       Some("no-header"),      None,      Nothing,        Look,         true,  No);
    pub(crate) const JSON:           Flag = flag("json",            Some("json"),           None,      Nothing,        RunOutput,    false, No);
    pub(crate) const LIVE:           Flag = flag("live",            Some("live"),           None,      Nothing,        RunOutput,    false, No);
    pub(crate) const STRIP_ANSI:     Flag = flag("strip_ansi",      Some("strip-ansi"),     None,      Nothing,        Cleaning,     true,  Cap);
    pub(crate) const COLLAPSE_CR:    Flag = flag("collapse_cr",     Some("collapse-cr"),    None,      Nothing,        Cleaning,     true,  Cap);
    pub(crate) const SQUEEZE:        Flag = flag("squeeze",         Some("squeeze"),        None,      Nothing,        Cleaning,     true,  Cap);
    pub(crate) const MAX_LINE:       Flag = flag("max_line",        Some("max-line"),       None,      One(Word),      Cleaning,     true,  Cap);
    pub(crate) const BINARY:         Flag = flag("binary",          Some("binary"),         None,      One(Word),      Cleaning,     true,  Cap);
    pub(crate) const UTF8:           Flag = flag("utf8",            Some("utf8"),           None,      Nothing,        Cleaning,     true,  Cap);
    pub(crate) const CLEAN:          Flag = flag("clean",           Some("clean"),          None,      Nothing,        Cleaning,     true,  Cap);
    pub(crate) const KEEP:           Flag = flag("keep",            Some("keep"),           None,      Repeated(Word), Keeping,      true,  Cap);
    pub(crate) const KEEP_ERROR:     Flag = flag("keep_error",      Some("keep-error"),     None,      Repeated(Word), Keeping,      true,  Cap);
    pub(crate) const KEEP_ERRORS:    Flag = flag("keep_errors",     Some("keep-errors"),    None,      Nothing,        Keeping,      true,  Cap);
    pub(crate) const KEEP_CONTEXT:   Flag = flag("keep_context",    Some("keep-context"),   None,      One(Word),      Keeping,      true,  Cap);
    pub(crate) const KEEP_MAX:       Flag = flag("keep_max",        Some("keep-max"),       None,      One(Word),      Keeping,      true,  Cap);
    pub(crate) const FORMAT:         Flag = flag("format",          Some("format"),         None,      One(Word),      Formats,      true,  Cap);
    pub(crate) const JSON_LIMIT:     Flag = flag("json_limit",      Some("json-limit"),     None,      One(Word),      Formats,      true,  Cap);
    pub(crate) const PRETTY:         Flag = flag("pretty",          Some("pretty"),         None,      Nothing,        Formats,      true,  Cap);
    pub(crate) const FOLD:           Flag = flag("fold",            Some("fold"),           None,      Nothing,        Cleaning,     true,  Cap);
    pub(crate) const FOLD_PATTERN:   Flag = flag("fold_pattern",    Some("fold-pattern"),   None,      Repeated(Word), Cleaning,     true,  Cap);
    pub(crate) const REDACT:         Flag = flag("redact",          Some("redact"),         None,      Nothing,        Redaction,    true,  Cap);
    pub(crate) const REDACT_PATTERN: Flag = flag("redact_pattern",  Some("redact-pattern"), None,      Repeated(Word), Redaction,    true,  Cap);
    pub(crate) const PROFILE:        Flag = flag("profile",         Some("profile"),        None,      One(Word),      Profiles,     false, Cap);
    pub(crate) const PROFILES:       Flag = flag("profiles",        Some("profiles"),       None,      Nothing,        Profiles,     false, No);
    pub(crate) const HOOK:           Flag = flag("hook",            Some("hook"),           None,      One(Word),      Hook,         false, No);
    pub(crate) const INSTALL_HOOK:   Flag = flag("install_hook",    Some("install-hook"),   None,      One(Word),      Hook,         false, No);
    pub(crate) const UNINSTALL_HOOK: Flag = flag("uninstall_hook",  Some("uninstall-hook"), None,      One(Word),      Hook,         false, No);
    pub(crate) const SETTINGS:       Flag = flag("settings",        Some("settings"),       None,      One(Path),      Hook,         false, No);
    pub(crate) const PROJECT:        Flag = flag("project",         Some("project"),        None,      Nothing,        Hook,         false, No);
    pub(crate) const LIST_PROFILES:  Flag = flag("list_profiles",   Some("list-profiles"),  None,      Nothing,        Profiles,     false, No);
    pub(crate) const COMMAND:        Flag = flag("command",         Some("command"),        Some('c'), One(Word),      Wrap,         false, No);
    pub(crate) const SHELL:          Flag = flag("shell",           Some("shell"),          None,      One(Word),      Wrap,         true,  No);
    pub(crate) const STDERR:         Flag = flag("stderr",          Some("stderr"),         None,      One(Word),      Wrap,         true,  Run);
    pub(crate) const STDERR_MAX:     Flag = flag("stderr_max",      Some("stderr-max"),     None,      One(Word),      Wrap,         true,  Run);
    pub(crate) const TIMEOUT:        Flag = flag("timeout",         Some("timeout"),        None,      One(Duration),  Wrap,         true,  Run);
    pub(crate) const KILL_AFTER:     Flag = flag("kill_after",      Some("kill-after"),     None,      One(Duration),  Wrap,         true,  Run);
    pub(crate) const DRAIN:          Flag = flag("drain",           Some("drain"),          None,      One(Duration),  Wrap,         true,  Run);
    pub(crate) const NO_STATUS:      Flag = flag("no_status",       Some("no-status"),      None,      Nothing,        Wrap,         true,  No);
    pub(crate) const NO_STDIN:       Flag = flag("no_stdin",        Some("no-stdin"),       None,      Nothing,        Wrap,         true,  No);
    pub(crate) const PLAIN_ENV:      Flag = flag("plain_env",       Some("plain-env"),      None,      Nothing,        Wrap,         true,  Run);
    pub(crate) const PROGRAM:        Flag = flag("program",         None,                   None,      Repeated(Word), Input,        false, No);

    /// Every option, in the order of the clap definition (so that the first
    /// one refused is the first one `--help` lists).
    pub(crate) const FLAGS: &[&Flag] = &[
        &FILES,
        &MAX,
        &TOTAL,
        &TOKENS,
        &WINDOW,
        &RECENT,
        &WINDOW_CEILING,
        &TOKENIZER,
        &COUNT_LIMIT,
        &CHARS,
        &HEAD,
        &TAIL,
        &LINES,
        &CUT,
        &SPILL,
        &SPILL_DIR,
        &STORE,
        &NO_SPILL,
        &LIST,
        &SHOW,
        &GREP,
        &CONTEXT,
        &SUMMARY,
        &PRUNE,
        &RETAIN,
        &RETAIN_SIZE,
        &STYLE,
        &HEADER,
        &MARKER,
        &NO_HEADER,
        &JSON,
        &LIVE,
        &STRIP_ANSI,
        &COLLAPSE_CR,
        &SQUEEZE,
        &MAX_LINE,
        &BINARY,
        &UTF8,
        &CLEAN,
        &KEEP,
        &KEEP_ERROR,
        &KEEP_ERRORS,
        &KEEP_CONTEXT,
        &KEEP_MAX,
        &FORMAT,
        &JSON_LIMIT,
        &PRETTY,
        &FOLD,
        &FOLD_PATTERN,
        &REDACT,
        &REDACT_PATTERN,
        &PROFILE,
        &PROFILES,
        &HOOK,
        &INSTALL_HOOK,
        &UNINSTALL_HOOK,
        &SETTINGS,
        &PROJECT,
        &LIST_PROFILES,
        &COMMAND,
        &SHELL,
        &STDERR,
        &STDERR_MAX,
        &TIMEOUT,
        &KILL_AFTER,
        &DRAIN,
        &NO_STATUS,
        &NO_STDIN,
        &PLAIN_ENV,
        &PROGRAM,
    ];
}

pub(super) use table::*;

/// The option named `--long`.
pub(super) fn by_long(long: &str) -> Option<&'static Flag> {
    FLAGS.iter().copied().find(|flag| flag.long == Some(long))
}

/// The option named `-short`.
pub(super) fn by_short(short: char) -> Option<&'static Flag> {
    FLAGS.iter().copied().find(|flag| flag.short == Some(short))
}

/// The options of `group`, in order.
pub(super) fn of_group(group: Group) -> impl Iterator<Item = &'static Flag> {
    FLAGS
        .iter()
        .copied()
        .filter(move |flag| flag.group == group)
}

/// An option of the command line, for a caller that spells options as
/// the command line's words (the Python package): it names the option
/// through its entry, and the command line's parser judges the value.
#[derive(Clone, Copy, Debug)]
pub struct Spelling(&'static Flag);

impl Spelling {
    /// What it takes: `None` for a switch, else its value and whether it
    /// may be given several times.
    pub fn takes(&self) -> Option<(Value, bool)> {
        match self.0.takes {
            Takes::Nothing => None,
            Takes::One(value) => Some((value, false)),
            Takes::Repeated(value) => Some((value, true)),
        }
    }

    /// The word that gives a switch: `--LONG`.
    pub fn switch(&self) -> OsString {
        OsString::from(self.0.name())
    }

    /// The word that gives it `value`: `--LONG=VALUE`.
    pub fn with_value(&self, value: &OsStr) -> OsString {
        let mut word = self.switch();
        word.push("=");
        word.push(value);
        word
    }
}

/// The options a caller spells in a shape of its own (Python's
/// `header=False` is `--no-header`, `store=PATH` is `--spill-dir=PATH`), or
/// gives as arguments of their own (`show`'s `lines`).
pub mod spelled {
    use super::Spelling;

    pub const HEADER: Spelling = Spelling(&super::HEADER);
    pub const NO_HEADER: Spelling = Spelling(&super::NO_HEADER);
    pub const STORE: Spelling = Spelling(&super::STORE);
    pub const SPILL_DIR: Spelling = Spelling(&super::SPILL_DIR);
    pub const NO_STATUS: Spelling = Spelling(&super::NO_STATUS);
    pub const NO_STDIN: Spelling = Spelling(&super::NO_STDIN);
    pub const COMMAND: Spelling = Spelling(&super::COMMAND);
    pub const SHOW: Spelling = Spelling(&super::SHOW);
    pub const LINES: Spelling = Spelling(&super::LINES);
    pub const GREP: Spelling = Spelling(&super::GREP);
    pub const CONTEXT: Spelling = Spelling(&super::CONTEXT);
}

/// The Python package's functions that take options as keyword arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    /// `cap` and `Capper`.
    Cap,
    /// `run`: `cap`'s options and wrap mode's.
    Run,
    /// `show`: `cap`'s options that cap its view, as `--show` takes them.
    Show,
    /// `summary` and `list_outputs`: redaction of the commands they print,
    /// as `--summary` and `--list` take it.
    Listing,
}

/// The option the keyword argument `name` of `function` names: the long
/// option of the same name, `_` for `-`, if `function` takes it.
pub fn keyword(name: &str, function: Function) -> Option<Spelling> {
    if name.contains('-') {
        return None;
    }
    let flag = by_long(&name.replace('_', "-"))?;
    let takes = match (flag.keyword, function) {
        (Keyword::No, _) => false,
        (_, Function::Listing) => flag.group == Group::Redaction,
        (Keyword::Cap, Function::Show) => flag.applies_to_show(),
        (Keyword::Cap, _) => true,
        (Keyword::Run, _) => function == Function::Run,
    };
    takes.then_some(Spelling(flag))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for (at, flag) in FLAGS.iter().enumerate() {
            for other in &FLAGS[at + 1..] {
                assert_ne!(flag.id, other.id);
                assert!(
                    flag.long.is_none() || flag.long != other.long,
                    "{}",
                    flag.id
                );
                assert!(
                    flag.short.is_none() || flag.short != other.short,
                    "{}",
                    flag.id
                );
            }
        }
    }

    /// A keyword is the long option of the same name with `_` for `-`,
    /// if the functions take it.
    #[test]
    fn keywords_are_long_options() {
        let long = |name: &str, function: Function| {
            keyword(name, function).map(|option| option.switch().into_string().unwrap())
        };
        let strip_ansi = long("strip_ansi", Function::Cap);
        assert_eq!(strip_ansi.as_deref(), Some("--strip-ansi"));
        assert_eq!(long("strip-ansi", Function::Cap), None);
        assert_eq!(long("timeout", Function::Cap), None);
        assert_eq!(long("timeout", Function::Run).as_deref(), Some("--timeout"));
        assert_eq!(long("no_header", Function::Run), None);
        assert_eq!(long("shell", Function::Run), None);
        // The view is never spilled and applies no profile.
        assert_eq!(long("max", Function::Show).as_deref(), Some("--max"));
        for name in ["spill", "retain", "retain_size", "profile", "timeout"] {
            assert_eq!(long(name, Function::Show), None, "{name}");
        }
        let redact_pattern = long("redact_pattern", Function::Listing);
        assert_eq!(redact_pattern.as_deref(), Some("--redact-pattern"));
        assert_eq!(long("max", Function::Listing), None);
        assert_eq!(
            keyword("keep", Function::Cap).and_then(|option| option.takes()),
            Some((Value::Word, true))
        );
        assert_eq!(
            spelled::SPILL_DIR.with_value(OsStr::new("d")),
            OsString::from("--spill-dir=d")
        );
    }

    #[test]
    fn an_option_is_spelled_whole() {
        assert!(HOOK.spelled_in(&["--max", "1", "--hook", "claude-code"]));
        assert!(HOOK.spelled_in(&["--hook=claude-code"]));
        assert!(!HOOK.spelled_in(&["--hooks", "--install-hook", "x", "--", "hook"]));
        assert!(!FILES.spelled_in(&["files"]));
    }
}
