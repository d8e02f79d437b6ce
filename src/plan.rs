//! [`Plan::compile`]: the one place where [`Options`] are checked against
//! each other and turned into what the stages run by: the capper's
//! [`Budget`], the compiled patterns, the cleaning, and the [`Look`] the
//! report carries to its renderer. Every contradiction between options is
//! refused here, worded as the command line words it ([`check_output`]
//! adds what `--live` and `--json` exclude); nothing else refuses one or
//! derives a budget. Reads options and config, its own room, and the
//! stages below them; never a driver (`stream`, `run`) or the command line.

use regex::bytes::Regex;

use crate::capture::keep::KeepRules;
use crate::config::Config;
use crate::cut::{Budget, CutMode};
use crate::error::Error;
use crate::format::{Format, FormatPlan};
use crate::line_match::{ErrorWords, KEEP_ERRORS, LineMatch};
use crate::measure::{BYTES_PER_TOKEN, Measure, RealCount, Tokenizer};
use crate::options::{Options, Style};
use crate::render::template::Template;
use crate::render::text::{CodexMarker, TextStyle, VerifiersCut};
use crate::report::Look;
use crate::spill::SpillReport;
use crate::transform::{FoldRules, KINDS, RedactRules};

/// The budget when neither `--max`, `--tokens` nor TOOLCAP_MAX says.
pub const DEFAULT_MAX: u64 = 10_000;

/// `--recent` by default: four results kept whole take at most half the
/// window (issue 23).
pub const DEFAULT_RECENT: u64 = 4;

/// `--window-ceiling` by default: a result of 256 KiB is already more than
/// a model reads with profit, whatever its window.
pub const DEFAULT_WINDOW_CEILING: u64 = 256 << 10;

/// The least budget `--window` gives, in bytes: smaller than this, an
/// output loses its verdict along with its middle.
pub const WINDOW_FLOOR: u64 = 1_000;

/// `--count-limit` by default: the real token count is exact for streams
/// up to 64 MiB (a few seconds of counting), extrapolated past that.
pub const DEFAULT_COUNT_LIMIT: u64 = 64 << 20;

/// The longest status or interruption line (`[killed by signal 15
/// (SIGTERM)]`, `[timed out after 1h 30m 20s]`, `[input interrupted by
/// ...; totals are of what was read]`), with room to spare.
const STATUS_LINE_BOUND: u64 = 128;

/// `--keep-max` by default: a quarter of the budget.
const KEEP_SHARE_DIVISOR: u64 = 4;

/// How one stream is capped: its budget, its cleaning, what `--keep`
/// keeps from the middle, and how it is rendered.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub(crate) budget: Budget,
    pub(crate) cleaning: crate::transform::Cleaning,
    pub(crate) keep: Option<KeepRules>,
    /// The style the stream is written in as it is capped (`--live`, the
    /// markers' length).
    pub(crate) text: TextStyle,
    /// The same style as the report carries it.
    pub(crate) look: Look,
    pub(crate) format: FormatPlan,
    /// `--fold`, which never folds what `keep` matches.
    pub(crate) fold: Option<FoldRules>,
    /// `--redact`.
    pub(crate) redact: Option<RedactRules>,
    /// `--total SIZE`: the budget leaves room for a marker naming no spill
    /// file; the stream takes the room its spill file's name needs
    /// ([`Plan::total_room`]).
    pub(crate) total: Option<u64>,
}

impl Plan {
    /// The plan of the main stream.
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] when the options contradict each other.
    pub(crate) fn compile(options: &Options) -> Result<Plan, Error> {
        let mut plan = options.plan_with(options.budget()?)?;
        plan.format = options.format_plan(&plan)?;
        Ok(plan)
    }

    /// The plan of a separate stderr: `--stderr-max` (default: the main
    /// budget's) split by the same `--head`, `--tail` and `--lines`.
    /// A separate stderr is capped as text, whatever `--format` says.
    pub(crate) fn compile_stderr(
        options: &Options,
        stderr_max: Option<u64>,
    ) -> Result<Plan, Error> {
        if options.total.is_some() {
            return Err(usage(
                "--total cannot be combined with --stderr separate: it bounds one stream's output",
            ));
        }
        options.plan_with(options.stderr_budget(stderr_max)?)
    }

    /// With `--total`: what the stream takes from the budget once its spill
    /// file (`note`) and profile are known, on top of the room the budget
    /// left: the spill file's name in the marker, and the profile's name
    /// in the `Cleaned:` line.
    pub(crate) fn total_room(&self, note: Option<&SpillReport>) -> u64 {
        if self.total.is_none() {
            return 0;
        }
        const LONGEST: u64 = u64::MAX;
        let with = crate::render::text::marker_len(&self.text, note, LONGEST, LONGEST, LONGEST);
        let without = crate::render::text::marker_len(&self.text, None, LONGEST, LONGEST, LONGEST);
        let profile = self
            .text
            .profile
            .as_ref()
            .map_or(0, |profile| format!(" (profile {profile})").len() as u64);
        with.saturating_sub(without) + profile
    }

    /// Refuses a `--total` too small for the room [`Plan::total_room`]
    /// takes with the spill file `note` will name, naming the least that
    /// works (found in review: a long spill path went over).
    ///
    /// # Errors
    ///
    /// [`Error::Usage`] when the budget cannot give that room.
    pub(crate) fn check_total_room(&self, note: Option<&SpillReport>) -> Result<(), Error> {
        let Some(total) = self.total else {
            return Ok(());
        };
        let room = self.total_room(note);
        let budget = self.budget.head.saturating_add(self.budget.tail);
        if room <= budget {
            return Ok(());
        }
        let least = total - budget + room;
        Err(usage(format!(
            "--total {total} is too small: the header, one marker naming the spill file and the \
             status line take up to {least} bytes; the least --total that works is {least}"
        )))
    }

    /// Names `profile` as the one whose options these are (the header's
    /// line on cleaning says it).
    pub(crate) fn set_profile(&mut self, profile: Option<String>) {
        self.text.profile.clone_from(&profile);
        self.look.profile = profile;
    }

    /// Whether capping costs far more a byte than the kernel's copy:
    /// `--fold` compares every line with the last, `--keep` searches every
    /// line. The other transforms scan at memory speed, like the copy.
    pub(crate) fn is_cpu_bound(&self) -> bool {
        self.keep.is_some() || self.fold.is_some()
    }
}

/// What a run's way of printing excludes, besides the options' own rules
/// ([`Plan::compile`]): `--live` prints the head before the end decides
/// codex's or verifiers' wording, a format's cuts or the JSON report.
/// [`run::as_toolcap`](crate::run::as_toolcap) checks it; a run in memory prints nothing live.
pub(crate) fn check_output(config: &Config) -> Result<(), Error> {
    let options = &config.options;
    if config.live {
        match options.style {
            Style::Codex => {
                return Err(usage(
                    "--style codex cannot be combined with --live: its header comes first",
                ));
            }
            Style::Verifiers => {
                return Err(usage(
                    "--style verifiers shows the output as verifiers does: it cannot be \
                     combined with --live",
                ));
            }
            Style::Toolcap => {}
        }
    }
    if config.json && config.live {
        return Err(usage(
            "--json and --live cannot be used together: the report comes at the end",
        ));
    }
    if config.live && options.format != Format::Text {
        return Err(usage(format!(
            "--format {} cannot be combined with --live: where its cuts land is known at the end",
            options.format.name()
        )));
    }
    Ok(())
}

impl Options {
    /// What `--redact` recognises, compiled; `None` when it is off.
    pub(crate) fn redact_rules(&self) -> Result<Option<RedactRules>, Error> {
        if !self.redact && self.redact_patterns.is_empty() {
            return Ok(None);
        }
        RedactRules::new(&self.redact_patterns)
            .map(Some)
            .map_err(|(pattern, err)| invalid_pattern(&pattern, "--redact-pattern", &err))
    }

    /// `--format` and what it may be combined with (SPEC.md, "Formats").
    fn format_plan(&self, plan: &Plan) -> Result<FormatPlan, Error> {
        let format = self.format;
        let name = format.name();
        let refuse = |other: &str, why: &str| {
            Err(usage(format!(
                "--format {name} cannot be combined with {other}: {why}"
            )))
        };
        if self.total.is_some() {
            let other = [
                ("--format", format != Format::Text),
                ("--header", self.header_template.is_some()),
                ("--marker", self.marker_template.is_some()),
                ("--style codex", plan.text.codex.is_some()),
                ("--style verifiers", plan.text.verifiers.is_some()),
            ];
            if let Some((name, _)) = other.iter().find(|(_, given)| *given) {
                return Err(usage(format!(
                    "--total cannot be combined with {name}: the length of what it prints is \
                     not bounded"
                )));
            }
        }
        if format != Format::Text && plan.text.codex.is_some() {
            return refuse("--style codex", "codex sets its own cuts");
        }
        if format != Format::Text && plan.text.verifiers.is_some() {
            return refuse("--style verifiers", "verifiers sets its own cuts");
        }
        if matches!(format, Format::Json | Format::Diff | Format::Csv) && plan.keep.is_some() {
            let keep = if self.keep.is_empty() {
                "--keep-errors"
            } else {
                "--keep"
            };
            return refuse(keep, "kept lines would break records apart");
        }
        if format == Format::Json && self.lines.is_some() {
            return refuse("--lines", "a document's budget is in bytes");
        }
        if format.may_be_json() && self.chars.is_some() {
            return refuse("--chars", "a document's budget is in bytes");
        }
        if format.may_be_json() && matches!(plan.budget.measure, Measure::Tokens(_)) {
            let tokenizer = format!("--tokens with --tokenizer {}", self.tokenizer.name());
            return refuse(&tokenizer, "a document's budget is in bytes");
        }
        if !format.may_be_json() {
            for (option, given) in [
                ("--json-limit", self.json_limit.is_some()),
                ("--pretty", self.pretty),
            ] {
                if given {
                    return Err(usage(format!("{option} needs --format json or auto")));
                }
            }
        }
        Ok(FormatPlan {
            format,
            json_limit: self.json_limit.unwrap_or(crate::format::DEFAULT_JSON_LIMIT),
            pretty: self.pretty,
        })
    }

    fn plan_with(&self, mut budget: Budget) -> Result<Plan, Error> {
        let mut look = self.look()?;
        if let Some(CodexMarker::Tokens { budget: total }) = &mut look.codex {
            // A separate stderr's own budget.
            *total = budget.head + budget.tail;
        }
        let keep = self.keep_rules(&budget)?;
        let mut cleaning = self.cleaning.clone();
        if look.codex.is_some() {
            if keep.is_some() {
                return Err(usage(
                    "--style codex shows one marker: it cannot be combined with --keep",
                ));
            }
            // codex decodes the output as UTF-8 and cuts it at characters.
            cleaning.utf8 = true;
            budget.cut = CutMode::Bytes;
            budget.escapes = false;
        }
        if let Some(verifiers) = &mut look.verifiers {
            self.refuse_for_verifiers()?;
            // verifiers keeps max//2 bytes each side (of a separate
            // stderr's own budget too); the tail budget holds the rest, one
            // byte more for an odd budget, so that a stream of exactly the
            // budget is kept whole as verifiers keeps it (the renderer drops
            // that byte from a cut tail).
            verifiers.keep = budget.head;
            // It encodes a str: invalid bytes have become U+FFFD already.
            cleaning.utf8 = true;
            budget.cut = CutMode::Bytes;
            budget.escapes = false;
        }
        let text = crate::render::text_style(&look).map_err(usage)?;
        if text.counts_chars() && keep.is_some() {
            return Err(usage(
                "{omitted_chars} cannot be combined with --keep: the gaps' characters are not \
                 counted",
            ));
        }
        budget.count_chars = text.counts_chars();
        let fold = self.fold_rules(keep.as_ref())?;
        Ok(Plan {
            budget,
            cleaning,
            keep,
            text,
            look,
            format: FormatPlan::default(),
            fold,
            redact: self.redact_rules()?,
            total: self.total,
        })
    }

    fn fold_rules(&self, keep: Option<&KeepRules>) -> Result<Option<FoldRules>, Error> {
        if !self.fold {
            if !self.fold_patterns.is_empty() {
                return Err(usage("--fold-pattern needs --fold (or --clean)"));
            }
            return Ok(None);
        }
        let classes = self.fold_patterns.iter().map(|pattern| {
            LineMatch::new(&[pattern])
                .map_err(|err| invalid_pattern(pattern, "--fold-pattern", &err))
        });
        Ok(Some(FoldRules {
            classes: classes.collect::<Result<_, _>>()?,
            protected: keep.map(|keep| keep.lines.clone()),
        }))
    }

    /// How cut output is rendered: the style and the templates, checked.
    fn look(&self) -> Result<Look, Error> {
        let parse = |template: &Option<String>, option| {
            template
                .as_deref()
                .map(|text| Template::parse(text, option))
                .transpose()
                .map_err(usage)
        };
        let header = parse(&self.header_template, "--header")?;
        let marker = parse(&self.marker_template, "--marker")?;
        let codex = match self.style {
            Style::Toolcap => None,
            Style::Codex => {
                if self.tokenizer != Tokenizer::Approx {
                    return Err(usage(format!(
                        "--style codex counts tokens as codex does (4 bytes each): it cannot be \
                         combined with --tokenizer {}",
                        self.tokenizer.name()
                    )));
                }
                let given = [
                    ("--chars", self.chars.is_some()),
                    ("--head", self.head.is_some()),
                    ("--tail", self.tail.is_some()),
                    ("--lines", self.lines.is_some()),
                    ("--cut", self.cut.is_some()),
                    ("--header", header.is_some()),
                    ("--marker", marker.is_some()),
                ];
                refuse_given(&given, |name| {
                    format!(
                        "--style codex sets its own cuts and wording: it cannot be combined \
                         with {name}"
                    )
                })?;
                // A window's budget is in tokens too.
                Some(
                    match self.tokens.or(self.window.and_then(|window| window.tokens)) {
                        Some(_) => {
                            let budget = self.budget()?;
                            CodexMarker::Tokens {
                                budget: budget.head + budget.tail,
                            }
                        }
                        None => CodexMarker::Chars,
                    },
                )
            }
            Style::Verifiers => None,
        };
        let verifiers = match self.style {
            Style::Verifiers => {
                if self.tokenizer != Tokenizer::Approx {
                    return Err(usage(format!(
                        "--style verifiers counts tokens as verifiers does (4 characters each): \
                         it cannot be combined with --tokenizer {}",
                        self.tokenizer.name()
                    )));
                }
                let given = [
                    ("--tokens", self.tokens.is_some()),
                    ("--chars", self.chars.is_some()),
                    ("--head", self.head.is_some()),
                    ("--tail", self.tail.is_some()),
                    ("--lines", self.lines.is_some()),
                    ("--cut", self.cut.is_some()),
                    ("--header", header.is_some()),
                    ("--no-header", !self.header),
                    ("--marker", marker.is_some()),
                ];
                refuse_given(&given, |name| {
                    format!(
                        "--style verifiers sets its own budget, cuts and wording: it cannot be \
                         combined with {name}"
                    )
                })?;
                // floor(M/2); a separate stderr's own is set by `plan_with`.
                Some(VerifiersCut {
                    keep: self.budget()?.head,
                })
            }
            _ => None,
        };
        Ok(Look {
            header: self.header,
            header_template: self.header_template.clone(),
            marker_template: self.marker_template.clone(),
            codex,
            verifiers,
            profile: None,
            tokenizer: self.tokenizer,
        })
    }

    /// What `--style verifiers` refuses besides the budget and the wording
    /// (see [`Options::text_style`]): anything that changes the bytes
    /// before the cut. `--utf8` is what verifiers does anyway.
    fn refuse_for_verifiers(&self) -> Result<(), Error> {
        let cleaning = &self.cleaning;
        // All that `clean()` turns on: named as the one option.
        let clean = cleaning.strip_ansi
            && cleaning.collapse_cr
            && cleaning.squeeze
            && cleaning.utf8
            && cleaning.binary_summary
            && self.fold;
        let given = [
            ("--clean", clean),
            ("--keep", !self.keep.is_empty()),
            ("--keep-errors", self.keep_errors),
            ("--strip-ansi", cleaning.strip_ansi),
            ("--collapse-cr", cleaning.collapse_cr),
            ("--squeeze", cleaning.squeeze),
            ("--fold", self.fold),
            ("--binary summary", cleaning.binary_summary),
            ("--max-line", cleaning.max_line.is_some()),
        ];
        match given.iter().find(|(_, given)| *given) {
            Some((name, _)) => Err(usage(format!(
                "--style verifiers shows the output as verifiers does: it cannot be combined \
                 with {name}"
            ))),
            None => Ok(()),
        }
    }

    /// `--keep`, `--keep-error` and `--keep-errors`, and the share of the
    /// budget they take from the head and the tail when the stream is cut
    /// (SPEC.md, "Keeping lines"); the capper gives it.
    fn keep_rules(&self, budget: &Budget) -> Result<Option<KeepRules>, Error> {
        let mut errors = self.keep_error.clone();
        if self.keep_errors {
            errors.push(KEEP_ERRORS.to_string());
        }
        let mut patterns = self.keep.clone();
        patterns.extend(errors.iter().cloned());
        if patterns.is_empty() {
            return Ok(None);
        }
        for (pattern, option) in self.keep.iter().map(|pattern| (pattern, "--keep")).chain(
            self.keep_error
                .iter()
                .map(|pattern| (pattern, "--keep-error")),
        ) {
            Regex::new(pattern).map_err(|err| invalid_pattern(pattern, option, &err))?;
        }
        let lines = LineMatch::new(&patterns)
            .map_err(|err| usage(format!("invalid --keep pattern: {err}")))?;
        let compile = |patterns: &[String], option: &str| {
            (!patterns.is_empty())
                .then(|| LineMatch::new(patterns))
                .transpose()
                .map_err(|err| usage(format!("invalid {option} pattern: {err}")))
        };
        let others = compile(&self.keep, "--keep")?;
        let errors = compile(&self.keep_error, "--keep-error")?;
        let error_words = match self.keep_errors {
            true => Some(
                ErrorWords::new()
                    .map_err(|err| usage(format!("invalid --keep-errors pattern: {err}")))?,
            ),
            false => None,
        };
        let max = budget.head.saturating_add(budget.tail);
        let share = self.keep_max.unwrap_or(max / KEEP_SHARE_DIVISOR);
        if share > max {
            return Err(usage(format!(
                "--keep-max ({share}) exceeds the budget ({max}): kept lines take their \
                 share from the head and the tail"
            )));
        }
        // The share counts bytes, which are never fewer than characters or
        // tokens (a token is at least a byte), so it holds in any unit.
        // No more lines than the kept bytes can hold (a line is at least
        // one byte): a larger context would only hold lines back longer.
        let context = self.keep_context.unwrap_or(0).min(share);
        Ok(Some(KeepRules {
            lines,
            others,
            errors,
            error_words,
            context: usize::try_from(context).unwrap_or(usize::MAX),
            budget: share,
            marker: 0,
        }))
    }

    /// The budget of the main stream.
    pub(crate) fn budget(&self) -> Result<Budget, Error> {
        let window = self.window_tokens()?;
        let given: Vec<&str> = [
            ("--max", self.max.is_some()),
            ("--total", self.total.is_some()),
            ("--tokens", self.tokens.is_some()),
            ("--chars", self.chars.is_some()),
            ("--window", window.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
        .collect();
        if given.len() > 1 {
            return Err(usage(format!(
                "{} cannot be used together: exactly one of them sets the budget",
                given.join(" and ")
            )));
        }
        if let Some(total) = self.total {
            let least = self.total_overhead();
            if total < least {
                return Err(usage(format!(
                    "--total {total} is too small: the header, one marker and the status line \
                     take up to {least} bytes; the least --total that works is {least}"
                )));
            }
            return self.split(Limit::explicit(SetBy::Total, total - least));
        }
        let limit = match (self.max, self.tokens.or(window), self.chars) {
            (Some(max), ..) => Limit::explicit(SetBy::Max, max),
            (_, Some(tokens), _) if window.is_some() => self.window_limit(tokens)?,
            (_, Some(tokens), _) => match self.tokenizer.vocabulary()? {
                None => Limit::explicit(
                    SetBy::Tokens,
                    tokens.checked_mul(BYTES_PER_TOKEN).ok_or_else(|| {
                        usage(format!(
                            "invalid value '{tokens}' for '--tokens <COUNT>': too large: at \
                             most {}",
                            u64::MAX / BYTES_PER_TOKEN
                        ))
                    })?,
                ),
                Some(vocabulary) => Limit {
                    measure: Measure::Tokens(vocabulary),
                    ..Limit::explicit(SetBy::Tokens, tokens)
                },
            },
            (.., Some(chars)) => Limit {
                measure: Measure::Chars,
                ..Limit::explicit(SetBy::Chars, chars)
            },
            (None, None, None) => Limit {
                by: if self.default_max.is_some() {
                    SetBy::Environment
                } else {
                    SetBy::Max
                },
                bytes: self.default_max.unwrap_or(DEFAULT_MAX),
                explicit: false,
                measure: Measure::Bytes,
            },
        };
        self.split(limit)
    }

    /// `--window`'s tokens, checked with `--recent` and `--window-ceiling`
    /// (which need it).
    fn window_tokens(&self) -> Result<Option<u64>, Error> {
        let Some(window) = &self.window else {
            return Ok(None);
        };
        let Some(tokens) = window.tokens else {
            let name = if window.recent.is_some() {
                "--recent"
            } else {
                "--window-ceiling"
            };
            return Err(usage(format!("{name} needs --window")));
        };
        if window.recent == Some(0) {
            return Err(usage(
                "invalid value '0' for '--recent <K>': at least 1 result is kept whole",
            ));
        }
        if let Some(ceiling) = window.ceiling.filter(|&ceiling| ceiling < WINDOW_FLOOR) {
            return Err(usage(format!(
                "invalid value '{ceiling}' for '--window-ceiling <SIZE>': at least \
                 {WINDOW_FLOOR} bytes, the least budget --window gives"
            )));
        }
        Ok(Some(tokens))
    }

    /// The budget `--window` gives (SPEC.md, "Budgets from the context
    /// window"): floor(W / 2K) tokens, bounded by the floor and the ceiling
    /// in bytes. Tokens of 4 bytes make bytes; with a real tokenizer the
    /// budget stays in tokens, and the bounds become tokens at 4 bytes each.
    fn window_limit(&self, window: u64) -> Result<Limit, Error> {
        let settings = self.window.unwrap_or_default();
        let recent = settings.recent.unwrap_or(DEFAULT_RECENT);
        let ceiling = settings.ceiling.unwrap_or(DEFAULT_WINDOW_CEILING);
        let tokens = window / recent.saturating_mul(2);
        Ok(match self.tokenizer.vocabulary()? {
            None => Limit {
                bytes: tokens
                    .saturating_mul(BYTES_PER_TOKEN)
                    .clamp(WINDOW_FLOOR, ceiling),
                ..Limit::explicit(SetBy::Window, 0)
            },
            Some(vocabulary) => Limit {
                bytes: tokens.clamp(
                    WINDOW_FLOOR.div_ceil(BYTES_PER_TOKEN),
                    ceiling / BYTES_PER_TOKEN,
                ),
                measure: Measure::Tokens(vocabulary),
                ..Limit::explicit(SetBy::Window, 0)
            },
        })
    }

    /// What `--total` keeps for the lines around the content, at their
    /// longest (every number of 20 digits): the header, the `Cleaned:`
    /// line when cleaning is on, one marker with its style reset, the
    /// newline after a head cut mid-line and the matches not shown, and
    /// a status or interruption line. A spill file's name is added by the
    /// stream, which knows it ([`Plan::total`]).
    fn total_overhead(&self) -> u64 {
        let most = u64::MAX;
        let mut lines = format!(
            "Warning: truncated output (original token count: {most})\n\
             Total output lines: {most}\n\n"
        );
        let cleaning = &self.cleaning;
        let cleans = cleaning.binary_summary
            || cleaning.strip_ansi
            || cleaning.collapse_cr
            || cleaning.utf8
            || cleaning.squeeze
            || cleaning.max_line.is_some()
            || self.fold;
        let redacts = self.redact || !self.redact_patterns.is_empty();
        if cleans || redacts {
            lines += &format!("Cleaned: {most} raw bytes became {most} bytes");
            if redacts {
                // Each kind at most once, each with its count.
                let kinds = KINDS.map(|kind| format!("{kind} {most}"));
                lines += &format!("; redacted: {}", kinds.join(", "));
            }
            lines += "\n";
        }
        lines += &format!("\x1b[0m\n[... {most} bytes truncated");
        if !self.keep.is_empty() || !self.keep_error.is_empty() || self.keep_errors {
            lines += &format!("; {most} more error lines, {most} more matching lines not shown");
        }
        lines += " ...]\n";
        lines.len() as u64 + STATUS_LINE_BOUND
    }

    /// How the header's real token count is taken, with a real tokenizer.
    fn real_count(&self) -> Result<Option<RealCount>, Error> {
        let limit = self.count_limit.unwrap_or(DEFAULT_COUNT_LIMIT);
        if limit == 0 {
            return Err(usage(
                "invalid value '0' for '--count-limit <SIZE>': at least 1 byte must be counted",
            ));
        }
        Ok(self
            .tokenizer
            .vocabulary()?
            .map(|vocabulary| RealCount { vocabulary, limit }))
    }

    fn stderr_budget(&self, stderr_max: Option<u64>) -> Result<Budget, Error> {
        match stderr_max {
            Some(max) => self.split(Limit {
                // --stderr-max is in the main budget's unit.
                measure: self.budget()?.measure,
                ..Limit::explicit(SetBy::StderrMax, max)
            }),
            None => self.budget(),
        }
    }

    /// Splits the limit into head and tail: half each by default; one side
    /// given, the other gets the rest; both given, they are the budget. The
    /// limit is a ceiling that nothing exceeds.
    fn split(&self, limit: Limit) -> Result<Budget, Error> {
        let max = limit.bytes;
        let unit = match limit.measure {
            Measure::Bytes => "bytes",
            Measure::Chars => "characters",
            Measure::Tokens(_) => "tokens",
        };
        let over = |what: String| {
            usage(format!(
                "{what} {} ({max} {unit}): {} is the ceiling for head and tail together",
                limit.by.name(),
                limit.by.name()
            ))
        };
        let (head, tail) = match (self.head, self.tail) {
            (None, None) => (max / 2, max - max / 2),
            (Some(head), None) => {
                let head = head.resolve(max);
                let tail = max
                    .checked_sub(head)
                    .ok_or_else(|| over(format!("--head ({head} {unit}) exceeds")))?;
                (head, tail)
            }
            (None, Some(tail)) => {
                let tail = tail.resolve(max);
                let head = max
                    .checked_sub(tail)
                    .ok_or_else(|| over(format!("--tail ({tail} {unit}) exceeds")))?;
                (head, tail)
            }
            (Some(head), Some(tail)) => {
                if matches!(limit.by, SetBy::Tokens | SetBy::Window) {
                    return Err(usage(format!(
                        "{} cannot be combined with both --head and --tail: give one of them, \
                         or --max",
                        limit.by.name()
                    )));
                }
                let (head, tail) = (head.resolve(max), tail.resolve(max));
                let both = head.saturating_add(tail);
                if limit.explicit && both > max {
                    return Err(over(format!(
                        "--head and --tail ({both} {unit} together) exceed"
                    )));
                }
                (head, tail)
            }
        };
        Ok(Budget {
            head,
            tail,
            lines: self.lines,
            cut: self.cut.unwrap_or_default(),
            measure: limit.measure,
            escapes: true,
            count_chars: false,
            count_tokens: self.real_count()?,
        })
    }
}

/// The ceiling for head + tail, and the option that set it.
struct Limit {
    by: SetBy,
    /// In `measure`'s units (bytes, unless `--chars`).
    bytes: u64,
    measure: Measure,
    /// Given by the user (not the default): with both `--head` and
    /// `--tail`, an explicit limit must hold them.
    explicit: bool,
}

impl Limit {
    fn explicit(by: SetBy, bytes: u64) -> Limit {
        Limit {
            by,
            bytes,
            explicit: true,
            measure: Measure::Bytes,
        }
    }
}

/// What set the budget's ceiling, as errors name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SetBy {
    Max,
    Total,
    Tokens,
    Window,
    Chars,
    StderrMax,
    /// `TOOLCAP_MAX`.
    Environment,
}

impl SetBy {
    fn name(self) -> &'static str {
        match self {
            SetBy::Max => "--max",
            SetBy::Total => "--total",
            SetBy::Tokens => "--tokens",
            SetBy::Window => "--window",
            SetBy::Chars => "--chars",
            SetBy::StderrMax => "--stderr-max",
            SetBy::Environment => "TOOLCAP_MAX",
        }
    }
}

/// The first option of `given` that is set, refused as `refusal` words it.
fn refuse_given(given: &[(&str, bool)], refusal: impl Fn(&str) -> String) -> Result<(), Error> {
    match given.iter().find(|(_, set)| *set) {
        Some((name, _)) => Err(usage(refusal(name))),
        None => Ok(()),
    }
}

fn usage(message: impl Into<String>) -> Error {
    Error::Usage(message.into())
}

/// A pattern `option` was given that does not compile.
pub(crate) fn invalid_pattern(pattern: &str, option: &str, err: &regex::Error) -> Error {
    // The regex crate explains over several lines; its last says what is
    // wrong.
    let why = err.to_string();
    let why = why
        .lines()
        .last()
        .unwrap_or_default()
        .trim_start_matches("error: ");
    usage(format!("invalid value '{pattern}' for '{option}': {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::size::SizeOrPercent;
    use SizeOrPercent::{Bytes, Percent};

    fn split(options: Options) -> Result<(u64, u64), String> {
        options
            .budget()
            .map(|budget| (budget.head, budget.tail))
            .map_err(|err| err.to_string())
    }

    #[test]
    fn budget_splits() {
        let o = Options::new;
        assert_eq!(split(o()), Ok((5_000, 5_000)));
        assert_eq!(split(o().max(11)), Ok((5, 6)));
        assert_eq!(split(o().tokens(100)), Ok((200, 200)));
        assert_eq!(split(o().max(10_000).head(Percent(20))), Ok((2_000, 8_000)));
        assert_eq!(
            split(o().max(10_000).tail(Bytes(3_000))),
            Ok((7_000, 3_000))
        );
        assert_eq!(split(o().max(10_000).head(Bytes(10_000))), Ok((10_000, 0)));
        // Both sides given: they are the budget, and the default 10k does
        // not limit them (nor does TOOLCAP_MAX), though percentages are of
        // that default.
        let both = o().head(Bytes(1_000)).tail(Bytes(20_000));
        assert_eq!(split(both), Ok((1_000, 20_000)));
        let from_env = o()
            .max_from_environment(1_000)
            .head(Percent(20))
            .tail(Percent(80));
        assert_eq!(split(from_env), Ok((200, 800)));
        let over_env = o()
            .max_from_environment(100)
            .head(Bytes(60))
            .tail(Bytes(50));
        assert_eq!(split(over_env), Ok((60, 50)));
        let env_head = o().max_from_environment(100).head(Bytes(200));
        assert_eq!(
            split(env_head),
            Err(
                "--head (200 bytes) exceeds TOOLCAP_MAX (100 bytes): TOOLCAP_MAX is the \
                 ceiling for head and tail together"
                    .into()
            )
        );
        let rounded = o().max(7).head(Percent(50)).tail(Percent(50));
        assert_eq!(split(rounded), Ok((3, 3)));
        assert_eq!(split(o().tokens(10).head(Percent(50))), Ok((20, 20)));
    }

    #[test]
    fn max_is_a_ceiling_nothing_exceeds() {
        assert_eq!(
            split(Options::new().max(100).head(Bytes(200))),
            Err(
                "--head (200 bytes) exceeds --max (100 bytes): --max is the ceiling for head \
                 and tail together"
                    .into()
            )
        );
        assert!(split(Options::new().head(Bytes(20_000))).is_err());
        assert!(split(Options::new().tokens(10).tail(Bytes(41))).is_err());
        let disagree = Options::new().max(100).head(Bytes(60)).tail(Bytes(50));
        assert!(
            split(disagree)
                .unwrap_err()
                .starts_with("--head and --tail (110 bytes together) exceed --max")
        );
        let tokens_and_both = Options::new().tokens(10).head(Bytes(1)).tail(Bytes(1));
        assert!(
            split(tokens_and_both)
                .unwrap_err()
                .starts_with("--tokens cannot")
        );
        assert!(
            split(Options::new().tokens(u64::MAX))
                .unwrap_err()
                .contains("too large")
        );
        assert!(split(Options::new().max(1).tokens(1)).is_err());
        assert_eq!(
            split(Options::new().chars(3).max(4)),
            Err(
                "--max and --chars cannot be used together: exactly one of them sets the budget"
                    .into()
            )
        );
    }

    #[test]
    fn stderr_budget_has_its_own_ceiling() {
        let options = Options::new().max(100).head(Percent(10));
        let budget = options.stderr_budget(Some(50)).unwrap();
        assert_eq!((budget.head, budget.tail), (5, 45));
        let options = Options::new().max(100).head(Bytes(60));
        let err = options.stderr_budget(Some(50)).unwrap_err().to_string();
        assert!(err.contains("exceeds --stderr-max (50 bytes)"), "{err}");
    }
}
