//! Removal of ANSI terminal escape sequences (colours, cursor moves, window titles, hyperlinks)
//! from command output, in one linear pass.

use std::borrow::Cow;

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';
/// The one-character form of `ESC [` (C1 control sequence introducer).
const CSI: char = '\u{9b}';

/// `text` without its escape sequences, and how many were removed. Borrowed when there were none.
///
/// Recognised: CSI sequences (`ESC [` or U+009B, parameters, intermediates, a final byte), OSC
/// strings (`ESC ]` up to BEL or `ESC \`), DCS/SOS/PM/APC strings (`ESC P`, `ESC X`, `ESC ^`,
/// `ESC _` up to `ESC \`), and two- and three-character escapes (`ESC 7`, `ESC ( B`). A sequence
/// cut off by the end of the text is removed to the end. A lone ESC is removed.
pub fn strip_ansi(text: &str) -> (Cow<'_, str>, usize) {
    if !text.contains([ESC, CSI]) {
        return (Cow::Borrowed(text), 0);
    }
    let mut out = String::with_capacity(text.len());
    let mut removed = 0;
    let mut copied = 0;
    while let Some(found) = text[copied..].find([ESC, CSI]) {
        let start = copied + found;
        out.push_str(&text[copied..start]);
        removed += 1;
        copied = sequence_end(text, start);
    }
    out.push_str(&text[copied..]);
    (Cow::Owned(out), removed)
}

/// Where the escape sequence starting at `at` (an ESC or U+009B in `text`) ends; `at` itself
/// when no sequence starts there.
pub fn sequence_end(text: &str, at: usize) -> usize {
    match text[at..].chars().next() {
        Some(ESC) => sequence_end_after_esc(text, at + ESC.len_utf8()),
        Some(CSI) => {
            let mut chars = text[at + CSI.len_utf8()..].char_indices().peekable();
            skip_control_sequence(&mut chars);
            offset_of(text, at + CSI.len_utf8(), &mut chars)
        }
        _ => at,
    }
}

/// Where the escape sequence whose ESC ends at `after` ends: what follows an ESC (a CSI
/// sequence, a string, a two- or three-character escape, or nothing for a lone ESC). Also used
/// for an ESC written as an escape in JSON or C text (`\u001b[31m`).
pub fn sequence_end_after_esc(text: &str, after: usize) -> usize {
    let mut chars = text[after..].char_indices().peekable();
    match chars.peek().map(|&(_, next)| next) {
        Some('[') => {
            chars.next();
            skip_control_sequence(&mut chars);
        }
        Some(']' | 'P' | 'X' | '^' | '_') => {
            chars.next();
            skip_string(&mut chars);
        }
        Some(' '..='/') => {
            // An intermediate byte, then one final character (`ESC ( B`).
            chars.next();
            if chars.peek().is_some_and(|&(_, f)| ('0'..='~').contains(&f)) {
                chars.next();
            }
        }
        Some('0'..='~') => {
            chars.next();
        }
        _ => {}
    }
    offset_of(text, after, &mut chars)
}

/// The offset in `text` of the next character of `chars` (which iterates `text[base..]`), or
/// the end of the text.
fn offset_of(text: &str, base: usize, chars: &mut Chars<'_>) -> usize {
    chars.peek().map_or(text.len(), |&(at, _)| base + at)
}

type Chars<'a> = std::iter::Peekable<std::str::CharIndices<'a>>;

/// Skips the parameters, intermediates and final byte of a control sequence. A character that
/// cannot be part of one ends it without being consumed.
fn skip_control_sequence(chars: &mut Chars<'_>) {
    while let Some(&(_, c)) = chars.peek() {
        match c {
            '0'..='?' | ' '..='/' => {
                chars.next();
            }
            '@'..='~' => {
                chars.next();
                return;
            }
            _ => return,
        }
    }
}

/// Skips a string sequence up to its terminator (BEL, or `ESC \`). Another ESC ends it without
/// being consumed, so a missing terminator never swallows later text past the next sequence.
fn skip_string(chars: &mut Chars<'_>) {
    while let Some(&(_, c)) = chars.peek() {
        match c {
            BEL => {
                chars.next();
                return;
            }
            ESC => {
                let mut ahead = chars.clone();
                ahead.next();
                if ahead.peek().is_some_and(|&(_, n)| n == '\\') {
                    chars.next();
                    chars.next();
                }
                return;
            }
            _ => {
                chars.next();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_each_kind_of_sequence() {
        for (input, expected, count) in [
            ("plain", "plain", 0),
            ("\u{1b}[31mred\u{1b}[0m", "red", 2),
            ("\u{1b}[1;38;5;196mbold\u{1b}[m!", "bold!", 2),
            ("a\u{1b}[2Kb\u{1b}[10;20Hc", "abc", 2),
            ("\u{1b}]0;title\u{7}text", "text", 1),
            (
                "\u{1b}]8;;https://x.test\u{1b}\\link\u{1b}]8;;\u{1b}\\",
                "link",
                2,
            ),
            ("\u{1b}Pq#0;2;0;0;0\u{1b}\\after", "after", 1),
            ("\u{1b}(Bascii", "ascii", 1),
            ("save\u{1b}7restore\u{1b}8", "saverestore", 2),
            ("\u{9b}32mgreen", "green", 1),
            ("cut\u{1b}[3", "cut", 1),
            ("lone\u{1b}", "lone", 1),
            ("\u{1b}]unterminated\u{1b}[31mx", "x", 2),
            ("é\u{1b}[1m→\u{1b}[0m😀", "é→😀", 2),
        ] {
            let (out, removed) = strip_ansi(input);
            assert_eq!(out, expected, "{input:?}");
            assert_eq!(removed, count, "{input:?}");
        }
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(strip_ansi("no escapes").0, Cow::Borrowed(_)));
    }

    #[test]
    fn many_unterminated_strings_stay_linear() {
        let input = "\u{1b}]x".repeat(200_000);
        let (out, removed) = strip_ansi(&input);
        assert_eq!(out, "");
        assert_eq!(removed, 200_000);
    }
}
