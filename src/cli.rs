//! The command line: the clap definition and its translation into a plain
//! [`Config`]. The only module that knows clap; the rest of toolcap sees the
//! `Config`. Also home of the test that keeps `man/` and `completions/` in
//! step with this definition.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::error::ErrorKind;
use clap::{ArgGroup, CommandFactory, Parser, ValueEnum};

use toolcap::SpillTarget;
use toolcap::capture::{Budget, CutMode};
use toolcap::config::{Config, Mode, StderrMode, WrapConfig};
use toolcap::size::{SizeOrPercent, parse_duration, parse_size, parse_size_or_percent};
use toolcap::source::Input;

/// The budget when neither `--max`, `--tokens` nor TOOLCAP_MAX says.
const DEFAULT_MAX: u64 = 10_000;
/// `--tokens N` means N * 4 bytes: the usual rule of thumb for English
/// text and code under the tokenizers of current models.
const BYTES_PER_TOKEN: u64 = 4;
const DEFAULT_SHELL: &str = "/bin/sh";
const DEFAULT_KILL_AFTER: Duration = Duration::from_secs(5);
const DEFAULT_DRAIN: Duration = Duration::from_secs(2);

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

const AFTER_LONG_HELP: &str = "\
SIZE: digits with an optional suffix, case-insensitive: none or b = bytes; \
k, kb = 1000; ki, kib = 1024; m, mb = 10^6; mi, mib = 2^20; g, gb = 10^9; \
gi, gib = 2^30. So 10k is 10,000 bytes, unlike GNU head where K is 1024 \
(write 10ki for that). PCT: a whole percentage of --max, such as 20%.

DURATION: digits with an optional unit ms, s, m or h; plain digits are \
seconds (500ms, 30s, 5m, 1h, 30).

Output format, when the input does not fit:
  Warning: truncated output (original token count: {ceil(bytes/4)})
  Total output lines: {lines}
  <blank line>
  {head}
  [... {n} bytes truncated ...]
  {tail}
With a spill file the marker reads
  [... {n} bytes truncated (lines {a}-{b}); full output in {PATH} ...]
Cuts never split a UTF-8 character, and with --cut lines (the default) they \
move to a line boundary when that costs at most a quarter of the side's budget.

Exit status, filter mode: 0 success (also when stdout was closed early); \
1 a FILE could not be read, the spill file failed, or stdout could not be \
written; 2 usage error.
Exit status, wrap mode: the command's own status; 128+N when it was killed \
by signal N; 124 on --timeout; 126 when it cannot be executed; 127 when it \
is not found; 125 when toolcap itself failed (then the command's status, if \
it was not 0, still wins); 2 usage error.

Environment: TOOLCAP_MAX sets the default of --max; TOOLCAP_SPILL_DIR sets \
the default of --spill-dir.";

#[derive(Parser, Debug)]
#[command(
    name = "toolcap",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_long_help = AFTER_LONG_HELP,
    help_expected = true,
    group(ArgGroup::new("wrapped").args(["command", "program"]).multiple(false)),
)]
struct Args {
    /// Files to read, in order, as one stream ('-' or none: stdin)
    #[arg(value_name = "FILE", conflicts_with = "wrapped")]
    files: Vec<PathBuf>,

    /// Budget for the kept output (head + tail) [default: 10k]
    #[arg(
        short,
        long,
        value_name = "SIZE",
        value_parser = parse_size,
        long_help = "Budget for the kept output: head + tail. Output within it passes \
                     unchanged. [default: 10k, or TOOLCAP_MAX]\n\nExample: --max 4Mi"
    )]
    max: Option<u64>,

    /// Budget in tokens: --max = 4 * N bytes
    #[arg(long, value_name = "N", conflicts_with = "max")]
    tokens: Option<u64>,

    /// Bytes kept from the start (default: half of --max)
    #[arg(
        long,
        value_name = "SIZE|PCT",
        value_parser = parse_size_or_percent,
        long_help = "Bytes kept from the start. Default: floor(max/2). Given alone, the tail gets \
                     the rest of --max; with --tail too, max = head + tail. PCT is floor(max * \
                     PCT / 100).\n\nExample: --head 20% keeps 2k of a 10k budget from the start"
    )]
    head: Option<SizeOrPercent>,

    /// Bytes kept from the end (default: the rest of --max)
    #[arg(
        long,
        value_name = "SIZE|PCT",
        value_parser = parse_size_or_percent,
        long_help = "Bytes kept from the end. Default: max - head. Given alone, the head gets the \
                     rest of --max.\n\nExample: --tail 80% keeps the last 8k of a 10k budget"
    )]
    tail: Option<SizeOrPercent>,

    /// Also cap by lines: first N/2 and last N - N/2 lines
    #[arg(
        short = 'n',
        long,
        value_name = "N",
        long_help = "Also cap by lines: keep at most the first floor(N/2) and the last N - \
                     floor(N/2) lines. The byte budget still applies; the stricter of the two \
                     wins at each end.\n\nExample: -n 100"
    )]
    lines: Option<u64>,

    /// Where cuts land: lines (near a line boundary) or bytes
    #[arg(
        long,
        value_enum,
        value_name = "WHERE",
        long_help = "Where cuts land. lines: at a line boundary when that loses at most a quarter \
                     of the side's budget, else mid-line. bytes: exactly at the budget. Neither \
                     splits a UTF-8 character. [default: lines]"
    )]
    cut: Option<CutArg>,

    /// Save every input byte to FILE (created 0600 or truncated)
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "spill_dir",
        long_help = "Write every input byte to FILE as it is read, so the full output is never \
                     lost; the marker names FILE. Created with mode 0600, or truncated. In wrap \
                     mode with --stderr separate, the stderr goes to FILE.stderr."
    )]
    spill: Option<PathBuf>,

    /// Save the full input in a new file in DIR; kept only if truncated
    #[arg(
        long,
        value_name = "DIR",
        long_help = "Create DIR (mode 0700) if missing and write the full input to a new, \
                     unpredictably named file in it (created exclusively, mode 0600). The file is \
                     deleted at the end if the output was not truncated. [env: TOOLCAP_SPILL_DIR]"
    )]
    spill_dir: Option<PathBuf>,

    /// Omit the warning header
    #[arg(
        long,
        long_help = "Omit the two header lines (and the blank line after them)."
    )]
    no_header: bool,

    /// Print the head as it arrives; header lines go last
    #[arg(
        long,
        long_help = "Stream the head to stdout as it arrives, flushed per chunk, so a CI log \
                     shows progress while the job runs. Once the head budget is spent nothing more \
                     is printed until the end; then the marker, the tail and, because they could \
                     not come first, the two header lines. Output within the budget is still \
                     passed through unchanged."
    )]
    live: bool,

    /// Run STRING with /bin/sh -c (or --shell)
    #[arg(short = 'c', long = "command", value_name = "STRING")]
    command: Option<OsString>,

    /// Shell for -c [default: /bin/sh]
    #[arg(long, value_name = "PATH", requires = "command")]
    shell: Option<OsString>,

    /// Child's stderr: merged into stdout, or capped separately
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        requires = "wrapped",
        long_help = "merged: the child's stdout and stderr share one pipe, exactly as 2>&1, so \
                     lines keep their order. separate: the stderr is capped on its own onto \
                     toolcap's stderr, with its own header and marker. [default: merged]"
    )]
    stderr: Option<StderrArg>,

    /// Budget for the separate stderr [default: --max]
    #[arg(
        long,
        value_name = "SIZE",
        value_parser = parse_size,
        long_help = "Budget for the child's stderr with --stderr separate; --head, --tail, --lines \
                     and --cut apply to it as to stdout. [default: same as --max]"
    )]
    stderr_max: Option<u64>,

    /// Stop the command after DURATION (exit 124)
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_duration,
        requires = "wrapped",
        long_help = "Stop the command after DURATION: SIGTERM to its whole process group, then \
                     SIGKILL after --kill-after. What it printed until then is capped and \
                     printed; exit status 124. 0 means no timeout.\n\nExample: --timeout 5m"
    )]
    timeout: Option<Duration>,

    /// Wait this long after SIGTERM before SIGKILL [default: 5s]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "timeout")]
    kill_after: Option<Duration>,

    /// Read at most this long after the command exits [default: 2s]
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_duration,
        requires = "wrapped",
        long_help = "After the command exits, read its pipes for at most DURATION more, so a \
                     background process that keeps them open cannot hang toolcap. [default: 2s]"
    )]
    drain: Option<Duration>,

    /// Do not append the [exit status: N] line
    #[arg(
        long,
        requires = "wrapped",
        long_help = "Do not append the status line that follows the output when the command did \
                     not exit 0: [exit status: 3], [killed by signal 9 (SIGKILL)] or [timed out \
                     after 30s]."
    )]
    no_status: bool,

    /// Give the command /dev/null as stdin
    #[arg(long, requires = "wrapped")]
    no_stdin: bool,

    /// Ask the command for plain output (NO_COLOR=1, TERM=dumb, ...)
    #[arg(
        long,
        requires = "wrapped",
        long_help = "Run the command with NO_COLOR=1, TERM=dumb, PAGER=cat, GIT_PAGER=cat, \
                     CLICOLOR=0 and without FORCE_COLOR and CLICOLOR_FORCE, so tools stop \
                     decorating their output for a terminal nobody sees."
    )]
    plain_env: bool,

    /// Run PROGRAM with ARGS directly (no shell) and cap its output
    #[arg(last = true, value_name = "PROGRAM")]
    program: Vec<OsString>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum CutArg {
    Lines,
    Bytes,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum StderrArg {
    Merged,
    Separate,
}

/// Why parsing ended without a `Config`: help, version, or a usage error.
/// Wraps clap's error so that `main` need not know clap.
pub struct Stop(clap::Error);

impl Stop {
    /// Prints help or version to stdout, or the error to stderr.
    pub fn print(&self) {
        let _ = self.0.print();
    }

    /// 0 for help and version, 2 for a usage error.
    pub fn exit_code(&self) -> u8 {
        if self.0.use_stderr() { 2 } else { 0 }
    }
}

/// Parses the process's arguments and environment into a `Config`.
pub fn parse() -> Result<Config, Stop> {
    let args = Args::try_parse().map_err(Stop)?;
    args.into_config(|name| std::env::var_os(name))
        .map_err(|message| Stop(Args::command().error(ErrorKind::ValueValidation, message)))
}

impl Args {
    fn into_config(self, env: impl Fn(&str) -> Option<OsString>) -> Result<Config, String> {
        let max = match (self.max, self.tokens) {
            (Some(max), _) => max,
            (None, Some(tokens)) => tokens
                .checked_mul(BYTES_PER_TOKEN)
                .ok_or_else(|| format!("invalid value '{tokens}' for '--tokens': too large"))?,
            (None, None) => match env("TOOLCAP_MAX") {
                Some(value) => {
                    let text = value.to_str().ok_or("invalid TOOLCAP_MAX: not UTF-8")?;
                    parse_size(text).map_err(|err| format!("invalid TOOLCAP_MAX: {err}"))?
                }
                None => DEFAULT_MAX,
            },
        };
        let cut = match self.cut.unwrap_or(CutArg::Lines) {
            CutArg::Lines => CutMode::Lines,
            CutArg::Bytes => CutMode::Bytes,
        };
        let budget_for = |max| split_budget(max, self.head, self.tail, self.lines, cut);
        let spill = match (self.spill, self.spill_dir) {
            (Some(file), _) => Some(SpillTarget::File(file)),
            (None, Some(dir)) => Some(SpillTarget::Dir(dir)),
            (None, None) => env("TOOLCAP_SPILL_DIR")
                .filter(|dir| !dir.is_empty())
                .map(|dir| SpillTarget::Dir(dir.into())),
        };
        let argv = match (self.command, self.program) {
            (Some(string), _) => Some(vec![
                self.shell.unwrap_or_else(|| DEFAULT_SHELL.into()),
                "-c".into(),
                string,
            ]),
            (None, program) if !program.is_empty() => Some(program),
            _ => None,
        };
        let mode = match argv {
            None => {
                let inputs = self.files.into_iter().map(|path| {
                    if path.as_os_str() == "-" {
                        Input::Stdin
                    } else {
                        Input::File(path)
                    }
                });
                let mut inputs: Vec<Input> = inputs.collect();
                if inputs.is_empty() {
                    inputs.push(Input::Stdin);
                }
                Mode::Filter(inputs)
            }
            Some(argv) => {
                let stderr = match self.stderr {
                    Some(StderrArg::Separate) => {
                        StderrMode::Separate(budget_for(self.stderr_max.unwrap_or(max)))
                    }
                    _ if self.stderr_max.is_some() => {
                        return Err("--stderr-max needs --stderr separate".into());
                    }
                    _ => StderrMode::Merged,
                };
                Mode::Wrap(WrapConfig {
                    argv,
                    stderr,
                    timeout: self.timeout.filter(|timeout| !timeout.is_zero()),
                    kill_after: self.kill_after.unwrap_or(DEFAULT_KILL_AFTER),
                    drain: self.drain.unwrap_or(DEFAULT_DRAIN),
                    status_line: !self.no_status,
                    inherit_stdin: !self.no_stdin,
                    plain_env: self.plain_env,
                })
            }
        };
        Ok(Config {
            budget: budget_for(max),
            header: !self.no_header,
            live: self.live,
            spill,
            mode,
        })
    }
}

/// Splits `max` into head and tail: half each by default; one side given,
/// the other gets the rest (never below 0); both given, they are the budget.
fn split_budget(
    max: u64,
    head: Option<SizeOrPercent>,
    tail: Option<SizeOrPercent>,
    lines: Option<u64>,
    cut: CutMode,
) -> Budget {
    let (head, tail) = match (head.map(|h| h.resolve(max)), tail.map(|t| t.resolve(max))) {
        (None, None) => (max / 2, max - max / 2),
        (Some(head), None) => (head, max.saturating_sub(head)),
        (None, Some(tail)) => (max.saturating_sub(tail), tail),
        (Some(head), Some(tail)) => (head, tail),
    };
    Budget {
        head,
        tail,
        lines,
        cut,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(args: &[&str]) -> Result<Config, String> {
        config_with_env(args, &[])
    }

    fn config_with_env(args: &[&str], vars: &[(&str, &str)]) -> Result<Config, String> {
        let args = Args::try_parse_from(std::iter::once("toolcap").chain(args.iter().copied()))
            .map_err(|err| err.to_string())?;
        args.into_config(|name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.into())
        })
    }

    fn budget(args: &[&str]) -> (u64, u64) {
        let budget = config(args).unwrap().budget;
        (budget.head, budget.tail)
    }

    #[test]
    fn budget_splits() {
        assert_eq!(budget(&[]), (5_000, 5_000));
        assert_eq!(budget(&["--max", "11"]), (5, 6));
        assert_eq!(budget(&["--tokens", "100"]), (200, 200));
        assert_eq!(budget(&["--max", "10k", "--head", "20%"]), (2_000, 8_000));
        assert_eq!(budget(&["--max", "10k", "--tail", "3k"]), (7_000, 3_000));
        assert_eq!(budget(&["--max", "10k", "--head", "20k"]), (20_000, 0));
        assert_eq!(budget(&["--head", "1k", "--tail", "2k"]), (1_000, 2_000));
        assert_eq!(
            budget(&["--max", "7", "--head", "50%", "--tail", "50%"]),
            (3, 3)
        );
    }

    #[test]
    fn environment_sets_defaults_and_flags_win() {
        let from_env = config_with_env(
            &[],
            &[("TOOLCAP_MAX", "1k"), ("TOOLCAP_SPILL_DIR", "/tmp/s")],
        )
        .unwrap();
        assert_eq!(from_env.budget.head + from_env.budget.tail, 1_000);
        assert_eq!(from_env.spill, Some(SpillTarget::Dir("/tmp/s".into())));
        let flags = config_with_env(
            &["--tokens", "1", "--spill", "f"],
            &[("TOOLCAP_MAX", "1k"), ("TOOLCAP_SPILL_DIR", "/tmp/s")],
        )
        .unwrap();
        assert_eq!(flags.budget.head + flags.budget.tail, 4);
        assert_eq!(flags.spill, Some(SpillTarget::File("f".into())));
        let err = config_with_env(&[], &[("TOOLCAP_MAX", "lots")]).unwrap_err();
        assert!(
            err.starts_with("invalid TOOLCAP_MAX: invalid size 'lots'"),
            "{err}"
        );
    }

    #[test]
    fn usage_errors() {
        for args in [
            &["--max", "1.5k"][..],
            &["--max", "1k", "--tokens", "3"],
            &["--spill", "a", "--spill-dir", "b"],
            &["file", "--", "echo"],
            &["-c", "true", "--", "echo"],
            &["--timeout", "1s"],
            &["--shell", "bash"],
            &["--stderr-max", "1k", "--", "true"],
            &["--tokens", "18446744073709551615"],
        ] {
            assert!(config(args).is_err(), "{args:?}");
        }
    }

    #[test]
    fn wrap_mode_arguments() {
        let Mode::Wrap(wrap) = config(&["--shell", "bash", "-c", "echo hi"]).unwrap().mode else {
            panic!()
        };
        assert_eq!(wrap.argv, ["bash", "-c", "echo hi"]);
        let Mode::Wrap(wrap) = config(&["--timeout", "0", "--", "ls", "-l"]).unwrap().mode else {
            panic!()
        };
        assert_eq!((wrap.argv.len(), wrap.timeout), (2, None));
    }

    #[test]
    fn clap_definition_is_consistent() {
        Args::command().debug_assert();
    }

    /// The man page and completions are generated from this definition; a
    /// difference from the checked-in copies fails with the fix.
    #[test]
    fn generated_files_are_current() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut expected = Vec::new();
        let mut man = Vec::new();
        clap_mangen::Man::new(Args::command())
            .render(&mut man)
            .expect("render man page");
        expected.push((root.join("man/toolcap.1"), man));
        for (shell, file) in [
            (clap_complete::Shell::Bash, "toolcap.bash"),
            (clap_complete::Shell::Zsh, "_toolcap"),
            (clap_complete::Shell::Fish, "toolcap.fish"),
        ] {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Args::command(), "toolcap", &mut script);
            expected.push((root.join("completions").join(file), script));
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
             regenerate them with: TOOLCAP_UPDATE_GENERATED=1 cargo test generated_files_are_current"
        );
    }
}
