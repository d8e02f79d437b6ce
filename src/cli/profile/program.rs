//! Which program a command runs, as `--profile auto` sees it: the base
//! name of each program in the command, looking through the wrappers that
//! only run another one (`env`, `sudo`, `time`, `nice`, `timeout`,
//! `nohup`, `exec`, `command`, `stdbuf`, `uv run`, `npx`, `python -m`, a
//! shell's `-c STRING`). Words only: nothing here runs or resolves
//! anything.

use crate::source::child::is_shell;

/// One program of a command line, and the words after it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Invocation {
    /// The base name (`/usr/bin/python3` is `python3`); for `python -m
    /// MODULE`, the module.
    pub(super) program: String,
    pub(super) args: Vec<String>,
    /// Which command of a shell script it belongs to, from 1 (`cd x &&
    /// touch y && cargo build`: cargo is in the third); 0 outside a script.
    pub(super) command: usize,
}

impl Invocation {
    /// The first word after the program that is not an option (`-q`), an
    /// option's value (`git -C DIR log`) or a toolchain (`cargo +nightly
    /// test`): the subcommand, if it has one.
    pub(super) fn subcommand(&self) -> Option<&str> {
        let valued = options_with_a_value(&self.program);
        let mut words = self.args.iter().map(String::as_str);
        while let Some(word) = words.next() {
            if valued.contains(&word) {
                words.next();
            } else if !word.starts_with('-') && !word.starts_with('+') {
                return Some(word);
            }
        }
        None
    }
}

/// The options a program with subcommands takes before the subcommand
/// whose value is the next word.
fn options_with_a_value(program: &str) -> &'static [&'static str] {
    match program {
        "git" => &[
            "-c",
            "-C",
            "--git-dir",
            "--work-tree",
            "--namespace",
            "--config-env",
            "--attr-source",
        ],
        "cargo" => &["--config", "-Z", "--color", "-C"],
        "go" => &["-C"],
        _ => &[],
    }
}

/// What a wrapper runs: the words after its own, new words (`python
/// -mMODULE`), a shell's script, or nothing it wraps.
enum Next<'a> {
    Runs(&'a [String]),
    /// New words, run as they are (`python -mMODULE`).
    Words(Vec<String>),
    /// The commands of a script that print, in order.
    Script(Vec<Vec<String>>),
    Nothing,
}

/// The programs `words` runs, outermost first: `sudo -u ci python3 -m
/// pytest -x` runs `sudo`, `python3` and `pytest`.
pub(super) fn invocations(words: &[String]) -> Vec<Invocation> {
    let mut found = Vec::new();
    let mut rest = skip_assignments(words);
    while let Some((first, args)) = rest.split_first() {
        let program = base_name(first);
        found.push(Invocation {
            program: program.to_string(),
            args: args.to_vec(),
            command: 0,
        });
        let next = match program {
            "env" => Next::Runs(skip_options(
                args,
                &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"],
            )),
            "sudo" => Next::Runs(skip_options(
                args,
                &[
                    "-u",
                    "--user",
                    "-g",
                    "--group",
                    "-h",
                    "--host",
                    "-p",
                    "--prompt",
                    "-C",
                    "--close-from",
                    "-D",
                    "--chdir",
                    "-r",
                    "--role",
                    "-t",
                    "--type",
                    "-T",
                    "--command-timeout",
                    "-U",
                    "--other-user",
                ],
            )),
            "time" => Next::Runs(skip_options(args, &["-f", "--format", "-o", "--output"])),
            "nice" => Next::Runs(skip_options(args, &["-n", "--adjustment"])),
            "timeout" => {
                let rest = skip_options(args, &["-s", "--signal", "-k", "--kill-after"]);
                // The duration comes before the command.
                Next::Runs(rest.get(1..).unwrap_or_default())
            }
            "nohup" | "exec" => Next::Runs(skip_options(args, &["-a"])),
            "command" if !only_describes(args) => Next::Runs(skip_options(args, &[])),
            // Its options hold their values (`-oL`), or take the next word.
            "stdbuf" => Next::Runs(skip_options(
                args,
                &["-i", "-o", "-e", "--input", "--output", "--error"],
            )),
            "uv" if args.first().is_some_and(|arg| arg == "run") => uv_run(&args[1..]),
            "npx" => npx(args),
            _ if is_python(program) => python_module(args),
            _ if is_shell(program) => shell_command(args),
            _ => Next::Nothing,
        };
        match next {
            Next::Runs(inner) => rest = skip_assignments(inner),
            Next::Words(words) => {
                found.extend(invocations(&words));
                break;
            }
            Next::Script(commands) => {
                for (index, words) in commands.iter().enumerate() {
                    found.extend(invocations(words).into_iter().map(|mut invocation| {
                        // A nested script's commands stay apart, roughly.
                        invocation.command = invocation.command.max(index + 1);
                        invocation
                    }));
                }
                break;
            }
            Next::Nothing => break,
        }
    }
    found
}

/// The words of the commands in a shell script that do more than prepare
/// the shell (`cd dir && make` runs `make`), in order: words split as the
/// shell does with quotes and backslashes, commands ended by `;`, `&`,
/// `|`, a newline or a parenthesis, redirections left out. `$(...)` and
/// the like are read as plain words.
pub(super) fn printing_commands(script: &str) -> Vec<Vec<String>> {
    /// Builtins and tests that only prepare or check, and a `for` loop's
    /// header: the command that follows them is the one that prints.
    const PREPARE: &[&str] = &[
        "cd", "pushd", "popd", "export", "set", "unset", "source", ".", "umask", "ulimit", "alias",
        "shopt", "trap", ":", "true", "test", "[", "[[", "declare", "typeset", "local", "readonly",
        "exit", "for",
    ];
    /// Reserved words that open or close a group, a condition or a loop
    /// body: the command after them (`{ pytest; }`, `if make; then`) runs.
    const KEYWORDS: &[&str] = &[
        "!", "{", "}", "if", "then", "elif", "else", "fi", "while", "until", "do", "done",
    ];
    let mut found = Vec::new();
    for command in shell_commands(script) {
        let keywords = command
            .iter()
            .take_while(|word| KEYWORDS.contains(&word.as_str()))
            .count();
        match skip_assignments(&command[keywords..]) {
            [] => {}
            // `exec 2>&1` only redirects the shell's own output.
            [exec] if exec == "exec" => {}
            [first, ..] if PREPARE.contains(&first.as_str()) => {}
            // `command -v pytest && pytest` checks, then runs.
            [first, args @ ..] if first == "command" && only_describes(args) => {}
            words => found.push(words.to_vec()),
        }
    }
    found
}

/// Whether `command` with these arguments only says what a name is (`-v`,
/// `-V`), running nothing.
fn only_describes(command_args: &[String]) -> bool {
    (command_args.iter())
        .take_while(|arg| arg.starts_with('-') && *arg != "--")
        .any(|arg| arg.contains(['v', 'V']))
}

/// A script's simple commands, as they are being split into words.
#[derive(Default)]
struct Commands {
    done: Vec<Vec<String>>,
    words: Vec<String>,
    word: Option<String>,
    /// The word being read is a redirection's target (`log` in `> log`),
    /// not one of the command's.
    target: bool,
}

impl Commands {
    fn end_word(&mut self) {
        if let Some(word) = self.word.take()
            && !std::mem::take(&mut self.target)
        {
            self.words.push(word);
        }
    }

    fn end_command(&mut self) {
        self.end_word();
        self.target = false;
        if !self.words.is_empty() {
            self.done.push(std::mem::take(&mut self.words));
        }
    }

    fn text(&mut self) -> &mut String {
        self.word.get_or_insert_with(String::new)
    }
}

/// A script's simple commands, as words.
fn shell_commands(script: &str) -> Vec<Vec<String>> {
    let mut commands = Commands::default();
    let mut chars = script.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let text = commands.text();
                text.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                let text = commands.text();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' if chars.peek().is_some_and(|n| "\"\\$`".contains(*n)) => {
                            text.extend(chars.next());
                        }
                        c => text.push(c),
                    }
                }
            }
            '\\' => {
                // A backslash-newline joins lines; any other char is literal.
                match chars.next() {
                    Some('\n') | None => {}
                    Some(c) => commands.text().push(c),
                }
            }
            '<' | '>' => {
                // A redirection: its fd (`2>`) only when the word so far is
                // all digits, as the shell reads it; the rest of the
                // operator (`>>`, `>&`, `<<<`, `<>`, `>|`), then its target.
                if commands.word.as_deref().is_some_and(|word| {
                    !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())
                }) {
                    commands.word = None;
                }
                commands.end_word();
                while chars.next_if(|c| "<>&|".contains(*c)).is_some() {}
                commands.target = true;
            }
            // `&>log` redirects both outputs; the `>` starts the redirection.
            '&' if chars.peek() == Some(&'>') => commands.end_word(),
            ';' | '&' | '|' | '\n' | '(' | ')' => commands.end_command(),
            '#' if commands.word.is_none() => {
                // A comment, to the end of the line.
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
                commands.end_command();
            }
            c if c.is_whitespace() => commands.end_word(),
            c => commands.text().push(c),
        }
    }
    commands.end_command();
    commands.done
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Skips `NAME=value` words, as a shell or `env` reads them before a
/// command.
fn skip_assignments(words: &[String]) -> &[String] {
    let is_assignment = |word: &String| {
        word.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let skipped = words.iter().take_while(|word| is_assignment(word)).count();
    &words[skipped..]
}

/// Skips a wrapper's options; those in `valued` take the next word
/// (unless written `-uVALUE` or `--user=VALUE`); `--` ends them.
fn skip_options<'a>(args: &'a [String], valued: &[&str]) -> &'a [String] {
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        if arg == "--" {
            return &args[at + 1..];
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        at += if valued.contains(&arg.as_str()) { 2 } else { 1 };
    }
    &args[at.min(args.len())..]
}

/// `uv run [OPTIONS] COMMAND` or `uv run -m MODULE`.
fn uv_run(args: &[String]) -> Next<'_> {
    const VALUED: &[&str] = &[
        "--with",
        "--with-editable",
        "--with-requirements",
        "--python",
        "-p",
        "--project",
        "--directory",
        "--package",
        "--extra",
        "--group",
        "--env-file",
        "--index",
        "--default-index",
        "--index-url",
        "--extra-index-url",
        "--find-links",
        "-f",
        "--config-file",
        "--cache-dir",
    ];
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        match arg.as_str() {
            "--" | "-m" | "--module" => return Next::Runs(&args[at + 1..]),
            arg if VALUED.contains(&arg) => at += 2,
            arg if arg.starts_with('-') => at += 1,
            _ => break,
        }
    }
    Next::Runs(args.get(at..).unwrap_or_default())
}

/// `npx [OPTIONS] COMMAND`, or `npx -c STRING`.
fn npx(args: &[String]) -> Next<'_> {
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        match arg.as_str() {
            "--" => return Next::Runs(&args[at + 1..]),
            "-c" | "--call" => {
                let script = args.get(at + 1).map_or("", String::as_str);
                return Next::Script(printing_commands(script));
            }
            "-p" | "--package" => at += 2,
            arg if arg.starts_with('-') => at += 1,
            _ => break,
        }
    }
    Next::Runs(args.get(at..).unwrap_or_default())
}

fn is_python(program: &str) -> bool {
    let version = program
        .strip_prefix("python")
        .or_else(|| program.strip_prefix("pypy"));
    version.is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// `python [OPTIONS] -m MODULE ARGS`: the module and its arguments.
fn python_module(args: &[String]) -> Next<'_> {
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        match arg.as_str() {
            "-m" => return Next::Runs(&args[at + 1..]),
            "-X" | "-W" => at += 2,
            // -c runs code, a word that is not an option a script.
            "-c" => break,
            arg if arg.starts_with("-m") => {
                let mut inner = vec![arg["-m".len()..].to_string()];
                inner.extend_from_slice(&args[at + 1..]);
                return Next::Words(inner);
            }
            arg if arg.starts_with('-') && arg != "-" => at += 1,
            _ => break,
        }
    }
    Next::Nothing
}

/// `sh [OPTIONS] -c STRING`: the first command of STRING. Options are
/// read as bash reads them: after `-` or `+` a cluster of letters, where
/// each `o` or `O` takes the next word (`-euo pipefail`, `+O extglob`);
/// long options alone, but for the few that take a value; `--` or `-`
/// ends them. With a `c` in a cluster (`-c`, `-lc`), STRING is the first
/// word after the options; without one, that word is a script file.
fn shell_command(args: &[String]) -> Next<'_> {
    /// bash's `--rcfile FILE` and `--init-file FILE`, zsh's `--emulate MODE`.
    const VALUED: &[&str] = &["--rcfile", "--init-file", "--emulate"];
    let mut runs_string = false;
    let mut words = args.iter();
    let operand = loop {
        let Some(word) = words.next() else {
            return Next::Nothing;
        };
        match word.as_str() {
            "--" | "-" => break words.next(),
            long if VALUED.contains(&long) => {
                words.next();
            }
            long if long.starts_with("--") => {}
            _ => match word.strip_prefix(['-', '+']) {
                Some(letters) if !letters.is_empty() => {
                    runs_string |= letters.contains('c');
                    for _ in letters.matches(['o', 'O']) {
                        words.next();
                    }
                }
                _ => break Some(word),
            },
        }
    };
    match operand {
        Some(script) if runs_string => Next::Script(printing_commands(script)),
        _ => Next::Nothing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first command of a script that prints, as one line.
    fn first_command(script: &str) -> Vec<String> {
        printing_commands(script)
            .into_iter()
            .next()
            .unwrap_or_default()
    }

    fn programs(command: &str) -> Vec<String> {
        let words: Vec<String> = command.split(' ').map(String::from).collect();
        invocations(&words).into_iter().map(|i| i.program).collect()
    }

    #[test]
    fn wrappers_are_looked_through() {
        for (command, expected) in [
            ("cargo test --lib", &["cargo"][..]),
            ("/usr/bin/env -i FOO=1 cargo build", &["env", "cargo"]),
            ("sudo -u ci -E make -j4", &["sudo", "make"]),
            (
                "time -p nice -n 5 timeout -s KILL 5m pytest -x",
                &["time", "nice", "timeout", "pytest"],
            ),
            ("uv run --with rich -- pytest", &["uv", "pytest"]),
            ("uv run -m pytest", &["uv", "pytest"]),
            ("npx --yes jest --ci", &["npx", "jest"]),
            ("python3.12 -u -m pytest tests", &["python3.12", "pytest"]),
            ("python -mpytest", &["python", "pytest"]),
            ("python script.py", &["python"]),
            ("bash -lc cd&&pytest", &["bash", "pytest"]),
            ("FOO=1 BAR=2 go test ./...", &["go"]),
            ("nohup exec ninja", &["nohup", "exec", "ninja"]),
            ("command -p pytest -x", &["command", "pytest"]),
            ("command -v pytest", &["command"]),
            ("command -- pytest", &["command", "pytest"]),
            ("/usr/bin/fish -c pytest", &["fish", "pytest"]),
            ("stdbuf -oL -e 0 cargo test", &["stdbuf", "cargo"]),
        ] {
            assert_eq!(programs(command), expected, "{command}");
        }
    }

    #[test]
    fn the_first_command_of_a_script_that_prints() {
        for (script, expected) in [
            ("cd 'my dir' && cargo test", "cargo test"),
            ("set -e; export X=1; FOO=\"a b\" pytest -q", "pytest -q"),
            ("make check 2>&1 | tail", "make check"),
            ("# setup\n[ -d x ] || mkdir x\nls", "mkdir x"),
            ("(cd sub; npm test)", "npm test"),
            ("echo \"a\\\"b\" c\\ d", "echo a\"b c d"),
            ("cd x", ""),
            ("command -v pytest >/dev/null && pytest -x", "pytest -x"),
            ("command pytest -x", "command pytest -x"),
        ] {
            assert_eq!(first_command(script).join(" "), expected, "{script:?}");
        }
    }

    #[test]
    fn shell_options_before_the_string_are_skipped() {
        for (argv, expected) in [
            (
                &["bash", "-o", "pipefail", "-c", "cargo test"][..],
                &["bash", "cargo"][..],
            ),
            (
                &["bash", "-eo", "pipefail", "-c", "cargo test"],
                &["bash", "cargo"],
            ),
            (
                &["bash", "-euo", "pipefail", "-c", "cargo test"],
                &["bash", "cargo"],
            ),
            (
                &["bash", "-O", "extglob", "-c", "cargo test"],
                &["bash", "cargo"],
            ),
            (
                &["bash", "+O", "extglob", "+o", "posix", "-ec", "cargo test"],
                &["bash", "cargo"],
            ),
            (
                &["bash", "-oO", "pipefail", "extglob", "-c", "pytest"],
                &["bash", "pytest"],
            ),
            (
                &["bash", "-c", "-o", "pipefail", "pytest"],
                &["bash", "pytest"],
            ),
            (
                &["bash", "--norc", "--rcfile", "rc", "-lc", "pytest"],
                &["bash", "pytest"],
            ),
            (
                &["zsh", "--emulate", "sh", "-c", "pytest"],
                &["zsh", "pytest"],
            ),
            (&["sh", "-c", "--", "pytest"], &["sh", "pytest"]),
            (&["sh", "-c", "-", "pytest"], &["sh", "pytest"]),
            (&["sh", "-c", "exec pytest -x"], &["sh", "exec", "pytest"]),
            // Without a `c` the first word is a script file, whatever follows.
            (&["bash", "-o", "pipefail", "run.sh"], &["bash"]),
            (&["bash", "run.sh", "-c", "pytest"], &["bash"]),
            (&["bash", "--", "-c", "pytest"], &["bash"]),
            // The option's value is not the string.
            (&["bash", "-c", "-o", "pytest"], &["bash"]),
            (&["bash", "-eo"], &["bash"]),
            (&["sh", "-c", "echo pytest"], &["sh", "echo"]),
        ] {
            let words: Vec<String> = argv.iter().map(|word| word.to_string()).collect();
            let found: Vec<String> = invocations(&words).into_iter().map(|i| i.program).collect();
            assert_eq!(found, expected, "{argv:?}");
        }
    }

    #[test]
    fn idioms_before_the_command_are_looked_through() {
        for (script, expected) in [
            ("cd x || exit 1; pytest", "pytest"),
            ("cd x || true; pytest", "pytest"),
            ("exec 2>&1; pytest", "pytest"),
            ("exec >log 2>&1\npytest -q", "pytest -q"),
            ("exec > log 2> err; exec &>all; pytest", "pytest"),
            ("exec 3>&-; pytest", "pytest"),
            ("exec pytest -x", "exec pytest -x"),
            ("{ pytest; }", "pytest"),
            ("{ cd x; pytest -q; } 2>&1 | tee log", "pytest -q"),
            ("( pytest )", "pytest"),
            ("if ! make; then exit 1; fi", "make"),
            ("while true; do pytest; done", "pytest"),
            ("for f in a b; do pytest \"$f\"; done", "pytest $f"),
            ("FOO=1 >log BAR=2 pytest -x", "pytest -x"),
            ("2>/dev/null cargo test", "cargo test"),
            ("make>log", "make"),
            ("cargo test >> log 2>&1", "cargo test"),
            ("cat <<'EOF'", "cat"),
            // Quoted, `>` is a word; a word with other letters is no fd.
            ("echo '>' x", "echo > x"),
            ("echo a2>x", "echo a2"),
            ("echo pytest", "echo pytest"),
            ("exec 2>&1", ""),
            ("{ cd x; }", ""),
        ] {
            assert_eq!(first_command(script).join(" "), expected, "{script:?}");
        }
    }

    #[test]
    fn subcommands_skip_options_and_toolchains() {
        let cargo = &invocations(&[
            "cargo".into(),
            "+nightly".into(),
            "-q".into(),
            "test".into(),
        ])[0];
        assert_eq!(cargo.subcommand(), Some("test"));
        for (command, expected) in [
            ("git -c color.ui=always diff HEAD", Some("diff")),
            ("git -C repo --no-pager log -p", Some("log")),
            ("git --git-dir=.git show", Some("show")),
            ("git --attr-source HEAD diff", Some("diff")),
            (
                "cargo --config build.jobs=1 --color always test",
                Some("test"),
            ),
            ("git -c", None),
        ] {
            let words: Vec<String> = command.split(' ').map(String::from).collect();
            assert_eq!(invocations(&words)[0].subcommand(), expected, "{command}");
        }
    }
}
