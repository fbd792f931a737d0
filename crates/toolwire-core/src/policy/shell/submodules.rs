//! Submodules: `git status`, `git diff` and many others run git inside each submodule, which
//! reads that repository's own configuration (`.git/modules/<name>/config`, or the submodule's
//! own `.git`) and hooks; a `core.fsmonitor` there ran under an approved `git status` (attacker
//! review, repro 1.sh). The submodule's `.git` may lie anywhere in the work tree and needs no
//! `submodule.*` key (the index's gitlink suffices), so rather than chase every repository git
//! may enter, a repository with submodules asks for every subcommand that may enter one: all
//! but [`subcommands::TOP_ONLY`], which read the top repository's refs, objects and index only.

use std::path::Path;

use super::git::subcommands;

/// Whether the git subcommand `sub` with arguments `rest` may run git in a submodule.
pub fn may_enter(sub: Option<&str>, rest: &[String]) -> bool {
    let Some(sub) = sub else {
        return false;
    };
    !subcommands::has(sub, subcommands::TOP_ONLY)
        || rest.iter().any(|a| a.to_lowercase().contains("submodule"))
}

/// The file mode git gives a gitlink (a submodule's commit) in the index: `0o160000`.
const GITLINK_MODE: u32 = 0o160000;

/// Whether the index `bytes` (versions 2 and 3, with `hash` bytes per object id) holds a
/// gitlink; `None` when it cannot be read so.
fn index_gitlinks(bytes: &[u8], hash: usize) -> Option<bool> {
    let u32_at = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    if bytes.get(..4) != Some(b"DIRC") || !matches!(u32_at(4)?, 2 | 3) {
        return None;
    }
    let count = u32_at(8)? as usize;
    let mut at = 12;
    for _ in 0..count {
        if u32_at(at + 24)? == GITLINK_MODE {
            return Some(true);
        }
        let flags_at = at + 40 + hash;
        let flags = u16::from_be_bytes(bytes.get(flags_at..flags_at + 2)?.try_into().ok()?);
        let path_at = flags_at + 2 + if flags & 0x4000 != 0 { 2 } else { 0 };
        let len = bytes.get(path_at..)?.iter().position(|&b| b == 0)?;
        // The entry is padded with 1 to 8 NULs to a multiple of 8 bytes.
        let end = path_at + len;
        at += (end - at + 8) & !7;
    }
    Some(false)
}

/// Whether the repository whose work tree is `root`, git directory `gitdir` and common
/// directory `common` has submodules: a `.gitmodules`, absorbed submodules under
/// `<common>/modules`, or a gitlink in the index. An index that cannot be read (version 4,
/// another layout) counts when its bytes hold a gitlink's mode anywhere.
pub fn present(root: &Path, gitdir: &Path, common: &Path) -> bool {
    if root.join(".gitmodules").exists() || common.join("modules").exists() {
        return true;
    }
    let Ok(index) = std::fs::read(gitdir.join("index")) else {
        return false;
    };
    // SHA-1 or SHA-256 object ids: a wrong guess misreads, but a right one finds the gitlink.
    let read = [20, 32].map(|hash| index_gitlinks(&index, hash));
    if read.contains(&Some(true)) {
        return true;
    }
    !read.contains(&Some(false)) && {
        let mode = GITLINK_MODE.to_be_bytes();
        index.windows(4).any(|w| w == mode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index entry (version 2) of `mode` and `path`, padded as git pads it.
    fn entry(mode: u32, path: &str, hash: usize) -> Vec<u8> {
        let mut out = vec![0u8; 24];
        out.extend(mode.to_be_bytes());
        out.extend([0u8; 12]);
        out.extend(vec![0xab; hash]);
        out.extend((path.len() as u16).to_be_bytes());
        out.extend(path.as_bytes());
        let pad = 8 - out.len() % 8;
        out.extend(vec![0u8; pad]);
        out
    }

    fn index(entries: &[(u32, &str)], hash: usize) -> Vec<u8> {
        let mut out = b"DIRC".to_vec();
        out.extend(2u32.to_be_bytes());
        out.extend((entries.len() as u32).to_be_bytes());
        for (mode, path) in entries {
            out.extend(entry(*mode, path, hash));
        }
        out
    }

    #[test]
    fn gitlinks_are_found_in_the_index() {
        for hash in [20, 32] {
            let files = [(0o100644, "a.txt"), (0o100755, "bin/x1234567")];
            assert_eq!(index_gitlinks(&index(&files, hash), hash), Some(false));
            let with = [
                (0o100644, "a"),
                (0o100644, "abcdefg"),
                (GITLINK_MODE, "sub"),
            ];
            assert_eq!(index_gitlinks(&index(&with, hash), hash), Some(true));
        }
        assert_eq!(index_gitlinks(b"DIRC\0\0\0\x04\0\0\0\x01", 20), None);
    }

    #[test]
    fn subcommands_that_may_enter_a_submodule() {
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        for (sub, rest, want) in [
            ("status", "", true),
            ("diff", "", true),
            ("log", "--oneline", true),
            ("rev-parse", "HEAD", false),
            ("ls-files", "", false),
            ("ls-files", "--recurse-submodules", true),
            ("branch", "--list", false),
        ] {
            assert_eq!(may_enter(Some(sub), &args(rest)), want, "{sub} {rest}");
        }
    }
}
