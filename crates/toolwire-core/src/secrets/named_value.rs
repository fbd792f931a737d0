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
    let unquoted = unquoted_end(text, read_end, limit);
    let widened = quoted_end(text, start, limit)
        .or_else(|| config_line_end(text, start, unquoted, limit))
        .unwrap_or(unquoted);
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

/// The longest key of a configuration line, and the most blanks around `export`, read back.
const NAME_LIMIT: usize = 128;
const BLANKS_LIMIT: usize = 16;

/// The end of the value of a configuration line whose key starts its line (after indentation,
/// `export` or a YAML list's `- `): `key: value` (YAML), `key = value` (INI, TOML,
/// properties), `key=value` (an environment file, shell, properties). A value after blanks or
/// `: ` runs to the line's end (a ` #` comment and trailing blanks excepted); after a glued `=`
/// (`NAME=value`, as a shell reads it) to the first blank. It never runs over a character
/// outside printable ASCII, a `\` or a percent escape (`\n`, `%0A` in JSON or URL text: the
/// line's end as its reader sees it). Within `limit`; reads back at most
/// [`NAME_LIMIT`] bytes and a few blanks.
///
/// The value stays `narrow` (what the unquoted value reads) when the rest of the line is code
/// or fields ([`is_code_or_fields`]: `getpass.getpass()`, `cfg.password,`, `x = a + b`,
/// `Optional[str] = None`) or when `narrow` is a name before `=` or `:` (a chain of names,
/// `_authToken=_authToken`, or a header in the value, `token: X-Api-Key: ...`).
fn config_line_end(text: &str, start: usize, narrow: usize, limit: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let blank = |b: u8| b == b' ' || b == b'\t';
    let separator_end = back_over(bytes, start, BLANKS_LIMIT, blank);
    let separator = separator_end.checked_sub(1)?;
    let spaced_after = separator_end < start;
    let glued = match bytes[separator] {
        b'=' => !spaced_after && separator.checked_sub(1).is_some_and(|at| !blank(bytes[at])),
        b':' if spaced_after => false,
        _ => return None,
    };
    let key_end = back_over(bytes, separator, BLANKS_LIMIT, blank);
    let key_start = back_over(bytes, key_end, NAME_LIMIT, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
    });
    let whole_key = key_start == 0 || key_end - key_start < NAME_LIMIT;
    let key_head = bytes.get(key_start).filter(|_| key_start < key_end);
    if !whole_key || !key_head.is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_') {
        return None;
    }
    if !starts_its_line(bytes, key_start) {
        return None;
    }
    let line = &text[start..limit];
    let mut end = line
        .bytes()
        .enumerate()
        .position(|(at, b)| {
            !(b.is_ascii_graphic() || b == b' ' || b == b'\t')
                || b == b'\\'
                || b == b'%' && is_percent_escape(&line.as_bytes()[at..])
        })
        .unwrap_or(line.len());
    if glued {
        end = line[..end].find([' ', '\t']).unwrap_or(end);
    } else if let Some(comment) = COMMENT_OPENINGS
        .iter()
        .filter_map(|opening| line[..end].find(opening))
        .min()
    {
        end = comment;
    }
    let end = start + line[..end].trim_end_matches([' ', '\t']).len();
    if end <= narrow {
        return Some(narrow);
    }
    let rest = &bytes[narrow..end];
    let value = &text[start..narrow];
    if is_code_keyword_before_call(value, rest) || is_call_over_lines(value, rest) {
        return Some(narrow);
    }
    let key_chain = matches!(rest[0], b'=' | b':')
        && bytes[start..narrow]
            .iter()
            .all(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'-' | b'.'));
    Some(if key_chain || is_code_or_fields(rest) {
        narrow
    } else {
        end
    })
}

/// What opens a comment after a configuration line's value: ` #` (YAML, TOML, shell, Python)
/// and ` //` (JavaScript, TypeScript, Rust, Go: `id_token: z.string().optional(), // Optional
/// for OAuth 2.1`, the fifth user review's 1, from the MCP SDK's shared/auth.js).
const COMMENT_OPENINGS: &[&str] = &[" #", "\t#", " //", "\t//"];

/// The words of code that stand before an expression (`token = await this.tokenProvider();`
/// in the openai SDK's bedrock.ts, `password = new Prompt(...)`): after them comes code, not a
/// value.
const CODE_KEYWORDS: &[&str] = &["await", "new", "yield", "typeof", "not", "lambda"];

/// Whether `value` is a keyword of code ([`CODE_KEYWORDS`]) and `rest`, the line after it,
/// continues with a blank and an expression (the fifth user review's 1).
fn is_code_keyword_before_call(value: &str, rest: &[u8]) -> bool {
    CODE_KEYWORDS.contains(&value)
        && matches!(rest.first(), Some(b' ' | b'\t'))
        && rest[1..]
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t'))
            .is_some_and(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b'$' | b'('))
}

/// Whether `value` is a name of code (identifiers joined by `.`, one of them words:
/// `getpass.getpass`) and `rest` opens its call's `(` without closing it on the line: a call
/// whose arguments span lines (CPython's urllib/request.py: `passwd = getpass.getpass("Enter
/// password for %s in %s at %s: " %`, the fifth user review's 1). A password's head before a
/// `(` has no word shape (`Tr0ub(4dor`).
fn is_call_over_lines(value: &str, rest: &[u8]) -> bool {
    let name = value.split('.').all(|part| {
        part.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && identifier_len(part.as_bytes()) == part.len()
    }) && value.split('.').any(super::code_value::is_word_identifier);
    name && rest.first() == Some(&b'(') && closing_bracket(rest).is_none()
}

/// Whether the bytes before `key_start` on its line are indentation, `export` or a YAML list's
/// `- ` only (a few blanks each).
fn starts_its_line(bytes: &[u8], key_start: usize) -> bool {
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut at = back_over(bytes, key_start, BLANKS_LIMIT, blank);
    if at < key_start && bytes[..at].ends_with(b"export") {
        at = back_over(bytes, at - "export".len(), BLANKS_LIMIT, blank);
    } else if at < key_start && bytes[..at].ends_with(b"-") {
        at = back_over(bytes, at - 1, BLANKS_LIMIT, blank);
    }
    at == 0 || matches!(bytes[at - 1], b'\n' | b'\r')
}

/// Whether `rest`, the part of a configuration line after an unquoted value's token
/// characters, continues code or separates fields rather than the value: nothing but `,` and
/// `;` (a statement's or an object literal's end), calls, indexes and fields (`()`,
/// `["k"]`, `.x`, `?.`, `!`) to the end or before a blank, an operator after a blank (`x + y`,
/// `= None`), `, ` or `; ` (an argument list), or `&name=`, `;name=`, `,name=` (a form body, a
/// cookie, fields). Anything else
/// (`,rT6yU9iO1p`, `;Kq2x`, `(ub4)dor3x`, ` horse battery staple`) is the value's.
fn is_code_or_fields(rest: &[u8]) -> bool {
    let mut tail = rest.len();
    while tail > 0 && b",;&)]}\"'`".contains(&rest[tail - 1]) {
        tail -= 1;
    }
    let mut at = 0;
    loop {
        if at >= tail {
            return true;
        }
        match rest.get(at) {
            None => return true,
            Some(b'(' | b'[' | b'<') => match closing_bracket(&rest[at..]) {
                Some(close) => at += close + 1,
                None => return false,
            },
            Some(b'.') if at > 0 => at += 1 + identifier_len(&rest[at + 1..]).max(1),
            Some(b'?' | b'!') if at > 0 => at += 1,
            Some(b' ' | b'\t') => {
                let after = rest[at..].iter().find(|b| !matches!(b, b' ' | b'\t'));
                return at > 0
                    || after.is_some_and(|b| b"=+-*/%|&?<>!:.".contains(b) || *b == b'{');
            }
            Some(b',' | b';' | b'&') if at == 0 => {
                let name = identifier_len(&rest[1..]);
                let blank = rest[0] != b'&' && matches!(rest.get(1), Some(b' ' | b'\t'));
                return blank || name > 0 && rest.get(1 + name) == Some(&b'=');
            }
            _ => return false,
        }
    }
}

/// The offset of the bracket that closes the one `group` opens (brackets of any kind counted),
/// if it closes.
fn closing_bracket(group: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    for (at, b) in group.iter().enumerate() {
        match b {
            b'(' | b'[' | b'<' | b'{' => depth += 1,
            b')' | b']' | b'>' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

/// The length of the identifier (letters, digits, `_`, `$`) `bytes` starts with.
fn identifier_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'))
        .count()
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
                "Tr0ub4dor&3xK9!",
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
        let scanner = crate::secrets::SecretScanner::new(&[]).unwrap();
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
