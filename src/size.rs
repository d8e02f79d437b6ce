//! Parsing of the SIZE, PCT, COUNT and DURATION arguments.
//!
//! Owns the grammars only; it knows nothing about flags or defaults. Every
//! error message states the accepted form (or the limit a value broke) and
//! does not repeat the value: callers say which value, for which option,
//! once (`invalid value '1.5k' for '--max <SIZE>': expected digits ...`).
//! The parsers serve the command line and its profiles (feature `cli`);
//! the library itself takes typed values, and keeps only [`SizeOrPercent`].

use std::time::Duration;

/// The SIZE grammar, as quoted in error messages.
#[cfg(feature = "cli")]
const SIZE_GRAMMAR: &str = "digits with an optional suffix b, k, kb, m, mb, g, gb (powers of 1000) \
     or ki, kib, mi, mib, gi, gib (powers of 1024), e.g. 10k or 4Mi";

/// The DURATION grammar, as quoted in error messages.
#[cfg(feature = "cli")]
const DURATION_GRAMMAR: &str =
    "digits with an optional unit ms, s, m or h (plain digits are seconds), e.g. 500ms or 30s";

/// Parses a byte count such as `10k` (10,000) or `10Ki` (10,240).
#[cfg(feature = "cli")]
pub fn parse_size(text: &str) -> Result<u64, String> {
    let invalid = || format!("expected {SIZE_GRAMMAR}");
    let (digits, suffix) = split_digits(text);
    if digits.is_empty() {
        return Err(invalid());
    }
    let multiplier: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1_000,
        "ki" | "kib" => 1 << 10,
        "m" | "mb" => 1_000_000,
        "mi" | "mib" => 1 << 20,
        "g" | "gb" => 1_000_000_000,
        "gi" | "gib" => 1 << 30,
        _ => return Err(invalid()),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(multiplier))
        .ok_or_else(|| format!("too large: at most {} bytes", u64::MAX))
}

/// A part of the budget: an absolute size or a percentage of `--max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeOrPercent {
    /// A number of bytes.
    Bytes(u64),
    /// A whole percentage of the budget, 0 to 100.
    Percent(u64),
}

impl SizeOrPercent {
    /// Resolves against `max`; a percentage is floor(max * pct / 100).
    pub(crate) fn resolve(self, max: u64) -> u64 {
        match self {
            SizeOrPercent::Bytes(n) => n,
            // u128 because max * pct can overflow u64 for huge budgets.
            SizeOrPercent::Percent(pct) => (u128::from(max) * u128::from(pct) / 100) as u64,
        }
    }
}

/// Parses SIZE or PCT (`20%`, from 0% to 100%).
#[cfg(feature = "cli")]
pub fn parse_size_or_percent(text: &str) -> Result<SizeOrPercent, String> {
    let Some(number) = text.strip_suffix('%') else {
        return parse_size(text).map(SizeOrPercent::Bytes).map_err(|err| {
            match err.strip_prefix("expected ") {
                Some(form) => format!("expected {form}, or a percentage from 0% to 100%"),
                None => err,
            }
        });
    };
    match number.parse::<u64>() {
        Ok(pct) if pct <= 100 && number.bytes().all(|b| b.is_ascii_digit()) => {
            Ok(SizeOrPercent::Percent(pct))
        }
        _ => Err("expected a whole percentage from 0% to 100%, e.g. 20%".into()),
    }
}

/// Parses a DURATION such as `500ms`, `30s`, `5m`, `1h` or `30` (seconds).
#[cfg(feature = "cli")]
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let invalid = || format!("expected {DURATION_GRAMMAR}");
    let (digits, unit) = split_digits(text);
    if digits.is_empty() {
        return Err(invalid());
    }
    let millis_per_unit: u64 = match unit {
        "ms" => 1,
        "" | "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err(invalid()),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(millis_per_unit))
        .map(Duration::from_millis)
        .ok_or_else(|| format!("too large: at most {} ms", u64::MAX))
}

/// Formats a duration in the largest unit that divides it exactly, so the
/// status line repeats what the user most likely typed (`5m`, not `300s`).
pub(crate) fn format_duration(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis == 0 || !millis.is_multiple_of(1000) {
        return format!("{millis}ms");
    }
    let secs = millis / 1000;
    if secs.is_multiple_of(3600) {
        format!("{}h", secs / 3600)
    } else if secs.is_multiple_of(60) {
        format!("{}m", secs / 60)
    } else {
        format!("{secs}s")
    }
}

/// Parses a COUNT: plain digits, such as `100` (for `--tokens`, `--lines`).
#[cfg(feature = "cli")]
pub fn parse_count(text: &str) -> Result<u64, String> {
    let (digits, rest) = split_digits(text);
    if digits.is_empty() || !rest.is_empty() {
        return Err("expected a whole number, e.g. 100".into());
    }
    digits
        .parse()
        .map_err(|_| format!("too large: at most {}", u64::MAX))
}

#[cfg(feature = "cli")]
fn split_digits(text: &str) -> (&str, &str) {
    let end = text.bytes().take_while(u8::is_ascii_digit).count();
    text.split_at(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_use_decimal_and_binary_suffixes() {
        assert_eq!(parse_size("0"), Ok(0));
        assert_eq!(parse_size("17"), Ok(17));
        assert_eq!(parse_size("17b"), Ok(17));
        assert_eq!(parse_size("10k"), Ok(10_000));
        assert_eq!(parse_size("10KB"), Ok(10_000));
        assert_eq!(parse_size("10Ki"), Ok(10_240));
        assert_eq!(parse_size("10kib"), Ok(10_240));
        assert_eq!(parse_size("3m"), Ok(3_000_000));
        assert_eq!(parse_size("3MiB"), Ok(3 << 20));
        assert_eq!(parse_size("2g"), Ok(2_000_000_000));
        assert_eq!(parse_size("2Gi"), Ok(2 << 30));
    }

    #[test]
    fn bad_sizes_state_the_grammar_without_repeating_the_value() {
        for bad in ["", "k", "1.5k", "10QB", "-3", "+3", " 3", "3 k", "10kk"] {
            let err = parse_size(bad).unwrap_err();
            assert_eq!(err, format!("expected {SIZE_GRAMMAR}"), "{bad}");
        }
        let err = parse_size("99999999999999999999").unwrap_err();
        assert!(err.contains("too large"), "{err}");
        assert!(
            parse_size("20000000000g")
                .unwrap_err()
                .contains("too large")
        );
    }

    #[test]
    fn counts_are_plain_whole_numbers() {
        assert_eq!(parse_count("0"), Ok(0));
        assert_eq!(parse_count("100"), Ok(100));
        for bad in ["", "1.5", "1e3", "-1", "+1", "10k", " 1"] {
            assert_eq!(
                parse_count(bad).unwrap_err(),
                "expected a whole number, e.g. 100",
                "{bad}"
            );
        }
        assert!(
            parse_count("99999999999999999999")
                .unwrap_err()
                .contains("too large")
        );
    }

    #[test]
    fn percentages_resolve_with_floor() {
        assert_eq!(parse_size_or_percent("20%"), Ok(SizeOrPercent::Percent(20)));
        assert_eq!(parse_size_or_percent("2k"), Ok(SizeOrPercent::Bytes(2000)));
        assert_eq!(SizeOrPercent::Percent(33).resolve(10), 3);
        assert_eq!(SizeOrPercent::Percent(100).resolve(u64::MAX), u64::MAX);
        for bad in ["101%", "-1%", "%", "1.5%", "x"] {
            assert!(parse_size_or_percent(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_and_their_formatting() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        for bad in ["", "1.5s", "5d", "-1", "s", "5M"] {
            assert!(
                parse_duration(bad).unwrap_err().contains("expected digits"),
                "{bad}"
            );
        }
        assert_eq!(format_duration(Duration::from_millis(500)), "500ms");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1500ms");
        assert_eq!(format_duration(Duration::from_secs(30)), "30s");
        assert_eq!(format_duration(Duration::from_secs(90)), "90s");
        assert_eq!(format_duration(Duration::from_secs(300)), "5m");
        assert_eq!(format_duration(Duration::from_secs(7200)), "2h");
        assert_eq!(format_duration(Duration::ZERO), "0ms");
    }
}
