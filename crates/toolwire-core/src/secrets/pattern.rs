//! Compiling one kind's pattern: validation of user input, the anchored regexes that confirm a
//! kind at a position, and the form of the pattern that joins the combined search regex.

use std::sync::{Arc, OnceLock};

use regex::{Regex, RegexBuilder};

use super::builtin::Extent;
use super::first_bytes::FirstBytes;
use crate::error::{Error, ErrorCode, Result};

/// Compiled-size limit of one pattern (the `regex` crate's `size_limit`): a pattern over it is
/// refused instead of using unbounded memory.
pub(super) const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// Lazy-DFA cache limit of one pattern's regexes.
const PATTERN_DFA_LIMIT: usize = 1 << 20;

/// The longest kind name.
const MAX_KIND_LEN: usize = 64;

/// The name of the capture group that marks the part of a match to replace.
pub(super) const SECRET_GROUP: &str = "secret";

/// One kind, compiled.
#[derive(Clone, Debug)]
pub(super) struct CompiledKind {
    /// The kind's name, shared by every match of it.
    pub name: Arc<str>,
    /// How a match becomes the secret's range.
    pub extent: Extent,
    /// The pattern as one group without named groups, for the combined search regex; for a kind
    /// whose value is checked after matching, only its trigger (see [`Trigger`]).
    pub search_source: String,
    /// The bytes a match can start with.
    first_bytes: FirstBytes,
    /// The kind's own regexes, shared by every scanner holding the kind.
    regexes: Arc<KindRegexes>,
}

/// A kind's own regexes and what they are built from. A custom kind's are compiled when it is
/// given (so that a pattern the `regex` crate refuses is named then); a built-in kind's when a
/// search first finds that it may match: most texts never hold one, and compiling all of them
/// (several regexes per kind) took most of a first runtime's construction.
#[derive(Debug)]
struct KindRegexes {
    /// The pattern as one group ([`wrap`]).
    wrapped: String,
    /// The source of its trigger, for a kind whose value is checked ([`Trigger`]).
    trigger: Option<String>,
    compiled: OnceLock<Regexes>,
}

/// A kind's own regexes, compiled.
#[derive(Debug)]
struct Regexes {
    /// The pattern anchored at a position.
    anchored: Anchored,
    /// The index of the `secret` group, if the pattern has one.
    secret_group: Option<usize>,
    /// The part of the pattern before its `secret` group, for a kind whose value is checked.
    trigger: Option<Trigger>,
}

impl Regexes {
    /// Compiles the regexes of a kind whose pattern, as one group, is `wrapped`.
    fn build(wrapped: &str, trigger: Option<&str>) -> std::result::Result<Regexes, String> {
        let anchored = Anchored::build(wrapped)?;
        let secret_group = anchored
            .at_text_start
            .capture_names()
            .position(|group| group == Some(SECRET_GROUP));
        let trigger = match trigger {
            None => None,
            Some(source) => Some(Trigger {
                anchored: Anchored::build(source)?,
                anywhere: build(source)?,
            }),
        };
        Ok(Regexes {
            anchored,
            secret_group,
            trigger,
        })
    }
}

/// A pattern anchored at a position, the look-behind (`\b`, `^`) seeing the real text before it.
#[derive(Clone, Debug)]
struct Anchored {
    /// The pattern anchored at the start of the text.
    at_text_start: Regex,
    /// The pattern anchored after one leading character: run on the text from the character
    /// before a position, it matches exactly at that position.
    after_char: Regex,
}

/// The trigger of a kind whose value is checked after matching: the part of its pattern before
/// its `secret` group (the name and the gap of a credential, a scheme word and its blanks).
/// Every match of the kind starts with a match of its trigger at the same position.
///
/// Such a kind joins the combined search by its trigger only, so the search never reads a value
/// (`x-api-key+x-api-key+...`: a value that runs on through the names glued inside it would be
/// read again from every name). Its value is read by its own regex within a bound: up to the
/// next start of its own trigger [`VALUE_CUT_FLOOR`] bytes or more past its own (see
/// [`CompiledKind::value_limit`]), so each value is read once however many names it holds.
#[derive(Clone, Debug)]
struct Trigger {
    /// The trigger anchored at a position.
    anchored: Anchored,
    /// The trigger, unanchored: where the next one starts.
    anywhere: Regex,
}

/// A checked kind's value is never cut before this many bytes past its trigger: only a value
/// longer than that which holds its own kind's name and gap (`+token+` inside a value found by
/// `token+`) is cut there. Each start then reads at most this much past the next one.
pub(super) const VALUE_CUT_FLOOR: usize = 64;

/// Where the next trigger of one kind starts, remembered over one search of a text: positions
/// are asked for in increasing order, so each part of the text is searched once.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct NextTrigger {
    /// No trigger starts in `from..found` (`found` is the text's length when none follows).
    from: usize,
    found: usize,
    known: bool,
}

/// Where a kind matches at a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct KindMatch {
    /// End of the whole match.
    pub end: usize,
    /// The part to replace (the `secret` group, or the whole match).
    pub secret_start: usize,
    /// End of the part to replace.
    pub secret_end: usize,
}

impl CompiledKind {
    /// Compiles a custom kind's pattern, checking all of it now. `Err` carries the `regex`
    /// crate's reason.
    pub(super) fn compile(
        name: Arc<str>,
        pattern: &str,
        extent: Extent,
    ) -> std::result::Result<CompiledKind, String> {
        let alone = build(pattern)?;
        let wrapped = wrap(pattern);
        verify_stripped(&alone, &strip_group_names(&wrapped))?;
        let kind = CompiledKind::of(name, wrapped, pattern, extent);
        let regexes = Regexes::build(&kind.regexes.wrapped, kind.regexes.trigger.as_deref())?;
        kind.regexes
            .compiled
            .set(regexes)
            .expect("a kind just made has no regexes yet");
        Ok(kind)
    }

    /// A built-in kind, its own regexes compiled when first needed. (Every built-in pattern is
    /// checked as a custom one is, and compiled, by `every_built_in_kind_compiles_as_given`.)
    pub(super) fn built_in(
        name: &'static str,
        pattern: &'static str,
        extent: Extent,
    ) -> CompiledKind {
        CompiledKind::of(name.into(), format!("(?:{pattern})"), pattern, extent)
    }

    /// The kind of `pattern`, `wrapped` as one group, its regexes not compiled.
    fn of(name: Arc<str>, wrapped: String, pattern: &str, extent: Extent) -> CompiledKind {
        let trigger = is_checked(extent)
            .then(|| trigger_source(pattern))
            .flatten();
        let search_source = match &trigger {
            Some(source) => source.clone(),
            None => strip_group_names(&wrapped),
        };
        CompiledKind {
            name,
            extent,
            search_source,
            first_bytes: FirstBytes::of(&wrapped),
            regexes: Arc::new(KindRegexes {
                wrapped,
                trigger,
                compiled: OnceLock::new(),
            }),
        }
    }

    /// The kind's own regexes, compiled on first use.
    fn regexes(&self) -> &Regexes {
        let lazy = &*self.regexes;
        lazy.compiled.get_or_init(|| {
            Regexes::build(&lazy.wrapped, lazy.trigger.as_deref())
                .expect("every built-in kind compiles (a test compiles each)")
        })
    }

    /// Compiles the kind's own regexes now, or says why they do not compile.
    #[cfg(test)]
    pub(super) fn check_compiles(&self) -> std::result::Result<(), String> {
        let lazy = &*self.regexes;
        Regexes::build(&lazy.wrapped, lazy.trigger.as_deref()).map(|_| ())
    }

    /// Whether a match of the kind can start at `at` (a char boundary of `text`, or its end), by
    /// its first byte alone: `false` means [`Self::match_at`] and [`Self::value_limit`] find
    /// nothing there.
    pub(super) fn may_start_at(&self, text: &str, at: usize) -> bool {
        self.first_bytes.may_start(text, at)
    }

    /// Whether the kind joins the combined search by its trigger only.
    #[cfg(test)]
    pub(super) fn has_trigger(&self) -> bool {
        self.regexes.trigger.is_some()
    }

    /// How far the kind's match at `at` may read: the text's end, or for a kind with a trigger,
    /// `None` when its trigger does not match at `at` (neither can the kind), else the start of
    /// the next trigger of the kind [`VALUE_CUT_FLOOR`] bytes or more past this trigger's end
    /// (a value holding its own kind's name and gap there ends before it; the value after that
    /// name is the next match's, checked on its own). `next` remembers the search.
    pub(super) fn value_limit(
        &self,
        text: &str,
        at: usize,
        next: &mut NextTrigger,
    ) -> Option<usize> {
        if self.regexes.trigger.is_none() {
            return Some(text.len());
        }
        let trigger = self.regexes().trigger.as_ref()?;
        let trigger_end = trigger.anchored.end(text, at)?;
        let from = ceil_char_boundary(text, trigger_end.saturating_add(VALUE_CUT_FLOOR));
        if !(next.known && next.from <= from && from <= next.found) {
            let found = match from < text.len() {
                true => trigger
                    .anywhere
                    .find_at(text, from)
                    .map(|found| found.start()),
                false => None,
            };
            *next = NextTrigger {
                from,
                found: found.unwrap_or(text.len()),
                known: true,
            };
        }
        Some(next.found.max(from))
    }

    /// The kind's match starting exactly at `at` (a char boundary of `text`), if any, with the
    /// part to replace; `None` when that part is empty.
    pub(super) fn match_at(&self, text: &str, at: usize) -> Option<KindMatch> {
        self.match_within(text, at, text.len())
    }

    /// [`Self::match_at`] ending by `limit` (a char boundary at or after `at`): the match reads
    /// no further, as if the text ended there.
    pub(super) fn match_within(&self, text: &str, at: usize, limit: usize) -> Option<KindMatch> {
        let regexes = self.regexes();
        let (offset, regex) = regexes.anchored.regex_at(text, at);
        let haystack = &text[offset..limit];
        let whole = regex.find(haystack)?;
        let (secret_start, secret_end) = match regexes.secret_group {
            None => (at, offset + whole.end()),
            Some(group) => {
                // Within the match only: the capture engines' cost grows with the haystack.
                let mut locations = regex.capture_locations();
                regex.captures_read(&mut locations, &haystack[..whole.end()])?;
                let (start, end) = locations.get(group)?;
                (offset + start, offset + end)
            }
        };
        (secret_start < secret_end).then_some(KindMatch {
            end: offset + whole.end(),
            secret_start,
            secret_end,
        })
    }
}

impl Anchored {
    /// `source` anchored at a position.
    fn build(source: &str) -> std::result::Result<Anchored, String> {
        Ok(Anchored {
            at_text_start: build(&format!(r"\A{source}"))?,
            after_char: build(&format!(r"\A(?s:.){source}"))?,
        })
    }

    /// The regex to run on `text[offset..]` for a match at `at`, and that offset.
    fn regex_at(&self, text: &str, at: usize) -> (usize, &Regex) {
        match text[..at].chars().next_back() {
            None => (0, &self.at_text_start),
            Some(previous) => (at - previous.len_utf8(), &self.after_char),
        }
    }

    /// The end of the match at `at`, if any.
    fn end(&self, text: &str, at: usize) -> Option<usize> {
        let (offset, regex) = self.regex_at(text, at);
        regex
            .find(&text[offset..])
            .map(|found| offset + found.end())
    }
}

/// Whether a kind's match is kept only when a check of its value confirms it.
pub(super) fn is_checked(extent: Extent) -> bool {
    matches!(
        extent,
        Extent::KeyValue | Extent::CookieValue | Extent::Checked(_)
    )
}

/// The first char boundary of `text` at or after `at` (the text's length past its end).
pub(super) fn ceil_char_boundary(text: &str, at: usize) -> usize {
    (at..text.len())
        .find(|&at| text.is_char_boundary(at))
        .unwrap_or(text.len())
}

/// The part of `pattern` before its `secret` group, as one group without named groups, when that
/// group stands at the top level of the pattern (not inside a group or an alternation) and
/// something comes before it; `None` otherwise. Every match of the pattern starts with a match
/// of this trigger at the same position.
fn trigger_source(pattern: &str) -> Option<String> {
    let opening = ["(?P<secret>", "(?<secret>"]
        .iter()
        .filter_map(|opening| pattern.find(opening))
        .min()?;
    let prefix = &pattern[..opening];
    let top_level = !prefix.is_empty() && group_depth_at_end(prefix) == Some(0);
    let trigger = strip_group_names(&wrap(prefix));
    (top_level && build(&trigger).is_ok()).then_some(trigger)
}

/// The depth of groups open at the end of `source` (escapes and character classes skipped), or
/// `None` when an alternation `|` stands at the top level (a prefix that is no concatenation).
fn group_depth_at_end(source: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut class_depth = 0usize;
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' => {
                class_depth += 1;
                if chars.peek() == Some(&'^') {
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    chars.next();
                }
            }
            ']' if class_depth > 0 => class_depth -= 1,
            _ if class_depth > 0 => {}
            '(' => depth += 1,
            ')' => depth = depth.checked_sub(1)?,
            '|' if depth == 0 => return None,
            _ => {}
        }
    }
    Some(depth)
}

/// Builds one regex with the per-pattern limits.
fn build(source: &str) -> std::result::Result<Regex, String> {
    RegexBuilder::new(source)
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_DFA_LIMIT)
        .build()
        .map_err(|error| error.to_string())
}

/// The pattern as one non-capturing group, so flags set inside it (`(?i)`) end with it and an
/// alternation inside it stays inside. A trailing `#` comment of verbose mode would swallow the
/// closing parenthesis; then the group closes on a new line (whitespace in verbose mode).
fn wrap(pattern: &str) -> String {
    let plain = format!("(?:{pattern})");
    if Regex::new(&plain).is_ok() {
        plain
    } else {
        format!("(?:{pattern}\n)")
    }
}

/// `source` with every named group made non-capturing (`(?P<name>` and `(?<name>` become `(?:`),
/// so several kinds with a `secret` group can share one regex. Escapes and character classes
/// (nested ones too) are copied as they are.
fn strip_group_names(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut class_depth = 0usize;
    let mut chars = source.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                if let Some((_, escaped)) = chars.next() {
                    out.push(escaped);
                }
            }
            '[' => {
                out.push(c);
                class_depth += 1;
                // `]` right after `[` or `[^` is a literal.
                if chars.peek().map(|&(_, next)| next) == Some('^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek().map(|&(_, next)| next) == Some(']') {
                    out.push(']');
                    chars.next();
                }
            }
            ']' if class_depth > 0 => {
                out.push(c);
                class_depth -= 1;
            }
            '(' if class_depth == 0 => {
                let rest = &source[at..];
                let name_start = ["(?P<", "(?<"]
                    .iter()
                    .find(|opening| rest.starts_with(**opening))
                    .map(|opening| opening.len());
                match name_start.and_then(|start| rest[start..].find('>').map(|end| start + end)) {
                    Some(name_end) => {
                        out.push_str("(?:");
                        // Skip the rest of `(?P<name>`.
                        while chars.peek().is_some_and(|&(next, _)| next <= at + name_end) {
                            chars.next();
                        }
                    }
                    None => out.push(c),
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Checks that stripping the group names kept the pattern's meaning: it compiles, has no named
/// group left, and lost exactly the named groups.
fn verify_stripped(alone: &Regex, stripped: &str) -> std::result::Result<(), String> {
    let named = alone.capture_names().flatten().count();
    let refused = || {
        "its named capture groups could not be isolated for the combined search; \
         remove verbose-mode comments that contain brackets"
            .to_string()
    };
    let stripped = build(stripped).map_err(|_| refused())?;
    let kept_unnamed = stripped.captures_len() + named == alone.captures_len();
    if kept_unnamed && stripped.capture_names().flatten().next().is_none() {
        Ok(())
    } else {
        Err(refused())
    }
}

/// Checks a user-supplied kind name: `[a-z0-9][a-z0-9-]{0,63}`.
pub(super) fn validate_kind_name(kind: &str) -> Result<()> {
    let bytes = kind.as_bytes();
    let valid = !bytes.is_empty()
        && bytes.len() <= MAX_KIND_LEN
        && (bytes[0].is_ascii_lowercase() || bytes[0].is_ascii_digit())
        && bytes
            .iter()
            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if valid {
        Ok(())
    } else {
        Err(Error::caller(
            ErrorCode::ValidationError,
            format!(
                "secret pattern kind {kind:?} is invalid: a kind is 1 to {MAX_KIND_LEN} \
                 characters of a-z, 0-9 and '-', starting with a letter or a digit"
            ),
        ))
    }
}

/// The error for a user pattern the `regex` crate refuses (or that is too large).
pub(super) fn refused_pattern(kind: &str, pattern: &str, reason: &str) -> Error {
    Error::caller(
        ErrorCode::ValidationError,
        format!(
            "secret pattern {pattern:?} of kind {kind:?} is refused: only linear-time regular \
             expressions (no look-around, no backreferences) compiling within {PATTERN_SIZE_LIMIT} \
             bytes are accepted; the regex engine reports: {reason}"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_names_are_stripped_outside_escapes_and_classes() {
        let cases: &[(&str, &str)] = &[
            (r"a(?P<secret>b)c", r"a(?:b)c"),
            (r"a(?<secret>b)(?<x>c)", r"a(?:b)(?:c)"),
            (r"(b)(?:c)(?i:d)", r"(b)(?:c)(?i:d)"),
            (r"\(?P<secret>b", r"\(?P<secret>b"),
            (r"[(?P<x>](?P<secret>y)", r"[(?P<x>](?:y)"),
            (r"[]()](?P<s>y)", r"[]()](?:y)"),
            (
                r"[^]\]([a-z[:digit:]]](?P<s>y)",
                r"[^]\]([a-z[:digit:]]](?:y)",
            ),
            ("(?x)a # (b)\n(?P<s>c)", "(?x)a # (b)\n(?:c)"),
        ];
        for (source, expected) in cases {
            assert_eq!(strip_group_names(source), *expected, "source {source:?}");
        }
    }

    #[test]
    fn a_trailing_verbose_comment_does_not_swallow_the_wrapping_group() {
        let kind = CompiledKind::compile("k".into(), "(?x) abc # the key", Extent::Match).unwrap();
        assert_eq!(kind.search_source, "(?:(?x) abc # the key\n)");
        assert!(kind.match_at("xabc", 1).is_some());
    }

    #[test]
    fn kind_names_follow_the_documented_rule() {
        let cases: &[(&str, bool)] = &[
            ("internal-token", true),
            ("k", true),
            ("0day", true),
            (&"a".repeat(64), true),
            (&"a".repeat(65), false),
            ("", false),
            ("-token", false),
            ("Token", false),
            ("my_token", false),
            ("tok en", false),
            ("tökén", false),
        ];
        for (kind, valid) in cases {
            assert_eq!(validate_kind_name(kind).is_ok(), *valid, "kind {kind:?}");
        }
        let error = validate_kind_name("My Kind").unwrap_err();
        assert_eq!(error.code, ErrorCode::ValidationError);
        assert!(error.message.contains("\"My Kind\""), "{}", error.message);
    }

    #[test]
    fn a_match_is_confirmed_with_the_real_preceding_character() {
        let kind = CompiledKind::compile("k".into(), r"\bkey\d+", Extent::Match).unwrap();
        assert_eq!(
            kind.match_at("a key12", 2),
            Some(KindMatch {
                end: 7,
                secret_start: 2,
                secret_end: 7
            })
        );
        // `\b` sees the `x` before the slice.
        assert_eq!(kind.match_at("xkey12", 1), None);
        assert!(kind.match_at("key12", 0).is_some());
        // Multi-byte preceding character.
        assert!(kind.match_at("é key1", 3).is_some());
        let group =
            CompiledKind::compile("k".into(), r"id=(?P<secret>\w*);", Extent::Match).unwrap();
        assert_eq!(
            group.match_at("id=abc;", 0),
            Some(KindMatch {
                end: 7,
                secret_start: 3,
                secret_end: 6
            })
        );
        // An empty secret is no secret.
        assert_eq!(group.match_at("id=;", 0), None);
    }
}
