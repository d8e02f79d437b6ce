//! The plain, validated configuration of a command-line run, as
//! [`run`](crate::run) takes it. Nothing here parses arguments; the
//! binary's `cli.rs` does, and builds these values.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use crate::options::Options;
use crate::source::Input;
use crate::spill::SpillTarget;

/// Everything one run of toolcap does. Start from [`Config::new`] and set
/// the fields.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// How each stream is capped and rendered.
    pub options: Options,
    /// `--live`: print the head as it arrives, the header lines last.
    pub live: bool,
    /// `--spill` or `--spill-dir`.
    pub spill: Option<SpillTarget>,
    /// `--json`: print the report as one JSON object instead of the text.
    pub json: bool,
    /// Filter or wrap mode.
    pub mode: Mode,
    /// `--profile`: the profile whose options are in `options`, or the
    /// ones the input chooses from.
    pub profile: ProfileChoice,
}

impl Config {
    /// A run in `mode` with the default options, not live, not spilled.
    pub fn new(mode: Mode) -> Config {
        Config {
            options: Options::default(),
            live: false,
            spill: None,
            json: false,
            mode,
            profile: ProfileChoice::None,
        }
    }

    /// Whether the output ends with wrap mode's status line (when the
    /// command did not exit 0).
    pub(crate) fn status_line(&self) -> bool {
        match &self.mode {
            Mode::Wrap(wrap) => wrap.status_line,
            _ => false,
        }
    }
}

/// Which profile a run uses. A profile is a set of ordinary options, merged
/// into [`Options`] before the run: the run itself only needs its name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProfileChoice {
    /// None: the options are the command line's alone.
    #[default]
    None,
    /// This profile's options are in [`Config::options`].
    Applied(String),
    /// `--profile auto` in filter mode: the first of these that the
    /// input's first [`PROFILE_SNIFF_BYTES`] match is applied; when none
    /// does, [`Config::options`].
    FromInput(Vec<InputProfile>),
}

impl ProfileChoice {
    /// The profile already applied, if one is.
    pub(crate) fn applied(&self) -> Option<&str> {
        match self {
            ProfileChoice::Applied(name) => Some(name),
            _ => None,
        }
    }
}

/// How much of the input `--profile auto` looks at in filter mode: enough
/// for a test session's header or a build's first lines, little enough
/// to hold back before the first output.
pub const PROFILE_SNIFF_BYTES: usize = 4 * 1024;

/// A profile the input may choose (`--profile auto`, filter mode).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct InputProfile {
    /// Its name, for the JSON report.
    pub name: String,
    /// Regular expressions (multi-line: `^` and `$` match at line ends)
    /// looked for in the input's first bytes; one match chooses it.
    pub detect: Vec<String>,
    /// The run's options with the profile's.
    pub options: Options,
}

impl InputProfile {
    /// A profile chosen when one of `detect` matches, running with
    /// `options`.
    pub fn new(name: impl Into<String>, detect: Vec<String>, options: Options) -> InputProfile {
        InputProfile {
            name: name.into(),
            detect,
            options,
        }
    }
}

/// What toolcap reads.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Mode {
    /// Cap the concatenation of these inputs.
    Filter(Vec<Input>),
    /// Run a command and cap what it prints.
    Wrap(WrapConfig),
    /// Read the spill store ([`Config::spill`]).
    Store(StoreCommand),
}

/// What to do with the spill store.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreCommand {
    /// `--list`: the outputs, newest first.
    List,
    /// `--show ID [--lines A:B] [--grep PATTERN [--context N]]`: an
    /// output, byte for byte, or its lines A to B; or, when `capped` or
    /// with `grep`, that view capped by [`Config::options`] (see
    /// [`show`](crate::store::show)).
    Show {
        /// Any unique prefix of the id.
        id: String,
        /// 1-based, inclusive.
        lines: Option<(u64, u64)>,
        /// `--grep`: only the lines that match, numbered.
        grep: Option<Grep>,
        /// Cap the view (a budget was given); a view with `grep` always is.
        capped: bool,
    },
    /// `--summary ID`: one line that stands for the output.
    Summary {
        /// Any unique prefix of the id.
        id: String,
    },
    /// `--prune`: apply retention now.
    Prune,
}

/// `--grep PATTERN [--context N]` of `--show`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Grep {
    /// A regex in `--keep`'s syntax, matched against each line without
    /// its line end.
    pub pattern: String,
    /// `--context`: lines shown before and after each matching line.
    pub context: u64,
}

impl Grep {
    /// The lines matching `pattern`, without context.
    pub fn new(pattern: impl Into<String>) -> Grep {
        Grep {
            pattern: pattern.into(),
            context: 0,
        }
    }
}

/// How wrap mode runs the command. Start from [`WrapConfig::new`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct WrapConfig {
    /// The program and its arguments (for `-c`, the shell, `-c`, STRING).
    /// Must not be empty: [`run::command`](crate::run::command) refuses an empty one.
    pub argv: Vec<OsString>,
    /// Whether stderr shares stdout's pipe.
    pub stderr: StderrMode,
    /// `--timeout`; `None` waits for ever.
    pub timeout: Option<Duration>,
    /// `--kill-after`: from SIGTERM to SIGKILL.
    pub kill_after: Duration,
    /// `--drain`: how long to read the pipes after the command exits.
    pub drain: Duration,
    /// Append the status line when the command did not exit 0.
    pub status_line: bool,
    /// Give the command toolcap's stdin (else /dev/null).
    pub inherit_stdin: bool,
    /// `--plain-env`.
    pub plain_env: bool,
    /// The directory the command runs in (`None`: toolcap's own).
    pub cwd: Option<PathBuf>,
    /// The command's whole environment instead of toolcap's (`None`:
    /// inherited); `plain_env` applies on top of it.
    pub env: Option<Vec<(OsString, OsString)>>,
    /// Bytes for the command's stdin, which is then a pipe closed after
    /// them (`inherit_stdin` is then not looked at). The command may stop
    /// reading early: what it did not read is dropped.
    pub input: Option<Vec<u8>>,
}

/// `--kill-after` when not given.
pub const DEFAULT_KILL_AFTER: Duration = Duration::from_secs(5);
/// `--drain` when not given.
pub const DEFAULT_DRAIN: Duration = Duration::from_secs(2);

impl WrapConfig {
    /// Runs `argv` (which must not be empty) with the command line's
    /// defaults: merged stderr, no timeout, status line, inherited stdin.
    pub fn new(argv: Vec<OsString>) -> WrapConfig {
        WrapConfig {
            argv,
            stderr: StderrMode::Merged,
            timeout: None,
            kill_after: DEFAULT_KILL_AFTER,
            drain: DEFAULT_DRAIN,
            status_line: true,
            inherit_stdin: true,
            plain_env: false,
            cwd: None,
            env: None,
            input: None,
        }
    }
}

/// Where the command's stderr goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StderrMode {
    /// One pipe for both, in the order the child wrote them (like `2>&1`).
    Merged,
    /// The child's stderr capped on its own, onto toolcap's stderr, within
    /// `max` bytes (`--stderr-max`; `None`: the main budget).
    Separate {
        /// `--stderr-max`.
        max: Option<u64>,
    },
}
