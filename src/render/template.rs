//! `--header` and `--marker` templates: text with placeholders, so that
//! toolcap can print the exact notices other agents' models already know.
//!
//! `{name}` is a value, `{name:,}` the same number with its thousands
//! grouped by commas; `\n`, `\t` and `\\` are a newline, a tab and a
//! backslash; `{{` and `}}` are braces. An unknown placeholder is refused
//! when the options are read, naming it.

use std::fmt::Write as _;

/// A value a template can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    Tokens,
    Lines,
    Bytes,
    OmittedBytes,
    OmittedChars,
    OmittedLines,
    FirstOmittedLine,
    LastOmittedLine,
    HiddenMatches,
    Spill,
    Id,
    Show,
}

/// Every placeholder, by name, in the order `--help` lists them.
const FIELDS: [(&str, Field); 12] = [
    ("tokens", Field::Tokens),
    ("lines", Field::Lines),
    ("bytes", Field::Bytes),
    ("omitted_bytes", Field::OmittedBytes),
    ("omitted_chars", Field::OmittedChars),
    ("omitted_lines", Field::OmittedLines),
    ("first_omitted_line", Field::FirstOmittedLine),
    ("last_omitted_line", Field::LastOmittedLine),
    ("hidden_matches", Field::HiddenMatches),
    ("spill", Field::Spill),
    ("id", Field::Id),
    ("show", Field::Show),
];

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Text(String),
    Value { field: Field, grouped: bool },
}

/// A parsed template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Template {
    parts: Vec<Part>,
}

/// What the placeholders stand for, for one header or marker.
#[derive(Clone, Debug, Default)]
pub(crate) struct Values {
    pub(crate) tokens: u64,
    /// `tokens` is an estimate: shown as `~N`.
    pub(crate) tokens_estimated: bool,
    pub(crate) lines: u64,
    pub(crate) bytes: u64,
    pub(crate) omitted_bytes: u64,
    pub(crate) omitted_chars: u64,
    pub(crate) first_omitted_line: u64,
    pub(crate) last_omitted_line: u64,
    pub(crate) hidden_matches: u64,
    /// The spill file's path, escaped for one line; empty without one.
    pub(crate) spill: Vec<u8>,
    /// Its id in a store, and the command that shows it; empty otherwise.
    pub(crate) id: String,
    pub(crate) show: String,
}

impl Template {
    /// Parses `text`, the value of `option` (named in errors).
    pub(crate) fn parse(text: &str, option: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, chars.peek()) {
                ('\\', Some('n')) => literal.push('\n'),
                ('\\', Some('t')) => literal.push('\t'),
                ('\\', Some('\\')) => literal.push('\\'),
                ('{', Some('{')) => literal.push('{'),
                ('}', Some('}')) => literal.push('}'),
                ('{', _) => {
                    let mut name = String::new();
                    let closed = loop {
                        match chars.next() {
                            Some('}') => break true,
                            Some(c) => name.push(c),
                            None => break false,
                        }
                    };
                    if !closed {
                        return Err(format!(
                            "invalid value for '{option}': '{{{name}' is not closed with '}}'"
                        ));
                    }
                    let (name, grouped) = match name.strip_suffix(":,") {
                        Some(name) => (name.to_string(), true),
                        None => (name, false),
                    };
                    let field = FIELDS
                        .iter()
                        .find(|(known, _)| *known == name)
                        .map(|(_, field)| *field)
                        .ok_or_else(|| {
                            let known: Vec<String> = FIELDS
                                .iter()
                                .map(|(known, _)| format!("{{{known}}}"))
                                .collect();
                            format!(
                                "invalid value for '{option}': unknown placeholder '{{{name}}}'; \
                                 known are {}",
                                known.join(", ")
                            )
                        })?;
                    if !literal.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut literal)));
                    }
                    parts.push(Part::Value { field, grouped });
                    continue;
                }
                _ => {
                    literal.push(c);
                    continue;
                }
            }
            // A two-character escape: skip its second character.
            chars.next();
        }
        if !literal.is_empty() {
            parts.push(Part::Text(literal));
        }
        Ok(Template { parts })
    }

    /// Whether the template prints nothing at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Whether the template names `field`.
    pub(crate) fn uses(&self, field: Field) -> bool {
        self.parts
            .iter()
            .any(|part| matches!(part, Part::Value { field: used, .. } if *used == field))
    }

    pub(crate) fn render(&self, values: &Values) -> Vec<u8> {
        let mut out = Vec::new();
        for part in &self.parts {
            match part {
                Part::Text(text) => out.extend_from_slice(text.as_bytes()),
                Part::Value { field, grouped } => {
                    let number = |n: u64| {
                        if *grouped {
                            grouped_digits(n)
                        } else {
                            n.to_string()
                        }
                    };
                    let text = match field {
                        Field::Tokens => {
                            let tilde = if values.tokens_estimated { "~" } else { "" };
                            format!("{tilde}{}", number(values.tokens))
                        }
                        Field::Lines => number(values.lines),
                        Field::Bytes => number(values.bytes),
                        Field::OmittedBytes => number(values.omitted_bytes),
                        Field::OmittedChars => number(values.omitted_chars),
                        // Line 0: no line (a shortened JSON document).
                        Field::OmittedLines => number(if values.first_omitted_line == 0 {
                            0
                        } else {
                            (values.last_omitted_line + 1).saturating_sub(values.first_omitted_line)
                        }),
                        Field::FirstOmittedLine => number(values.first_omitted_line),
                        Field::LastOmittedLine => number(values.last_omitted_line),
                        Field::HiddenMatches => number(values.hidden_matches),
                        Field::Spill => {
                            out.extend_from_slice(&values.spill);
                            continue;
                        }
                        Field::Id => values.id.clone(),
                        Field::Show => values.show.clone(),
                    };
                    out.extend_from_slice(text.as_bytes());
                }
            }
        }
        out
    }
}

/// 74880 as `74,880`.
pub(crate) fn grouped_digits(number: u64) -> String {
    let digits = number.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        let _ = out.write_char(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_escapes_and_grouping() {
        let template = Template::parse(
            "[... {omitted_bytes:,} of {bytes:,} bytes omitted; \
             full output in {spill} ...]\\n{{x}}",
            "--marker",
        )
        .unwrap();
        let values = Values {
            bytes: 74_880,
            omitted_bytes: 61_204,
            spill: b"/tmp/run/out-17.txt".to_vec(),
            ..Values::default()
        };
        assert_eq!(
            String::from_utf8(template.render(&values)).unwrap(),
            "[... 61,204 of 74,880 bytes omitted; full output in /tmp/run/out-17.txt ...]\n{x}"
        );
        assert!(template.uses(Field::Spill));
        assert!(!template.uses(Field::Id));
        assert!(Template::parse("", "--header").unwrap().is_empty());
    }

    #[test]
    fn unknown_and_unclosed_placeholders_are_refused() {
        let err = Template::parse("{bites}", "--marker").unwrap_err();
        assert!(
            err.starts_with(
                "invalid value for '--marker': unknown placeholder '{bites}'; known are {tokens}"
            ),
            "{err}"
        );
        assert!(
            Template::parse("{bytes", "--header")
                .unwrap_err()
                .contains("not closed")
        );
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped_digits(0), "0");
        assert_eq!(grouped_digits(999), "999");
        assert_eq!(grouped_digits(1_000), "1,000");
        assert_eq!(grouped_digits(1_234_567), "1,234,567");
    }
}
