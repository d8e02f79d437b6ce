//! `--format json`: the whole document is held (up to `--json-limit`),
//! parsed ([`tree`]) and, when it does not fit the budget, shortened inside
//! ([`shorten`]) into a valid document of the same shape. Anything else
//! falls back to text capping, with the reason.
//!
//! This is the one place where memory grows with the input instead of the
//! budget; the core capper runs beside it all the same, for the fallback.

mod markers;
mod shorten;
mod tree;

use memchr::memchr;

use super::{Capped, Format, FormatPlan, FormatReport, Reading, Verdict};

/// A JSON document, as printed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct JsonReport {
    /// The shortened document (a newline follows it in the output), or
    /// `None` when the stream fitted and passes unchanged.
    pub shortened: Option<Vec<u8>>,
    /// Whether the shortened document is pretty (2 spaces).
    pub pretty: bool,
}

/// `--format json` at work: the document gathered, and the budget in
/// bytes it is shortened to.
#[derive(Debug)]
pub(crate) struct Document {
    collector: Collector,
    budget: u64,
}

impl Document {
    pub(crate) fn new(plan: FormatPlan, budget: u64) -> Document {
        let auto = plan.format == Format::Auto;
        Document {
            collector: Collector::new(auto, plan.json_limit, plan.pretty),
            budget,
        }
    }
}

impl Reading for Document {
    fn raw(&mut self, chunk: &[u8]) {
        self.collector.push(chunk);
    }

    /// A document is shortened in place of the cut, or falls back to it.
    /// It fits within the budget in bytes, whatever `--lines` says
    /// (`auto`: lines do not count for a document).
    fn finish(self: Box<Self>, capped: Capped<'_>) -> Verdict {
        let fits = capped.raw_bytes <= self.budget;
        match self.collector.finish(self.budget, fits) {
            Outcome::Shortened(text, pretty) => Verdict::Document {
                whole: Vec::new(),
                report: JsonReport {
                    shortened: Some(text),
                    pretty,
                },
            },
            Outcome::Fits(whole) => Verdict::Document {
                whole,
                report: JsonReport {
                    shortened: None,
                    pretty: false,
                },
            },
            Outcome::NotJson(Some(reason)) => Verdict::Capped(FormatReport::NotJson(reason)),
            Outcome::NotJson(None) => Verdict::Capped(FormatReport::Text),
        }
    }
}

/// A newline this close to the document's start means it was printed
/// pretty, and a shortened version is printed pretty too.
const PRETTY_SNIFF: usize = 200;

/// Gathers the stream as the document.
#[derive(Debug)]
struct Collector {
    doc: Vec<u8>,
    limit: u64,
    /// `auto`: only a stream whose first non-blank byte opens an array or
    /// an object is a candidate, and a failure says nothing.
    auto: bool,
    pretty: bool,
    state: State,
    /// A non-blank byte has arrived.
    started: bool,
}

#[derive(Debug, PartialEq, Eq)]
enum State {
    Collecting,
    TooLarge,
    /// `auto`, and the stream does not start like a document.
    NotCandidate,
}

/// What became of the document.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// Not taken as JSON; with `--format json`, why (the header says so).
    NotJson(Option<String>),
    /// A valid document within the budget: printed unchanged (here it is).
    Fits(Vec<u8>),
    /// The shortened document, and whether it is pretty.
    Shortened(Vec<u8>, bool),
}

impl Collector {
    fn new(auto: bool, limit: u64, pretty: bool) -> Collector {
        Collector {
            doc: Vec::new(),
            // The tree indexes the document with 32 bits.
            limit: limit.min(u64::from(u32::MAX) - 1),
            auto,
            pretty,
            state: State::Collecting,
            started: false,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        if self.state != State::Collecting {
            return;
        }
        if self.auto && !self.started {
            let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
            if first.is_some_and(|&b| b != b'{' && b != b'[') {
                self.state = State::NotCandidate;
                self.doc = Vec::new();
                return;
            }
            self.started = first.is_some();
        }
        if (self.doc.len() + bytes.len()) as u64 > self.limit {
            self.state = State::TooLarge;
            self.doc = Vec::new();
            return;
        }
        self.doc.extend_from_slice(bytes);
    }

    /// Decides, once the stream has ended: `fits` when the stream is
    /// within the budget, else shortened to at most `budget` bytes,
    /// counting the newline that follows the document.
    fn finish(self, budget: u64, fits: bool) -> Outcome {
        let explicit = |reason: String| Outcome::NotJson((!self.auto).then_some(reason));
        match self.state {
            State::NotCandidate => return Outcome::NotJson(None),
            State::TooLarge => {
                return explicit(format!("larger than --json-limit ({} bytes)", self.limit));
            }
            State::Collecting => {}
        }
        let doc = &self.doc[..];
        let pretty = self.pretty || looks_pretty(doc);
        let tree = match tree::parse(doc, pretty) {
            Ok(tree) => tree,
            Err(_) if doc.starts_with(b"\xef\xbb\xbf") => {
                return explicit(
                    "it starts with a byte-order mark (U+FEFF), which JSON does not allow".into(),
                );
            }
            Err(err) => return explicit(err.describe(doc)),
        };
        if fits {
            drop(tree);
            return Outcome::Fits(self.doc);
        }
        match shorten::shorten(&tree, budget.saturating_sub(1)) {
            Some(shortened) => Outcome::Shortened(shortened, pretty),
            None => explicit(format!(
                "even its shortest form is over the budget of {budget} bytes"
            )),
        }
    }
}

/// Whether the document has a newline within its first 200 bytes.
fn looks_pretty(doc: &[u8]) -> bool {
    let start = doc
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(doc.len());
    let end = doc
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |p| p + 1);
    memchr(b'\n', &doc[start..end.min(start + PRETTY_SNIFF)]).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(auto: bool, input: &str, budget: u64) -> Outcome {
        let mut collector = Collector::new(auto, 1 << 20, false);
        for piece in input.as_bytes().chunks(3) {
            collector.push(piece);
        }
        collector.finish(budget, input.len() as u64 <= budget)
    }

    #[test]
    fn documents_are_shortened_or_refused_with_a_reason() {
        let doc = format!("[{}]\n", "1,".repeat(100) + "2");
        let Outcome::Shortened(text, false) = outcome(false, &doc, 44) else {
            panic!("not shortened")
        };
        assert_eq!(text, br#"[1,"[... 99 of 101 items truncated ...]",2]"#);
        assert_eq!(outcome(false, "[1]", 40), Outcome::Fits(b"[1]".to_vec()));
        assert_eq!(
            outcome(false, "[1,]", 2),
            Outcome::NotJson(Some("expected value at line 1 column 4".into()))
        );
        assert_eq!(outcome(true, "[1,]", 2), Outcome::NotJson(None));
        assert_eq!(
            outcome(false, "\u{feff}[1]", 2),
            Outcome::NotJson(Some(
                "it starts with a byte-order mark (U+FEFF), which JSON does not allow".into()
            ))
        );
        assert_eq!(outcome(true, "  x [1]", 2), Outcome::NotJson(None));
        let mut small = Collector::new(false, 4, false);
        small.push(b"[1,2,3]");
        assert_eq!(
            small.finish(2, false),
            Outcome::NotJson(Some("larger than --json-limit (4 bytes)".into()))
        );
    }

    #[test]
    fn pretty_by_the_look_of_the_document() {
        assert!(looks_pretty(b"\n\n{\n  \"a\": 1\n}\n"));
        assert!(!looks_pretty(b"\n\n{\"a\": 1}\n"));
        let far = format!("[{}\n1]", "1,".repeat(150));
        assert!(!looks_pretty(far.as_bytes()));
    }
}
