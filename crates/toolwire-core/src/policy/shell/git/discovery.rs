//! Which directories git takes for a repository while it looks for one (`setup.c`,
//! `setup_git_directory_gently_1`): in each directory from where it runs upwards, a `.git`
//! entry (a directory, or a file naming one), else the directory itself when it *is* a git
//! directory (`is_git_directory`: a bare repository such as a `vendor.git` a project carries as
//! plain files, whose configuration and hooks git then uses).

use std::path::Path;

/// Whether git would take `dir` itself for a git directory (`is_git_directory`): it holds
/// `HEAD` (any file or link: git's own check of its content is not repeated, so a directory
/// looking like a repository counts as one) and either `objects/` and `refs/`, or a
/// `commondir` file (a linked worktree's git directory, whose objects and refs are the common
/// directory's).
pub(crate) fn is_git_directory(dir: &Path) -> bool {
    let exists = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok();
    exists("HEAD") && (exists("commondir") || (exists("objects") && exists("refs")))
}

/// Whether git looking for a repository in `dir` stops there: `dir` has a `.git` entry, or is a
/// git directory itself ([`is_git_directory`]).
pub(crate) fn holds_repository(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(".git")).is_ok() || is_git_directory(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::Sandbox;

    #[test]
    fn git_directories_are_told_by_their_entries() {
        let sandbox = Sandbox::new("git-discovery");
        // (entries created, is a git directory)
        let cases: &[(&[&str], bool)] = &[
            (&["HEAD", "objects/", "refs/"], true),
            (&["HEAD", "objects/", "refs/", "config"], true),
            (&["HEAD", "commondir"], true),
            (&["HEAD", "objects/"], false),
            (&["HEAD", "refs/"], false),
            (&["objects/", "refs/"], false),
            (&[], false),
        ];
        for (i, (entries, want)) in cases.iter().enumerate() {
            let dir = sandbox.dir(&format!("d{i}"));
            for entry in *entries {
                match entry.strip_suffix('/') {
                    Some(sub) => std::fs::create_dir(dir.join(sub)).unwrap(),
                    None => std::fs::write(dir.join(entry), "ref: refs/heads/main\n").unwrap(),
                }
            }
            assert_eq!(is_git_directory(&dir), *want, "{entries:?}");
            assert_eq!(holds_repository(&dir), *want, "{entries:?}");
        }
        let plain = sandbox.dir("plain");
        sandbox.dir("plain/.git");
        assert!(holds_repository(&plain) && !is_git_directory(&plain));
    }
}
