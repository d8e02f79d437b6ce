//! `--keep`, `--keep-error` and `--keep-errors`: lines of the cut middle
//! that match are kept with `--keep-context` lines around each, served by
//! priority (errors first, the latest first) within their share of the
//! budget (`--keep-max`), which also pays for the markers between them;
//! the matches not shown are counted by class.
//!
//! The middle streams past (bytes the tail ring lets go of), so lines are
//! assembled and picked as they come; only the units that fit, the lines
//! a unit still to come may reach, and one unfinished line are held.

use std::cmp::Reverse;
use std::collections::{BTreeMap, VecDeque};

use memchr::{memchr, memchr_iter, memrchr};

use crate::line_match::{ErrorWords, LineMatch};

/// Lines longer than this (or than the budget) are matched on their first
/// bytes only; they could not be kept anyway.
const MATCHED_PREFIX: usize = 64 * 1024;

/// `ESC[0m`, which a marker line may start with (see render/text.rs): a
/// gap no longer than its marker line with it is printed as it is.
pub(crate) const RESET_LEN: u64 = 4;

/// What to keep from the middle.
#[derive(Clone, Debug)]
pub(crate) struct KeepRules {
    /// The lines that match, of either class (`--fold` never folds them).
    pub(crate) lines: LineMatch,
    /// `--keep`'s patterns.
    pub(crate) others: Option<LineMatch>,
    /// Those of them that are errors by `--keep-error`.
    pub(crate) errors: Option<LineMatch>,
    /// `--keep-errors`: its words, which do not count inside a file name.
    pub(crate) error_words: Option<ErrorWords>,
    /// Lines kept before and after each match.
    pub(crate) context: usize,
    /// Bytes the kept lines and their markers may use in all.
    pub(crate) budget: u64,
    /// The longest a marker line can be (see [`Picker`]); set once the
    /// spill file's name is known.
    pub(crate) marker: u64,
}

impl KeepRules {
    /// How much of a line is held: enough to keep it whole if it fits, and
    /// to match it.
    fn line_limit(&self) -> usize {
        usize::try_from(self.budget.max(self.marker))
            .unwrap_or(usize::MAX)
            .saturating_add(1)
            .max(MATCHED_PREFIX)
    }

    /// The class of a line, if it matches.
    fn class(&self, line: &[u8]) -> Option<Class> {
        if !self.lines.matches(line) {
            return None;
        }
        let error = self
            .errors
            .as_ref()
            .is_some_and(|errors| errors.matches(line))
            || self
                .error_words
                .as_ref()
                .is_some_and(|words| words.said_by(line));
        if error {
            return Some(Class::Error);
        }
        // Matched by `--keep` then, or only by error words in a file name.
        let others = self
            .others
            .as_ref()
            .is_some_and(|others| others.matches(line));
        others.then_some(Class::Other)
    }
}

/// A whole line of the middle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MiddleLine {
    /// Its offset in the capped stream.
    pub(crate) start: u64,
    /// Its length (the bytes may be only the first part of a long line).
    pub(crate) len: u64,
    pub(crate) bytes: Vec<u8>,
    /// The raw lines it stands for.
    pub(crate) raw: (u64, u64),
}

/// What the picker kept: the lines in order, and the matches not shown
/// by class.
#[derive(Debug, Default)]
pub(crate) struct Picked {
    pub(crate) lines: Vec<MiddleLine>,
    pub(crate) hidden_errors: u64,
    pub(crate) hidden_others: u64,
}

/// Which class a match belongs to: errors are served first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Class {
    /// `--keep-errors`, `--keep-error`: the lines that say what failed.
    Error = 0,
    /// `--keep`: everything else worth a look.
    Other = 1,
}

/// A match with its context, as it would be shown: `core` (its lines)
/// and `hold`, `core` widened by the lines within a marker's length on
/// each side, held so that a gap shorter than its marker can be printed
/// as it is.
#[derive(Clone, Copy, Debug)]
struct Unit {
    core: (u64, u64),
    hold: (u64, u64),
}

/// A line the picker holds, with how many units hold it and how many
/// have it in their core.
#[derive(Debug)]
struct Held {
    line: MiddleLine,
    holds: u32,
    cores: u32,
}

/// Chooses the middle lines to keep, offered one by one in order.
///
/// 1. Each matching line of the middle is a unit with its context:
///    lines at distance 1, 2, ... up to `context`, the side before first
///    at equal distances, each side stopping at the first line that would
///    make the unit longer than the budget less one `marker` (a match
///    longer than the budget has no unit and is not shown).
/// 2. Units are served by priority: errors before the others, and within
///    a class the one nearest the tail first. They are taken in that
///    order while what they cost fits the budget; the first that does not
///    fit, and every unit after it, is not shown (counted by class).
/// 3. What a set of units costs is what it prints of the middle: the
///    bytes of the lines of their cores, and for each gap between two
///    runs of those lines (and between the head and the first run) the
///    gap's bytes if it is no longer than `marker` (it is printed as it
///    is), `marker` otherwise. The gap before the tail is free when
///    longer than `marker` (the one marker a cut has anyway), and the gap
///    after a head cut that splits a line costs `marker`.
///
/// Costs only grow as units are added, so the units held are always the
/// longest prefix, in priority order, of the units seen so far that fits:
/// a new unit goes in, then the last in priority order go out until the
/// rest fits. Memory is bounded by the budget: the lines held are those
/// of units that fit, with a marker's length of lines around each.
#[derive(Debug)]
struct Picker {
    context: usize,
    budget: u64,
    marker: u64,
    /// Where the middle starts, and whether a line split there.
    from: u64,
    split_at_from: bool,
    /// The recent lines: those a unit still to come may reach.
    window: VecDeque<MiddleLine>,
    /// The number of the window's first line.
    window_from: u64,
    /// The matches waiting for the lines after them, by number.
    undecided: VecDeque<(u64, Class)>,
    /// The units that fit, by priority (the lowest last).
    units: BTreeMap<(Class, Reverse<u64>), Unit>,
    held: BTreeMap<u64, Held>,
    /// The lines in some core, by number: their offsets and raw lines.
    covered: BTreeMap<u64, (u64, u64)>,
    /// What the units cost, but for the gap before the tail.
    cost: u64,
    /// Matches not shown, by class.
    hidden: [u64; 2],
    /// The first unit in priority order that did not fit: no unit after
    /// it is shown.
    blocked: Option<(Class, Reverse<u64>)>,
}

impl Picker {
    fn new(rules: &KeepRules, from: u64, split_at_from: bool) -> Picker {
        Picker {
            context: rules.context,
            budget: rules.budget,
            marker: rules.marker,
            from,
            split_at_from,
            window: VecDeque::new(),
            window_from: 0,
            undecided: VecDeque::new(),
            units: BTreeMap::new(),
            held: BTreeMap::new(),
            covered: BTreeMap::new(),
            cost: 0,
            hidden: [0; 2],
            blocked: None,
        }
    }

    /// Offers the next line, and its class if it matches.
    fn offer(&mut self, line: MiddleLine, class: Option<Class>, number: u64) {
        if number != self.window_from + self.window.len() as u64 {
            // Lines were skipped (no match waited): those before them are
            // out of any unit's reach.
            debug_assert!(self.undecided.is_empty());
            self.window.clear();
            self.window_from = number;
        }
        if let Some(class) = class {
            self.undecided.push_back((number, class));
        }
        self.window.push_back(line);
        self.decide(false);
    }

    /// The window's line `number`.
    fn line(&self, number: u64) -> &MiddleLine {
        &self.window[(number - self.window_from) as usize]
    }

    fn end(line: &MiddleLine) -> u64 {
        line.start + line.len
    }

    /// Decides every match whose lines after it have all arrived (all of
    /// them once `ended`), then lets go of the lines no unit can reach.
    fn decide(&mut self, ended: bool) {
        while let Some(&(number, class)) = self.undecided.front() {
            let last = self.window_from + self.window.len() as u64 - 1;
            let context_end = number.saturating_add(self.context as u64);
            // The side after reaches `context` lines, or the budget's
            // bytes, then a marker's length of lines to hold.
            let after = Self::end(self.line(last)) - Self::end(self.line(number));
            let arrived = after > self.budget.saturating_add(self.marker)
                || (context_end < last
                    && Self::end(self.line(last)) - Self::end(self.line(context_end))
                        > self.marker);
            if !(ended || arrived) {
                break;
            }
            self.undecided.pop_front();
            self.unit(number, class);
        }
        // A unit to come starts at the first undecided match or later;
        // it reaches `context` lines back, then a marker's length.
        let next = self.undecided.front().map_or(
            self.window_from + self.window.len() as u64,
            |&(number, _)| number,
        );
        let window_end = self.window_from + self.window.len() as u64;
        let context_from = next
            .saturating_sub(self.context as u64)
            .max(self.window_from);
        let reach_start = if context_from < window_end {
            // No unit is longer than the budget either.
            let next_start = self
                .window
                .get((next - self.window_from) as usize)
                .map_or_else(
                    || self.window.back().map_or(0, Self::end),
                    |line| line.start,
                );
            self.line(context_from)
                .start
                .max(next_start.saturating_sub(self.budget))
        } else {
            match self.window.back() {
                Some(last) => Self::end(last),
                None => return,
            }
        };
        let reach = reach_start.saturating_sub(self.marker);
        let keep_from = self.window.partition_point(|line| line.start < reach);
        self.drop_front(keep_from);
    }

    fn drop_front(&mut self, count: usize) {
        self.window.drain(..count);
        self.window_from += count as u64;
    }

    /// The unit of the match `number`, put in if it fits.
    fn unit(&mut self, number: u64, class: Class) {
        let matched = self.line(number).len;
        let key = (class, Reverse(number));
        if matched > self.budget || self.blocked.is_some_and(|blocked| key > blocked) {
            self.hidden[class as usize] += 1;
            return;
        }
        let first = self.window_from;
        let last = self.window_from + self.window.len() as u64 - 1;
        let (mut lo, mut hi, mut used) = (number, number, matched);
        // Context leaves room for the marker before the unit.
        let limit = self.budget.saturating_sub(self.marker);
        let room = |used: u64, line: &MiddleLine| used.saturating_add(line.len) <= limit;
        let (mut before_open, mut after_open) = (true, true);
        for _ in 0..self.context {
            if before_open {
                before_open = lo > first && room(used, self.line(lo - 1));
                if before_open {
                    lo -= 1;
                    used += self.line(lo).len;
                }
            }
            if after_open {
                after_open = hi < last && room(used, self.line(hi + 1));
                if after_open {
                    hi += 1;
                    used += self.line(hi).len;
                }
            }
            if !before_open && !after_open {
                break;
            }
        }
        // Whole lines within a marker's length on each side.
        let core_start = self.line(lo).start;
        let hold_lo = self
            .window
            .partition_point(|line| line.start < core_start.saturating_sub(self.marker));
        let hold_lo = (self.window_from + hold_lo as u64).min(lo);
        let core_end = Self::end(self.line(hi));
        let mut hold_hi = hi;
        while hold_hi < last && Self::end(self.line(hold_hi + 1)) - core_end <= self.marker {
            hold_hi += 1;
        }
        let unit = Unit {
            core: (lo, hi),
            hold: (hold_lo, hold_hi),
        };
        // The held lines of the range count one unit more; the others
        // come from the window.
        let mut next = hold_lo;
        let mut missing = Vec::new();
        for (&at, held) in self.held.range_mut(hold_lo..=hold_hi) {
            missing.extend(next..at);
            held.holds += 1;
            next = at + 1;
        }
        missing.extend(next..=hold_hi);
        for at in missing {
            let line = self.line(at).clone();
            self.held.insert(
                at,
                Held {
                    line,
                    holds: 1,
                    cores: 0,
                },
            );
        }
        let mut newly = Vec::new();
        for (&at, held) in self.held.range_mut(lo..=hi) {
            held.cores += 1;
            if held.cores == 1 {
                newly.push(at);
            }
        }
        for at in newly {
            self.cover(at);
        }
        self.units.insert(key, unit);
        self.fit(None);
    }

    /// Lets the last units in priority order go until the rest fits, the
    /// gap before the tail counted as `tail` says.
    fn fit(&mut self, tail: Option<&dyn Fn(&Picker) -> u64>) {
        while self.cost + tail.map_or(0, |tail| tail(self)) > self.budget && !self.units.is_empty()
        {
            self.evict_last();
        }
    }

    /// Lets the last unit in priority order go.
    fn evict_last(&mut self) {
        let Some((key, unit)) = self.units.pop_last() else {
            return;
        };
        self.hidden[key.0 as usize] += 1;
        self.blocked = Some(self.blocked.map_or(key, |blocked| blocked.min(key)));
        let mut uncovered = Vec::new();
        for (&at, held) in self.held.range_mut(unit.core.0..=unit.core.1) {
            held.cores -= 1;
            if held.cores == 0 {
                uncovered.push(at);
            }
        }
        for at in uncovered {
            self.uncover(at);
        }
        let mut gone = Vec::new();
        for (&at, held) in self.held.range_mut(unit.hold.0..=unit.hold.1) {
            held.holds -= 1;
            if held.holds == 0 {
                gone.push(at);
            }
        }
        for at in gone {
            self.held.remove(&at);
        }
    }

    /// What a gap from `end` (of a run, or the head) to `start` (of the
    /// next run) costs.
    fn gap(&self, end: Option<u64>, start: u64) -> u64 {
        match end {
            None if self.split_at_from => self.marker,
            None => (start - self.from).min(self.marker),
            Some(end) => (start - end).min(self.marker),
        }
    }

    /// Line `at` is in a core now, and was in none.
    fn cover(&mut self, at: u64) {
        let Some(held) = self.held.get(&at) else {
            return;
        };
        let (start, end) = (held.line.start, held.line.start + held.line.len);
        let before = self
            .covered
            .range(..at)
            .next_back()
            .map(|(_, &(_, end))| end);
        let after = self
            .covered
            .range(at + 1..)
            .next()
            .map(|(_, &(start, _))| start);
        if let Some(after) = after {
            self.cost -= self.gap(before, after);
            self.cost += self.gap(Some(end), after);
        }
        self.cost += self.gap(before, start) + (end - start);
        self.covered.insert(at, (start, end));
    }

    /// Line `at` is in no core any more.
    fn uncover(&mut self, at: u64) {
        let Some((start, end)) = self.covered.remove(&at) else {
            return;
        };
        let before = self
            .covered
            .range(..at)
            .next_back()
            .map(|(_, &(_, end))| end);
        let after = self
            .covered
            .range(at + 1..)
            .next()
            .map(|(_, &(start, _))| start);
        self.cost -= self.gap(before, start) + (end - start);
        if let Some(after) = after {
            self.cost -= self.gap(Some(end), after);
            self.cost += self.gap(before, after);
        }
    }

    /// Whether a match waits for the lines after it.
    fn waiting(&self) -> bool {
        !self.undecided.is_empty()
    }

    /// The kept lines in order, gaps printed as they are filled in, and
    /// the matches not shown by class. The middle ends at `to`, after
    /// whole lines or not (`split_at_to`); `marker_len` is the length of
    /// a gap's marker line, from its bytes and raw lines.
    ///
    /// The units that fit by `marker` fit by the markers' real lengths
    /// too, unless a number in them has more than 12 digits or the spill
    /// failed (its reason can be long): then the last in priority order
    /// go until the real lengths fit.
    fn into_picked(
        mut self,
        to: u64,
        split_at_to: bool,
        marker_len: &dyn Fn(u64, u64, u64) -> u64,
    ) -> Picked {
        self.decide(true);
        let marker = self.marker;
        let tail = move |picker: &Picker| match picker.covered.last_key_value() {
            Some((_, &(_, end))) if !split_at_to && to - end <= marker => to - end,
            _ => 0,
        };
        self.fit(Some(&tail));
        loop {
            let (lines, cost) = self.assemble(to, split_at_to, marker_len);
            if cost <= self.budget || self.units.is_empty() {
                return Picked {
                    lines,
                    hidden_errors: self.hidden[Class::Error as usize],
                    hidden_others: self.hidden[Class::Other as usize],
                };
            }
            self.evict_last();
        }
    }

    /// The lines shown, and what they and the markers between them print
    /// (all but the last marker). A gap between two kept runs, or from
    /// the head or to the tail, is printed as it is when every line of it
    /// is held and it is no longer than its marker line (counting a style
    /// reset).
    fn assemble(
        &self,
        to: u64,
        split_at_to: bool,
        marker_len: &dyn Fn(u64, u64, u64) -> u64,
    ) -> (Vec<MiddleLine>, u64) {
        // A marker line's length; a gap's line numbers are those next to
        // it, which have at least as many digits as the first of it.
        let marker_of = |bytes: u64, raw: u64| marker_len(bytes, raw, raw) + RESET_LEN;
        let mut lines: Vec<MiddleLine> = Vec::new();
        let mut markers = Vec::new();
        // The held lines since the last kept one, while they follow it
        // (or the head) without a line missing.
        let mut gap: Vec<&MiddleLine> = Vec::new();
        let mut follows = !self.split_at_from;
        let mut next = None;
        let mut printed = 0;
        for (&number, held) in &self.held {
            let line = &held.line;
            follows = follows
                && match next {
                    Some(next) => next == number,
                    None => line.start == self.from,
                };
            next = Some(number + 1);
            if held.cores == 0 {
                gap.push(line);
                continue;
            }
            let gap_start = lines.last().map_or(self.from, Self::end);
            let bytes = line.start - gap_start;
            if bytes > 0 {
                let marker = marker_of(bytes, line.raw.0.saturating_sub(1));
                if follows && bytes <= marker {
                    lines.extend(gap.iter().map(|&line| line.clone()));
                    printed += bytes;
                } else {
                    markers.push(marker);
                }
            }
            gap.clear();
            printed += line.len;
            lines.push(line.clone());
            follows = true;
        }
        if let Some(last) = lines.last() {
            let bytes = to - Self::end(last);
            let ends_at_to = gap.last().is_some_and(|&line| Self::end(line) == to);
            if bytes > 0 {
                let marker = marker_of(bytes, last.raw.1 + 1);
                if follows && !split_at_to && ends_at_to && bytes <= marker {
                    lines.extend(gap.iter().map(|&line| line.clone()));
                    printed += bytes;
                } else {
                    markers.push(marker);
                }
            }
        }
        // The last marker is the one a cut has anyway.
        markers.pop();
        (lines, printed + markers.iter().sum::<u64>())
    }
}

/// Picks lines from the middle as its bytes arrive in order, from an
/// offset `from` on: assembles them and offers them to a [`Picker`].
///
/// Between matches it skips: the matcher names the first place a match
/// could start, the whole lines before it cannot match, and of those only
/// the last `context` can still be kept (as context before a match), so
/// the rest are only counted.
#[derive(Debug)]
pub(crate) struct Picking {
    picker: Picker,
    /// Lines starting before this are not in the middle.
    from: u64,
    /// The line being assembled: its first bytes (up to `limit`) and
    /// length, its offset and its number in the capped stream.
    partial: Vec<u8>,
    partial_len: u64,
    start: u64,
    number: u64,
    limit: usize,
    /// Reused by the matcher's search.
    scratch: Vec<u8>,
    /// Whether the last line that is not blank was an error match: a
    /// `--keep` match under it (blank lines between) is served as an error
    /// (cargo's ` --> ` location under its `error[E0308]`, pytest's
    /// `test_x.py:12: AssertionError` a blank line under its `E` lines).
    after_error: bool,
}

impl Picking {
    /// Starts at `from`, where line `number` of the capped stream starts
    /// (or continues: then `so_far` is what came before `from`).
    pub(crate) fn new(rules: &KeepRules, from: u64, number: u64, so_far: &[u8]) -> Picking {
        let mut picking = Picking {
            picker: Picker::new(rules, from, !so_far.is_empty()),
            from,
            partial: Vec::new(),
            partial_len: 0,
            start: from - so_far.len() as u64,
            number,
            limit: rules.line_limit(),
            scratch: Vec::new(),
            after_error: false,
        };
        picking.hold(so_far);
        picking
    }

    /// `above`, the whole lines before the line that holds the middle's
    /// start, for [`Picking::after_error`]: the last of them that is not
    /// blank.
    pub(crate) fn after(&mut self, rules: &KeepRules, above: &[u8]) {
        let mut end = above.len();
        while end > 0 {
            let start = memrchr(b'\n', &above[..end - 1]).map_or(0, |p| p + 1);
            let line = &above[start..end];
            if !is_blank(line) {
                self.after_error = rules.class(line) == Some(Class::Error);
                return;
            }
            end = start;
        }
    }

    /// Whether the line after `line`, whose own match was `matched`, is
    /// under an error line.
    fn under_error(&self, matched: Option<Class>, line: &[u8]) -> bool {
        match matched {
            Some(Class::Error) => true,
            None if is_blank(line) => self.after_error,
            _ => false,
        }
    }

    fn hold(&mut self, bytes: &[u8]) {
        let room = self.limit.saturating_sub(self.partial.len());
        self.partial
            .extend_from_slice(&bytes[..room.min(bytes.len())]);
        self.partial_len += bytes.len() as u64;
    }

    /// The line held so far, whole now; `raw` gives the raw lines behind
    /// a line number.
    fn complete(&mut self, rules: &KeepRules, may_match: bool, raw: impl Fn(u64) -> (u64, u64)) {
        let mut line = MiddleLine {
            start: self.start,
            len: self.partial_len,
            bytes: std::mem::take(&mut self.partial),
            raw: raw(self.number),
        };
        self.start += self.partial_len;
        self.partial_len = 0;
        let matched = if may_match {
            rules.class(&line.bytes)
        } else {
            None
        };
        if line.start < self.from {
            // The line the head cut ends in: above the middle.
            self.after_error = self.under_error(matched, &line.bytes);
        } else {
            let class = match matched {
                Some(Class::Other) if self.after_error => Some(Class::Error),
                matched => matched,
            };
            self.after_error = self.under_error(matched, &line.bytes);
            if line.len > rules.budget.max(rules.marker) {
                // It can be neither kept nor printed in a gap: only its
                // length matters now.
                line.bytes = Vec::new();
            }
            self.picker.offer(line, class, self.number);
        }
        self.number += 1;
    }

    /// Feeds `bytes`, the next of the middle.
    pub(crate) fn feed(
        &mut self,
        rules: &KeepRules,
        mut bytes: &[u8],
        raw: impl Fn(u64) -> (u64, u64),
    ) {
        loop {
            if self.partial_len == 0 && !self.picker.waiting() {
                bytes = self.skip(rules, bytes, &raw);
            }
            let Some(end) = memchr(b'\n', bytes) else {
                self.hold(bytes);
                return;
            };
            self.hold(&bytes[..=end]);
            self.complete(rules, true, &raw);
            bytes = &bytes[end + 1..];
        }
    }

    /// Goes past the whole lines at the start of `bytes` that cannot
    /// match; what is left starts with the line where a match may be.
    fn skip<'a>(
        &mut self,
        rules: &KeepRules,
        bytes: &'a [u8],
        raw: impl Fn(u64) -> (u64, u64),
    ) -> &'a [u8] {
        let searched = match rules.lines.candidate(bytes, &mut self.scratch) {
            Some(at) => &bytes[..at],
            None => bytes,
        };
        let clean = memrchr(b'\n', searched).map_or(0, |end| end + 1);
        // The last `context` lines of the clean ones are offered, as
        // lines that do not match; those before them only counted.
        let mut context_from = clean;
        for _ in 0..self.picker.context {
            if context_from == 0 {
                break;
            }
            context_from = memrchr(b'\n', &bytes[..context_from - 1]).map_or(0, |end| end + 1);
        }
        // And the lines within a marker's length before those, which a
        // gap printed as it is may need.
        while context_from > 0 {
            let earlier = memrchr(b'\n', &bytes[..context_from - 1]).map_or(0, |end| end + 1);
            let context_start = context_from.min(clean);
            if (context_start - earlier) as u64 > self.picker.marker {
                break;
            }
            context_from = earlier;
        }
        let (counted, offered) = (&bytes[..context_from], &bytes[context_from..clean]);
        if !is_blank(counted) {
            self.after_error = false;
        }
        self.start += counted.len() as u64;
        self.number += memchr_iter(b'\n', counted).count() as u64;
        for line in offered.split_inclusive(|&byte| byte == b'\n') {
            self.hold(line);
            self.complete(rules, false, &raw);
        }
        &bytes[clean..]
    }

    /// The middle ends at the end of what was fed; `at_end`: so does the
    /// stream, and a last line without `\n` is whole too. `marker_len`
    /// gives a gap's marker line length (see [`Picker::into_picked`]).
    pub(crate) fn finish(
        mut self,
        rules: &KeepRules,
        at_end: bool,
        raw: impl Fn(u64) -> (u64, u64),
        marker_len: &dyn Fn(u64, u64, u64) -> u64,
    ) -> Picked {
        let to = self.start + self.partial_len;
        let split_at_to = !at_end && self.partial_len > 0 && self.start >= self.from;
        if at_end && self.partial_len > 0 {
            self.complete(rules, true, raw);
        }
        self.picker.into_picked(to, split_at_to, marker_len)
    }
}

/// Whether `bytes` are whitespace only (a blank line, or none).
fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The length every marker line has in these tests.
    const MARKER: u64 = 10;

    /// `ERROR` lines are errors, `WARN` lines the other class.
    fn rules(context: usize, budget: u64) -> KeepRules {
        KeepRules {
            lines: LineMatch::new(&["ERROR", "WARN"]).unwrap(),
            others: Some(LineMatch::new(&["WARN"]).unwrap()),
            errors: Some(LineMatch::new(&["ERROR"]).unwrap()),
            error_words: None,
            context,
            budget,
            marker: MARKER + RESET_LEN,
        }
    }

    fn pick_in_pieces(rules: &KeepRules, text: &str, piece: usize) -> (Vec<u64>, u64, u64) {
        let mut picking = Picking::new(rules, 0, 1, b"");
        for bytes in text.as_bytes().chunks(piece.max(1)) {
            picking.feed(rules, bytes, |number| (number, number));
        }
        let picked = picking.finish(rules, true, |number| (number, number), &|_, _, _| MARKER);
        let starts = picked.lines.iter().map(|line| line.start).collect();
        (starts, picked.hidden_errors, picked.hidden_others)
    }

    fn pick(rules: &KeepRules, text: &str) -> Vec<String> {
        let mut picking = Picking::new(rules, 0, 1, b"");
        picking.feed(rules, text.as_bytes(), |number| (number, number));
        let picked = picking.finish(rules, true, |number| (number, number), &|_, _, _| MARKER);
        picked
            .lines
            .iter()
            .map(|line| String::from_utf8_lossy(&line.bytes).into_owned())
            .collect()
    }

    #[test]
    fn matching_lines_with_their_context() {
        let text =
            "a\nb\nERROR 1\nc long enough to be cut\nd long enough to be cut\ne\nERROR 2\nf\n";
        // The gaps of 4 bytes from the head and 2 to the tail are shorter
        // than a marker, the one of 50 in the middle is not.
        assert_eq!(
            pick(&rules(0, 100), text),
            ["a\n", "b\n", "ERROR 1\n", "ERROR 2\n", "f\n"]
        );
        assert_eq!(
            pick(&rules(1, 100), text)[..4],
            ["a\n", "b\n", "ERROR 1\n", "c long enough to be cut\n"]
        );
    }

    #[test]
    fn errors_first_and_the_latest_first() {
        let line = |word: &str, n: usize| format!("{word} {n:03} {}\n", "x".repeat(20));
        let mut text = String::new();
        for n in 0..5 {
            text += &line("ERROR", n);
            text += &"filler line that is long\n".repeat(2);
            text += &line("WARN", n);
            text += &"filler line that is long\n".repeat(2);
        }
        // Each match is 30 bytes, each gap 50: a budget of 100 holds
        // two errors, with the gap from the head charged as a marker.
        let kept = pick(&rules(0, 100), &text);
        assert_eq!(kept, [line("ERROR", 3), line("ERROR", 4)]);
        let (_, errors, others) = pick_in_pieces(&rules(0, 100), &text, 7);
        assert_eq!((errors, others), (3, 5));
    }

    /// The rule of [`Picker`] read literally, on a whole text: the kept
    /// lines' starts and the matches not shown by class.
    fn naive(lines: &[&str], context: usize, budget: u64) -> (Vec<u64>, u64, u64) {
        let marker = MARKER + RESET_LEN;
        let starts: Vec<u64> = (0..=lines.len())
            .map(|at| lines[..at].concat().len() as u64)
            .collect();
        let len = |at: usize| lines[at].len() as u64;
        let mut hidden = [0u64; 2];
        let mut units = Vec::new();
        let is_error = |at: usize| lines[at].contains("ERROR");
        // "A `--keep` match under an error line, blank lines between, is
        // an error."
        let under_error = |at: usize| {
            let above = lines[..at].iter().rposition(|line| !line.trim().is_empty());
            above.is_some_and(is_error)
        };
        for (at, line) in lines.iter().enumerate() {
            let class = if is_error(at) || line.contains("WARN") && under_error(at) {
                Class::Error
            } else if line.contains("WARN") {
                Class::Other
            } else {
                continue;
            };
            if len(at) > budget {
                hidden[class as usize] += 1;
                continue;
            }
            let (mut lo, mut hi, mut used) = (at, at, len(at));
            let limit = budget.saturating_sub(marker);
            let (mut before, mut after) = (true, true);
            for _ in 0..context {
                before = before && lo > 0 && used + len(lo - 1) <= limit;
                if before {
                    lo -= 1;
                    used += len(lo);
                }
                after = after && hi + 1 < lines.len() && used + len(hi + 1) <= limit;
                if after {
                    hi += 1;
                    used += len(hi);
                }
            }
            units.push((class, Reverse(at), lo, hi));
        }
        units.sort();
        let covered = |taken: &[(Class, Reverse<usize>, usize, usize)]| {
            let mut covered = vec![false; lines.len()];
            for &(_, _, lo, hi) in taken {
                covered[lo..=hi].iter_mut().for_each(|c| *c = true);
            }
            covered
        };
        let cost = |covered: &[bool]| {
            let mut cost = 0;
            let mut end = None;
            for at in (0..lines.len()).filter(|&at| covered[at]) {
                let gap = starts[at] - end.unwrap_or(0);
                cost += gap.min(marker) + len(at);
                end = Some(starts[at + 1]);
            }
            let last = starts[lines.len()] - end.unwrap_or(starts[lines.len()]);
            cost + if last <= marker { last } else { 0 }
        };
        let mut taken = 0;
        while taken < units.len() && cost(&covered(&units[..=taken])) <= budget {
            taken += 1;
        }
        for &(class, ..) in &units[taken..] {
            hidden[class as usize] += 1;
        }
        let mut shown = covered(&units[..taken]);
        // Gaps no longer than a marker are printed as they are.
        let kept: Vec<usize> = (0..lines.len()).filter(|&at| shown[at]).collect();
        if let (Some(&first), Some(&last)) = (kept.first(), kept.last()) {
            let mut bounds = vec![(0, first)];
            bounds.extend(kept.windows(2).map(|pair| (pair[0] + 1, pair[1])));
            bounds.push((last + 1, lines.len()));
            for (from, to) in bounds {
                if from < to && starts[to] - starts[from] <= marker {
                    shown[from..to].iter_mut().for_each(|s| *s = true);
                }
            }
        }
        let kept = (0..lines.len())
            .filter(|&at| shown[at])
            .map(|at| starts[at])
            .collect();
        (kept, hidden[0], hidden[1])
    }

    proptest::proptest! {
        /// The picker holds only what may still be shown, and feeds
        /// arrive in pieces; neither may change what is kept.
        #[test]
        fn the_picker_keeps_what_the_naive_rule_keeps(
            lines in proptest::collection::vec(
                proptest::sample::select(vec![
                    "ERROR\n", "ERROR long one\n", "WARN\n", "WARN a longer warning\n",
                    "a\n", "bb\n", "long line\n", "a much longer line of filler\n",
                ]),
                0..40,
            ),
            context in 0usize..5,
            budget in 0u64..120,
            piece in 1usize..30,
        ) {
            let rules = rules(context, budget);
            let text = lines.concat();
            proptest::prop_assert_eq!(
                pick_in_pieces(&rules, &text, piece),
                naive(&lines, context, budget)
            );
        }
    }

    /// Dense matches with a large context cost what their units span,
    /// which the budget bounds, not what the context says.
    #[test]
    fn dense_matches_with_a_large_context_stay_fast() {
        let rules = rules(100_000, 1_000);
        let started = std::time::Instant::now();
        let (kept, errors, _) = pick_in_pieces(&rules, &"ERROR\n".repeat(20_000), 4096);
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
        // One marker before the block, 14 bytes here.
        assert_eq!(kept.len(), (1_000 - 14) / 6);
        assert!(errors > 0);
    }

    /// Regression: with no match waiting, every line offered looked through
    /// the whole window for one, up to `context` lines, so a large
    /// `--keep-context` made input with no match quadratic (5 MB:
    /// 17 s with `--keep-context 100000`).
    #[test]
    fn lines_that_do_not_match_cost_the_same_whatever_the_context() {
        let rules = rules(1_000_000, u64::MAX / 2);
        let mut picking = Picking::new(&rules, 0, 1, b"");
        let line = "info: something ok here\n";
        let lines = 100_000;
        for _ in 0..lines {
            picking.feed(&rules, line.as_bytes(), |_| (0, 0));
        }
        picking.feed(&rules, b"ERROR\n", |_| (0, 0));
        let picked = picking.finish(&rules, true, |_| (0, 0), &|_, _, _| MARKER);
        assert_eq!((picked.lines.len(), picked.hidden_errors), (lines + 1, 0));
    }
}
