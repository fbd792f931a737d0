//! Run ids as directory names, one-to-one: the directory of run `id` under an audit root is
//! `<root>/<dir_name(id)>`, and two different ids never share a directory on any platform the
//! package ships for. This module is the only place that decides the mapping: JavaScript hands
//! over the id's UTF-16 code units ([`dir_name_utf16`]), so ids that are not well-formed UTF-16
//! (a lone surrogate, what `text.slice(0, n)` makes of an emoji) are named here too.
//!
//! The name is the id percent-encoded: lowercase ASCII letters, digits, `-` and `_` stay as they
//! are, and so does `.` except first or last; every other byte of the id's UTF-8 is written
//! `%XX` (uppercase hex). So simple ids (`run-1`, `dispatch_l1x2_3`, UUIDs) are their own
//! directory name, `team/a` is `team%2Fa` and never meets `team_a`, and `..` is `%2E%2E`.
//! Upper-case letters are encoded because macOS and Windows file systems ignore case by default
//! (`Run` and `run` would share a directory); Windows device names (`con`, `nul.txt`, `com1`...)
//! get their first letter encoded; the empty id is `%`. A lone surrogate (a code unit UTF-8 has
//! no bytes for) is written `~u` and its four uppercase hex digits (`"a\u{d800}"` is `a~uD800`),
//! a form percent-encoding never writes (`~` itself is `%7E`), so `"\ud800"` and `"\ufffd"`
//! (`%EF%BF%BD`) get directories of their own. Every such name decodes back to its id
//! ([`run_id_units_of`]).
//!
//! Names are kept short enough for every file system: an encoding longer than
//! [`MAX_DIRECT_NAME`] bytes becomes its first bytes (never a cut escape), `~` and the SHA-256 of
//! the id's WTF-8 (its UTF-8 when well-formed; a lone surrogate as the three bytes generalized
//! UTF-8 gives it, which no UTF-8 text holds). The hash's `~` is followed by a lowercase hex
//! digit, a surrogate's by `u`, and a direct name holds no other `~`, so the forms never meet,
//! even with case ignored. A hashed name is not reversible by itself; the run's `run.json` holds
//! the id ([`run_id_of`] says `None` for it). Every step is linear in the id's length.

use std::path::{Path, PathBuf};

use percent_encoding::{percent_decode_str, percent_encode_byte};
use sha2::{Digest, Sha256};

use crate::canonical::lower_hex;

/// The longest directory name written as the plain encoding of the id, in bytes.
pub const MAX_DIRECT_NAME: usize = 128;

/// How many bytes of the encoding a hashed name keeps before its `~`.
const HASHED_PREFIX: usize = 48;

/// Separates the kept prefix of a long id's encoding from the id's SHA-256.
const HASH_MARK: char = '~';

/// Starts the escape of a lone surrogate: `~u` and four uppercase hex digits.
const SURROGATE_MARK: &str = "~u";

/// The length of a lone surrogate's escape (`~uD800`).
const SURROGATE_ESCAPE: usize = 6;

/// The name of the empty run id's directory.
const EMPTY: &str = "%";

/// Windows device names: a file whose name is one of these (before its first `.`) opens the
/// device, whatever its case.
const DEVICE_NAMES: [&str; 4] = ["con", "prn", "aux", "nul"];

/// The `run.json` field holding a run id that is not well-formed UTF-16 (a lone surrogate),
/// exactly: its `runId` holds U+FFFD for each lone surrogate (JSON text cannot hold one), so
/// `a\ud800`, `a\udc00` and `a\ufffd` would all read back as `a\u{FFFD}`. Written only for
/// such ids, by [`escaped_id_utf16`]; read back by [`unescaped_id_units`].
pub const RUN_ID_ESCAPED: &str = "runIdEscaped";

/// The run id whose UTF-16 code units are `units`, escaped for [`RUN_ID_ESCAPED`] when it is
/// not well-formed (else `None`): each lone surrogate is written `\uXXXX` (lowercase hex) and
/// each backslash `\\`, everything else as it is, so the text reads back to exactly `units`.
pub fn escaped_id_utf16(units: &[u16]) -> Option<String> {
    if String::from_utf16(units).is_ok() {
        return None;
    }
    let mut escaped = String::with_capacity(units.len() + 8);
    for item in char::decode_utf16(units.iter().copied()) {
        match item {
            Ok('\\') => escaped.push_str("\\\\"),
            Ok(c) => escaped.push(c),
            Err(e) => escaped.push_str(&format!("\\u{:04x}", e.unpaired_surrogate())),
        }
    }
    Some(escaped)
}

/// The UTF-16 code units of a run id escaped by [`escaped_id_utf16`]. Lenient: a backslash
/// starting neither escape stands for itself.
pub fn unescaped_id_units(escaped: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(escaped.len());
    let mut rest = escaped;
    while let Some(at) = rest.find('\\') {
        units.extend(rest[..at].encode_utf16());
        let tail = &rest[at + 1..];
        let hex = tail
            .strip_prefix('u')
            .and_then(|t| t.get(..4))
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|h| u16::from_str_radix(h, 16).ok());
        if let Some(unit) = hex {
            units.push(unit);
            rest = &tail[5..];
        } else if let Some(after) = tail.strip_prefix('\\') {
            units.push(u16::from(b'\\'));
            rest = after;
        } else {
            units.push(u16::from(b'\\'));
            rest = tail;
        }
    }
    units.extend(rest.encode_utf16());
    units
}

/// The directory name of run `run_id` (see the module documentation).
pub fn dir_name(run_id: &str) -> String {
    dir_name_utf16(&run_id.encode_utf16().collect::<Vec<u16>>())
}

/// The directory name of the run id whose UTF-16 code units are `units`, well-formed or not
/// (see the module documentation): what JavaScript's string is, unchanged.
pub fn dir_name_utf16(units: &[u16]) -> String {
    if units.is_empty() {
        return EMPTY.to_string();
    }
    let items: Vec<Result<char, u16>> = char::decode_utf16(units.iter().copied())
        .map(|item| item.map_err(|e| e.unpaired_surrogate()))
        .collect();
    let stem: String = items
        .iter()
        .map(|item| item.unwrap_or(char::REPLACEMENT_CHARACTER))
        .take_while(|&c| c != '.')
        .take(5)
        .collect();
    let device = is_device_name(&stem);
    let last = items.len() - 1;
    let mut name = String::with_capacity(units.len());
    let mut wtf8 = Vec::with_capacity(units.len());
    for (i, item) in items.iter().enumerate() {
        let c = match *item {
            Ok(c) => c,
            Err(unit) => {
                name.push_str(SURROGATE_MARK);
                name.push_str(&format!("{unit:04X}"));
                wtf8.extend_from_slice(&wtf8_of_surrogate(unit));
                continue;
            }
        };
        let mut buf = [0; 4];
        let bytes = c.encode_utf8(&mut buf).as_bytes();
        wtf8.extend_from_slice(bytes);
        for &b in bytes {
            let kept = match b {
                b'a'..=b'z' => !(device && i == 0),
                b'0'..=b'9' | b'-' | b'_' => true,
                b'.' => i != 0 && i != last,
                _ => false,
            };
            if kept {
                name.push(char::from(b));
            } else {
                name.push_str(percent_encode_byte(b));
            }
        }
    }
    if name.len() <= MAX_DIRECT_NAME {
        return name;
    }
    let cut = escape_start(name.as_bytes(), HASHED_PREFIX);
    name.truncate(cut);
    name.push(HASH_MARK);
    name.push_str(&lower_hex(&Sha256::digest(&wtf8)));
    name
}

/// The three bytes generalized UTF-8 (WTF-8) gives the lone surrogate `unit`: `ED A0..BF 80..BF`,
/// bytes no UTF-8 text holds (there `ED` is followed by `80..9F`).
fn wtf8_of_surrogate(unit: u16) -> [u8; 3] {
    [
        0xED,
        0x80 | ((unit >> 6) & 0x3F) as u8,
        0x80 | (unit & 0x3F) as u8,
    ]
}

/// `cut`, moved back to the start of the escape (`%XX` or `~uXXXX`) it falls inside, if any, so
/// a hashed name's prefix never ends in half an escape.
fn escape_start(name: &[u8], cut: usize) -> usize {
    let back = |mark: u8, len: usize| (1..len).find(|&b| cut >= b && name[cut - b] == mark);
    match back(b'~', SURROGATE_ESCAPE).or_else(|| back(b'%', 3)) {
        Some(b) => cut - b,
        None => cut,
    }
}

/// Whether `stem` (an id's text before its first `.`) names a Windows device once its letters
/// are lowercase (`con`, `nul.txt`, `com1`, `lpt9.log`), so the id's first letter must be encoded.
fn is_device_name(stem: &str) -> bool {
    match stem.as_bytes() {
        [b'c', b'o', b'm', d] | [b'l', b'p', b't', d] => d.is_ascii_digit(),
        _ => DEVICE_NAMES.contains(&stem),
    }
}

/// The UTF-16 code units of the run id whose directory is named `name`, or `None` when `name`
/// is not a name [`dir_name_utf16`] gives a short id (a hashed long id, or a directory someone
/// else made: see `run.json` for the id).
pub fn run_id_units_of(name: &str) -> Option<Vec<u16>> {
    if name == EMPTY {
        return Some(Vec::new());
    }
    let mut units = Vec::with_capacity(name.len());
    let mut rest = name;
    while !rest.is_empty() {
        let (text, after) = match rest.find(HASH_MARK) {
            Some(at) => rest.split_at(at),
            None => (rest, ""),
        };
        units.extend(percent_decode_str(text).decode_utf8().ok()?.encode_utf16());
        if after.is_empty() {
            break;
        }
        let hex = after.strip_prefix(SURROGATE_MARK)?.get(..4)?;
        if !hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b))
        {
            return None;
        }
        units.push(u16::from_str_radix(hex, 16).ok()?);
        rest = &after[SURROGATE_ESCAPE..];
    }
    // Only the one name dir_name_utf16 gives is accepted, so the mapping stays one-to-one.
    (dir_name_utf16(&units) == name).then_some(units)
}

/// The run id whose directory is named `name`, when it is well-formed text (see
/// [`run_id_units_of`]; an id with a lone surrogate is `None` here).
pub fn run_id_of(name: &str) -> Option<String> {
    String::from_utf16(&run_id_units_of(name)?).ok()
}

/// The directory of run `run_id` under the audit root `root`.
pub fn run_dir(root: &Path, run_id: &str) -> PathBuf {
    root.join(dir_name(run_id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    /// Ids that are awkward as file names: separators, dots, case, devices, unicode, length.
    fn awkward_ids() -> Vec<String> {
        let mut ids: Vec<String> = [
            "",
            "team/a",
            "team_a",
            "team%2Fa",
            "team\\a",
            "team:a",
            ".",
            "..",
            "...",
            ".hidden",
            "trailing.",
            "a.b",
            "a..b",
            "../escape",
            "a/../b",
            "/abs",
            "C:\\x",
            "Run",
            "run",
            "RUN",
            "con",
            "CON",
            "con.txt",
            "nul",
            "com1",
            "lpt9.log",
            "comx",
            "console",
            "aux_",
            "a b",
            " lead",
            "tab\t",
            "nl\n",
            "nul\0byte",
            "~",
            "a~b",
            "%",
            "%%",
            "%41",
            "é",
            "e\u{301}",
            "日本語",
            "emoji 😀",
            "\u{202e}rtl",
            "*?<>|\"",
            "run-1",
            "dispatch_lz_1",
            "550e8400-e29b-41d4-a716-446655440000",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        ids.push("a".repeat(MAX_DIRECT_NAME));
        ids.push("a".repeat(MAX_DIRECT_NAME + 1));
        ids.push("a".repeat(10_000));
        ids.push(format!("{}b", "a".repeat(10_000)));
        ids.push("😀".repeat(40));
        ids.push(format!("{}%", "x".repeat(HASHED_PREFIX - 1)));
        ids
    }

    #[test]
    fn awkward_ids_get_distinct_safe_names_that_round_trip() {
        let ids = awkward_ids();
        let mut names = HashSet::new();
        for id in &ids {
            let name = dir_name(id);
            assert!(!name.is_empty(), "{id:?}");
            assert!(
                name.len() <= MAX_DIRECT_NAME,
                "{id:?} -> {} bytes",
                name.len()
            );
            assert!(
                name.bytes().all(|b| b.is_ascii_lowercase()
                    || b.is_ascii_digit()
                    || b"-_.%~ABCDEF".contains(&b)),
                "{id:?} -> {name}"
            );
            assert!(!name.starts_with('.') && !name.ends_with('.'), "{name}");
            let lower = name.to_ascii_lowercase();
            assert!(
                !is_device_name(lower.split('.').next().unwrap_or(&lower)),
                "{id:?} -> {name}"
            );
            // Distinct even on a file system that ignores case.
            assert!(
                names.insert(name.to_ascii_lowercase()),
                "{id:?} -> {name} is taken"
            );
            if name.contains(HASH_MARK) {
                assert_eq!(run_id_of(&name), None, "{id:?}");
                assert!(id.len() > MAX_DIRECT_NAME / 3, "{id:?}");
            } else {
                assert_eq!(run_id_of(&name).as_deref(), Some(id.as_str()), "{name}");
            }
        }
    }

    #[test]
    fn simple_ids_are_their_own_names() {
        for id in ["run-1", "r", "plan-1", "dispatch_lz3k_1a", "a.b", "x_y-z.0"] {
            assert_eq!(dir_name(id), id);
        }
    }

    #[test]
    fn names_that_collided_before_are_apart() {
        let cases = [
            ("team/a", "team%2Fa"),
            ("team_a", "team_a"),
            ("team a", "team%20a"),
            ("..", "%2E%2E"),
            (".", "%2E"),
            ("Run", "%52un"),
            ("con", "%63on"),
            ("con.txt", "%63on.txt"),
            ("é", "%C3%A9"),
            ("", "%"),
            ("%", "%25"),
        ];
        for (id, name) in cases {
            assert_eq!(dir_name(id), name, "{id:?}");
        }
    }

    #[test]
    fn names_dir_name_does_not_give_are_not_run_ids() {
        // Other spellings of an id's name would make two directories for one run.
        for name in [
            "%2e%2e", "%61", "team%2fa", "%2", "%zz", "%FF", ".", "..", ".x", "x.", "Run", "con",
            "a~b", "%C3", "%%",
        ] {
            assert_eq!(run_id_of(name), None, "{name}");
        }
    }

    #[test]
    fn run_dir_is_one_component_under_the_root() {
        let root = Path::new("/audit");
        for id in awkward_ids() {
            let dir = run_dir(root, &id);
            assert_eq!(dir.parent(), Some(root), "{id:?}");
        }
    }

    /// Ids as JavaScript may hold them: code units drawn from letters, `.`, `~`, `%`, `u`,
    /// hex digits, U+FFFD, a non-BMP pair's halves and other lone surrogates, so the escapes
    /// the names use and the units that look like them meet often.
    fn units() -> impl Strategy<Value = Vec<u16>> {
        let unit = prop_oneof![
            Just(u16::from(b'a')),
            Just(u16::from(b'A')),
            Just(u16::from(b'.')),
            Just(u16::from(b'~')),
            Just(u16::from(b'%')),
            Just(u16::from(b'u')),
            Just(u16::from(b'D')),
            Just(u16::from(b'8')),
            Just(0xFFFD),
            Just(0xD83D),
            Just(0xDE00),
            0xD800u16..=0xDFFF,
            any::<u16>(),
        ];
        proptest::collection::vec(unit, 0..80)
    }

    /// The checks every name must pass: one safe path component, bounded, decoding to the id
    /// when not hashed.
    fn assert_safe_name(units: &[u16], name: &str) {
        assert!(
            !name.is_empty() && name.len() <= MAX_DIRECT_NAME,
            "{units:X?} -> {name}"
        );
        assert!(name != "." && name != "..", "{units:X?}");
        assert!(!name.starts_with('.') && !name.ends_with('.'), "{name}");
        assert!(
            name.bytes().all(|b| b.is_ascii_lowercase()
                || b.is_ascii_digit()
                || b"-_.%~uABCDEF".contains(&b)),
            "{units:X?} -> {name}"
        );
        let path = Path::new("/audit").join(name);
        assert_eq!(path.parent(), Some(Path::new("/audit")), "{name}");
        let hashed = name
            .match_indices(HASH_MARK)
            .any(|(at, _)| !name[at + 1..].starts_with('u'));
        if hashed {
            assert_eq!(run_id_units_of(name), None, "{name}");
        } else {
            assert_eq!(run_id_units_of(name).as_deref(), Some(units), "{name}");
        }
    }

    proptest! {
        #[test]
        fn distinct_code_units_get_distinct_safe_names(
            drawn in proptest::collection::vec(units(), 1..24)
        ) {
            // Each id with its near twins: lone surrogates as U+FFFD (the lossy reading of
            // it), its first unit dropped, and one more lone surrogate at the end.
            let mut ids: Vec<Vec<u16>> = Vec::new();
            for id in drawn {
                let lossy: Vec<u16> = String::from_utf16_lossy(&id).encode_utf16().collect();
                ids.push(lossy);
                ids.push(id.iter().skip(1).copied().collect());
                ids.push(id.iter().copied().chain([0xDC00]).collect());
                ids.push(id);
            }
            let distinct: HashSet<&Vec<u16>> = ids.iter().collect();
            let mut names = HashSet::new();
            for id in &distinct {
                let name = dir_name_utf16(id);
                assert_safe_name(id, &name);
                // Distinct even on a file system that ignores case.
                prop_assert!(names.insert(name.to_ascii_lowercase()), "{:X?} -> {} is taken", id, name);
            }
        }

        #[test]
        fn well_formed_ids_are_named_as_their_text(id in "\\PC{0,60}") {
            let units: Vec<u16> = id.encode_utf16().collect();
            prop_assert_eq!(dir_name_utf16(&units), dir_name(&id));
        }
    }

    #[test]
    fn lone_surrogates_get_an_escape_of_their_own() {
        let cases: [(&[u16], &str); 9] = [
            (&[0xD800], "~uD800"),
            (&[0xFFFD], "%EF%BF%BD"),
            (&[0x61, 0xDC00, 0x62], "a~uDC00b"),
            (&[0x61, 0xFFFD, 0x62], "a%EF%BF%BDb"),
            (&[0xDC00, 0xD800], "~uDC00~uD800"),
            (&[0xD83D, 0xDE00], "%F0%9F%98%80"),
            (&[0x2E, 0xD800, 0x2E], "%2E~uD800%2E"),
            (&[0x63, 0x6F, 0x6E, 0xD800], "con~uD800"),
            (&[0x7E, 0x75, 0x44, 0x38, 0x30, 0x30], "%7Eu%44800"),
        ];
        for (units, name) in cases {
            assert_eq!(dir_name_utf16(units), name, "{units:X?}");
            assert_eq!(run_id_units_of(name).as_deref(), Some(units), "{name}");
        }
        // A pair written as two escapes, lowercase hex and a short escape are no names it gives.
        for name in [
            "~uD83D~uDE00",
            "~ud800",
            "~uD80",
            "~uD80G",
            "~u0041",
            "~x",
            "~",
        ] {
            assert_eq!(run_id_units_of(name), None, "{name}");
        }
    }

    #[test]
    fn long_ids_with_lone_surrogates_are_hashed_after_whole_escapes() {
        // An escape that fits before the cut is kept whole; one the cut would split is left out.
        for (letters, prefix) in [
            (42, format!("{}~uD800", "a".repeat(42))),
            (45, "a".repeat(45)),
        ] {
            let mut units: Vec<u16> = vec![u16::from(b'a'); letters];
            units.extend([0xD800; 30]);
            let name = dir_name_utf16(&units);
            let (kept, hash) = name.rsplit_once(HASH_MARK).expect("hashed");
            assert_eq!(kept, prefix);
            assert!(
                hash.len() == 64
                    && hash
                        .bytes()
                        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
                "{name}"
            );
            assert_eq!(run_id_units_of(&name), None, "{name}");
        }
        let mut units: Vec<u16> = vec![u16::from(b'a'); 45];
        units.extend([0xD800; 30]);
        let name = dir_name_utf16(&units);
        // The U+FFFD twin of a long id is another name.
        let twin: Vec<u16> = units
            .iter()
            .map(|&u| if u == 0xD800 { 0xFFFD } else { u })
            .collect();
        assert_ne!(dir_name_utf16(&twin), name);
        // Well-formed long ids keep the names they had: the SHA-256 of their UTF-8.
        let long = "a".repeat(200);
        assert_eq!(
            dir_name(&long),
            format!(
                "{}~{}",
                "a".repeat(HASHED_PREFIX),
                lower_hex(&Sha256::digest(long.as_bytes()))
            )
        );
    }

    /// A run id that is not well-formed UTF-16 is kept exactly in run.json beside its display
    /// form: ids differing only in a lone surrogate (or in U+FFFD) read back apart.
    #[test]
    fn ids_escape_for_run_json_and_read_back_exactly() {
        let ids: Vec<Vec<u16>> = vec![
            vec![0x61, 0xD800],
            vec![0x61, 0xDC00],
            vec![0x61, 0xFFFD],
            vec![0xDBFF],
            vec![0x5C, 0xD800, 0x5C],
            "a\\ud800".encode_utf16().collect(),
            vec![0xD83D, 0xDE00, 0xD83D],
            vec![0xDC00, 0xD800],
            "plain".encode_utf16().collect(),
            "😀\\x".encode_utf16().collect(),
            vec![],
        ];
        let mut seen = std::collections::HashSet::new();
        for units in &ids {
            let escaped = escaped_id_utf16(units);
            assert_eq!(
                escaped.is_some(),
                String::from_utf16(units).is_err(),
                "{units:x?}"
            );
            if let Some(escaped) = &escaped {
                assert_eq!(unescaped_id_units(escaped), *units, "{escaped}");
            }
            // what run.json holds: the display form, and the exact one where it differs
            let written = (String::from_utf16_lossy(units), escaped);
            assert!(seen.insert(written.clone()), "{written:?} twice");
        }
        assert_eq!(
            escaped_id_utf16(&[0x61, 0xD800]).as_deref(),
            Some("a\\ud800")
        );
        assert_eq!(
            escaped_id_utf16(&[0x5C, 0xDC00]).as_deref(),
            Some("\\\\\\udc00")
        );
        // lenient: a lone backslash or a short escape stands for itself
        assert_eq!(
            unescaped_id_units("a\\"),
            "a\\".encode_utf16().collect::<Vec<_>>()
        );
        assert_eq!(
            unescaped_id_units("\\u12"),
            "\\u12".encode_utf16().collect::<Vec<_>>()
        );
    }
}
