//! Whether the value after a credential header's name is a credential or code.
//!
//! `api_key = os.environ.get("OPENAI_API_KEY")`, `const apiKey = process.env.OPENAI_API_KEY`
//! and `document.cookie = "theme=dark"` are ordinary source lines a coding agent reads: their
//! values name where a key comes from, they are not one. A header found by its name only
//! (`X-Api-Key` and kin, `Cookie`) is a secret when its value looks like a token:
//!
//! - not code: not followed by `(` or `[` (a call, an index), not a path of two or more
//!   identifiers joined by `.`, digits in them or not (`settings.openai_api_key`,
//!   `cfg.pg2.password`), and not on a later line than its name where no value can be
//!   (`os.getenv("API_TOKEN")` and a line break: the name is an argument);
//! - not a placeholder ([`is_placeholder`], the one rule every checked kind applies, the
//!   `Authorization` headers' too): mixed characters, at least two of lower-case letters,
//!   upper-case letters and digits (`YOUR_API_KEY_HERE`, `your-api-key`, `xxxxxxxxxxxx` are
//!   not), or 16 digits or more (a numeric session id).
//!
//! `$VAR`, `${VAR}`, `<token>` and `***` hold no token characters and never match. A cookie
//! header is a secret when one of its values is (`theme=dark; path=/` is not). A header with a
//! scheme (`Authorization: Bearer`, `Basic`, `Token`) is a credential by its scheme and is not
//! checked here.
//!
//! A value found by a weaker sign (a credential parameter's name, `access_token=`, `password:`,
//! `curl -u user:`, or a scheme word outside a header, `"Bearer t"`) must look like a
//! credential more strongly ([`ValueCheck`]): besides the above, not a file path, and a digit in
//! it, or 24 characters or more that are not words joined in camel case (`SecretStr`,
//! `AccessTokenProvider` and `Optional[str]` are type names; random tokens hold digits). Basic
//! credentials outside a header must decode from base64 to `user:password`.

use base64::Engine as _;

use super::{code_value, named_value, prose};

/// The fewest bytes a credential found by its name holds (`password=hunter2` is a word).
const NAMED_VALUE_MIN: usize = 8;

/// How a value found by a kind with [`super::builtin::Extent::Checked`] is confirmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ValueCheck {
    /// The value of a credential parameter or option (`client_secret=`, `--password=`): a
    /// credential value ([`is_credential_value`]).
    Named,
    /// The value of a credential parameter or option whose characters are not fixed (a
    /// password may hold any symbol): widened by its context ([`named_value::value_end`]), 8
    /// bytes or more, then checked as [`ValueCheck::Named`].
    Parameter,
    /// The credentials after a `Basic` scheme word outside a header: base64 of `user:password`.
    Basic,
    /// The credentials of an `Authorization` header: anything but a placeholder
    /// ([`is_placeholder`]: `Bearer YOUR_ACCESS_TOKEN`, `Bearer xxxxxxxx`) or a dotted path of
    /// identifiers (`Bearer self.token`).
    Header,
    /// The password of a URL's userinfo ([`is_url_password`]): not the URL's user, a short word
    /// of one case or a placeholder (`postgres://postgres:postgres@`, `amqp://guest:guest@`).
    UrlPassword,
    /// The `value` of an object: a cookie's object ([`super::cookie_objects::cookie_name`])
    /// whose value is a secret by the cookie's name or its shape
    /// ([`super::cookie_value::is_cookie_secret`]).
    CookieObject,
    /// The value of a Netscape `cookies.txt` line (`curl -c`, `wget --save-cookies`): a secret
    /// by the cookie's name (the field before it) or its shape.
    CookieLine,
}

impl ValueCheck {
    /// The end of the credential that `text[start..end]` holds by this check, if it holds one.
    /// A named value ends before an `@` and a host (`user:token@github.com`: the value is a
    /// URL's password, which `url-password` names).
    pub(super) fn confirm(self, text: &str, start: usize, end: usize) -> Option<usize> {
        match self {
            ValueCheck::Named => {
                let end = before_host(text, start, end);
                is_credential_value(text, start, end).then_some(end)
            }
            ValueCheck::Parameter => {
                let end = named_value::value_end(text, start, end);
                let end = before_host(text, start, end);
                (end - start >= NAMED_VALUE_MIN && is_credential_value(text, start, end))
                    .then_some(end)
            }
            ValueCheck::Basic => is_basic_credentials(&text[start..end]).then_some(end),
            ValueCheck::Header => {
                let value = &text[start..end];
                (!is_placeholder(value) && !is_identifier_path(value)).then_some(end)
            }
            ValueCheck::UrlPassword => is_url_password(text, start, end).then_some(end),
            ValueCheck::CookieObject => super::cookie_objects::cookie_value_end(text, start, end),
            ValueCheck::CookieLine => {
                let name = super::cookie_objects::field_before(text, start);
                super::cookie_value::is_cookie_secret(name, &text[start..end]).then_some(end)
            }
        }
    }
}

/// `end`, or the position of the first `@` in `text[start..end]` that a host follows (a name,
/// then `.`, `/` or `:`).
fn before_host(text: &str, start: usize, end: usize) -> usize {
    let value = &text[start..end];
    value
        .match_indices('@')
        .find(|&(at, _)| {
            let host = &value[at + 1..];
            let name = host
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-')
                .count();
            name > 0 && matches!(host.as_bytes().get(name), Some(b'.' | b'/' | b':'))
        })
        .map_or(end, |(at, _)| start + at)
}

/// Whether `text[start..end]`, found by a credential's name or scheme word only, is one: it looks
/// like a token ([`is_key_value`]), is no path, is no text ([`prose::is_text`]), and holds a
/// digit, or is 24 characters or more and not camel-case words; or it is a passphrase where a
/// value is assigned ([`prose::is_passphrase`]).
pub(super) fn is_credential_value(text: &str, start: usize, end: usize) -> bool {
    let value = &text[start..end];
    if is_bare_query_key(text, start)
        || prose::is_after_closed_argument(text, start)
        || prose::is_label(value)
    {
        return false;
    }
    if prose::is_passphrase(value) {
        return !prose::is_argument(text, start) && !is_on_a_later_line(text, start, end);
    }
    let digit = value.bytes().any(|b| b.is_ascii_digit());
    let prose_id = follows_token_word(text, start) && (value.len() < 16 || is_uuid(value));
    is_key_value(text, start, end)
        && !is_path(value)
        && !prose_id
        && !is_prose_after_bare_word(text, start, value)
        && !prose::is_text(value, prose::is_argument(text, start))
        && (digit || (value.len() >= 24 && !is_camel_words(value)))
}

/// Whether `value`, after a bare `token` or `secret` (not the end of another word), is a name
/// or an id, not a credential (the attack review 2's 13): words with numbers after them
/// ([`is_numbered_words`]: `token: AuthToken2` of a TypeScript type, `Unexpected token
/// 'export2024'`, `unexpected token ReturnStatement2`, `token tokenizer_v2_model_2048`, `Secret
/// Santa2024`), or a UUID after `request token` (a request's id in a log). After a credential's
/// own name (`password=Summer2024`, `api_token=<uuid>`) such values stay credentials.
fn is_prose_after_bare_word(text: &str, start: usize, value: &str) -> bool {
    let Some((word, before)) = bare_word_before(text, start) else {
        return false;
    };
    is_numbered_words(value) || (word == "token" && before == "request" && is_uuid(value))
}

/// How far back [`is_bare_query_key`] reads the name.
const QUERY_KEY_SCAN: usize = 64;

/// Whether the value at `start` follows a query key without its `=` (`GET /channel?passwd
/// HTTP/1.1` of httparse's tests, a `curl -v` transcript's `> GET /login?password HTTP/1.1`:
/// the fifth user review's 2): the name starts after `?` or `&` and only blanks stand between
/// it and the value. A query key's value needs its `=`.
fn is_bare_query_key(text: &str, start: usize) -> bool {
    let bytes = text.as_bytes();
    let floor = start.saturating_sub(QUERY_KEY_SCAN);
    let mut at = start;
    while at > floor && matches!(bytes[at - 1], b' ' | b'\t') {
        at -= 1;
    }
    if at == start {
        return false;
    }
    let name_end = at;
    while at > floor
        && (bytes[at - 1].is_ascii_alphanumeric() || matches!(bytes[at - 1], b'_' | b'-' | b'.'))
    {
        at -= 1;
    }
    at < name_end && at > 0 && matches!(bytes[at - 1], b'?' | b'&')
}

/// How far back [`bare_word_before`] reads.
const BARE_WORD_SCAN: usize = 64;

/// The bare credential word (`token` or `secret`, not the end of another word: no letter,
/// digit, `_`, `.` or `-` before it) that the value at `start` follows across a gap of blanks,
/// quotes, `:` and `=`, and the word before it, both lower-cased. Reads back at most
/// [`BARE_WORD_SCAN`] bytes.
fn bare_word_before(text: &str, start: usize) -> Option<(String, String)> {
    let bytes = text.as_bytes();
    let floor = start.saturating_sub(BARE_WORD_SCAN);
    let back_over = |mut at: usize, class: fn(u8) -> bool| {
        while at > floor && class(bytes[at - 1]) {
            at -= 1;
        }
        at
    };
    let word_end = back_over(start, |b| {
        matches!(b, b' ' | b'\t' | b'\'' | b'"' | b':' | b'=')
    });
    let word_start = back_over(word_end, |b| b.is_ascii_alphabetic());
    let word = text[word_start..word_end].to_ascii_lowercase();
    let glued = word_start.checked_sub(1).is_some_and(|at| {
        bytes[at].is_ascii_alphanumeric() || matches!(bytes[at], b'_' | b'.' | b'-')
    });
    if word_end == start || glued || !(word == "token" || word == "secret") {
        return None;
    }
    let before_end = back_over(word_start, |b| matches!(b, b' ' | b'\t'));
    let before_start = back_over(before_end, |b| b.is_ascii_alphabetic());
    Some((word, text[before_start..before_end].to_ascii_lowercase()))
}

/// Whether `value` is words with numbers: parts joined by `_`, `-` or `.`, each words
/// ([`is_camel_word`]) with digits after them only, digits alone, or a version (`v2`):
/// `AuthToken2`, `export2024`, `tokenizer_v2_model_2048`. A token's digits stand among its
/// letters (`q8Z2mX4v`), so it is none.
pub(super) fn is_numbered_words(value: &str) -> bool {
    let mut worded = false;
    let all = value.split(['-', '_', '.']).all(|part| {
        let letters = part.trim_end_matches(|c: char| c.is_ascii_digit());
        let words = letters.len() >= 3
            && letters.bytes().all(|b| b.is_ascii_alphabetic())
            && is_camel_word(letters.as_bytes());
        worded |= words;
        !part.is_empty()
            && (letters.is_empty()
                || words
                || (letters.eq_ignore_ascii_case("v") && letters.len() < part.len()))
    });
    all && worded
}

/// Whether `text[..start]` ends with the word `token` and blanks, brackets or quotes (`token
/// 3f2a...` in prose or a log, `next token ([66eab92a](...))` in a changelog): a token there is a `Token` scheme's (16 characters or more, as `scheme_token` finds
/// it), and a UUID alone is an id (`token 550e8400-... not found in cache`, `Lexer: token
/// IDENTIFIER2`), not a credential.
fn follows_token_word(text: &str, start: usize) -> bool {
    // Blanks of the gap are at most 16 (`header_gap`); read back no further than that.
    let bytes = &text.as_bytes()[start.saturating_sub(24)..start];
    let word_end = bytes.len()
        - bytes
            .iter()
            .rev()
            .take_while(|b| matches!(b, b' ' | b'\t' | b'(' | b'[' | b'`' | b'\''))
            .count();
    let word = &bytes[..word_end];
    word_end < bytes.len()
        && word.len() >= 5
        && word[word.len() - 5..].eq_ignore_ascii_case(b"token")
        && !word[..word.len() - 5]
            .last()
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// Whether `value` is a UUID: 8-4-4-4-12 hex digits.
fn is_uuid(value: &str) -> bool {
    let parts: Vec<&str> = value.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(part, len)| part.len() == len && part.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Whether `value` is base64 (padded or not, `=` possibly percent-encoded) of `user:password`:
/// printable text holding a `:`.
fn is_basic_credentials(value: &str) -> bool {
    let Ok(decoded) = base64::engine::general_purpose::STANDARD_NO_PAD.decode(unpadded(value))
    else {
        return false;
    };
    std::str::from_utf8(&decoded).is_ok_and(|plain| {
        plain.len() >= 3 && plain.contains(':') && !plain.chars().any(char::is_control)
    })
}

/// `value` without its base64 padding: trailing `=`, as it is or percent-encoded (`%3D`,
/// `%253D`).
fn unpadded(value: &str) -> &str {
    let mut rest = value;
    loop {
        if let Some(shorter) = rest.strip_suffix('=') {
            rest = shorter;
            continue;
        }
        let escaped = rest.len() >= 3 && rest[rest.len() - 2..].eq_ignore_ascii_case("3d");
        let Some(percent) = escaped.then(|| rest[..rest.len() - 2].trim_end_matches("25")) else {
            return rest;
        };
        match percent.strip_suffix('%') {
            Some(shorter) => rest = shorter,
            None => return rest,
        }
    }
}

/// Whether `value` names a file: it starts with `./`, `../`, `~/`, or `/` and a lower-case
/// directory (`/etc/`, `/home/`, `/run/secrets/`).
fn is_path(value: &str) -> bool {
    if ["./", "../", "~/"]
        .iter()
        .any(|head| value.starts_with(head))
    {
        return true;
    }
    value.strip_prefix('/').is_some_and(|rest| {
        rest.split_once('/').is_some_and(|(directory, _)| {
            directory.len() >= 2 && directory.bytes().all(|b| b.is_ascii_lowercase())
        })
    })
}

/// Whether `value` is words joined in camel or Pascal case, or by `-`, `_` or `.`, without
/// digits: every upper-case letter starts a word (it is followed by a lower-case letter, or
/// the word is all upper case: `X-Api-Key`, `SecretStr`, `ACCESS_TOKEN`, `myAccessToken`).
pub(super) fn is_camel_words(value: &str) -> bool {
    value.split(['-', '_', '.']).all(|word| {
        let bytes = word.as_bytes();
        bytes.iter().all(u8::is_ascii_alphabetic) && is_camel_word(bytes)
    })
}

/// Whether `letters` read as words in camel or Pascal case: all upper case (an acronym), or
/// every upper-case letter starts a word (a lower-case letter follows it) and the words have 3
/// letters or more on average (`getApiKey`, `SecretStr`, `myAccessToken`), or words of 3
/// letters or more around one acronym of 2 to [`ACRONYM_MAX`] capitals
/// ([`is_words_around_an_acronym`]: `azureADTokenProvider`). Random mixed case has no word
/// shape: its words average about 2 letters (`qZxRtYpLmNvBwKeJ`, a digit-free key).
pub(super) fn is_camel_word(letters: &[u8]) -> bool {
    if letters.iter().all(|b| !b.is_ascii_lowercase()) {
        return true;
    }
    let starts_words = letters.iter().enumerate().all(|(at, b)| {
        !b.is_ascii_uppercase() || letters.get(at + 1).is_some_and(u8::is_ascii_lowercase)
    });
    let upper = letters.iter().filter(|b| b.is_ascii_uppercase()).count();
    let words = upper + usize::from(letters.first().is_some_and(u8::is_ascii_lowercase));
    starts_words && letters.len() >= 3 * words || is_words_around_an_acronym(letters)
}

/// The most capitals read as an acronym (`EUR`, `HTTP`, `AD` of `azureADTokenProvider`): among
/// camel-case words here, and as a word of its own in a cookie's value (`cookie_value.rs`).
pub(super) const ACRONYM_MAX: usize = 5;

/// Whether `letters` are words of 3 letters or more (a lower-case one first, capitalized ones
/// after) and one acronym of 2 to [`ACRONYM_MAX`] capitals among them or at the end
/// (`azureADTokenProvider`, `parseHTTPHeader`, `getID`: the fifth user review's 2). Random
/// mixed case has short words or more runs of capitals (`aBCdEfGh`, `xYZwvUTsrQPo`).
fn is_words_around_an_acronym(letters: &[u8]) -> bool {
    let mut acronyms = 0;
    let mut at = 0;
    while at < letters.len() {
        let capitals = letters[at..]
            .iter()
            .take_while(|b| b.is_ascii_uppercase())
            .count();
        let before_word = letters
            .get(at + capitals)
            .is_some_and(u8::is_ascii_lowercase);
        // A run's last capital starts the word after it; the capitals before are an acronym.
        let acronym = if before_word {
            capitals - usize::from(capitals > 0)
        } else {
            capitals
        };
        if acronym > 0 {
            acronyms += 1;
            if !(2..=ACRONYM_MAX).contains(&acronym) {
                return false;
            }
        }
        let word_start = at + acronym;
        let word_end = word_start
            + usize::from(before_word && capitals > 0)
            + letters[word_start + usize::from(before_word && capitals > 0)..]
                .iter()
                .take_while(|b| b.is_ascii_lowercase())
                .count();
        if word_end > word_start && word_end - word_start < 3 {
            return false;
        }
        at = word_end.max(at + 1);
    }
    acronyms == 1
}

/// Whether a found secret's `value` looks like a secret on its own, so that it is replaced
/// wherever the text spells it again ([`super::repeats`]): a token's mixed classes
/// ([`looks_like_token`]), and not words in camel case, a path or a protocol's version
/// (`HTTP/1.1`). A value found by a false match must not spread (`HTTP/1.1` taken once changed
/// 262 lines of httparse's tests, `azureADTokenProvider` 8 lines of openai's azure.ts: the
/// fifth user review's 2).
pub(super) fn looks_like_secret_alone(value: &str) -> bool {
    let version = value.split_once('/').is_some_and(|(name, number)| {
        !name.is_empty()
            && name.bytes().all(|b| b.is_ascii_alphabetic())
            && !number.is_empty()
            && number.bytes().all(|b| b.is_ascii_digit() || b == b'.')
    });
    looks_like_token(value) && !is_camel_words(value) && !is_path(value) && !version
}

/// Whether the value `text[start..end]` of a header named by an API-key name is a credential.
pub(super) fn is_key_value(text: &str, start: usize, end: usize) -> bool {
    let value = &text[start..end];
    let words = !value.bytes().any(|b| b.is_ascii_digit()) && is_camel_words(value);
    !is_code(text, start, end) && !is_placeholder(value) && !words && looks_like_token(value)
}

/// Whether the pairs `text[start..end]` of a cookie header hold a credential: some cookie's
/// value is one by its name or its shape ([`super::cookie_value::is_cookie_secret`]).
pub(super) fn is_cookie_value(text: &str, start: usize, end: usize) -> bool {
    !is_code(text, start, end)
        && text[start..end]
            .split(';')
            .filter_map(|pair| pair.split_once('='))
            .any(|(name, value)| {
                super::cookie_value::is_cookie_secret(name.trim_matches([' ', '+']), value)
            })
}

/// Whether the value `text[start..end]` reads as code: a call or an index follows it, it is a
/// dotted path of identifiers (digits or not: `cfg.pg2.password`, `k8s1.Token`), or it starts
/// on a later line than its name where no value can ([`is_on_a_later_line`]).
fn is_code(text: &str, start: usize, end: usize) -> bool {
    let called = matches!(text[end..].chars().next(), Some('(' | '['));
    let quoted = start > 0 && matches!(text.as_bytes()[start - 1], b'"' | b'\'' | b'`');
    let value = &text[start..end];
    called
        || is_identifier_path(value.trim_end_matches('!'))
        || is_on_a_later_line(text, start, end)
        || !quoted && code_value::is_identifier_in_code(text, start, end)
        || !quoted && code_value::is_constant_or_type_name(value)
        || prose::is_next_item(text, start) && code_value::is_word_identifier(value)
}

/// Whether `value` is two or more identifiers joined by `.`, none of them token-like (16
/// characters or more with a digit and no `_`: the parts of a Discord-style dotted token), or a
/// tuple's field after the first (`SERVER.0`).
/// Dotted tokens of known formats (JWTs, `SG.`, `dp.st.`) have their own kinds.
fn is_identifier_path(value: &str) -> bool {
    value.contains('.')
        && value.split('.').enumerate().all(|(at, word)| {
            let token_like = word.len() >= 16
                && word.bytes().any(|b| b.is_ascii_digit())
                && !word.contains('_')
                && !code_value::is_word_identifier(word);
            let field =
                at > 0 && (1..=2).contains(&word.len()) && word.bytes().all(|b| b.is_ascii_digit());
            field || is_identifier(word) && !token_like
        })
}

/// How far back [`is_on_a_later_line`] reads the separators before a value.
const GAP_SCAN_LIMIT: usize = 128;

/// Whether the value at `text[start..end]` starts on a later line than what precedes it (its
/// name) in a shape where a value never does. The separators before the value are read back
/// (line breaks, also escaped as `\n`, blanks, quotes, brackets, `:`, `=`, `>`, `,`; at most
/// [`GAP_SCAN_LIMIT`] bytes). A value may follow a line break only when the name's line ends in
/// `:` or `>` (YAML, pretty-printed JSON, XML) or a quoted name's `,` (a header array), never
/// after a closing `)` or `]` (`os.getenv("API_TOKEN")\nS3_BUCKET_V2`: the name is an argument
/// or an index, not a key), and never when the value is itself the next line's key (followed by
/// `:` or `=`).
fn is_on_a_later_line(text: &str, start: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    let floor = start.saturating_sub(GAP_SCAN_LIMIT);
    let mut at = start;
    let mut first_break = None;
    while at > floor {
        let b = bytes[at - 1];
        if b == b'\n' || b == b'\r' {
            first_break = Some(at - 1);
            at -= 1;
        } else if matches!(b, b'n' | b'r') && at >= 2 && bytes[at - 2] == b'\\' {
            at -= 2;
            while at > floor && bytes[at - 1] == b'\\' {
                at -= 1;
            }
            first_break = Some(at);
        } else if matches!(
            b,
            b' ' | b'\t'
                | b'"'
                | b'\''
                | b'\\'
                | b':'
                | b'='
                | b'>'
                | b','
                | b'['
                | b']'
                | b'{'
                | b'}'
                | b'('
                | b')'
                | b'|'
        ) {
            at -= 1;
        } else {
            break;
        }
    }
    let Some(line_end) = first_break else {
        return false;
    };
    // A string opened by a triple quote on a later line is a docstring (`class Token:` or
    // `def login(...) -> Token:` and `"""An OAuth 2.0 access token ..."""`: the fifth user
    // review's 3).
    if text[..start].ends_with("\"\"\"") || text[..start].ends_with("'''") {
        return true;
    }
    let names_line = &text[at..line_end];
    let closed = names_line.contains([')', ']']);
    let opens_value = names_line.contains([':', '>'])
        || names_line.trim_end().ends_with(',') && names_line.contains(['"', '\'']);
    let next_key = text[end..]
        .trim_start_matches([' ', '\t'])
        .starts_with([':', '=']);
    closed || !opens_value || next_key
}

/// Whether `word` is an identifier: a letter, `_` or `$` and then letters, digits, `_`, `$`.
fn is_identifier(word: &str) -> bool {
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Whether `value` is a placeholder, not a credential, for every kind that checks its value:
/// all-caps words joined by `_` or `-` without digits (`YOUR_ACCESS_TOKEN`, `REPLACE_ME`,
/// `OAUTH-TOKEN`), a variable or template (`$VAR`, `${VAR}`, `<token>`, `{{token}}`), or filler
/// (`xxx`, `***`, `...`, also after a prefix: `sk-xxxxxxxx`, `sk_live_xxx`).
pub(super) fn is_placeholder(value: &str) -> bool {
    let caps_words = value.bytes().any(|b| b.is_ascii_uppercase())
        && value
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b == b'_' || b == b'-');
    let template = value.starts_with(['<', '{'])
        || value.strip_prefix('$').is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '{')
        });
    let filler_part = value.rsplit(['-', '_']).next().unwrap_or(value);
    let filler = filler_part.len() >= 3
        && [b'x', b'X', b'*', b'.']
            .iter()
            .any(|fill| filler_part.bytes().all(|b| b == *fill));
    caps_words || template || filler || is_placeholder_words(value)
}

/// The words that mark a value made of words as an example's (`your-token-here`,
/// `your_access_token`, `my-api-key`, `example_secret`).
const PLACEHOLDER_WORDS: &[&str] = &[
    "your",
    "my",
    "here",
    "example",
    "sample",
    "dummy",
    "fake",
    "placeholder",
    "replace",
    "insert",
    "changeme",
    "redacted",
];

/// The words that name a credential: a word of letters and one of them is a test's or an
/// example's value (`valid-token`, `expired_token`, `wrong-password`, `test-key`).
const CREDENTIAL_NOUNS: &[&str] = &[
    "token",
    "key",
    "secret",
    "password",
    "passwd",
    "pass",
    "credential",
    "credentials",
    "apikey",
];

/// Whether `value` is words of letters joined by `-` or `_`, one of them a placeholder's word
/// ([`PLACEHOLDER_WORDS`], any case): `your-token-here`, `Your_Access_Token` (the new-user
/// review's `Authorization: Bearer your-token-here`), or two such words, the second naming a
/// credential ([`CREDENTIAL_NOUNS`]: a test's `.set('Authorization', 'Bearer valid-token')`,
/// `wrong-password`; the fourth user review's 12).
fn is_placeholder_words(value: &str) -> bool {
    let is_one_of = |word: &str, list: &[&str]| list.iter().any(|w| word.eq_ignore_ascii_case(w));
    let mut words = value.split(['-', '_']);
    let pair_naming = value
        .split_once(['-', '_'])
        .is_some_and(|(_, noun)| is_one_of(noun, CREDENTIAL_NOUNS));
    value.contains(['-', '_'])
        && words
            .clone()
            .all(|word| !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphabetic()))
        && (pair_naming || words.any(|word| is_one_of(word, PLACEHOLDER_WORDS)))
}

/// How far back [`is_url_password`] reads for the URL's user.
const USER_SCAN_LIMIT: usize = 256;

/// Whether the password `text[start..end]` of a URL (`scheme://user:password@`) is a credential:
/// not when it equals the URL's user (`postgres://postgres:postgres@`), is one word of letters
/// only, all lower or all upper case, under 16 characters (`pass`, `password`, `guest`,
/// `changeme`), or is a placeholder ([`is_placeholder`]). A digit, mixed case or a symbol keeps
/// it a credential (`Summer2024`, `s3cr3t`, `P@ss`, `MyPassword`).
fn is_url_password(text: &str, start: usize, end: usize) -> bool {
    let password = &text[start..end];
    // The user follows the scheme's `//` (or `~1~1`, a JSON Pointer's escape of it), read back
    // no further than a user can be long (it read back to the text's start when no `~1` came
    // before: a megabyte of URLs took seconds).
    let before_end = start.saturating_sub(1);
    let mut floor = before_end.saturating_sub(USER_SCAN_LIMIT);
    while !text.is_char_boundary(floor) {
        floor += 1;
    }
    let before = &text[floor..before_end];
    let user_start = before
        .rfind('/')
        .map(|slash| slash + 1)
        .max(before.rfind("~1").map(|escape| escape + 2))
        .unwrap_or(0);
    let user = &before[user_start..];
    let one_case_word = password.len() < 16
        && password.bytes().all(|b| b.is_ascii_alphabetic())
        && (password.bytes().all(|b| b.is_ascii_lowercase())
            || password.bytes().all(|b| b.is_ascii_uppercase()));
    !(password == user || one_case_word || is_placeholder(password))
}

/// Whether `value` has a token's mixed characters (see the module's doc).
pub(super) fn looks_like_token(value: &str) -> bool {
    let lower = value.bytes().any(|b| b.is_ascii_lowercase());
    let upper = value.bytes().any(|b| b.is_ascii_uppercase());
    let digits = value.bytes().filter(u8::is_ascii_digit).count();
    let classes = [lower, upper, digits > 0].iter().filter(|&&c| c).count();
    classes >= 2 || (digits >= 16 && !lower && !upper)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_told_apart_from_code_and_placeholders() {
        // (value, what follows it, is a credential)
        let cases = [
            ("q8Z2mX4vL9pR7tY1wK3n", "", true),
            ("a3f9c2e17b5d4f60", "\n", true),
            ("AB12CD34EF56GH78", "", true),
            ("1234567890123456", "", true),
            ("sk_live.a1b2c3d4e5f6g7h8", "", true),
            (
                "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
                "",
                true,
            ),
            // Dotted paths of identifiers are code, digits or not (the second user review's 2).
            ("cfg.pg2.password", "", false),
            ("k8s1.Token", "", false),
            ("settings.OAUTH2_CLIENT_SECRET", "", false),
            ("random_password.db_v2.result", "", false),
            ("oauth2Client.credentials.access_token", "\n", false),
            ("os.environ.get", "(", false),
            ("process.env.OPENAI_API_KEY", "", false),
            ("settings.openai_api_key", ")", false),
            ("gitlab_config.private_token_for", "(", false),
            ("YOUR_API_KEY_HERE", "", false),
            ("your-api-key-here", "", false),
            ("xxxxxxxxxxxxxxxx", "", false),
            ("123456789012", "", false),
            ("request_headers", "[", false),
        ];
        for (value, after, credential) in cases {
            let text = format!("{value}{after}");
            assert_eq!(
                is_key_value(&text, 0, value.len()),
                credential,
                "{value:?} before {after:?}"
            );
        }
        let cookies = [
            ("theme=dark; path=/", false),
            ("lang=en-US; Path=/; Max-Age=3600", false),
            ("session=9f8e7d6c5b4a3f2e1d0c; path=/", true),
            ("sid=Xy7Qp2Lm9Rt4Vw8Z", true),
            // A time zone or a timestamp makes no cookie a session (the attack review 4's 9).
            ("theme=dark; tz=Europe/Berlin", false),
            (
                "cart=3; currency=EUR; lastVisited=2024-05-01T10:00:00Z",
                false,
            ),
            ("tz=Europe/Berlin; sid=Xy7Qp2Lm9Rt4Vw8Z", true),
        ];
        for (pairs, credential) in cookies {
            assert_eq!(
                is_cookie_value(pairs, 0, pairs.len()),
                credential,
                "{pairs}"
            );
        }
    }

    /// Ordinary source lines a coding agent reads (the attack review's 17 found the first four
    /// kinds mangled): Python, JavaScript and TypeScript, Go, shell, YAML, .env with placeholders,
    /// markdown. Each passes the scrub unchanged.
    #[test]
    fn ordinary_source_lines_pass_unchanged() {
        let corpus = [
            // Python.
            r#"api_key = os.environ.get("OPENAI_API_KEY")"#,
            r#"api_key = os.environ["OPENAI_API_KEY"]"#,
            "client = OpenAI(api_key=settings.openai_api_key)",
            r#"headers["X-Api-Key"] = self.config.api_key_value"#,
            "private_token = gitlab_config.private_token_for(user)",
            r#"API_KEY = os.getenv("API_KEY", "YOUR_API_KEY_HERE")"#,
            // JavaScript and TypeScript.
            "const apiKey = process.env.OPENAI_API_KEY",
            "this.apiKey = options.apiKey ?? defaults.apiKey",
            r#"if (!apiKey) throw new Error("missing")"#,
            r#"document.cookie = "theme=dark; path=/""#,
            r#"const token = req.headers.authorization?.split(" ")[1]"#,
            r#"apiKey: config.get<string>("openai.apiKey"),"#,
            "export function getApiKeyFromEnvironment(): string {",
            "headers: { 'x-api-key': apiKeyFromVault() },",
            "const apiKey = `${API_KEY}`",
            // Go.
            r#"apiKey := os.Getenv("API_KEY")"#,
            r#"req.Header.Set("X-Api-Key", cfg.ApiKey)"#,
            // Shell.
            r#"curl -H "Authorization: Bearer $TOKEN" https://api.example.com"#,
            r#"curl -H "X-Api-Key: ${API_KEY}" https://api.example.com"#,
            "export API_KEY=$(cat ~/.config/key)",
            // YAML and .env with placeholders.
            "api_key: ${OPENAI_API_KEY}",
            "api_key: <your-api-key>",
            "API_KEY=your-api-key-here",
            "API_KEY=xxxxxxxxxxxxxxxx",
            "API_KEY=****************",
            "X_API_KEY=REPLACE_WITH_YOUR_KEY",
            // Prose and markdown.
            "Authorization: Bearer <your-token-here>",
            "| `api_key` | string | Your OpenAI API key from the dashboard |",
            "x-api-key-header-name: X-Api-Key",
            "Set-Cookie: lang=en-US; Path=/; Max-Age=3600",
            // The words of credential parameters and schemes in code (issue 19's kinds), with
            // placeholders, variables and type names as their values.
            r#"token_type = response.json()["token_type"]"#,
            "access_token = get_access_token(client_id, client_secret)",
            "const accessToken = await auth.getAccessToken()",
            "self.refresh_token = refresh_token",
            "access_token: Optional[str] = None",
            "client_secret: SecretStr = Field(...)",
            "refreshToken: AccessTokenProvider,",
            r#"let password = prompt("Password: ")"#,
            "password = getpass.getpass()",
            r#"DB_PASSWORD = os.environ["DB_PASSWORD"]"#,
            "password: ${DB_PASSWORD}",
            "password: changeme",
            "PASSWORD=your-password-here",
            "private_key: ./keys/id_ed25519_2024",
            "secret_key_file = /run/secrets/secret_key_2024",
            r#"curl -u "$USER:$PASS" https://api.example.com"#,
            r#"curl -u "${GITHUB_USER}:${GITHUB_TOKEN}" https://api.github.com"#,
            "docker run -u 1000:1000 image",
            "wget --password=$WGET_PASSWORD https://example.com/f",
            "Use your secret key: sk_live_... (or sk_live_xxx in test mode).",
            "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
            "//registry.npmjs.org/:_authToken=$NPM_TOKEN",
            r#"headers["Authorization"] = f"Bearer {token}""#,
            r#"const auth = `Bearer ${accessToken}`"#,
            r#"headers: { Authorization: "Bearer " + token }"#,
            "Bearer tokens are sent in the Authorization header.",
            "Basic authentication is not supported; use a Bearer token.",
            "See the Token Authentication section for details.",
            "next_page_token = resp.get(\"nextPageToken\")",
            "| `access_token` | string | The token issued by the server |",
            "| Authorization | Bearer <token> |",
            "Map(Authorization -> Bearer ${token})",
            "<name>Authorization</name><value>Bearer ${TOKEN}</value>",
            // The second user review's 1, 2, 3 and 5 (lines of its repros).
            "x = os.getenv(\"API_TOKEN\")\nS3_BUCKET_V2 = 1",
            "SECRET_KEY = os.environ[\"DJANGO_SECRET_KEY\"]\nAWS_S3_SECRET = env.str(\"X\")",
            "password: cfg.pg2.password",
            "token: oauth2Client.credentials.access_token",
            "client_secret=settings.OAUTH2_CLIENT_SECRET",
            "password = random_password.db_v2.result",
            "output \"token\" { value = aws_iam_access_key.ci_v1.id }",
            "Token: k8s1.Token",
            "Authorization: Bearer YOUR_ACCESS_TOKEN",
            "Authorization: Bearer YOUR_TOKEN_HERE",
            "Authorization: Bearer ACCESS_TOKEN",
            "Authorization: Bearer REPLACE_ME_WITH_TOKEN",
            "postgres://postgres:postgres@localhost",
            "amqp://guest:guest@localhost:5672",
            "https://user:pass@example.com",
            "redis://:password@localhost:6379",
            "mysql://root:root@localhost",
            "token 550e8400-e29b-41d4-a716-446655440000 not found in cache",
            // The attack review 2's 13: a TypeScript type, parser errors, prose, a request id
            // and a shell variable after a credential's word.
            "interface Props { token: AuthToken2; password?: string }",
            "type Session = { secret: SecretValue2, token?: TokenV2 | null }",
            r#"<span class="token punctuation">{</span><span class="token keyword2">"#,
            "SyntaxError: Unexpected token 'export2024', expected expression",
            "unexpected token ReturnStatement2 at position 45",
            "token tokenizer_v2_model_2048 loaded",
            "Secret Santa2024 registration open",
            "request token: 550e8400-e29b-41d4-a716-446655440000",
            "request id: 550e8400-e29b-41d4-a716-446655440000",
            "PASSWORD=$DB_PASS123",
            "password: ${DB_PASS_2}",
            r#"DB_PASSWORD="$DB_PASS123""#,
            // The new-user review: lower-case placeholders after a scheme or an API-key name.
            "Authorization: Bearer your-token-here",
            "Authorization: Bearer your_access_token",
            "X-Api-Key: your-api-key",
            "X-Api-Key: ApiKeyFromVault",
            "x-api-key: getApiKeyValue",
        ];
        assert_unchanged(&corpus);
    }

    /// Secrets beside the look-alikes above that must still be found: digit-free keys (random
    /// mixed case has no word shape), weak passwords with a year, tokens after the words the
    /// prose rules read.
    #[test]
    fn secrets_beside_the_look_alikes_are_found() {
        assert_scrubs(&[
            (
                "X-Api-Key: qZxRtYpLmNvBwKeJsDfGha",
                "X-Api-Key: [redacted:credential-header]",
            ),
            (
                "X-Api-Key: QmVsbG9IZWxsb1dvcmxkQmFzZQ",
                "X-Api-Key: [redacted:credential-header]",
            ),
            (
                "api_key=hTzKqWmPxRvLbNcYdFgJsq",
                "api_key=[redacted:credential-header]",
            ),
            (
                "Authorization: Bearer qZxRtYpLmNvBwKeJ",
                "Authorization: Bearer [redacted:bearer-token]",
            ),
            (
                "PASSWORD=Summer2024",
                "PASSWORD=[redacted:credential-parameter]",
            ),
            (
                "password: $3cr3tPass",
                "password: [redacted:credential-parameter]",
            ),
            (
                "token: q8Z2mX4vL9pR7tY1wK3n",
                "token: [redacted:credential-parameter]",
            ),
            (
                "secret: Zx9Qw8Er7Ty6Ui5O",
                "secret: [redacted:credential-parameter]",
            ),
            (
                "request token: q8Z2mX4vL9pR7tY1wK3n",
                "request token: [redacted:credential-parameter]",
            ),
        ]);
    }

    /// `text` as the built-in scanner scrubs it.
    fn scrubbed(text: &str) -> String {
        let scanner = crate::secrets::SecretScanner::new(&[]).unwrap();
        let mut counts = Default::default();
        scanner.scrub(text, &mut counts).into_owned()
    }

    /// Every line of `corpus` scrubs to itself; the changed ones are listed.
    fn assert_unchanged(corpus: &[&str]) {
        let changed: Vec<String> = corpus
            .iter()
            .map(|line| (scrubbed(line), line))
            .filter(|(out, line)| out != *line)
            .map(|(out, line)| format!("{line}\n  -> {out}"))
            .collect();
        assert!(changed.is_empty(), "changed:\n{}", changed.join("\n"));
    }

    /// Each (text, expected scrub) pair of a table.
    fn assert_scrubs(cases: &[(&str, &str)]) {
        for (text, expected) in cases {
            assert_eq!(scrubbed(text), *expected, "{text:?}");
        }
    }

    /// Identifiers of code after a credential's name pass: arguments, types, array sizes, paths
    /// and ids in prose, from real packages (the third user review's 1: `node_modules`,
    /// `~/.cargo/registry`), while the same names with credentials after them are still found.
    #[test]
    fn identifiers_of_code_after_a_name_pass_and_credentials_do_not() {
        let code = [
            "        token: process.env.UPSTASH_REDIS_REST_TOKEN!,",
            "    password: URLPatternComponentResult;",
            "  accessToken: OAuth2AccessTokenResponse;",
            "acc = XXH3_hashLong(acc, data, secret, XXH3_accumulate_512, XXH3_scrambleAcc);",
            "let raw_private_key: Curve25519SeedBin<'_> = private_key",
            "pub const InheritPrivateKey: X509RequestInheritOptions = 3i32;",
            "        generate_private_key: x25519_generate_private_key,",
            "let mut unique_token = Token(SERVER.0 + 1);",
            r#"impl_low_level_token!("group token" proc_macro2::Group any_group);"#,
            "uint8_t private_key[MLDSA44_PRIVATE_KEY_BYTES] = {0};",
            "OPENSSL_memcpy(ed25519_private_key, kEd25519PrivateKey, 32);",
            "EVP_PKEY_pqdsa_new_raw_private_key(NID_MLDSA44, bytes.as_ptr(), bytes.len())",
            "* Fix positions of BufferedStream being for the next token ([66eab92a](https://github.com/Marwes/combine/commit/66eab92a7dd6))",
        ];
        for line in code {
            assert_eq!(scrubbed(line), line, "{line}");
        }
        let credentials = [
            ("password: Summer2024", "Summer2024"),
            ("Server=db;Password=Summer2024;User Id=x", "Summer2024"),
            ("?password=Summer2024&user=x", "Summer2024"),
            ("password = \"Summer2024\";", "Summer2024"),
            ("f(acc, secret, aB3dE6fG9hJ2kL5)", "aB3dE6fG9hJ2kL5"),
            ("token: q8Z2mX4vL9pR7tY1wK3n;", "q8Z2mX4vL9pR7tY1wK3n"),
            ("let k = Token(\"q8Z2mX4vL9pR7tY1\");", "q8Z2mX4vL9pR7tY1"),
        ];
        for (text, secret) in credentials {
            let out = scrubbed(text);
            assert!(!out.contains(secret), "{text:?} -> {out:?}");
        }
    }

    /// A password holding symbols is redacted whole in every shape a named value takes: it was
    /// cut at its first `&`, `;`, `,`, `?`, `%`, `(`, `=`, `:` or blank, and the rest reached the
    /// model (or all of it, when the head before the symbol was under 8 characters; the third
    /// user review's 2). Unquoted outside an environment assignment, `&`, `;` and `,` still
    /// separate fields.
    #[test]
    fn passwords_with_symbols_are_redacted_whole() {
        let passwords = [
            "Tr0ub4dor&3xK9!",
            "Xk9#mQ2$vL7pZ",
            "aB3;dE6fG9hJ2k",
            "Qw3,rT6yU9iO1p",
            "Zx8?cV5bN2mL4k",
            "Pq7%Rs4Tu1Vw8",
            "Mn5(bV8)cX2zL",
            "Lp0=Ok9Ij8Uh7",
            "Yt6*Re3Wq0Po9",
            "Gh2:Jk5Lm8Np1Q",
            "Kj4 Hg7Fd1Sa9",
        ];
        for password in passwords {
            let mut shapes = vec![
                format!("DB_PASSWORD=\"{password}\""),
                format!("password: '{password}'"),
                format!("{{\"password\":\"{password}\"}}"),
                format!("{{\"config\":\"{{\\\"password\\\":\\\"{password}\\\"}}\"}}"),
            ];
            if !password.contains(['(', ' ']) {
                shapes.push(format!("export DB_PASSWORD={password}\nNEXT=1"));
            }
            if !password.contains(['(', ' ', '&', ',', ';', '=', ':']) {
                shapes.push(format!("client_secret={password} next"));
            }
            for text in shapes {
                let out = scrubbed(&text);
                assert!(
                    out.contains("[redacted:credential-parameter]")
                        && !out.contains(&password[password.len() - 4..]),
                    "{text:?} -> {out:?}"
                );
            }
        }
        assert_scrubs(&[
            (
                "?token=Ab3dE6fG9h&user=x",
                "?token=[redacted:credential-parameter]&user=x",
            ),
            (
                "connect(password=pw123456, timeout=3)",
                "connect(password=[redacted:credential-parameter], timeout=3)",
            ),
            (
                "Set-Cookie: x; session_token=Ab3dE6fG9h;Path=/",
                "Set-Cookie: x; session_token=[redacted:credential-parameter];Path=/",
            ),
            ("password=getPass(1234)", "password=getPass(1234)"),
            ("password=hunter2;", "password=hunter2;"),
        ]);
    }

    /// A credential name that ends its line is no key when `)` or `]` closes it or its line has
    /// no `:`/`>`: the next line's first word is not its value (the second user review's 1, seen
    /// in Django settings and `os.getenv` lines). Values that do follow a line break (YAML,
    /// pretty-printed JSON, XML, header arrays) are still found.
    #[test]
    fn a_value_starts_on_a_later_line_only_where_values_do() {
        assert_scrubs(&[
            (
                "x = os.getenv(\"API_TOKEN\")\nS3_BUCKET_V2 = 1",
                "x = os.getenv(\"API_TOKEN\")\nS3_BUCKET_V2 = 1",
            ),
            (
                "SECRET_KEY = os.environ[\"DJANGO_SECRET_KEY\"]\nAWS_S3_SECRET = env.str(\"X\")",
                "SECRET_KEY = os.environ[\"DJANGO_SECRET_KEY\"]\nAWS_S3_SECRET = env.str(\"X\")",
            ),
            (
                "x = env[\"API_TOKEN\"]\n\nS3_BUCKET_V2 = \"b\"",
                "x = env[\"API_TOKEN\"]\n\nS3_BUCKET_V2 = \"b\"",
            ),
            (
                "{\"x\": \"env[\\\"API_TOKEN\\\"]\\nS3_BUCKET_V2\"}",
                "{\"x\": \"env[\\\"API_TOKEN\\\"]\\nS3_BUCKET_V2\"}",
            ),
            (
                "const p = process.env.DB_PASSWORD\nconst region2Name = \"eu\"",
                "const p = process.env.DB_PASSWORD\nconst region2Name = \"eu\"",
            ),
            (
                "DB_PASSWORD=\nDB_HOST2=db2.internal",
                "DB_PASSWORD=\nDB_HOST2=db2.internal",
            ),
            (
                "auth:\n  password:\n  username2: admin2024",
                "auth:\n  password:\n  username2: admin2024",
            ),
            (
                "def connect(client_secret,\n            region2name):",
                "def connect(client_secret,\n            region2name):",
            ),
            (
                "password:\n  s3cr3tPass9",
                "password:\n  [redacted:credential-parameter]",
            ),
            (
                "{\n  \"password\":\n    \"s3cr3tPass9\"\n}",
                "{\n  \"password\":\n    \"[redacted:credential-parameter]\"\n}",
            ),
            (
                "<password>\n  s3cr3tPass9\n</password>",
                "<password>\n  [redacted:credential-parameter]\n</password>",
            ),
            (
                "[\n  'X-Api-Key',\n  'q8Z2mX4vL9pR7tY1wK3n'\n]",
                "[\n  'X-Api-Key',\n  '[redacted:credential-header]'\n]",
            ),
            (
                "- name: password\n  value: s3cr3tPass9",
                "- name: password\n  value: [redacted:credential-parameter]",
            ),
        ]);
    }

    /// Code after a credential's name or scheme word passes, digits in it or not (the second
    /// user review's 2: TypeScript, Python, Terraform and Go lines); a value followed by a call
    /// or an index is code too. Real tokens beside them are still found.
    #[test]
    fn code_after_a_name_or_scheme_word_passes_for_every_kind() {
        assert_scrubs(&[
            ("password: cfg.pg2.password,", "password: cfg.pg2.password,"),
            (
                "token: oauth2Client.credentials.access_token,",
                "token: oauth2Client.credentials.access_token,",
            ),
            (
                "client_secret=settings.OAUTH2_CLIENT_SECRET",
                "client_secret=settings.OAUTH2_CLIENT_SECRET",
            ),
            (
                "  password = random_password.db_v2.result",
                "  password = random_password.db_v2.result",
            ),
            (
                "output \"token\" { value = aws_iam_access_key.ci_v1.id }",
                "output \"token\" { value = aws_iam_access_key.ci_v1.id }",
            ),
            ("\tToken: k8s1.Token,", "\tToken: k8s1.Token,"),
            ("X-Api-Key: cfg2.apiKey", "X-Api-Key: cfg2.apiKey"),
            (
                "auth = \"Bearer \" + self.creds2.access_token",
                "auth = \"Bearer \" + self.creds2.access_token",
            ),
            (
                "password = vault2.read(path)",
                "password = vault2.read(path)",
            ),
            (
                "X-GitHub-Token: cfg.gh2.token",
                "X-GitHub-Token: cfg.gh2.token",
            ),
            // Still credentials.
            (
                "password: s3cr3t.9Pass",
                "password: [redacted:credential-parameter]",
            ),
            (
                "token: MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
                "token: [redacted:credential-parameter]",
            ),
            (
                "SENDGRID=SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
                "SENDGRID=[redacted:sendgrid-key]",
            ),
        ]);
    }

    /// One placeholder rule for every checked kind (the second user review's 3): all-caps words
    /// without digits, templates and filler pass after `Bearer`, `Basic`, an API-key header or a
    /// credential's name; a short real-looking token is still found.
    #[test]
    fn placeholders_pass_for_every_kind() {
        for (value, placeholder) in [
            ("YOUR_ACCESS_TOKEN", true),
            ("YOUR_TOKEN_HERE", true),
            ("ACCESS_TOKEN", true),
            ("REPLACE_ME_WITH_TOKEN", true),
            ("OAUTH-TOKEN", true),
            ("XXXXXXXXXXXX", true),
            ("xxxxxxxx", true),
            ("sk-xxxxxxxx", true),
            ("sk_live_xxxxxxxx", true),
            ("********", true),
            ("........", true),
            ("$ACCESS_TOKEN", true),
            ("${token}", true),
            ("<token>", true),
            ("{{token}}", true),
            ("ABCD1234EFGH", false),
            ("q8Z2mX4vL9pR", false),
            ("xxxxxxxx9", false),
            ("$3cr3tPass", false),
        ] {
            assert_eq!(is_placeholder(value), placeholder, "{value}");
        }
        for line in [
            "Authorization: Bearer YOUR_ACCESS_TOKEN",
            "Authorization: Bearer YOUR_TOKEN_HERE",
            "curl -H \"Authorization: Bearer ACCESS_TOKEN\" https://api.example.com",
            "Authorization: Bearer REPLACE_ME_WITH_TOKEN",
            "Authorization: Bearer XXXXXXXXXXXX",
            "Authorization: Bearer sk-xxxxxxxx",
            "Authorization: token OAUTH-TOKEN",
            "Authorization: Basic YOUR_CREDENTIALS",
            "X-Api-Key: YOUR_API_KEY_HERE",
            "access_token=YOUR_ACCESS_TOKEN",
            "password=YOUR_PASSWORD_HERE",
            "client_secret: REPLACE_ME",
        ] {
            assert_eq!(scrubbed(line), line, "{line}");
        }
        assert_scrubs(&[
            (
                "Authorization: Bearer abc123def456",
                "Authorization: Bearer [redacted:bearer-token]",
            ),
            (
                "Authorization: Bearer ABCD1234EFGH",
                "Authorization: Bearer [redacted:bearer-token]",
            ),
        ]);
    }

    /// URL passwords of READMEs and dev configs pass (the second user review's 3): the user's
    /// name again, one word of one case under 16 letters, a placeholder. A digit, mixed case or
    /// a symbol is a credential.
    #[test]
    fn url_passwords_that_are_words_or_the_user_pass() {
        let cases = [
            ("postgres://postgres:postgres@localhost:5432/test", true),
            ("amqp://guest:guest@localhost:5672", true),
            ("https://user:pass@example.com", true),
            ("redis://:password@localhost:6379", true),
            ("mysql://root:root@localhost", true),
            ("postgres://user:password@localhost/db", true),
            ("mongodb://USERNAME:PASSWORD@host", true),
            ("postgres://app:changeme@db/app", true),
            ("https://user:YOUR_TOKEN@example.com", true),
            ("postgres://user:Summer2024@db/app", false),
            ("postgresql://user:secret123@localhost/db", false),
            ("ftp://user:s3cr3t@host", false),
            ("https://user:P@ss@host.example", false),
            ("https://user:MyPassword@host", false),
            ("https://user:correcthorsebatterystaple@host", false),
            ("https://x-access-token:abcdefgh@github.com/o/r", true),
        ];
        for (url, unchanged) in cases {
            let out = scrubbed(url);
            assert_eq!(out == url, unchanged, "{url} -> {out}");
            if !unchanged {
                assert!(out.contains(":[redacted:url-password]@"), "{url} -> {out}");
            }
        }
    }

    /// The second user review's 11 and 16: shapes that reached the model raw, each beside a
    /// look-alike that passes.
    #[test]
    fn vendor_headers_wrapped_bearer_docker_auth_and_putty_keys_are_found() {
        let ppk = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me\n\
                   Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIG9q\nAAAAIG9qKpVqLDr1c4\n\
                   Private-Lines: 1\nAAAAIFlLJ3q3p7dbPmJ2vXQ9sTy5Ms8ZZ0D3c1YwTYFhC3kR\n\
                   Private-MAC: 5b2b1d0e4c2a0b9f\n";
        let ppk_scrubbed = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n\
                            Comment: me\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIG9q\n\
                            AAAAIG9qKpVqLDr1c4\nPrivate-Lines: 1\n[redacted:private-key]\n\
                            Private-MAC: 5b2b1d0e4c2a0b9f\n";
        assert_scrubs(&[
            (
                "X-GitHub-Token: q8Z2mX4vL9pR7tY1wK3n",
                "X-GitHub-Token: [redacted:credential-header]",
            ),
            (
                "{\"X-Figma-Token\": \"figd_q8Z2mX4vL9pR7tY1\"}",
                "{\"X-Figma-Token\": \"[redacted:credential-header]\"}",
            ),
            (
                "X-Shopify-Access-Token: q8Z2mX4vL9pR7tY1wK3n",
                "X-Shopify-Access-Token: [redacted:credential-header]",
            ),
            (
                "X-GitHub-Token: YOUR_GITHUB_TOKEN",
                "X-GitHub-Token: YOUR_GITHUB_TOKEN",
            ),
            ("X-Cache-Key: page-home", "X-Cache-Key: page-home"),
            ("max_key = 1234567890ab", "max_key = 1234567890ab"),
            (
                "Authorization: Bearer\n  q8Z2mX4vL9pR7tY1wK3n\n",
                "Authorization: Bearer\n  [redacted:bearer-token]\n",
            ),
            (
                "Authorization: Bearer\nq8Z2mX4vL9pR7tY1wK3n",
                "Authorization: Bearer\n[redacted:bearer-token]",
            ),
            (
                "Authorization: Bearer\nTokens2 are sent here\n",
                "Authorization: Bearer\nTokens2 are sent here\n",
            ),
            (
                r#"{"auths": {"https://index.docker.io/v1/": {"auth": "dXNlcjpzM2NyM3Q="}}}"#,
                r#"{"auths": {"https://index.docker.io/v1/": {"auth": "[redacted:credential-parameter]"}}}"#,
            ),
            (r#"{"auth": "required"}"#, r#"{"auth": "required"}"#),
            (r#"{"auth": "bearer2"}"#, r#"{"auth": "bearer2"}"#),
            (ppk, ppk_scrubbed),
            (
                "Private-Lines: 1\nsee the spec, section 2\n",
                "Private-Lines: 1\nsee the spec, section 2\n",
            ),
        ]);
    }

    /// Ordinary text and code after a credential's name pass (the fourth user review's 1, 2 and
    /// 12): sentences in messages, errors and locale files (zod, @types/node, pyca/cryptography,
    /// hyper), class and constant names with digits (pyca/cryptography, config modules), a
    /// test's `valid-token`; the same names with secrets after them are found (next test).
    #[test]
    fn text_and_code_after_a_name_pass() {
        let corpus = [
            // Sentences: messages, errors, locale strings.
            r#".refine((data) => data.password === data.confirmPassword, "Both password and confirmation must match");"#,
            "const password = 'Password used to generate key';",
            r#"            raise InvalidToken("Supplied HOTP value does not match.")"#,
            r#"            Parse::Header(h::Token)) => "invalid HTTP header parsed","#,
            r#"check(user.password, "Password must be at least 12 characters long")"#,
            r#"assert.equal(form.confirmPassword, "Passwords do not match, try again")"#,
            r#"expect(res.body.accessToken, "the login response should carry a token").toBeDefined()"#,
            "log.warn(cfg.apiToken, 'token will expire in 5 minutes, refreshing now')",
            r#"errors.password = "Password is required";"#,
            r#"raise ValueError(password, "does not meet the policy of 3 character classes")"#,
            r#"["password", "Both password and confirmation must match"]"#,
            r#"{"login": {"password": "Your password must be at least 8 characters", "token": "Your session token has expired, please sign in again"}}"#,
            r#"password: "Enter your password to continue""#,
            r#"  passwordMismatch: "The two passwords do not match, please retry","#,
            r#"password_help = "Use 12 or more characters with a mix of letters, numbers & symbols""#,
            "token_expired=Your session expired after 30 minutes of inactivity",
            r#"api_token: "Create one under Settings > Developer > Tokens""#,
            "password: Enter your password to continue",
            // Class and constant names with digits: paths, types, constants, list items.
            "MLKEM768X25519PrivateKey = rust_openssl.hpke.MLKEM768X25519PrivateKey",
            "    \"MLKEM768X25519PrivateKey\",\n    \"MLKEM768X25519PublicKey\",",
            "        key, (ed25519.Ed25519PrivateKey, ed25519.Ed25519PublicKey)",
            "        self, private_key: ed25519.Ed25519PrivateKey, f_priv: _FragList",
            "    if isinstance(private_key, ed25519.Ed25519PrivateKey):",
            "private_key = Ed25519PrivateKey.generate()",
            "token_cls = Argon2idPasswordHasher",
            "const { password = DEFAULT_PASSWORD_V2 } = opts",
            "password = HASH_SHA256",
            "secret: AES_256_GCM,",
            "token_type = TOKEN_V1",
            "  token: TOKEN_TYPE_OAUTH2,",
            "client_secret = CLIENT_SECRET_2",
            "if password == PASSWORD_2FA:",
            "token = T_INT64",
            "secret_key: KEY_ED25519,",
            "  password: DB_PASSWORD_V2,",
            // A test's token (r9 #7, seen again in the fourth review's 12).
            ".set('Authorization', 'Bearer valid-token')",
            "Authorization: Bearer expired-token",
            // Configuration lines whose rest is code (the value runs to the line's end only
            // where it is a value).
            "password = vault2.read(path)",
            "token_type = response.json()[\"token_type\"]",
            "access_token: Optional[str] = None",
            "password = hash_password2(raw) or DEFAULT",
        ];
        assert_unchanged(&corpus);
    }

    /// The other side of [`text_and_code_after_a_name_pass`]: passphrases where a value is
    /// assigned, passwords and tokens shaped like words with digits, and unquoted values
    /// holding a symbol in a configuration line, whole (the fourth user review's 3: the value
    /// ended at the symbol and the head was under 8 characters, so all of it passed).
    #[test]
    fn secrets_beside_text_and_code_are_found_whole() {
        let cases = [
            // Passphrases where a value is assigned.
            (
                r#"password = "correct horse battery staple""#,
                "horse battery",
            ),
            (
                r#"{"password": "correct horse battery staple"}"#,
                "horse battery",
            ),
            (
                "DB_PASSWORD=\"Correct Horse Battery Staple\"",
                "Horse Battery",
            ),
            ("password: correct horse battery staple", "horse battery"),
            (
                "password: correct horse battery staple # prod",
                "horse battery",
            ),
            // Words with digits that are not names of code.
            ("password = Summer2024", "Summer2024"),
            ("password = MyPassword1", "MyPassword1"),
            ("PASSWORD=SUMMER_2024", "SUMMER_2024"),
            ("password: P4SS_W0RD", "P4SS_W0RD"),
            ("token: AB12_CD34_EF56_GH78", "AB12_CD34_EF56_GH78"),
            ("Authorization: Bearer q8Z2mX4vL9pR7tY1", "q8Z2mX4vL9pR7tY1"),
            // A symbol in an unquoted value of a configuration line.
            ("password: Qw3,rT6yU9iO1p", "rT6yU9iO1p"),
            ("spring.datasource.password=Qw3;rT6yU9iO1p", "rT6yU9iO1p"),
            ("db_password = Zx8:cV5bN2mL4k", "cV5bN2mL4k"),
            ("  password: aB3=dE6fG9hJ2k", "dE6fG9hJ2k"),
            ("mysql:\n  password: Tr0(ub4)dor3x", "dor3x"),
            ("client_secret: 9f;Kq2xLm8Vn4Rt7", "Kq2xLm8Vn4Rt7"),
            ("PASSWORD: hunter2,hunter3,more", "hunter3"),
            ("export DB_PASSWORD=Mn5(bV8)cX2zL", "cX2zL"),
            ("- password: Gh2:Jk5Lm8Np1Q", "Jk5Lm8Np1Q"),
            ("[db]\npassword = Yt6*Re3,Wq0Po9 ; x", "Wq0Po9"),
        ];
        for (text, secret) in cases {
            let out = scrubbed(text);
            assert!(
                out.contains("[redacted:") && !out.contains(secret),
                "{text:?} -> {out:?}"
            );
        }
        // Elsewhere an unquoted value still ends at `&`, `;` and `,` (query strings, cookies,
        // argument lists, log lines with several fields).
        assert_scrubs(&[
            (
                "GET /cb?token=Ab3dE6fG9h&user=x",
                "GET /cb?token=[redacted:credential-parameter]&user=x",
            ),
            (
                "level=info password=pw123456,user=bob",
                "level=info password=[redacted:credential-parameter],user=bob",
            ),
            // A session cookie (by its name) makes the Cookie header a credential: its whole
            // value goes (cookie_value.rs); before that rule only the value read by its name did.
            (
                "Cookie: a=1; session_token=Ab3dE6fG9h;theme=dark",
                "Cookie: [redacted:credential-header]",
            ),
            (
                "password=Pw12345678&grant_type=password",
                "password=[redacted:credential-parameter]&grant_type=password",
            ),
        ]);
    }

    /// The second user review's 5: after the word `token` and blanks (prose, logs), a UUID is an
    /// id and a short word is a lexer's token; a long token there is still found.
    #[test]
    fn ids_after_the_word_token_in_prose_pass() {
        for line in [
            "token 550e8400-e29b-41d4-a716-446655440000 not found in cache",
            "Lexer: token IDENTIFIER2 at 3:14",
            "unexpected token abc123 in JSON",
        ] {
            assert_eq!(scrubbed(line), line, "{line}");
        }
        assert_scrubs(&[
            (
                "sent token q8Z2mX4vL9pR7tY1wK3n to the server",
                "sent token [redacted:credential-header] to the server",
            ),
            (
                "api_token=550e8400-e29b-41d4-a716-446655440000",
                "api_token=[redacted:credential-parameter]",
            ),
        ]);
    }

    /// Ordinary code and text of the fifth user review (1, 3, 4; repro 7 ran the scanner over
    /// node_modules, ~/.cargo/registry and python3.11) pass unchanged: a value before a `//`
    /// comment, `await`/`new`/`yield` before a call, a call whose arguments span lines, a
    /// docstring after a line ending in `Token:`, labels that name the credential, the next
    /// argument after a closed one.
    #[test]
    fn code_comments_docstrings_and_labels_after_a_name_pass() {
        assert_unchanged(&[
            // MCP SDK shared/auth.js.
            "    id_token: z.string().optional(), // Optional for OAuth 2.1, but necessary in OpenID Connect",
            "    access_token: z.string(), // RFC 6749 section 5.1",
            "    password: z.string().min(8), // at least 8 chars",
            "\tpassword: z.string().min(8),\t// at least 8 chars",
            // openai SDK internal/bedrock.ts.
            "      token = await this.tokenProvider();",
            "password = await promptForPassword();",
            "password = new PasswordPrompt(options);",
            "    token = yield self.fetch_token()",
            // CPython urllib/request.py:2350.
            "passwd = getpass.getpass(\"Enter password for %s in %s at %s: \" %\n        (user, realm, host))",
            "    secret = self.vault.read_secret(\n        path)",
            // Python docstrings after `Token:`.
            "class Token:\n    \"\"\"An OAuth 2.0 access token and its expiry.\"\"\"",
            "def login(username: str, password: str) -> Token:\n    \"\"\"Check the password and return an access_token.\"\"\"",
            "def refresh(self) -> Token:\n    '''Refresh the access token 2 minutes before expiry.'''",
            // Locale files and UI labels.
            "{\"forgotPassword\": \"Forgot Your Password\", \"resetPassword\": \"Reset Your Password\"}",
            "changePassword: \"Change Account Password\"",
            "password: Choose Strong Password",
            "  confirm_password: Confirm New Password",
            "api_token: \"Personal Access Token\"",
            // aws-lc's obj_mac.h.
            "#define LN_server_auth \"TLS Web Server Authentication\"",
            // httparse's tests.
            "assert_eq!(result, Err(crate::Error::Token), \"failed for utf8 char i: {}, j: {}\", i, j)",
            "check(Some(cfg.secret), \"expected 2 keys: {}\", n)",
        ]);
    }

    /// The rules above do not open a way around the credentials they sit beside: real values
    /// before a comment, after a keyword-like word, in a triple-quoted string on the name's
    /// line, passphrases that do not name a credential, and a query key with its `=`.
    #[test]
    fn credentials_beside_comments_keywords_and_labels_are_found() {
        assert_scrubs(&[
            (
                "password: aB3dE6fG9hJ2 // prod",
                "password: [redacted:credential-parameter] // prod",
            ),
            (
                "token = awaitQ8z2mX4vL9pR",
                "token = [redacted:credential-parameter]",
            ),
            (
                "password: Correct Horse Battery Staple",
                "password: [redacted:credential-parameter]",
            ),
            // Words that merely start like a credential's name are a passphrase's, no label.
            (
                "password: Passion Fruit Smoothie",
                "password: [redacted:credential-parameter]",
            ),
            (
                "secret: Secretive Otter Jumps",
                "secret: [redacted:credential-parameter]",
            ),
            (
                "password = \"\"\"Tr0ub4dor&3x\"\"\"",
                "password = \"\"\"[redacted:credential-parameter]\"\"\"",
            ),
            (
                "f(password=\"q8Z2mX4vL9pR\", x)",
                "f(password=\"[redacted:credential-parameter]\", x)",
            ),
            (
                "GET /login?password=Summer2024x HTTP/1.1",
                "GET /login?password=[redacted:credential-parameter] HTTP/1.1",
            ),
        ]);
    }

    /// A query key without its `=` has no value (the fifth user review's 2: httparse's
    /// `GET /channel?passwd HTTP/1.1`, a `curl -v` transcript), and an identifier of camel
    /// words with an acronym before `??` or `&&` is code (openai's src/azure.ts). What was
    /// taken by such a false match spread over the whole file.
    #[test]
    fn bare_query_keys_and_camel_acronyms_are_no_values() {
        assert_unchanged(&[
            "b\"GET /channel?passwd HTTP/1.1\\r\\nHost: x\\r\\n\"\nassert!(line.ends_with(\"HTTP/1.1\"));",
            "> GET /login?password HTTP/1.1\n< HTTP/1.1 200 OK",
            "GET /x?a=1&token HTTP/2.0",
            "apiKey: azureADTokenProvider ?? apiKey,\nthrow new Error('azureADTokenProvider and apiKey are exclusive');",
            "apiKey: azureADTokenProvider && apiKey,",
            "apiKey: parseHTTPHeaderValue ?? fallback,",
        ]);
        assert!(is_camel_word(b"azureADTokenProvider"));
        assert!(is_camel_word(b"parseHTTPHeader"));
        assert!(is_camel_word(b"getID"));
        for random in ["qZxRtYpLmNvBwKeJ", "aBCdEfGhIjKlMnOp", "xYZwvUTsrQPo"] {
            assert!(!is_camel_word(random.as_bytes()), "{random}");
        }
    }

    /// One ordinary cookie (a time zone, an experiment's variant) costs no `Cookie` header (the
    /// attack review 5's 10), while a session cookie beside them is still found.
    #[test]
    fn ordinary_cookies_keep_their_header() {
        assert_unchanged(&[
            "Cookie: locale=de-DE; timezone=America/New_York",
            "Cookie: experiment=checkout_v2_variantB; theme=dark",
        ]);
        assert_scrubs(&[(
            "Cookie: experiment=checkout_v2_variantB; sid=Zx9Qw8Er7Ty6Ui5O",
            "Cookie: [redacted:credential-header]",
        )]);
    }

    /// What spreads to the text's other spellings looks like a secret on its own.
    #[test]
    fn only_values_that_look_like_secrets_alone_spread() {
        for value in ["Summer2024", "Passw0rd!", "q8Z2mX4vL9pR", "Zx9;Qw3Er7Ty1"] {
            assert!(looks_like_secret_alone(value), "{value}");
        }
        for value in [
            "HTTP/1.1",
            "HTTP/2.0",
            "azureADTokenProvider",
            "/etc/app/secret",
            "horse battery staple",
        ] {
            assert!(!looks_like_secret_alone(value), "{value}");
        }
    }
}
