//! Shortening a parsed document until it fits a budget, keeping its shape:
//! the same keys (or a marker entry that counts the missing ones), the same
//! nesting, the same types.
//!
//! 1. A value that fits its budget is printed whole.
//! 2. An object keeps all its keys while their smallest forms fit, else its
//!    first keys that do, then `"[... {k} more keys truncated ...]": null`.
//!    Its values share the rest by water-filling: the largest are cut to a
//!    common size and the smaller kept whole, so big containers lose items
//!    before small ones do.
//! 3. An array keeps whole items from its start and its end, alternately,
//!    each side stopping at the first item that does not fit, with one
//!    string between them: `"[... {k} of {n} items truncated ...]"`, adding
//!    `; objects with keys: a, b` when the dropped items are all objects
//!    (their keys' union in first-seen order, at most 20, then `, ...`).
//!    When no item fits whole, the first one is shortened to fit.
//! 4. A string keeps its start and end (half the room each, never splitting
//!    an escape or a character) around `[... {N} bytes truncated ...]`, N
//!    counting the left-out bytes of the decoded text.
//!
//! Every value's smallest form is known beforehand, so each budget handed
//! down is at least what its value needs, and the result never exceeds the
//! budget given at the top.

use super::markers::{json_items_marker, json_keys_marker, json_string_marker};
use super::tree::{Kind, Layout, Tree};

/// The dropped items' keys listed at most.
const SCHEMA_KEYS: usize = 20;

/// The document shortened to at most `budget` bytes, or `None` when even
/// its smallest form is larger.
pub(crate) fn shorten(tree: &Tree, budget: u64) -> Option<Vec<u8>> {
    let mut shortener = Shortener {
        tree,
        layout: tree.layout(),
        out: Vec::new(),
    };
    if shortener.min_size(0, 0) > budget {
        return None;
    }
    shortener.write(0, budget, 0);
    debug_assert!(shortener.out.len() as u64 <= budget);
    Some(shortener.out)
}

struct Shortener<'t> {
    tree: &'t Tree<'t>,
    layout: Layout,
    out: Vec<u8>,
}

/// The keys of dropped objects, for the array marker.
struct Schema<'d> {
    keys: Vec<&'d [u8]>,
    /// More distinct keys exist than `keys` holds.
    more: bool,
}

impl<'t> Shortener<'t> {
    fn fits_whole(&self, index: usize, budget: u64) -> bool {
        self.tree.nodes[index].size != u32::MAX && self.tree.size(index) <= budget
    }

    fn write(&mut self, index: usize, budget: u64, depth: usize) {
        if self.fits_whole(index, budget) {
            return self.write_whole(index, depth);
        }
        match self.tree.kind(index) {
            Kind::Scalar => self.write_whole(index, depth),
            Kind::String => self.write_string(index, budget),
            Kind::Array => self.write_array(index, budget, depth),
            Kind::Object => self.write_object(index, budget, depth),
        }
    }

    /// The smallest form of a value at `depth`.
    fn min_size(&self, index: usize, depth: usize) -> u64 {
        let size = self.tree.size(index);
        let smallest = match self.tree.kind(index) {
            Kind::Scalar => size,
            Kind::String => 2 + json_string_marker(decoded_len(self.inner(index))).len() as u64,
            Kind::Array => {
                let n = self.tree.members(index).count() as u64;
                let marker = quoted_len(&json_items_marker(n, n, None));
                self.layout.frame(depth, 1, marker)
            }
            Kind::Object => {
                let k = self.tree.members(index).count() as u64;
                self.layout.frame(depth, 1, self.keys_marker_element(k))
            }
        };
        let empty = matches!(self.tree.kind(index), Kind::Array | Kind::Object)
            && self.tree.nodes[index].end as usize == index + 1;
        if empty { 2 } else { smallest.min(size) }
    }

    /// A string's text between its quotes.
    fn inner(&self, index: usize) -> &'t [u8] {
        let text = self.tree.text(index);
        &text[1..text.len() - 1]
    }

    fn newline(&mut self, depth: usize) {
        if self.layout.pretty {
            self.out.push(b'\n');
            self.out.resize(self.out.len() + 2 * depth, b' ');
        }
    }

    /// Before the element `position` of a container at `depth`.
    fn element(&mut self, position: usize, depth: usize) {
        if position > 0 {
            self.out.push(b',');
        }
        self.newline(depth + 1);
    }

    fn close(&mut self, close: u8, depth: usize) {
        self.newline(depth);
        self.out.push(close);
    }

    fn write_key(&mut self, key: &[u8]) {
        self.out.extend_from_slice(key);
        self.out
            .extend_from_slice(if self.layout.pretty { b": " } else { b":" });
    }

    fn write_whole(&mut self, index: usize, depth: usize) {
        let kind = self.tree.kind(index);
        if let Kind::Scalar | Kind::String = kind {
            self.out.extend_from_slice(self.tree.text(index));
            return;
        }
        let (open, close) = if kind == Kind::Object {
            (b'{', b'}')
        } else {
            (b'[', b']')
        };
        self.out.push(open);
        let children = self.tree.children(index);
        for (position, &child) in children.iter().enumerate() {
            self.element(position, depth);
            if kind == Kind::Object {
                self.write_key(self.tree.key(child));
            }
            self.write_whole(child, depth + 1);
        }
        if children.is_empty() {
            self.out.push(close);
        } else {
            self.close(close, depth);
        }
    }

    fn write_string(&mut self, index: usize, budget: u64) {
        let raw = self.inner(index);
        let total = decoded_len(raw);
        let room = budget.saturating_sub(2 + json_string_marker(total).len() as u64);
        let (start_room, end_room) = (room / 2, room - room / 2);
        let end_from = (raw.len() as u64).saturating_sub(end_room);
        // The cuts fall between tokens (an escape or a character).
        let (mut cut_start, mut cut_end) = (0, raw.len());
        let (mut decoded_at_start, mut decoded_at_end) = (0, total);
        let mut decoded = 0;
        for (start, end, bytes) in tokens(raw) {
            if end as u64 <= start_room {
                cut_start = end;
                decoded_at_start = decoded + bytes;
            }
            if start as u64 >= end_from && cut_end == raw.len() {
                cut_end = start;
                decoded_at_end = decoded;
            }
            decoded += bytes;
        }
        self.out.push(b'"');
        self.out.extend_from_slice(&raw[..cut_start]);
        let omitted = decoded_at_end.saturating_sub(decoded_at_start);
        self.out
            .extend_from_slice(json_string_marker(omitted).as_bytes());
        self.out.extend_from_slice(&raw[cut_end.max(cut_start)..]);
        self.out.push(b'"');
    }

    /// The union of the keys of `items` if they are all objects (and have
    /// keys), in first-seen order, up to one more than are ever listed.
    fn schema(&self, items: &[usize]) -> Option<Schema<'t>> {
        let mut keys: Vec<&'t [u8]> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for &item in items {
            if self.tree.kind(item) != Kind::Object {
                return None;
            }
            if keys.len() > SCHEMA_KEYS {
                continue;
            }
            for member in self.tree.members(item) {
                let key = self.tree.key(member);
                let key = &key[1..key.len() - 1];
                if seen.insert(key) {
                    keys.push(key);
                }
            }
        }
        if keys.is_empty() {
            return None;
        }
        let more = keys.len() > SCHEMA_KEYS;
        keys.truncate(SCHEMA_KEYS);
        Some(Schema { keys, more })
    }

    /// The marker string (quoted) for `k` of `n` items dropped, listing at
    /// most `shown` keys of the schema.
    fn items_marker(&self, k: u64, n: u64, schema: Option<&Schema>, shown: usize) -> Vec<u8> {
        let listed = schema.map(|schema| {
            let shown = shown.min(schema.keys.len());
            (
                &schema.keys[..shown],
                schema.more || shown < schema.keys.len(),
            )
        });
        let mut marker = b"\"".to_vec();
        marker.extend_from_slice(&json_items_marker(k, n, listed));
        marker.push(b'"');
        marker
    }

    fn write_array(&mut self, index: usize, budget: u64, depth: usize) {
        let items = self.tree.children(index);
        let n = items.len();
        let frame = |count: usize, elements: u64| self.layout.frame(depth, count as u64, elements);
        // Whole items from both ends, alternately, with room for a marker
        // like the one that would list every item, then for the one that
        // lists what is dropped so far.
        let (mut front, mut back, mut used) = (0, 0, 0u64);
        let mut taken: Vec<bool> = Vec::new();
        for pass in 0..2 {
            let dropped = if pass == 0 {
                &items[..]
            } else {
                &items[front..n - back]
            };
            let schema = self.schema(dropped);
            let (mut front_open, mut back_open) = (true, true);
            let mut front_turn = taken.last() != Some(&true);
            while (front_open || back_open) && front + back < n {
                let from_front = if front_open && back_open {
                    front_turn
                } else {
                    front_open
                };
                front_turn = !front_turn;
                let item = if from_front {
                    items[front]
                } else {
                    items[n - 1 - back]
                };
                let size = self.tree.size(item);
                let left = (n - front - back - 1) as u64;
                let reserve = self
                    .items_marker(left, n as u64, schema.as_ref(), SCHEMA_KEYS)
                    .len() as u64;
                if self.fits_whole(item, budget)
                    && frame(front + back + 2, used + size + reserve) <= budget
                {
                    used += size;
                    taken.push(from_front);
                    if from_front { front += 1 } else { back += 1 }
                } else if from_front {
                    front_open = false;
                } else {
                    back_open = false;
                }
            }
        }
        // The real marker, for what is really dropped; give items back
        // while it does not fit.
        let mut marker;
        loop {
            let dropped = &items[front..n - back];
            marker = self.items_marker(
                dropped.len() as u64,
                n as u64,
                self.schema(dropped).as_ref(),
                SCHEMA_KEYS,
            );
            if frame(front + back + 1, used + marker.len() as u64) <= budget || taken.is_empty() {
                break;
            }
            let item = if taken.pop() == Some(true) {
                front -= 1;
                items[front]
            } else {
                back -= 1;
                items[n - 1 - back]
            };
            used -= self.tree.size(item);
        }
        self.out.push(b'[');
        if front + back > 0 {
            for (position, &item) in items[..front].iter().enumerate() {
                self.element(position, depth);
                self.write_whole(item, depth + 1);
            }
            self.element(front, depth);
            self.out.extend_from_slice(&marker);
            for (position, &item) in items[n - back..].iter().enumerate() {
                self.element(front + 1 + position, depth);
                self.write_whole(item, depth + 1);
            }
            return self.close(b']', depth);
        }
        // No item fits whole: the first one, shortened, when its smallest
        // form fits beside the marker for the rest.
        let rest = &items[1..];
        let rest_marker = (!rest.is_empty()).then(|| {
            self.items_marker(
                rest.len() as u64,
                n as u64,
                self.schema(rest).as_ref(),
                SCHEMA_KEYS,
            )
        });
        let marker_len = rest_marker.as_ref().map_or(0, |m| m.len() as u64);
        let first_room =
            budget.saturating_sub(frame(1 + usize::from(rest_marker.is_some()), marker_len));
        if first_room >= self.min_size(items[0], depth + 1) {
            self.element(0, depth);
            self.write(items[0], first_room, depth + 1);
            if let Some(rest_marker) = rest_marker {
                self.element(1, depth);
                self.out.extend_from_slice(&rest_marker);
            }
            return self.close(b']', depth);
        }
        // Only the marker, listing as many keys as fit.
        let schema = self.schema(&items);
        let marker = (0..=SCHEMA_KEYS)
            .rev()
            .map(|shown| self.items_marker(n as u64, n as u64, schema.as_ref(), shown))
            .find(|marker| frame(1, marker.len() as u64) <= budget)
            .unwrap_or_else(|| self.items_marker(n as u64, n as u64, None, 0));
        self.element(0, depth);
        self.out.extend_from_slice(&marker);
        self.close(b']', depth);
    }

    /// `"[... {k} more keys truncated ...]": null` as an element.
    fn keys_marker_element(&self, k: u64) -> u64 {
        quoted_len(json_keys_marker(k).as_bytes()) + self.layout.colon() + 4
    }

    fn write_object(&mut self, index: usize, budget: u64, depth: usize) {
        let members = self.tree.children(index);
        let m = members.len();
        let key_costs: Vec<u64> = members
            .iter()
            .map(|&member| self.tree.key(member).len() as u64 + self.layout.colon())
            .collect();
        let value_mins: Vec<u64> = members
            .iter()
            .map(|&member| self.min_size(member, depth + 1))
            .collect();
        let frame = |count: usize, elements: u64| self.layout.frame(depth, count as u64, elements);
        // The first `kept` members, in their smallest forms, and the marker
        // entry for the rest if they do not all fit.
        let mut smallest = 0;
        let kept;
        let all: u64 = key_costs.iter().zip(&value_mins).map(|(k, v)| k + v).sum();
        let marker = if frame(m, all) <= budget {
            kept = m;
            None
        } else {
            let mut best = None;
            for j in 0..m {
                if frame(j + 1, smallest + self.keys_marker_element((m - j) as u64)) <= budget {
                    best = Some(j);
                }
                smallest += key_costs[j] + value_mins[j];
                if frame(j + 1, smallest) > budget {
                    break;
                }
            }
            let Some(j) = best else {
                // Not even the marker entry alone: the smallest form.
                self.out.push(b'{');
                self.element(0, depth);
                self.write_key(format!("\"{}\"", json_keys_marker(m as u64)).as_bytes());
                self.out.extend_from_slice(b"null");
                return self.close(b'}', depth);
            };
            kept = j;
            Some(m - j)
        };
        let marker_element = marker.map_or(0, |k| self.keys_marker_element(k as u64));
        let count = kept + usize::from(marker.is_some());
        let keys: u64 = key_costs[..kept].iter().sum();
        let room = budget.saturating_sub(frame(count, keys + marker_element));
        // Water-filling: the largest common cap c such that every value
        // gets min(its size, max(c, its smallest form)) within the room.
        let sizes: Vec<u64> = members[..kept]
            .iter()
            .map(|&member| self.tree.size(member))
            .collect();
        let share = |cap: u64| -> u64 {
            sizes
                .iter()
                .zip(&value_mins)
                .map(|(&size, &min)| cap.max(min).min(size))
                .sum()
        };
        let (mut low, mut high) = (0, sizes.iter().copied().max().unwrap_or(0));
        while low < high {
            let mid = low + (high - low).div_ceil(2);
            if share(mid) <= room {
                low = mid
            } else {
                high = mid - 1
            }
        }
        self.out.push(b'{');
        for (position, &member) in members[..kept].iter().enumerate() {
            self.element(position, depth);
            self.write_key(self.tree.key(member));
            let value_budget = low.max(value_mins[position]).min(sizes[position]);
            self.write(member, value_budget, depth + 1);
        }
        if let Some(k) = marker {
            self.element(kept, depth);
            self.write_key(format!("\"{}\"", json_keys_marker(k as u64)).as_bytes());
            self.out.extend_from_slice(b"null");
        }
        self.close(b'}', depth);
    }
}

fn quoted_len(text: &[u8]) -> u64 {
    text.len() as u64 + 2
}

/// The tokens of a string's text: (start, end, decoded UTF-8 bytes), an
/// escape or a character each; a surrogate pair is one token of 4 bytes
/// (a lone surrogate counts 3, as U+FFFD would).
fn tokens(raw: &[u8]) -> impl Iterator<Item = (usize, usize, u64)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let start = at;
        let &byte = raw.get(at)?;
        let (len, bytes) = match byte {
            b'\\' if raw.get(at + 1) == Some(&b'u') => {
                let unit = hex(&raw[at + 2..at + 6]);
                let low = raw
                    .get(at + 6..at + 12)
                    .filter(|next| next.starts_with(b"\\u"))
                    .map(|next| hex(&next[2..]));
                match unit {
                    0xD800..=0xDBFF if low.is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)) => {
                        (12, 4)
                    }
                    0..=0x7F => (6, 1),
                    0x80..=0x7FF => (6, 2),
                    _ => (6, 3),
                }
            }
            b'\\' => (2, 1),
            0..=0x7F => (1, 1),
            0xC0..=0xDF => (2, 2),
            0xE0..=0xEF => (3, 3),
            _ => (4, 4),
        };
        at += len;
        Some((start, at.min(raw.len()), bytes))
    })
}

fn hex(digits: &[u8]) -> u32 {
    digits.iter().fold(0, |value, &digit| {
        value * 16 + char::from(digit).to_digit(16).unwrap_or(0)
    })
}

/// A string's length once decoded, in UTF-8 bytes.
fn decoded_len(raw: &[u8]) -> u64 {
    tokens(raw).map(|(_, _, bytes)| bytes).sum()
}

#[cfg(test)]
mod tests {
    use super::super::tree::parse;
    use super::*;

    /// The whole document, compact or pretty.
    fn print(tree: &Tree) -> Vec<u8> {
        let mut shortener = Shortener {
            tree,
            layout: tree.layout(),
            out: Vec::new(),
        };
        shortener.write_whole(0, 0);
        shortener.out
    }

    fn shortened(doc: &str, pretty: bool, budget: u64) -> String {
        let tree = parse(doc.as_bytes(), pretty).unwrap();
        let out = shorten(&tree, budget).expect("fits");
        assert!(out.len() as u64 <= budget, "{} > {budget}", out.len());
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn decoded_lengths_count_escapes_as_their_characters() {
        assert_eq!(
            decoded_len(br#"a\n\u00e9\u20ac\ud83d\ude00\ud800x"#),
            1 + 1 + 2 + 3 + 4 + 3 + 1
        );
        assert_eq!(decoded_len("é€".as_bytes()), 5);
    }

    #[test]
    fn arrays_keep_both_ends_and_name_the_schema() {
        let items: Vec<String> = (0..100)
            .map(|i| format!(r#"{{"id":{i},"name":"n{i}"}}"#))
            .collect();
        let doc = format!("[{}]", items.join(","));
        let out = shortened(&doc, false, 120);
        assert_eq!(
            out,
            concat!(
                r#"[{"id":0,"name":"n0"},"#,
                r#""[... 98 of 100 items truncated; objects with keys: id, name ...]","#,
                r#"{"id":99,"name":"n99"}]"#
            )
        );
    }

    #[test]
    fn strings_keep_start_and_end() {
        let doc = format!(r#"{{"log":"{}","n":1}}"#, "abcdefghij".repeat(100));
        let out = shortened(&doc, false, 60);
        assert_eq!(
            out,
            r#"{"log":"abcdefg[... 986 bytes truncated ...]defghij","n":1}"#
        );
        // An escape is never split.
        let escaped = format!(r#"["{}"]"#, r"\u00e9".repeat(50));
        let out = shortened(&escaped, false, 46);
        assert_eq!(out, r#"["\u00e9[... 96 bytes truncated ...]\u00e9"]"#);
    }

    #[test]
    fn objects_replace_the_keys_that_do_not_fit() {
        let members: Vec<String> = (0..50).map(|i| format!(r#""key{i}":{i}"#)).collect();
        let doc = format!("{{{}}}", members.join(","));
        let out = shortened(&doc, false, 60);
        assert_eq!(
            out,
            r#"{"key0":0,"key1":1,"[... 48 more keys truncated ...]":null}"#
        );
    }

    #[test]
    fn large_containers_lose_items_before_small_ones() {
        let big: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
        let doc = format!(
            r#"{{"small":[1,2,3],"big":[{}],"tail":"end"}}"#,
            big.join(",")
        );
        let out = shortened(&doc, true, 150);
        assert!(
            out.contains("\"small\": [\n    1,\n    2,\n    3\n  ]"),
            "{out}"
        );
        assert!(out.contains("items truncated ...]"), "{out}");
        assert!(out.ends_with("\"tail\": \"end\"\n}"), "{out}");
    }

    #[test]
    fn the_smallest_forms_and_what_cannot_shrink() {
        let doc = format!("[{}]", "[1,2,3],".repeat(1000) + "[]");
        assert_eq!(
            shortened(&doc, false, 43),
            r#"["[... 1001 of 1001 items truncated ...]"]"#
        );
        assert!(shorten(&parse(b"12345678901234567890", false).unwrap(), 10).is_none());
        let printed = print(&parse(br#"{"a": [ ], "b" :{"c":[1]}}"#, true).unwrap());
        assert_eq!(
            String::from_utf8(printed).unwrap(),
            "{\n  \"a\": [],\n  \"b\": {\n    \"c\": [\n      1\n    ]\n  }\n}"
        );
    }
}
