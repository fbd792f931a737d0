//! Tool-call ids a provider accepts: the rule of each target, and a deterministic rewrite for ids
//! that break it.
//!
//! A valid id is never touched. An invalid one keeps its allowed characters (cut to leave room)
//! and gains a fixed-width base62 suffix of the FNV-1a 64 hash of the whole original id, so two
//! ids that sanitize to the same text still come out different.

/// What an id must look like: a rule. Which rule a wire's ids follow is said by its provider
/// ([`crate::provider::Provider::ids`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdTarget {
    /// 1 to 40 ASCII letters and digits: accepted by every provider.
    Strict,
    /// Exactly 9 ASCII letters and digits (Mistral's rule).
    Strict9,
    /// 1 to 64 ASCII letters, digits, `_` and `-` (OpenAI Chat, Anthropic, Gemini).
    Word,
    /// As [`IdTarget::Word`], and an id starting `fc_` is a Responses `function_call` item id,
    /// which must not end in `_` (OpenAI Responses).
    WordOrItem,
}

impl IdTarget {
    /// The character set and length bounds of the target.
    fn rule(self) -> Rule {
        match self {
            IdTarget::Strict => Rule {
                word_marks: false,
                min: 1,
                max: 40,
            },
            IdTarget::Strict9 => Rule {
                word_marks: false,
                min: 9,
                max: 9,
            },
            IdTarget::Word | IdTarget::WordOrItem => Rule {
                word_marks: true,
                min: 1,
                max: MAX_WORD_ID,
            },
        }
    }
}

/// The longest id the wires with `[a-zA-Z0-9_-]` ids accept.
const MAX_WORD_ID: usize = 64;

/// Width of the hash suffix: 62^11 > 2^64, so the whole hash fits.
const SUFFIX_LEN: usize = 11;

/// The prefix of Responses `function_call` item ids.
const ITEM_PREFIX: &str = "fc_";

/// An id rule: ASCII letters and digits, plus `_` and `-` when `word_marks`, `min..=max` long.
#[derive(Clone, Copy)]
struct Rule {
    word_marks: bool,
    min: usize,
    max: usize,
}

impl Rule {
    fn allows(self, b: u8) -> bool {
        b.is_ascii_alphanumeric() || (self.word_marks && (b == b'_' || b == b'-'))
    }

    fn accepts(self, id: &str) -> bool {
        (self.min..=self.max).contains(&id.len()) && id.bytes().all(|b| self.allows(b))
    }
}

/// Whether `id` is a valid tool-call id for `target` (for [`IdTarget::WordOrItem`], an `fc_` id
/// must be a valid item id).
pub fn is_valid_tool_call_id(id: &str, target: IdTarget) -> bool {
    if target == IdTarget::WordOrItem && id.starts_with(ITEM_PREFIX) {
        return is_valid_item_id(id);
    }
    target.rule().accepts(id)
}

/// An id valid for `target`: `id` itself when it is already valid; otherwise its allowed
/// characters, cut to leave room, followed by a base62 hash of the whole original id (for
/// 9-character targets the hash alone). Deterministic; distinct inputs give distinct outputs
/// unless their 64-bit hashes collide. For [`IdTarget::WordOrItem`] an `fc_` id is an item id
/// and follows its rule ([`normalize_item_id`]: never ending in `_`).
pub fn normalize_tool_call_id(id: &str, target: IdTarget) -> String {
    if target == IdTarget::WordOrItem && id.starts_with(ITEM_PREFIX) {
        return normalize_item_id(id);
    }
    let rule = target.rule();
    if rule.accepts(id) {
        return id.to_owned();
    }
    let width = SUFFIX_LEN.min(rule.max);
    let mut out = String::with_capacity(rule.max);
    push_allowed(&mut out, id, rule, rule.max - width);
    push_base62(&mut out, fnv1a64(id.as_bytes()), width);
    out
}

/// A Responses `function_call` item id: `fc_` followed by `[a-zA-Z0-9_-]`, at most 64 long, not
/// ending in `_`. A valid id is returned unchanged; otherwise `fc_`, the allowed characters of
/// the id (without a leading `fc_`), and a base62 hash of the whole original id.
pub fn normalize_item_id(id: &str) -> String {
    if is_valid_item_id(id) {
        return id.to_owned();
    }
    let rule = IdTarget::Word.rule();
    let body = id.strip_prefix(ITEM_PREFIX).unwrap_or(id);
    let mut out = String::with_capacity(MAX_WORD_ID);
    out.push_str(ITEM_PREFIX);
    push_allowed(
        &mut out,
        body,
        rule,
        MAX_WORD_ID - ITEM_PREFIX.len() - SUFFIX_LEN,
    );
    push_base62(&mut out, fnv1a64(id.as_bytes()), SUFFIX_LEN);
    out
}

/// Whether `id` is a valid Responses `function_call` item id.
fn is_valid_item_id(id: &str) -> bool {
    let rule = IdTarget::Word.rule();
    id.len() > ITEM_PREFIX.len()
        && id.starts_with(ITEM_PREFIX)
        && !id.ends_with('_')
        && rule.accepts(id)
}

/// Appends at most `room` of the characters of `id` that `rule` allows, in order.
fn push_allowed(out: &mut String, id: &str, rule: Rule, room: usize) {
    out.extend(
        id.bytes()
            .filter(|&b| rule.allows(b))
            .take(room)
            .map(char::from),
    );
}

/// FNV-1a 64 of `bytes`.
fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(PRIME))
}

/// Appends the last `width` base62 digits of `n` (zero-padded), `width` at most 11.
fn push_base62(out: &mut String, mut n: u64, width: usize) {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut buf = [b'0'; SUFFIX_LEN];
    let width = width.min(SUFFIX_LEN);
    for slot in buf[..width].iter_mut().rev() {
        *slot = DIGITS[(n % 62) as usize];
        n /= 62;
    }
    out.extend(buf[..width].iter().map(|&b| char::from(b)));
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use proptest::prelude::*;

    use super::*;

    const ALL_TARGETS: [IdTarget; 4] = [
        IdTarget::Strict,
        IdTarget::Strict9,
        IdTarget::Word,
        IdTarget::WordOrItem,
    ];

    #[test]
    fn validity_per_target() {
        let long64 = "a".repeat(64);
        let long65 = "a".repeat(65);
        let long40 = "a".repeat(40);
        let long41 = "a".repeat(41);
        // (id, strict, strict9, word)
        let cases: [(&str, bool, bool, bool); 12] = [
            ("", false, false, false),
            ("a", true, false, true),
            ("abcDEF123", true, true, true),
            ("abcDEF12", true, false, true),
            ("abcDEF1234", true, false, true),
            ("call_abc", false, false, true),
            ("toolu-01", false, false, true),
            ("call.1", false, false, false),
            ("caf\u{e9}", false, false, false),
            (&long40, true, false, true),
            (&long41, false, false, true),
            (&long64, false, false, true),
        ];
        for (id, strict, strict9, word) in cases {
            assert_eq!(
                is_valid_tool_call_id(id, IdTarget::Strict),
                strict,
                "{id:?}"
            );
            assert_eq!(
                is_valid_tool_call_id(id, IdTarget::Strict9),
                strict9,
                "{id:?}"
            );
            for target in [IdTarget::Word, IdTarget::WordOrItem] {
                assert_eq!(is_valid_tool_call_id(id, target), word, "{id:?} {target:?}");
            }
        }
        assert!(!is_valid_tool_call_id(&long65, IdTarget::Word));
    }

    #[test]
    fn valid_ids_are_kept_unchanged_for_every_target() {
        for target in ALL_TARGETS {
            for id in ["abcDEF123", "Z", "call_x-1", &"b".repeat(64)] {
                if is_valid_tool_call_id(id, target) {
                    assert_eq!(normalize_tool_call_id(id, target), id, "{target:?}");
                }
            }
        }
        assert_eq!(
            normalize_tool_call_id("abcDEF123", IdTarget::Strict9),
            "abcDEF123"
        );
        assert_eq!(
            normalize_tool_call_id("toolu_01A-b", IdTarget::Word),
            "toolu_01A-b"
        );
    }

    #[test]
    fn invalid_ids_keep_their_allowed_characters_and_gain_a_hash() {
        // (id, target, expected prefix, expected length)
        let long = format!("call_{}", "x".repeat(70));
        let cases = [
            ("call_abc", IdTarget::Strict, "callabc", 7 + SUFFIX_LEN),
            ("call.1", IdTarget::Word, "call1", 5 + SUFFIX_LEN),
            ("", IdTarget::Strict, "", SUFFIX_LEN),
            ("", IdTarget::Word, "", SUFFIX_LEN),
            ("\u{e9}\u{e9}", IdTarget::Word, "", SUFFIX_LEN),
            (&long, IdTarget::Word, "call_xxxx", 64),
            (&long, IdTarget::Strict, "callxxxx", 40),
        ];
        for (id, target, prefix, len) in cases {
            let out = normalize_tool_call_id(id, target);
            assert!(out.starts_with(prefix), "{id:?} -> {out:?}");
            assert_eq!(out.len(), len, "{id:?} -> {out:?}");
            assert!(is_valid_tool_call_id(&out, target), "{id:?} -> {out:?}");
            assert_eq!(normalize_tool_call_id(id, target), out, "deterministic");
        }
    }

    #[test]
    fn strict_ids_are_alphanumeric_and_at_most_40() {
        for id in ["call_1", "a-b", "x".repeat(41).as_str(), "", "\u{1F600}"] {
            let out = normalize_tool_call_id(id, IdTarget::Strict);
            assert!(out.bytes().all(|b| b.is_ascii_alphanumeric()), "{out:?}");
            assert!((1..=40).contains(&out.len()), "{out:?}");
        }
    }

    #[test]
    fn strict9_ids_are_exactly_nine_alphanumerics() {
        for target in [IdTarget::Strict9] {
            for id in ["call_1", "abc", "abcdefghij", "", "toolu_01XYZ"] {
                let out = normalize_tool_call_id(id, target);
                assert_eq!(out.len(), 9, "{out:?}");
                assert!(out.bytes().all(|b| b.is_ascii_alphanumeric()), "{out:?}");
            }
        }
    }

    #[test]
    fn ids_that_sanitize_alike_stay_distinct() {
        for target in ALL_TARGETS {
            let a = normalize_tool_call_id("a-b", target);
            let b = normalize_tool_call_id("a_b", target);
            let c = normalize_tool_call_id("a.b", target);
            assert_ne!(a, c, "{target:?}");
            assert_ne!(b, c, "{target:?}");
            assert_ne!(a, b, "{target:?}");
        }
        let a = normalize_tool_call_id("a-b", IdTarget::Strict);
        assert!(a.starts_with("ab"), "{a:?}");
    }

    /// A small deterministic generator of ids with characters valid and invalid for every rule.
    fn random_ids(count: usize) -> Vec<String> {
        const CHARS: &[char] = &[
            'a', 'Z', '0', '9', '_', '-', '.', ':', ' ', '#', '\u{e9}', '/',
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut seen = HashSet::new();
        let mut ids = Vec::new();
        while ids.len() < count {
            let len = (next() % 80) as usize;
            let id: String = (0..len)
                .map(|_| CHARS[(next() % CHARS.len() as u64) as usize])
                .collect();
            if seen.insert(id.clone()) {
                ids.push(id);
            }
        }
        ids
    }

    #[test]
    fn a_thousand_random_ids_map_injectively_for_every_target() {
        let ids = random_ids(1000);
        for target in ALL_TARGETS {
            let mut outputs = HashSet::new();
            for id in &ids {
                let out = normalize_tool_call_id(id, target);
                assert!(is_valid_tool_call_id(&out, target), "{id:?} -> {out:?}");
                assert!(outputs.insert(out), "collision for {id:?} ({target:?})");
            }
        }
    }

    #[test]
    fn item_ids() {
        let long = format!("fc_{}", "a".repeat(70));
        // (id, kept unchanged, expected prefix)
        let cases = [
            ("fc_abc123", true, "fc_abc123"),
            ("fc_a-b_c", true, "fc_a-b_c"),
            ("fc_abc_", false, "fc_abc"),
            ("fc_", false, "fc_"),
            ("fc_a.b", false, "fc_ab"),
            ("abc", false, "fc_abc"),
            ("msg_1", false, "fc_msg_1"),
            ("", false, "fc_"),
            (&long, false, "fc_aaaa"),
        ];
        for (id, kept, prefix) in cases {
            let out = normalize_item_id(id);
            assert_eq!(out == id, kept, "{id:?} -> {out:?}");
            assert!(out.starts_with(prefix), "{id:?} -> {out:?}");
            assert!(is_valid_item_id(&out), "{id:?} -> {out:?}");
            assert_eq!(normalize_item_id(&out), out, "idempotent");
        }
        assert_ne!(normalize_item_id("abc"), normalize_item_id("fc_abc_"));
        assert_ne!(normalize_item_id("fc_a.b"), normalize_item_id("fc_a:b"));
    }

    #[test]
    fn fc_ids_normalized_for_responses_never_end_in_an_underscore() {
        // The Responses API refuses an `fc_` item id ending in `_`; `normalizeToolCallId(id,
        // "openai-responses")` used to keep `fc_abc_` (valid by the plain word rule).
        let responses = IdTarget::WordOrItem;
        for id in ["fc_abc_", "fc__", "fc_a_b_", "fc_", "fc_x.y_", "fc_abc"] {
            let out = normalize_tool_call_id(id, responses);
            assert!(!out.ends_with('_'), "{id:?} -> {out:?}");
            assert!(is_valid_tool_call_id(&out, responses), "{id:?} -> {out:?}");
            assert_eq!(out, normalize_item_id(id), "one rule for fc_ ids");
            assert_eq!(normalize_tool_call_id(&out, responses), out, "idempotent");
        }
        assert!(!is_valid_tool_call_id("fc_abc_", responses));
        assert_eq!(normalize_tool_call_id("fc_abc", responses), "fc_abc");
        // Call ids keep the wire's rule; other wires keep theirs.
        assert_eq!(normalize_tool_call_id("call_a_", responses), "call_a_");
        assert_eq!(normalize_tool_call_id("fc_abc_", IdTarget::Word), "fc_abc_");
    }

    proptest! {
        #[test]
        fn normalized_ids_are_valid_and_stable(id in "\\PC{0,90}", t in 0usize..4) {
            let target = ALL_TARGETS[t];
            let out = normalize_tool_call_id(&id, target);
            prop_assert!(is_valid_tool_call_id(&out, target));
            if target == IdTarget::WordOrItem && out.starts_with(ITEM_PREFIX) {
                prop_assert!(!out.ends_with('_'), "{:?} -> {:?}", id, out);
            }
            prop_assert_eq!(normalize_tool_call_id(&out, target), out.clone());
            let item = normalize_item_id(&id);
            prop_assert!(is_valid_item_id(&item));
            prop_assert_eq!(normalize_item_id(&item), item);
        }
    }
}
