//! A secret found once is replaced wherever the text spells it again.
//!
//! A credential found by its name or scheme word is found only where the name is: in
//! `expect(hashPassword('Passw0rd!')).not.toBe('Passw0rd!')` the second literal has no name
//! before it, and it reached the model while the first was replaced (the fourth user review's
//! 12). Every found secret of [`REPEAT_MIN`] bytes or more is looked for again in the whole
//! text, its other occurrences replaced under its kind.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use super::{union, SecretMatch};

/// The fewest bytes of a secret that is looked for again (as few as a credential found by its
/// name holds).
const REPEAT_MIN: usize = 8;

/// The most distinct secrets of one text looked for again; each is at most a few hundred bytes,
/// so the search built from them stays small.
const REPEAT_LIMIT: usize = 256;

/// `found` (sorted, disjoint, in `text`) with every other occurrence of a found secret's text
/// added under its kind, in any of its [`spellings`]; a run of found secrets' texts sorted and
/// disjoint as `found` is.
pub(super) fn with_repeats(text: &str, found: Vec<SecretMatch>) -> Vec<SecretMatch> {
    let mut seen: HashSet<Cow<str>> = HashSet::new();
    let mut patterns: Vec<Cow<str>> = Vec::new();
    let mut kinds: Vec<Arc<str>> = Vec::new();
    let mut values = 0;
    for secret in &found {
        let value = &text[secret.start..secret.end];
        if value.len() < REPEAT_MIN
            || seen.contains(value)
            || !super::credential::looks_like_secret_alone(value)
        {
            continue;
        }
        let others = spellings(value).into_iter().map(Cow::Owned);
        for spelling in std::iter::once(Cow::Borrowed(value)).chain(others) {
            if spelling.len() >= REPEAT_MIN && seen.insert(spelling.clone()) {
                patterns.push(spelling);
                kinds.push(secret.kind.clone());
            }
        }
        values += 1;
        if values == REPEAT_LIMIT {
            break;
        }
    }
    if patterns.is_empty() {
        return found;
    }
    // One Aho-Corasick automaton over the values: built in time linear in their length (a
    // regex of the same alternation compiles a Thompson NFA per text), searched in one pass;
    // leftmost-longest, so where two start at one place the longer is taken.
    // A DFA (the builder's choice for few patterns) costs more to build than one pass saves.
    let Ok(search) = aho_corasick::AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostLongest)
        .kind(Some(aho_corasick::AhoCorasickKind::NoncontiguousNFA))
        .build(patterns.iter().map(|pattern| pattern.as_bytes()))
    else {
        return found;
    };
    let repeats: Vec<SecretMatch> = search
        .find_iter(text)
        .map(|at| SecretMatch {
            start: at.start(),
            end: at.end(),
            kind: kinds[at.pattern().as_usize()].clone(),
        })
        .collect();
    union(found, repeats)
}

/// The other spellings of a found secret that the layers of one text give it: inside a JSON
/// string (`a"b` as `a\"b`) and out of one (`a\\b` as `a\b`), percent-encoded (`a;b` as
/// `a%3Bb`) and decoded, HTML-escaped (`a&b` as `a&amp;b`) and unescaped. A secret found in one
/// layer and echoed in another is replaced there too (the attack review 5's 5).
fn spellings(value: &str) -> Vec<String> {
    /// What `encodeURIComponent` leaves as it is: letters, digits and `-_.!~*'()`.
    const URI_COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'!')
        .remove(b'~')
        .remove(b'*')
        .remove(b'\'')
        .remove(b'(')
        .remove(b')');
    // A value of letters, digits and `-_.~` is spelled the same in every layer: most tokens.
    if value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~'))
    {
        return Vec::new();
    }
    let mut out = Vec::new();
    if let Ok(quoted) = serde_json::to_string(value) {
        out.push(quoted[1..quoted.len() - 1].to_owned());
    }
    if value.contains('\\') {
        if let Ok(unescaped) = serde_json::from_str::<String>(&format!("\"{value}\"")) {
            out.push(unescaped);
        }
    }
    out.push(utf8_percent_encode(value, URI_COMPONENT).to_string());
    if value.contains('%') {
        if let Ok(decoded) = percent_decode_str(value).decode_utf8() {
            out.push(decoded.into_owned());
        }
    }
    out.push(html_escape::encode_safe(value).into_owned());
    if value.contains('&') {
        out.push(html_escape::decode_html_entities(value).into_owned());
    }
    out.retain(|spelling| spelling != value);
    out
}

#[cfg(test)]
mod tests {
    fn scrubbed(text: &str) -> String {
        let scanner = crate::secrets::SecretScanner::new(&[]).unwrap();
        let mut counts = Default::default();
        scanner.scrub(text, &mut counts).into_owned()
    }

    #[test]
    fn a_found_secret_is_replaced_wherever_it_is_spelled_again() {
        let cases = [
            (
                "expect(hashPassword('Passw0rd!')).not.toBe('Passw0rd!')",
                "expect(hashPassword('[redacted:credential-parameter]')).not.toBe('[redacted:credential-parameter]')",
            ),
            (
                "password=Summer2024\nlogin ok for Summer2024 (Summer2024x)",
                "password=[redacted:credential-parameter]\nlogin ok for [redacted:credential-parameter] ([redacted:credential-parameter]x)",
            ),
            (
                "Authorization: Bearer q8Z2mX4vL9pR7tY1\nretry with q8Z2mX4vL9pR7tY1",
                "Authorization: Bearer [redacted:bearer-token]\nretry with [redacted:bearer-token]",
            ),
            // Under 8 bytes nothing is looked for again (and nothing is found by its name).
            ("password=hunter2 hunter2", "password=hunter2 hunter2"),
            ("no secret here: Passw0rd!", "no secret here: Passw0rd!"),
        ];
        for (text, expected) in cases {
            assert_eq!(scrubbed(text), expected, "{text:?}");
        }
    }

    /// A secret found in one layer of a text and echoed in another: JSON-escaped and raw,
    /// percent-encoded, HTML-escaped (the attack review 5's 5).
    #[test]
    fn a_found_secret_is_replaced_in_its_other_spellings() {
        let cases = [
            // Found in a JSON string (escaped backslash), echoed raw.
            (
                r#"{"password": "Zx9\\Qw3eRt7y"} then Zx9\Qw3eRt7y"#,
                "Zx9\\Qw3eRt7y",
            ),
            // Found raw, echoed inside a JSON string.
            (
                "password=Zx9\"Qw3eRt7y\nlog: {\"p\":\"Zx9\\\"Qw3eRt7y\"}",
                "Qw3eRt7y",
            ),
            // Found raw, echoed percent-encoded and HTML-escaped.
            (
                "password: Zx9;Qw3&eRt7y\nGET /?q=Zx9%3BQw3%26eRt7y <p>Zx9;Qw3&amp;eRt7y</p>",
                "eRt7y",
            ),
        ];
        for (text, survivor) in cases {
            let out = scrubbed(text);
            assert!(!out.contains(survivor), "{text:?} -> {out:?}");
        }
    }

    /// Many distinct secrets and many repeats: one search, linear in the text.
    #[test]
    fn many_secrets_and_repeats_stay_linear() {
        let mut text = String::new();
        for n in 0..2000 {
            text.push_str(&format!("password=Pw{n:08}x\n"));
        }
        let repeats = "Pw00000007x ".repeat(1 << 15);
        text.push_str(&repeats);
        let out = scrubbed(&text);
        assert!(!out.contains("Pw00000007x"), "a repeat survived");
        assert!(
            !out.contains("Pw00001999x"),
            "a secret past the limit survived by name"
        );
    }
}
