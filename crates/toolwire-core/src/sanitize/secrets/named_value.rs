//! Where the value of a credential found by its name ends.
//!
//! The search reads a named credential's value as token characters (`parameter_char`), which is
//! where a value in a URL, a query string or a form body ends. A password may hold any symbol,
//! though, and cutting it at the first `&`, `;`, `,` or `?` leaks the rest (and a head shorter
//! than a credential lets all of it through). So the value found is widened by its context:
//!
//! - **quoted** (`"password": "Tr0ub4dor&3x!"`, `DB_PASSWORD='a;b,c'`, also JSON-escaped
//!   `\"`): everything up to the closing quote on the same line;
//! - **an environment assignment** (`DB_PASSWORD=aB3;dE6?x` at the start of a line, after an
//!   optional `export`, the name in capitals): everything up to a blank or the line's end;
//! - **otherwise**: on over the symbols a password holds that separate no fields (`?`, `#`,
//!   `|`, `%` that escapes nothing, ...), never over `&`, `;` and `,` (`?token=t&x=1`,
//!   `password=p, timeout=3`), `=` and `:` (the next name's: `a=b=c`, `x:y`, chains of names),
//!   a percent escape (`%0A`), brackets or quotes (`getPass(1)`, `proc_macro2::Group` are code).
//!
//! Every widening is bounded by [`VALUE_LIMIT`] bytes, so the search stays linear.

/// The most bytes a named value is read, from its start.
pub(super) const VALUE_LIMIT: usize = 256;

/// The end of the named credential value that starts at `start` and that the search read to
/// `read_end` (its token characters). At least `read_end`; exactly that when the widened value
/// would hold a credential of another kind ([`holds_own_kind`]).
pub(super) fn value_end(text: &str, start: usize, read_end: usize) -> usize {
    let limit = floor_char_boundary(text, (start + VALUE_LIMIT).min(text.len()));
    let widened = quoted_end(text, start, limit)
        .or_else(|| env_assignment_end(text, start, limit))
        .unwrap_or_else(|| unquoted_end(text, read_end, limit));
    if holds_own_kind(&text[start..widened.max(read_end)]) {
        read_end
    } else {
        widened.max(read_end)
    }
}

/// Whether a widened `value` holds a credential that kinds of their own find and name: a URL
/// (`https://u:p@host`: `url-password`) or a scheme word and its token (`token t`, `Bearer t`,
/// `Basic b64`).
fn holds_own_kind(value: &str) -> bool {
    let scheme = value.split_once([' ', '\t']).is_some_and(|(word, _)| {
        ["bearer", "token", "basic"]
            .iter()
            .any(|scheme| word.eq_ignore_ascii_case(scheme))
    });
    scheme || value.contains("://")
}

/// The end of a value opened by a quote right before `start` (`"`, `'`, `` ` ``, or `\"` in
/// JSON text): the closing quote's position, if it is on the same line within `limit`.
fn quoted_end(text: &str, start: usize, limit: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let quote = *bytes.get(start.checked_sub(1)?)?;
    if !matches!(quote, b'"' | b'\'' | b'`') {
        return None;
    }
    let escaped_quote = start >= 2 && bytes[start - 2] == b'\\';
    let mut at = start;
    while at < limit {
        match bytes[at] {
            b'\n' | b'\r' => return None,
            b'\\' if escaped_quote && bytes.get(at + 1) == Some(&quote) => return Some(at),
            b'\\' if !escaped_quote && quote == b'"' => at += 2,
            b if b == quote && !escaped_quote => return Some(at),
            _ => at += 1,
        }
    }
    None
}

/// The longest environment variable name, and the most blanks around `export`, read back.
const NAME_LIMIT: usize = 128;
const BLANKS_LIMIT: usize = 16;

/// The end of the value of an environment assignment `NAME=value` that starts its line
/// (`export NAME=value` too), `NAME` in capitals, digits and `_`: the next blank or the line's
/// end, within `limit`. Reads back at most [`NAME_LIMIT`] bytes and a few blanks.
fn env_assignment_end(text: &str, start: usize, limit: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let equals = start.checked_sub(1).filter(|&at| bytes[at] == b'=')?;
    let name_start = back_over(bytes, equals, NAME_LIMIT, |b| {
        b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'
    });
    let whole_name = name_start == 0 || equals - name_start < NAME_LIMIT;
    if name_start == equals || !whole_name {
        return None;
    }
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut line_start = back_over(bytes, name_start, BLANKS_LIMIT, blank);
    if line_start < name_start && bytes[..line_start].ends_with(b"export") {
        line_start = back_over(bytes, line_start - "export".len(), BLANKS_LIMIT, blank);
    }
    let starts_line = line_start == 0 || matches!(bytes[line_start - 1], b'\n' | b'\r');
    if !starts_line {
        return None;
    }
    let blank = text[start..limit].find(|c: char| c.is_ascii_whitespace());
    Some(blank.map_or(limit, |at| start + at))
}

/// Where a run of bytes `class` takes, ending at `end`, starts: at most `most` bytes back.
fn back_over(bytes: &[u8], end: usize, most: usize, class: impl Fn(u8) -> bool) -> usize {
    let floor = end.saturating_sub(most);
    let mut at = end;
    while at > floor && class(bytes[at - 1]) {
        at -= 1;
    }
    at
}

/// The end of an unquoted value read to `read_end`: on over the symbols a password holds that
/// separate no fields (not `&`, `;` or `,`, which do in query strings, cookies and argument
/// lists), until a percent escape (`%0A`, `%26`) or any other character, within `limit`;
/// trailing `.` and `:` (prose) are not part of it.
fn unquoted_end(text: &str, read_end: usize, limit: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = read_end;
    while at < limit {
        let b = bytes[at];
        let symbol =
            b"!#$*+-./?@^_|~".contains(&b) || b == b'%' && !is_percent_escape(&bytes[at..limit]);
        if !(b.is_ascii_alphanumeric() || symbol) {
            break;
        }
        at += 1;
    }
    while at > read_end && matches!(bytes[at - 1], b'.' | b':') {
        at -= 1;
    }
    at
}

/// Whether `rest` starts with a percent escape (`%0A`, `%26`): the token characters the search
/// read hold those a value may; any other ends it (an escaped line break or separator).
fn is_percent_escape(rest: &[u8]) -> bool {
    rest.len() >= 3 && rest[1].is_ascii_hexdigit() && rest[2].is_ascii_hexdigit()
}

/// The greatest char boundary of `text` at or before `at`.
fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` with the value marked `«...»`; the value found starts at the first `«`-free
    /// position after `name` and a gap of the test's choosing.
    fn widened(text: &str, start: usize, read_end: usize) -> &str {
        &text[start..value_end(text, start, read_end)]
    }

    #[test]
    fn values_widen_by_their_context() {
        // (text, the value's start marker, the token characters the search read, the value)
        let cases = [
            (
                r#"{"password":"aB3;dE6fG9hJ2k"}"#,
                "aB3",
                "aB3",
                "aB3;dE6fG9hJ2k",
            ),
            (
                r#"password: "Kj4 Hg7Fd1Sa9""#,
                "Kj4",
                "Kj4",
                "Kj4 Hg7Fd1Sa9",
            ),
            (
                r#"{"p":"x","password":"a\"b;c9","u":1}"#,
                "a\\",
                "a",
                r#"a\"b;c9"#,
            ),
            (
                r#"{\"password\":\"Mn5(bV8)cX2zL\"}"#,
                "Mn5",
                "Mn5",
                "Mn5(bV8)cX2zL",
            ),
            ("DB_PASSWORD='Pq7%Rs4 Tu1'", "Pq7", "Pq7", "Pq7%Rs4 Tu1"),
            (
                "DB_PASSWORD=Mn5(bV8)cX2zL # db",
                "Mn5",
                "Mn5",
                "Mn5(bV8)cX2zL",
            ),
            ("x\nexport DB_PASSWORD=aB3;dE6 y", "aB3", "aB3", "aB3;dE6"),
            ("db_password=Zx8?cV5bN2mL4k", "Zx8", "Zx8", "Zx8?cV5bN2mL4k"),
            (
                "db_password=Tr0ub4dor&3xK9! next",
                "Tr0",
                "Tr0ub4dor",
                "Tr0ub4dor",
            ),
            (
                "DB_PASSWORD=Tr0ub4dor&3xK9! next",
                "Tr0",
                "Tr0ub4dor",
                "Tr0ub4dor&3xK9!",
            ),
            (
                "?token=Ab3dE6fG9h&user=x",
                "Ab3",
                "Ab3dE6fG9h",
                "Ab3dE6fG9h",
            ),
            (
                "f(password=pw123456, timeout=3)",
                "pw1",
                "pw123456",
                "pw123456",
            ),
            ("password=pw123456;Path=/", "pw1", "pw123456", "pw123456"),
            (
                "the password is Xy12345678.",
                "Xy1",
                "Xy12345678",
                "Xy12345678",
            ),
            ("password=getPass(1234)", "get", "getPass", "getPass"),
            ("GITHUB_AUTH='token q8Z2mX4vL9'", "tok", "token", "token"),
            (
                "token=postgres://app:Pw123@db",
                "pos",
                "postgres",
                "postgres",
            ),
            ("\"token\": \"https://x:y@h\"", "htt", "https", "https"),
            (
                "?token=Ab3dE6fG9h%0Anext",
                "Ab3",
                "Ab3dE6fG9h",
                "Ab3dE6fG9h",
            ),
            ("db_password=Pq7%Rs4Tu1Vw8", "Pq7", "Pq7", "Pq7%Rs4Tu1Vw8"),
            // An unclosed quote reads as unquoted.
            ("password=\"Ab3;dE6 rest", "Ab3", "Ab3", "Ab3"),
            // A lower-case name is no environment assignment: a blank is not read over.
            ("db_password=Kj4 Hg7", "Kj4", "Kj4", "Kj4"),
        ];
        for (text, marker, read, value) in cases {
            let start = text.find(marker).unwrap();
            assert_eq!(widened(text, start, start + read.len()), value, "{text}");
        }
    }

    /// Every widening reads a bounded stretch around its value: a megabyte of names, of
    /// `export` or of one line without a break costs a linear scan (it read back to the line's
    /// start from every value, the whole text on one long line).
    #[test]
    fn widening_reads_a_bounded_stretch_whatever_the_text() {
        let scanner = crate::sanitize::secrets::SecretScanner::new(&[]).unwrap();
        // (unit, whether it holds credentials: the quoted `aB3 token=` holds a digit)
        for (unit, credentials) in [
            ("x DB_PASSWORD=aB3;dE6 ", false),
            ("PASSWORD=", false),
            ("export export ", false),
            ("token=\"aB3 ", true),
            ("password=$X ", false),
            ("token=${T} ", false),
            ("https://u:$P@h ", false),
            ("PASSWORD=$DB_PASS123 ", false),
        ] {
            let text = unit.repeat((1 << 20) / unit.len());
            let mut counts = std::collections::BTreeMap::new();
            let scrubbed = scanner.scrub(&text, &mut counts);
            let found: u64 = counts.values().sum();
            if credentials {
                assert!(found > 0, "{unit:?}: {counts:?}");
            } else {
                // Names, placeholders and heads too short to be credentials.
                assert!(
                    found == 0 && scrubbed == text.as_str(),
                    "{unit:?}: {counts:?}"
                );
            }
        }
    }

    #[test]
    fn widening_is_bounded_and_stays_on_char_boundaries() {
        let long = format!("password=\"{}\"", "é".repeat(400));
        let start = long.find('é').unwrap();
        let end = value_end(&long, start, start + 2);
        assert!(end - start <= VALUE_LIMIT && long.is_char_boundary(end));
        let env = format!("API_TOKEN={}", "a;".repeat(400));
        assert_eq!(value_end(&env, 10, 11) - 10, VALUE_LIMIT);
    }
}
