//! The built-in profiles: what matters in each tool's output, written as
//! the ordinary options a user could have typed (README, "Profiles").
//! Patterns of lines that say what failed are `--keep-error`, served
//! before the other `--keep` lines when not all fit.

/// A built-in profile, as data.
pub(super) struct BuiltIn {
    pub(super) name: &'static str,
    /// What `--profile auto` matches in wrap mode: `prog` or `prog sub`.
    pub(super) matches: &'static [&'static str],
    /// What it looks for in filter mode, in the input's first 4 KiB
    /// (multi-line: `^` and `$` at line ends).
    pub(super) detect: &'static [&'static str],
    pub(super) args: &'static [&'static str],
}

/// In the order `--profile auto` tries them (after the user's).
pub(super) const BUILT_INS: &[BuiltIn] = &[
    BuiltIn {
        name: "pytest",
        matches: &["pytest", "py.test"],
        detect: &[
            r"^=+ test session starts =+$",
            r"^platform \S+ -- Python \S+, pytest-",
        ],
        args: &[
            "--clean",
            // Passing tests, as `-v` lists them and as rows of dots.
            "--fold-pattern",
            r"^\S+::\S.* (PASSED|SKIPPED|XFAIL|XPASS)\b",
            "--fold-pattern",
            r"^(\S+\.py )?[.sxX]+ +\[ *\d+%\]$",
            "--keep-error",
            r"^(FAILED|ERROR) ",
            "--keep-error",
            r"^E ",
            // A failure's section line, `____ test_name ____`.
            "--keep",
            r"^_{3,} .+ _{3,}$",
            "--keep",
            r"^=+ (short test summary info|FAILURES|ERRORS) =+$",
            // Where an assertion failed: `test_x.py:12: AssertionError`.
            "--keep",
            r"^\S+\.py:\d+: \S",
            // The verdict: `=== 3 failed, 2997 passed in 4.56s ===`.
            "--keep",
            r"^=+ .*\b(passed|failed|errors?|skipped|deselected|no tests ran)\b.* in [0-9.]+s\b",
        ],
    },
    BuiltIn {
        name: "cargo",
        matches: &[
            "cargo build",
            "cargo b",
            "cargo check",
            "cargo c",
            "cargo test",
            "cargo t",
            "cargo clippy",
            "cargo run",
            "cargo r",
            "cargo nextest",
        ],
        detect: &[
            r"^ +(Compiling|Checking) \S+ v\d",
            r"^ +Finished `",
            r"^running \d+ tests?$",
            r"^test result: ",
        ],
        args: &[
            "--clean",
            "--fold-pattern",
            concat!(
                r"^ +(Compiling|Checking|Downloaded|Downloading|Fresh|Documenting|Locking|",
                r"Adding|Updating) ",
            ),
            "--fold-pattern",
            r"^test \S+ \.\.\. (ok|ignored)",
            "--keep-error",
            r"^error(\[\w+\])?: ",
            "--keep",
            r"^warning(\[\w+\])?: ",
            "--keep",
            r"^ *--> ",
            "--keep-error",
            r"panicked at ",
            "--keep-error",
            r"^test \S+ \.\.\. FAILED$",
            "--keep",
            r"^---- \S+ stdout ----$",
            // The names under `failures:`, never folded: a hidden
            // `tests::case_2` between `case_1` and `case_3` is a lost
            // failure.
            "--keep",
            r"^    [A-Za-z_][\w:]*$",
            "--keep",
            r"^test result: ",
        ],
    },
    BuiltIn {
        name: "go",
        matches: &["go test", "go build", "go vet"],
        detect: &[
            r"^=== RUN ",
            r"^--- (PASS|FAIL|SKIP): ",
            r"^(ok|FAIL)\s+\S+\s+(\d+\.\d+s|\(cached\))",
            r"^\?\s+\S+\s+\[no test files\]$",
        ],
        args: &[
            "--clean",
            "--fold-pattern",
            r"^ *(=== (RUN|PAUSE|CONT|NAME) |--- (PASS|SKIP): )",
            "--keep-error",
            r"^ *--- FAIL",
            "--keep-error",
            r"^FAIL\b",
            "--keep-error",
            r"^panic: ",
            "--keep",
            r"^ok ",
            // Where: `./main.go:5:2: undefined: x`, `    x_test.go:12: got 3`.
            "--keep",
            r"^\s*\S+\.go:\d+(:\d+)?: ",
        ],
    },
    BuiltIn {
        name: "npm",
        matches: &["npm", "pnpm", "yarn", "npx"],
        detect: &[
            r"^npm (ERR!|WARN|error|warn|notice) ",
            r"^> \S+@\S+ \S+",
            r"^(added|removed|changed) \d+ packages?",
            r"^up to date, audited \d+ packages?",
        ],
        args: &[
            "--clean",
            "--keep-error",
            r"ERR!",
            "--keep-error",
            r"(?i)\berror\b",
            "--keep",
            r"\bWARN\b|^npm warn ",
        ],
    },
    BuiltIn {
        name: "make",
        matches: &["make", "gmake", "cmake", "ninja"],
        detect: &[
            r"^make(\[\d+\])?: (Entering|Leaving) directory",
            r"^make(\[\d+\])?: \*\*\* ",
            r"^\[\d+/\d+\] \S",
            r"^\[ *\d+%\] (Building|Linking|Built target) ",
            r"^-- (Configuring done|Generating done|Build files have been written)",
        ],
        args: &[
            "--clean",
            // ninja's `[12/345]` and cmake's `[ 12%]` progress lines.
            "--fold-pattern",
            r"^\[ *\d+(/\d+|%)\] ",
            "--keep-error",
            r"(?i)\berror\b",
            "--keep-error",
            r"\bError \d+",
            "--keep-error",
            r"undefined reference",
        ],
    },
    BuiltIn {
        name: "git",
        matches: &["git diff", "git show", "git log"],
        detect: &[r"\Adiff --git ", r"\Acommit [0-9a-f]{40}\nAuthor: "],
        // A patch stays a patch: cuts at hunks and files, and nothing that
        // rewrites lines (squeezing or folding would change its context
        // lines); only git's colours go.
        args: &["--format", "diff", "--strip-ansi"],
    },
    BuiltIn {
        name: "listing",
        matches: &["ls", "find", "tree", "du"],
        detect: &[
            // find: paths, line after line, from the first; none with a
            // `:`, which grep's, a compiler's or a linter's `PATH:LINE:`
            // has (folded as a listing, their hits would go).
            r"\A(\.|\.?/[^\n:]*)\n\.?/[^\n:]*\n\.?/[^\n:]*\n",
            // ls -l
            r"^total \d+\n[-dlcbps][-rwxsStT]{9}",
            // tree
            r"^[├└]── ",
            // du
            r"\A[0-9.]+[KMGTP]?\t[^\n]*\n[0-9.]+[KMGTP]?\t",
        ],
        args: &["--max", "4k", "--clean"],
    },
    BuiltIn {
        name: "json",
        // Programs whose output is most often one JSON document.
        matches: &["jq", "gh api", "cargo metadata", "curl", "http", "xh"],
        // A document's first byte, after blanks: `{`, or a `[` that opens
        // an array of something JSON (not a log's `[INFO]` or ninja's
        // `[1/9]`, which make's profile takes first).
        detect: &[
            r#"\A\s*(\{|\[\s*([\[{"\]]|-?\d+(\.\d+)?([eE][-+]?\d+)?\s*[,\]]|true|false|null))"#,
        ],
        // auto: JSON for a document that parses, and the output as without
        // the profile for anything else (JSON Lines, an HTML error page).
        args: &["--format", "auto"],
    },
];
