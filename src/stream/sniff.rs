//! `--profile auto` on a stream that no command names (filter mode, and
//! the library's [`Capper`](crate::Capper)): the profiles the input may
//! choose, checked before anything is read, and the input's first bytes,
//! held until they have chosen one. The stream's first state (see
//! [`Stream`](super::Stream)), so that a string capped in memory gets the
//! profile the command line would give the same bytes.

use regex::bytes::{Regex, RegexBuilder};

use crate::config::{Config, PROFILE_SNIFF_BYTES, ProfileChoice};
use crate::error::Error;
use crate::escape;
use crate::plan::Plan;

/// A profile the input may choose, ready to run.
pub(crate) struct Choice {
    pub(crate) name: String,
    /// Compiled multi-line.
    detect: Vec<Regex>,
    pub(crate) plan: Plan,
    /// Whether its options print the header.
    pub(crate) header: bool,
}

/// The input's first bytes, held until they choose.
pub(crate) struct Sniff {
    choices: Vec<Choice>,
    held: Vec<u8>,
}

impl Sniff {
    /// With `--profile auto` on an input, the profiles it may choose, each
    /// checked now: a contradiction or a bad pattern refuses the run before
    /// anything is read, naming the profile. `None` when there is nothing
    /// to choose.
    pub(crate) fn of(config: &Config) -> Result<Option<Sniff>, Error> {
        let ProfileChoice::FromInput(profiles) = &config.profile else {
            return Ok(None);
        };
        let in_profile =
            |name: &str, message: String| Error::Usage(format!("profile '{name}': {message}"));
        let choices = profiles
            .iter()
            .map(|profile| {
                let mut plan = Plan::compile(&profile.options)
                    .map_err(|err| in_profile(&profile.name, err.to_string()))?;
                plan.set_profile(Some(profile.name.clone()));
                let detect = profile.detect.iter().map(|pattern| {
                    RegexBuilder::new(pattern)
                        .multi_line(true)
                        .build()
                        .map_err(|err| {
                            in_profile(
                                &profile.name,
                                format!("invalid detect pattern '{pattern}': {err}"),
                            )
                        })
                });
                Ok(Choice {
                    name: profile.name.clone(),
                    detect: detect.collect::<Result<_, _>>()?,
                    plan,
                    header: profile.options.has_header(),
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok((!choices.is_empty()).then(|| Sniff {
            choices,
            held: Vec::with_capacity(PROFILE_SNIFF_BYTES),
        }))
    }

    /// True when a profile it may choose costs CPU per byte (see
    /// [`Plan::is_cpu_bound`]).
    pub(crate) fn may_be_cpu_bound(&self) -> bool {
        self.choices.iter().any(|choice| choice.plan.is_cpu_bound())
    }

    /// Holds the start of `chunk`, up to [`PROFILE_SNIFF_BYTES`] in all.
    /// Once enough is held, returns the rest of `chunk` (perhaps empty),
    /// which follows the held bytes after the choice; `None` while more is
    /// wanted.
    pub(crate) fn hold<'a>(&mut self, chunk: &'a [u8]) -> Option<&'a [u8]> {
        let room = PROFILE_SNIFF_BYTES - self.held.len();
        let (held, rest) = chunk.split_at(room.min(chunk.len()));
        self.held.extend_from_slice(held);
        (self.held.len() == PROFILE_SNIFF_BYTES).then_some(rest)
    }

    /// The first profile one of whose patterns the held bytes match, if
    /// any, and the held bytes, to be capped first. An input shorter than
    /// the sniff chooses with what there is.
    /// Colours do not hide a tool: the patterns read the text without its
    /// escape sequences (`git diff --color=always` is still a diff).
    pub(crate) fn choose(self) -> (Option<Choice>, Vec<u8>) {
        let text = escape::text_of(&self.held);
        let chosen = self
            .choices
            .into_iter()
            .find(|choice| choice.detect.iter().any(|pattern| pattern.is_match(&text)));
        (chosen, self.held)
    }
}
