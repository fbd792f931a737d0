//! A secret found once is replaced wherever the text spells it again.
//!
//! A credential found by its name or scheme word is found only where the name is: in
//! `expect(hashPassword('Passw0rd!')).not.toBe('Passw0rd!')` the second literal has no name
//! before it, and it reached the model while the first was replaced (the fourth user review's
//! 12). Every found secret of [`REPEAT_MIN`] bytes or more is looked for again in the whole
//! text, its other occurrences replaced under its kind.

use std::collections::HashMap;
use std::sync::Arc;

use super::{union, SecretMatch};

/// The fewest bytes of a secret that is looked for again (as few as a credential found by its
/// name holds).
const REPEAT_MIN: usize = 8;

/// The most distinct secrets of one text looked for again; each is at most a few hundred bytes,
/// so the search built from them stays small.
const REPEAT_LIMIT: usize = 256;

/// `found` (sorted, disjoint, in `text`) with every other occurrence of a found secret's text
/// added under its kind; a run of found secrets' texts sorted and disjoint as `found` is.
pub(super) fn with_repeats(text: &str, found: Vec<SecretMatch>) -> Vec<SecretMatch> {
    let mut kinds: HashMap<&str, Arc<str>> = HashMap::new();
    let mut values: Vec<&str> = Vec::new();
    for secret in &found {
        let value = &text[secret.start..secret.end];
        if value.len() >= REPEAT_MIN
            && !kinds.contains_key(value)
            && super::credential::looks_like_secret_alone(value)
        {
            kinds.insert(value, secret.kind.clone());
            values.push(value);
            if values.len() == REPEAT_LIMIT {
                break;
            }
        }
    }
    if values.is_empty() {
        return found;
    }
    // One Aho-Corasick automaton over the values: built in time linear in their length (a
    // regex of the same alternation compiles a Thompson NFA per text), searched in one pass;
    // leftmost-longest, so where two start at one place the longer is taken.
    // A DFA (the builder's choice for few patterns) costs more to build than one pass saves.
    let Ok(search) = aho_corasick::AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostLongest)
        .kind(Some(aho_corasick::AhoCorasickKind::NoncontiguousNFA))
        .build(&values)
    else {
        return found;
    };
    let repeats: Vec<SecretMatch> = search
        .find_iter(text)
        .filter_map(|at| {
            Some(SecretMatch {
                start: at.start(),
                end: at.end(),
                kind: kinds.get(&text[at.start()..at.end()])?.clone(),
            })
        })
        .collect();
    union(found, repeats)
}

#[cfg(test)]
mod tests {
    fn scrubbed(text: &str) -> String {
        let scanner = crate::sanitize::secrets::SecretScanner::new(&[]).unwrap();
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
