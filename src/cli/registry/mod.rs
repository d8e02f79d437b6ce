//! The one registry of options (after ripgrep's table of flags): every
//! argument of the command line, once, with its names, what it takes, its
//! help text, the group it belongs to, whether a profile may set it, which
//! Python functions take it as a keyword, and its update: what a value of
//! it changes in the [`Draft`] the command line, the profiles and the
//! Python keywords all fill. clap's definition is built from it
//! ([`command`](super::args::command)); the rest of `cli` asks an option's
//! entry what it is instead of comparing its name with a string. The
//! entries are in `defs.rs`.

mod defs;

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::time::Duration;

use clap::builder::{OsStringValueParser, PossibleValue, PossibleValuesParser};
use clap::builder::{TypedValueParser, ValueParser};
use clap::{Arg, ArgAction, ArgMatches};

use super::draft::{Agent, Draft, Given, Lines, StderrChoice, parse_lines};
use crate::cut::CutMode;
use crate::format::Format;
use crate::measure::Tokenizer;
use crate::options::{Binary, Style};
use crate::size::{SizeOrPercent, parse_count, parse_duration, parse_size, parse_size_or_percent};

pub(super) use defs::*;

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
    One(Kind),
    /// A value each time it is given, all of which count (`--keep`).
    Repeated(Kind),
}

/// The type of an option's value, and so its parser: the command line's
/// words, a profile's and a Python keyword's str all go through it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// A SIZE: `10k`, `4Mi`.
    Size,
    /// A COUNT: plain digits.
    Count,
    /// A SIZE or a PCT of the budget.
    Share,
    /// `--lines`: a count, or a range A:B.
    Lines,
    Duration,
    /// UTF-8 text: an id, a pattern, a template, a name.
    Text,
    /// Any bytes the OS takes: a command, a shell.
    Os,
    /// A path that an option writes to: never empty.
    Path,
    /// A FILE to read: an empty one is a FILE that cannot be read, as for
    /// `cat`.
    Files,
    /// One of a fixed set of names.
    Choice(&'static [Choice]),
}

/// One of the names a [`Kind::Choice`] takes.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Choice {
    pub(super) name: &'static str,
    /// Shown under the option's long help (`Possible values:`).
    pub(super) help: Option<&'static str>,
    pub(super) pick: Pick,
}

/// What a [`Choice`] stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pick {
    Tokenizer(Tokenizer),
    Cut(CutMode),
    Style(Style),
    Binary(Binary),
    Format(Format),
    Stderr(StderrChoice),
    Agent(Agent),
}

/// An option's value, typed: what an update takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Parsed {
    /// A switch was given.
    Switch,
    Number(u64),
    Share(SizeOrPercent),
    Lines(Lines),
    Duration(Duration),
    Text(String),
    Os(OsString),
    Path(PathBuf),
    Pick(Pick),
}

/// An update given a value of another type than its entry's [`Kind`]: a
/// mistake in the table, which its tests rule out.
#[derive(Debug)]
pub(super) struct Mismatch;

/// The value of each type, for the updates.
impl Parsed {
    pub(super) fn number(self) -> Result<u64, Mismatch> {
        match self {
            Parsed::Number(number) => Ok(number),
            _ => Err(Mismatch),
        }
    }

    pub(super) fn share(self) -> Result<SizeOrPercent, Mismatch> {
        match self {
            Parsed::Share(share) => Ok(share),
            _ => Err(Mismatch),
        }
    }

    pub(super) fn lines(self) -> Result<Lines, Mismatch> {
        match self {
            Parsed::Lines(lines) => Ok(lines),
            _ => Err(Mismatch),
        }
    }

    pub(super) fn duration(self) -> Result<Duration, Mismatch> {
        match self {
            Parsed::Duration(duration) => Ok(duration),
            _ => Err(Mismatch),
        }
    }

    pub(super) fn text(self) -> Result<String, Mismatch> {
        match self {
            Parsed::Text(text) => Ok(text),
            _ => Err(Mismatch),
        }
    }

    pub(super) fn os(self) -> Result<OsString, Mismatch> {
        match self {
            Parsed::Os(os) => Ok(os),
            _ => Err(Mismatch),
        }
    }

    pub(super) fn path(self) -> Result<PathBuf, Mismatch> {
        match self {
            Parsed::Path(path) => Ok(path),
            _ => Err(Mismatch),
        }
    }

    fn pick(self) -> Result<Pick, Mismatch> {
        match self {
            Parsed::Pick(pick) => Ok(pick),
            _ => Err(Mismatch),
        }
    }

    pub(super) fn tokenizer(self) -> Result<Tokenizer, Mismatch> {
        match self.pick()? {
            Pick::Tokenizer(tokenizer) => Ok(tokenizer),
            _ => Err(Mismatch),
        }
    }

    pub(super) fn cut(self) -> Result<CutMode, Mismatch> {
        match self.pick()? {
            Pick::Cut(cut) => Ok(cut),
            _ => Err(Mismatch),
        }
    }

    pub(super) fn style(self) -> Result<Style, Mismatch> {
        match self.pick()? {
            Pick::Style(style) => Ok(style),
            _ => Err(Mismatch),
        }
    }

    pub(super) fn binary(self) -> Result<Binary, Mismatch> {
        match self.pick()? {
            Pick::Binary(binary) => Ok(binary),
            _ => Err(Mismatch),
        }
    }

    pub(super) fn format(self) -> Result<Format, Mismatch> {
        match self.pick()? {
            Pick::Format(format) => Ok(format),
            _ => Err(Mismatch),
        }
    }

    pub(super) fn stderr(self) -> Result<StderrChoice, Mismatch> {
        match self.pick()? {
            Pick::Stderr(stderr) => Ok(stderr),
            _ => Err(Mismatch),
        }
    }

    pub(super) fn agent(self) -> Result<Agent, Mismatch> {
        match self.pick()? {
            Pick::Agent(agent) => Ok(agent),
            _ => Err(Mismatch),
        }
    }
}

impl Kind {
    /// clap's parser of a value of this kind: the same functions
    /// [`Kind::parse`] calls, so that a value is judged the same way
    /// whoever gives it.
    fn parser(self) -> ValueParser {
        match self {
            Kind::Size => ValueParser::new(parse_size),
            Kind::Count => ValueParser::new(parse_count),
            Kind::Share => ValueParser::new(parse_size_or_percent),
            Kind::Lines => ValueParser::new(parse_lines),
            Kind::Duration => ValueParser::new(parse_duration),
            Kind::Text => ValueParser::string(),
            Kind::Os => ValueParser::os_string(),
            Kind::Path => ValueParser::new(OsStringValueParser::new().try_map(non_empty_path)),
            Kind::Files => ValueParser::new(OsStringValueParser::new().map(PathBuf::from)),
            Kind::Choice(choices) => ValueParser::new(Choices(choices)),
        }
    }

    /// A value of this kind written as a word, as a profile's args hold
    /// it; an error says what is expected, as clap's value parsers do.
    pub(super) fn parse(self, word: &str) -> Result<Parsed, String> {
        Ok(match self {
            Kind::Size => Parsed::Number(parse_size(word)?),
            Kind::Count => Parsed::Number(parse_count(word)?),
            Kind::Share => Parsed::Share(parse_size_or_percent(word)?),
            Kind::Lines => Parsed::Lines(parse_lines(word)?),
            Kind::Duration => Parsed::Duration(parse_duration(word)?),
            Kind::Text => Parsed::Text(word.to_string()),
            Kind::Os => Parsed::Os(word.into()),
            Kind::Path => Parsed::Path(non_empty_path(word.into())?),
            Kind::Files => Parsed::Path(word.into()),
            Kind::Choice(choices) => match choices.iter().find(|choice| choice.name == word) {
                Some(choice) => Parsed::Pick(choice.pick),
                None => {
                    let names: Vec<&str> = choices.iter().map(|choice| choice.name).collect();
                    return Err(format!("expected one of {}", names.join(", ")));
                }
            },
        })
    }

    /// The values clap parsed for the argument `id`, in order.
    fn parsed(self, matches: &ArgMatches, id: &str) -> Vec<Parsed> {
        fn all<T: Clone + Send + Sync + 'static>(
            matches: &ArgMatches,
            id: &str,
            typed: impl Fn(T) -> Parsed,
        ) -> Vec<Parsed> {
            matches
                .get_many::<T>(id)
                .into_iter()
                .flatten()
                .cloned()
                .map(typed)
                .collect()
        }
        match self {
            Kind::Size | Kind::Count => all(matches, id, Parsed::Number),
            Kind::Share => all(matches, id, Parsed::Share),
            Kind::Lines => all(matches, id, Parsed::Lines),
            Kind::Duration => all(matches, id, Parsed::Duration),
            Kind::Text => all(matches, id, Parsed::Text),
            Kind::Os => all(matches, id, Parsed::Os),
            Kind::Path | Kind::Files => all(matches, id, Parsed::Path),
            Kind::Choice(_) => all(matches, id, Parsed::Pick),
        }
    }
}

/// clap's message for a value that is not UTF-8, of an option that reads
/// text.
fn not_utf8() -> String {
    let kind = clap::error::ErrorKind::InvalidUtf8;
    kind.as_str().unwrap_or("invalid UTF-8").to_string()
}

/// A path that is not empty, for an option that writes there: clap's own
/// parser would say no value was given.
fn non_empty_path(path: OsString) -> Result<PathBuf, String> {
    if path.is_empty() {
        Err("expected a path, not an empty string".into())
    } else {
        Ok(PathBuf::from(path))
    }
}

/// clap's parser of a [`Kind::Choice`]: clap's own for a set of names
/// (its message for a wrong one, its suggestions, the names in `--help`
/// and the completions), then what the name stands for.
#[derive(Clone)]
struct Choices(&'static [Choice]);

impl Choices {
    fn names(&self) -> PossibleValuesParser {
        PossibleValuesParser::new(self.0.iter().map(|choice| {
            let value = PossibleValue::new(choice.name);
            match choice.help {
                Some(help) => value.help(help),
                None => value,
            }
        }))
    }
}

impl TypedValueParser for Choices {
    type Value = Pick;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<Pick, clap::Error> {
        let name = self.names().parse_ref(command, arg, value)?;
        let choice = self.0.iter().find(|choice| choice.name == name);
        // The names' parser accepts only the names.
        choice
            .map(|choice| choice.pick)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidValue))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            self.names()
                .possible_values()
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .into_iter(),
        ))
    }
}

/// The help text of an option.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Doc {
    /// What `--help` calls its value: `SIZE`, `REGEX`.
    pub(super) value_name: Option<&'static str>,
    /// The section of `--help` it is listed under; none: `Options`.
    pub(super) heading: Option<&'static str>,
    /// One line, for `-h`.
    pub(super) help: &'static str,
    /// For `--help` and the man page; none: `help`.
    pub(super) long_help: Option<&'static str>,
    /// Left out of `--help` (what only the completions use).
    pub(super) hide: bool,
}

/// How clap reads an option, beyond what it takes.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Parse {
    /// `--max -3` reaches the option's parser, which refuses it naming the
    /// option, instead of clap reading `-3` as an unknown flag.
    pub(super) negative_numbers: bool,
    /// The options clap refuses beside it (by id).
    pub(super) conflicts: &'static [&'static str],
    /// The clap group of options of which only one may be given.
    pub(super) in_group: Option<&'static str>,
    /// Only after `--` (the program).
    pub(super) last: bool,
}

/// What most options need of [`Parse`]: nothing.
pub(super) const PLAIN: Parse = Parse {
    negative_numbers: false,
    conflicts: &[],
    in_group: None,
    last: false,
};

/// What a value of an option changes in the draft.
pub(super) type Update = fn(Parsed, &mut Draft) -> Result<(), Mismatch>;

/// One option of the command line.
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
    pub(super) doc: Doc,
    pub(super) parse: Parse,
    /// Called once for each value given (a switch: once, with
    /// [`Parsed::Switch`]), in the order given; each option's update
    /// changes only what is its own, so options given in any order make
    /// the same draft.
    pub(super) update: Update,
}

impl PartialEq for Flag {
    fn eq(&self, other: &Flag) -> bool {
        self.id == other.id
    }
}

impl std::fmt::Debug for Flag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
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

    /// How clap's messages name it: `--LONG <VALUE>`, or `--LONG` for a
    /// switch.
    pub(super) fn shown(&self) -> String {
        match (self.takes, self.doc.value_name) {
            (Takes::Nothing, _) | (_, None) => self.name(),
            (_, Some(value)) => format!("{} <{value}>", self.name()),
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

    /// The argument of clap's definition.
    pub(super) fn arg(&self) -> Arg {
        let mut arg = Arg::new(self.id).help(self.doc.help);
        if let Some(long) = self.long {
            arg = arg.long(long);
        }
        if let Some(short) = self.short {
            arg = arg.short(short);
        }
        if let Some(name) = self.doc.value_name {
            arg = arg.value_name(name);
        }
        if let Some(long_help) = self.doc.long_help {
            arg = arg.long_help(long_help);
        }
        if let Some(heading) = self.doc.heading {
            arg = arg.help_heading(heading);
        }
        arg = match self.takes {
            Takes::Nothing => arg.action(ArgAction::SetTrue),
            Takes::One(kind) => arg.action(ArgAction::Set).value_parser(kind.parser()),
            Takes::Repeated(kind) => {
                let arg = arg.action(ArgAction::Append).value_parser(kind.parser());
                // A positional argument takes all the words that are its.
                if self.long.is_none() {
                    arg.num_args(1..)
                } else {
                    arg
                }
            }
        };
        if self.doc.hide {
            arg = arg.hide(true);
        }
        if self.parse.negative_numbers {
            arg = arg.allow_negative_numbers(true);
        }
        if !self.parse.conflicts.is_empty() {
            arg = arg.conflicts_with_all(self.parse.conflicts);
        }
        if let Some(group) = self.parse.in_group {
            arg = arg.group(group);
        }
        if self.parse.last {
            arg = arg.last(true);
        }
        arg
    }

    /// What the command line `matches` reads gave it, in order: nothing if
    /// it was not given (only defaulted), one [`Parsed::Switch`] for a
    /// switch.
    pub(super) fn parsed(&self, matches: &ArgMatches) -> Vec<Parsed> {
        if matches.value_source(self.id) != Some(clap::parser::ValueSource::CommandLine) {
            return Vec::new();
        }
        match self.takes {
            Takes::Nothing => vec![Parsed::Switch],
            Takes::One(kind) | Takes::Repeated(kind) => kind.parsed(matches, self.id),
        }
    }

    /// Its value written as `word` (a profile's args, a variable), parsed
    /// as the command line parses it; a switch takes none.
    pub(super) fn parse_word(&self, word: &str) -> Result<Parsed, String> {
        match self.takes {
            Takes::Nothing => Err(format!("{} takes no value", self.name())),
            Takes::One(kind) | Takes::Repeated(kind) => kind.parse(word),
        }
    }

    /// Its value as a caller hands it over (a Python keyword's), parsed
    /// as the command line parses `--LONG=VALUE`, with the command line's
    /// message (clap's, for a value that is not UTF-8 or not one of a
    /// choice's names).
    pub(super) fn read(&self, value: &OsStr) -> Result<Parsed, String> {
        let kind = match self.takes {
            Takes::Nothing => return Err(format!("{} takes no value", self.name())),
            Takes::One(kind) | Takes::Repeated(kind) => kind,
        };
        let parsed = match kind {
            Kind::Os => Ok(Parsed::Os(value.to_owned())),
            Kind::Path => non_empty_path(value.to_owned()).map(Parsed::Path),
            Kind::Files => Ok(Parsed::Path(value.into())),
            _ => match value.to_str() {
                Some(word) => kind.parse(word),
                None => return Err(not_utf8()),
            },
        };
        parsed.map_err(|reason| match kind {
            Kind::Choice(choices) => self.not_a_choice(choices, value),
            _ => format!(
                "invalid value '{}' for '{}': {reason}",
                value.to_string_lossy(),
                self.shown()
            ),
        })
    }

    /// clap's message for `value`, which is none of `choices`' names: its
    /// own words, with the names it may have meant.
    fn not_a_choice(&self, choices: &'static [Choice], value: &OsStr) -> String {
        let mut command = super::args::command();
        command.build();
        let arg = command.get_arguments().find(|arg| arg.get_id() == self.id);
        match Choices(choices).parse_ref(&command, arg, value) {
            Err(err) => super::args::one_line(&err),
            // Not reached: the names are the same.
            Ok(_) => format!(
                "invalid value '{}' for '{}'",
                value.to_string_lossy(),
                self.shown()
            ),
        }
    }

    /// Its update of `draft` with `value`.
    pub(super) fn apply(&self, value: Parsed, draft: &mut Draft) -> Result<(), String> {
        (self.update)(value, draft).map_err(|Mismatch| {
            format!(
                "{}: a value of the wrong type for its update (a bug in toolcap)",
                self.name()
            )
        })
    }
}

/// Which of the Python package's functions take an option as a keyword
/// argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Keyword {
    /// None: it has no keyword, or one of a shape of its own ([`SHAPED`]).
    No,
    /// `cap`, `Capper` and `run` (and `show`, as its view's options).
    Cap,
    /// `run` only.
    Run,
}

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

/// An option as a caller that is not a command line names it (a Python
/// keyword argument, or what a Python function's own arguments stand
/// for): an entry of the registry, or a keyword of a shape of its own,
/// which stands for one of two entries or for one negated.
#[derive(Clone, Copy, Debug)]
pub struct Named(Target);

#[derive(Clone, Copy, Debug)]
enum Target {
    /// The entry itself.
    Flag(&'static Flag),
    /// `header`: false is `--no-header`, a template is `--header`.
    Header,
    /// `store`: true is `--store`, a path is `--spill-dir`.
    Store,
    /// `status`: false is `--no-status`.
    Status,
}

/// What a [`Named`] option takes from its caller, as [`Value`]s: the
/// caller reads its own types into one of them, and the option's parser
/// then judges the value as the command line's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepts {
    /// A [`Value::Bool`].
    Switch,
    /// A [`Value::Word`]: a number, a SIZE, a name, a pattern, a template.
    Word,
    /// A [`Value::Word`] that is a path, handed to the OS.
    Path,
    /// A [`Value::Word`] that is a DURATION.
    Duration,
    /// A [`Value::Word`] or [`Value::Words`]: each a value of its own
    /// (`--keep`, given once for each).
    Words,
    /// A [`Value::Bool`] or a template [`Value::Word`] (`header`).
    SwitchOrTemplate,
    /// A [`Value::Bool`] or a path [`Value::Word`] (`store`).
    SwitchOrPath,
}

/// A value given to a [`Named`] option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Bool(bool),
    /// A value as the command line would read it after `--LONG=`.
    Word(OsString),
    Words(Vec<OsString>),
}

/// The keywords of a shape of their own, and the functions that take each.
const SHAPED: &[(&str, Target, &[Function])] = &[
    (
        "header",
        Target::Header,
        &[Function::Cap, Function::Run, Function::Show],
    ),
    ("store", Target::Store, &[Function::Cap, Function::Run]),
    ("status", Target::Status, &[Function::Run]),
];

impl Named {
    /// What it takes.
    pub fn accepts(&self) -> Accepts {
        match self.0 {
            Target::Flag(flag) => match flag.takes {
                Takes::Nothing => Accepts::Switch,
                Takes::Repeated(_) => Accepts::Words,
                Takes::One(Kind::Path | Kind::Files) => Accepts::Path,
                Takes::One(Kind::Duration) => Accepts::Duration,
                Takes::One(_) => Accepts::Word,
            },
            Target::Header => Accepts::SwitchOrTemplate,
            Target::Store => Accepts::SwitchOrPath,
            Target::Status => Accepts::Switch,
        }
    }

    /// Adds what `value` gives it to `given`, each value parsed by its
    /// entry's parser and refused with the command line's message; a
    /// switch given false (or, negated, true) adds nothing.
    pub(super) fn give(self, value: Value, given: &mut Given) -> Result<(), String> {
        let switch = |flag: &'static Flag, on: bool, given: &mut Given| {
            if on {
                given.push(flag, Parsed::Switch);
            }
        };
        match (self.0, value) {
            (Target::Flag(flag), Value::Bool(on)) if flag.takes == Takes::Nothing => {
                switch(flag, on, given)
            }
            (Target::Flag(flag), Value::Word(word)) if flag.takes != Takes::Nothing => {
                given.push(flag, flag.read(&word)?)
            }
            (Target::Flag(flag), Value::Words(words))
                if matches!(flag.takes, Takes::Repeated(_)) =>
            {
                // `toolcap --` with nothing after it.
                if words.is_empty() && *flag == PROGRAM {
                    return Err(super::args::NO_PROGRAM.into());
                }
                for word in words {
                    given.push(flag, flag.read(&word)?);
                }
            }
            (Target::Header, Value::Bool(on)) => switch(&NO_HEADER, !on, given),
            (Target::Header, Value::Word(template)) => given.push(&HEADER, HEADER.read(&template)?),
            (Target::Store, Value::Bool(on)) => switch(&STORE, on, given),
            (Target::Store, Value::Word(dir)) => given.push(&SPILL_DIR, SPILL_DIR.read(&dir)?),
            (Target::Status, Value::Bool(on)) => switch(&NO_STATUS, !on, given),
            (target, value) => {
                return Err(format!(
                    "{target:?}: {value:?} is a value of the wrong type for it (a bug in toolcap)"
                ));
            }
        }
        Ok(())
    }
}

/// What a caller names that is no keyword: what `run`'s command and its
/// stdin, and `show`'s own arguments and store, stand for.
pub mod named {
    use super::{Named, Target};

    pub const COMMAND: Named = Named(Target::Flag(&super::COMMAND));
    pub const PROGRAM: Named = Named(Target::Flag(&super::PROGRAM));
    pub const NO_STDIN: Named = Named(Target::Flag(&super::NO_STDIN));
    pub const SHOW: Named = Named(Target::Flag(&super::SHOW));
    pub const LINES: Named = Named(Target::Flag(&super::LINES));
    pub const GREP: Named = Named(Target::Flag(&super::GREP));
    pub const CONTEXT: Named = Named(Target::Flag(&super::CONTEXT));
    pub const SPILL_DIR: Named = Named(Target::Flag(&super::SPILL_DIR));
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

/// The option the keyword argument `name` of `function` names: one of a
/// shape of its own, or the long option of the same name, `_` for `-`, if
/// `function` takes it.
pub fn keyword(name: &str, function: Function) -> Option<Named> {
    if let Some((_, target, functions)) = SHAPED.iter().find(|(known, ..)| *known == name) {
        return functions.contains(&function).then_some(Named(*target));
    }
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
    takes.then_some(Named(Target::Flag(flag)))
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

    /// A keyword is one of a shape of its own, or the long option of the
    /// same name with `_` for `-`, if the functions take it.
    #[test]
    fn keywords_are_long_options() {
        let long = |name: &str, function: Function| match keyword(name, function)?.0 {
            Target::Flag(flag) => Some(flag.name()),
            shaped => Some(format!("{shaped:?}")),
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
        for name in [
            "spill",
            "retain",
            "retain_size",
            "profile",
            "timeout",
            "store",
        ] {
            assert_eq!(long(name, Function::Show), None, "{name}");
        }
        let redact_pattern = long("redact_pattern", Function::Listing);
        assert_eq!(redact_pattern.as_deref(), Some("--redact-pattern"));
        assert_eq!(long("max", Function::Listing), None);
        assert_eq!(long("header", Function::Show).as_deref(), Some("Header"));
        assert_eq!(long("status", Function::Cap), None);
        let accepts = |name| keyword(name, Function::Run).map(|named| named.accepts());
        assert_eq!(accepts("keep"), Some(Accepts::Words));
        assert_eq!(accepts("timeout"), Some(Accepts::Duration));
        assert_eq!(accepts("spill"), Some(Accepts::Path));
        assert_eq!(accepts("store"), Some(Accepts::SwitchOrPath));
        assert_eq!(accepts("status"), Some(Accepts::Switch));
    }

    /// A keyword of a shape of its own gives the entry it stands for, or
    /// nothing.
    #[test]
    fn shaped_keywords_give_their_entries() {
        let given = |name: &str, value: Value| {
            let mut given = Given::default();
            let named = keyword(name, Function::Run).unwrap();
            named.give(value, &mut given).map(|()| given)
        };
        let store = given("store", Value::Word("d".into())).unwrap();
        assert!(store.has(&SPILL_DIR) && !store.has(&STORE));
        assert!(given("store", Value::Bool(true)).unwrap().has(&STORE));
        assert!(!given("store", Value::Bool(false)).unwrap().has(&STORE));
        assert!(given("header", Value::Bool(false)).unwrap().has(&NO_HEADER));
        assert!(!given("header", Value::Bool(true)).unwrap().has(&NO_HEADER));
        assert!(
            given("header", Value::Word("x".into()))
                .unwrap()
                .has(&HEADER)
        );
        assert!(given("status", Value::Bool(false)).unwrap().has(&NO_STATUS));
        assert!(!given("status", Value::Bool(true)).unwrap().has(&NO_STATUS));
        assert!(given("status", Value::Word("x".into())).is_err());
        assert!(given("keep", Value::Bool(true)).is_err());
    }

    /// A value of each entry's kind, as its parser makes one.
    fn sample(takes: Takes) -> Parsed {
        match takes {
            Takes::Nothing => Parsed::Switch,
            Takes::One(kind) | Takes::Repeated(kind) => match kind {
                Kind::Size | Kind::Count => Parsed::Number(1),
                Kind::Share => Parsed::Share(SizeOrPercent::Bytes(1)),
                Kind::Lines => Parsed::Lines(Lines::Count(1)),
                Kind::Duration => Parsed::Duration(Duration::from_secs(1)),
                Kind::Text => Parsed::Text("x".into()),
                Kind::Os => Parsed::Os("x".into()),
                Kind::Path | Kind::Files => Parsed::Path("x".into()),
                Kind::Choice(choices) => Parsed::Pick(choices[0].pick),
            },
        }
    }

    /// Each entry's update takes the values its kind parses, and each
    /// choice's name parses to its own pick.
    #[test]
    fn updates_take_their_kind() {
        for flag in FLAGS {
            let mut draft = Draft::default();
            assert_eq!(
                flag.apply(sample(flag.takes), &mut draft),
                Ok(()),
                "{flag:?}"
            );
            if let Takes::One(Kind::Choice(choices)) = flag.takes {
                for choice in choices {
                    let parsed = Kind::Choice(choices).parse(choice.name);
                    assert_eq!(parsed, Ok(Parsed::Pick(choice.pick)));
                    assert_eq!(flag.apply(Parsed::Pick(choice.pick), &mut draft), Ok(()));
                }
            }
        }
        let mismatch = MAX.apply(Parsed::Switch, &mut Draft::default());
        assert!(mismatch.is_err_and(|err| err.starts_with("--max: ")));
    }

    #[test]
    fn an_option_is_spelled_whole() {
        assert!(HOOK.spelled_in(&["--max", "1", "--hook", "claude-code"]));
        assert!(HOOK.spelled_in(&["--hook=claude-code"]));
        assert!(!HOOK.spelled_in(&["--hooks", "--install-hook", "x", "--", "hook"]));
        assert!(!FILES.spelled_in(&["files"]));
    }
}
