//! Spawning the wrapped command: its argv, directory and environment, its
//! own process group, its pipes (one shared by stdout and stderr, or one
//! each, and one for its input), and the terminal handed over when it may
//! need to read from it.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::sys::{self, ProcessGroup};

/// Whether `program` (a path or a name) is a shell, to which `-c` gives a
/// command string (to `grep` or `gcc` it means something else): for the
/// store's command column and `--profile auto`, which read that string.
pub(crate) fn is_shell(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    matches!(
        name,
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "ash" | "mksh" | "yash" | "fish"
    )
}

/// What `--plain-env` sets: the variables that make tools stop decorating
/// output for a terminal nobody sees.
const PLAIN_ENV: [(&str, &str); 5] = [
    ("NO_COLOR", "1"),
    ("TERM", "dumb"),
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("CLICOLOR", "0"),
];
/// What `--plain-env` removes: they force colour even into a pipe.
const PLAIN_ENV_REMOVED: [&str; 2] = ["FORCE_COLOR", "CLICOLOR_FORCE"];

/// What to start, as plain values: the driver of wrap mode makes it of
/// its configuration, which this module does not know.
pub(crate) struct Launch<'a> {
    /// The program and its arguments; not empty.
    pub(crate) argv: &'a [OsString],
    /// The directory it runs in (`None`: toolcap's own).
    pub(crate) cwd: Option<&'a Path>,
    /// Its whole environment instead of toolcap's (`None`: inherited).
    pub(crate) env: Option<&'a [(OsString, OsString)]>,
    /// `--plain-env`, on top of `env`.
    pub(crate) plain_env: bool,
    pub(crate) stdin: Stdin,
    pub(crate) stderr: Stderr,
}

/// What the command's stdin is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stdin {
    /// /dev/null.
    Null,
    /// toolcap's own stdin (and its terminal, when it may be taken).
    Inherited,
    /// A pipe that the supervisor feeds.
    Fed,
}

/// Where the command's stderr goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stderr {
    /// Into stdout's pipe.
    Merged,
    /// Into a pipe of its own.
    Separate,
}

/// A started command.
pub(crate) struct Spawned {
    pub(crate) group: ProcessGroup,
    /// Its stdout (or stdout and stderr merged), and its separate stderr.
    pub(crate) output: File,
    pub(crate) stderr: Option<File>,
    /// The write end of its stdin, non-blocking, when it is
    /// [`Stdin::Fed`].
    pub(crate) input: Option<File>,
    /// Whether its group was made the terminal's foreground group; toolcap
    /// must take the terminal back when it is done.
    pub(crate) has_terminal: bool,
}

/// Why the command was not started.
pub(crate) enum SpawnError {
    /// toolcap could not set up its pipes.
    Setup(io::Error),
    /// The system could not execute the command (not found, not executable).
    Exec(io::Error),
    /// Its working directory is not one.
    Directory(io::Error),
}

/// Starts the command in its own process group.
///
/// When `may_take_terminal`, toolcap's stdin is a terminal and toolcap is
/// its foreground job, the command's group becomes the terminal's
/// foreground group for the run, as a shell does for a job: a background
/// group that reads the terminal is stopped by SIGTTIN, and an interactive
/// command would hang.
pub(crate) fn spawn(launch: &Launch, may_take_terminal: bool) -> Result<Spawned, SpawnError> {
    let mut command = Command::new(&launch.argv[0]);
    command.args(&launch.argv[1..]).process_group(0);
    sys::default_sigxfsz_in_child(&mut command);
    if let Some(dir) = launch.cwd {
        // std reports a failed chdir as a failed exec, which would read as
        // "program not found".
        match std::fs::metadata(dir) {
            Ok(metadata) if metadata.is_dir() => {}
            Ok(_) => return Err(SpawnError::Directory(io::ErrorKind::NotADirectory.into())),
            Err(err) => return Err(SpawnError::Directory(err)),
        }
        command.current_dir(dir);
    }
    if let Some(env) = launch.env {
        command
            .env_clear()
            .envs(env.iter().map(|(name, value)| (name, value)));
    }
    let has_terminal =
        may_take_terminal && launch.stdin == Stdin::Inherited && sys::owns_terminal();
    let input = match launch.stdin {
        Stdin::Fed => {
            let (reader, writer) = io::pipe().map_err(SpawnError::Setup)?;
            sys::set_nonblocking(writer.as_fd()).map_err(SpawnError::Setup)?;
            command.stdin(reader);
            Some(file_from(writer))
        }
        Stdin::Null => {
            command.stdin(Stdio::null());
            None
        }
        Stdin::Inherited => {
            if has_terminal {
                sys::take_terminal_in_child(&mut command);
            }
            None
        }
    };
    if launch.plain_env {
        command.envs(PLAIN_ENV);
        for name in PLAIN_ENV_REMOVED {
            command.env_remove(name);
        }
    }
    let (output, output_writer) = io::pipe().map_err(SpawnError::Setup)?;
    let stderr = match launch.stderr {
        Stderr::Merged => {
            // One pipe for both, exactly what `2>&1` gives: lines keep the
            // order a terminal would show.
            let stderr_writer = output_writer.try_clone().map_err(SpawnError::Setup)?;
            command.stdout(output_writer).stderr(stderr_writer);
            None
        }
        Stderr::Separate => {
            let (stderr, stderr_writer) = io::pipe().map_err(SpawnError::Setup)?;
            command.stdout(output_writer).stderr(stderr_writer);
            Some(stderr)
        }
    };
    let spawned = command.spawn();
    // Our copies of the pipes' write ends live in `command`: close them, or
    // the reads never see end-of-file.
    drop(command);
    let child = spawned.map_err(|error| {
        if has_terminal {
            sys::take_terminal();
        }
        SpawnError::Exec(error)
    })?;
    Ok(Spawned {
        group: ProcessGroup::led_by(&child),
        output: file_from(output),
        stderr: stderr.map(file_from),
        input,
        has_terminal,
    })
}

fn file_from(pipe: impl Into<OwnedFd>) -> File {
    File::from(pipe.into())
}
