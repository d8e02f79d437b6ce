//! The draft the options fill (ripgrep's low-level arguments): the
//! [`Options`] each option's update changes, and what the rest of a run
//! needs of the command line, as given. The command line's matches, a
//! profile's options and the Python keywords all fill it through the
//! registry's updates; [`Draft::into_config`] then makes the [`Config`]:
//! the environment's defaults, the mode, and the one check of the options
//! that only mean something together (`--context` needs `--grep`). What
//! contradicts the capping itself is [`Plan::compile`](crate::plan::Plan)'s.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::ArgMatches;

use super::profile;
use super::registry::{self, Flag, Parsed};
use crate::config::{Config, Grep, Mode, StderrMode, StoreCommand, WrapConfig};
use crate::measure::Tokenizer;
use crate::options::{Binary, Options, Style};
use crate::size::{parse_count, parse_size};
use crate::source::Input;
use crate::spill::{SpillTarget, StoreTarget};

const DEFAULT_SHELL: &str = "/bin/sh";

/// `--lines`: a count N to cap by, or a range A:B for `--show`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lines {
    Count(u64),
    Range(u64, u64),
}

/// `--lines`'s parser.
pub(crate) fn parse_lines(text: &str) -> Result<Lines, String> {
    let Some((first, last)) = text.split_once(':') else {
        return parse_count(text).map(Lines::Count);
    };
    match (parse_count(first), parse_count(last)) {
        (Ok(first), Ok(last)) if 1 <= first && first <= last => Ok(Lines::Range(first, last)),
        _ => Err("expected a line range A:B with 1 <= A <= B, e.g. 10:20".into()),
    }
}

/// `--stderr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StderrChoice {
    Merged,
    Separate,
}

/// The agents toolcap can be a hook of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Agent {
    /// Claude Code: a PreToolUse hook for its Bash tool.
    ClaudeCode,
}

/// The options given, each with its values in the order given: the
/// command line's (read off clap's matches) or a caller's (the Python
/// keywords, [`Named`](registry::Named)), before they fill a [`Draft`].
#[derive(Debug, Default)]
pub(crate) struct Given(Vec<(&'static Flag, Parsed)>);

impl Given {
    /// What the command line `matches` reads gave each option.
    pub(crate) fn from_matches(matches: &ArgMatches) -> Given {
        let mut given = Given::default();
        for flag in registry::FLAGS {
            for value in flag.parsed(matches) {
                given.push(flag, value);
            }
        }
        given
    }

    pub(crate) fn push(&mut self, flag: &'static Flag, value: Parsed) {
        self.0.push((flag, value));
    }

    /// Whether `flag` was given.
    pub(crate) fn has(&self, flag: &Flag) -> bool {
        self.0.iter().any(|(given, _)| *given == flag)
    }

    /// Applies each option's values to `draft`, the options in the
    /// registry's order (as the command line's are), each one's values in
    /// the order given.
    pub(crate) fn apply(&self, draft: &mut Draft) -> Result<(), String> {
        for flag in registry::FLAGS {
            for (_, value) in self.0.iter().filter(|(given, _)| given == flag) {
                flag.apply(value.clone(), draft)?;
            }
        }
        Ok(())
    }

    /// The draft the options fill.
    pub(crate) fn draft(&self) -> Result<Draft, String> {
        let mut draft = Draft::default();
        self.apply(&mut draft)?;
        Ok(draft)
    }

    /// What clap refuses of a command line's options given together, for
    /// a caller's, said as clap says it: the first option given that
    /// another given one conflicts with, and every such other (clap has
    /// judged the command line's already).
    pub(crate) fn refuse_conflicts(&self) -> Result<(), String> {
        let mut present: Vec<&'static Flag> = Vec::new();
        for (flag, _) in &self.0 {
            if !present.contains(flag) {
                present.push(flag);
            }
        }
        for flag in &present {
            let others: Vec<String> = present
                .iter()
                .filter(|other| {
                    other.id != flag.id
                        && (flag.parse.conflicts.contains(&other.id)
                            || other.parse.conflicts.contains(&flag.id)
                            || (flag.parse.in_group.is_some()
                                && flag.parse.in_group == other.parse.in_group))
                })
                .map(|other| other.shown())
                .collect();
            let with = match others.as_slice() {
                [] => continue,
                [other] => format!(" '{other}'"),
                others => format!(": {}", others.join(", ")),
            };
            return Err(format!(
                "the argument '{}' cannot be used with{with}",
                flag.shown()
            ));
        }
        Ok(())
    }
}

/// The options as given, before they make a [`Config`]. Each field is one
/// option's (or, in `options`, one setter's), so that the order in which
/// options are applied changes nothing but the order of repeated values.
#[derive(Debug, Default)]
pub(crate) struct Draft {
    /// What each capping option's update sets directly.
    pub(crate) options: Options,
    /// `--tokenizer`: it yields to TOOLCAP_TOKENIZER's default only when
    /// not given.
    pub(crate) tokenizer: Option<Tokenizer>,
    /// `--lines`: a count, or `--show`'s range.
    pub(crate) lines: Option<Lines>,
    /// `--binary`: an explicit one wins over `--clean`'s.
    pub(crate) binary: Option<Binary>,
    pub(crate) clean: bool,
    pub(crate) files: Vec<PathBuf>,
    pub(crate) spill: Option<PathBuf>,
    pub(crate) spill_dir: Option<PathBuf>,
    pub(crate) store: bool,
    pub(crate) no_spill: bool,
    pub(crate) list: bool,
    pub(crate) show: Option<String>,
    pub(crate) grep: Option<String>,
    pub(crate) context: Option<u64>,
    pub(crate) summary: Option<String>,
    pub(crate) prune: bool,
    pub(crate) retain: Option<u64>,
    pub(crate) retain_size: Option<u64>,
    pub(crate) json: bool,
    pub(crate) live: bool,
    pub(crate) profile: Option<profile::Choice>,
    pub(crate) profiles: bool,
    pub(crate) hook: Option<Agent>,
    pub(crate) install_hook: Option<Agent>,
    pub(crate) uninstall_hook: Option<Agent>,
    pub(crate) settings: Option<PathBuf>,
    pub(crate) project: bool,
    pub(crate) list_profiles: bool,
    pub(crate) command: Option<OsString>,
    pub(crate) shell: Option<OsString>,
    pub(crate) stderr: Option<StderrChoice>,
    pub(crate) stderr_max: Option<u64>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) kill_after: Option<Duration>,
    pub(crate) drain: Option<Duration>,
    pub(crate) no_status: bool,
    pub(crate) no_stdin: bool,
    pub(crate) plain_env: bool,
    pub(crate) program: Vec<OsString>,
}

impl Draft {
    /// One of [`Options`]' setters, for the updates.
    pub(crate) fn set<T>(&mut self, setter: fn(Options, T) -> Options, value: T) {
        self.options = setter(std::mem::take(&mut self.options), value);
    }

    /// The configuration the options make, with the environment's
    /// defaults (`env`: an empty variable counts as unset).
    pub(crate) fn into_config(
        mut self,
        env: impl Fn(&str) -> Option<OsString>,
    ) -> Result<Config, String> {
        let env = |name: &str| env(name).filter(|value| !value.is_empty());
        self.default_budget(&env)?;
        self.resolve_tokenizer(&env)?;
        let show_lines = self.lines()?;
        self.resolve_cleaning();
        let options = &self.options;
        let keeps = !options.keep.is_empty() || !options.keep_error.is_empty();
        if !keeps
            && !options.keep_errors
            && (options.keep_context.is_some() || options.keep_max.is_some())
        {
            return Err("--keep-context and --keep-max need --keep or --keep-errors".into());
        }
        let store_command = self.store_command(show_lines)?;
        let spill = self.spill(&env, store_command.is_some())?;
        let argv = self.wrapped()?;
        if argv.is_some() && !self.files.is_empty() {
            return Err(
                "FILE arguments and a command cannot be combined: toolcap caps either FILEs or \
                 what a command prints"
                    .into(),
            );
        }
        if let Some(command) = store_command {
            if argv.is_some() || !self.files.is_empty() {
                return Err(
                    "--list, --show, --summary and --prune read the store; they take no FILE \
                     and no command"
                        .into(),
                );
            }
            let mut config = Config::new(Mode::Store(command));
            // What a capped --show view is capped by (`--show ID --redact`
            // reads --redact and --redact-pattern there too).
            config.options = self.options;
            config.spill = spill;
            return Ok(config);
        }
        let mode = match argv {
            None => self.filter()?,
            Some(argv) => self.wrap(argv)?,
        };
        let mut config = Config::new(mode);
        config.options = self.options;
        config.live = self.live;
        config.json = self.json;
        config.spill = spill;
        Ok(config)
    }

    /// TOOLCAP_MAX, when nothing else sets the budget.
    fn default_budget(&mut self, env: &dyn Fn(&str) -> Option<OsString>) -> Result<(), String> {
        let options = &self.options;
        let budget_given = options.max.is_some()
            || options.tokens.is_some()
            || options.chars.is_some()
            || options.get_window().is_some()
            || options.total.is_some();
        if budget_given {
            return Ok(());
        }
        if let Some(value) = env("TOOLCAP_MAX") {
            let text = value.to_str().ok_or("invalid TOOLCAP_MAX: not UTF-8")?;
            let max = parse_size(text)
                .map_err(|err| format!("invalid value '{text}' for TOOLCAP_MAX: {err}"))?;
            self.set(Options::max_from_environment, max);
        }
        Ok(())
    }

    /// `--tokenizer`, else TOOLCAP_TOKENIZER, else approx.
    fn resolve_tokenizer(&mut self, env: &dyn Fn(&str) -> Option<OsString>) -> Result<(), String> {
        let tokenizer = match (self.tokenizer, env("TOOLCAP_TOKENIZER")) {
            (Some(tokenizer), _) => tokenizer,
            // Codex style counts as codex does: a default set for every run
            // must not refuse it.
            (None, Some(_)) if matches!(self.options.style, Style::Codex | Style::Verifiers) => {
                Tokenizer::Approx
            }
            (None, Some(value)) => value
                .to_str()
                .and_then(|name| registry::TOKENIZER.parse_word(name).ok())
                .and_then(|parsed| parsed.tokenizer().ok())
                .ok_or_else(|| {
                    format!(
                        "invalid TOOLCAP_TOKENIZER '{}': expected approx, o200k or cl100k",
                        value.to_string_lossy()
                    )
                })?,
            (None, None) => Tokenizer::Approx,
        };
        self.set(Options::tokenizer, tokenizer);
        Ok(())
    }

    /// `--lines`: a count caps by lines; with `--show`, a range is the
    /// lines it shows.
    fn lines(&mut self) -> Result<Option<(u64, u64)>, String> {
        match self.lines {
            Some(Lines::Count(lines)) if self.show.is_none() => {
                self.set(Options::lines, lines);
                Ok(None)
            }
            Some(Lines::Range(first, last)) if self.show.is_some() => Ok(Some((first, last))),
            Some(Lines::Range(..)) => {
                Err("--lines A:B is for --show; to cap by lines give a count".into())
            }
            Some(Lines::Count(_)) => {
                Err("with --show, --lines takes a range A:B, e.g. 10:20".into())
            }
            None => Ok(None),
        }
    }

    /// `--clean` is the six cleanings; an explicit `--binary` still wins.
    fn resolve_cleaning(&mut self) {
        if self.clean {
            for setter in [
                Options::strip_ansi,
                Options::collapse_cr,
                Options::squeeze,
                Options::fold,
                Options::utf8,
            ] {
                self.set(setter, true);
            }
        }
        let binary = match (self.binary, self.clean) {
            (Some(Binary::Summary), _) | (None, true) => Binary::Summary,
            _ => Binary::Text,
        };
        self.set(Options::binary, binary);
    }

    /// `--list`, `--show`, `--summary` or `--prune`, if one is given.
    fn store_command(
        &mut self,
        show_lines: Option<(u64, u64)>,
    ) -> Result<Option<StoreCommand>, String> {
        if self.grep.is_none() && self.context.is_some() {
            return Err("--context needs --grep (and --show ID)".into());
        }
        if self.show.is_none() && self.grep.is_some() {
            return Err("--grep is for --show ID: it searches a stored output".into());
        }
        let options = &self.options;
        let budget_given = options.max.is_some()
            || options.tokens.is_some()
            || options.chars.is_some()
            || options.head.is_some()
            || options.tail.is_some();
        let grep = self.grep.take().map(|pattern| {
            let mut grep = Grep::new(pattern);
            grep.context = self.context.unwrap_or(0);
            grep
        });
        Ok(
            match (self.list, self.show.take(), self.summary.take(), self.prune) {
                (true, ..) => Some(StoreCommand::List),
                (_, Some(id), ..) => Some(StoreCommand::Show {
                    id,
                    lines: show_lines,
                    grep,
                    capped: budget_given,
                }),
                (_, _, Some(id), _) => Some(StoreCommand::Summary { id }),
                (.., true) => Some(StoreCommand::Prune),
                _ => None,
            },
        )
    }

    /// Where the input is spilled: `--spill`, else the store named or the
    /// environment's (the store commands read the default one unless told).
    fn spill(
        &mut self,
        env: &dyn Fn(&str) -> Option<OsString>,
        store_command: bool,
    ) -> Result<Option<SpillTarget>, String> {
        const SPILL_DIR_VARIABLE: &str = "TOOLCAP_SPILL_DIR";
        let default_store = || {
            StoreTarget::default_dir(env)
                .ok_or("--store needs a home for the default store: set HOME or XDG_CACHE_HOME")
        };
        let store_dir = match (self.spill_dir.take(), self.store, self.no_spill) {
            (_, _, true) => None,
            (Some(dir), ..) => Some((dir, None)),
            (None, true, _) => Some((default_store()?, None)),
            (None, false, _) => match env(SPILL_DIR_VARIABLE) {
                Some(dir) => Some((dir.into(), Some(SPILL_DIR_VARIABLE))),
                None if store_command => Some((default_store()?, None)),
                None => None,
            },
        };
        let store = store_dir.map(|(dir, named_by)| {
            let mut target = StoreTarget::new(dir);
            target.named_by = named_by;
            target.retain = self.retain.unwrap_or(target.retain);
            target.retain_bytes = self.retain_size.unwrap_or(target.retain_bytes);
            target
        });
        if store.is_none() && (self.retain.is_some() || self.retain_size.is_some()) {
            return Err("--retain and --retain-size need a store: --store or --spill-dir".into());
        }
        Ok(match (self.spill.take(), store) {
            (Some(file), _) => Some(SpillTarget::File(file)),
            (None, store) => store.map(SpillTarget::Store),
        })
    }

    /// The command wrap mode runs, if one is given.
    fn wrapped(&mut self) -> Result<Option<Vec<OsString>>, String> {
        Ok(match self.command.take() {
            Some(string) => Some(vec![
                self.shell.clone().unwrap_or_else(|| DEFAULT_SHELL.into()),
                "-c".into(),
                string,
            ]),
            None if !self.program.is_empty() => {
                if self.shell.is_some() {
                    return Err("--shell is for -c STRING; '-- PROGRAM' runs no shell".into());
                }
                Some(std::mem::take(&mut self.program))
            }
            None => None,
        })
    }

    /// Filter mode: the FILEs, or stdin; wrap mode's options are refused.
    fn filter(&mut self) -> Result<Mode, String> {
        let wrap_only = [
            (&registry::SHELL, self.shell.is_some()),
            (&registry::STDERR, self.stderr.is_some()),
            (&registry::STDERR_MAX, self.stderr_max.is_some()),
            (&registry::TIMEOUT, self.timeout.is_some()),
            (&registry::KILL_AFTER, self.kill_after.is_some()),
            (&registry::DRAIN, self.drain.is_some()),
            (&registry::NO_STATUS, self.no_status),
            (&registry::NO_STDIN, self.no_stdin),
            (&registry::PLAIN_ENV, self.plain_env),
        ];
        if let Some((flag, _)) = wrap_only.iter().find(|(_, given)| *given) {
            let name = flag.name();
            return Err(format!(
                "{name} is for wrap mode: give a command, as in 'toolcap {name} ... -- PROGRAM' \
                 or '-c STRING'"
            ));
        }
        let mut inputs: Vec<Input> = std::mem::take(&mut self.files)
            .into_iter()
            .map(|path| {
                if path.as_os_str() == "-" {
                    Input::Stdin
                } else {
                    Input::File(path)
                }
            })
            .collect();
        if inputs.is_empty() {
            inputs.push(Input::Stdin);
        }
        Ok(Mode::Filter(inputs))
    }

    /// Wrap mode, running `argv`.
    fn wrap(&mut self, argv: Vec<OsString>) -> Result<Mode, String> {
        let mut wrap = WrapConfig::new(argv);
        wrap.stderr = match (self.stderr, self.stderr_max) {
            (Some(StderrChoice::Separate), max) => StderrMode::Separate { max },
            (_, Some(_)) => return Err("--stderr-max needs --stderr separate".into()),
            (_, None) => StderrMode::Merged,
        };
        if self.kill_after.is_some() && self.timeout.is_none_or(|t| t.is_zero()) {
            return Err("--kill-after needs --timeout".into());
        }
        wrap.timeout = self.timeout.filter(|timeout| !timeout.is_zero());
        wrap.kill_after = self.kill_after.unwrap_or(wrap.kill_after);
        wrap.drain = self.drain.unwrap_or(wrap.drain);
        wrap.status_line = !self.no_status;
        wrap.inherit_stdin = !self.no_stdin;
        wrap.plain_env = self.plain_env;
        Ok(Mode::Wrap(wrap))
    }
}
