//! Secret scrubbing: finds API keys, tokens, private keys and passwords in text and replaces
//! each with `[redacted:<kind>]`.
//!
//! Tool results, events and audit records pass through [`SecretScanner::scrub`] before they leave
//! the runtime, so the search is built for text without secrets: one combined regex (every
//! kind's pattern in one alternation) runs over the text, and only where it matches are the kinds
//! told apart, each by its own regex anchored at that position. Matching is linear in the text:
//! the `regex` crate runs finite automata, never backtracking, and user patterns it refuses
//! (look-around, backreferences) are errors.
//!
//! # Built-in kinds
//! `openai-key`, `anthropic-key`, `aws-access-key`, `github-token`, `slack-token`,
//! `google-api-key`, `jwt`, `private-key`, `bearer-token`, `url-password` (the names are a public
//! contract); users add kinds with [`SecretPattern`]s. `bearer-token` and `url-password` replace
//! only the token or password, keeping the header or URL around it. `private-key` also covers
//! fragments of cut text: a BEGIN line whose END is missing (the body after it) and an END line
//! whose BEGIN is missing (the body before it), and a block whose every line repeats the
//! text before its BEGIN line (`git diff`, `# ` comments, `grep -n`; see `pem_lines.rs`).
//!
//! A secret is found whatever the text around it: after the escapes of JSON text (`\n`,
//! `\u003e`) and percent escapes (`%3D`), and a token with a vendor prefix also glued to an
//! identifier, a word or digits (`MY_TOKEN_ghp_...`, `keyAKIA...`); see `builtin.rs`. JSON values are walked, keys included, by [`crate::sanitize::values`].

mod builtin;
mod code_value;
mod cookie_objects;
mod cookie_value;
mod credential;
mod first_bytes;
#[cfg(test)]
mod leak_tests;
#[cfg(test)]
mod linear_tests;
mod named_value;
mod pattern;
mod pem;
mod pem_lines;
mod prose;
mod reader;
mod repeats;
mod ssh2_key;
mod sweep;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use regex::{Regex, RegexBuilder};

use self::builtin::{Extent, BUILTIN_KINDS};
use self::pattern::{
    ceil_char_boundary, refused_pattern, validate_kind_name, CompiledKind, NextTrigger,
};
use self::reader::{RangeHint, ReaderView};
use self::sweep::{Candidate, Sweep};
use crate::error::{Error, ErrorCode, Result};

/// The most custom patterns one scanner takes.
const MAX_CUSTOM_PATTERNS: usize = 256;

/// How much of the end of a secret taken is searched again for a token reaching past it: more
/// than the longest bounded value (256 bytes), so a token starting anywhere in a value cut at its
/// bound is seen.
pub(crate) const STRADDLE_WINDOW: usize = 320;

/// Compiled-size limit of the combined search regex.
const SEARCH_SIZE_LIMIT: usize = 16 << 20;

/// Lazy-DFA cache limit of the combined search regex.
const SEARCH_DFA_LIMIT: usize = 4 << 20;

/// A user-supplied pattern.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretPattern {
    /// The kind's name, `[a-z0-9][a-z0-9-]{0,63}`; it appears in `[redacted:<kind>]`.
    pub kind: String,
    /// A regular expression for the `regex` crate. A capture group named `secret` marks the part
    /// to replace; without one the whole match is replaced. `(?i)` makes it case-insensitive.
    pub pattern: String,
}

/// One secret found: byte range of the part to replace, and its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecretMatch {
    /// Start of the part to replace (a char boundary).
    pub start: usize,
    /// End of the part to replace (a char boundary, after `start`).
    pub end: usize,
    /// The kind's name.
    pub kind: Arc<str>,
}

/// Compiled built-in and custom patterns. Send + Sync, built once per options, shared by Arc.
#[derive(Clone, Debug)]
pub struct SecretScanner {
    /// Every kind's pattern in one alternation: finds where some kind may match.
    search: Regex,
    /// The kinds in priority order (built-in, then custom).
    kinds: Vec<CompiledKind>,
    /// How many of `kinds` are built-in.
    builtin_count: usize,
}

/// The built-in kinds and their combined search regex, compiled once per process.
struct Builtins {
    kinds: Vec<CompiledKind>,
    search: Regex,
}

/// The built-in kinds, their own regexes compiled when first needed (see
/// `CompiledKind::built_in`), and their combined search regex (an internal error if it does not
/// compile).
fn builtins() -> Result<&'static Builtins> {
    static BUILTINS: OnceLock<Result<Builtins>> = OnceLock::new();
    BUILTINS
        .get_or_init(|| {
            let kinds: Vec<CompiledKind> = BUILTIN_KINDS
                .iter()
                .map(|kind| CompiledKind::built_in(kind.name, kind.pattern, kind.extent))
                .collect();
            let search = build_search(&kinds).map_err(|error| {
                Error::internal(format!(
                    "the built-in secret patterns do not compile: {error}"
                ))
            })?;
            Ok(Builtins { kinds, search })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The combined search regex of `kinds`.
fn build_search(kinds: &[CompiledKind]) -> Result<Regex> {
    let source = kinds
        .iter()
        .map(|kind| kind.search_source.as_str())
        .collect::<Vec<_>>()
        .join("|");
    RegexBuilder::new(&source)
        .size_limit(SEARCH_SIZE_LIMIT)
        .dfa_size_limit(SEARCH_DFA_LIMIT)
        .build()
        .map_err(|error| {
            Error::caller(
                ErrorCode::ValidationError,
                format!(
                    "the secret patterns together are too large: their combined regex must \
                     compile within {SEARCH_SIZE_LIMIT} bytes; the regex engine reports: {error}"
                ),
            )
        })
}

impl SecretScanner {
    /// The built-in kinds followed by `custom` (a custom kind may reuse a built-in name).
    pub fn new(custom: &[SecretPattern]) -> Result<SecretScanner> {
        let builtins = builtins()?;
        if custom.is_empty() {
            return Ok(SecretScanner {
                search: builtins.search.clone(),
                kinds: builtins.kinds.clone(),
                builtin_count: builtins.kinds.len(),
            });
        }
        if custom.len() > MAX_CUSTOM_PATTERNS {
            return Err(Error::caller(
                ErrorCode::LimitExceeded,
                format!(
                    "{} custom secret patterns given; at most {MAX_CUSTOM_PATTERNS} are accepted",
                    custom.len()
                ),
            ));
        }
        let mut kinds = builtins.kinds.clone();
        for SecretPattern { kind, pattern } in custom {
            validate_kind_name(kind)?;
            let compiled = CompiledKind::compile(kind.as_str().into(), pattern, Extent::Match)
                .map_err(|reason| refused_pattern(kind, pattern, &reason))?;
            kinds.push(compiled);
        }
        let search = build_search(&kinds)?;
        Ok(SecretScanner {
            search,
            kinds,
            builtin_count: builtins.kinds.len(),
        })
    }

    /// All secrets in `text` as it is and as its reader sees it: sorted by start,
    /// non-overlapping, each `start < end`, on char boundaries.
    ///
    /// The text is searched as it is, and when it holds spellings a reader does not see (the
    /// escapes of JSON text, ANSI escape sequences, quoted-printable soft breaks and `=XX`
    /// escapes, percent escapes, HTML character references, C escapes; see `reader.rs`) in its
    /// decoded views too, each secret found there mapped back to the original range it was
    /// spelled in. Where secrets of the searches overlap, they are one secret over all their
    /// ranges, named by the earlier. A secret found is found again wherever the text spells it
    /// (see `repeats.rs`: a literal named once and repeated without its name).
    pub fn find(&self, text: &str) -> Vec<SecretMatch> {
        let found = self.find_spelled(text);
        let found = ReaderView::all(text)
            .into_iter()
            .fold(found, |found, view| {
                let mut hint = RangeHint::default();
                let seen = self.find_spelled(&view.text).into_iter().map(|secret| {
                    let (start, end) = view.original_range(secret.start, secret.end, &mut hint);
                    SecretMatch {
                        start,
                        end,
                        ..secret
                    }
                });
                union(found, seen.collect())
            });
        repeats::with_repeats(text, found)
    }

    /// All secrets in `text` as it is spelled: sorted by start, non-overlapping (when two kinds
    /// overlap, keep the earlier start; on a tie the longer one), each `start < end`, on char
    /// boundaries.
    ///
    /// Equal ranges go to the kind listed first (built-in order, then custom order). Secrets are
    /// looked for after the end of the previous one: a match that begins inside a secret already
    /// taken is not considered. Allocates nothing when nothing is found.
    ///
    /// Linear in the text: a kind whose value is checked after matching joins the combined
    /// search by its trigger only and reads a value no further than the next start of its own
    /// trigger past a floor (see `pattern.rs`), so a value running on through the names glued
    /// inside it is read once, not once per name.
    fn find_spelled(&self, text: &str) -> Vec<SecretMatch> {
        let mut sweep = Sweep::default();
        // Per kind, where its next trigger starts (allocated at the first start).
        let mut next_triggers: Vec<NextTrigger> = Vec::new();
        let mut from = 0;
        while from <= text.len() {
            let found = self.search.find_at(text, from);
            // Nothing found later can start before `found`: settle what starts earlier.
            sweep.settle_before(found.map_or(usize::MAX, |found| found.start()));
            let Some(found) = found else { break };
            let at = found.start();
            if at < sweep.taken_until() {
                // Only in the last part of the secret taken (see `straddle_from`).
                self.extend_over_straddling(&mut sweep, text, at);
                from = next_char(text, at).max(self.straddle_from(&sweep, text));
                continue;
            }
            // Built-in kinds never match empty and come first in the search regex, so an empty
            // match there means none of them matches here: only custom kinds may.
            let first = if found.is_empty() {
                self.builtin_count
            } else {
                0
            };
            if next_triggers.is_empty() {
                next_triggers.resize(self.kinds.len(), NextTrigger::default());
            }
            for (index, kind) in self.kinds.iter().enumerate().skip(first) {
                if !kind.may_start_at(text, at) {
                    continue;
                }
                let Some(limit) = kind.value_limit(text, at, &mut next_triggers[index]) else {
                    continue;
                };
                self.offer_kind_at(&mut sweep, text, at, limit, index, kind);
            }
            sweep.take_if_first(at);
            from = next_char(text, at).max(self.straddle_from(&sweep, text));
        }
        sweep.settle_before(usize::MAX);
        sweep
            .into_taken()
            .into_iter()
            .map(|taken| SecretMatch {
                start: taken.start,
                end: taken.end,
                kind: Arc::clone(&self.kinds[taken.kind].name),
            })
            .collect()
    }

    /// Where the search goes on after the last secret taken. When that is a checked value or a
    /// private key, its last [`STRADDLE_WINDOW`] bytes are searched again for a token that
    /// starts inside it and reaches past its end (a value cut at its bound or at a character its
    /// kind does not take, inside a token of another kind: `password=<250 bytes>ghp_...`, a
    /// BEGIN line's body ending at the `_` of `ghp_`); the token then extends it. A token's own
    /// format ends where it ends (keys glued to keys stay apart).
    fn straddle_from(&self, sweep: &Sweep, text: &str) -> usize {
        let Some(last) = sweep.last_taken() else {
            return 0;
        };
        if self.kinds[last.kind].extent == Extent::Match {
            return last.end;
        }
        let window = last.end.saturating_sub(STRADDLE_WINDOW).max(last.start);
        ceil_char_boundary(text, window)
    }

    /// At `at` inside the last secret taken: the matches of kinds without a check (tokens of a
    /// vendor prefix, custom kinds) that start there and end after the secret extend it.
    fn extend_over_straddling(&self, sweep: &mut Sweep, text: &str, at: usize) {
        for kind in &self.kinds {
            if kind.extent != Extent::Match || !kind.may_start_at(text, at) {
                continue;
            }
            let Some(found) = kind.match_at(text, at) else {
                continue;
            };
            if found.secret_start < sweep.taken_until() {
                sweep.extend_last(found.secret_end);
            }
        }
    }

    /// Offers `kind`'s match at `at` ending by `limit` (if any) to the sweep.
    fn offer_kind_at(
        &self,
        sweep: &mut Sweep,
        text: &str,
        at: usize,
        limit: usize,
        index: usize,
        kind: &CompiledKind,
    ) {
        if inside_marker(text, at) {
            return;
        }
        let Some(found) = kind.match_within(text, at, limit) else {
            return;
        };
        if text[found.secret_start..].starts_with(REDACTION_OPENING) {
            // A value replaced before (`password=[redacted:credential-parameter]`): what follows
            // its label was left by that scrub, so taking it now would scrub the text again
            // differently (a value cut at its bound kept its tail; fuzz target scrub_text).
            return;
        }
        let candidate = Candidate {
            start: found.secret_start,
            end: found.secret_end,
            kind: index,
        };
        match kind.extent {
            Extent::Match => sweep.offer(candidate),
            Extent::KeyValue => {
                if credential::is_key_value(text, candidate.start, candidate.end) {
                    sweep.offer(candidate);
                }
            }
            Extent::CookieValue => {
                if credential::is_cookie_value(text, candidate.start, candidate.end) {
                    sweep.offer(candidate);
                }
            }
            Extent::Checked(check) => {
                if let Some(end) = check.confirm(text, candidate.start, candidate.end) {
                    sweep.offer(Candidate { end, ..candidate });
                }
            }
            Extent::PemBegin => {
                let end = pem::trim_breaks_end(text.as_bytes(), candidate.start, candidate.end);
                let end = match pem_lines::block_end(text, candidate.start) {
                    // The block's lines carry a prefix or a suffix (`git diff`, comments, `grep -n`,
                    // `cat -A`), or are the items of a list.
                    Some(prefixed) => prefixed.max(end),
                    None if pem::begin_block_has_body(&text[candidate.start..end]) => end,
                    None => return,
                };
                sweep.offer(Candidate { end, ..candidate });
            }
            Extent::PemEnd => {
                let body = pem::body_start(text, at);
                sweep.take_reaching_back(body, candidate, |start| {
                    let start = pem::skip_breaks(text.as_bytes(), start, at);
                    pem::has_key_material(&text[start..at]).then_some(start)
                });
            }
        }
    }

    /// `text` with every secret replaced by `[redacted:<kind>]`, adding one per secret to
    /// `counts` (kind -> count). Borrowed when nothing was found.
    pub fn scrub<'a>(&self, text: &'a str, counts: &mut BTreeMap<String, u64>) -> Cow<'a, str> {
        match self.scrub_from(text, 0, counts) {
            Some(scrubbed) => Cow::Owned(scrubbed),
            None => Cow::Borrowed(text),
        }
    }

    /// `text[from..]` with its secrets replaced, the secrets searched in the whole `text`: what
    /// comes before `from` is context only (a header name before its value), and a secret that
    /// starts before `from` and reaches past it is replaced from `from` on. `None` when no secret
    /// reaches past `from`. `from` must be a char boundary.
    pub fn scrub_from(
        &self,
        text: &str,
        from: usize,
        counts: &mut BTreeMap<String, u64>,
    ) -> Option<String> {
        let secrets: Vec<SecretMatch> = self
            .find(text)
            .into_iter()
            .filter(|secret| secret.end > from)
            .collect();
        if secrets.is_empty() {
            return None;
        }
        let labels: usize = secrets.iter().map(|secret| secret.kind.len() + 11).sum();
        let mut scrubbed = String::with_capacity(text.len() - from + labels);
        let mut copied = from;
        for secret in &secrets {
            scrubbed.push_str(&text[copied..secret.start.max(from)]);
            scrubbed.push_str(REDACTION_OPENING);
            scrubbed.push_str(&secret.kind);
            scrubbed.push(']');
            copied = secret.end;
            match counts.get_mut(&*secret.kind) {
                Some(count) => *count += 1,
                None => {
                    counts.insert(secret.kind.to_string(), 1);
                }
            }
        }
        scrubbed.push_str(&text[copied..]);
        Some(scrubbed)
    }
}

/// The secrets of two searches of one text (each sorted and disjoint) as one list: overlapping
/// secrets become one over both ranges, named by the one that starts first (on a tie, the
/// longer, then `a`'s).
fn union(a: Vec<SecretMatch>, b: Vec<SecretMatch>) -> Vec<SecretMatch> {
    if b.is_empty() {
        return a;
    }
    let mut merged: Vec<SecretMatch> = Vec::with_capacity(a.len() + b.len());
    let mut a = a.into_iter().peekable();
    let mut b = b.into_iter().peekable();
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if (y.start, Reverse(y.end)) < (x.start, Reverse(x.end)) => b.next(),
            (Some(_), _) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => break,
        };
        let Some(next) = next else { break };
        match merged.last_mut() {
            Some(last) if next.start < last.end => last.end = last.end.max(next.end),
            _ => merged.push(next),
        }
    }
    merged
}

/// Whether `at` is inside the kind name of a `[redacted:<kind>]` marker: a name there
/// (`[redacted:bearer-token]`) names no credential, so text scrubbed once scrubs to itself
/// (an id shown as `Bearer [redacted:bearer-token]~76d2...` lost its digest when the audit
/// scrubbed it again; attack review 3's 8).
fn inside_marker(text: &str, at: usize) -> bool {
    const MARKER: &[u8] = REDACTION_OPENING.as_bytes();
    const MAX_KIND_NAME: usize = 64;
    let bytes = text.as_bytes();
    let floor = at.saturating_sub(MAX_KIND_NAME + MARKER.len());
    let mut name_start = (at + 1).min(bytes.len());
    while name_start > floor
        && matches!(bytes[name_start - 1], b'a'..=b'z' | b'0'..=b'9' | b'-' | b':')
        && !bytes[..name_start].ends_with(MARKER)
    {
        name_start -= 1;
    }
    bytes[..name_start].ends_with(MARKER)
}

/// How every replacement starts: `[redacted:<kind>]`.
const REDACTION_OPENING: &str = "[redacted:";

/// The replacement text for a kind: `[redacted:<kind>]`.
pub fn redaction_label(kind: &str) -> String {
    format!("{REDACTION_OPENING}{kind}]")
}

/// The char boundary after the character at `at` (or `at + 1` at the end of the text).
fn next_char(text: &str, at: usize) -> usize {
    at + text[at..].chars().next().map_or(1, char::len_utf8)
}
