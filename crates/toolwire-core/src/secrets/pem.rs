//! PEM fragments: where the body before a lone END line starts, and whether a BEGIN block holds
//! key material at all.
//!
//! A body is base64 (`A-Z a-z 0-9 + / =`), line breaks (CR, LF, VT, FF, the `\n`, `\r` escapes
//! of JSON text, possibly double-escaped, an HTML page's `<br>`, `<br/>`, `<br />` and the
//! Unicode breaks NEL U+0085, U+2028 and U+2029) and spaces or tabs that indent or end a line. A position these
//! functions return is never inside a separator's bytes, so it is a char boundary.

/// The base64 characters a blank inside a line must border to be part of a body.
const LONG_RUN: usize = 16;

/// Whether `byte` is a base64 character (standard alphabet and padding).
fn is_base64(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'=')
}

/// The UTF-8 bytes of the Unicode line and paragraph separators (U+2028, U+2029) but the last.
const SEPARATOR_HEAD: &[u8] = &[0xE2, 0x80];

/// The UTF-8 bytes of NEL (U+0085, the next-line control of ISO 6429 and EBCDIC text).
const NEL: &[u8] = &[0xC2, 0x85];

/// Whether `byte` is a one-byte line break: CR, LF, VT or FF (Python's `str.splitlines` breaks at
/// each; a key's lines joined by one are its lines).
fn is_break_byte(byte: u8) -> bool {
    matches!(byte, b'\r' | b'\n' | 0x0B | 0x0C)
}

/// The longest `<br />` (with blanks before its `/`).
const MAX_BR: usize = 8;

/// Where a line break of markup or Unicode that starts at `at` ends: `<br>`, `<br/>`, `<br />`
/// (any case) or NEL, U+2028, U+2029.
fn wide_break_at(text: &[u8], at: usize) -> Option<usize> {
    let rest = &text[at..];
    if rest.starts_with(SEPARATOR_HEAD) && matches!(rest.get(2), Some(0xA8 | 0xA9)) {
        return Some(at + 3);
    }
    if rest.starts_with(NEL) {
        return Some(at + NEL.len());
    }
    if rest.len() < 4 || rest[0] != b'<' || !rest[1..3].eq_ignore_ascii_case(b"br") {
        return None;
    }
    let mut end = 3;
    while matches!(rest.get(end), Some(b' ' | b'\t')) && end < MAX_BR {
        end += 1;
    }
    if rest.get(end) == Some(&b'/') {
        end += 1;
    }
    (rest.get(end) == Some(&b'>')).then_some(at + end + 1)
}

/// Where a line break of markup or Unicode that ends at `at` starts (see [`wide_break_at`]).
fn wide_break_before(text: &[u8], at: usize) -> Option<usize> {
    let before = &text[..at];
    if before.len() >= 3
        && before[at - 3..at - 1] == *SEPARATOR_HEAD
        && matches!(before[at - 1], 0xA8 | 0xA9)
    {
        return Some(at - 3);
    }
    if before.ends_with(NEL) {
        return Some(at - NEL.len());
    }
    if before.last() != Some(&b'>') {
        return None;
    }
    let from = at.saturating_sub(MAX_BR + 1);
    let open = before[from..].iter().rposition(|&b| b == b'<')? + from;
    (wide_break_at(text, open) == Some(at)).then_some(open)
}

/// Whether a line break starts at `at`: CR, LF, VT, FF, backslashes followed by `r` or `n`, or a line
/// break of markup or Unicode ([`wide_break_at`]).
fn line_break_at(text: &[u8], at: usize) -> bool {
    if wide_break_at(text, at).is_some() {
        return true;
    }
    match text.get(at) {
        Some(&byte) if is_break_byte(byte) => true,
        Some(b'\\') => {
            let mut next = at;
            while text.get(next) == Some(&b'\\') {
                next += 1;
            }
            matches!(text.get(next), Some(b'r' | b'n'))
        }
        _ => false,
    }
}

/// Whether a line break ends just before `at`: CR, LF, VT, FF, an escape `\r`, `\n`, or a line break of
/// markup or Unicode ([`wide_break_before`]).
fn line_break_before(text: &[u8], at: usize) -> bool {
    if wide_break_before(text, at).is_some() {
        return true;
    }
    match at.checked_sub(1).map(|last| text[last]) {
        Some(byte) if is_break_byte(byte) => true,
        Some(b'r' | b'n') => at >= 2 && text[at - 2] == b'\\',
        _ => false,
    }
}

/// The start of the PEM body that ends at `end_line` (where `-----END` starts): walks back over
/// body characters and stops at the first character a body cannot contain; then skips forward
/// over leading line breaks and blanks so the body starts with base64. Returns `end_line` when
/// there is no body. Linear in the length of the body walked over.
pub(super) fn body_start(text: &str, end_line: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = end_line;
    while at > 0 {
        let byte = bytes[at - 1];
        if matches!(byte, b'r' | b'n') && line_break_before(bytes, at) {
            // An escaped line break: step over `n` and the backslashes before it.
            at -= 1;
            while at > 0 && bytes[at - 1] == b'\\' {
                at -= 1;
            }
        } else if is_base64(byte) || is_break_byte(byte) {
            at -= 1;
        } else if let Some(start) = wide_break_before(bytes, at) {
            at = start;
        } else if matches!(byte, b' ' | b'\t') {
            // Blanks belong to the body when they end or indent a line, or when 16 or more base64
            // characters come before them (a key pasted on one line).
            let mut run = at - 1;
            while run > 0 && matches!(bytes[run - 1], b' ' | b'\t') {
                run -= 1;
            }
            let long_run_before = bytes[..run]
                .iter()
                .rev()
                .take(LONG_RUN)
                .take_while(|&&byte| is_base64(byte))
                .count()
                == LONG_RUN;
            if line_break_at(bytes, at) || line_break_before(bytes, run) || long_run_before {
                at = run;
            } else {
                break;
            }
        } else {
            break;
        }
    }
    skip_breaks(bytes, at, end_line)
}

/// The first position at or after `from` (and before `to`) that is not a line break or a blank.
pub(super) fn skip_breaks(text: &[u8], from: usize, to: usize) -> usize {
    let mut at = from;
    while at < to {
        if let Some(end) = wide_break_at(text, at) {
            at = end;
            continue;
        }
        match text[at] {
            byte if byte == b' ' || byte == b'\t' || is_break_byte(byte) => at += 1,
            b'\\' if line_break_at(text, at) => {
                while text[at] == b'\\' {
                    at += 1;
                }
                at += 1;
            }
            _ => break,
        }
    }
    at.min(to)
}

/// The end of `text[..end]` without trailing line breaks and blanks (a fragment ends with its
/// last body character). Never before `start`.
pub(super) fn trim_breaks_end(text: &[u8], start: usize, end: usize) -> usize {
    let mut at = end;
    while at > start {
        if let Some(break_start) = wide_break_before(text, at).filter(|&from| from >= start) {
            at = break_start;
            continue;
        }
        match text[at - 1] {
            byte if byte == b' ' || byte == b'\t' || is_break_byte(byte) => at -= 1,
            b'r' | b'n' if line_break_before(text, at) => {
                at -= 1;
                while at > start && text[at - 1] == b'\\' {
                    at -= 1;
                }
            }
            _ => break,
        }
    }
    at
}

/// Whether `body` holds key material: at least one letter or digit.
pub(super) fn has_key_material(body: &str) -> bool {
    body.bytes().any(|byte| byte.is_ascii_alphanumeric())
}

/// Whether a match of the BEGIN pattern (a complete block or a BEGIN line with what follows)
/// holds key material between its BEGIN line and its END line (or its end).
pub(super) fn begin_block_has_body(block: &str) -> bool {
    const DASHES: &str = "-----";
    // The label between `-----BEGIN` and the closing dashes holds no dash.
    let Some(label_end) = block
        .get(DASHES.len()..)
        .and_then(|rest| rest.find(DASHES))
        .map(|at| at + 2 * DASHES.len())
    else {
        return false;
    };
    let body = &block[label_end..];
    let body = match body.rfind("-----END") {
        Some(end_line) if block.ends_with(DASHES) => &body[..end_line],
        _ => body,
    };
    has_key_material(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_before_an_end_line_starts_after_the_first_non_body_character() {
        let cases: &[(&str, &str)] = &[
            // (text before the END line, expected body)
            (
                "MIIBVgIBADAN\nBgkqhkiG9w0B\n",
                "MIIBVgIBADAN\nBgkqhkiG9w0B\n",
            ),
            ("the key: MIIBVgIBADAN\nBgkq\n", "MIIBVgIBADAN\nBgkq\n"),
            ("note.\n\nMIIBVgIB+/==\n", "MIIBVgIB+/==\n"),
            // Indented (YAML block) and indented END line.
            (
                "key: |\n  MIIBVgIB\n  BgkqhkiG\n  ",
                "MIIBVgIB\n  BgkqhkiG\n  ",
            ),
            // JSON text: escaped line breaks, single and double.
            ("{\"k\": \"MIIBVgIB\\nBgkqhkiG\\n", "MIIBVgIB\\nBgkqhkiG\\n"),
            ("{\\\"k\\\": \\\"MIIB\\\\nBgkq\\\\n", "MIIB\\\\nBgkq\\\\n"),
            // A blank inside a line is not body.
            ("some words here\n", "here\n"),
            // Blanks inside a line join only after 16 base64 characters (a one-line key).
            (
                "x MIIBVgIBADANBgkqhkiG MIIBVgIBADANBgkq ",
                "MIIBVgIBADANBgkqhkiG MIIBVgIBADANBgkq ",
            ),
            ("x MIIBVgIBADANBgkqhkiG short ", ""),
            // Markup and Unicode line breaks (the attack review 2's 10).
            ("<p>MIIBVgIB<br>Bgkq<br/>", "MIIBVgIB<br>Bgkq<br/>"),
            ("x: <BR />MIIBVgIB<br >", "MIIBVgIB<br >"),
            (
                "a: \u{2028}MIIB\u{2029}Bgkq\u{2028}",
                "MIIB\u{2029}Bgkq\u{2028}",
            ),
            // NEL, VT and FF (the attack review 3's 6).
            (
                "a: \u{85}MIIB\u{b}Bgkq\u{c}Zm9v\u{85}",
                "MIIB\u{b}Bgkq\u{c}Zm9v\u{85}",
            ),
            ("<b>MIIB<br", "br"),
            ("ends with ", ""),
            ("no body: ", ""),
            ("", ""),
        ];
        for (before, body) in cases {
            let text = format!("{before}-----END PRIVATE KEY-----");
            let start = body_start(&text, before.len());
            assert_eq!(&text[start..before.len()], *body, "text {text:?}");
        }
    }

    #[test]
    fn trailing_line_breaks_are_trimmed() {
        let cases: &[(&str, &str)] = &[
            ("MIIB\n", "MIIB"),
            ("MIIB \r\n\n", "MIIB"),
            ("MIIB\\n\\r\\n", "MIIB"),
            ("MIIB\\\\n", "MIIB"),
            ("MIIBn", "MIIBn"),
            ("\n\n", ""),
            ("MIIB<br>\u{2028}<br />", "MIIB"),
            ("MIIB\u{85}\u{b}\u{c}", "MIIB"),
            ("MIIB<br", "MIIB<br"),
        ];
        for (text, trimmed) in cases {
            let end = trim_breaks_end(text.as_bytes(), 0, text.len());
            assert_eq!(&text[..end], *trimmed, "text {text:?}");
        }
    }

    #[test]
    fn begin_blocks_need_key_material() {
        let cases: &[(&str, bool)] = &[
            (
                "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----",
                true,
            ),
            (
                "-----BEGIN PRIVATE KEY-----\n\n-----END PRIVATE KEY-----",
                false,
            ),
            ("-----BEGIN PRIVATE KEY-----\nMIIB", true),
            ("-----BEGIN PRIVATE KEY-----", false),
            ("-----BEGIN PRIVATE KEY-----\n  \n", false),
            ("-----BEGIN", false),
        ];
        for (block, expected) in cases {
            assert_eq!(begin_block_has_body(block), *expected, "block {block:?}");
        }
    }
}
