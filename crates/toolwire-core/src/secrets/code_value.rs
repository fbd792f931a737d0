//! Whether the value after a credential's name is an identifier of code, not a credential.
//!
//! Source code names its secrets: `f(acc, data, secret, XXH3_accumulate_512)`,
//! `password: URLPatternComponentResult;`, `let key: Curve25519SeedBin<'_> = private_key`,
//! `uint8_t private_key[MLDSA44_PRIVATE_KEY_BYTES]`. After the name comes an identifier (an
//! argument, a type, an array size), not a credential: secrets in code are string literals,
//! and their quotes keep them out of this rule. An unquoted value is code when both hold:
//!
//! - it is an identifier made of words ([`is_word_identifier`]): its letter runs, split at
//!   `_`, digits and camel-case humps, average 2.5 letters or more and one has 3 or more
//!   (`XXH3_accumulate_512`, `OAuth2AccessTokenResponse`, `kEd25519PrivateKey`); random tokens
//!   break into runs of one or two letters (`aB3dE6fG9h`, `9f8a7b6c`);
//! - it stands where code puts an expression ([`in_code_position`]): after an opening bracket or
//!   a comma, or before what ends one in code (`)`, `]`, `}`, `<`, `>`, `!`, `::`, `=`), or before
//!   `;` or `,` when a blank or `:` separates it from its name (`x: T;`). A bare `=` and `;`
//!   stays a connection string's (`Server=db;Password=Summer2024;`), and a value at the end of
//!   its line stays YAML's or an environment file's (`password: Summer2024`).

/// How far back the separators between a name and its value are read.
const GAP_SCAN_LIMIT: usize = 64;

/// Whether the unquoted value `text[start..end]` is an identifier of code (see the module's doc).
pub(super) fn is_identifier_in_code(text: &str, start: usize, end: usize) -> bool {
    is_word_identifier(&text[start..end]) && in_code_position(text, start, end)
}

/// Whether `value` is an identifier (a letter, `_` or `$`, then letters, digits, `_`, `$`) whose
/// letter runs read as words: 2.5 letters or more on average, one of 3 or more.
pub(super) fn is_word_identifier(value: &str) -> bool {
    let bytes = value.as_bytes();
    let identifier = bytes
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'$'))
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'));
    if !identifier {
        return false;
    }
    let runs = letter_runs(bytes);
    let letters: usize = runs.iter().sum();
    !runs.is_empty() && 2 * letters >= 5 * runs.len() && runs.iter().any(|&run| run >= 3)
}

/// Whether the unquoted `value` names a constant or a type wherever it stands (the fourth user
/// review's 2, from pyca/cryptography and config modules), digits in it or not:
///
/// - a constant in screaming case: capitals, digits and `_`, two or more parts holding
///   letters, each part letters then digits or digits then letters (`HASH_SHA256`,
///   `CLIENT_SECRET_2`, `PASSWORD_2FA`, `DEFAULT_PASSWORD_V2`, `T_INT64`, `AES_256_GCM`), a
///   run of 3 letters or more among them; a password in capitals has one such part
///   (`SUMMER_2024`) or letters around digits (`P4SS_W0RD`), and a key's parts are short
///   (`AB12_CD34`);
/// - a type in Pascal case whose digits a capitalized word follows (`Ed25519PrivateKey`,
///   `Argon2idPasswordHasher`, `MLKEM768X25519PrivateKey`, `Utf8PathBuf`): a password's digits
///   end it or stand among short runs (`Summer2024`, `MyPassword1`, `Passw0rd`).
pub(super) fn is_constant_or_type_name(value: &str) -> bool {
    is_constant_name(value) || is_word_identifier(value) && is_type_name(value)
}

/// See [`is_constant_or_type_name`].
fn is_constant_name(value: &str) -> bool {
    let caps = value
        .bytes()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    let parts_shaped = value.split('_').all(|part| {
        let letters_first = part.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        let digits_first = part.trim_start_matches(|c: char| c.is_ascii_digit());
        letters_first.bytes().all(|b| b.is_ascii_digit())
            || digits_first.bytes().all(|b| b.is_ascii_alphabetic())
    });
    let worded_parts = value
        .split('_')
        .filter(|part| part.bytes().any(|b| b.is_ascii_alphabetic()))
        .count();
    let word = letter_runs(value.as_bytes()).iter().any(|&run| run >= 3);
    caps && value.starts_with(|c: char| c.is_ascii_uppercase())
        && value.bytes().any(|b| b.is_ascii_digit())
        && parts_shaped
        && worded_parts >= 2
        && word
}

/// See [`is_constant_or_type_name`].
fn is_type_name(value: &str) -> bool {
    let bytes = value.as_bytes();
    let Some(last_digit) = bytes.iter().rposition(u8::is_ascii_digit) else {
        return false;
    };
    bytes[0].is_ascii_uppercase() && !value.contains('_') && is_words_tail(&bytes[last_digit + 1..])
}

/// Whether `tail`, what follows a type name's last digit, is capitalized words of 3 letters or
/// more, each holding a vowel, maybe after a suffix of the digits of 2 lower-case letters at
/// most (`PrivateKey`, `idPasswordHasher`, `PathBuf`). A random key's letters after its last
/// digit hold short runs, capitals in a row, long lower-case runs or words without vowels
/// (`Eds0CnSPSAjPbtck`, `T9hdmuCgOdwOPLFo`, `Xh5jgwiDeafy`, `NIFR5CKB7Hbd`: the attack review
/// 5's 4, its 12.mjs found such keys passing as type names).
fn is_words_tail(tail: &[u8]) -> bool {
    let lowercase_run = |from: usize| {
        tail[from..]
            .iter()
            .take_while(|b| b.is_ascii_lowercase())
            .count()
    };
    let mut at = lowercase_run(0);
    if at > 2 {
        return false;
    }
    let mut words = 0;
    while at < tail.len() {
        let lower = lowercase_run(at + 1);
        let vowel = tail[at + 1..at + 1 + lower]
            .iter()
            .any(|b| b"aeiouy".contains(b));
        if !tail[at].is_ascii_uppercase() || lower < 2 || !vowel {
            return false;
        }
        at += 1 + lower;
        words += 1;
    }
    words > 0
}

/// The lengths of the words of letters in `bytes`: runs of letters split at every other byte and
/// at camel-case humps (a lower-case letter then an upper-case one: `getKey`), an acronym ending
/// where a capitalized word starts (`HTTPServer`: `HTTP`, `Server`).
fn letter_runs(bytes: &[u8]) -> Vec<usize> {
    let mut runs = Vec::new();
    let mut run = 0;
    for (at, &b) in bytes.iter().enumerate() {
        if !b.is_ascii_alphabetic() {
            if run > 0 {
                runs.push(run);
            }
            run = 0;
            continue;
        }
        let previous = at.checked_sub(1).map(|p| bytes[p]);
        let next = bytes.get(at + 1);
        let hump = b.is_ascii_uppercase()
            && previous.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_uppercase() && next.is_some_and(u8::is_ascii_lowercase)
            });
        if hump && run > 0 {
            runs.push(run);
            run = 0;
        }
        run += 1;
    }
    if run > 0 {
        runs.push(run);
    }
    runs
}

/// Whether the value `text[start..end]` stands where code puts an expression (see the module's
/// doc).
fn in_code_position(text: &str, start: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    let floor = start.saturating_sub(GAP_SCAN_LIMIT);
    let mut gap_start = start;
    while gap_start > floor
        && matches!(
            bytes[gap_start - 1],
            b' ' | b'\t' | b':' | b'=' | b'(' | b'[' | b','
        )
    {
        gap_start -= 1;
    }
    let gap = &bytes[gap_start..start];
    let opened = gap.iter().any(|b| matches!(b, b'(' | b'[' | b','));
    let spaced = gap.iter().any(|b| matches!(b, b' ' | b'\t' | b':'));
    let after = &text[end..];
    let closes = after.starts_with([')', ']', '}', '<', '>', '!']) || after.starts_with("::");
    let ends_statement = spaced && after.starts_with([';', ',']);
    let operand = after.trim_start_matches([' ', '\t']);
    let operator = after.starts_with([' ', '\t'])
        && (operand.starts_with(['=', '+', '|', '{'])
            || operand.starts_with("??")
            || operand.starts_with("&&"));
    opened || closes || ends_statement || operator
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_of_words_are_told_apart_from_tokens() {
        let words = [
            "XXH3_accumulate_512",
            "OAuth2AccessTokenResponse",
            "URLPatternComponentResult",
            "kEd25519PrivateKey",
            "Curve25519SeedBin",
            "X509RequestInheritOptions",
            "MLDSA44_PRIVATE_KEY_BYTES",
            "NID_MLDSA44",
            "HMACSHA256Key",
            "proc_macro2",
            "Utf8PathBuf",
            "x25519_generate_private_key",
        ];
        for value in words {
            assert!(is_word_identifier(value), "{value}");
        }
        let tokens = [
            "aB3dE6fG9hJ2k",
            "q8Z2mX4vL9pR7tY1wK3nB6cH0dF5gJ",
            "9f8a7b6c5d4e",
            "a8f3kd92mzq0",
            "Tr0ub4dor",
            "ghp_aB3dE6fG9hJ2kL5",
            "abc-def-123",
            "66eab92a",
        ];
        for value in tokens {
            assert!(!is_word_identifier(value), "{value}");
        }
    }

    #[test]
    fn code_positions_are_told_apart_from_values() {
        // (text, value, in code position)
        let cases = [
            ("f(acc, secret, XXH3_acc_512, x)", "XXH3_acc_512", true),
            ("password: UrlResult;", "UrlResult", true),
            ("let k: SeedBin<'_> = k", "SeedBin", true),
            ("key[KEY_BYTES] = {0}", "KEY_BYTES", true),
            ("const K: Options = 3;", "Options", true),
            ("token proc_macro2::Group", "proc_macro2", true),
            ("password: Summer2024", "Summer2024", false),
            ("password: Summer2024\nnext: 1", "Summer2024", false),
            ("Server=db;Password=Summer2024;User=x", "Summer2024", false),
            ("?password=Summer2024&x=1", "Summer2024", false),
            ("token=Summer2024, user=bob", "Summer2024", false),
        ];
        for (text, value, code) in cases {
            let start = text.find(value).unwrap();
            assert_eq!(
                in_code_position(text, start, start + value.len()),
                code,
                "{text}"
            );
        }
    }

    /// Type names end in capitalized words after their digits; random keys that start with a
    /// capital do not (the attack review 5's 4, 12.mjs).
    #[test]
    fn type_names_are_told_apart_from_random_keys() {
        for name in [
            "Ed25519PrivateKey",
            "Argon2idPasswordHasher",
            "MLKEM768X25519PrivateKey",
            "Utf8PathBuf",
            "HMACSHA256Key",
            "X509RequestInheritOptions",
        ] {
            assert!(is_constant_or_type_name(name), "{name}");
        }
        for key in [
            "Eds0CnSPSAjPbtck",
            "T9hdmuCgOdwOPLFo",
            "Ypt2n8hgeVyxugKL",
            "Xk9Lp2MvQw3ErTy",
            "Ab1CdEfgHi",
            "CUVn9kxvGwzi",
            "Xh5jgwiDeafy",
            "N8utqbqkfwOynIdx",
            "NIFR5CKB7Hbd",
            "ZNWsd7PddrrMXWGdu49Rdvhc",
        ] {
            assert!(!is_constant_or_type_name(key), "{key}");
        }
    }
}
