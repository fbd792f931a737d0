//! [`StreamScrubber`]: secrets scrubbed from a text that arrives in pieces (a model's streamed
//! answer, its thinking, a call's arguments), so that no piece handed on carries a secret or a
//! part of one, even a secret split across pieces.
//!
//! A piece cannot be scrubbed alone (`sk-proj-A1b2` and `C3d4...` are no key apart), and text
//! sent cannot be taken back, so the text is searched as a whole as it grows, with the same
//! [`SecretScanner`] as every value that leaves the engine, and only text that cannot still
//! become part of a secret is sent:
//!
//! - the last [`HOLD_BYTES`] bytes wait: a secret is found from the text around it (a
//!   credential's name before its value, which ends within 256 bytes; a private key's BEGIN
//!   line; a mail's soft line breaks inside a token), and that much of what follows a secret's
//!   start is seen before any of it is sent;
//! - the word the cut falls in waits until it ends (up to [`SECRET_WINDOW`] characters, longer
//!   than any token kind), so a token is judged whole however long its parts were (a JWT is
//!   one only once its second dot arrived);
//! - a secret found that reaches past the cut waits whole (a private key until its END line):
//!   it is sent as `[redacted:<kind>]` once it ends, or when the stream is flushed.
//!
//! [`StreamScrubber::flush`] sends the rest (the end of the text, of the call's arguments, of
//! the turn). What is sent is the text with every secret the scanner found replaced by
//! `[redacted:<kind>]`.
//!
//! Not guaranteed: text that becomes a secret only through text more than [`HOLD_BYTES`] bytes
//! later, outside one word. The scanner replaces a literal named once wherever the text spells it
//! (`repeats.rs`): a value sent before its credential's name appears further on was sent as it
//! is. Its later spellings are replaced.
//!
//! The search is bounded: it covers the text not sent plus [`CONTEXT_BYTES`] bytes before it,
//! and while a secret waits whole it is searched again only once the text waiting has grown by
//! half, so a stream costs time linear in its length.

use std::sync::Arc;

use crate::sanitize::text::SECRET_WINDOW;
use crate::secrets::{redaction_label, SecretMatch, SecretScanner, STRADDLE_WINDOW};

/// The bytes at the end of the text that always wait: more than the longest value found by a
/// credential's name (256 bytes), the scanner's own window for a secret reaching past another.
pub const HOLD_BYTES: usize = STRADDLE_WINDOW;

/// How much of the text already sent is kept as context for what follows (a header's name
/// before the value that is still to come).
pub const CONTEXT_BYTES: usize = 1024;

/// The least text a search sends past [`HOLD_BYTES`]: pieces of a few bytes are searched once
/// per this many bytes, not once each.
const MIN_STEP: usize = 64;

/// A text arriving in pieces, scrubbed of secrets as it grows (see the module's doc).
#[derive(Debug)]
pub struct StreamScrubber {
    scanner: Arc<SecretScanner>,
    /// The text kept: up to [`CONTEXT_BYTES`] already sent, then what is not sent yet.
    text: String,
    /// Where the text not sent yet starts in `text`.
    sent: usize,
    /// The length of the text not sent at which it is searched again.
    next_search: usize,
}

impl StreamScrubber {
    /// A stream scrubbed with `scanner`.
    pub fn new(scanner: Arc<SecretScanner>) -> StreamScrubber {
        StreamScrubber {
            scanner,
            text: String::new(),
            sent: 0,
            next_search: HOLD_BYTES + MIN_STEP,
        }
    }

    /// A stream scrubbed with `scanner` whose text follows `context`, which is never sent (the
    /// name a value is under: `password: `).
    pub fn with_context(scanner: Arc<SecretScanner>, context: &str) -> StreamScrubber {
        let mut stream = StreamScrubber::new(scanner);
        stream.text.push_str(context);
        stream.sent = context.len();
        stream
    }

    /// Adds `piece` to the text; returns what may be sent now (often empty).
    pub fn push(&mut self, piece: &str) -> String {
        self.text.push_str(piece);
        let waiting = self.text.len() - self.sent;
        if waiting < self.next_search {
            return String::new();
        }
        let found = self.scanner.find(&self.text);
        let cut = self.safe_cut(&found);
        let sent = self.send_to(cut, &found);
        let waiting = self.text.len() - self.sent;
        self.next_search = if sent.is_empty() {
            // held by a secret or a word still growing: searched again once it grew by half
            (waiting + waiting / 2).max(HOLD_BYTES + MIN_STEP)
        } else {
            HOLD_BYTES + MIN_STEP
        };
        sent
    }

    /// Sends everything not sent yet: the text ended (or a part of it did). Later pieces go on
    /// after it, with the text before them as context.
    pub fn flush(&mut self) -> String {
        if self.sent == self.text.len() {
            return String::new();
        }
        let found = self.scanner.find(&self.text);
        let sent = self.send_to(self.text.len(), &found);
        self.next_search = HOLD_BYTES + MIN_STEP;
        sent
    }

    /// How far the text may be sent: [`HOLD_BYTES`] before its end, back to the start of the
    /// word that falls in (when shorter than [`SECRET_WINDOW`]), back to the start of a secret
    /// found reaching past it; never before what was sent.
    fn safe_cut(&self, found: &[SecretMatch]) -> usize {
        let text = &self.text;
        let mut cut = floor_char_boundary(text, text.len().saturating_sub(HOLD_BYTES));
        if cut <= self.sent {
            return self.sent;
        }
        if inside_word(text, cut) {
            let floor = cut.saturating_sub(SECRET_WINDOW).max(self.sent);
            match text[floor..cut].rfind(char::is_whitespace) {
                Some(at) => {
                    let space = &text[floor + at..];
                    let width = space.chars().next().map_or(1, char::len_utf8);
                    cut = floor + at + width;
                }
                // the word began before what was sent (sent up to it), or is too long to wait for
                None if floor == self.sent && cut - floor < SECRET_WINDOW => cut = self.sent,
                None => {}
            }
        }
        for secret in found {
            if secret.start < cut && secret.end > cut {
                cut = secret.start;
            }
        }
        cut.max(self.sent)
    }

    /// Sends the text up to `cut` with the secrets `found` in it replaced; keeps
    /// [`CONTEXT_BYTES`] of it as context.
    fn send_to(&mut self, cut: usize, found: &[SecretMatch]) -> String {
        if cut <= self.sent {
            return String::new();
        }
        let mut out = String::with_capacity(cut - self.sent);
        let mut copied = self.sent;
        for secret in found
            .iter()
            .filter(|secret| secret.end > self.sent && secret.start < cut)
        {
            // (a secret starting before what was sent is one found only now: its rest is replaced)
            out.push_str(&self.text[copied..secret.start.max(copied)]);
            out.push_str(&redaction_label(&secret.kind));
            copied = secret.end.min(cut).max(copied);
        }
        out.push_str(&self.text[copied..cut]);
        self.sent = cut;
        let keep_from = floor_char_boundary(&self.text, self.sent.saturating_sub(CONTEXT_BYTES));
        // dropped in steps of at least the context's size, not a few bytes per piece
        if keep_from >= CONTEXT_BYTES {
            self.text.drain(..keep_from);
            self.sent -= keep_from;
        }
        out
    }
}

/// Whether `at` falls inside a word: non-blank characters on both sides.
fn inside_word(text: &str, at: usize) -> bool {
    let before = text[..at].chars().next_back();
    let after = text[at..].chars().next();
    matches!((before, after), (Some(b), Some(a)) if !b.is_whitespace() && !a.is_whitespace())
}

/// The char boundary at or before `at`.
fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0";

    fn scrubber() -> StreamScrubber {
        StreamScrubber::new(Arc::new(SecretScanner::new(&[]).unwrap()))
    }

    /// Pushes `pieces` and flushes; returns each thing sent (empty ones left out) and all of it.
    fn stream(pieces: &[&str]) -> (Vec<String>, String) {
        let mut scrubber = scrubber();
        let mut sent: Vec<String> = pieces.iter().map(|piece| scrubber.push(piece)).collect();
        sent.push(scrubber.flush());
        sent.retain(|piece| !piece.is_empty());
        let all = sent.concat();
        (sent, all)
    }

    /// Every split of `text` into two pieces, and into pieces of `size` bytes.
    fn splits(text: &str, size: usize) -> Vec<Vec<&str>> {
        let mut all: Vec<Vec<&str>> = (1..text.len())
            .filter(|at| text.is_char_boundary(*at))
            .map(|at| vec![&text[..at], &text[at..]])
            .collect();
        let mut pieces = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let end = floor_char_boundary(text, (at + size).min(text.len())).max(at + 1);
            let end = (at + 1..=text.len())
                .find(|e| *e >= end && text.is_char_boundary(*e))
                .unwrap();
            pieces.push(&text[at..end]);
            at = end;
        }
        all.push(pieces);
        all
    }

    /// No piece sent holds a part of the key of 6 characters or more, wherever the text is split.
    fn assert_never_sent(text: &str, secret: &str) {
        for size in [1, 3, 7, 64] {
            for pieces in splits(text, size) {
                let (sent, all) = stream(&pieces);
                assert!(!all.contains(secret), "{pieces:?}: {all}");
                assert!(all.contains("[redacted:"), "{pieces:?}: {all}");
                for piece in &sent {
                    for at in 0..secret.len().saturating_sub(6) {
                        assert!(
                            !piece.contains(&secret[at..at + 6]),
                            "{pieces:?} sent {piece:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_key_split_anywhere_is_never_sent_in_part() {
        assert_never_sent(&format!("Using key {KEY} now, then more text."), KEY);
        assert_never_sent(KEY, KEY);
        assert_never_sent(&format!("{{\"key\":\"{KEY}\"}}"), KEY);
    }

    #[test]
    fn a_value_found_by_its_credential_name_is_never_sent_in_part() {
        let value = "Zx9Qw3Er7Ty1Ui5Op8As2Df";
        assert_never_sent(&format!("config:\npassword = {value}\nother = 1\n"), value);
        assert_never_sent(&format!("Authorization: Bearer {value}{value}"), value);
    }

    #[test]
    fn a_private_key_waits_until_its_end_and_goes_as_one_label() {
        let body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n".repeat(40);
        let text = format!(
            "Here it is:\n-----BEGIN PRIVATE KEY-----\n{body}-----END PRIVATE KEY-----\nDone, {}",
            "and more words after it ".repeat(200)
        );
        for size in [5, 50, 500] {
            let pieces = splits(&text, size).pop().unwrap();
            let (sent, all) = stream(&pieces);
            assert!(!all.contains("MIIEvQIBADANBgkqhkiG9w0"), "{all}");
            assert!(
                all.starts_with("Here it is:\n[redacted:private-key]"),
                "{all}"
            );
            assert!(all.ends_with("and more words after it "), "{all}");
            // the text after the key is sent before the stream ends
            assert!(sent.len() > 2, "{size}: {sent:?}");
        }
    }

    #[test]
    fn text_without_secrets_is_sent_whole_and_in_order_and_soon() {
        let text = "The quick brown fox jumps over the lazy dog. ".repeat(100);
        let pieces = splits(&text, 7).pop().unwrap();
        let mut scrubber = scrubber();
        let mut all = String::new();
        for (i, piece) in pieces.iter().enumerate() {
            all.push_str(&scrubber.push(piece));
            // never more than the hold, a word and a step behind
            let pushed: usize = pieces[..=i].iter().map(|p| p.len()).sum();
            assert!(pushed - all.len() <= HOLD_BYTES + MIN_STEP + 16, "{i}");
        }
        all.push_str(&scrubber.flush());
        assert_eq!(all, text);
    }

    #[test]
    fn words_are_sent_whole() {
        let text = format!("{} ", "word ".repeat(200));
        let mut scrubber = scrubber();
        let mut sent = String::new();
        for piece in splits(&text, 3).pop().unwrap() {
            sent.push_str(&scrubber.push(piece));
            // what was sent ends at the end of a word or after a blank, never inside a word
            assert!(
                sent.is_empty() || !inside_word(&text, sent.len()),
                "{sent:?}"
            );
        }
        assert!(!sent.is_empty());
    }

    #[test]
    fn a_context_is_read_and_never_sent() {
        let mut scrubber =
            StreamScrubber::with_context(Arc::new(SecretScanner::new(&[]).unwrap()), "password: ");
        assert_eq!(scrubber.push("Zx9Qw3Er7Ty1Ui5Op8As2Df"), "");
        assert_eq!(scrubber.flush(), "[redacted:credential-parameter]");
    }

    #[test]
    fn a_word_longer_than_the_window_is_not_held_to_its_end() {
        let text = "a".repeat(3 * SECRET_WINDOW);
        let mut scrubber = scrubber();
        let mut sent = String::new();
        for piece in splits(&text, 100).pop().unwrap() {
            sent.push_str(&scrubber.push(piece));
        }
        assert!(sent.len() >= SECRET_WINDOW, "{}", sent.len());
        sent.push_str(&scrubber.flush());
        assert_eq!(sent, text);
    }

    #[test]
    fn flushing_keeps_the_context_for_what_follows() {
        let mut scrubber = scrubber();
        assert_eq!(scrubber.push("Authorization: Bearer "), "");
        assert_eq!(scrubber.flush(), "Authorization: Bearer ");
        scrubber.push("Zx9Qw3Er7Ty1Ui5Op8As2DfZx9Qw3Er7Ty1Ui5Op8As2Df");
        assert_eq!(scrubber.flush(), "[redacted:bearer-token]");
    }

    #[test]
    fn a_long_stream_is_searched_a_bounded_number_of_times() {
        // a private key that never ends waits whole; its searches grow geometrically
        let mut scrubber = scrubber();
        let mut searches = 0;
        scrubber.push("-----BEGIN PRIVATE KEY-----\n");
        let line = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n";
        for _ in 0..20_000 {
            let before = scrubber.next_search;
            assert_eq!(scrubber.push(line), "");
            if scrubber.next_search != before {
                searches += 1;
            }
        }
        assert!(searches < 40, "{searches}");
        assert!(scrubber.flush().starts_with("[redacted:private-key]"));
    }
}
