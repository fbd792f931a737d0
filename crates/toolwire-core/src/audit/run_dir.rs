//! Run ids as directory names, one-to-one: the directory of run `id` under an audit root is
//! `<root>/<dir_name(id)>`, and two different ids never share a directory on any platform the
//! package ships for.
//!
//! The name is the id percent-encoded: lowercase ASCII letters, digits, `-` and `_` stay as they
//! are, and so does `.` except first or last; every other byte of the id's UTF-8 is written
//! `%XX` (uppercase hex). So simple ids (`run-1`, `dispatch_l1x2_3`, UUIDs) are their own
//! directory name, `team/a` is `team%2Fa` and never meets `team_a`, and `..` is `%2E%2E`.
//! Upper-case letters are encoded because macOS and Windows file systems ignore case by default
//! (`Run` and `run` would share a directory); Windows device names (`con`, `nul.txt`, `com1`...)
//! get their first letter encoded; the empty id is `%`.
//!
//! Names are kept short enough for every file system: an encoding longer than
//! [`MAX_DIRECT_NAME`] bytes becomes its first bytes, `~` and the SHA-256 of the id (`~` never
//! appears in a direct name, so the two forms cannot meet). Such a name is not reversible by
//! itself; the run's `run.json` holds the id ([`run_id_of`] says `None` for it).

use std::path::{Path, PathBuf};

use percent_encoding::{percent_decode_str, percent_encode_byte};
use sha2::{Digest, Sha256};

use super::canonical::lower_hex;

/// The longest directory name written as the plain encoding of the id, in bytes.
pub const MAX_DIRECT_NAME: usize = 128;

/// How many bytes of the encoding a hashed name keeps before its `~`.
const HASHED_PREFIX: usize = 48;

/// Separates the kept prefix of a long id's encoding from the id's SHA-256.
const HASH_MARK: char = '~';

/// The name of the empty run id's directory.
const EMPTY: &str = "%";

/// Windows device names: a file whose name is one of these (before its first `.`) opens the
/// device, whatever its case.
const DEVICE_NAMES: [&str; 4] = ["con", "prn", "aux", "nul"];

/// The directory name of run `run_id` (see the module documentation).
pub fn dir_name(run_id: &str) -> String {
    if run_id.is_empty() {
        return EMPTY.to_string();
    }
    let bytes = run_id.as_bytes();
    let last = bytes.len() - 1;
    let device = is_device_name(run_id);
    let mut name = String::with_capacity(bytes.len());
    for (i, &b) in bytes.iter().enumerate() {
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
    if name.len() <= MAX_DIRECT_NAME {
        return name;
    }
    let mut cut = HASHED_PREFIX;
    // Never split a `%XX` escape.
    let bytes = name.as_bytes();
    while cut > 0 && (bytes[cut - 1] == b'%' || cut > 1 && bytes[cut - 2] == b'%') {
        cut -= 1;
    }
    name.truncate(cut);
    name.push(HASH_MARK);
    name.push_str(&lower_hex(&Sha256::digest(run_id.as_bytes())));
    name
}

/// Whether `run_id` names a Windows device once its letters are lowercase (`con`, `nul.txt`,
/// `com1`, `lpt9.log`), so its first letter must be encoded.
fn is_device_name(run_id: &str) -> bool {
    let stem = run_id.split('.').next().unwrap_or(run_id);
    match stem.as_bytes() {
        [b'c', b'o', b'm', d] | [b'l', b'p', b't', d] => d.is_ascii_digit(),
        _ => DEVICE_NAMES.contains(&stem),
    }
}

/// The run id whose directory is named `name`, or `None` when `name` is not a name
/// [`dir_name`] gives a short id (a hashed long id, or a directory someone else made: see
/// `run.json` for the id).
pub fn run_id_of(name: &str) -> Option<String> {
    if name == EMPTY {
        return Some(String::new());
    }
    let id = percent_decode_str(name).decode_utf8().ok()?.into_owned();
    // Only the one name dir_name gives is accepted, so the mapping stays one-to-one.
    (dir_name(&id) == name).then_some(id)
}

/// The directory of run `run_id` under the audit root `root`.
pub fn run_dir(root: &Path, run_id: &str) -> PathBuf {
    root.join(dir_name(run_id))
}

#[cfg(test)]
mod tests {
    use super::*;
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
            assert!(
                !is_device_name(&name.to_ascii_lowercase()),
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
}
