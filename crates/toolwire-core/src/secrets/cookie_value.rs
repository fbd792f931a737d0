//! Whether a cookie's value is a secret, wherever the cookie is printed (a `Cookie` or
//! `Set-Cookie` header, a browser tool's cookie object, a `cookies.txt` line).
//!
//! A cookie is not a secret for being a cookie: `theme=solarized-dark-2` and Google Analytics'
//! `_ga=GA1.1.1234567890.1700000000` are preferences and ids (the attack review 3's 9). Its value
//! is a secret when the cookie's name says it holds a session or a credential ([`is_secret_name`]:
//! `session`, `sid`, `auth`, `token`, `csrf`, `jwt`, ...), or when the value has a token's shape
//! whatever the name: 12 characters or more of mixed classes, not a placeholder, not words with
//! numbers after them, not numbers joined by dots ([`is_dotted_numbers`]) and not words and
//! numbers joined by punctuation ([`is_joined_words`]: a time zone, a timestamp, a consent
//! string).

use super::credential::{
    is_camel_word, is_camel_words, is_numbered_words, is_placeholder, looks_like_token, ACRONYM_MAX,
};

/// The fewest bytes a value under a secret's name holds to be one (`deleted`, `true`, `0` clear
/// or flag a session, they are none).
const NAMED_MIN: usize = 8;

/// The fewest bytes a value holds to be a token by its shape alone.
const SHAPE_MIN: usize = 12;

/// The parts of cookie names that say the value is a session or a credential, compared without
/// case (`PHPSESSID`, `JSESSIONID`, `connect.sid`, `laravel_session`, `XSRF-TOKEN`,
/// `csrftoken`, `__Secure-next-auth.session-token`, `remember_user_token`, `_gh_sess`).
const SECRET_NAME_PARTS: &[&str] = &[
    "sess",
    "sid",
    "auth",
    "token",
    "csrf",
    "xsrf",
    "jwt",
    "login",
    "remember",
    "secret",
    "credential",
    "passw",
    "apikey",
    "api_key",
    "api-key",
    "access",
    "refresh",
    "identity",
    "saml",
    "oidc",
    "ticket",
];

/// Whether a cookie's name says its value is a session or a credential (see
/// [`SECRET_NAME_PARTS`]).
pub(super) fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_NAME_PARTS.iter().any(|part| name.contains(part))
}

/// Whether the value of the cookie `name` is a secret (see the module's doc). `name` is empty
/// when the cookie's name is not known.
pub(super) fn is_cookie_secret(name: &str, value: &str) -> bool {
    if value.len() < NAMED_MIN || is_placeholder(value) {
        return false;
    }
    let one_case_word = value.bytes().all(|b| b.is_ascii_lowercase())
        || value.bytes().all(|b| b.is_ascii_uppercase());
    if is_secret_name(name) {
        return !one_case_word;
    }
    value.len() >= SHAPE_MIN
        && looks_like_token(value)
        && !is_numbered_words(value)
        && !is_camel_words(value)
        && !is_dotted_numbers(value)
        && !is_joined_words(value)
}

/// Whether `value` is two parts or more, each a word or a number, joined by punctuation: a time
/// zone (`Europe/Berlin`), a timestamp (`2024-05-01T10:00:00Z`), a consent or preference string
/// (OneTrust's `isGpcEnabled=0&datestamp=Mon+Jan+01+2024`). A token's parts mix letters and
/// digits (`0a1b2c3d-4e5f`) or cases at random (`Ab/Cd+Ef`), so it is none. The attack review
/// 4's 9: one such value made a whole `Cookie` header a credential.
fn is_joined_words(value: &str) -> bool {
    let mut count = 0;
    let all = value
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|part| !part.is_empty())
        .all(|part| {
            count += 1;
            is_word_or_number(part)
        });
    all && count >= 2
}

/// Whether `part` (ASCII letters and digits) is a number, a piece of a timestamp (`01T10`,
/// `00Z`), a lower-case word, a short acronym or words in camel or Pascal case (`Berlin`,
/// `isGpcEnabled`).
fn is_word_or_number(part: &str) -> bool {
    let bytes = part.as_bytes();
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = &bytes[digits..];
    if digits > 0 {
        return match rest {
            [] | [b'Z'] => true,
            [b'T', time @ ..] => !time.is_empty() && time.iter().all(u8::is_ascii_digit),
            _ => false,
        };
    }
    if let Some(version) = bytes.strip_prefix(b"v") {
        // A version (`v2` of `checkout_v2_variantB`: the attack review 5's 10).
        if !version.is_empty() && version.iter().all(u8::is_ascii_digit) {
            return true;
        }
    }
    if !bytes.iter().all(u8::is_ascii_alphabetic) {
        return false;
    }
    if bytes.iter().all(u8::is_ascii_uppercase) {
        return bytes.len() <= ACRONYM_MAX;
    }
    // A camel word may end in one capital, a variant's letter (`variantB`, `planA`).
    let variant = match bytes {
        [word @ .., last] if last.is_ascii_uppercase() && word.len() >= 3 => word,
        _ => bytes,
    };
    variant.iter().all(u8::is_ascii_lowercase) || is_camel_word(bytes) || is_camel_word(variant)
}

/// Whether `value` is numbers joined by dots (three parts or more), the first possibly a short
/// tag of letters and digits: analytics ids and timestamps (`GA1.1.1234567890.1700000000` of `_ga`,
/// `fb.1.1700000000000.1234567890` of `_fbp`, `__utma`'s six numbers).
fn is_dotted_numbers(value: &str) -> bool {
    let mut parts = value.split('.');
    let tag = parts.next().unwrap_or_default();
    let number = !tag.is_empty() && tag.bytes().all(|b| b.is_ascii_digit());
    let tagged =
        number || (1..=4).contains(&tag.len()) && tag.bytes().all(|b| b.is_ascii_alphanumeric());
    let numbers: Vec<&str> = parts.collect();
    tagged
        && numbers.len() >= 2
        && numbers
            .iter()
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both ways: real session cookies (must be secrets) and ordinary cookies (must pass).
    #[test]
    fn a_cookie_value_is_a_secret_by_its_name_or_its_shape() {
        // (name, value, is a secret)
        let cases = [
            // Sessions and credentials by their names, short or plain values too.
            ("PHPSESSID", "b8f3k2l9m1n4p6q7", true),
            ("JSESSIONID", "9F8E7D6C5B4A3F2E1D0C", true),
            ("connect.sid", "s%3Aabc123def456.ZmFrZXNpZw", true),
            ("laravel_session", "eyJpdiI6IkZha2UifQ", true),
            ("XSRF-TOKEN", "a1b2c3d4e5f6", true),
            ("csrftoken", "q8Z2mX4vL9pR", true),
            ("__Secure-next-auth.session-token", "0a1b2c3d-4e5f", true),
            ("sid", "Xy7Qp2Lm9Rt4Vw8Z", true),
            ("remember_user_token", "W1sxXSwiJDJhJDEwJCJd", true),
            ("session", "deadbeefcafebabe1234", true),
            // Tokens by their shape under any name (LinkedIn's li_at, a load balancer's).
            ("li_at", "AQEDARfakeVALUE0123456789", true),
            ("AWSALB", "Zx9Qw8Er7Ty6Ui5Op4As3Df2", true),
            ("a", "Zx9Qw8Er7Ty6Ui5Op4As3Df2", true),
            ("", "Zx9Qw8Er7Ty6Ui5Op4As3Df2", true),
            // Ordinary cookies (the attack review 3's 9): preferences, analytics ids, consent.
            ("theme", "solarized-dark-2", false),
            ("theme", "dark", false),
            ("_ga", "GA1.1.1234567890.1700000000", false),
            ("_gid", "GA1.1.987654321.1700000000", false),
            ("_fbp", "fb.1.1700000000000.1234567890", false),
            (
                "__utma",
                "123456789.987654321.1700000000.1700000000.1700000000.1",
                false,
            ),
            ("lang", "en-US", false),
            ("layout", "SidebarCollapsedLeft", false),
            ("editor", "monaco_v2_2024", false),
            // Words and numbers joined by punctuation (the attack review 4's 9).
            ("tz", "Europe/Berlin", false),
            ("tz", "America/Argentina/Buenos_Aires", false),
            ("lastVisited", "2024-05-01T10:00:00Z", false),
            ("lastVisited", "2024-05-01T10:00:00.123Z", false),
            (
                "OptanonConsent",
                "isGpcEnabled=0&datestamp=Mon+Jan+01+2024",
                false,
            ),
            ("prefs", "currency=EUR&lang=de&Theme=HighContrast", false),
            // Versions and a variant's capital (the attack review 5's 10).
            ("experiment", "checkout_v2_variantB", false),
            ("ab", "pricingPage_v12_planA", false),
            ("x", "Zx9Qw8Er_v2_Ty6UiB", true),
            // ... while tokens split by punctuation stay tokens.
            ("x", "0a1b2c3d-4e5f-6a7b-8c9d", true),
            ("x", "Ab/Cd+Ef/Gh+Ij/Kl+Mn", true),
            ("x", "QWERTYUIOP-ASDF1GHJKL", true),
            ("x", "Zx9Qw8Er7T/y6Ui5Op4As", true),
            // Under a session's name: cleared, flagged or placeholder values.
            ("session", "deleted", false),
            ("sessionid", "loggedout", false),
            ("auth_enabled", "true", false),
            ("token", "YOUR_TOKEN_HERE", false),
            ("session", "xxxxxxxxxxxx", false),
        ];
        for (name, value, secret) in cases {
            assert_eq!(is_cookie_secret(name, value), secret, "{name}={value}");
        }
    }
}
