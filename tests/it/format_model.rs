//! The spec's "Formats" section as checks on an output, written from its
//! words alone: what a shortened JSON document must be next to its input,
//! and where a diff's cuts land and what its marker names. The property
//! tests in `formats.rs` run them over real inputs and many budgets.

use serde_json::Value;

/// The header of a cut output and what follows it.
pub fn split_header(output: &[u8]) -> Option<(&[u8], &[u8])> {
    if !output.starts_with(b"Warning: truncated output (original token count: ") {
        return None;
    }
    let end = output.windows(2).position(|w| w == b"\n\n")?;
    Some((&output[..end + 2], &output[end + 2..]))
}

/// The keys an array marker lists, and whether `...` follows them.
type Schema = (Vec<String>, bool);

/// An array marker: its counts k and n, and its schema.
type ItemsMarker = (u64, u64, Option<Schema>);

/// "`[... {k} of {n} items truncated ...]`, with `; objects with keys: a,
/// b` (their union in first-seen order, at most 20, then `, ...`)":
/// (k, n, the schema).
fn items_marker(text: &str) -> Option<ItemsMarker> {
    let inner = text.strip_prefix("[... ")?.strip_suffix(" ...]")?;
    let (counts, schema) = match inner.split_once("; objects with keys: ") {
        Some((counts, keys)) => (counts, Some(keys)),
        None => (inner, None),
    };
    let counts = counts.strip_suffix(" items truncated")?;
    let (k, n) = counts.split_once(" of ")?;
    let schema = schema.map(|keys| {
        let (keys, more) = match keys.strip_suffix("...") {
            Some(rest) => (rest.trim_end_matches(", "), true),
            None => (keys, false),
        };
        let keys = keys
            .split(", ")
            .filter(|k| !k.is_empty())
            .map(String::from)
            .collect();
        (keys, more)
    });
    Some((k.parse().ok()?, n.parse().ok()?, schema))
}

/// "`"[... {k} more keys truncated ...]": null`": k.
fn keys_marker(key: &str) -> Option<u64> {
    key.strip_prefix("[... ")?
        .strip_suffix(" more keys truncated ...]")?
        .parse()
        .ok()
}

/// "start and end with `[... {N} bytes truncated ...]` inside": every
/// (start, N, end) that reads so (the text itself may hold `[... `).
fn string_markers(text: &str) -> Vec<(&str, u64, &str)> {
    text.match_indices("[... ")
        .filter_map(|(open, _)| {
            let rest = &text[open + 5..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let after = rest[digits..].strip_prefix(" bytes truncated ...]")?;
            Some((&text[..open], rest[..digits].parse().ok()?, after))
        })
        .collect()
}

/// Checks that `output` has the shape of `input`: same types and nesting,
/// kept keys among the input's with exact counts, arrays as a first run
/// and a last run of the input's items around one marker whose counts add
/// up, strings whole or start + marker + end. Returns what is wrong.
pub fn same_shape(input: &Value, output: &Value, path: &str) -> Result<(), String> {
    let wrong = |what: String| Err(format!("{path}: {what}"));
    match (input, output) {
        (Value::Object(input), Value::Object(output)) => {
            let mut marker = None;
            for (key, value) in output {
                match (keys_marker(key), input.get(key)) {
                    (Some(k), None) if value.is_null() && marker.is_none() => marker = Some(k),
                    (_, Some(original)) => same_shape(original, value, &format!("{path}.{key}"))?,
                    _ => return wrong(format!("key {key:?} is not the input's")),
                }
            }
            let kept = output.len() as u64 - u64::from(marker.is_some());
            if kept + marker.unwrap_or(0) != input.len() as u64 || marker == Some(0) {
                return wrong(format!("{kept} keys kept + {marker:?} != {}", input.len()));
            }
            Ok(())
        }
        (Value::Array(input), Value::Array(output)) => {
            let markers: Vec<(usize, ItemsMarker)> = output
                .iter()
                .enumerate()
                .filter_map(|(i, v)| v.as_str().and_then(items_marker).map(|m| (i, m)))
                .filter(|(_, (_, n, _))| *n == input.len() as u64)
                .collect();
            let Some((at, (k, n, schema))) = markers.first().cloned() else {
                if input.len() != output.len() {
                    return wrong(format!("{} items, input has {}", output.len(), input.len()));
                }
                for (i, (a, b)) in input.iter().zip(output).enumerate() {
                    same_shape(a, b, &format!("{path}[{i}]"))?;
                }
                return Ok(());
            };
            let back = output.len() - at - 1;
            if at as u64 + back as u64 + k != n || k == 0 {
                return wrong(format!("{at} + {back} kept + {k} truncated != {n}"));
            }
            for i in 0..at {
                same_shape(&input[i], &output[i], &format!("{path}[{i}]"))?;
            }
            for j in 0..back {
                let (from, to) = (input.len() - back + j, at + 1 + j);
                same_shape(&input[from], &output[to], &format!("{path}[{from}]"))?;
            }
            if let Some((listed, more)) = schema {
                let dropped = &input[at..input.len() - back];
                let mut union: Vec<String> = Vec::new();
                for item in dropped {
                    let Value::Object(item) = item else {
                        return wrong("a schema for items that are not all objects".into());
                    };
                    for key in item.keys() {
                        if !union.contains(key) {
                            union.push(key.clone());
                        }
                    }
                }
                // A key that is empty or holds ", " or "..." cannot be told
                // apart in the list (the spec lists keys as they are):
                // such a schema is not checked.
                if union
                    .iter()
                    .any(|key| key.is_empty() || key.contains(", ") || key.contains("..."))
                {
                    return Ok(());
                }
                // serde_json's map sorts keys: compare as sets, and the
                // count and the `...` by the spec's rule.
                let shown = listed.len();
                let all_listed = listed.iter().all(|key| union.contains(key));
                if !all_listed || shown > 20 || more != (union.len() > shown) {
                    return wrong(format!("schema {listed:?} (more: {more}) of {union:?}"));
                }
            }
            Ok(())
        }
        (Value::String(input), Value::String(output)) => {
            if input == output {
                return Ok(());
            }
            let markers = string_markers(output);
            if markers.is_empty() {
                return wrong(format!("string changed without a marker: {output:?}"));
            }
            let stands_for_input = |(start, n, end): &(&str, u64, &str)| {
                *n > 0
                    && input.starts_with(start)
                    && input.ends_with(end)
                    && (start.len() + end.len()) as u64 + n == input.len() as u64
            };
            if !markers.iter().any(stands_for_input) {
                return wrong(format!(
                    "{output:?} does not stand for {} bytes",
                    input.len()
                ));
            }
            Ok(())
        }
        (input, output) if input == output => Ok(()),
        _ => wrong(format!("{output} is not {input}")),
    }
}

/// A unified diff as git prints it, read naively: where each file and
/// each hunk starts, each hunk's line counts, and each file's name.
pub struct Diff {
    /// The start of each file's `diff --git` line.
    pub files: Vec<usize>,
    /// Each file's name: "its `+++` path (else its `---` path ...; git's
    /// `a/` and `b/` dropped)".
    pub names: Vec<String>,
    /// Each hunk: its `@@` line's start, its file (index), and its counts.
    pub hunks: Vec<(usize, usize, (u64, u64))>,
}

/// Reads a git diff, or `git log -p`, or either as cleaning left it: a
/// `@@ ` line is never a hunk's body line, so every one starts a hunk.
pub fn read_diff(text: &[u8]) -> Diff {
    let mut diff = Diff {
        files: Vec::new(),
        names: Vec::new(),
        hunks: Vec::new(),
    };
    let mut at = 0;
    let mut in_header = false;
    for line in text.split_inclusive(|&b| b == b'\n') {
        let path = |prefix: &str| {
            let text = String::from_utf8_lossy(line);
            let path = text.strip_prefix(prefix)?.trim_end_matches('\n');
            (path != "/dev/null").then(|| path.get(2..).unwrap_or(path).to_string())
        };
        if line.starts_with(b"diff --git ") {
            diff.files.push(at);
            // "else the last path of its `diff` line".
            let text = String::from_utf8_lossy(line);
            let last = text
                .trim_end()
                .rsplit_once(" b/")
                .map_or("", |(_, path)| path);
            diff.names.push(last.to_string());
            in_header = true;
        } else if line.starts_with(b"@@ ") {
            let counts = hunk_counts(line).expect("a real @@ line");
            diff.hunks.push((at, diff.files.len() - 1, counts));
            in_header = false;
        } else if let (true, Some(name)) = (in_header, path("--- ").or_else(|| path("+++ "))) {
            // The `+++` line comes second and wins.
            *diff.names.last_mut().expect("a file") = name;
        }
        at += line.len();
    }
    diff
}

/// The marker line for a middle of `bytes` bytes holding `hunks` `@@`
/// lines and parts of the diffs of `files`, in order (a name once for each
/// diff): "A file is counted and named once however many diffs of it the
/// middle holds", the last file named last, the others in the order they
/// first appear ("of up to 11 files, all of them; of more, the first 9,
/// then `{k} more` (k is the count less 10), then the last"); with no file
/// and no hunk, "the plain marker".
pub fn diff_marker(bytes: u64, hunks: usize, files: &[&str]) -> String {
    let Some(last) = files.last() else {
        assert_eq!(hunks, 0, "a hunk is in a file");
        return format!("[... {bytes} bytes truncated ...]\n");
    };
    let mut distinct: Vec<&str> = Vec::new();
    for file in files {
        if !distinct.contains(file) {
            distinct.push(file);
        }
    }
    let mut listed: Vec<String> = distinct
        .iter()
        .filter(|name| *name != last)
        .map(|name| name.to_string())
        .collect();
    if distinct.len() > 11 {
        listed.truncate(9);
        listed.push(format!("{} more", distinct.len() - 10));
    }
    listed.push(last.to_string());
    format!(
        "[... {bytes} bytes truncated: {hunks} hunks in {} files: {} ...]\n",
        distinct.len(),
        listed.join(", ")
    )
}

/// `@@ -a[,b] +c[,d] @@`: (b, d), each 1 when left out.
pub fn hunk_counts(line: &[u8]) -> Option<(u64, u64)> {
    let text = std::str::from_utf8(line).ok()?;
    let ranges = text.strip_prefix("@@ -")?.split(" @@").next()?;
    let (old, new) = ranges.split_once(" +")?;
    let count = |r: &str| r.split_once(',').map_or(Some(1), |(_, c)| c.parse().ok());
    Some((count(old)?, count(new)?))
}

/// Every hunk whose `@@` line is in `part` is whole: the lines after it,
/// up to the next line that cannot be in a hunk, are exactly its counts.
pub fn hunks_are_whole(part: &[u8]) -> Result<(), String> {
    hunks_match_counts(part, false)
}

/// The same for a diff that cleaning may have shortened: a hunk in which a
/// line that cannot be in a hunk comes within its counts "runs on to the
/// next `@@` line or the next file's start", so only whether cuts land on
/// those can tell it is whole (`check_diff` in formats.rs looks).
pub fn cleaned_hunks_are_whole(part: &[u8]) -> Result<(), String> {
    hunks_match_counts(part, true)
}

fn hunks_match_counts(part: &[u8], cleaned: bool) -> Result<(), String> {
    let lines: Vec<&[u8]> = part.split_inclusive(|&b| b == b'\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let Some((mut old, mut new)) = hunk_counts(line).filter(|_| line.starts_with(b"@@ "))
        else {
            continue;
        };
        let mut shortened = false;
        for body in &lines[i + 1..] {
            if old == 0 && new == 0 {
                break;
            }
            match body.first() {
                Some(b' ') => (old, new) = (old.saturating_sub(1), new.saturating_sub(1)),
                Some(b'-') => old = old.saturating_sub(1),
                Some(b'+') => new = new.saturating_sub(1),
                Some(b'\\') => {}
                _ => {
                    shortened = true;
                    break;
                }
            }
        }
        if (old, new) != (0, 0) && !(cleaned && shortened) {
            return Err(format!(
                "hunk {:?} is cut short: {old} old and {new} new lines missing",
                String::from_utf8_lossy(line)
            ));
        }
    }
    Ok(())
}
