//! A strict JSON parser (RFC 8259) into a flat tree of spans over the
//! document, with each value's printed size.
//!
//! Nothing is decoded or copied: a number, a string or a key is printed as
//! the bytes it was written with, so a shortened document keeps the values
//! it keeps exactly (numbers of any precision, escapes as written), and
//! keys keep their order. The tree costs 16 bytes a value.

use memchr::memchr2;

/// Containers nested deeper than this are refused (the shortener and the
/// printer recurse once per level; a thread's stack holds this many).
pub(crate) const MAX_DEPTH: usize = 1000;

/// Stands for "no key" (a value that is not an object member).
const NO_KEY: u32 = u32::MAX;

/// One value, in pre-order: a container's members follow it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    /// Its first byte in the document.
    pub(crate) start: u32,
    /// Scalars and strings: just past their last byte. Containers: the
    /// index of the node after their last member.
    pub(crate) end: u32,
    /// An object member's key: the offset of its opening quote.
    pub(crate) key: u32,
    /// Its printed size in bytes (compact, or pretty at its depth),
    /// saturating: `u32::MAX` means at least that.
    pub(crate) size: u32,
}

/// What a value is, from its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Array,
    Object,
    String,
    /// A number, `true`, `false` or `null`: printed as written.
    Scalar,
}

/// A parsed document.
pub(crate) struct Tree<'a> {
    pub(crate) doc: &'a [u8],
    pub(crate) nodes: Vec<Node>,
    pub(crate) pretty: bool,
}

/// How one printed container is laid out: compact, or pretty with
/// 2 spaces per level.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    pub(crate) pretty: bool,
}

impl Layout {
    /// The size of a container at `depth` holding `count` elements whose
    /// own sizes add up to `elements` (a member's element is its key, the
    /// separator and its value).
    pub(crate) fn frame(self, depth: usize, count: u64, elements: u64) -> u64 {
        if count == 0 {
            return 2;
        }
        let depth = depth as u64;
        if self.pretty {
            // "[\n", each element indented one level deeper, ",\n" between
            // them, "\n", the closing bracket indented.
            elements + count * (2 * depth + 2) + 2 * (count - 1) + 2 * depth + 4
        } else {
            elements + count - 1 + 2
        }
    }

    /// Between a key and its value: `:` or `: `.
    pub(crate) fn colon(self) -> u64 {
        if self.pretty { 2 } else { 1 }
    }
}

impl Tree<'_> {
    pub(crate) fn layout(&self) -> Layout {
        Layout {
            pretty: self.pretty,
        }
    }

    pub(crate) fn kind(&self, index: usize) -> Kind {
        match self.doc[self.nodes[index].start as usize] {
            b'[' => Kind::Array,
            b'{' => Kind::Object,
            b'"' => Kind::String,
            _ => Kind::Scalar,
        }
    }

    pub(crate) fn size(&self, index: usize) -> u64 {
        u64::from(self.nodes[index].size)
    }

    /// The bytes of a scalar or string (quotes included).
    pub(crate) fn text(&self, index: usize) -> &[u8] {
        let node = self.nodes[index];
        &self.doc[node.start as usize..node.end as usize]
    }

    /// The key of an object member, quotes included.
    pub(crate) fn key(&self, index: usize) -> &[u8] {
        let start = self.nodes[index].key as usize;
        &self.doc[start..string_end(self.doc, start)]
    }

    /// The index after the subtree at `index`.
    pub(crate) fn next(&self, index: usize) -> usize {
        match self.kind(index) {
            Kind::Array | Kind::Object => self.nodes[index].end as usize,
            _ => index + 1,
        }
    }

    /// The members of the container at `index`, in order.
    pub(crate) fn children(&self, index: usize) -> Vec<usize> {
        self.members(index).collect()
    }

    /// The same, without collecting them.
    pub(crate) fn members(&self, index: usize) -> impl Iterator<Item = usize> + '_ {
        let end = self.nodes[index].end as usize;
        let mut child = index + 1;
        std::iter::from_fn(move || {
            let this = child;
            (this < end).then(|| {
                child = self.next(this);
                this
            })
        })
    }
}

/// The end of the string whose opening quote is at `start` (just past the
/// closing quote), in a document already checked.
fn string_end(doc: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    loop {
        match memchr2(b'"', b'\\', &doc[at..]) {
            Some(i) if doc[at + i] == b'\\' => at += i + 2,
            Some(i) => return at + i + 1,
            None => return doc.len(),
        }
    }
}

/// Why a document is not JSON, and where.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ParseError {
    pub(crate) message: &'static str,
    pub(crate) at: usize,
}

impl ParseError {
    /// `expected value at line 3 column 7` (columns in bytes, from 1).
    pub(crate) fn describe(&self, doc: &[u8]) -> String {
        let before = &doc[..self.at.min(doc.len())];
        let line = 1 + memchr::memchr_iter(b'\n', before).count();
        let column = 1 + before.len() - memchr::memrchr(b'\n', before).map_or(0, |p| p + 1);
        format!("{} at line {line} column {column}", self.message)
    }
}

/// An open container while parsing.
struct Open {
    index: usize,
    object: bool,
}

/// Parses `doc` (at most `u32::MAX - 1` bytes), sizing each value as it
/// would print compact or `pretty`.
pub(crate) fn parse(doc: &[u8], pretty: bool) -> Result<Tree<'_>, ParseError> {
    let error = |message, at| ParseError { message, at };
    if doc.len() >= u32::MAX as usize {
        return Err(error("document too large", 0));
    }
    // Outside strings JSON is ASCII; inside them it must be UTF-8.
    if let Err(err) = std::str::from_utf8(doc) {
        return Err(error("invalid UTF-8", err.valid_up_to()));
    }
    let layout = Layout { pretty };
    let mut nodes: Vec<Node> = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let mut at = skip_space(doc, 0);
    let mut key = NO_KEY;
    'value: loop {
        let start = at;
        let node = |end: usize, size: u64| Node {
            start: start as u32,
            end: end as u32,
            key,
            size: saturate(size),
        };
        match doc.get(at) {
            None => return Err(error("EOF while parsing a value", at)),
            Some(&open_byte @ (b'[' | b'{')) => {
                if open.len() >= MAX_DEPTH {
                    return Err(error("nested too deep", at));
                }
                let object = open_byte == b'{';
                open.push(Open {
                    index: nodes.len(),
                    object,
                });
                nodes.push(node(0, 0));
                at = skip_space(doc, at + 1);
                let close = if object { b'}' } else { b']' };
                if doc.get(at) == Some(&close) {
                    at += 1;
                } else {
                    key = NO_KEY;
                    if object {
                        key = at as u32;
                        at = member_key(doc, at)?;
                    }
                    continue 'value;
                }
            }
            Some(b'"') => {
                at = string(doc, at)?;
                nodes.push(node(at, (at - start) as u64));
            }
            Some(b'-' | b'0'..=b'9') => {
                at = number(doc, at)?;
                nodes.push(node(at, (at - start) as u64));
            }
            Some(_) => {
                let word = [&b"true"[..], b"false", b"null"]
                    .into_iter()
                    .find(|word| doc[at..].starts_with(word))
                    .ok_or_else(|| error("expected value", at))?;
                at += word.len();
                nodes.push(node(at, word.len() as u64));
            }
        }
        // A value ended (or an empty container closed right away): close
        // every container that ends here, then go on to the next member.
        let mut closed_now = matches!(doc[start], b'[' | b'{');
        loop {
            if closed_now {
                let container = open.pop().map(|o| o.index).unwrap_or_default();
                nodes[container].end = nodes.len() as u32;
                nodes[container].size =
                    saturate(container_size(doc, &nodes, container, open.len(), layout));
            }
            let Some(top) = open.last() else {
                at = skip_space(doc, at);
                if at != doc.len() {
                    return Err(error("trailing characters", at));
                }
                return Ok(Tree { doc, nodes, pretty });
            };
            at = skip_space(doc, at);
            let close = if top.object { b'}' } else { b']' };
            match doc.get(at) {
                Some(b',') => {
                    at = skip_space(doc, at + 1);
                    key = NO_KEY;
                    if top.object {
                        key = at as u32;
                        at = member_key(doc, at)?;
                    }
                    continue 'value;
                }
                Some(&byte) if byte == close => {
                    at += 1;
                    closed_now = true;
                }
                None if top.object => return Err(error("EOF while parsing an object", at)),
                None => return Err(error("EOF while parsing an array", at)),
                _ if top.object => return Err(error("expected ',' or '}'", at)),
                _ => return Err(error("expected ',' or ']'", at)),
            }
        }
    }
}

fn saturate(size: u64) -> u32 {
    u32::try_from(size).unwrap_or(u32::MAX)
}

/// The printed size of a closed container at `depth`, from its members'.
fn container_size(doc: &[u8], nodes: &[Node], index: usize, depth: usize, layout: Layout) -> u64 {
    let object = doc[nodes[index].start as usize] == b'{';
    let end = nodes[index].end as usize;
    let (mut count, mut elements) = (0u64, 0u64);
    let mut child = index + 1;
    while child < end {
        let node = nodes[child];
        elements = elements.saturating_add(u64::from(node.size));
        if object {
            let key_len = string_end(doc, node.key as usize) - node.key as usize;
            elements = elements.saturating_add(key_len as u64 + layout.colon());
        }
        count += 1;
        child = match doc[node.start as usize] {
            b'[' | b'{' => node.end as usize,
            _ => child + 1,
        };
    }
    layout.frame(depth, count, elements)
}

fn skip_space(doc: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = doc.get(at) {
        at += 1;
    }
    at
}

/// A member's key and its colon; returns where its value starts.
fn member_key(doc: &[u8], at: usize) -> Result<usize, ParseError> {
    if at >= doc.len() {
        return Err(ParseError {
            message: "EOF while parsing an object",
            at,
        });
    }
    if doc.get(at) != Some(&b'"') {
        return Err(ParseError {
            message: "key must be a string",
            at,
        });
    }
    let at = skip_space(doc, string(doc, at)?);
    if at >= doc.len() {
        return Err(ParseError {
            message: "EOF while parsing an object",
            at,
        });
    }
    if doc.get(at) != Some(&b':') {
        return Err(ParseError {
            message: "expected ':'",
            at,
        });
    }
    Ok(skip_space(doc, at + 1))
}

/// Checks the string whose quote is at `at`; returns just past its end.
fn string(doc: &[u8], mut at: usize) -> Result<usize, ParseError> {
    at += 1;
    loop {
        let Some(&byte) = doc.get(at) else {
            return Err(ParseError {
                message: "EOF while parsing a string",
                at,
            });
        };
        match byte {
            b'"' => return Ok(at + 1),
            b'\\' => {
                let escape_ok = match doc.get(at + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                        at += 2;
                        true
                    }
                    Some(b'u') => {
                        let hex = doc.get(at + 2..at + 6);
                        at += 6;
                        hex.is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
                    }
                    _ => false,
                };
                if !escape_ok {
                    return Err(ParseError {
                        message: "invalid escape",
                        at,
                    });
                }
            }
            0..=0x1F => {
                return Err(ParseError {
                    message: "control character in string",
                    at,
                });
            }
            _ => at += 1,
        }
    }
}

/// Checks the number at `at`: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn number(doc: &[u8], mut at: usize) -> Result<usize, ParseError> {
    let digits = |at: usize| {
        doc[at.min(doc.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let invalid = |at| ParseError {
        message: "invalid number",
        at,
    };
    if doc.get(at) == Some(&b'-') {
        at += 1;
    }
    match doc.get(at) {
        Some(b'0') => at += 1,
        Some(b'1'..=b'9') => at += digits(at),
        _ => return Err(invalid(at)),
    }
    if doc.get(at) == Some(&b'.') {
        let fraction = digits(at + 1);
        if fraction == 0 {
            return Err(invalid(at + 1));
        }
        at += 1 + fraction;
    }
    if let Some(b'e' | b'E') = doc.get(at) {
        at += 1;
        if let Some(b'+' | b'-') = doc.get(at) {
            at += 1;
        }
        let exponent = digits(at);
        if exponent == 0 {
            return Err(invalid(at));
        }
        at += exponent;
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(doc: &str) -> String {
        match parse(doc.as_bytes(), false) {
            Ok(_) => "ok".into(),
            Err(err) => err.describe(doc.as_bytes()),
        }
    }

    #[test]
    fn accepts_json_and_sizes_it_compact_and_pretty() {
        let doc = br#" {"a" : [1, -2.5e+3, "x\"y"], "b": {}, "c": [], "d": {"e": null}} "#;
        let compact = parse(doc, false).unwrap();
        assert_eq!(
            compact.size(0) as usize,
            r#"{"a":[1,-2.5e+3,"x\"y"],"b":{},"c":[],"d":{"e":null}}"#.len()
        );
        let pretty = parse(doc, true).unwrap();
        let printed = "{\n  \"a\": [\n    1,\n    -2.5e+3,\n    \"x\\\"y\"\n  ],\n  \"b\": {},\n  \
                       \"c\": [],\n  \"d\": {\n    \"e\": null\n  }\n}";
        assert_eq!(pretty.size(0) as usize, printed.len());
        assert_eq!(compact.children(0).len(), 4);
        assert_eq!(compact.key(compact.children(0)[3]), br#""d""#);
    }

    #[test]
    fn refuses_what_is_not_json_saying_where() {
        assert_eq!(error(""), "EOF while parsing a value at line 1 column 1");
        assert_eq!(
            error("{\"a\":1}\n{"),
            "trailing characters at line 2 column 1"
        );
        assert_eq!(error("[1,]"), "expected value at line 1 column 4");
        assert_eq!(error("[01]"), "expected ',' or ']' at line 1 column 3");
        assert_eq!(error("{\"a\" 1}"), "expected ':' at line 1 column 6");
        assert_eq!(error("{1:2}"), "key must be a string at line 1 column 2");
        assert_eq!(error("[\"a\\x\"]"), "invalid escape at line 1 column 4");
        assert_eq!(
            error("[\"\t\"]"),
            "control character in string at line 1 column 3"
        );
        assert_eq!(error("[1.]"), "invalid number at line 1 column 4");
        assert_eq!(error("[-]"), "invalid number at line 1 column 3");
        assert_eq!(error("[\"\u{e9}\"]"), "ok");
        assert_eq!(
            error("{\"a\":[1,2\n"),
            "EOF while parsing an array at line 2 column 1"
        );
        assert_eq!(
            error("{\"a\""),
            "EOF while parsing an object at line 1 column 5"
        );
        assert!(parse(b"[\"\xff\"]", false).is_err());
        let deep = "[".repeat(MAX_DEPTH + 1);
        assert!(error(&deep).starts_with("nested too deep"));
        assert_eq!(
            error(&("[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH))),
            "ok"
        );
    }
}
