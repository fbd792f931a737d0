//! Whether the value after a credential's name is text, not a password.
//!
//! Messages, locale strings and docs name credentials and then say something about them:
//! `{"password": "Your password must be at least 8 characters"}`, `raise InvalidToken("Supplied
//! HOTP value does not match.")`, `.refine(..., "Both password and confirmation must match")`,
//! `api_token: "Create one under Settings > Developer > Tokens"`. A value is text when it is
//! three or more words separated by single blanks, each a word of letters (apostrophes and
//! hyphens inside, punctuation after), a number or a lone symbol (`>`, `&`, `-`), three of them
//! words of letters, and one of:
//!
//! - it reads as a sentence: punctuation ends a word (`.`, `,`, `!`, `?`, `:`, `;`), a number
//!   or a symbol stands among the words, or its words mix cases (`Enter your password`,
//!   `invalid HTTP header parsed`);
//! - it is an argument or an item after the name, not its value: a `,` or a bracket stands
//!   between them (`check(user.password, "must be twelve characters or more")`).
//!
//! Words all in lower case, or all capitalized, and nothing else are a passphrase where a
//! value is assigned (`password = "correct horse battery staple"`, `password: Correct Horse
//! Battery Staple`): they stay credentials.

/// How far back the separators between a name and its value are read.
const GAP_SCAN_LIMIT: usize = 64;

/// Whether `value` is text (see the module's doc); `argument` says whether it follows its name
/// as an argument or an item ([`is_argument`]).
pub(super) fn is_text(value: &str, argument: bool) -> bool {
    if !value.contains(' ') {
        return false;
    }
    let mut letter_words = 0;
    let mut sentence = false;
    let (mut lower, mut capitalized) = (false, false);
    for word in value.split(' ') {
        let Some(shape) = word_shape(word) else {
            return false;
        };
        match shape {
            Word::Letters {
                punctuated,
                starts_upper,
            } => {
                letter_words += 1;
                sentence |= punctuated;
                if starts_upper {
                    capitalized = true;
                } else {
                    lower = true;
                }
            }
            Word::Number | Word::Symbol => sentence = true,
        }
    }
    letter_words >= 3 && (sentence || (lower && capitalized) || argument)
}

/// Whether `value` is a passphrase: three or more words of 3 letters or more separated by
/// single blanks, all in lower case or all capitalized, nothing else (`correct horse battery
/// staple`, `Correct Horse Battery Staple`). Where a value is assigned it is a credential,
/// though a token's mixed characters are not in it.
pub(super) fn is_passphrase(value: &str) -> bool {
    let mut words = 0;
    let (mut lower, mut capitalized) = (true, true);
    for word in value.split(' ') {
        let mut chars = word.chars();
        let letters = word.len() >= 3 && word.bytes().all(|b| b.is_ascii_alphabetic());
        let first_upper = chars.next().is_some_and(|c| c.is_ascii_uppercase());
        let rest_lower = chars.all(|c| c.is_ascii_lowercase());
        if !letters || !rest_lower {
            return false;
        }
        lower &= !first_upper;
        capitalized &= first_upper;
        words += 1;
    }
    words >= 3 && (lower || capitalized)
}

/// What a word of text is.
enum Word {
    /// Letters (any script), with `'` or `-` inside; `punctuated` when punctuation ends it,
    /// `starts_upper` when its first letter is a capital.
    Letters {
        punctuated: bool,
        starts_upper: bool,
    },
    /// Digits (`8`, `30`), maybe punctuated (`8,`).
    Number,
    /// One or two symbols standing alone (`>`, `&`, `--`, `|`).
    Symbol,
}

/// The shape of `word`, if it is a word of text; `None` for a word of a password or a token
/// (`Tr0ub4dor`, `3x!`, `aB3;dE6`) or an empty one (two blanks in a row).
fn word_shape(word: &str) -> Option<Word> {
    let opening = |c: char| matches!(c, '(' | '"' | '\'' | '¿' | '¡' | '«' | '“');
    let closing = |c: char| {
        matches!(
            c,
            '.' | ',' | ';' | ':' | '!' | '?' | ')' | '"' | '\'' | '»' | '”' | '…'
        )
    };
    let symbol = (1..=2).contains(&word.chars().count())
        && word.chars().all(|c| c.is_ascii_punctuation() || c == '—');
    if symbol {
        return Some(Word::Symbol);
    }
    let core = word.trim_start_matches(opening);
    let trimmed = core.trim_end_matches(closing);
    let punctuated = trimmed.len() < core.len();
    if !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit()) {
        return Some(Word::Number);
    }
    let mut chars = trimmed.chars();
    let first = chars.next()?;
    let inner_ok = trimmed
        .char_indices()
        .all(|(at, c)| c.is_alphabetic() || (at > 0 && matches!(c, '\'' | '-' | '’')));
    let ends_in_letter = trimmed.chars().next_back().is_some_and(char::is_alphabetic);
    (first.is_alphabetic() && inner_ok && ends_in_letter).then_some(Word::Letters {
        punctuated,
        starts_upper: first.is_uppercase(),
    })
}

/// Whether the value at `start` follows its name as an argument or an item: the separators
/// between them (blanks, quotes, `:`, `=`, `>`) hold a `,` or a bracket (`confirmPassword,
/// "Both ..."`, `InvalidToken("Supplied ...")`, `Header::Token)) => "invalid ..."`). Reads back
/// at most [`GAP_SCAN_LIMIT`] bytes.
pub(super) fn is_argument(text: &str, start: usize) -> bool {
    gap_holds(text, start, b",()[]")
}

/// Whether the value at `start` is an argument after a closed one that holds the name: the
/// separators between them hold a `)` or `]` and then a `,` (`Err(crate::Error::Token), "failed
/// for utf8 char i: {}, j: {}"` in httparse's tests: the fifth user review's 4). The name was an
/// argument of its own; what follows is the next one, not its value. Reads back at most
/// [`GAP_SCAN_LIMIT`] bytes.
pub(super) fn is_after_closed_argument(text: &str, start: usize) -> bool {
    let gap = gap_before(text, start, b",()[] \t\"'`");
    gap.iter()
        .position(|b| matches!(b, b')' | b']'))
        .is_some_and(|close| gap[close..].contains(&b','))
}

/// The words that name a credential (any case). Whole words only: a passphrase may well hold a
/// word that merely starts like one (`Passion Fruit Smoothie`, `Secretive Otter`).
const CREDENTIAL_WORDS: &[&str] = &[
    "password",
    "passwords",
    "passwd",
    "passphrase",
    "passcode",
    "token",
    "tokens",
    "secret",
    "secrets",
    "credential",
    "credentials",
    "auth",
    "authentication",
    "authorization",
];

/// Whether `value` is a label: words of letters separated by single blanks, one of which
/// names a credential ([`CREDENTIAL_WORDS`]): a locale file's `"forgotPassword": "Forgot Your
/// Password"`, YAML's `password: Choose Strong Password`, aws-lc's `#define LN_server_auth "TLS
/// Web Server Authentication"` (the fifth user review's 4). A passphrase does not name what it
/// is.
pub(super) fn is_label(value: &str) -> bool {
    let mut words = 0;
    let mut names = false;
    for word in value.split(' ') {
        if word.is_empty() || !word.bytes().all(|b| b.is_ascii_alphabetic()) {
            return false;
        }
        words += 1;
        names |= CREDENTIAL_WORDS
            .iter()
            .any(|name| word.eq_ignore_ascii_case(name));
    }
    words >= 2 && names
}

/// Whether the value at `start` is the next item of a list or the next argument after its
/// name: a `,` stands between them (`"MLKEM768X25519PrivateKey",\n    "MLKEM768X25519PublicKey"`
/// in Python's `__all__`).
pub(super) fn is_next_item(text: &str, start: usize) -> bool {
    gap_holds(text, start, b",")
}

/// Whether the separators before `start` (blanks, line breaks, quotes, brackets, `,`, `:`, `=`,
/// `>`, `{`; at most [`GAP_SCAN_LIMIT`] bytes) hold one of `marks`.
fn gap_holds(text: &str, start: usize, marks: &[u8]) -> bool {
    gap_before(text, start, b",()[] \t\r\n\"'`\\:=>{")
        .iter()
        .any(|b| marks.contains(b))
}

/// The run of `separators` that ends at `start`, at most [`GAP_SCAN_LIMIT`] bytes.
fn gap_before<'a>(text: &'a str, start: usize, separators: &[u8]) -> &'a [u8] {
    let bytes = text.as_bytes();
    let floor = start.saturating_sub(GAP_SCAN_LIMIT);
    let mut at = start;
    while at > floor && separators.contains(&bytes[at - 1]) {
        at -= 1;
    }
    &bytes[at..start]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_are_told_apart_from_passphrases() {
        // (value, after an argument's separator, is text)
        let cases = [
            ("Both password and confirmation must match", true, true),
            ("Password used to generate key", false, true),
            ("Supplied HOTP value does not match.", true, true),
            ("invalid HTTP header parsed", true, true),
            ("Your password must be at least 8 characters", false, true),
            (
                "Your session token has expired, please sign in again",
                false,
                true,
            ),
            (
                "Create one under Settings > Developer > Tokens",
                false,
                true,
            ),
            ("Enter your password to continue", false, true),
            ("the login response should carry a token", true, true),
            (
                "does not meet the policy of 3 character classes",
                true,
                true,
            ),
            ("Votre mot de passe doit contenir 8 caractères", false, true),
            ("don't share your password.", false, true),
            // Passphrases and passwords where a value is assigned.
            ("correct horse battery staple", false, false),
            ("Correct Horse Battery Staple", false, false),
            ("Tr0ub4dor 3x!", false, false),
            ("Kj4 Hg7Fd1Sa9", false, false),
            ("aB3 dE6 fG9 hJ2", true, false),
            ("two words.", false, false),
            ("correct  horse battery staple.", false, false),
            ("hunter2 hunter3 hunter4", true, false),
        ];
        for (value, argument, text) in cases {
            assert_eq!(is_text(value, argument), text, "{value:?}");
        }
    }

    #[test]
    fn passphrases_are_words_of_one_shape() {
        for (value, passphrase) in [
            ("correct horse battery staple", true),
            ("Correct Horse Battery Staple", true),
            ("Correct horse battery staple", false),
            ("correct horse battery staple.", false),
            ("correct horse", false),
            ("a if b else c", false),
            ("token will expire in five minutes", false),
            ("correct  horse battery", false),
        ] {
            assert_eq!(is_passphrase(value), passphrase, "{value:?}");
        }
    }

    #[test]
    fn arguments_are_told_apart_from_values() {
        // (text, value, an argument or item)
        let cases = [
            (
                r#"f(data.confirmPassword, "Both must match")"#,
                "Both",
                true,
            ),
            (
                r#"raise InvalidToken("Supplied HOTP value")"#,
                "Supplied",
                true,
            ),
            (
                r#"Header::Token)) => "invalid HTTP header""#,
                "invalid",
                true,
            ),
            (r#"password = "correct horse battery""#, "correct", false),
            (r#"{"password": "correct horse battery"}"#, "correct", false),
            ("password: correct horse battery", "correct", false),
        ];
        for (text, value, argument) in cases {
            let start = text.find(value).unwrap();
            assert_eq!(is_argument(text, start), argument, "{text}");
        }
    }
}
