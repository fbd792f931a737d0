//! The text as its reader sees it: linear passes that undo the spellings a secret can hide
//! behind, with a map from the decoded text back to the original.
//!
//! A secret is searched in the text as it is and, when the text holds any of these spellings, in
//! this decoded view too; what is found in the view is mapped back and replaced in the original.
//! Two layers, the second reading what the first decoded (a JSON string that holds a mail body:
//! `=\r\n` is a soft line break once the JSON escapes are undone):
//! 1. the escapes of JSON text, however often escaped (`\n`, `\r`, `\t`, `\"`, `\/`, `\\`,
//!    `\uXXXX` and surrogate pairs; `\\n` of JSON text inside a JSON string): each to its
//!    character (a run of backslashes before `n` is one line break, whatever the nesting);
//! 2. the spellings of other readers, each to the character it stands for:
//!    - ANSI escape sequences (colours, cursor moves), raw or written as an escape of C text
//!      (`\x1b[0m`, `\033[1m`, `\e[m`): removed, as a terminal shows the text;
//!    - quoted-printable soft line breaks (`=\r\n`, `=\n`): removed, as a mail reader joins the
//!      lines; `=XX` escapes (`=3D`, `=40`);
//!    - percent escapes, however often encoded (`%40`, `%2540`, `%0A`);
//!    - HTML character references, however often escaped (`&#64;`, `&#x40;`, `&commat;`,
//!      `&#10;`, `&NewLine;`, `&amp;#64;`, `&amp;amp;`);
//!    - C escapes (`\x40`), however often escaped (`\\x40`).
//!
//! The second layer decodes printable ASCII, tab, CR and LF only (a key's line breaks written
//! `%0A` or `&#10;` are line breaks to its reader); every decoding starts at an ASCII character
//! and ends after one, so each range of a view maps to a range of its text on char boundaries.
//! Cost: one pass per layer, at most one entry in a layer's map per byte of its text.

use crate::ansi::sequence_end_after_esc;

/// A decoded spelling: `view[view..view_end]` stands for `original[raw..raw_end]` (an empty view
/// range for a removed sequence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Edit {
    view: usize,
    view_end: usize,
    raw: usize,
    raw_end: usize,
}

/// One layer's decoded spellings, in order: the map from its view back to its text.
#[derive(Debug)]
struct Layer {
    edits: Vec<Edit>,
    /// Whether a quoted-printable soft line break was removed.
    joined_lines: bool,
}

/// Where the mapping of the previous range stopped, per layer: ranges asked for in order (as
/// sorted, disjoint secrets are) map in one pass over each layer's edits.
#[derive(Debug, Default)]
pub(super) struct RangeHint([usize; 2]);

/// A decoded view of a text and the map back to it.
#[derive(Debug)]
pub(super) struct ReaderView {
    /// The decoded text.
    pub text: String,
    /// The layers that decoded something, in the order they ran (each reads the one before).
    layers: Vec<Layer>,
}

/// How a layer reads its text: the bytes a spelling may start with, and the spelling at a byte
/// (where it ends and the character it stands for, `None` for a removed sequence).
#[derive(Clone, Copy)]
struct Decoder {
    triggers: &'static [u8],
    decode_at: fn(&str, usize) -> Option<Spelling>,
}

/// A spelling read at a byte: where it ends, and the character it stands for (`None` for a
/// removed sequence).
type Spelling = (usize, Option<char>);

/// The layers, in the order they run.
const DECODERS: [Decoder; 2] = [
    Decoder {
        triggers: JSON_TRIGGERS,
        decode_at: json_escape,
    },
    Decoder {
        triggers: TRIGGERS,
        decode_at,
    },
];

/// [`DECODERS`], reading a quoted-printable soft line break as the line break it also is.
const DECODERS_KEEPING_LINES: [Decoder; 2] = [
    DECODERS[0],
    Decoder {
        triggers: TRIGGERS,
        decode_at: decode_keeping_lines,
    },
];

impl ReaderView {
    /// The views of `text` to search: none when it holds nothing to decode; the view of
    /// [`ReaderView::of`]; and when that joined lines at a quoted-printable soft break, also the
    /// view that keeps them. `=` at a line's end is a soft break to a mail reader and base64
    /// padding to everyone else (a key's last body line before its END line): both are read.
    pub(super) fn all(text: &str) -> Vec<ReaderView> {
        let Some(view) = ReaderView::decoded(text, &DECODERS) else {
            return Vec::new();
        };
        if !view.layers.iter().any(|layer| layer.joined_lines) {
            return vec![view];
        }
        let kept = ReaderView::decoded(text, &DECODERS_KEEPING_LINES);
        std::iter::once(view).chain(kept).collect()
    }

    /// The view of `text` with every layer decoded, or `None` when it holds nothing to decode.
    #[cfg(test)]
    pub(super) fn of(text: &str) -> Option<ReaderView> {
        ReaderView::decoded(text, &DECODERS)
    }

    /// The view of `text` through `decoders`, or `None` when they decode nothing.
    fn decoded(text: &str, decoders: &[Decoder]) -> Option<ReaderView> {
        let mut decoded: Option<String> = None;
        let mut layers = Vec::new();
        for decoder in decoders {
            let input = decoded.as_deref().unwrap_or(text);
            if let Some((view, layer)) = decoder.decode(input) {
                decoded = Some(view);
                layers.push(layer);
            }
        }
        Some(ReaderView {
            text: decoded?,
            layers,
        })
    }

    /// The original range of the view's `start..end`: widened to whole spellings where it starts
    /// or ends inside one; removed sequences right before `start` or right at `end` stay outside.
    pub(super) fn original_range(
        &self,
        start: usize,
        end: usize,
        hint: &mut RangeHint,
    ) -> (usize, usize) {
        self.layers
            .iter()
            .zip(hint.0.iter_mut())
            .rev()
            .fold((start, end), |(start, end), (layer, hint)| {
                layer.original_range(start, end, hint)
            })
    }

    /// How many spellings were decoded (at most one per byte of the text each layer read).
    #[cfg(test)]
    pub(super) fn edit_count(&self) -> usize {
        self.layers.iter().map(|layer| layer.edits.len()).sum()
    }
}

impl Decoder {
    /// `text` decoded and the map back, or `None` when it holds nothing to decode.
    fn decode(&self, text: &str) -> Option<(String, Layer)> {
        let bytes = text.as_bytes();
        let mut scan = TriggerScan::new(self.triggers, bytes);
        let mut next = |from: usize| scan.next(from);
        let mut at = next(0)?;
        let mut view = String::new();
        let mut edits = Vec::new();
        let mut copied = 0;
        let mut joined_lines = false;
        while at < bytes.len() {
            let Some((end, decoded)) = (self.decode_at)(text, at) else {
                // Past a whole run of backslashes: each would look at the same run again.
                at += 1;
                while bytes[at - 1] == b'\\' && bytes.get(at) == Some(&b'\\') {
                    at += 1;
                }
                at = next(at).unwrap_or(bytes.len());
                continue;
            };
            if edits.is_empty() {
                view.reserve(text.len());
            }
            view.push_str(&text[copied..at]);
            let start = view.len();
            match decoded {
                Some(c) => view.push(c),
                None => joined_lines |= bytes[at] == b'=',
            }
            edits.push(Edit {
                view: start,
                view_end: view.len(),
                raw: at,
                raw_end: end,
            });
            copied = end;
            at = next(end).unwrap_or(bytes.len());
        }
        if edits.is_empty() {
            return None;
        }
        view.push_str(&text[copied..]);
        Some((
            view,
            Layer {
                edits,
                joined_lines,
            },
        ))
    }
}

impl Layer {
    /// [`ReaderView::original_range`] through this layer alone; `hint` is the index of the first
    /// edit to look at, advanced.
    fn original_range(&self, start: usize, end: usize, hint: &mut usize) -> (usize, usize) {
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

    /// The original position of view position `at`, where no edit covers it: shifted by the
    /// last edit before edit `index`.
    fn shift(&self, at: usize, index: usize) -> usize {
        match index.checked_sub(1).map(|index| self.edits[index]) {
            Some(edit) => edit.raw_end + (at - edit.view_end),
            None => at,
        }
    }
}

/// The byte an escape of JSON text starts with.
const JSON_TRIGGERS: &[u8] = b"\\";

/// An escape of JSON text at `at` (any number of backslashes: each level of nesting doubles
/// them): its end and the character it stands for. `\uXXXX` of a surrogate decodes only as a
/// pair (`\ud83d\ude00`); a lone one, and a backslash before any other character, is left.
fn json_escape(text: &str, at: usize) -> Option<(usize, Option<char>)> {
    let bytes = text.as_bytes();
    let mut index = at;
    while bytes.get(index) == Some(&b'\\') {
        index += 1;
    }
    let run = index - at;
    let c = match bytes.get(index)? {
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'"' => '"',
        b'/' => '/',
        b'u' => {
            let unit = hex4(bytes, index + 1)?;
            let end = index + 5;
            if !(0xd800..0xe000).contains(&unit) {
                return Some((end, char::from_u32(unit)));
            }
            // A high surrogate and, escaped the same way, a low one.
            let low_at = end + run;
            let same_run = bytes.get(end..low_at)?.iter().all(|&b| b == b'\\');
            let low = (same_run && bytes.get(low_at) == Some(&b'u'))
                .then(|| hex4(bytes, low_at + 1))
                .flatten()
                .filter(|low| (0xd800..0xdc00).contains(&unit) && (0xdc00..0xe000).contains(low))?;
            let c = char::from_u32(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00))?;
            return Some((low_at + 5, Some(c)));
        }
        _ => return None,
    };
    Some((index + 1, Some(c)))
}

/// The value of four hex digits at `at`.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    digits.iter().try_fold(0, |value, &b| {
        (b as char).to_digit(16).map(|digit| value * 16 + digit)
    })
}

/// The bytes a spelling starts with: ESC, the first byte of U+009B, `=`, `%`, `&` and `\`.
const TRIGGERS: &[u8] = b"\x1b\xc2=%&\\";

/// Finds the bytes that may start a spelling, left to right, with one `memchr` scan per group of
/// up to three of them: each group's next hit is remembered until the search passes it, so the
/// text is read once per group (a text with nothing to decode costs a few vector scans).
struct TriggerScan<'a> {
    bytes: &'a [u8],
    /// Each group of trigger bytes and where its next hit is (the text's length when none).
    groups: Vec<(&'static [u8], usize)>,
}

impl<'a> TriggerScan<'a> {
    /// The scan of `bytes` for `triggers` (at most six bytes).
    fn new(triggers: &'static [u8], bytes: &'a [u8]) -> TriggerScan<'a> {
        let groups = triggers
            .chunks(3)
            .map(|group| (group, find_any(group, bytes, 0)))
            .collect();
        TriggerScan { bytes, groups }
    }

    /// The first trigger byte at or after `from`; asked with `from` never decreasing.
    fn next(&mut self, from: usize) -> Option<usize> {
        let bytes = self.bytes;
        let mut first = bytes.len();
        for (group, found) in &mut self.groups {
            if *found < from {
                *found = find_any(group, bytes, from);
            }
            first = first.min(*found);
        }
        (first < bytes.len()).then_some(first)
    }
}

/// The first byte of `group` (one to three bytes) at or after `from`, or the text's length.
fn find_any(group: &[u8], bytes: &[u8], from: usize) -> usize {
    let Some(rest) = bytes.get(from..) else {
        return bytes.len();
    };
    let found = match *group {
        [a] => memchr::memchr(a, rest),
        [a, b] => memchr::memchr2(a, b, rest),
        [a, b, c, ..] => memchr::memchr3(a, b, c, rest),
        [] => None,
    };
    found.map_or(bytes.len(), |found| from + found)
}

/// The spelling starting at byte `at` of `text`, if one does: where it ends and the character
/// it stands for (`None` for a removed sequence).
fn decode_at(text: &str, at: usize) -> Option<(usize, Option<char>)> {
    let bytes = text.as_bytes();
    match bytes[at] {
        0x1b => Some((sequence_end_after_esc(text, at + 1), None)),
        // U+009B, the one-character control sequence introducer.
        0xc2 if bytes.get(at + 1) == Some(&0x9b) => {
            Some((crate::ansi::sequence_end(text, at), None))
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

/// [`decode_at`] without quoted-printable soft line breaks.
fn decode_keeping_lines(text: &str, at: usize) -> Option<(usize, Option<char>)> {
    match text.as_bytes()[at] {
        b'=' => hex_pair(text.as_bytes(), at + 1, true).map(|c| (at + 3, Some(c))),
        _ => decode_at(text, at),
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

/// The character two hex digits at `at` stand for, when [`readable`] (upper case only when
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
    readable(value)
}

/// `value` as a character when it is printable ASCII (space to `~`), a tab or a line break.
fn readable(value: u32) -> Option<char> {
    ((0x20..0x7f).contains(&value) || matches!(value, 0x09 | 0x0a | 0x0d))
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
    ("NewLine", '\n'),
    ("Tab", '\t'),
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
        return readable(value).map(|c| (index + 1, c));
    }
    let window = &bytes[at..bytes.len().min(at + MAX_NAMED)];
    let semi = window.iter().position(|&b| b == b';')?;
    let name = &window[..semi];
    NAMED
        .iter()
        .find(|(known, _)| known.as_bytes() == name)
        .map(|&(_, c)| (at + semi + 1, c))
}

/// A C escape (any number of backslashes): `\xXX` of a [`readable`] character, or an escaped
/// ESC (`\x1b`, `\033`, `\e`) with the control sequence after it. (`\u001b` is JSON's: the
/// first layer made it an ESC.)
fn backslash(text: &str, at: usize) -> Option<(usize, Option<char>)> {
    let bytes = text.as_bytes();
    let mut index = at;
    while bytes.get(index) == Some(&b'\\') {
        index += 1;
    }
    let rest = &bytes[index..];
    let esc_len = [&b"x1b"[..], b"x1B", b"033", b"e"]
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
            ("p=40ss =3D =0A", "p@ss = \n"),
            ("a=ff b=4", "a=ff b=4"),
            ("u:p%40ss@h %2540 %252540", "u:p@ss@h @ @"),
            ("100%25 %zz %", "100% %zz %"),
            ("%0A%0d%09 %00 %7F", "\n\r\t %00 %7F"),
            (
                "p&#64;ss &#x40; &commat; &amp;#64; &amp;amp; &amp;",
                "p@ss @ @ @ & &",
            ),
            (
                "&unknown; &#10; &#; &#x; &#0;",
                "&unknown; \n &#; &#x; &#0;",
            ),
            ("a&NewLine;b&Tab;c&#xD;&#xA;", "a\nb\tc\r\n"),
            ("https:\\/\\/u:p@h \\\\/", "https://u:p@h /"),
            ("\\u0040 \\x3a \\u00e9 \\n", "@ : \u{e9} \n"),
            // JSON text: every escape of a string, single and nested.
            (
                "a\\nb\\r\\tc\\\"d\\/e\\bf\\fg",
                "a\nb\r\tc\"d/e\u{8}f\u{c}g",
            ),
            ("x\\\\ny \\\\\\\"z", "x\ny \"z"),
            ("\\ud83d\\ude00 \\\\ud83d\\\\ude00", "\u{1f600} \u{1f600}"),
            // A lone surrogate, or a pair escaped at two levels, is left.
            (
                "\\ud83d. \\ude00 \\ud83d\\\\ude00",
                "\\ud83d. \\ude00 \\ud83d\\\\ude00",
            ),
            ("C:\\\\dir \\q \\u12 \\", "C:\\\\dir \\q \\u12 \\"),
            // Composed: a soft break, a percent escape and a reference inside JSON text.
            ("ghp_ab=\\r\\ncd", "ghp_abcd"),
            ("ghp_ab=\\\\r\\\\ncd", "ghp_abcd"),
            ("\\u0026#64; \\u0025\\u0034\\u0030", "@ @"),
            ("\\u001b[31mred", "red"),
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
        let mut hint = RangeHint::default();
        // `p@ss` -> `p%40ss`.
        let (start, end) = view.original_range(2, 6, &mut hint);
        assert_eq!(&original[start..end], "p%40ss");
        // `token` -> the sequences inside it, not the one before it.
        let (start, end) = view.original_range(9, 14, &mut hint);
        assert_eq!(&original[start..end], "tok\u{1b}[0men");
        // A range starting inside a decoded character covers its whole spelling.
        let mut hint = RangeHint::default();
        let (start, end) = view.original_range(3, 4, &mut hint);
        assert_eq!(&original[start..end], "%40");
    }

    /// Through both layers: a range of the view maps to the whole spellings of the original
    /// that the decoded characters came from, however they nest.
    #[test]
    fn ranges_map_back_through_both_layers() {
        // (original, the view's range as a substring of the view, its original spelling)
        let cases: &[(&str, &str, &str)] = &[
            ("k: ghp_ab=\\r\\ncd end", "ghp_abcd", "ghp_ab=\\r\\ncd"),
            ("x \\u0026#64;y z", "@y", "\\u0026#64;y"),
            ("a\\\\u0025\\\\u00340b c", "@b", "\\\\u0025\\\\u00340b"),
            ("\\\"t\\\": \\\"v=\\r\\nw\\\"", "vw", "v=\\r\\nw"),
            ("é\\u00e9 ok", "éé", "é\\u00e9"),
        ];
        for (original, part, spelled) in cases {
            let view = ReaderView::of(original).unwrap();
            let start = view.text.find(part).unwrap();
            let mut hint = RangeHint::default();
            let (from, to) = view.original_range(start, start + part.len(), &mut hint);
            assert_eq!(
                &original[from..to],
                *spelled,
                "{original:?} -> {:?}",
                view.text
            );
        }
    }

    #[test]
    fn long_runs_of_spellings_stay_linear() {
        // Each of these starts a spelling at every few bytes; the pass must finish at once and
        // map every byte.
        for unit in [
            "%25",
            "&amp;",
            "\\\\",
            "=\n",
            "\u{1b}[",
            "\\u001b[",
            "&#",
            "%",
            "=\\r\\n",
            "%0A",
            "&#10;",
            "> ",
            "\\ud83d",
            "\\\\\\\\n",
            "\\u0026#64;",
        ] {
            let text = unit.repeat(200_000);
            let view = ReaderView::of(&text);
            if let Some(view) = view {
                assert!(view.edit_count() <= 2 * text.len(), "{unit:?}");
                let mut hint = RangeHint::default();
                let (start, end) = view.original_range(0, view.text.len(), &mut hint);
                assert!(start <= end && end <= text.len(), "{unit:?}");
            }
        }
    }
}
