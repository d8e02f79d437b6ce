//! Whether a shell command line may run through toolcap: a small,
//! conservative reading of its top level (the commands the agent's shell
//! itself runs, not those of a subshell or a command substitution). The
//! wrapped command runs in a child `/bin/sh`, so a command that changes
//! the shell (a `cd` that the next call relies on), that starts a job in
//! the background, that only bash understands, or that this reading is
//! not sure of, is left alone. Owns no I/O.

/// Builtins that change the shell they run in (its directory, variables,
/// options, aliases, functions, traps, limits, jobs), or that need the
/// shell's own state: run in a child shell they would change nothing, or
/// see nothing.
const SHELL_STATE: &[&str] = &[
    ".", "alias", "bg", "bind", "cd", "complete", "declare", "dirs", "disown", "enable", "eval",
    "exec", "export", "fg", "hash", "history", "jobs", "local", "logout", "popd", "pushd",
    "readonly", "return", "set", "shopt", "source", "trap", "typeset", "ulimit", "umask",
    "unalias", "unset", "wait",
];

/// Reserved words after which a new command starts (POSIX 2.4), and `{`
/// `}` (a group runs in the shell itself, so its commands are top level).
const KEYWORDS: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until",
];

/// Words that only bash (or ksh, zsh) understands, or that a POSIX sh
/// reads differently: a child `/bin/sh` (dash on Debian) would fail them.
const BASH_ONLY_WORDS: &[&str] = &["[[", "function", "select", "time", "coproc"];

/// What to do with a command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Run it through toolcap.
    Wrap,
    /// Leave it alone, for this reason.
    Leave(&'static str),
}

/// Reads `command`'s top level and says whether it may be wrapped.
pub(crate) fn judge(command: &str) -> Verdict {
    match Reader::new(command).commands() {
        Ok(0) => Verdict::Leave("no command"),
        Ok(_) => Verdict::Wrap,
        Err(reason) => Verdict::Leave(reason),
    }
}

/// One word of a simple command, as far as it matters here.
#[derive(Debug, Default)]
struct Word {
    /// The text with quotes removed, where it has no expansion.
    literal: String,
    /// It holds a `$`, a backquote or a quote: not a plain name.
    expanded: bool,
    quoted: bool,
}

impl Word {
    /// `NAME=...` (an assignment in front of a command, or alone).
    fn is_assignment(&self) -> bool {
        let Some((name, _)) = self.literal.split_once('=') else {
            return false;
        };
        let mut chars = name.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    }
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
    /// Heredocs whose bodies start after the current line: delimiter, and
    /// whether leading tabs are stripped (`<<-`).
    heredocs: Vec<(String, bool)>,
}

type Read<T> = Result<T, &'static str>;

const UNPARSED: &str = "cannot be read with certainty";

impl<'a> Reader<'a> {
    fn new(text: &'a str) -> Reader<'a> {
        Reader {
            text: text.as_bytes(),
            at: 0,
            heredocs: Vec::new(),
        }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.text.get(self.at + ahead).copied()
    }

    fn starts(&self, token: &str) -> bool {
        self.text[self.at..].starts_with(token.as_bytes())
    }

    /// Reads the whole line, judging each simple command at the top level;
    /// returns how many it judged.
    fn commands(&mut self) -> Read<usize> {
        let mut judged = 0;
        let mut words: Vec<Word> = Vec::new();
        // The next word is the target of a redirection, not a command word.
        let mut redirect_target = false;
        loop {
            let Some(byte) = self.peek(0) else {
                judged += judge_simple(&words)?;
                return Ok(judged);
            };
            match byte {
                b' ' | b'\t' => self.at += 1,
                b'#' if !redirect_target => {
                    while self.peek(0).is_some_and(|b| b != b'\n') {
                        self.at += 1;
                    }
                }
                b'\n' => {
                    judged += judge_simple(&std::mem::take(&mut words))?;
                    self.at += 1;
                    self.skip_heredoc_bodies()?;
                }
                b';' => {
                    if self.starts(";;") {
                        return Err(UNPARSED);
                    }
                    judged += judge_simple(&std::mem::take(&mut words))?;
                    self.at += 1;
                }
                b'&' => {
                    if self.starts("&&") {
                        judged += judge_simple(&std::mem::take(&mut words))?;
                        self.at += 2;
                    } else if self.starts("&>") {
                        return Err("uses bash-only syntax");
                    } else {
                        return Err("starts a background job");
                    }
                }
                b'|' => {
                    if self.starts("|&") {
                        return Err("uses bash-only syntax");
                    }
                    judged += judge_simple(&std::mem::take(&mut words))?;
                    self.at += if self.starts("||") { 2 } else { 1 };
                }
                b'(' => {
                    if self.starts("((") {
                        return Err("uses bash-only syntax");
                    }
                    if words
                        .iter()
                        .any(|word| word.quoted || !KEYWORDS.contains(&word.literal.as_str()))
                    {
                        // `name ()`: a function definition.
                        return Err("defines a function, or uses bash-only syntax");
                    }
                    // A subshell: what it changes goes with it.
                    self.at += 1;
                    self.skip_balanced(b')')?;
                    judged += 1;
                }
                b')' => return Err(UNPARSED),
                b'<' | b'>' => {
                    if self.starts("<(") || self.starts(">(") || self.starts("<<<") {
                        return Err("uses bash-only syntax");
                    }
                    if self.starts("<<") {
                        self.at += 2;
                        let strip = self.peek(0) == Some(b'-');
                        if strip {
                            self.at += 1;
                        }
                        while matches!(self.peek(0), Some(b' ' | b'\t')) {
                            self.at += 1;
                        }
                        let delimiter = self.word()?;
                        if delimiter.literal.is_empty() || delimiter.expanded {
                            return Err(UNPARSED);
                        }
                        self.heredocs.push((delimiter.literal, strip));
                        continue;
                    }
                    // > >> >| >& <& <> and the like.
                    self.at += 1;
                    while matches!(self.peek(0), Some(b'>' | b'|' | b'&' | b'<')) {
                        self.at += 1;
                    }
                    if self.text[self.at - 1] == b'&' && self.peek(0) == Some(b'-') {
                        self.at += 1;
                    }
                    redirect_target = true;
                }
                _ => {
                    let word = self.word()?;
                    // `2>file`: a file descriptor number before a redirection.
                    let is_fd = matches!(self.peek(0), Some(b'<' | b'>'))
                        && !word.literal.is_empty()
                        && word.literal.bytes().all(|b| b.is_ascii_digit());
                    if redirect_target {
                        redirect_target = false;
                    } else if !is_fd {
                        words.push(word);
                    }
                }
            }
        }
    }

    /// A word at the cursor: its quotes removed, expansions skipped over.
    fn word(&mut self) -> Read<Word> {
        let mut word = Word::default();
        while let Some(byte) = self.peek(0) {
            match byte {
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b')' => break,
                // `name()` (a function) or `a=(1 2)` (an array).
                b'(' if !word.literal.is_empty() => {
                    return Err("defines a function, or uses bash-only syntax");
                }
                b'(' => break,
                b'\'' => {
                    self.at += 1;
                    let end = self.find(b'\'')?;
                    word.literal
                        .push_str(&String::from_utf8_lossy(&self.text[self.at..end]));
                    word.quoted = true;
                    self.at = end + 1;
                }
                b'"' => {
                    self.at += 1;
                    word.quoted = true;
                    self.double_quoted(&mut word)?;
                }
                b'\\' => {
                    match self.peek(1) {
                        None => return Err(UNPARSED),
                        Some(b'\n') => {}
                        Some(next) => word.literal.push(next as char),
                    }
                    word.quoted = true;
                    self.at += 2;
                }
                b'$' => {
                    if self.peek(1) == Some(b'\'') {
                        return Err("uses bash-only syntax");
                    }
                    word.expanded = true;
                    self.dollar()?;
                }
                b'`' => {
                    word.expanded = true;
                    self.at += 1;
                    self.backquoted()?;
                }
                b'{' if self.brace_expansion() => return Err("uses bash-only syntax"),
                _ => {
                    let rest = &self.text[self.at..];
                    let len = utf8_len(rest);
                    word.literal
                        .push_str(&String::from_utf8_lossy(&rest[..len]));
                    self.at += len;
                }
            }
        }
        Ok(word)
    }

    /// `{a,b}` or `{1..3}` at the cursor: bash's brace expansion.
    fn brace_expansion(&self) -> bool {
        let rest = &self.text[self.at..];
        let Some(end) = rest.iter().position(|&b| b == b'}') else {
            return false;
        };
        let inside = &rest[1..end];
        !inside.iter().any(|b| b" \t\n;|&'\"$".contains(b))
            && (inside.contains(&b',') || inside.windows(2).any(|pair| pair == b".."))
    }

    /// The offset of the next `byte`.
    fn find(&self, byte: u8) -> Read<usize> {
        self.text[self.at..]
            .iter()
            .position(|&b| b == byte)
            .map(|offset| self.at + offset)
            .ok_or(UNPARSED)
    }

    /// The inside of `"..."`, the cursor after its opening quote.
    fn double_quoted(&mut self, word: &mut Word) -> Read<()> {
        loop {
            match self.peek(0) {
                None => return Err(UNPARSED),
                Some(b'"') => {
                    self.at += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    if let Some(next) = self.peek(1) {
                        word.literal.push(next as char);
                    }
                    self.at += 2;
                }
                Some(b'$') => {
                    word.expanded = true;
                    self.dollar()?;
                }
                Some(b'`') => {
                    word.expanded = true;
                    self.at += 1;
                    self.backquoted()?;
                }
                Some(_) => {
                    let rest = &self.text[self.at..];
                    let len = utf8_len(rest);
                    word.literal
                        .push_str(&String::from_utf8_lossy(&rest[..len]));
                    self.at += len;
                }
            }
        }
    }

    /// `$name`, `${...}`, `$(...)` or `$((...))`, the cursor on the `$`.
    fn dollar(&mut self) -> Read<()> {
        self.at += 1;
        match self.peek(0) {
            Some(b'(') => {
                self.at += 1;
                self.skip_balanced(b')')
            }
            Some(b'{') => {
                self.at += 1;
                self.skip_balanced(b'}')
            }
            _ => Ok(()),
        }
    }

    /// Up to and past the backquote that closes a command substitution.
    fn backquoted(&mut self) -> Read<()> {
        loop {
            match self.peek(0) {
                None => return Err(UNPARSED),
                Some(b'\\') => self.at += 2,
                Some(b'`') => {
                    self.at += 1;
                    return Ok(());
                }
                Some(_) => self.at += 1,
            }
        }
    }

    /// Up to and past the `close` that ends what the cursor is inside
    /// (a subshell, `$(`, `${`), quotes and nesting respected. Nothing in
    /// it is the top level.
    fn skip_balanced(&mut self, close: u8) -> Read<()> {
        let open = if close == b')' { b'(' } else { b'{' };
        let mut depth = 1;
        loop {
            match self.peek(0) {
                None => return Err(UNPARSED),
                Some(b'\'') => {
                    self.at += 1;
                    self.at = self.find(b'\'')? + 1;
                }
                Some(b'"') => {
                    self.at += 1;
                    self.double_quoted(&mut Word::default())?;
                }
                Some(b'\\') => self.at += 2,
                Some(b'`') => {
                    self.at += 1;
                    self.backquoted()?;
                }
                // A heredoc or a case inside would need the full grammar.
                Some(b'<') if self.starts("<<") => return Err(UNPARSED),
                Some(byte) if byte == close => {
                    self.at += 1;
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Some(byte) if byte == open => {
                    self.at += 1;
                    depth += 1;
                }
                Some(_) => self.at += 1,
            }
        }
    }

    /// After a newline: the bodies of the heredocs of the line before,
    /// each up to its delimiter line.
    fn skip_heredoc_bodies(&mut self) -> Read<()> {
        for (delimiter, strip) in std::mem::take(&mut self.heredocs) {
            loop {
                if self.at >= self.text.len() {
                    return Err("has a heredoc without its end");
                }
                let end = self.find(b'\n').unwrap_or(self.text.len());
                let line = &self.text[self.at..end];
                let line = if strip {
                    let tabs = line.iter().take_while(|&&b| b == b'\t').count();
                    &line[tabs..]
                } else {
                    line
                };
                self.at = (end + 1).min(self.text.len());
                if line == delimiter.as_bytes() {
                    break;
                }
            }
        }
        Ok(())
    }
}

/// The length of the UTF-8 character `rest` starts with (1 for a byte
/// that starts none).
fn utf8_len(rest: &[u8]) -> usize {
    let first = rest[0];
    let len = match first {
        0xF0..=0xF7 => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    };
    len.min(rest.len())
}

/// Judges one simple command (its words, redirections left out): 1 when
/// it is one, 0 when there was none.
fn judge_simple(words: &[Word]) -> Read<usize> {
    if words.is_empty() {
        return Ok(0);
    }
    let mut rest = words
        .iter()
        .skip_while(|word| !word.quoted && KEYWORDS.contains(&word.literal.as_str()));
    let mut assigned = false;
    let name = loop {
        match rest.next() {
            // Only keywords: `done`, `fi`; or only assignments.
            None if assigned => return Err("sets a shell variable"),
            None => return Ok(0),
            Some(word) if word.is_assignment() => assigned = true,
            Some(word) => break word,
        }
    };
    if !name.quoted {
        match name.literal.as_str() {
            // `for NAME in WORDS`: no command until `do`.
            "for" => return Ok(0),
            // Its patterns need the full grammar.
            "case" => return Err(UNPARSED),
            _ => {}
        }
    }
    if name.expanded {
        return Err("runs a command whose name is an expansion");
    }
    let name = match name.literal.as_str() {
        "builtin" | "command" => match rest.next() {
            Some(next) if next.expanded => return Err("runs a command whose name is an expansion"),
            Some(next) => next.literal.as_str(),
            None => return Ok(1),
        },
        name => name,
    };
    if SHELL_STATE.contains(&name) {
        return Err("changes the shell itself");
    }
    if BASH_ONLY_WORDS.contains(&name) {
        return Err("uses bash-only syntax");
    }
    if name == "toolcap" || name.ends_with("/toolcap") {
        return Err("already runs through toolcap");
    }
    Ok(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansions_and_quotes_hide_nothing_at_the_top_level() {
        for (command, verdict) in [
            ("echo 'cd x; export Y'", Verdict::Wrap),
            ("echo \"$(cd /tmp && pwd)\" `cd /; pwd`", Verdict::Wrap),
            ("(cd sub && make)", Verdict::Wrap),
            (
                "ls; (cd a) ; cd b",
                Verdict::Leave("changes the shell itself"),
            ),
            ("echo ${HOME:-x} $((1 + 2))", Verdict::Wrap),
            (
                "cat <<'EOF'\ncd /\nexport X=1\nEOF\necho done",
                Verdict::Wrap,
            ),
            (
                "cat <<-EOF\n\tcd /\n\tEOF\ncd /",
                Verdict::Leave("changes the shell itself"),
            ),
            (
                "cat <<EOF\nno end",
                Verdict::Leave("has a heredoc without its end"),
            ),
            ("echo 'unclosed", Verdict::Leave(UNPARSED)),
            ("echo $(unclosed", Verdict::Leave(UNPARSED)),
            ("make 2>&1 | tail -n 5 > out.txt", Verdict::Wrap),
            ("make >& /dev/null", Verdict::Wrap),
            ("# only a comment", Verdict::Leave("no command")),
            ("", Verdict::Leave("no command")),
            ("X=1 Y=2", Verdict::Leave("sets a shell variable")),
            ("X=1 make", Verdict::Wrap),
            (
                "if true; then cd x; fi",
                Verdict::Leave("changes the shell itself"),
            ),
            ("for f in *.rs; do wc -l \"$f\"; done", Verdict::Wrap),
            ("command cd x", Verdict::Leave("changes the shell itself")),
            ("echo a\\\nb", Verdict::Wrap),
            ("echo {a,b}", Verdict::Leave("uses bash-only syntax")),
            ("echo {}", Verdict::Wrap),
            ("find . -name x -exec rm {} \\;", Verdict::Wrap),
            (
                "f() { ls; }",
                Verdict::Leave("defines a function, or uses bash-only syntax"),
            ),
            (
                "a=(1 2)",
                Verdict::Leave("defines a function, or uses bash-only syntax"),
            ),
            (
                "$EDITOR x",
                Verdict::Leave("runs a command whose name is an expansion"),
            ),
            ("echo x &", Verdict::Leave("starts a background job")),
            (
                "./bin/toolcap --list",
                Verdict::Leave("already runs through toolcap"),
            ),
        ] {
            assert_eq!(judge(command), verdict, "{command:?}");
        }
    }
}
