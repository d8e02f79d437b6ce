//! `--redact` (issue 25): replaces every credential it recognises with
//! `[REDACTED:KIND]`, keeping what names the place (an assignment's key, a
//! URL's scheme and host, a header's name and scheme). It runs before the
//! capper, so the budget, `--keep` and `--fold` all see the redacted text;
//! the spill file and the store keep the raw bytes (the tee comes first).
//!
//! What it recognises is written from each vendor's published format (see
//! [`FAMILIES`]); a secret in a format it does not know passes.
//!
//! How it stays exact at chunk edges, with bounded memory:
//! 1. Every secret but a PEM block lies within one line, so whole lines are
//!    scanned and only the unfinished last line of a chunk is held back (at
//!    most [`LINE_LIMIT`] bytes: the lookahead bound).
//! 2. Whole lines are first searched for literals (each family's prefixes,
//!    the key names, ESC), many at a time, each in every case its family
//!    matches ([`Prefilter`]); only a line holding one is matched against
//!    the families that literal belongs to.
//! 3. A line is matched as it would look on a terminal: its escape
//!    sequences are taken out first, and a match covers the raw bytes from
//!    its first character to its last, sequences inside included, so a
//!    colour code in the middle of a token does not let it through.
//! 4. A line longer than [`LINE_LIMIT`] is scanned in windows: all but the
//!    last [`OVERLAP`] bytes of a window go out, unless a match starting
//!    there runs on; a secret that reaches the end of a window is
//!    redacted to it, and what follows it up to the next space, quote or
//!    line end is dropped as the rest of the same secret.
//! 5. A PEM private key block (`-----BEGIN ... PRIVATE KEY-----` ending its
//!    line) becomes one line, `[REDACTED:private-key]`, that stands for all
//!    of its lines, up to its `-----END` line. Nothing of it is held but a
//!    count, so a block of any length is redacted whole; a line that is
//!    not base64 (nor a header before the base64) ends a block that never
//!    printed its END line.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind, packed};
use memchr::{memchr, memrchr};
use regex::bytes::{Captures, Regex};

use super::{Emit, Ending, Transform};
use crate::escape::{State, Step};
use crate::vocab::split_terminator;

/// The longest line held whole, and the window a longer one is scanned
/// in: the lookahead bound.
pub(crate) const LINE_LIMIT: usize = 64 * 1024;
/// What a window keeps for the next: the longest secret found whole
/// across a window's edge (a JWT with a large payload fits).
pub(crate) const OVERLAP: usize = 8 * 1024;

const ESC: u8 = 0x1B;

/// The kind of what `--redact-pattern` matched.
pub(crate) const CUSTOM: &str = "custom";

/// Every kind the `Cleaned:` line can name (each once, with its count):
/// `--total` leaves room for all of them. A test checks that each
/// family's kinds are here.
pub(crate) const KINDS: [&str; 22] = [
    "github-token",
    "gitlab-token",
    "slack-token",
    "slack-webhook",
    "stripe-key",
    "anthropic-key",
    "openai-key",
    "google-api-key",
    "aws-access-key-id",
    "aws-secret-key",
    "jwt",
    "private-key",
    "bearer-token",
    "basic-auth",
    "authorization",
    "url-credentials",
    "password",
    "secret",
    "token",
    "api-key",
    "access-key",
    CUSTOM,
];

/// How many secrets of each kind were redacted.
pub type Redactions = BTreeMap<String, u64>;

/// The families, most specific first: where matches of two overlap, the
/// earlier one names the kind (`GITHUB_TOKEN=ghp_...` is a github-token,
/// not just a token).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Github,
    Gitlab,
    Slack,
    SlackWebhook,
    Stripe,
    Anthropic,
    OpenAi,
    Google,
    AwsKeyId,
    AwsSecret,
    Jwt,
    PrivateKey,
    Authorization,
    Bearer,
    UrlCredentials,
    Flag,
    Assignment,
}

/// One family: literals one of which every match holds (searched for
/// case-insensitively), and its pattern. A literal need not be where a
/// match starts, nor a whole word: its first three bytes are its
/// fingerprint in the literal search ([`Prefilter`]), so each starts
/// where the family's text is rarest in ordinary output, so that fewer
/// places are checked for nothing: `hp_` rather than `ghp_` (punctuation
/// is rarer than letters), `ecr` rather than `secret`, `rization` rather
/// than `authorization`. The part replaced is the group named `s` (or
/// `s1`, `s2`), else the whole match.
struct Spec {
    family: Family,
    literals: &'static [&'static str],
    pattern: &'static str,
}

/// Key names that name a secret, as a regex alternative, and literals one
/// of which each word holds (few, and at least 3 bytes long, as every
/// literal: see [`Prefilter`]). A key name ends in one of the words, or
/// has a final `key` or `base` after it (`SECRET_KEY`, `SECRET_KEY_BASE`).
const KEY_WORDS: &str = r"passw(?:or)?d|secret|token|api[_-]?key|access[_-]?key|private[_-]?key";
const KEY_LITERALS: &[&str] = &["ssw", "ecr", "tok", "key"];

/// The patterns, each from the vendor's documented format.
const FAMILIES: &[Spec] = &[
    // GitHub, "About authentication to GitHub" / "Behind GitHub's new
    // authentication token formats": `ghp_` (personal), `gho_` (OAuth),
    // `ghu_` (user-to-server), `ghs_` (server-to-server), `ghr_` (refresh),
    // then 36 or more base62 characters; fine-grained `github_pat_`.
    Spec {
        family: Family::Github,
        literals: &["hp_", "ho_", "hu_", "hs_", "hr_", "_pat_"],
        pattern: r"\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,251})\b",
    },
    // GitLab, "Token prefixes": personal, project and group access
    // (`glpat-`), deploy (`gldt-`), runner (`glrt-`), pipeline trigger
    // (`glptt-`), CI/CD job (`glcbt-`) tokens and OAuth application
    // secrets (`gloas-`).
    Spec {
        family: Family::Gitlab,
        literals: &["glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "gloas-"],
        pattern: concat!(
            r"\b(?:glpat|gldt|glrt|glptt|glcbt|gloas)-[0-9A-Za-z_-]{20,}(?:\.[0-9A-Z",
            r"a-z_.-]*[0-9A-Za-z_-])?",
        ),
    },
    // Slack, "Token types": bot `xoxb-`, user `xoxp-`, app-level `xapp-`,
    // and the other `xox?-` ones (legacy, refresh, configuration).
    Spec {
        family: Family::Slack,
        literals: &["xox", "xapp-"],
        pattern: concat!(
            r"\b(?:xox[abeoprs](?:\.xox[abeoprs])?-[0-9A-Za-z-]{10,}|xapp-[0-9]+-[0-",
            r"9A-Za-z-]{10,})",
        ),
    },
    // Slack incoming webhooks: the path after the host is the secret.
    Spec {
        family: Family::SlackWebhook,
        literals: &[".slack.com"],
        pattern: r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9_/-]{20,})",
    },
    // Stripe, "API keys": live secret `sk_live_` and restricted `rk_live_`
    // keys (test-mode keys reach no money and are left alone).
    Spec {
        family: Family::Stripe,
        literals: &["_live_"],
        pattern: r"\b[rs]k_live_[0-9A-Za-z]{16,}",
    },
    // Anthropic: `sk-ant-api03-...`, `sk-ant-admin01-...`, `sk-ant-oat01-...`.
    Spec {
        family: Family::Anthropic,
        literals: &["sk-"],
        pattern: r"\bsk-ant-[a-z]{2,10}[0-9]{2}-[A-Za-z0-9_-]{20,}",
    },
    // OpenAI: project, service-account and admin keys (`sk-proj-`,
    // `sk-svcacct-`, `sk-admin-`), and the older user keys: `sk-` and 48
    // base62 characters, `T3BlbkFJ` (base64 of "OpenAI") in the middle.
    Spec {
        family: Family::OpenAi,
        literals: &["sk-"],
        pattern: concat!(
            r"\bsk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20}",
            r"T3BlbkFJ[A-Za-z0-9]{20}\b)",
        ),
    },
    // Google Cloud API keys: `AIza` and 35 more characters.
    Spec {
        family: Family::Google,
        literals: &["AIza"],
        pattern: r"\bAIza[0-9A-Za-z_-]{35}",
    },
    // AWS, "Unique identifiers": access key ids are `AKIA` (long-term) or
    // `ASIA` (temporary), `ABIA` and `ACCA` for service bearer and
    // context credentials, then 16 upper-case letters and digits.
    Spec {
        family: Family::AwsKeyId,
        literals: &["AKIA", "ASIA", "ABIA", "ACCA"],
        pattern: r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
    },
    // An AWS secret access key is 40 base64 characters, like any other 40
    // of them: only under its label (credentials file, environment, the
    // `SecretAccessKey` of STS's JSON).
    Spec {
        family: Family::AwsSecret,
        literals: &["ecr"],
        pattern: concat!(
            r#"(?i)(?:aws_?secret_?(?:access_?)?key|secret_?access_?key)["']?\s*[:=]\"#,
            r#"s*["']?(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        ),
    },
    // RFC 7519: three base64url parts; the first two are JSON objects, so
    // they start with `eyJ` (`{"`).
    Spec {
        family: Family::Jwt,
        literals: &[".eyJ"],
        pattern: r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
    },
    // RFC 7468 (and OpenSSH's, PGP's armour): on one line, as a JSON string
    // holds it with `\n` escapes; a block over several lines is followed
    // by the transform itself.
    Spec {
        family: Family::PrivateKey,
        literals: &["-----BEGIN"],
        pattern: concat!(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[A-Za-z0-9+/=\\ \t]*(?",
            r":-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?",
        ),
    },
    // RFC 9110 `Authorization` and `Proxy-Authorization`: the scheme (one
    // of IANA's HTTP authentication schemes) stays.
    Spec {
        family: Family::Authorization,
        literals: &["riza"],
        pattern: concat!(
            r#"(?i)\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(?P<scheme>bearer"#,
            r#"|basic|token|digest|negotiate|ntlm|dpop|gnap|hoba|mutual|vapid|private"#,
            r#"token|scram-sha-1|scram-sha-256|aws4-hmac-sha256)\s+)?(?P<s>[^\s"',]+)"#,
        ),
    },
    // RFC 6750: a bearer token outside a header (`-H 'Bearer ...'`).
    Spec {
        family: Family::Bearer,
        literals: &["rer"],
        pattern: r"(?i)\bbearer\s+(?P<s>[A-Za-z0-9._~+/-]{16,}=*)",
    },
    // RFC 3986 userinfo: `scheme://user:password@host`, or a long
    // token-like user alone (`https://TOKEN@github.com`); `git@` and other
    // short user names stay.
    Spec {
        family: Family::UrlCredentials,
        literals: &["://"],
        pattern: concat!(
            r#"\b[A-Za-z][A-Za-z0-9+.-]*://(?:(?P<s1>[^\s/?#@:"'<>]+:[^\s/?#"'<>]+)|("#,
            r#"?P<s2>[A-Za-z0-9._~%-]{20,}))@[^\s/?#@"'<>]"#,
        ),
    },
];

/// `--password VALUE` and `-p`-less flags: the key starts with a dash.
const FLAG: &str = concat!(
    r#"(?i)(?:^|\s)--?(?:[a-z0-9_.-]*?[_.-])?(?P<word>KEY_WORDS)(?:[_-]?(?:ke"#,
    r#"y|base))?(?:=|\s+)(?:"(?P<s1>(?:[^"\\]|\\.)*)"|'(?P<s2>[^']*)'|(?P<s>("#,
    r#"?:[^\s"'`,;&\\]|\\[^nrtu"\\/])+))"#,
);

/// `KEY=value`, `key: value`, `"key": "value"`: the key name ends in a word
/// of [`KEY_WORDS`].
const ASSIGNMENT: &str = concat!(
    r#"(?i)(?:^|[^a-z0-9_.-])(?:[a-z0-9_.-]*?)(?P<word>KEY_WORDS)(?:[_-]?(?:k"#,
    r#"ey|base))?(?P<q>["']?)(?P<sep>\s*[:=]\s*)(?:"(?P<s1>(?:[^"\\]|\\.)*)"|"#,
    r#"'(?P<s2>[^']*)'|(?P<s>(?:[^\s"'`,;&\\]|\\[^nrtu"\\/])+))"#,
);

/// A family, compiled when a line first needs it: most runs need few, and
/// compiling them all took most of a short run's time.
struct Compiled {
    family: Option<Family>,
    pattern: String,
    regex: OnceLock<Option<Regex>>,
}

impl Compiled {
    fn new(family: Family, pattern: &str) -> Compiled {
        Compiled {
            family: Some(family),
            pattern: format!("(?-u){pattern}"),
            regex: OnceLock::new(),
        }
    }

    /// Its regex; `None` would be a pattern above that does not compile,
    /// which `the_built_in_patterns_compile` rules out.
    fn regex(&self) -> Option<&Regex> {
        self.regex
            .get_or_init(|| Regex::new(&self.pattern).ok())
            .as_ref()
    }
}

/// What `--redact` recognises, compiled once (shared by the streams of a
/// run).
#[derive(Clone)]
pub(crate) struct RedactRules(Arc<Rules>);

impl std::fmt::Debug for RedactRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedactRules")
            .field("custom", &self.0.custom.len())
            .finish()
    }
}

struct Rules {
    base: &'static BuiltIn,
    /// `--redact-pattern`s: searched for on their own (regex's own
    /// prefilter), every match redacted.
    custom: Vec<Regex>,
}

/// The families, compiled once a process (a Python program capping many
/// outputs compiles them once).
struct BuiltIn {
    /// Every family's literals, searched for in a run of lines at once.
    prefilter: Prefilter,
    /// The same literals, case-insensitive, for the families of one line.
    literals: AhoCorasick,
    /// For each literal, the families (indexes in `families`) that hold it.
    holders: Vec<Vec<usize>>,
    families: Vec<Compiled>,
    pem_end: Regex,
}

/// The literal search's buckets (Teddy's 8-bucket form): a place in the
/// text is checked against a bucket's literals when each of its three
/// bytes has a low and a high nibble that one of the bucket's literals
/// has at that position, so a bucket whose literals' nibbles mix into
/// few of the trigrams of ordinary text costs little. These were chosen
/// by counting those places in the benchmark's log, this repository's
/// `git log -p` and its sources. A literal missing here falls into
/// bucket 0 (as correctly, more slowly); a test checks that none is.
const BUCKETS: [&[&str]; 8] = [
    &["AIza", "rer", "riza", "ABIA", "AKIA"],
    &["ho_", "xox", "://", "-----BEGIN", "sk-"],
    &["gloas-", "glpat-", "glptt-", "_pat_", "_live_"],
    &["hs_", "ssw", "hr_", "hu_", "hp_"],
    &["tok", "glcbt-", "gldt-"],
    &[".slack.com", ".eyJ", "xapp-"],
    &["key", "ACCA", "ASIA"],
    &["glrt-", "ecr"],
];

/// Where the first line that may hold a family's literal is, in a run of
/// lines (callgrind on 20 MB of the benchmark's log, which holds none,
/// 2026-12-02: 3.8 instructions a byte for all of `--redact` at first,
/// 2.6 with a copy of the text folded to lower case and Teddy's
/// 16-bucket form, 1.7 with the form below, of which 0.85 is Teddy's
/// search; 1.4 since the raw stream's newlines are not counted apart,
/// 2026-12-03). Where the CPU has AVX-512 with VBMI, a first pass by
/// exact bytes ([`Wide`]) does Teddy's work and finds ESC, 0.22
/// instructions a byte by its loop, and Teddy searches only the last
/// few bytes.
///
/// 1. Every family's literals are searched for in the raw text at once,
///    with Teddy's 8-bucket form: 32 bytes a step with AVX2, where the
///    16-bucket form takes 16 (1.5 instructions a byte whatever its
///    literals, against 0.85), in the buckets of [`BUCKETS`]. In buckets
///    that fell by chance, the 8-bucket form stopped at so many places
///    that it cost more than the 16-bucket one (3.7 instructions a byte).
/// 2. A family matched as written (a vendor's prefix) gives its literals
///    as written; one matched in any ASCII case (`(?i)`: key names,
///    `Authorization`, `Bearer`) gives each of its literals in every case,
///    which is why those are short (3 or 4 bytes: at most 16 forms). The
///    forms of a literal share the low nibbles that Teddy puts literals
///    into buckets by, so they fall into one bucket and add no place to
///    check; no copy of the text folded to one case is needed (that copy
///    cost 0.3 instructions a byte, and a memory pass).
///
/// Searching the vendor prefixes apart from the key names was measured
/// too: two passes cost more than one (2.8 instructions a byte for the
/// searches alone); so did literals of 4 bytes or more (longer
/// fingerprints, but 49 literals: 1.9).
struct Prefilter {
    /// The first pass by AVX-512's byte permutes, where the CPU has them.
    wide: Option<Wide>,
    search: Search,
}

/// The literal search's first pass by exact bytes (see
/// [`crate::sys::find_by_first_bytes`]): for each of a literal's first
/// three bytes, the buckets of [`BUCKETS`] whose literals have it there,
/// so a start is checked only where one bucket's literals have all three,
/// not merely their nibbles, as Teddy's tables do. Measured on 1 GiB of
/// the benchmark's log (2026-12-03): see docs/BENCHMARKS.md.
struct Wide {
    tables: [[u8; 128]; 3],
    /// Each bucket's forms, checked where the tables say it may start.
    buckets: [Vec<Vec<u8>>; 8],
}

impl Wide {
    /// `None` where it cannot run, or when a form is not ASCII or shorter
    /// than three bytes (the tables index by 7 bits and three places).
    fn new(forms: &[Form]) -> Option<Wide> {
        if !crate::sys::has_byte_permutes() {
            return None;
        }
        let mut wide = Wide {
            tables: [[0; 128]; 3],
            buckets: Default::default(),
        };
        for (name, form) in forms {
            if form.len() < 3 || !form.is_ascii() {
                return None;
            }
            let bucket = BUCKETS
                .iter()
                .position(|row| row.contains(name))
                .unwrap_or(0);
            for (table, &byte) in wide.tables.iter_mut().zip(form) {
                table[usize::from(byte)] |= 1 << bucket;
            }
            wide.buckets[bucket].push(form.clone());
        }
        Some(wide)
    }

    /// Where the first literal or ESC in `text` is, if it is before the
    /// first start not looked at (`Err`).
    fn first(&self, text: &[u8]) -> Result<usize, usize> {
        crate::sys::find_by_first_bytes(&self.tables, ESC, text, &mut |start, buckets| {
            let rest = &text[start..];
            (0..8).any(|bucket| {
                buckets & (1 << bucket) != 0
                    && self.buckets[bucket]
                        .iter()
                        .any(|form| rest.starts_with(form))
            })
        })
    }
}

/// A search for any of some literals, the leftmost first.
enum Search {
    /// Teddy, asked for directly: for literals that begin with one byte
    /// the automaton would search for that byte first.
    Packed(packed::Searcher),
    /// Where Teddy cannot run.
    Automaton(AhoCorasick),
}

impl Search {
    fn new(literals: &[Vec<u8>]) -> Result<Search, regex::Error> {
        // The 8-bucket form, whose buckets BUCKETS chose; whichever Teddy
        // runs if it cannot. More than 64 literals are fine: the forms of
        // one literal share a bucket (the limit guards against many
        // literals in each).
        for fat in [Some(false), None] {
            let mut config = packed::Config::new();
            if let Some(searcher) = config
                .only_teddy_fat(fat)
                .heuristic_pattern_limits(false)
                .builder()
                .extend(literals)
                .build()
            {
                return Ok(Search::Packed(searcher));
            }
        }
        AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(literals)
            .map(Search::Automaton)
            .map_err(|err| regex::Error::Syntax(err.to_string()))
    }

    fn find(&self, text: &[u8]) -> Option<usize> {
        match self {
            Search::Packed(searcher) => searcher.find(text).map(|found| found.start()),
            Search::Automaton(automaton) => automaton.find(text).map(|found| found.start()),
        }
    }
}

/// A form of a literal that the search looks for, with the literal's
/// name (as [`BUCKETS`] and the families spell it).
type Form = (&'static str, Vec<u8>);

/// A literal in every ASCII case.
fn case_forms(literal: &str) -> Vec<Vec<u8>> {
    let mut forms = vec![Vec::new()];
    for byte in literal.bytes() {
        let cases = [byte.to_ascii_lowercase(), byte.to_ascii_uppercase()];
        let cases = if cases[0] == cases[1] {
            &cases[..1]
        } else {
            &cases[..]
        };
        forms = forms
            .iter()
            .flat_map(|form: &Vec<u8>| {
                cases.iter().map(move |&case| {
                    let mut longer = form.clone();
                    longer.push(case);
                    longer
                })
            })
            .collect();
    }
    forms
}

/// What Teddy puts literals into buckets by: the low nibbles of the first
/// three bytes (every literal has three).
fn low_nibbles(form: &[u8]) -> [u8; 3] {
    let nibble = |at: usize| form.get(at).map_or(0, |byte| byte & 0x0F);
    [nibble(0), nibble(1), nibble(2)]
}

/// `forms` (each with its literal's name) in the order that puts each into
/// its literal's bucket of [`BUCKETS`]. Teddy (aho-corasick 1.1,
/// `packed/teddy/generic.rs`) puts literal `i` into bucket `7 - i % 8`,
/// unless an earlier one has the same [`low_nibbles`], whose bucket it
/// joins: so each group of forms with the same low nibbles is placed
/// first where its bucket comes round, and the rest of a group fill the
/// places whose bucket has nothing left to place.
fn teddy_order(forms: Vec<Form>) -> Vec<Form> {
    let bucket_of = |name: &str| {
        BUCKETS
            .iter()
            .position(|row| row.contains(&name))
            .unwrap_or(0)
    };
    // The forms by their low nibbles, with their bucket.
    let mut groups: Vec<([u8; 3], usize, Vec<Form>)> = Vec::new();
    for (name, form) in forms {
        let nibbles = low_nibbles(&form);
        match groups.iter_mut().find(|group| group.0 == nibbles) {
            Some(group) => group.2.push((name, form)),
            None => groups.push((nibbles, bucket_of(name), vec![(name, form)])),
        }
    }
    // Each bucket's groups, the last to place first.
    let mut queues: Vec<Vec<Vec<Form>>> = vec![Vec::new(); 8];
    for (_, bucket, group) in groups.into_iter().rev() {
        queues[bucket].push(group);
    }
    let mut order = Vec::new();
    let mut rest = Vec::new();
    while queues.iter().any(|queue| !queue.is_empty()) || !rest.is_empty() {
        let bucket = 7 - order.len() % 8;
        if let Some(group) = queues[bucket].pop() {
            let mut group = group.into_iter();
            order.extend(group.next());
            rest.extend(group);
        } else if let Some(form) = rest.pop() {
            order.push(form);
        } else if let Some(first) = order.first().cloned() {
            // Nothing may go here: the first form again, which joins its
            // own bucket and matches where it does.
            order.push(first);
        } else {
            // Bucket 7 has no literal: start with another.
            let Some(queue) = queues.iter_mut().find(|queue| !queue.is_empty()) else {
                break;
            };
            if let Some(group) = queue.pop() {
                order.extend(group);
            }
        }
    }
    order
}

/// Every literal in each ASCII case its family matches (see
/// [`Prefilter`]), each once, with its literal.
fn literal_forms() -> Vec<Form> {
    let mut forms: Vec<Form> = Vec::new();
    let specs = FAMILIES.iter().map(|spec| (spec.literals, spec.pattern));
    for (literals, pattern) in specs.chain([(KEY_LITERALS, FLAG), (KEY_LITERALS, ASSIGNMENT)]) {
        for &literal in literals {
            let literal_forms = if pattern.starts_with("(?i)") {
                case_forms(literal)
            } else {
                vec![literal.as_bytes().to_vec()]
            };
            for form in literal_forms {
                if !forms.iter().any(|(_, known)| *known == form) {
                    forms.push((literal, form));
                }
            }
        }
    }
    forms
}

impl Prefilter {
    fn new(forms: Vec<Form>) -> Result<Prefilter, regex::Error> {
        let wide = Wide::new(&forms);
        let ordered: Vec<Vec<u8>> = teddy_order(forms)
            .into_iter()
            .map(|(_, form)| form)
            .collect();
        Ok(Prefilter {
            wide,
            search: Search::new(&ordered)?,
        })
    }

    /// Whether [`Prefilter::first`] finds ESC too: the first pass looks
    /// for it in the same loads (a pass of its own cost 0.10 instructions
    /// a byte).
    fn finds_escapes(&self) -> bool {
        self.wide.is_some()
    }

    /// Where the first literal in `text` starts (or ESC is, if
    /// [`Prefilter::finds_escapes`]): by the first pass where it runs,
    /// then by Teddy (and `memchr`) from the first start it did not look
    /// at, the last few bytes.
    fn first(&self, text: &[u8]) -> Option<usize> {
        let Some(wide) = &self.wide else {
            return self.search.find(text);
        };
        let from = match wide.first(text) {
            Ok(found) => return Some(found),
            Err(from) => from,
        };
        let rest = &text[from..];
        [self.search.find(rest), memchr(ESC, rest)]
            .into_iter()
            .flatten()
            .min()
            .map(|found| from + found)
    }
}

static BUILT_IN: OnceLock<Result<BuiltIn, (String, regex::Error)>> = OnceLock::new();

/// One redacted span of a line's visible text.
#[derive(Clone, Copy, Debug)]
struct Region {
    /// Where the match began (key included): a window is not cut after it.
    from: usize,
    start: usize,
    end: usize,
    kind: &'static str,
    /// Its family's rank: where regions overlap, the lowest names the kind.
    rank: usize,
    /// A PEM block whose END is not on this line.
    open_pem: bool,
}

impl RedactRules {
    /// The built-in families and `custom` patterns (each a regex; a group
    /// named `secret` limits what is replaced).
    pub(crate) fn new(custom: &[String]) -> Result<RedactRules, (String, regex::Error)> {
        let base = BUILT_IN
            .get_or_init(BuiltIn::new)
            .as_ref()
            .map_err(Clone::clone)?;
        let custom = custom
            .iter()
            .map(|pattern| Regex::new(pattern).map_err(|err| (pattern.clone(), err)))
            .collect::<Result<_, _>>()?;
        Ok(RedactRules(Arc::new(Rules { base, custom })))
    }
}

impl RedactRules {
    /// `text` as `--redact` shows it: for what the store commands print
    /// of the store besides an output (a stored command line).
    pub(crate) fn redacted(&self, text: &[u8]) -> Vec<u8> {
        let mut redact = Redact::new(self.clone());
        let mut out = super::Collected::default();
        redact.push(text, &mut out);
        redact.finish(&Ending { spill: None }, &mut out);
        out.0
    }
}

impl BuiltIn {
    fn new() -> Result<BuiltIn, (String, regex::Error)> {
        let mut literals: Vec<String> = Vec::new();
        let mut holders: Vec<Vec<usize>> = Vec::new();
        let mut families = Vec::new();
        let mut add = |literal: &str, family: usize| {
            let literal = literal.to_ascii_lowercase();
            match literals.iter().position(|known| *known == literal) {
                Some(known) => holders[known].push(family),
                None => {
                    literals.push(literal);
                    holders.push(vec![family]);
                }
            }
        };
        let compile = |pattern: &str| Regex::new(&format!("(?-u){pattern}"));
        for spec in FAMILIES {
            let index = families.len();
            for literal in spec.literals {
                add(literal, index);
            }
            families.push(Compiled::new(spec.family, spec.pattern));
        }
        for (family, pattern) in [(Family::Flag, FLAG), (Family::Assignment, ASSIGNMENT)] {
            let index = families.len();
            for literal in KEY_LITERALS {
                add(literal, index);
            }
            families.push(Compiled::new(
                family,
                &pattern.replace("KEY_WORDS", KEY_WORDS),
            ));
        }
        let prefilter =
            Prefilter::new(literal_forms()).map_err(|err| (String::from("literals"), err))?;
        // Searched in one line at a time: the NFA, which is quick to build,
        // is as fast as a DFA there.
        let literals = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::NoncontiguousNFA))
            .build(&literals)
            .map_err(|err| {
                (
                    String::from("literals"),
                    regex::Error::Syntax(err.to_string()),
                )
            })?;
        let pem_end = compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
            .map_err(|err| (String::from("pem end"), err))?;
        Ok(BuiltIn {
            prefilter,
            literals,
            holders,
            families,
            pem_end,
        })
    }
}

impl Rules {
    /// A point in `text` before which no line holds a literal (the line
    /// that holds it may), nor ESC if [`Rules::finds_escapes`].
    fn first_literal(&self, text: &[u8]) -> Option<usize> {
        self.base.prefilter.first(text)
    }

    /// See [`Prefilter::finds_escapes`].
    fn finds_escapes(&self) -> bool {
        self.base.prefilter.finds_escapes()
    }

    /// The regions of `text` (a line's visible text, without its
    /// terminator), in order and apart.
    fn regions(&self, text: &[u8], found: &mut Vec<Region>) {
        found.clear();
        let base = self.base;
        // The families (fewer than 64) whose literals the line holds.
        let mut wanted = 0u64;
        for hit in base.literals.find_overlapping_iter(text) {
            for &family in &base.holders[hit.pattern().as_usize()] {
                wanted |= 1 << family;
            }
        }
        for (rank, compiled) in base.families.iter().enumerate() {
            if wanted & (1 << rank) == 0 {
                continue;
            }
            let Some(regex) = compiled.regex() else {
                continue;
            };
            for captures in regex.captures_iter(text) {
                if let Some(region) = region_of(compiled.family, rank, &captures, text) {
                    found.push(region);
                }
            }
        }
        let rank = base.families.len();
        for regex in &self.custom {
            for captures in regex.captures_iter(text) {
                let whole = captures.get(0).map_or(0..0, |m| m.range());
                let span = captures.name("secret").map_or(whole.clone(), |m| m.range());
                if !span.is_empty() {
                    found.push(Region {
                        from: whole.start,
                        start: span.start,
                        end: span.end,
                        kind: CUSTOM,
                        rank,
                        open_pem: false,
                    });
                }
            }
        }
        merge(found);
    }
}

/// Sorts regions and joins those that overlap; the joined one has the
/// kind of the longest (a URL's userinfo holding a token is
/// url-credentials), of the most specific among equals (the value of
/// `GITHUB_TOKEN=ghp_...` is a github-token).
fn merge(found: &mut Vec<Region>) {
    found.sort_by_key(|region| (region.start, region.rank));
    let mut joined: Vec<Region> = Vec::with_capacity(found.len());
    for region in found.drain(..) {
        match joined.last_mut() {
            Some(last) if region.start < last.end => {
                let (longer, shorter) = (region.end - region.start, last.end - last.start);
                if longer > shorter || (longer == shorter && region.rank < last.rank) {
                    last.rank = region.rank;
                    last.kind = region.kind;
                }
                last.end = last.end.max(region.end);
                last.from = last.from.min(region.from);
                last.open_pem |= region.open_pem;
            }
            _ => joined.push(region),
        }
    }
    *found = joined;
}

/// The region a family's match makes, if it is a secret.
fn region_of(
    family: Option<Family>,
    rank: usize,
    captures: &Captures,
    text: &[u8],
) -> Option<Region> {
    let whole = captures.get(0)?;
    let span = ["s", "s1", "s2"]
        .iter()
        .find_map(|name| captures.name(name))
        .map_or(whole.range(), |m| m.range());
    let value = &text[span.clone()];
    let family = family?;
    let kind = match family {
        Family::Github => "github-token",
        Family::Gitlab => "gitlab-token",
        Family::Slack => "slack-token",
        Family::SlackWebhook => "slack-webhook",
        Family::Stripe => "stripe-key",
        Family::Anthropic => "anthropic-key",
        Family::OpenAi => "openai-key",
        Family::Google => "google-api-key",
        Family::AwsKeyId => "aws-access-key-id",
        Family::AwsSecret => "aws-secret-key",
        Family::Jwt => "jwt",
        Family::PrivateKey => "private-key",
        Family::Authorization => {
            let scheme = captures
                .name("scheme")
                .map(|m| m.as_bytes().to_ascii_lowercase());
            if !plausible_value(value, false) {
                return None;
            }
            match scheme.as_deref() {
                Some(b"bearer") => "bearer-token",
                Some(b"basic") => "basic-auth",
                Some(_) => "authorization",
                // A header value without a scheme: "Authorization: failed"
                // in a log is no credential.
                None if looks_random(value) => "authorization",
                None => return None,
            }
        }
        Family::Bearer => "bearer-token",
        Family::UrlCredentials => "url-credentials",
        Family::Flag | Family::Assignment => {
            let word = captures.name("word")?.as_bytes().to_ascii_lowercase();
            let quoted = captures.name("s1").is_some() || captures.name("s2").is_some();
            let sep = captures.name("sep").map_or(&b"="[..], |m| m.as_bytes());
            // `KEY=value` (shell, env, URL query) is an assignment whatever
            // the value; `key: value` and `key = value` are also how code
            // declares and assigns names, so an unquoted value there must
            // look like data, not like a name or an expression.
            let code_like = family == Family::Assignment && !quoted && sep != b"=";
            // `key:value` unquoted and unspaced is a URL's `user:password`
            // (url-credentials), a `host:port` or a `crate:name`.
            if code_like && sep.ends_with(b":") {
                return None;
            }
            if !plausible_value(value, code_like) {
                return None;
            }
            let kind = key_kind(&word);
            // `max_token=4096`, `--max-tokens 2048`: a count, not a
            // credential (a password of digits is still one).
            if kind == "token" && value.iter().all(u8::is_ascii_digit) {
                return None;
            }
            kind
        }
    };
    let open_pem =
        family == Family::PrivateKey && !value.windows(8).any(|window| window == b"-----END");
    Some(Region {
        from: whole.start(),
        start: span.start,
        end: span.end,
        kind,
        rank,
        open_pem,
    })
}

/// The kind an assignment's key word names.
fn key_kind(word: &[u8]) -> &'static str {
    match word.first() {
        Some(b'p') if word.starts_with(b"pass") => "password",
        Some(b'p') => "private-key",
        Some(b's') => "secret",
        Some(b't') => "token",
        Some(b'a') if word.starts_with(b"api") => "api-key",
        _ => "access-key",
    }
}

/// Whether an assignment's value may be a secret: not empty, not a
/// placeholder (`$VAR`, `${{ ... }}`, `<token>`, `%s`, `***`, `null`),
/// not already redacted; with `code_like`, also not a name, a path of
/// names, a type or a call.
fn plausible_value(value: &[u8], code_like: bool) -> bool {
    let Some(&first) = value.first() else {
        return false;
    };
    if b"$<{%[(=>*&|!?.:/\\".contains(&first) || value.iter().all(|&byte| byte == first) {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    if matches!(
        &lower[..],
        b"null" | b"none" | b"nil" | b"true" | b"false" | b"undefined" | b"redacted" | b"hidden"
    ) {
        return false;
    }
    if !code_like {
        return true;
    }
    if value.iter().any(|byte| b"()[]<>{}".contains(byte)) {
        return false;
    }
    looks_random(value)
}

/// At least 8 bytes with a digit, or with both cases, or with a symbol
/// that names do not hold: what generated secrets look like, and words,
/// names and `snake_case` do not.
fn looks_random(value: &[u8]) -> bool {
    value.len() >= 8
        && (value.iter().any(u8::is_ascii_digit)
            || (value.iter().any(u8::is_ascii_uppercase)
                && value.iter().any(u8::is_ascii_lowercase))
            || value.iter().any(|byte| b"+/=~^@#".contains(byte)))
}

/// A PEM block being dropped: the line it stands for so far.
struct PemBlock {
    /// Its first line's redacted text, up to and with the marker.
    head: Vec<u8>,
    terminator: Vec<u8>,
    /// Raw lines so far.
    lines: u64,
    /// A base64 line was seen: headers (`Proc-Type:`) may no longer come.
    body: bool,
}

/// After a secret cut off by a window's end: drop the rest of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Swallow {
    /// Up to a space, quote or line end.
    Secret,
    /// Up to the line end: a PEM block's base64 line longer than a window.
    PemLine,
}

pub(crate) struct Redact {
    rules: RedactRules,
    /// The unfinished line held back.
    line: Vec<u8>,
    pem: Option<PemBlock>,
    swallow: Option<Swallow>,
    counts: BTreeMap<&'static str, u64>,
    /// Reused: a line's visible text (then its string sequences'
    /// payloads, see [`Redact::visible_text`]), where each of its bytes is
    /// in the line, the regions, and a redacted line.
    visible: Vec<u8>,
    /// Where the visible text ends and the payloads begin.
    text_len: usize,
    map: Vec<usize>,
    regions: Vec<Region>,
    redacted: Vec<u8>,
}

impl Redact {
    pub(crate) fn new(rules: RedactRules) -> Redact {
        Redact {
            rules,
            line: Vec::new(),
            pem: None,
            swallow: None,
            counts: BTreeMap::new(),
            visible: Vec::new(),
            text_len: 0,
            map: Vec::new(),
            regions: Vec::new(),
            redacted: Vec::new(),
        }
    }

    /// How many of each kind were redacted so far.
    pub(crate) fn counts(&self) -> Redactions {
        self.counts
            .iter()
            .map(|(kind, count)| ((*kind).to_string(), *count))
            .collect()
    }

    /// Consumes the start of `input`; returns the rest.
    fn step<'a>(&mut self, input: &'a [u8], out: &mut dyn Emit) -> &'a [u8] {
        if let Some(swallow) = self.swallow {
            let ends = |byte: &u8| match swallow {
                Swallow::Secret => byte.is_ascii_whitespace() || b"\"'`".contains(byte),
                Swallow::PemLine => *byte == b'\n',
            };
            let Some(end) = input.iter().position(ends) else {
                return &[];
            };
            self.swallow = None;
            if swallow == Swallow::PemLine {
                if let Some(pem) = &mut self.pem {
                    pem.lines += 1;
                }
                return &input[end + 1..];
            }
            return &input[end..];
        }
        if self.line.is_empty()
            && self.pem.is_none()
            && let Some(last) = memrchr(b'\n', input)
        {
            self.block(&input[..=last], out);
            return &input[last + 1..];
        }
        let room = LINE_LIMIT - self.line.len();
        let take = room.min(input.len());
        match memchr(b'\n', &input[..take]) {
            Some(newline) => {
                self.line.extend_from_slice(&input[..=newline]);
                let line = std::mem::take(&mut self.line);
                // Through the literal search like any other line: matching
                // it outright (the line a chunk's edge cut, one a chunk)
                // cost 0.06 instructions a byte of LOG.
                self.block(&line, out);
                self.line = line;
                self.line.clear();
                &input[newline + 1..]
            }
            None => {
                self.line.extend_from_slice(&input[..take]);
                if self.line.len() >= LINE_LIMIT {
                    self.overflow(out);
                }
                &input[take..]
            }
        }
    }

    /// Whole lines: the ones before a literal pass as they are.
    fn block(&mut self, text: &[u8], out: &mut dyn Emit) {
        let rules = Arc::clone(&self.rules.0);
        let mut at = 0;
        // The next custom match and ESC, searched for again only once
        // passed.
        let mut custom: Option<usize> = None;
        let mut escape: Option<usize> = None;
        while at < text.len() {
            if self.pem.is_some() {
                let end = line_end(text, at);
                self.whole_line(&text[at..end], out);
                at = end;
                continue;
            }
            if !rules.custom.is_empty() && custom.is_none_or(|next| next < at) {
                custom = rules
                    .custom
                    .iter()
                    .filter_map(|regex| regex.find_at(text, at).map(|m| m.start()))
                    .min()
                    .or(Some(text.len()));
            }
            if !rules.finds_escapes() && escape.is_none_or(|next| next < at) {
                escape = Some(memchr(ESC, &text[at..]).map_or(text.len(), |found| at + found));
            }
            let literal = rules
                .first_literal(&text[at..])
                .map_or(text.len(), |found| at + found);
            let next = [Some(literal), custom, escape]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(text.len());
            if next >= text.len() {
                out.bytes(&text[at..]);
                return;
            }
            let start = memrchr(b'\n', &text[at..next]).map_or(at, |found| at + found + 1);
            let end = line_end(text, next);
            if start > at {
                out.bytes(&text[at..start]);
            }
            self.whole_line(&text[start..end], out);
            at = end;
        }
    }

    /// One whole line (with its terminator, unless the stream ends
    /// without one).
    fn whole_line(&mut self, line: &[u8], out: &mut dyn Emit) {
        if self.pem.is_some() {
            self.pem_line(line, out);
            return;
        }
        let (body, terminator) = split_terminator(line);
        self.find(body);
        if self.regions.is_empty() {
            out.bytes(line);
            return;
        }
        let open = self.regions.last().is_some_and(|region| {
            region.open_pem
                && region.end <= self.text_len
                && self.visible[region.end..self.text_len]
                    .iter()
                    .all(u8::is_ascii_whitespace)
        });
        self.rewrite(body);
        if open {
            self.pem = Some(PemBlock {
                head: std::mem::take(&mut self.redacted),
                terminator: terminator.to_vec(),
                lines: 1,
                body: false,
            });
            return;
        }
        self.redacted.extend_from_slice(terminator);
        out.bytes(&self.redacted);
    }

    /// A line inside a PEM block: dropped, or its END, or the line after a
    /// block that ended without one.
    fn pem_line(&mut self, line: &[u8], out: &mut dyn Emit) {
        let (body, terminator) = split_terminator(line);
        self.visible_text(body);
        let rules = Arc::clone(&self.rules.0);
        let Some(pem) = &mut self.pem else {
            return;
        };
        if let Some(end) = rules.base.pem_end.find(&self.visible) {
            let raw_end = self.map[end.end() - 1] + 1;
            let mut merged = std::mem::take(&mut pem.head);
            let lines = pem.lines + 1;
            self.pem = None;
            // What follows the END line's marker is an ordinary line's end.
            self.find(&body[raw_end..]);
            self.rewrite(&body[raw_end..]);
            merged.extend_from_slice(&self.redacted);
            merged.extend_from_slice(terminator);
            out.merged_line(&merged, lines);
            return;
        }
        let text = self.visible.trim_ascii();
        let base64 = text
            .iter()
            .all(|&byte| byte.is_ascii_alphanumeric() || b"+/=".contains(&byte));
        let header = !pem.body && is_pem_header(text);
        if base64 || header {
            pem.body |= base64 && !text.is_empty();
            pem.lines += 1;
            return;
        }
        self.end_pem(out);
        self.whole_line(line, out);
    }

    /// Emits the line a PEM block without its END line stands for.
    fn end_pem(&mut self, out: &mut dyn Emit) {
        if let Some(mut pem) = self.pem.take() {
            pem.head.extend_from_slice(&pem.terminator);
            if pem.lines == 1 {
                out.bytes(&pem.head);
            } else {
                out.merged_line(&pem.head, pem.lines);
            }
        }
    }

    /// The held line reached [`LINE_LIMIT`] without a newline: sends out
    /// what no secret can still be found in.
    fn overflow(&mut self, out: &mut dyn Emit) {
        let line = std::mem::take(&mut self.line);
        if self.pem.is_some() {
            self.visible_text(&line);
            let base64 = self
                .visible
                .iter()
                .all(|&byte| byte.is_ascii_alphanumeric() || b"+/=".contains(&byte));
            if base64 {
                self.swallow = Some(Swallow::PemLine);
                self.line = line;
                self.line.clear();
                return;
            }
            self.end_pem(out);
        }
        self.find(&line);
        let mut cut = line.len() - OVERLAP;
        let mut running = false;
        let mut keep = 0;
        for (index, region) in self.regions.iter().enumerate() {
            if self.map[region.from] >= cut {
                break;
            }
            keep = index + 1;
            let end = self.map[region.end - 1] + 1;
            if region.end == self.text_len {
                running = true;
                cut = line.len();
            } else {
                cut = cut.max(end);
            }
        }
        // The regions after the cut are found again in the next window.
        self.regions.truncate(keep);
        self.rewrite(&line[..cut]);
        out.bytes(&self.redacted);
        if running {
            self.swallow = Some(Swallow::Secret);
        }
        self.line = line;
        self.line.drain(..cut);
    }

    /// `self.visible` and `self.map` for `raw`, then its regions, in the
    /// order of the bytes they replace: a payload's secret inside a
    /// secret of the text goes with it.
    fn find(&mut self, raw: &[u8]) {
        self.visible_text(raw);
        let rules = Arc::clone(&self.rules.0);
        rules.regions(&self.visible, &mut self.regions);
        if self.text_len < self.visible.len() {
            let map = &self.map;
            self.regions.sort_by_key(|region| map[region.start]);
            let mut end = 0;
            self.regions.retain(|region| {
                let apart = map[region.start] >= end;
                if apart {
                    end = map[region.end - 1] + 1;
                }
                apart
            });
        }
    }

    /// `raw` without its escape sequences, and where each byte came from;
    /// then, each after a `\n`, the payload of each string sequence (an
    /// OSC title or hyperlink, a DCS), which a terminal hides but a model
    /// reads: an OSC 8 link's URL with a password in it is a secret as much
    /// as the text's. The text stays whole, so a sequence inside a secret
    /// does not cut it in two.
    fn visible_text(&mut self, raw: &[u8]) {
        self.visible.clear();
        self.map.clear();
        if memchr(ESC, raw).is_none() {
            self.visible.extend_from_slice(raw);
            self.map.extend(0..raw.len());
            self.text_len = raw.len();
            return;
        }
        let mut payloads: Vec<(u8, usize)> = Vec::new();
        let mut in_payload = false;
        let mut state = State::Ground;
        for (at, &byte) in raw.iter().enumerate() {
            let before = state;
            let mut step = state.step(byte);
            if step == Step::Reject {
                step = state.step(byte);
            }
            let payload = step == Step::Inside
                && matches!(before, State::String { .. })
                && matches!(state, State::String { .. });
            if payload && !in_payload {
                payloads.push((b'\n', at));
            }
            in_payload = payload;
            if payload {
                payloads.push((byte, at));
            } else if step == Step::Text {
                self.visible.push(byte);
                self.map.push(at);
            }
        }
        self.text_len = self.visible.len();
        for (byte, at) in payloads {
            self.visible.push(byte);
            self.map.push(at);
        }
    }

    /// `self.redacted`: `raw` with the regions (found in its visible text)
    /// replaced, each counted.
    fn rewrite(&mut self, raw: &[u8]) {
        self.redacted.clear();
        let mut at = 0;
        for region in &self.regions {
            let start = self.map[region.start];
            let end = self.map[region.end - 1] + 1;
            self.redacted.extend_from_slice(&raw[at..start]);
            self.redacted.extend_from_slice(b"[REDACTED:");
            self.redacted.extend_from_slice(region.kind.as_bytes());
            self.redacted.push(b']');
            *self.counts.entry(region.kind).or_default() += 1;
            at = end;
        }
        self.redacted.extend_from_slice(&raw[at..]);
    }
}

/// A PEM header line (RFC 1421's `Proc-Type: 4,ENCRYPTED`, PGP's
/// `Version: ...`).
fn is_pem_header(text: &[u8]) -> bool {
    let Some(colon) = memchr(b':', text) else {
        return false;
    };
    colon > 0
        && text[..colon]
            .iter()
            .all(|&byte| byte.is_ascii_alphanumeric() || byte == b'-')
}

/// The end of the line that holds `at`: after its `\n`, or the end.
fn line_end(text: &[u8], at: usize) -> usize {
    memchr(b'\n', &text[at..]).map_or(text.len(), |found| at + found + 1)
}

impl Transform for Redact {
    fn push(&mut self, mut input: &[u8], out: &mut dyn Emit) {
        while !input.is_empty() {
            input = self.step(input, out);
        }
    }

    /// A merged line (a binary summary) is redacted as a line of its own.
    fn push_merged(&mut self, line: &[u8], lines: u64, out: &mut dyn Emit) {
        self.finish(&Ending { spill: None }, out);
        let mut changed = super::Collected::default();
        self.whole_line(line, &mut changed);
        self.end_pem(&mut changed);
        out.merged_line(&changed.0, lines);
    }

    fn finish(&mut self, _ending: &Ending, out: &mut dyn Emit) {
        // The stream ended in a PEM block's base64 line longer than a
        // window: that line is one of the block's too.
        if self.swallow.take() == Some(Swallow::PemLine)
            && let Some(pem) = &mut self.pem
        {
            pem.lines += 1;
        }
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.whole_line(&line, out);
        }
        self.end_pem(out);
    }

    fn changed(&self) -> bool {
        !self.counts.is_empty()
    }

    /// Lines are redacted one for one; a PEM block becomes one merged line
    /// that counts all of its lines (a test checks this on every
    /// chunking).
    fn keeps_lines(&self) -> bool {
        true
    }

    fn redactions(&self) -> Option<Redactions> {
        Some(self.counts())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::testing::{run, run_all_chunkings};

    fn rules() -> RedactRules {
        RedactRules::new(&[]).unwrap()
    }

    /// Every form of every literal falls into the bucket that [`BUCKETS`]
    /// gives its literal, by Teddy's rule (see [`teddy_order`]); every
    /// literal has a bucket, and every name there is a literal.
    #[test]
    fn every_literal_falls_into_its_bucket() {
        let forms = literal_forms();
        for row in BUCKETS {
            for name in row {
                assert!(forms.iter().any(|(known, _)| known == name), "{name}");
            }
        }
        let mut seen: Vec<([u8; 3], usize)> = Vec::new();
        let order = teddy_order(forms);
        for (index, (name, form)) in order.iter().enumerate() {
            let nibbles = low_nibbles(form);
            let bucket = match seen.iter().find(|(known, _)| *known == nibbles) {
                Some(&(_, bucket)) => bucket,
                None => {
                    seen.push((nibbles, 7 - index % 8));
                    7 - index % 8
                }
            };
            let wanted = BUCKETS.iter().position(|row| row.contains(name));
            assert_eq!(Some(bucket), wanted, "{name} ({form:?}) at {index}");
        }
        assert_eq!(order.len(), literal_forms().len(), "no form repeated");
    }

    /// The literal search finds every literal in each ASCII case its
    /// family matches (any case with `(?i)`, else as written), wherever
    /// it is in a run of lines, and skips text without one.
    #[test]
    fn the_prefilter_finds_every_literal_in_each_case_its_family_matches() {
        let base = rules().0.base;
        let specs = FAMILIES
            .iter()
            .map(|spec| (spec.literals, spec.pattern))
            .chain([(KEY_LITERALS, FLAG)]);
        for (literals, pattern) in specs {
            for literal in literals {
                let mut variants = vec![literal.to_string()];
                if pattern.starts_with("(?i)") {
                    let upper = literal.to_ascii_uppercase();
                    let lower = literal.to_ascii_lowercase();
                    let mixed: String = lower
                        .chars()
                        .enumerate()
                        .map(|(i, c)| {
                            if i % 2 == 0 {
                                c.to_ascii_uppercase()
                            } else {
                                c
                            }
                        })
                        .collect();
                    variants.extend([upper, lower, mixed]);
                }
                for variant in variants {
                    for at in [0, 1, 31, 32, 33, 4095, 50_000] {
                        let mut text =
                            b"2026 INFO worker[3] id=5 path=/api/v1\n".repeat(at / 38 + 1);
                        text.truncate(at);
                        text.extend_from_slice(variant.as_bytes());
                        text.extend_from_slice(b"\nrest\n");
                        assert_eq!(base.prefilter.first(&text), Some(at), "{variant:?} at {at}");
                    }
                }
            }
        }
        let plain = b"2026-11-30T12:34:56.789Z INFO  worker[3] request id=0a1b path=/api/v1/item\
            s status=200\n"
            .repeat(500);
        assert_eq!(base.prefilter.first(&plain), None);
    }

    /// Bytes between literals: ones that begin and end them, ESC, and
    /// non-ASCII ones.
    fn filler() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        let bytes = b"acegiklnoprstwxAEIKS_-.:/\n \x1b\x9b\xe1\xe3\xf4".to_vec();
        proptest::collection::vec(proptest::sample::select(bytes), 0..90)
    }

    proptest::proptest! {
        /// The first pass, then Teddy from where it stopped, finds the
        /// literal Teddy alone finds first (or ESC, before it, where the
        /// pass runs), in text made of literals' forms and bytes that
        /// begin and end them (non-ASCII ones too, which the first pass's
        /// tables alias to ASCII), at every length.
        #[test]
        fn the_first_pass_finds_what_teddy_alone_finds(
            pieces in proptest::collection::vec((0usize..300, proptest::bool::ANY, filler()), 0..8),
        ) {
            let base = rules().0.base;
            let forms = literal_forms();
            let mut text = Vec::new();
            for (form, whole, filler) in &pieces {
                text.extend_from_slice(filler);
                if let Some((_, form)) = forms.get(*form) {
                    // Or its first bytes, to begin one and not finish it.
                    let take = if *whole { form.len() } else { form.len() - 1 };
                    text.extend_from_slice(&form[..take]);
                }
            }
            for start in [0, 1, 2, 3, 63] {
                let text = &text[start.min(text.len())..];
                let escape = memchr(ESC, text).filter(|_| base.prefilter.finds_escapes());
                let teddy = [base.prefilter.search.find(text), escape].into_iter().flatten().min();
                proptest::prop_assert_eq!(base.prefilter.first(text), teddy);
            }
        }
    }

    fn redact(input: &[u8]) -> String {
        let rules = rules();
        String::from_utf8_lossy(&run_all_chunkings(
            || Box::new(Redact::new(rules.clone())),
            input,
        ))
        .into_owned()
    }

    #[test]
    fn the_built_in_patterns_compile() {
        let base = BUILT_IN.get_or_init(BuiltIn::new).as_ref().unwrap();
        assert!(
            base.families.len() < 64,
            "a line's families are a u64's bits"
        );
        for compiled in &base.families {
            Regex::new(&compiled.pattern).unwrap();
            assert!(compiled.regex().is_some());
        }
        assert!(RedactRules::new(&["x(?P<secret>y)".into()]).is_ok());
        assert!(RedactRules::new(&["(".into()]).is_err());
    }

    #[test]
    fn each_family_keeps_what_names_the_place() {
        let cases: &[(&str, &str)] = &[
            (
                "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
                "AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-key]\n",
            ),
            (
                "id AKIAIOSFODNN7EXAMPLE.\n",
                "id [REDACTED:aws-access-key-id].\n",
            ),
            (
                "origin https://x-access-token:ghs_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE@github.c\
                    om/org/repo.git (fetch)\n",
                "origin https://[REDACTED:url-credentials]@github.com/org/repo.git (fetch)\n",
            ),
            (
                "> Authorization: Bearer abc.def-ghi\n",
                "> Authorization: Bearer [REDACTED:bearer-token]\n",
            ),
            (
                "Authorization: Basic dXNlcjpwYXNz\r\n",
                "Authorization: Basic [REDACTED:basic-auth]\r\n",
            ),
            ("Authorization: failed\n", "Authorization: failed\n"),
            (
                "password=hunter2 next\n",
                "password=[REDACTED:password] next\n",
            ),
            (
                "\"client_secret\": \"s3cr3t\",\n",
                "\"client_secret\": \"[REDACTED:secret]\",\n",
            ),
            (
                "mysql --password 'p w' -u root\n",
                "mysql --password '[REDACTED:password]' -u root\n",
            ),
            (
                "GITHUB_TOKEN=ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKE\n",
                "GITHUB_TOKEN=[REDACTED:github-token]\n",
            ),
            ("    token: String,\n", "    token: String,\n"),
            (
                "max_tokens=100 tokenizer=o200k\n",
                "max_tokens=100 tokenizer=o200k\n",
            ),
            (
                "git@github.com:org/repo.git ssh://git@host/x\n",
                "git@github.com:org/repo.git ssh://git@host/x\n",
            ),
            (
                "token=$GITHUB_TOKEN password=***\n",
                "token=$GITHUB_TOKEN password=***\n",
            ),
            (
                "password=[REDACTED:password]\n",
                "password=[REDACTED:password]\n",
            ),
            // Inside a JSON string an unquoted value ends at an escape.
            (
                "{\"log\": \"GITHUB_TOKEN=ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfake0000\\nHOME=/root\\\
                    nPATH=/usr/bin\"}\n",
                "{\"log\": \"GITHUB_TOKEN=[REDACTED:github-token]\\nHOME=/root\\nPATH=/usr/bin\"\
                    }\n",
            ),
            (
                "{\"log\": \"password=abc\\nHOME=/root\"}\n",
                "{\"log\": \"password=[REDACTED:password]\\nHOME=/root\"}\n",
            ),
            // A count is no credential; a password of digits is one.
            (
                "max_token=4096 --max-token 2048 password=123456\n",
                "max_token=4096 --max-token 2048 password=[REDACTED:password]\n",
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(redact(input.as_bytes()), *expected, "{input}");
        }
        // Every kind a case names is one the `Cleaned:` line has room for.
        for (_, expected) in cases {
            for kind in expected.split("[REDACTED:").skip(1) {
                let kind = &kind[..kind.find(']').unwrap()];
                assert!(KINDS.contains(&kind), "{kind} is not in KINDS");
            }
        }
    }

    #[test]
    fn an_escape_sequence_inside_a_secret_does_not_let_it_through() {
        assert_eq!(
            redact(b"t ghp_FAKEfakeFAKE\x1b[1mfakeFAKEfakeFAKEfakeFAKE\x1b[0m ok\n"),
            "t [REDACTED:github-token]\x1b[0m ok\n"
        );
        assert_eq!(
            redact(b"pass\x1b[32mword=hunter2\n"),
            "pass\x1b[32mword=[REDACTED:password]\n"
        );
    }

    #[test]
    fn a_pem_block_becomes_one_line_that_stands_for_all_of_it() {
        let input = b"before\nkey: -----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nMI\
            IEFAKE\nFAKE==\n-----END RSA PRIVATE KEY-----\nafter\n";
        let rules = rules();
        let output = run(|| Box::new(Redact::new(rules.clone())), input, input.len());
        assert_eq!(
            String::from_utf8_lossy(&output.bytes),
            "before\nkey: [REDACTED:private-key]\nafter\n"
        );
        assert_eq!(output.merged, vec![(7, 6)]);
        assert_eq!(
            redact(input),
            "before\nkey: [REDACTED:private-key]\nafter\n"
        );
        // Without an END line, the first line that is not base64 ends it.
        assert_eq!(
            redact(b"-----BEGIN PRIVATE KEY-----\nMIIFAKE\nerror: cut short\n"),
            "[REDACTED:private-key]\nerror: cut short\n"
        );
        assert_eq!(
            redact(
                b"{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIFAKE\\n-----END PRIVAT\
                E KEY-----\\n\"}\n"
            ),
            "{\"private_key\": \"[REDACTED:private-key]\"}\n"
        );
    }

    #[test]
    fn a_line_longer_than_the_window_is_redacted_across_windows() {
        let rules = rules();
        let make = || -> Box<dyn Transform + Send> { Box::new(Redact::new(rules.clone())) };
        let token = b"ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKE";
        for place in [
            0,
            LINE_LIMIT - OVERLAP - 10,
            LINE_LIMIT - 20,
            LINE_LIMIT + 5,
            3 * LINE_LIMIT,
        ] {
            let mut input = vec![b'x'; place];
            input.push(b' ');
            input.extend_from_slice(token);
            input.push(b' ');
            input.extend(vec![b'y'; LINE_LIMIT]);
            input.push(b'\n');
            for chunk in [1000, 4096, 65536, input.len()] {
                let output = run(make, &input, chunk).bytes;
                let mut expected = vec![b'x'; place];
                expected.extend_from_slice(b" [REDACTED:github-token] ");
                expected.extend(vec![b'y'; LINE_LIMIT]);
                expected.push(b'\n');
                assert!(output == expected, "token at {place}, chunks of {chunk}");
            }
        }
        // A secret value longer than a window is redacted to the window's
        // end, and the rest of it dropped.
        let mut input = b"token=".to_vec();
        input.extend(b"ab1".repeat(LINE_LIMIT));
        input.extend_from_slice(b" after\n");
        let output = run(make, &input, 4096).bytes;
        assert_eq!(
            String::from_utf8_lossy(&output),
            "token=[REDACTED:token] after\n"
        );
    }

    #[test]
    fn every_chunking_of_a_short_input_gives_the_same_output() {
        // `redact` runs every chunking from 1 byte up and fails on any
        // that differs from the whole input's.
        let input =
            b"a AKIAFAKE000000000042 b\nGITHUB_TOKEN=ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKE\n\
            -----BEGIN PRIVATE KEY-----\nMIIFAKE0\n-----END PRIVATE KEY-----\n\
            Authorization: Bearer FAKE\x1b[0mtoken42\r\nhttps://u:FAKEpw42@h/x password=FAKEpw43";
        assert_eq!(
            redact(input),
            "a [REDACTED:aws-access-key-id] b\nGITHUB_TOKEN=[REDACTED:github-token]\n\
             [REDACTED:private-key]\nAuthorization: Bearer [REDACTED:bearer-token]\r\n\
             https://[REDACTED:url-credentials]@h/x password=[REDACTED:password]"
        );
    }

    /// The families matched in any case are found in any case, by a
    /// search that looks at the raw bytes, wherever a chunk ends
    /// (`redact` runs every chunking).
    #[test]
    fn a_key_name_or_header_in_any_case_is_redacted_across_chunks() {
        assert_eq!(
            redact(
                b"x\nAUTHORIZATION: BEARER FAKEfake0042FAKE\nDb_PassWord=FAKEpw42\n\
                  SECRET_KEY=FAKEsecret42 Api_Key=FAKEkey4242x ToKeN=FAKE4242tok\n"
            ),
            "x\nAUTHORIZATION: BEARER [REDACTED:bearer-token]\nDb_PassWord=[REDACTED:password]\n\
             SECRET_KEY=[REDACTED:secret] Api_Key=[REDACTED:api-key] ToKeN=[REDACTED:token]\n"
        );
    }

    /// What `keeps_lines` promises: the input's lines are the output's,
    /// plus what each merged line stands for beyond itself, on every
    /// chunking, PEM blocks (ended, cut short, at the end, with a base64
    /// line longer than a window) and long lines included.
    #[test]
    fn every_input_line_is_an_output_line_or_counted_by_a_merged_one() {
        let lines = |bytes: &[u8]| {
            let newlines = memchr::memchr_iter(b'\n', bytes).count() as u64;
            newlines + u64::from(bytes.last().is_some_and(|&last| last != b'\n'))
        };
        let long_base64 = "QUJD".repeat(LINE_LIMIT / 2);
        let long_secret = format!("x token={} y\nnext", "ab1".repeat(LINE_LIMIT));
        let inputs: Vec<String> = vec![
            String::new(),
            "plain\nlines\nunterminated".into(),
            "a\n-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nMIIE\n==\n-----END RSA \
             PRIVATE KEY----- tail\nafter\n"
                .into(),
            "-----BEGIN PRIVATE KEY-----\nMIIFAKE\nerror: cut short\n".into(),
            "-----BEGIN PRIVATE KEY-----\nMIIFAKE".into(),
            "-----BEGIN PRIVATE KEY-----".into(),
            "-----BEGIN PRIVATE KEY-----\nMIIF\n-----END PRIVATE KEY-----".into(),
            format!("-----BEGIN PRIVATE KEY-----\n{long_base64}"),
            format!("-----BEGIN PRIVATE KEY-----\nMIIF\n{long_base64}"),
            format!(
                "-----BEGIN PRIVATE KEY-----\n{long_base64}\nMIIF\n-----END PRIVATE KEY-----\n"
            ),
            long_secret.clone(),
            format!("{long_secret}\n"),
            "password=x\r\nGITHUB_TOKEN=ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKE".into(),
        ];
        let rules = rules();
        for input in &inputs {
            for chunk in [1, 7, 4096, 65536, input.len()] {
                let output = run(
                    || Box::new(Redact::new(rules.clone())),
                    input.as_bytes(),
                    chunk,
                );
                let extra: u64 = output
                    .merged
                    .iter()
                    .map(|&(_, n)| n.saturating_sub(1))
                    .sum();
                assert_eq!(
                    lines(input.as_bytes()),
                    lines(&output.bytes) + extra,
                    "{:?}..., chunks of {chunk}",
                    &input[..input.len().min(60)]
                );
            }
        }
        assert!(Redact::new(rules).keeps_lines());
    }

    #[test]
    fn text_without_secrets_passes_unchanged() {
        let text = b"commit 3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49\nuuid 123e4567-e89b-12d3-a4\
            56-426614174000\n\
            sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n\
            tests/it/redact.rs::token_is_kept PASSED\n/usr/lib/x86_64-linux-gnu/libssl.so.3\n\
            data: aGVsbG8gd29ybGQgdGhpcyBpcyBub3QgYSBzZWNyZXQ=\nhttps://example.com/a?b=c\n";
        assert_eq!(redact(text).as_bytes(), text);
    }
}
