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

/// The dashes around an armour line's label.
const DASHES: &[u8] = b"-----";

/// The longest part of a BEGIN line's prefix that is looked for as the prefix repeated on the
/// other lines when the whole prefix is not (bounded: at most this many tries per BEGIN line).
const MAX_REPEATED_SUFFIX: usize = 32;

/// The most bytes between two items of a list of lines (`","`, `', '`, a line break and the
/// indentation of pretty-printed JSON).
const MAX_ITEM_GAP: usize = 256;

/// The opening quotes of a string literal whose lines are joined (`"`, `'`, `` ` ``).
const QUOTES: &[u8] = b"\"'`";

/// Whether `byte` is a base64 character (standard alphabet and padding).
pub(super) fn is_base64(byte: &u8) -> bool {
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
pub(super) fn line_end(bytes: &[u8], at: usize) -> usize {
    bytes[at..]
        .iter()
        .position(|byte| matches!(byte, b'\r' | b'\n'))
        .map_or(bytes.len(), |offset| at + offset)
}

/// The start of the line after the line break at `at` (CR LF, LF or CR); `None` at the end.
pub(super) fn next_line(bytes: &[u8], at: usize) -> Option<usize> {
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

/// The longest suffix of `prefix` (the text before `-----BEGIN` on its line) that the line
/// after it repeats (see [`prefix_len`]): the whole prefix, or, when the BEGIN line starts with
/// more (`{"body":"> -----BEGIN` of a quoted reply in a JSON string, `before > -----BEGIN`), the
/// last at most [`MAX_REPEATED_SUFFIX`] bytes of it that every line starts with; empty when none.
fn repeated_prefix<'p>(prefix: &'p [u8], row: &[u8]) -> &'p [u8] {
    if prefix_len(prefix, row).is_some() {
        return prefix;
    }
    let longest = prefix.len().saturating_sub(MAX_REPEATED_SUFFIX).max(1);
    (longest..prefix.len())
        .map(|from| &prefix[from..])
        .find(|suffix| literal_prefix_len(suffix, row).is_some())
        .unwrap_or(&[])
}

/// [`prefix_len`]'s byte-for-byte reading (digit runs and separators aside).
fn literal_prefix_len(prefix: &[u8], row: &[u8]) -> Option<usize> {
    let digits = |bytes: &[u8], from: usize| {
        bytes[from..]
            .iter()
            .take_while(|byte| byte.is_ascii_digit())
            .count()
    };
    let blanks = |bytes: &[u8], from: usize| {
        bytes[from..]
            .iter()
            .take_while(|byte| matches!(byte, b' ' | b'\t'))
            .count()
    };
    let (mut p, mut r) = (0, 0);
    while p < prefix.len() {
        // Blanks before a line number: right-aligned numbers (`cat -n`, `nl`) lose one as they
        // gain a digit (`     9\t` then `    10\t`).
        let before_digit = blanks(prefix, p);
        if before_digit > 0 && prefix.get(p + before_digit).is_some_and(u8::is_ascii_digit) {
            p += before_digit;
            r += blanks(row, r);
            continue;
        }
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
pub(super) fn is_header(rest: &[u8]) -> bool {
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
fn prefixed_block_end(text: &str, begin: usize) -> Option<usize> {
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
    let closing = |from: usize, to: usize| {
        bytes[from..to]
            .windows(DASHES.len())
            .position(|window| window == DASHES)
            .map(|offset| from + offset + DASHES.len())
    };
    let begin_end = line_end(bytes, begin);
    let label_end = closing(begin + DASHES.len(), begin_end)?;
    let suffix = trim_blanks_end(&bytes[label_end..begin_end]);
    let first_row = next_line(bytes, begin_end).map(|row| &bytes[row..line_end(bytes, row)])?;
    let prefix = repeated_prefix(&bytes[line_start..begin], first_row);
    if prefix.is_empty() && suffix.is_empty() {
        // Plain lines: the BEGIN pattern itself covers them.
        return None;
    }
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

/// The longest line number an item may start with (`   12: `, `L12:`, `12\t`).
const MAX_LINE_NUMBER: usize = 24;

/// The length of the line number `item` starts with, as line-numbered file readers print it
/// (`1: `, `12|`, `12\t` or its escape `\\t`, `   12 `, `L12:`, `grep -n`'s `12-`): blanks,
/// an optional `L`, 1 to 9 digits, then a `:`, `|` or `-` with blanks around it, a tab or
/// blanks. 0 when `item` starts with none. A PEM line never starts so: base64 holds no `:`,
/// `|`, `-`, tab or blank.
fn line_number_len(item: &[u8]) -> usize {
    let blanks = |from: usize| {
        from + item[from..]
            .iter()
            .take_while(|byte| matches!(byte, b' ' | b'\t'))
            .count()
    };
    let mut at = blanks(0);
    if item.get(at) == Some(&b'L') {
        at += 1;
    }
    let digits = item[at..]
        .iter()
        .take_while(|byte| byte.is_ascii_digit())
        .count();
    if digits == 0 || digits > 9 {
        return 0;
    }
    at += digits;
    let after_blanks = blanks(at);
    match item.get(after_blanks) {
        Some(b':' | b'|' | b'-') => blanks(after_blanks + 1),
        Some(b'\\') if item.get(after_blanks + 1) == Some(&b't') => blanks(after_blanks + 2),
        _ if after_blanks > at => after_blanks,
        _ => 0,
    }
}

/// Where the item after the one whose closing quote is at `close` starts: after the next item's
/// opening `quote`. The gap between holds a `,` and else only blanks, line breaks, brackets,
/// braces, parentheses, `:` and the keys, numbers and literals of a record (`","`, `", "`,
/// `",\n  "`, `"},{"line":2,"text":"` between the lines of a `[{ line, text }]` list,
/// `","line":1},{"text":"` when the text comes first, `'}, {'n': 2, 'content': '` of a Python
/// list, `"],[2,"` of numbered pairs, `'), (2, '` of Python's `enumerate`): at most
/// [`MAX_ITEM_GAP`] bytes, read once.
fn next_item(bytes: &[u8], close: usize, quote: u8) -> Option<usize> {
    let limit = bytes.len().min(close + 1 + MAX_ITEM_GAP);
    let (mut at, mut comma) = (close + 1, false);
    while at < limit {
        let byte = bytes[at];
        if byte == quote {
            // A record's key (a short name, its closing quote and a `:`), or the next item.
            let name = bytes[at + 1..limit]
                .iter()
                .take(33)
                .take_while(|byte| byte.is_ascii_alphanumeric() || **byte == b'_')
                .count();
            let after = at + 1 + name;
            let colon = bytes.get(after) == Some(&quote)
                && bytes[after + 1..limit]
                    .iter()
                    .find(|byte| !matches!(byte, b' ' | b'\t'))
                    == Some(&b':');
            if !(0 < name && name <= 32 && colon) {
                return comma.then_some(at + 1);
            }
            at = after + 1;
        } else if let Some(letters) = string_prefix(&bytes[at..limit], quote) {
            // Python's bytes and raw strings (`b'...'`, `rb'...'`): `readlines()` of a file
            // opened `'rb'` (attack review 4's 1).
            at += letters;
        } else if let Some(literal) = [&b"true"[..], b"false", b"null", b"True", b"False", b"None"]
            .iter()
            .find(|literal| bytes[at..limit].starts_with(literal))
        {
            at += literal.len();
        } else if matches!(
            byte,
            b' ' | b'\t' | b'\r' | b'\n' | b'{' | b'}' | b'[' | b']' | b'(' | b')' | b':' | b','
        ) || byte.is_ascii_digit()
        {
            comma |= byte == b',';
            at += 1;
        } else {
            return None;
        }
    }
    None
}

/// The length of a Python string prefix (`b`, `u`, `r`, `rb`, `br`, any case) that `rest`
/// starts with right before `quote`.
fn string_prefix(rest: &[u8], quote: u8) -> Option<usize> {
    let letters = rest
        .iter()
        .take(2)
        .take_while(|byte| matches!(byte.to_ascii_lowercase(), b'b' | b'u' | b'r'))
        .count();
    (letters > 0 && rest.get(letters) == Some(&quote)).then_some(letters)
}

/// How a list's items carry the text before their line: a line number that changes from item
/// to item ([`line_number_len`]), or the text before the BEGIN line repeated on every item (a
/// diff's `+`, `-` or ` `; see [`literal_prefix_len`]).
#[derive(Clone, Copy)]
enum ItemPrefix<'p> {
    Number,
    Repeated(&'p [u8]),
}

impl ItemPrefix<'_> {
    /// The length of the prefix `item` starts with; `None` when it does not carry it.
    fn len(self, item: &[u8]) -> Option<usize> {
        match self {
            ItemPrefix::Number => Some(line_number_len(item)),
            ItemPrefix::Repeated(prefix) => literal_prefix_len(prefix, item),
        }
    }
}

/// `item` without the line break it ends with: a list of a file's lines split on LF keeps the
/// CR of each CRLF (`text.split('\n')` of a Windows file), `readlines()` keeps the whole
/// break; as they are (CR, LF) or escaped in JSON or Python text (`\r`, `\\r\\n`).
fn trim_item_break(item: &[u8]) -> &[u8] {
    let mut rest = item;
    loop {
        let cut = match rest {
            [head @ .., b'\r' | b'\n'] => head,
            // NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR (`str.splitlines(keepends=True)`).
            [head @ .., 0xc2, 0x85] | [head @ .., 0xe2, 0x80, 0xa8 | 0xa9] => head,
            [head @ .., b'\\', b'u', b'0', b'0', b'8', b'5']
            | [head @ .., b'\\', b'u', b'2', b'0', b'2', b'8' | b'9']
            | [head @ .., b'\\', b'x', b'8', b'5'] => {
                let backslashes = head.iter().rev().take_while(|&&b| b == b'\\').count();
                if backslashes % 2 == 1 {
                    return rest;
                }
                head
            }
            [head @ .., b'\\', b'r' | b'n'] => {
                let backslashes = head.iter().rev().take_while(|&&b| b == b'\\').count();
                &head[..head.len() - backslashes]
            }
            _ => return rest,
        };
        rest = cut;
    }
}

/// The end of a private-key block whose lines are the items of a list: quoted strings with
/// commas, blanks and line breaks between them (`["-----BEGIN ...-----","MIIE...", ...]`: a
/// tool returning `{ lines }`, JSON text, a Python list), or the text of records or pairs listed
/// so (`[{"line": 1, "text": "-----BEGIN ...-----"}, ...]`, the shape of line-numbered file
/// readers, `[[1, "-----BEGIN ..."], ...]` and Python's `[(1, '-----BEGIN ...'), ...]` of
/// `enumerate`; see [`next_item`]), each item possibly after a line number (`"1: -----BEGIN"`,
/// `"2\tMIIE..."`; see [`line_number_len`]) or a prefix every item repeats (a diff as a list,
/// `"+-----BEGIN"`, `"+MIIE..."`), and possibly ending in its line break (`"MIIE...\r"`; see
/// [`trim_item_break`]). The BEGIN line is an item when a quote (and a prefix) comes right
/// before `-----BEGIN` at `begin` and a quote right after its closing dashes; then header items
/// (`Proc-Type: ...`) or empty items, body items (base64 holding a letter or digit) and the END
/// line's item. Ends after the END line's closing dashes, or, without one, after the last body
/// item's base64; `None` when no body item follows. Each item is read once: linear.
fn listed_block_end(text: &str, begin: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let opening = bytes[begin.saturating_sub(MAX_LINE_NUMBER + 1)..begin]
        .iter()
        .rposition(|byte| QUOTES.contains(byte))
        .map(|offset| begin.saturating_sub(MAX_LINE_NUMBER + 1) + offset)?;
    let quote = bytes[opening];
    let before = &bytes[opening + 1..begin];
    let prefix = if !before.is_empty() && line_number_len(before) == before.len() {
        ItemPrefix::Number
    } else {
        ItemPrefix::Repeated(before)
    };
    // An item ends at its closing quote; a line break inside it ends the search (CR only right
    // before the quote).
    let item_end = |from: usize| {
        bytes[from..]
            .iter()
            .enumerate()
            .position(|(offset, &b)| {
                b == quote
                    || b == b'\n'
                    || b == b'\r' && bytes.get(from + offset + 1) != Some(&quote)
            })
            .map(|offset| from + offset)
            .filter(|&end| bytes[end] == quote)
    };
    let begin_item_end = item_end(begin)?;
    // The item is the BEGIN line alone: its closing dashes end it.
    let label = trim_item_break(&bytes[begin + DASHES.len()..begin_item_end]);
    if !label.ends_with(DASHES) || label[..label.len() - DASHES.len()].contains(&b'-') {
        return None;
    }
    let (mut at, mut body_end, mut headers) = (begin_item_end, None, 0);
    // Past the closing quote: the gap to the next item's opening quote.
    while let Some(start) = next_item(bytes, at, quote) {
        let Some(end) = item_end(start) else { break };
        let line_end = start + trim_item_break(&bytes[start..end]).len();
        let Some(skip) = prefix.len(&bytes[start..line_end]) else {
            break;
        };
        let item = &bytes[start + skip..line_end];
        if item.starts_with(b"-----END") {
            return body_end.and(Some(line_end).filter(|_| item.ends_with(DASHES)));
        }
        if !item.is_empty()
            && item.iter().all(is_base64)
            && item.iter().any(u8::is_ascii_alphanumeric)
        {
            body_end = Some(line_end);
        } else if body_end.is_some()
            || headers == MAX_HEADER_LINES
            || !(item.is_empty() || is_header(item))
        {
            break;
        } else {
            headers += 1;
        }
        at = end;
    }
    body_end
}

/// The end of a private-key block whose lines are not bare lines: each line carrying the text
/// before its BEGIN line ([`prefixed_block_end`]) or the lines as the items of a list
/// ([`listed_block_end`]), or an SSH2 key's block ([`super::ssh2_key`]). `begin` is where its
/// BEGIN line's dashes start.
pub(super) fn block_end(text: &str, begin: usize) -> Option<usize> {
    if text[begin..].starts_with(super::ssh2_key::BEGIN) {
        return super::ssh2_key::block_end(text, begin);
    }
    prefixed_block_end(text, begin).or_else(|| listed_block_end(text, begin))
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

    /// The armour lines of each key type (BEGIN line, headers, body, END line), and a piece of
    /// the body that must not survive.
    fn keys() -> Vec<(&'static str, Vec<String>)> {
        let armour = |label: &str, headers: &[&str], tail: &str| -> Vec<String> {
            let mut lines = vec![format!("-----BEGIN {label}-----")];
            lines.extend(headers.iter().map(|h| h.to_string()));
            lines.extend([BODY.to_string(), TAIL.to_string()]);
            if !tail.is_empty() {
                lines.push(tail.to_string());
            }
            lines.push(format!("-----END {label}-----"));
            lines
        };
        vec![
            ("PKCS#8", armour("PRIVATE KEY", &[], "")),
            ("RSA", armour("RSA PRIVATE KEY", &[], "")),
            ("EC", armour("EC PRIVATE KEY", &[], "")),
            ("OpenSSH", armour("OPENSSH PRIVATE KEY", &[], "")),
            ("encrypted PKCS#8", armour("ENCRYPTED PRIVATE KEY", &[], "")),
            (
                "encrypted RSA",
                armour(
                    "RSA PRIVATE KEY",
                    &[
                        "Proc-Type: 4,ENCRYPTED",
                        "DEK-Info: AES-128-CBC,0A1B2C3D4E5F",
                        "",
                    ],
                    "",
                ),
            ),
            (
                "PGP",
                armour("PGP PRIVATE KEY BLOCK", &["Version: GnuPG v2", ""], "=Zx9Q"),
            ),
        ]
    }

    /// The attack review's 13: the shapes a key's lines are printed in. Each takes the lines.
    /// A shape's name and how it prints a key's lines.
    type Shape = (&'static str, fn(&[String]) -> String);

    /// Each line after its 1-based number, as `number` prints them.
    fn numbered(lines: &[String], number: fn(usize, &str) -> String) -> Vec<String> {
        lines
            .iter()
            .enumerate()
            .map(|(n, line)| number(n + 1, line))
            .collect()
    }

    /// Each line as a record holding its 1-based number, as `record` makes them.
    fn records(
        lines: &[String],
        record: fn(usize, &str) -> serde_json::Value,
    ) -> Vec<serde_json::Value> {
        lines
            .iter()
            .enumerate()
            .map(|(n, line)| record(n + 1, line))
            .collect()
    }

    /// Each line after `prefix`.
    fn prefixed(lines: &[String], prefix: &str) -> Vec<String> {
        lines.iter().map(|line| format!("{prefix}{line}")).collect()
    }

    fn shapes() -> Vec<Shape> {
        fn percent(text: &str) -> String {
            percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC)
                .to_string()
        }
        vec![
            ("LF", |l| l.join("\n")),
            ("CRLF", |l| l.join("\r\n")),
            // The attack review 2's 10: CR alone (classic Mac), an HTML page's line breaks and
            // the Unicode separators.
            ("CR", |l| l.join("\r")),
            ("<br>", |l| format!("<p>{}</p>", l.join("<br>"))),
            ("<br/>", |l| l.join("<br/>")),
            ("<BR /> and LF", |l| l.join("<BR />\n")),
            ("U+2028", |l| l.join("\u{2028}")),
            ("U+2029", |l| l.join("\u{2029}")),
            ("<br> in a JSON string", |l| {
                serde_json::json!({ "html": l.join("<br>") }).to_string()
            }),
            // A tool returning `{ lines }`: its JSON text, compact and pretty.
            ("JSON array", |l| serde_json::to_string(l).unwrap()),
            ("JSON array, pretty", |l| {
                serde_json::to_string_pretty(&serde_json::json!({ "lines": l })).unwrap()
            }),
            ("JSON object with an array", |l| {
                serde_json::json!({"file": "id.pem", "lines": l}).to_string()
            }),
            ("Python list", |l| format!("['{}']", l.join("', '"))),
            // A form body or query (`%0A` line breaks, `%2B` `%2F` `%3D` in the body).
            ("percent-encoded", |l| {
                format!("key={}", percent(&l.join("\n")))
            }),
            ("percent-encoded CRLF", |l| {
                format!("key={}&x=1", percent(&l.join("\r\n")))
            }),
            // An XML attribute.
            ("HTML &#10;", |l| format!("<k v=\"{}\"/>", l.join("&#10;"))),
            ("HTML &#xA;", |l| format!("<k v=\"{}\"/>", l.join("&#xA;"))),
            // Mail replies.
            ("quoted reply", |l| {
                l.iter()
                    .map(|l| format!("> {l}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
            ("quoted twice, CRLF", |l| {
                l.iter()
                    .map(|l| format!("> > {l}"))
                    .collect::<Vec<_>>()
                    .join("\r\n")
            }),
            // `cat -A`: `$` at each line's end, `^M$` for CRLF.
            ("cat -A", |l| {
                l.iter()
                    .map(|l| format!("{l}$"))
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
            ("cat -A CRLF", |l| {
                l.iter()
                    .map(|l| format!("{l}^M$"))
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
            // A YAML block scalar.
            ("YAML block", |l| {
                format!("tls:\n  key: |\n    {}\n  ca: x", l.join("\n    "))
            }),
            // Inside a JSON string, and inside JSON text inside a JSON string.
            ("JSON string", |l| {
                serde_json::json!({ "pem": l.join("\n") }).to_string()
            }),
            ("JSON string twice", |l| {
                serde_json::json!({ "out": serde_json::json!({ "pem": l.join("\n") }).to_string() })
                    .to_string()
            }),
            ("quoted reply in a JSON string", |l| {
                let reply = l
                    .iter()
                    .map(|l| format!("> {l}"))
                    .collect::<Vec<_>>()
                    .join("\n");
                serde_json::json!({ "body": reply }).to_string()
            }),
            ("JSON array in a JSON string", |l| {
                serde_json::json!({ "out": serde_json::to_string(l).unwrap() }).to_string()
            }),
            // The attack review 2's 3: line-numbered file readers. Numbered lines as a list
            // (`grep -n`, `nl`, `cat -n` and editor prefixes in each item).
            ("JSON list of `N: ` lines", |l| {
                serde_json::to_string(&numbered(l, |n, line| format!("{n}: {line}"))).unwrap()
            }),
            ("JSON list of `N\\t` lines", |l| {
                serde_json::to_string(&numbered(l, |n, line| format!("{n}\t{line}"))).unwrap()
            }),
            ("JSON list of `N|` lines, pretty", |l| {
                serde_json::to_string_pretty(&numbered(l, |n, line| format!("{n}|{line}"))).unwrap()
            }),
            ("JSON list of cat -n lines", |l| {
                serde_json::to_string(&numbered(l, |n, line| format!("{n:>6}\t{line}"))).unwrap()
            }),
            ("JSON list of `LN:` lines", |l| {
                serde_json::to_string(&numbered(l, |n, line| format!("L{n}: {line}"))).unwrap()
            }),
            ("Python list of `  N ` lines", |l| {
                format!("{:?}", numbered(l, |n, line| format!("{n:>3} {line}")))
            }),
            // A list of line records: `{ lines: [{ line, text }] }` of read_file tools, and the
            // other names such records use.
            ("line records", |l| {
                let records = records(l, |n, line| serde_json::json!({ "line": n, "text": line }));
                serde_json::json!({ "path": "id_rsa", "lines": records }).to_string()
            }),
            ("line records, text first", |l| {
                let records = records(l, |n, line| {
                    let mut record = serde_json::Map::new();
                    record.insert("text".into(), line.into());
                    record.insert("line".into(), n.into());
                    serde_json::Value::Object(record)
                });
                serde_json::to_string(&records).unwrap()
            }),
            ("line records, pretty", |l| {
                let records = records(
                    l,
                    |n, line| serde_json::json!({ "lineNumber": n, "content": line, "truncated": false }),
                );
                serde_json::to_string_pretty(&serde_json::json!({ "lines": records })).unwrap()
            }),
            ("line records as Python dicts", |l| {
                let records: Vec<String> = l
                    .iter()
                    .enumerate()
                    .map(|(n, line)| format!("{{'n': {}, 'value': '{line}'}}", n + 1))
                    .collect();
                format!("[{}]", records.join(", "))
            }),
            ("line records in a JSON string", |l| {
                let records = records(l, |n, line| serde_json::json!({ "line": n, "text": line }));
                serde_json::json!({ "out": serde_json::to_string(&records).unwrap() }).to_string()
            }),
            // The attack review 3's 6: a Windows file's lines split on LF (each item keeps its
            // CR), `readlines()` (each keeps its break), a diff as a list of lines, numbered
            // pairs (`enumerate`) in JSON and Python, and the other line breaks of
            // `str.splitlines` (NEL, VT, FF).
            ("CRLF file split on LF, JSON", |l| {
                let text = format!("{}\r\n", l.join("\r\n"));
                serde_json::json!({ "path": "id_rsa", "lines": text.split('\n').collect::<Vec<_>>() })
                    .to_string()
            }),
            ("CRLF file split on LF, pretty", |l| {
                let text = format!("{}\r\n", l.join("\r\n"));
                serde_json::to_string_pretty(&text.split('\n').collect::<Vec<_>>()).unwrap()
            }),
            ("CRLF file split on LF, Python", |l| {
                format!("['{}\\r']", l.join("\\r', '"))
            }),
            ("readlines() in Python", |l| {
                format!("['{}\\n']", l.join("\\n', '"))
            }),
            ("readlines() of CRLF in JSON", |l| {
                serde_json::to_string(&l.iter().map(|l| format!("{l}\r\n")).collect::<Vec<_>>())
                    .unwrap()
            }),
            ("diff as a JSON list, added", |l| {
                serde_json::json!({ "diff": prefixed(l, "+") }).to_string()
            }),
            ("diff as a JSON list, removed", |l| {
                serde_json::to_string(&prefixed(l, "-")).unwrap()
            }),
            ("diff as a JSON list, context", |l| {
                serde_json::to_string_pretty(&prefixed(l, " ")).unwrap()
            }),
            ("diff as a Python list of CRLF lines", |l| {
                let lines: Vec<String> = l.iter().map(|l| format!("+{l}\r")).collect();
                format!("{lines:?}")
            }),
            ("numbered pairs in JSON", |l| {
                let pairs: Vec<(usize, &String)> =
                    l.iter().enumerate().map(|(n, l)| (n + 1, l)).collect();
                serde_json::to_string(&pairs).unwrap()
            }),
            ("numbered pairs, pretty", |l| {
                let pairs: Vec<(usize, &String)> = l.iter().enumerate().collect();
                serde_json::to_string_pretty(&serde_json::json!({ "lines": pairs })).unwrap()
            }),
            ("Python list(enumerate(lines))", |l| {
                let pairs: Vec<String> = l
                    .iter()
                    .enumerate()
                    .map(|(n, l)| format!("({}, '{l}')", n + 1))
                    .collect();
                format!("[{}]", pairs.join(", "))
            }),
            // The attack review 4's 1: `readlines()` of a file opened `'rb'` (bytes items, LF
            // and CRLF), `list(enumerate(...))` of it, items ending in NEL.
            ("Python bytes readlines()", |l| {
                format!("[b'{}\\n']", l.join("\\n', b'"))
            }),
            ("Python bytes readlines() of CRLF", |l| {
                format!("[b'{}\\r\\n']", l.join("\\r\\n', b'"))
            }),
            ("Python enumerate of bytes lines", |l| {
                let pairs: Vec<String> = l
                    .iter()
                    .enumerate()
                    .map(|(n, l)| format!("({n}, b'{l}\\n')"))
                    .collect();
                format!("[{}]", pairs.join(", "))
            }),
            ("JSON list of NEL-ended items", |l| {
                serde_json::to_string(&l.iter().map(|l| format!("{l}\u{85}")).collect::<Vec<_>>())
                    .unwrap()
            }),
            ("JSON list of NEL-ended items, ASCII-escaped", |l| {
                let items: Vec<String> = l.iter().map(|l| format!("\"{l}\\u0085\"")).collect();
                format!("[{}]", items.join(","))
            }),
            ("NEL", |l| l.join("\u{85}")),
            ("VT", |l| l.join("\u{b}")),
            ("FF", |l| l.join("\u{c}")),
            ("NEL in a JSON string", |l| {
                serde_json::json!({ "pem": l.join("\u{85}") }).to_string()
            }),
            // Numbered lines as text: `cat -n` past line 9 (the number loses a blank), `N|`.
            ("cat -n from line 8", |l| {
                l.iter()
                    .enumerate()
                    .map(|(n, line)| format!("{:>6}\t{line}", n + 8))
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
            ("`N|` lines from line 98", |l| {
                l.iter()
                    .enumerate()
                    .map(|(n, line)| format!("{:>3}| {line}", n + 98))
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
        ]
    }

    /// Every key type in every shape: the whole body is replaced, wherever its lines stand.
    #[test]
    fn a_key_is_found_in_every_shape_its_lines_are_printed_in() {
        let scanner = super::super::SecretScanner::new(&[]).unwrap();
        let mut missed = Vec::new();
        for (key, lines) in keys() {
            for (shape, print) in shapes() {
                let text = format!("before {}\nafter", print(&lines));
                let mut counts = std::collections::BTreeMap::new();
                let scrubbed = scanner.scrub(&text, &mut counts);
                let survived = [&BODY[..16], &BODY[40..56], &TAIL[..16]]
                    .iter()
                    .any(|material| scrubbed.contains(*material));
                if survived || !counts.contains_key("private-key") || !scrubbed.ends_with("\nafter")
                {
                    missed.push(format!("{key} as {shape}: {scrubbed}"));
                }
            }
        }
        assert!(
            missed.is_empty(),
            "{} missed:\n{}",
            missed.len(),
            missed.join("\n")
        );
    }

    /// A megabyte of each shape's separators, prefixes and armour lines that never completes a
    /// key (or completes many): the scan finishes with the right count, each line looked at a
    /// bounded number of times.
    #[test]
    fn hostile_shapes_stay_linear() {
        let scanner = super::super::SecretScanner::new(&[]).unwrap();
        let repeated = |unit: &str| unit.repeat((1 << 20) / unit.len() + 1);
        for unit in [
            "=\\r\\n",
            "%0A",
            "&#10;",
            "> ",
            "> \n",
            "$\n",
            "\",\"",
            "\"-----BEGIN PRIVATE KEY-----\",",
            "\"-----BEGIN PRIVATE KEY-----\",\"\",",
            "'-----BEGIN PRIVATE KEY-----', 'A: b', ",
            "> -----BEGIN PRIVATE KEY-----\n",
            "-----BEGIN PRIVATE KEY-----$\n",
            "-----BEGIN PRIVATE KEY-----%0A",
            "-----BEGIN PRIVATE KEY-----&#10;",
            "-----BEGIN PRIVATE KEY-----\\n> ",
            // Line numbers and records (the attack review 2's 3).
            "\"1: -----BEGIN PRIVATE KEY-----\",",
            "\"  12\\t-----BEGIN PRIVATE KEY-----\",\"3: \",",
            "{\"line\":1,\"text\":\"-----BEGIN PRIVATE KEY-----\"},",
            "\"},{\"line\":2,\"text\":\"",
            "{\"line\":1,\"text\":\"-----BEGIN PRIVATE KEY-----\",\"a\":true,\"b\":null,",
        ] {
            let text = repeated(unit);
            assert!(scanner.find(&text).is_empty(), "unit {unit:?}");
        }
        // Many listed and prefixed blocks, each with a body: one secret each.
        for unit in [
            "\"-----BEGIN PRIVATE KEY-----\",\"MIIB\",",
            "> -----BEGIN PRIVATE KEY-----\n> MIIB\n",
            "-----BEGIN PRIVATE KEY-----$\nMIIB$\n",
            "-----BEGIN PRIVATE KEY-----%0AMIIB%0A",
            "\"1: -----BEGIN PRIVATE KEY-----\",\"2: MIIB\",",
            "{\"line\":1,\"text\":\"-----BEGIN PRIVATE KEY-----\"},{\"line\":2,\"text\":\"MIIB\"},",
        ] {
            let text = repeated(unit);
            assert_eq!(
                scanner.find(&text).len(),
                text.len() / unit.len(),
                "unit {unit:?}"
            );
        }
        // A prefix of 256 bytes on every BEGIN line, the line after it shorter.
        let text = repeated(&format!("{}-----BEGIN PRIVATE KEY-----\n", "#".repeat(255)));
        assert!(scanner.find(&text).is_empty());
    }
}
