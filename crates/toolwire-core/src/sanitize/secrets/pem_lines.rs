//! PEM blocks quoted line by line: every line of the block carries the text that comes before
//! its BEGIN line on that line, so the body does not follow the BEGIN line directly. Seen in
//! `git diff` output (`-`, `+`), comments (`# `, `// `), mail quoting (`> `), `grep -n` output
//! (`id_rsa:2:`, context lines `id_rsa-3-`) and string literals joined line by line
//! (`k = "-----BEGIN ...-----\n" +` then `  "MIIE...\n" +`).
//!
//! The block is the BEGIN line, then optional header lines (`Proc-Type: ...`) or blank lines,
//! then body lines (one base64 run between the prefix and the BEGIN line's own tail, such as
//! `\n" +`), then the END line; or, when no END line comes, the body lines as far as they go. Each
//! body line holds a letter or digit. Each line is looked at once (see [`MAX_HEADER_LINES`]),
//! and a prefix costs at most [`MAX_PREFIX`] bytes per line: linear.

/// The longest prefix (bytes before `-----BEGIN` on its line) a block is looked for with.
const MAX_PREFIX: usize = 256;

/// The most header or blank lines between a BEGIN line and its body (RFC 1421 has two headers
/// and a blank line; OpenPGP armor a few). Every walk that finds no body thus stops within a few
/// lines, and one that finds a body covers every line it walked: linear in the text.
const MAX_HEADER_LINES: usize = 8;

/// The opening quotes of a string literal whose lines are joined (`"`, `'`, `` ` ``).
const QUOTES: &[u8] = b"\"'`";

/// Whether `byte` is a base64 character (standard alphabet and padding).
fn is_base64(byte: &u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'=')
}

/// `bytes` without trailing spaces and tabs.
fn trim_blanks_end(bytes: &[u8]) -> &[u8] {
    let kept = bytes.len()
        - bytes
            .iter()
            .rev()
            .take_while(|byte| matches!(byte, b' ' | b'\t'))
            .count();
    &bytes[..kept]
}

/// The end of the line that holds `at`: its first CR or LF at or after `at`, or the end.
fn line_end(bytes: &[u8], at: usize) -> usize {
    bytes[at..]
        .iter()
        .position(|byte| matches!(byte, b'\r' | b'\n'))
        .map_or(bytes.len(), |offset| at + offset)
}

/// The start of the line after the line break at `at` (CR LF, LF or CR); `None` at the end.
fn next_line(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'\r' if bytes.get(at + 1) == Some(&b'\n') => Some(at + 2),
        _ => Some(at + 1),
    }
}

/// How many bytes of `row` the BEGIN line's `prefix` covers, when `row` starts with it. A run of
/// digits matches any run of digits (`grep -n` line numbers), `:` and `-` match each other
/// (`grep`'s separators of matching and context lines). A prefix that opens a string literal
/// (its last byte a quote) is also repeated as blanks, an optional `+` and the same quote.
fn prefix_len(prefix: &[u8], row: &[u8]) -> Option<usize> {
    literal_prefix_len(prefix, row).or_else(|| string_prefix_len(prefix, row))
}

/// [`prefix_len`]'s byte-for-byte reading (digit runs and separators aside).
fn literal_prefix_len(prefix: &[u8], row: &[u8]) -> Option<usize> {
    let digits = |bytes: &[u8], from: usize| {
        bytes[from..]
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count()
    };
    let (mut p, mut r) = (0, 0);
    while p < prefix.len() {
        if prefix[p].is_ascii_digit() {
            let run = digits(row, r);
            if run == 0 {
                return None;
            }
            p += digits(prefix, p);
            r += run;
            continue;
        }
        let byte = *row.get(r)?;
        let separators = matches!(prefix[p], b':' | b'-') && matches!(byte, b':' | b'-');
        if byte != prefix[p] && !separators {
            return None;
        }
        p += 1;
        r += 1;
    }
    Some(r)
}

/// [`prefix_len`]'s reading of a string literal continued on the next line: blanks, an optional
/// `+` and blanks, then the quote the prefix ends with.
fn string_prefix_len(prefix: &[u8], row: &[u8]) -> Option<usize> {
    let quote = *prefix.last().filter(|quote| QUOTES.contains(quote))?;
    let blanks = |from: usize| {
        from + row[from..]
            .iter()
            .take_while(|byte| matches!(byte, b' ' | b'\t'))
            .count()
    };
    let mut at = blanks(0);
    if row.get(at) == Some(&b'+') {
        at = blanks(at + 1);
    }
    (row.get(at) == Some(&quote)).then_some(at + 1)
}

/// Whether `rest` (a line after its prefix) is an RFC 1421 / OpenPGP header line.
fn is_header(rest: &[u8]) -> bool {
    let name = rest
        .iter()
        .take_while(|byte| byte.is_ascii_alphanumeric() || **byte == b'-')
        .count();
    name > 0 && rest[0].is_ascii_alphabetic() && rest.get(name) == Some(&b':')
}

/// The end of a private-key block whose BEGIN line (its `-----BEGIN` at `begin`) has a prefix
/// repeated on the block's other lines: after the END line's closing dashes, or, without an END
/// line, after the last body line's base64. `None` when the BEGIN line has no prefix (within
/// [`MAX_PREFIX`] bytes of a line start) or no body line holding key material follows.
pub(super) fn prefixed_block_end(text: &str, begin: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let window = begin.saturating_sub(MAX_PREFIX);
    let line_start = match bytes[window..begin]
        .iter()
        .rposition(|byte| matches!(byte, b'\r' | b'\n'))
    {
        Some(offset) => window + offset + 1,
        None if window == 0 => 0,
        None => return None,
    };
    let prefix = &bytes[line_start..begin];
    if prefix.is_empty() {
        return None;
    }
    const DASHES: &[u8] = b"-----";
    let closing = |from: usize, to: usize| {
        bytes[from..to]
            .windows(DASHES.len())
            .position(|window| window == DASHES)
            .map(|offset| from + offset + DASHES.len())
    };
    let begin_end = line_end(bytes, begin);
    let label_end = closing(begin + DASHES.len(), begin_end)?;
    let suffix = trim_blanks_end(&bytes[label_end..begin_end]);
    let (mut at, mut body_end, mut headers) = (begin_end, None, 0);
    while let Some(row_start) = next_line(bytes, at) {
        at = line_end(bytes, row_start);
        let row = &bytes[row_start..at];
        let Some(skip) = prefix_len(prefix, row) else {
            break;
        };
        let rest = &row[skip..];
        if rest.starts_with(b"-----END") {
            let end_start = row_start + skip;
            return body_end.and(closing(end_start + DASHES.len(), at));
        }
        let run = rest.iter().take_while(|byte| is_base64(byte)).count();
        let tail = trim_blanks_end(&rest[run..]);
        if tail == suffix && rest[..run].iter().any(u8::is_ascii_alphanumeric) {
            body_end = Some(row_start + skip + run);
        } else if body_end.is_some()
            || headers == MAX_HEADER_LINES
            || !(is_header(rest) || trim_blanks_end(rest) == suffix)
        {
            break;
        } else {
            headers += 1;
        }
    }
    body_end
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = "MIIEowIBAAKCAQEAx8Qm1wLzj5b9Y3k2PqV7nRt0a4XyZc1dEf6gHi8JkLmNoPq";
    const TAIL: &str = "Rs3TuVwXyZ0aB1cD2eF3==";

    /// The block's lines, each after `prefix` and before `suffix` (the BEGIN line after
    /// `first` instead of `prefix` when given).
    fn block(first: &str, prefix: &str, suffix: &str) -> String {
        [
            format!("{first}-----BEGIN RSA PRIVATE KEY-----{suffix}"),
            format!("{prefix}{BODY}{suffix}"),
            format!("{prefix}{TAIL}{suffix}"),
            format!("{prefix}-----END RSA PRIVATE KEY-----{suffix}"),
        ]
        .join("\n")
    }

    #[test]
    fn a_block_with_a_prefix_on_every_line_ends_at_its_end_line() {
        let cases: Vec<(&str, String)> = vec![
            ("git diff, removed", block("-", "-", "")),
            ("git diff, added", block("+", "+", "")),
            ("shell comment", block("# ", "# ", "")),
            ("C++ comment", block("// ", "// ", "")),
            ("mail quote", block("> > ", "> > ", "")),
            ("CRLF lines", block("# ", "# ", "\r")),
            (
                "grep -n numbers every line",
                [
                    "id_rsa:1:-----BEGIN RSA PRIVATE KEY-----".to_owned(),
                    format!("id_rsa:2:{BODY}"),
                    format!("id_rsa-3-{TAIL}"),
                    "id_rsa-10------END RSA PRIVATE KEY-----".to_owned(),
                ]
                .join("\n"),
            ),
            ("JS concatenation", block("const k = \"", "  + \"", "\\n\"")),
            ("JS trailing +", block("k = '", "    '", "\\n' +")),
            (
                "Python implicit join",
                block("KEY = (\"", "    \"", "\\n\""),
            ),
        ];
        for (name, text) in cases {
            let text = format!("{text}\nafter");
            let begin = text.find("-----BEGIN").unwrap();
            let end = prefixed_block_end(&text, begin)
                .unwrap_or_else(|| panic!("{name}: no block in {text:?}"));
            let expected = text.rfind("-----").unwrap() + 5;
            assert_eq!(end, expected, "{name}: {text:?}");
        }
    }

    #[test]
    fn without_an_end_line_the_block_ends_after_its_last_body_line() {
        let text = format!("# -----BEGIN PRIVATE KEY-----\n# {BODY}\n# {TAIL}\n# prose here");
        let end = prefixed_block_end(&text, 2).unwrap();
        assert_eq!(
            &text[..end],
            format!("# -----BEGIN PRIVATE KEY-----\n# {BODY}\n# {TAIL}")
        );
        // Encrypted keys: header lines and a blank line before the body.
        let text = format!(
            "> -----BEGIN RSA PRIVATE KEY-----\n> Proc-Type: 4,ENCRYPTED\n> DEK-Info: AES\n>\
             \x20\n> {BODY}\n> -----END RSA PRIVATE KEY-----"
        );
        assert_eq!(prefixed_block_end(&text, 2), Some(text.len()));
    }

    #[test]
    fn no_block_without_a_prefix_or_key_material() {
        let cases: &[&str] = &[
            // No prefix: the BEGIN pattern itself covers it.
            "-----BEGIN PRIVATE KEY-----\n-MIIB\n",
            // The prefix is not repeated.
            "- -----BEGIN PRIVATE KEY-----\n+MIIBVgIBADANBgkq\n",
            // Only a BEGIN and END line.
            "# -----BEGIN PRIVATE KEY-----\n# -----END PRIVATE KEY-----",
            // Prose after the prefix.
            "# -----BEGIN PRIVATE KEY-----\n# is how a key starts\n",
            // Punctuation only.
            "# -----BEGIN PRIVATE KEY-----\n# ====\n# MIIBVgIBADANBgkq\n",
            // Too many header lines before the body.
            "# -----BEGIN PRIVATE KEY-----\n# A: 1\n# A: 1\n# A: 1\n# A: 1\n# A: 1\n\
             # A: 1\n# A: 1\n# A: 1\n# A: 1\n# MIIBVgIBADANBgkq\n",
        ];
        for text in cases {
            let begin = text.find("-----BEGIN").unwrap();
            assert_eq!(prefixed_block_end(text, begin), None, "{text:?}");
        }
        // A prefix longer than MAX_PREFIX is not looked for.
        let long = format!(
            "{}-----BEGIN PRIVATE KEY-----\n",
            "#".repeat(MAX_PREFIX + 1)
        );
        let text = format!("{long}{}{BODY}\n", "#".repeat(MAX_PREFIX + 1));
        assert_eq!(prefixed_block_end(&text, MAX_PREFIX + 1), None);
    }

    #[test]
    fn the_scanner_redacts_every_line_of_a_prefixed_block() {
        let scanner = super::super::SecretScanner::new(&[]).unwrap();
        let cases: Vec<(&str, String)> = vec![
            (
                "git diff",
                format!("@@ -1,4 +0,0 @@\n{}\n", block("-", "-", "")),
            ),
            ("comment", block("# ", "# ", "")),
            ("quote", block("> ", "> ", "")),
            (
                "grep -n",
                format!(
                    "id_rsa:1:-----BEGIN RSA PRIVATE KEY-----\nid_rsa:2:{BODY}\nid_rsa:3:{TAIL}"
                ),
            ),
            ("JS concatenation", block("const k = \"", "  \"", "\\n\" +")),
        ];
        for (name, text) in cases {
            let mut counts = std::collections::BTreeMap::new();
            let scrubbed = scanner.scrub(&text, &mut counts);
            assert!(
                !scrubbed.contains(&BODY[..16]) && !scrubbed.contains(&TAIL[..16]),
                "{name}: {scrubbed}"
            );
            assert_eq!(counts.get("private-key"), Some(&1), "{name}: {scrubbed}");
        }
    }
}
