//! Bounded quoting: every message that quotes a value (a model's argument, a tool name it sent, a
//! key, a plan reference) shows at most [`MAX_QUOTED_BYTES`] of it, cut on a char boundary and
//! saying how much was left out. A 20 KB argument costs the model a kilobyte to read, not twenty.
//!
//! A cut never leaves part of a secret: the text is searched for the built-in secret kinds up to
//! [`SECRET_REACH`] bytes past the cut, and a secret the cut would fall inside, or whose
//! context after it the cut takes away (`@host` after a URL's password), is left out whole
//! (the cut moves back to its start). What is shown is scrubbed later like any text, but
//! the part of a token before a cut is no longer recognizable there (36 of a GitHub token's 40
//! characters).

use std::io;
use std::sync::OnceLock;

use serde_json::Value;

use crate::json_text::push_json_string;
use crate::secrets::SecretScanner;

/// The most of one value quoted in a message, in bytes.
pub const MAX_QUOTED_BYTES: usize = 1024;

/// What follows a cut quote: `... (N more bytes not shown)`.
fn cut_note(out: &mut String, omitted: usize) {
    out.push_str(&format!("... ({omitted} more bytes not shown)"));
}

/// How far past a cut the text is searched for a secret the cut would split, in bytes: the
/// longest token of a built-in kind is far shorter (a private key's body is not, but its BEGIN
/// line alone is found).
pub const SECRET_REACH: usize = 4096;

/// The longest prefix of `text` of at most `max` bytes that ends on a char boundary and not
/// inside a secret (see the module's doc).
pub fn prefix_at_char_boundary(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let end = char_boundary_before(text, max);
    let reach = char_boundary_before(text, max.saturating_add(SECRET_REACH));
    &text[..cut_outside_secrets(&text[..reach], end)]
}

/// The greatest char boundary of `text` at or before `at`.
fn char_boundary_before(text: &str, at: usize) -> usize {
    let mut end = at.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// `cut` (a char boundary of `text`), moved back to the start of the first secret of `text`
/// (built-in kinds) that the text before the cut would not show as a secret: one the cut falls
/// inside, or one whose context after it is cut away (a URL's password before its `@host`).
fn cut_outside_secrets(text: &str, cut: usize) -> usize {
    let Some(scanner) = builtin_scanner() else {
        return cut;
    };
    let whole = scanner.find(text);
    if !whole.iter().any(|secret| secret.start < cut) {
        return cut;
    }
    let shown = scanner.find(&text[..cut]);
    let mut seen = shown.iter().peekable();
    for secret in whole.iter().take_while(|secret| secret.start < cut) {
        while seen.next_if(|found| found.end <= secret.start).is_some() {}
        let found_again = seen
            .peek()
            .is_some_and(|found| found.start < secret.end && secret.end <= cut);
        if !found_again {
            return secret.start;
        }
    }
    cut
}

/// The scanner of the built-in kinds, built once per process (`None` if they do not compile,
/// which their own tests rule out: a quote is then cut where the bound falls).
fn builtin_scanner() -> Option<&'static SecretScanner> {
    static SCANNER: OnceLock<Option<SecretScanner>> = OnceLock::new();
    SCANNER
        .get_or_init(|| SecretScanner::new(&[]).ok())
        .as_ref()
}

/// `text` itself when it is at most [`MAX_QUOTED_BYTES`] long, else its first bytes (cut on a
/// char boundary) followed by `... (N more bytes not shown)`.
pub fn bounded(text: &str) -> String {
    bounded_to(text, MAX_QUOTED_BYTES)
}

/// [`bounded`] with another limit, for a whole message that may hold several quotes.
pub fn bounded_to(text: &str, max: usize) -> String {
    let shown = prefix_at_char_boundary(text, max);
    let mut out = shown.to_owned();
    if shown.len() < text.len() {
        cut_note(&mut out, text.len() - shown.len());
    }
    out
}

/// `text` as a JSON string literal (`"..."`), its content cut to [`MAX_QUOTED_BYTES`] bytes:
/// `"abc"... (N more bytes not shown)`. Only the part shown is escaped, so quoting a 10 MB string
/// costs a kilobyte.
pub fn quoted(text: &str) -> String {
    let shown = prefix_at_char_boundary(text, MAX_QUOTED_BYTES);
    let mut out = String::with_capacity(shown.len() + 2);
    push_json_string(&mut out, shown);
    if shown.len() < text.len() {
        cut_note(&mut out, text.len() - shown.len());
    }
    out
}

/// `value` as compact JSON cut to [`MAX_QUOTED_BYTES`] bytes, with the number of bytes left out.
/// The value is serialized once into a writer that keeps only the first bytes, so a huge value
/// costs its serialization time but never its size in memory.
pub fn quoted_json(value: &Value) -> String {
    let mut sink = Head {
        kept: Vec::with_capacity(MAX_QUOTED_BYTES.min(256)),
        total: 0,
    };
    // Writing into `Head` never fails and a `Value` always serializes.
    let _ = serde_json::to_writer(&mut sink, value);
    // `kept` may end inside a multi-byte char: keep only the whole chars before it.
    let end = std::str::from_utf8(&sink.kept).map_or_else(|e| e.valid_up_to(), str::len);
    let valid = String::from_utf8_lossy(&sink.kept[..end]);
    let mut out = prefix_at_char_boundary(&valid, MAX_QUOTED_BYTES).to_owned();
    let shown = out.len();
    if shown < sink.total {
        cut_note(&mut out, sink.total - shown);
    }
    out
}

/// A writer keeping the first [`MAX_QUOTED_BYTES`] bytes (and [`SECRET_REACH`] more, to see a
/// secret the cut would split) and counting the rest.
struct Head {
    kept: Vec<u8>,
    total: usize,
}

impl io::Write for Head {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let room = (MAX_QUOTED_BYTES + SECRET_REACH).saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&bytes[..room.min(bytes.len())]);
        self.total += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The most of the model's arguments quoted back in an error message, in bytes.
pub const MAX_QUOTED_ARGS: usize = MAX_QUOTED_BYTES;

/// The arguments as compact JSON, cut to at most [`MAX_QUOTED_ARGS`] bytes on a char boundary.
pub fn quote_arguments(args: &serde_json::Value) -> String {
    quoted_json(args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The part of a quote before its cut note, and the number of bytes the note says were cut.
    fn split(quote: &str) -> (&str, Option<usize>) {
        match quote.rsplit_once("... (") {
            Some((shown, note)) => {
                let n = note.strip_suffix(" more bytes not shown)").unwrap();
                (shown, Some(n.parse().unwrap()))
            }
            None => (quote, None),
        }
    }

    #[test]
    fn short_values_are_quoted_whole() {
        assert_eq!(bounded("abc"), "abc");
        assert_eq!(quoted("a\"b"), "\"a\\\"b\"");
        assert_eq!(quoted_json(&json!({"a": [1, "x"]})), r#"{"a":[1,"x"]}"#);
    }

    #[test]
    fn long_values_are_cut_on_a_char_boundary_and_say_how_much() {
        // (text, bytes per char) for one-, two-, three- and four-byte chars
        for unit in ["a", "é", "€", "😀"] {
            let text = unit.repeat(20_000);
            for quote in [bounded(&text), quoted(&text), quoted_json(&json!(text))] {
                let (shown, cut) = split(&quote);
                let cut = cut.unwrap_or_else(|| panic!("no cut note in {quote:.80}"));
                assert!(shown.len() <= MAX_QUOTED_BYTES + 2, "{}", shown.len());
                assert!(shown.len() >= MAX_QUOTED_BYTES - 4, "{}", shown.len());
                let body = shown.trim_matches('"');
                assert!(body.chars().all(|c| unit.starts_with(c)), "{unit}");
                // What is shown and what was cut add up to the whole (quotes aside).
                let whole = if quote.starts_with('"') {
                    text.len() + 2
                } else {
                    text.len()
                };
                assert!(
                    shown.len() + cut == whole || body.len() + cut == text.len(),
                    "{unit}: {} + {cut} != {whole}",
                    shown.len()
                );
            }
        }
    }

    #[test]
    fn a_value_just_at_the_limit_is_not_cut() {
        let text = "x".repeat(MAX_QUOTED_BYTES);
        assert_eq!(bounded(&text), text);
        assert_eq!(split(&quoted(&text)).1, None);
    }

    #[test]
    fn a_huge_nested_value_is_cut_too() {
        let value = json!({"items": vec!["é".repeat(100); 1000]});
        let quote = quoted_json(&value);
        let (shown, cut) = split(&quote);
        assert!(shown.len() <= MAX_QUOTED_BYTES);
        assert_eq!(shown.len() + cut.unwrap(), value.to_string().len());
    }

    /// A secret of every built-in kind put across the cut at every offset, glued to letters on
    /// both sides or set in prose, through every bounded quote then scrubbed, as messages
    /// leave: no part of it is shown (the
    /// attack review's 14: 36 of a GitHub token's 40 characters survived a VALIDATION_ERROR).
    #[test]
    fn no_part_of_a_secret_survives_a_cut() {
        let body = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2W3x4Y5z6";
        let secrets: Vec<(String, &str)> = vec![
            (format!("ghp_{}", &body[..36]), &body[4..30]),
            (format!("sk-ant-api03-{body}{body}AA"), &body[10..40]),
            (
                format!("xoxb-1234567890-1234567890123-{}", &body[..24]),
                &body[2..20],
            ),
            ("AKIAABCDEFGHIJKLMNOP".to_string(), "ABCDEFGHIJKLM"),
            (format!("AIza{}", &body[..35]), &body[3..30]),
            (
                format!("Authorization: Bearer {}", &body[..40]),
                &body[3..35],
            ),
            (format!("postgres://app:{}@db/x", &body[..30]), &body[3..28]),
        ];
        let scanner = SecretScanner::new(&[]).unwrap();
        for (secret, material) in &secrets {
            let at_material = secret.find(material).unwrap();
            for shift in 0..secret.len() {
                for filler in ["z", " "] {
                    let before = filler.repeat(MAX_QUOTED_BYTES - shift);
                    let text = format!("{before}{secret}{}", filler.repeat(1500));
                    for quote in [bounded(&text), quoted(&text), quoted_json(&json!(text))] {
                        // The quote as it leaves: scrubbed like every message.
                        let quote = scanner.scrub(&quote, &mut Default::default()).into_owned();
                        let (shown, _) = split(&quote);
                        // The part of the material a cut at this shift would show.
                        let kept = (shift.saturating_sub(at_material)).min(material.len());
                        if kept >= 8 {
                            assert!(
                                !shown.contains(&material[..kept]),
                                "{secret} cut at {shift} ({filler:?}): {}",
                                &shown[shown.len().saturating_sub(60)..]
                            );
                        }
                    }
                }
            }
        }
        // A quote without secrets keeps its full kilobyte.
        let plain = "word ".repeat(1000);
        assert_eq!(split(&bounded(&plain)).0.len(), MAX_QUOTED_BYTES);
    }

    /// Every cut asks the one built-in scanner, built once per process (it was compiled again
    /// for each cut), and still never lands inside a secret.
    #[test]
    fn cuts_share_one_scanner() {
        let first = builtin_scanner().unwrap();
        let token = format!("ghp_{}", "a1B2c3D4e5".repeat(4));
        let text = format!(
            "{}{token}{}",
            "z".repeat(MAX_QUOTED_BYTES - 10),
            "z".repeat(100)
        );
        let shown = prefix_at_char_boundary(&text, MAX_QUOTED_BYTES);
        assert_eq!(shown.len(), MAX_QUOTED_BYTES - 10);
        assert!(std::ptr::eq(first, builtin_scanner().unwrap()));
    }
}
