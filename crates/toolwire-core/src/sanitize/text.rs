//! Head-and-tail truncation of one text under a budget, with secrets scrubbed from what is kept.
//!
//! The start and the end of a long output are what matter (a command's invocation and its final
//! errors), so the middle goes and a marker says how much. The work is proportional to what is
//! kept, not to the input: a whole string is walked only to count it, a string too long to copy
//! arrives as its two ends ([`TextSource::Ends`]), and bytes are decoded only near their ends.
//! Secrets are searched in the kept text plus a window beyond each cut, so a secret straddling a
//! cut is found whole and its kept fragment is replaced too.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::ansi::strip_ansi;
use crate::secrets::{redaction_label, SecretScanner};

/// How far past each cut secrets are searched for, in characters: longer than any token kind,
/// so one straddling the cut is seen whole. (PEM bodies are longer; their patterns match
/// fragments.)
pub const SECRET_WINDOW: usize = 4096;

/// What a budget counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BudgetUnit {
    /// UTF-16 code units: a JavaScript string's `length`.
    Utf16,
    /// Unicode characters: text that arrived as bytes.
    Chars,
}

/// What a cut's marker counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CutUnit {
    /// UTF-16 code units of a string (what JavaScript calls characters).
    Characters,
    /// Bytes of UTF-8 text that arrived as bytes.
    Bytes,
}

/// A text to keep within a budget.
#[derive(Clone, Copy, Debug)]
pub enum TextSource<'a> {
    /// A whole string; counted in UTF-16 code units.
    Whole(&'a str),
    /// A JavaScript string too long to copy across whole: its first and last code units (each
    /// at least the budget plus [`SECRET_WINDOW`]) and its full `length`. The two ends do not
    /// overlap.
    Ends {
        /// The string's start.
        head: &'a str,
        /// The string's end.
        tail: &'a str,
        /// The string's length in UTF-16 code units.
        length: u64,
    },
    /// UTF-8 bytes (invalid sequences become U+FFFD); counted in characters.
    Bytes(&'a [u8]),
}

impl TextSource<'_> {
    /// The size water-filling compares: code units of a string, the byte length of bytes (an
    /// upper bound on their characters).
    pub fn size(&self) -> u64 {
        match self {
            TextSource::Whole(text) => utf16_len(text),
            TextSource::Ends { length, .. } => *length,
            TextSource::Bytes(bytes) => bytes.len() as u64,
        }
    }
}

/// How to keep a text.
#[derive(Clone, Copy)]
pub struct TextRules<'a> {
    /// The share of the kept text taken from the start (0 to 1).
    pub head_ratio: f64,
    /// Remove ANSI escape sequences first.
    pub strip_ansi: bool,
    /// Scrub secrets from what is kept; `None` when secret scrubbing is off.
    pub scanner: Option<&'a SecretScanner>,
}

/// Where a kept text was cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// What `count` counts.
    pub unit: CutUnit,
    /// How much was cut.
    pub count: u64,
    /// Byte offset in the kept text where the marker starts.
    pub marker_start: usize,
    /// Byte offset in the kept text where the marker ends (the tail starts).
    pub marker_end: usize,
}

/// A text as kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kept {
    /// The text: whole, or head, marker and tail; secrets replaced by labels.
    pub text: String,
    /// What the budget counts for this text.
    pub unit: BudgetUnit,
    /// Where it was cut, if it was.
    pub cut: Option<Cut>,
    /// How many ANSI escape sequences were removed.
    pub ansi: u64,
}

impl Kept {
    /// The text's size in its budget unit.
    pub fn size(&self) -> u64 {
        units(&self.text, self.unit)
    }
}

/// The marker put where text was cut.
pub fn marker(count: u64, unit: CutUnit) -> String {
    let what = match unit {
        CutUnit::Characters => "characters",
        CutUnit::Bytes => "bytes",
    };
    format!("\n\n[... {count} {what} cut ...]\n\n")
}

/// Finds the one cut marker in a text that was kept before (its cut is then known again);
/// `None` when there is none, or more than one.
pub fn find_marker(text: &str) -> Option<Cut> {
    let mut found = None;
    for (start, _) in text.match_indices("\n\n[... ") {
        let rest = &text[start + 7..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let count: u64 = rest[..digits].parse().ok()?;
        let unit = if rest[digits..].starts_with(" characters cut ...]\n\n") {
            CutUnit::Characters
        } else if rest[digits..].starts_with(" bytes cut ...]\n\n") {
            CutUnit::Bytes
        } else {
            continue;
        };
        if found.is_some() {
            return None;
        }
        let marker_end = start + marker(count, unit).len();
        found = Some(Cut {
            unit,
            count,
            marker_start: start,
            marker_end,
        });
    }
    found
}

/// A text kept earlier, with its cut found again from its marker.
pub fn kept_again(text: String) -> Kept {
    let cut = find_marker(&text);
    let unit = match cut.as_ref().map(|c| c.unit) {
        Some(CutUnit::Bytes) => BudgetUnit::Chars,
        _ => BudgetUnit::Utf16,
    };
    Kept {
        text,
        unit,
        cut,
        ansi: 0,
    }
}

/// Keeps `source` within `budget`, scrubbing secrets (counted per kind into `scrubbed`).
pub fn keep_text(
    source: TextSource<'_>,
    budget: u64,
    rules: &TextRules<'_>,
    scrubbed: &mut BTreeMap<String, u64>,
) -> Kept {
    match source {
        TextSource::Whole(text) => keep_whole(text, BudgetUnit::Utf16, budget, rules, scrubbed),
        TextSource::Ends { head, tail, length } => {
            let (head_kept, head_ansi) = stripped(head, rules);
            let (tail_kept, tail_ansi) = stripped(tail, rules);
            let unseen = length.saturating_sub(utf16_len(head) + utf16_len(tail));
            let parts = Parts {
                head: &head_kept,
                tail: &tail_kept,
                unseen,
                unit: BudgetUnit::Utf16,
                marker_unit: CutUnit::Characters,
            };
            let mut kept = parts.cut(budget, rules, scrubbed);
            kept.ansi = head_ansi + tail_ansi;
            kept
        }
        TextSource::Bytes(bytes) => keep_bytes(bytes, budget, rules, scrubbed),
    }
}

/// Cuts an already kept (and scrubbed) text further, to a smaller budget: the new head and tail
/// come from the old ones, and the marker adds what was dropped to what was cut before.
pub fn recut(kept: &Kept, budget: u64, head_ratio: f64) -> Kept {
    let size = kept.size();
    if size <= budget {
        return kept.clone();
    }
    let (head, tail, before, marker_unit) = match &kept.cut {
        Some(cut) => (
            &kept.text[..cut.marker_start],
            &kept.text[cut.marker_end..],
            cut.count,
            cut.unit,
        ),
        None => (kept.text.as_str(), "", 0, unit_marker(kept.unit)),
    };
    let overlapping = kept.cut.is_none();
    let measure = |text: &str| match marker_unit {
        CutUnit::Characters => utf16_len(text),
        CutUnit::Bytes => text.len() as u64,
    };
    let fixed = before + measure(head) + measure(tail);
    let keep = kept_units(budget, fixed, marker_unit);
    let (head_n, tail_n) = split_units(keep, head_ratio);
    let (head_end, tail_start) = if overlapping {
        let head_end = prefix_end(head, head_n, kept.unit);
        let tail_start = suffix_start(head, tail_n, kept.unit).max(head_end);
        (head_end, tail_start)
    } else {
        let head_end = prefix_end(head, head_n, kept.unit);
        (head_end, suffix_start(tail, tail_n, kept.unit))
    };
    let (kept_head, kept_tail, dropped) = if overlapping {
        (
            &head[..head_end],
            &head[tail_start..],
            measure(&head[head_end..tail_start]),
        )
    } else {
        (
            &head[..head_end],
            &tail[tail_start..],
            measure(&head[head_end..]) + measure(&tail[..tail_start]),
        )
    };
    let count = before + dropped;
    let mark = marker(count, marker_unit);
    let mut text = String::with_capacity(kept_head.len() + mark.len() + kept_tail.len());
    text.push_str(kept_head);
    let marker_start = text.len();
    text.push_str(&mark);
    let marker_end = text.len();
    text.push_str(kept_tail);
    Kept {
        text,
        unit: kept.unit,
        cut: Some(Cut {
            unit: marker_unit,
            count,
            marker_start,
            marker_end,
        }),
        ansi: kept.ansi,
    }
}

fn unit_marker(unit: BudgetUnit) -> CutUnit {
    match unit {
        BudgetUnit::Utf16 => CutUnit::Characters,
        BudgetUnit::Chars => CutUnit::Bytes,
    }
}

fn stripped<'a>(text: &'a str, rules: &TextRules<'_>) -> (Cow<'a, str>, u64) {
    if rules.strip_ansi {
        let (text, removed) = strip_ansi(text);
        (text, removed as u64)
    } else {
        (Cow::Borrowed(text), 0)
    }
}

fn keep_whole(
    text: &str,
    unit: BudgetUnit,
    budget: u64,
    rules: &TextRules<'_>,
    scrubbed: &mut BTreeMap<String, u64>,
) -> Kept {
    let (text, ansi) = stripped(text, rules);
    let mut kept = if units(&text, unit) <= budget {
        let text = match rules.scanner {
            Some(scanner) => scanner.scrub(&text, scrubbed).into_owned(),
            None => text.into_owned(),
        };
        Kept {
            text,
            unit,
            cut: None,
            ansi: 0,
        }
    } else {
        let parts = Parts {
            head: &text,
            tail: "",
            unseen: 0,
            unit,
            marker_unit: unit_marker(unit),
        };
        parts.cut(budget, rules, scrubbed)
    };
    kept.ansi = ansi;
    kept
}

/// Bytes: decoded only near their ends when they are long.
fn keep_bytes(
    bytes: &[u8],
    budget: u64,
    rules: &TextRules<'_>,
    scrubbed: &mut BTreeMap<String, u64>,
) -> Kept {
    // Each character is at most 4 bytes, so these byte spans hold at least the characters the
    // head and tail can keep plus the secret window.
    let reach = |units: u64| (units as usize + SECRET_WINDOW).saturating_mul(4);
    let (head_n, tail_n) = split_units(budget, rules.head_ratio);
    let head_span = reach(head_n);
    let tail_span = reach(tail_n);
    if bytes.len() as u64 <= budget || head_span.saturating_add(tail_span) >= bytes.len() {
        return keep_whole(
            &decode_lossy(bytes),
            BudgetUnit::Chars,
            budget,
            rules,
            scrubbed,
        );
    }
    let mut tail_from = bytes.len() - tail_span;
    // Start the tail on a character boundary (skip at most three continuation bytes).
    for _ in 0..3 {
        if bytes.get(tail_from).is_some_and(|b| b & 0xC0 == 0x80) {
            tail_from += 1;
        }
    }
    // End the head on a character boundary too (back over at most three continuation bytes).
    let mut head_span = head_span;
    for _ in 0..3 {
        if bytes.get(head_span).is_some_and(|b| b & 0xC0 == 0x80) {
            head_span -= 1;
        }
    }
    let head = decode_lossy(&bytes[..head_span]);
    let tail = decode_lossy(&bytes[tail_from..]);
    let (head, head_ansi) = stripped(&head, rules);
    let (tail, tail_ansi) = stripped(&tail, rules);
    let parts = Parts {
        head: &head,
        tail: &tail,
        unseen: (tail_from - head_span) as u64,
        unit: BudgetUnit::Chars,
        marker_unit: CutUnit::Bytes,
    };
    let mut kept = parts.cut(budget, rules, scrubbed);
    kept.ansi = head_ansi + tail_ansi;
    kept
}

/// UTF-8 bytes as text, invalid sequences as U+FFFD. Valid input (nearly all of it) takes the
/// standard library's word-at-a-time check, several times faster than the lossy decoder's.
fn decode_lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// A text to cut: its start, its end and how much between them was never seen. With an empty
/// `tail` and nothing unseen, `head` is the whole text and both cuts fall in it.
struct Parts<'t> {
    head: &'t str,
    tail: &'t str,
    /// Between head and tail, in the marker's unit.
    unseen: u64,
    unit: BudgetUnit,
    marker_unit: CutUnit,
}

impl Parts<'_> {
    fn measure(&self, text: &str) -> u64 {
        match self.marker_unit {
            CutUnit::Characters => utf16_len(text),
            CutUnit::Bytes => text.len() as u64,
        }
    }

    fn cut(
        &self,
        budget: u64,
        rules: &TextRules<'_>,
        scrubbed: &mut BTreeMap<String, u64>,
    ) -> Kept {
        let whole = self.tail.is_empty() && self.unseen == 0;
        let total = self.measure(self.head) + self.unseen + self.measure(self.tail);
        let keep = kept_units(budget, total, self.marker_unit);
        let (head_n, tail_n) = split_units(keep, rules.head_ratio);
        let head_end = prefix_end(self.head, head_n, self.unit);
        // The tail region and where its kept part starts.
        let (tail_region, tail_start) = if whole {
            let start = suffix_start(self.head, tail_n, self.unit).max(head_end);
            let region_start = floor_boundary(self.head, start.saturating_sub(window_bytes()));
            (&self.head[region_start..], start - region_start)
        } else {
            (self.tail, suffix_start(self.tail, tail_n, self.unit))
        };
        let head_region = &self.head[..ceil_boundary(self.head, head_end + window_bytes())];
        let count = if whole {
            self.measure(
                &self.head[head_end..tail_region_offset(self.head, tail_region) + tail_start],
            )
        } else {
            self.measure(&self.head[head_end..])
                + self.unseen
                + self.measure(&self.tail[..tail_start])
        };
        let mut text = String::with_capacity(head_end + 48 + tail_region.len() - tail_start);
        scrub_head(head_region, head_end, rules.scanner, &mut text, scrubbed);
        let marker_start = text.len();
        text.push_str(&marker(count, self.marker_unit));
        let marker_end = text.len();
        scrub_tail(tail_region, tail_start, rules.scanner, &mut text, scrubbed);
        Kept {
            text,
            unit: self.unit,
            cut: Some(Cut {
                unit: self.marker_unit,
                count,
                marker_start,
                marker_end,
            }),
            ansi: 0,
        }
    }
}

/// Byte offset of `part` (a subslice of `whole`) in `whole`.
fn tail_region_offset(whole: &str, part: &str) -> usize {
    part.as_ptr() as usize - whole.as_ptr() as usize
}

/// The secret window in bytes of UTF-8 (each character at most 4).
fn window_bytes() -> usize {
    SECRET_WINDOW * 4
}

/// How many units of text fit beside the marker for a cut of at most `total` units.
fn kept_units(budget: u64, total: u64, unit: CutUnit) -> u64 {
    // The marker's count is at most `total`, so its length at `total` is an upper bound.
    budget.saturating_sub(marker(total, unit).len() as u64)
}

fn split_units(keep: u64, head_ratio: f64) -> (u64, u64) {
    let head = ((keep as f64) * head_ratio).floor() as u64;
    let head = head.min(keep);
    (head, keep - head)
}

/// Appends the first `keep_end` bytes of `region`, secrets replaced; a secret that runs past
/// `keep_end` (found whole in the rest of the region) has its kept fragment replaced too.
fn scrub_head(
    region: &str,
    keep_end: usize,
    scanner: Option<&SecretScanner>,
    out: &mut String,
    scrubbed: &mut BTreeMap<String, u64>,
) {
    let Some(scanner) = scanner else {
        out.push_str(&region[..keep_end]);
        return;
    };
    let mut at = 0;
    for found in scanner.find(region) {
        if found.start >= keep_end {
            break;
        }
        out.push_str(&region[at..found.start]);
        out.push_str(&redaction_label(&found.kind));
        *scrubbed.entry(found.kind.to_string()).or_default() += 1;
        at = found.end;
        if at >= keep_end {
            return;
        }
    }
    out.push_str(&region[at..keep_end]);
}

/// Appends `region` from `keep_start`, secrets replaced; a secret that began before
/// `keep_start` has its kept fragment replaced too.
fn scrub_tail(
    region: &str,
    keep_start: usize,
    scanner: Option<&SecretScanner>,
    out: &mut String,
    scrubbed: &mut BTreeMap<String, u64>,
) {
    let Some(scanner) = scanner else {
        out.push_str(&region[keep_start..]);
        return;
    };
    let mut at = keep_start;
    for found in scanner.find(region) {
        if found.end <= keep_start {
            continue;
        }
        out.push_str(&region[at..found.start.max(at)]);
        out.push_str(&redaction_label(&found.kind));
        *scrubbed.entry(found.kind.to_string()).or_default() += 1;
        at = found.end;
    }
    out.push_str(&region[at..]);
}

/// A string's length in JavaScript (UTF-16 code units).
pub fn utf16_len(text: &str) -> u64 {
    if text.is_ascii() {
        return text.len() as u64;
    }
    // Characters, plus one for each that needs a surrogate pair (a 4-byte UTF-8 sequence).
    let bytes = text.as_bytes();
    let chars = bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count();
    let astral = bytes.iter().filter(|&&b| b >= 0xF0).count();
    (chars + astral) as u64
}

/// `text`'s size in `unit`.
pub fn units(text: &str, unit: BudgetUnit) -> u64 {
    match unit {
        BudgetUnit::Utf16 => utf16_len(text),
        BudgetUnit::Chars => text.chars().count() as u64,
    }
}

fn char_units(c: char, unit: BudgetUnit) -> u64 {
    match unit {
        BudgetUnit::Utf16 => c.len_utf16() as u64,
        BudgetUnit::Chars => 1,
    }
}

/// The byte offset ending the longest prefix of at most `n` units; never splits a character (a
/// surrogate pair stays whole or goes whole).
fn prefix_end(text: &str, n: u64, unit: BudgetUnit) -> usize {
    // An ASCII character is one unit and one byte in either unit: a leading run is skipped whole.
    let limit = text.len().min(usize::try_from(n).unwrap_or(usize::MAX));
    let head = &text.as_bytes()[..limit];
    let run = if head.is_ascii() {
        limit
    } else {
        head.iter().position(|b| !b.is_ascii()).unwrap_or(limit)
    };
    let mut used = run as u64;
    for (at, c) in text[run..].char_indices() {
        used += char_units(c, unit);
        if used > n {
            return run + at;
        }
    }
    text.len()
}

/// The byte offset starting the longest suffix of at most `n` units.
fn suffix_start(text: &str, n: u64, unit: BudgetUnit) -> usize {
    // As in `prefix_end`: a trailing ASCII run is taken whole.
    let limit = text.len().min(usize::try_from(n).unwrap_or(usize::MAX));
    let tail = &text.as_bytes()[text.len() - limit..];
    let run = if tail.is_ascii() {
        limit
    } else {
        tail.len()
            - 1
            - tail
                .iter()
                .rposition(|b| !b.is_ascii())
                .unwrap_or(limit - 1)
    };
    let mut used = run as u64;
    let mut start = text.len() - run;
    for (at, c) in text[..start].char_indices().rev() {
        used += char_units(c, unit);
        if used > n {
            break;
        }
        start = at;
    }
    start
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests;
