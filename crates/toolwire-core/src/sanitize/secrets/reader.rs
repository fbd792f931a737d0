//! The text as its reader sees it: one linear pass that undoes the spellings a secret can hide
//! behind, with a map from the decoded text back to the original.
//!
//! A secret is searched in the text as it is and, when the text holds any of these spellings, in
//! this decoded view too; what is found in the view is mapped back and replaced in the original.
//! Decoded, each to the character it stands for:
//! - ANSI escape sequences (colours, cursor moves), raw or written as an escape of JSON or C text
//!   (`\u001b[31m`, `\x1b[0m`, `\033[1m`, `\e[m`): removed, as a terminal shows the text;
//! - quoted-printable soft line breaks (`=\r\n`, `=\n`): removed, as a mail reader joins the
//!   lines; `=XX` escapes of printable ASCII (`=3D`, `=40`);
//! - percent escapes of printable ASCII, however often encoded (`%40`, `%2540`);
//! - HTML character references of printable ASCII, however often escaped (`&#64;`, `&#x40;`,
//!   `&commat;`, `&amp;#64;`, `&amp;amp;`);
//! - backslash escapes of `/` and of printable ASCII (`\/`, `\u0040`, `\x40`), however often
//!   escaped (`\\/`).
//!
//! Only printable ASCII is decoded (so the view is valid UTF-8 and never gains a line break or a
//! control character); every decoding starts at an ASCII character, so each range of the view
//! maps to a range of the original on char boundaries. Cost: one pass, at most one entry in the
//! map per decoded spelling.

use super::super::ansi::sequence_end_after_esc;

/// A decoded spelling: `view[view..view_end]` stands for `original[raw..raw_end]` (an empty view
/// range for a removed sequence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Edit {
    view: usize,
    view_end: usize,
    raw: usize,
    raw_end: usize,
}

/// A decoded view of a text and the map back to it.
#[derive(Debug)]
pub(super) struct ReaderView {
    /// The decoded text.
    pub text: String,
    /// The decoded spellings, in order.
    edits: Vec<Edit>,
}

impl ReaderView {
    /// The view of `text`, or `None` when it holds nothing to decode.
    pub(super) fn of(text: &str) -> Option<ReaderView> {
        let bytes = text.as_bytes();
        let mut at = next_trigger(bytes, 0)?;
        let mut view = ReaderView {
            text: String::new(),
            edits: Vec::new(),
        };
        let mut copied = 0;
        while at < bytes.len() {
            let Some((end, decoded)) = decode_at(text, at) else {
                // Past a whole run of backslashes: each would look at the same run again.
                at += 1;
                while bytes[at - 1] == b'\\' && bytes.get(at) == Some(&b'\\') {
                    at += 1;
                }
                at = next_trigger(bytes, at).unwrap_or(bytes.len());
                continue;
            };
            if view.edits.is_empty() {
                view.text.reserve(text.len());
            }
            view.text.push_str(&text[copied..at]);
            let start = view.text.len();
            if let Some(c) = decoded {
                view.text.push(c);
            }
            view.edits.push(Edit {
                view: start,
                view_end: view.text.len(),
                raw: at,
                raw_end: end,
            });
            copied = end;
            at = next_trigger(bytes, end).unwrap_or(bytes.len());
        }
        if view.edits.is_empty() {
            return None;
        }
        view.text.push_str(&text[copied..]);
        Some(view)
    }

    /// The original range of the view's `start..end`: widened to whole spellings where it starts
    /// or ends inside one; removed sequences right before `start` or right at `end` stay outside.
    /// `hint` is the index of the first edit to look at, advanced: ranges asked for in order
    /// (as sorted, disjoint secrets are) map in one pass over the edits.
    pub(super) fn original_range(
        &self,
        start: usize,
        end: usize,
        hint: &mut usize,
    ) -> (usize, usize) {
        let edits = &self.edits;
        let mut first = *hint;
        while first < edits.len() && edits[first].view_end <= start {
            first += 1;
        }
        *hint = first;
        let raw_start = match edits.get(first) {
            // `start` is inside a decoded character.
            Some(edit) if edit.view <= start => edit.raw,
            _ => self.shift(start, first),
        };
        let mut last = first;
        while last < edits.len() && edits[last].view < end {
            last += 1;
        }
        let raw_end = if last > first {
            let edit = edits[last - 1];
            edit.raw_end + end.saturating_sub(edit.view_end)
        } else {
            self.shift(end, first)
        };
        (raw_start, raw_end.max(raw_start))
    }

    /// How many spellings were decoded (at most one per byte of the original).
    #[cfg(test)]
    pub(super) fn edit_count(&self) -> usize {
        self.edits.len()
    }

    /// The original position of view position `at`, where no edit covers it: shifted by the
    /// last edit before edit `index`.
    fn shift(&self, at: usize, index: usize) -> usize {
        match index.checked_sub(1).map(|index| self.edits[index]) {
            Some(edit) => edit.raw_end + (at - edit.view_end),
            None => at,
        }
    }
}

/// The bytes a spelling starts with: ESC, the first byte of U+009B, `=`, `%`, `&` and `\`.
static TRIGGERS: [bool; 256] = {
    let mut table = [false; 256];
    let mut index = 0;
    let bytes = [0x1b, 0xc2, b'=', b'%', b'&', b'\\'];
    while index < bytes.len() {
        table[bytes[index] as usize] = true;
        index += 1;
    }
    table
};

/// The first byte at or after `from` that may start a spelling.
fn next_trigger(bytes: &[u8], from: usize) -> Option<usize> {
    bytes
        .get(from..)?
        .iter()
        .position(|&b| TRIGGERS[b as usize])
        .map(|found| from + found)
}

/// The spelling starting at byte `at` of `text`, if one does: where it ends and the character
/// it stands for (`None` for a removed sequence).
fn decode_at(text: &str, at: usize) -> Option<(usize, Option<char>)> {
    let bytes = text.as_bytes();
    match bytes[at] {
        0x1b => Some((sequence_end_after_esc(text, at + 1), None)),
        // U+009B, the one-character control sequence introducer.
        0xc2 if bytes.get(at + 1) == Some(&0x9b) => {
            Some((super::super::ansi::sequence_end(text, at), None))
        }
        b'=' => soft_break(bytes, at)
            .map(|end| (end, None))
            .or_else(|| hex_pair(bytes, at + 1, true).map(|c| (at + 3, Some(c)))),
        b'%' => percent(bytes, at),
        b'&' => reference(bytes, at),
        b'\\' => backslash(text, at),
        _ => None,
    }
}

/// A quoted-printable soft line break at `at` (`=` then CRLF or LF, blanks allowed before the
/// break): its end.
fn soft_break(bytes: &[u8], at: usize) -> Option<usize> {
    let mut index = at + 1;
    while matches!(bytes.get(index), Some(b' ' | b'\t')) {
        index += 1;
    }
    match bytes.get(index..) {
        Some([b'\r', b'\n', ..]) => Some(index + 2),
        Some([b'\n', ..]) => Some(index + 1),
        _ => None,
    }
}

/// The printable ASCII character two hex digits at `at` stand for (upper case only when
/// `upper`, as quoted-printable writes them).
fn hex_pair(bytes: &[u8], at: usize, upper: bool) -> Option<char> {
    let digit = |index: usize| {
        let b = *bytes.get(index)?;
        if upper && b.is_ascii_lowercase() {
            return None;
        }
        (b as char).to_digit(16)
    };
    let value = digit(at)? * 16 + digit(at + 1)?;
    printable(value)
}

/// `value` as a character when it is printable ASCII (space to `~`).
fn printable(value: u32) -> Option<char> {
    (0x20..0x7f)
        .contains(&value)
        .then(|| char::from_u32(value))
        .flatten()
}

/// A percent escape, encoded any number of times (`%40`, `%2540`, `%252540`).
fn percent(bytes: &[u8], at: usize) -> Option<(usize, Option<char>)> {
    let mut index = at + 1;
    while bytes.get(index..index + 2) == Some(b"25") && bytes.get(index + 2) != Some(&b'%') {
        // `%25` followed by two hex digits is one more level of encoding.
        if hex_pair(bytes, index + 2, false).is_none() {
            break;
        }
        index += 2;
    }
    let c = hex_pair(bytes, index, false)?;
    Some((index + 2, Some(c)))
}

/// The named references decoded (the ASCII punctuation a secret or a URL is written with).
const NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("commat", '@'),
    ("colon", ':'),
    ("sol", '/'),
    ("bsol", '\\'),
    ("percnt", '%'),
    ("equals", '='),
    ("plus", '+'),
    ("num", '#'),
    ("period", '.'),
    ("lowbar", '_'),
    ("hyphen", '-'),
    ("dash", '-'),
    ("semi", ';'),
    ("comma", ','),
    ("excl", '!'),
    ("quest", '?'),
    ("dollar", '$'),
    ("tilde", '~'),
    ("ast", '*'),
    ("nbsp", ' '),
];

/// The longest named reference, `;` included.
const MAX_NAMED: usize = 8;

/// An HTML character reference, escaped any number of times (`&#64;`, `&#x40;`, `&commat;`,
/// `&amp;#64;`): its end and character.
fn reference(bytes: &[u8], at: usize) -> Option<(usize, Option<char>)> {
    let mut index = at + 1;
    loop {
        let (end, c) = one_reference(bytes, index)?;
        // `&amp;` followed by another reference is one more level of escaping.
        if c == '&' && one_reference(bytes, end).is_some() {
            index = end;
            continue;
        }
        return Some((end, Some(c)));
    }
}

/// One reference after its `&` at `at`: `#NN;`, `#xHH;` or a name of [`NAMED`] and `;`.
fn one_reference(bytes: &[u8], at: usize) -> Option<(usize, char)> {
    if bytes.get(at) == Some(&b'#') {
        let (radix, digits_at) = match bytes.get(at + 1) {
            Some(b'x' | b'X') => (16, at + 2),
            _ => (10, at + 1),
        };
        let mut value = 0u32;
        let mut index = digits_at;
        while let Some(digit) = bytes.get(index).and_then(|&b| (b as char).to_digit(radix)) {
            value = value.saturating_mul(radix).saturating_add(digit);
            index += 1;
            if index - digits_at > 8 {
                return None;
            }
        }
        if index == digits_at || bytes.get(index) != Some(&b';') {
            return None;
        }
        return printable(value).map(|c| (index + 1, c));
    }
    let window = &bytes[at..bytes.len().min(at + MAX_NAMED)];
    let semi = window.iter().position(|&b| b == b';')?;
    let name = &window[..semi];
    NAMED
        .iter()
        .find(|(known, _)| known.as_bytes() == name)
        .map(|&(_, c)| (at + semi + 1, c))
}

/// A backslash escape (any number of backslashes): `\/`, `\u00XX`, `\xXX` of printable ASCII,
/// or an escaped ESC (`\u001b`, `\x1b`, `\033`, `\e`) with the sequence after it.
fn backslash(text: &str, at: usize) -> Option<(usize, Option<char>)> {
    let bytes = text.as_bytes();
    let mut index = at;
    while bytes.get(index) == Some(&b'\\') {
        index += 1;
    }
    let rest = &bytes[index..];
    let esc_len = [&b"u001b"[..], b"u001B", b"x1b", b"x1B", b"033", b"e"]
        .iter()
        .find(|spelling| rest.starts_with(spelling))
        .map(|spelling| spelling.len());
    if let Some(len) = esc_len {
        // Only a control sequence (`[`...): a string sequence's terminator would be escaped too.
        if bytes.get(index + len) == Some(&b'[') {
            return Some((sequence_end_after_esc(text, index + len), None));
        }
        if len > 1 {
            return None;
        }
    }
    match rest {
        [b'/', ..] => Some((index + 1, Some('/'))),
        [b'u', b'0', b'0', ..] => hex_pair(bytes, index + 3, false).map(|c| (index + 5, Some(c))),
        [b'x', ..] => hex_pair(bytes, index + 1, false).map(|c| (index + 3, Some(c))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (original, view): each spelling decodes to what its reader sees.
    #[test]
    fn each_spelling_decodes_to_what_its_reader_sees() {
        let cases: &[(&str, &str)] = &[
            ("\u{1b}[31mBearer\u{1b}[0m", "Bearer"),
            ("a\u{9b}1mb", "ab"),
            ("Be\\u001b[1marer", "Bearer"),
            ("Be\\\\u001b[1marer", "Bearer"),
            ("x\\x1b[0my \\033[32mz \\e[mw", "xy z w"),
            ("abc=\r\ndef=\nghi= \nj", "abcdefghij"),
            ("p=40ss =3D", "p@ss ="),
            ("a=ff b=4", "a=ff b=4"),
            ("u:p%40ss@h %2540 %252540", "u:p@ss@h @ @"),
            ("100%25 %zz %", "100% %zz %"),
            ("%0A%0d", "%0A%0d"),
            (
                "p&#64;ss &#x40; &commat; &amp;#64; &amp;amp; &amp;",
                "p@ss @ @ @ & &",
            ),
            ("&unknown; &#10; &#; &#x;", "&unknown; &#10; &#; &#x;"),
            ("https:\\/\\/u:p@h \\\\/", "https://u:p@h /"),
            ("\\u0040 \\x3a \\u00e9 \\n", "@ : \\u00e9 \\n"),
            ("plain", "plain"),
        ];
        for (original, view) in cases {
            let decoded = ReaderView::of(original).map(|v| v.text);
            let expected = (original != view).then(|| view.to_string());
            assert_eq!(decoded, expected, "{original:?}");
        }
    }

    #[test]
    fn ranges_map_back_to_whole_spellings() {
        let original = "u:p%40ss@h \u{1b}[1mtok\u{1b}[0men";
        let view = ReaderView::of(original).unwrap();
        assert_eq!(view.text, "u:p@ss@h token");
        let mut hint = 0;
        // `p@ss` -> `p%40ss`.
        let (start, end) = view.original_range(2, 6, &mut hint);
        assert_eq!(&original[start..end], "p%40ss");
        // `token` -> the sequences inside it, not the one before it.
        let (start, end) = view.original_range(9, 14, &mut hint);
        assert_eq!(&original[start..end], "tok\u{1b}[0men");
        // A range starting inside a decoded character covers its whole spelling.
        let mut hint = 0;
        let (start, end) = view.original_range(3, 4, &mut hint);
        assert_eq!(&original[start..end], "%40");
    }

    #[test]
    fn long_runs_of_spellings_stay_linear() {
        // Each of these starts a spelling at every few bytes; the pass must finish at once and
        // map every byte.
        for unit in [
            "%25", "&amp;", "\\\\", "=\n", "\u{1b}[", "\\u001b[", "&#", "%",
        ] {
            let text = unit.repeat(200_000);
            let view = ReaderView::of(&text);
            if let Some(view) = view {
                let mut hint = 0;
                let (start, end) = view.original_range(0, view.text.len(), &mut hint);
                assert!(start <= end && end <= text.len(), "{unit:?}");
            }
        }
    }
}
