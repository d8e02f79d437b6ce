//! toolcap: cap command output at a budget, keeping its head and its tail.
//!
//! Output within the budget passes unchanged. Longer output keeps its first
//! and last part; the middle becomes one marker line that says exactly what
//! was removed, under a warning header with the original size and line
//! count. Cuts never split a UTF-8 character and prefer line boundaries.
//! Memory is bounded by the budget, never by the input.
//!
//! ```
//! let log: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
//! let options = toolcap::Options::new().max(60);
//! let capped = toolcap::cap(log.as_bytes(), &options)?;
//! assert_eq!(
//!     String::from_utf8_lossy(&capped),
//!     "Warning: truncated output (original token count: 2224)\n\
//!      Total output lines: 1000\n\
//!      \n\
//!      line 1\nline 2\nline 3\nline 4\n\
//!      [... 8837 bytes truncated ...]\n\
//!      line 998\nline 999\nline 1000\n"
//! );
//! # Ok::<(), toolcap::Error>(())
//! ```
//!
//! For a stream, push chunks into a [`Capper`] as they arrive, then
//! [`finish`](Capper::finish) it into a [`StreamReport`] (the kept head and
//! tail, the totals and the cut) and [`render()`] that.
//!
//! Two modules do more:
//!
//! - [`run`] runs a command capped, as wrap mode does, in memory and
//!   without process-wide effects ([`run::command`]), renders its report
//!   as the command line would ([`run::render`]), or does all the binary
//!   does ([`run::as_toolcap`]);
//! - [`store`] reads the spill store: its listing, one output's summary,
//!   and the capped view `--show` prints.
//!
//! The data flows one way, and the modules follow it: `source` (stdin,
//! files, a child's pipes) -> `spill` (the raw copy) -> `transform`
//! (cleaning, before the capper) -> `measure` (what a budget counts) ->
//! `cut` (the budget, where a cut lands) -> `format` (json, diff, csv
//! behind one trait: record boundaries, what the cut middle held) ->
//! `capture` (head buffer, tail ring, kept lines; given boundaries only)
//! -> `report` -> `render` -> `sink`, with the words they share below them
//! all in `vocab`. `plan` compiles the options once; `stream` joins the
//! stages for one stream, `--profile auto`'s wait included; `run` drives
//! one or two streams. No module imports one later in the flow
//! (docs/ARCHITECTURE.md, checked by a test). Every `unsafe` block is in
//! `sys`. The command line itself (`cli`, the only user of clap) is in the
//! library too, behind the default feature `cli`, so that the binary and
//! the Python package's command are one program.

// No panics on a path a user can reach: a failure is a value (tests may
// unwrap; they are compiled with cfg(test), where this does not apply).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

// One clear error on other systems, instead of a wall of them: every file
// below is Unix code, and none hides behind a macro where rustfmt cannot see.
#[cfg(not(unix))]
compile_error!(
    "toolcap supports Unix-like systems only: it relies on process groups, poll(2) and \
     Unix signals"
);

#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;

mod capture;
mod config;
mod cut;
mod error;
mod escape;
mod format;
#[cfg(feature = "cli")]
mod hook;
mod line_match;
mod measure;
mod options;
mod plan;
mod render;
mod report;
pub mod run;
mod sink;
mod size;
mod source;
mod spill;
mod stream;
mod sys;
mod transform;
mod vocab;

pub use cut::CutMode;
pub use error::{Error, Problem, SpillFailure};
pub use format::Format;
pub use line_match::KEEP_ERRORS;
pub use measure::Tokenizer;
pub use options::{Binary, Options, Style};
pub use render::{Rendered, render};
pub use report::{CsvReport, Cut, DiffReport, FormatReport, JsonReport, KeptLines};
pub use report::{SpillReport, StreamReport};
pub use size::SizeOrPercent;

pub mod store {
    //! The spill store: the private directory where toolcap keeps the full
    //! output of a run whose output it changed, and what reads it back.
    //!
    //! A run saves into the store when its [`Config`](crate::run::Config) has
    //! `spill: Some(SpillTarget::Store(..))`, as `--store` does; [`list`]
    //! and [`summary`] describe what it holds, and [`show`] gives the capped
    //! view of one output that `--show ID --max SIZE` prints.
    //!
    //! ```
    //! use toolcap::run::{Config, Mode, WrapConfig};
    //! use toolcap::store::{SpillTarget, StoreTarget};
    //!
    //! let dir = std::env::temp_dir().join(format!("toolcap-doc-{}", std::process::id()));
    //! let mut wrap = WrapConfig::new(vec!["seq".into(), "1000".into()]);
    //! wrap.inherit_stdin = false;
    //! let mut config = Config::new(Mode::Wrap(wrap));
    //! config.options = toolcap::Options::new().max(40);
    //! config.spill = Some(SpillTarget::Store(StoreTarget::new(&dir)));
    //! toolcap::run::command(&config, || false)?;
    //! let store = StoreTarget::new(&dir);
    //! let listing = toolcap::store::list(&store, None, &toolcap::Options::new())?;
    //! assert!(listing.contains("seq 1000"), "{listing}");
    //! std::fs::remove_dir_all(&dir).ok();
    //! # Ok::<(), toolcap::Error>(())
    //! ```

    pub use crate::config::{Grep, StoreCommand};
    pub use crate::run::store::{list, show, summary};
    pub use crate::run::view::StoredView;
    pub use crate::spill::{SpillTarget, StoreTarget};
}

/// Caps a stream pushed in chunks, in memory bounded by the budget.
///
/// ```
/// let mut capper = toolcap::Capper::new(&toolcap::Options::new().max(6))?;
/// capper.push(b"first\nsec");
/// capper.push(b"ond\nthird\n");
/// let report = capper.finish();
/// // Head and tail of 3 bytes each: no line boundary is close enough.
/// assert_eq!((report.head.as_slice(), report.tail.as_slice()), (&b"fir"[..], &b"rd\n"[..]));
/// assert_eq!(report.cut.map(|cut| cut.omitted_bytes()), Some(13));
/// # Ok::<(), toolcap::Error>(())
/// ```
pub struct Capper {
    stream: stream::Stream,
    /// The profile applied by name, for the report.
    profile: Option<String>,
}

impl std::fmt::Debug for Capper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Capper").finish_non_exhaustive()
    }
}

impl Capper {
    /// A capper for `options`.
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] when the options contradict each other (a `--head`
    /// larger than `--max`, say), worded as the command line words it.
    pub fn new(options: &Options) -> Result<Capper, Error> {
        Ok(Capper {
            stream: stream::Stream::new(plan::Plan::compile(options)?, None),
            profile: None,
        })
    }

    /// Consumes the next chunk of the stream.
    pub fn push(&mut self, chunk: &[u8]) {
        self.stream.feed(chunk);
    }

    /// A capper for one stream as `config` caps it: with its options,
    /// its profile (with `--profile auto`, the one the stream's first
    /// [`PROFILE_SNIFF_BYTES`](run::PROFILE_SNIFF_BYTES) choose, as in filter mode) and its spill
    /// file or store (`config.mode` plays no part).
    /// [`finish_run`](Capper::finish_run) it, and
    /// [`run::render`] the report as `config` says.
    ///
    /// # Errors
    ///
    /// As [`Capper::new`], also for the options of each profile the
    /// stream may choose; and [`Error::Usage`] when the spill file is
    /// this process's stdout or stderr.
    pub fn for_run(config: &run::Config) -> Result<Capper, Error> {
        let mut plan = plan::Plan::compile(&config.options)?;
        plan.set_profile(config.profile.applied().map(str::to_string));
        plan.check_total_room(config.spill.as_ref().map(spill::planned_note).as_ref())?;
        let sniff = stream::Sniff::of(config)?;
        if let Some(target) = &config.spill {
            spill::check_target(target, &[], &[])?;
        }
        let spill = config.spill.as_ref().map(spill::Spill::create);
        let profile = match &config.profile {
            run::ProfileChoice::Applied(name) => Some(name.clone()),
            _ => None,
        };
        Ok(Capper {
            stream: stream::Stream::new(plan, spill).sniffing(sniff),
            profile,
        })
    }

    /// Ends the stream and decides the cuts.
    pub fn finish(self) -> StreamReport {
        self.finish_run().output
    }

    /// Ends the stream into the [`Report`](run::Report) of a run: its
    /// [`StreamReport`], and the problems and warnings of its spill
    /// file, whose failures never stop the capping (the marker says
    /// the full output was not saved, and why).
    pub fn finish_run(mut self) -> run::Report {
        let chosen = self.stream.end_input().map(str::to_string);
        let mut problems = stream::Problems::default();
        let output = self
            .stream
            .finish(0, &stream::RunFacts::default(), &mut problems);
        run::Report {
            output,
            stderr: None,
            child: None,
            interrupted_by: None,
            problems: problems.errors,
            warnings: problems.warnings,
            profile: chosen.or(self.profile),
            no_match: false,
        }
    }
}

/// Caps `input` and returns the bytes toolcap would print for it.
///
/// # Errors
///
/// As [`Capper::new`].
pub fn cap(input: &[u8], options: &Options) -> Result<Vec<u8>, Error> {
    let mut capper = Capper::new(options)?;
    capper.push(input);
    let mut output = Vec::new();
    render(&capper.finish(), &mut output).map_err(Error::io("cannot render"))?;
    Ok(output)
}
