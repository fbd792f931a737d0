//! Programs a line's own segments could put in place before they run: every segment is
//! analyzed before any runs, so in `cp /usr/bin/env bin/git && git touch x` (with `bin` before
//! `/usr/bin` on PATH) the second `git` is found in `/usr/bin` by the analysis and in `bin` by
//! the shell.
//!
//! The rule (no list of writing programs is needed, and none could be complete): in a line of
//! more than one segment, every directory a program is looked up through must be one the line
//! cannot write. A trusted dir counts as such, and so, when the process is not root, does an
//! existing directory outside the workspace owned by root and writable by no one else (nor any
//! directory above it, a sticky one excepted): writing there needs root, which is outside the
//! threat model, as writing into the trusted dirs is. A PATH entry that does not exist yet, a
//! relative one, one in the workspace (the working directory or the workspace root) or one the
//! user can write is not; nor is such a directory when a program typed with a `/` lies in it.
//! A line run as root ([`AnalyzeOptions::runs_as_root`](super::AnalyzeOptions)) can write
//! everywhere: for it only the trusted dirs count. A line
//! of one segment cannot change its own program before it runs.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::resolve::{path_entry_dir, Executable};

/// Whether no one but root can change what the directory `dir` holds: it and every directory
/// above it exist, are owned by root and are writable by no group or other user (a sticky
/// directory above it, such as `/tmp`, protects the names in it).
pub fn root_managed(dir: &Path) -> bool {
    let Ok(real) = std::fs::canonicalize(dir) else {
        return false;
    };
    real.ancestors().enumerate().all(|(depth, dir)| {
        std::fs::metadata(dir).is_ok_and(|meta| {
            let open = meta.mode() & 0o022 != 0;
            let sticky = meta.mode() & 0o1000 != 0;
            meta.uid() == 0 && (!open || (depth > 0 && sticky))
        })
    })
}

/// Who runs the line and what it must not write: the (canonical) trusted dirs, the workspace
/// directories (the working directory and the workspace root, which the agent's own tools
/// write) and whether the line runs as root.
pub struct Writer<'a> {
    /// The canonical trusted dirs.
    pub trusted: &'a [PathBuf],
    /// The working directory and the workspace root.
    pub workspace: Vec<&'a Path>,
    /// Whether the line runs as root (who can write every directory).
    pub as_root: bool,
}

/// Whether `dir` is one of the trusted dirs or, for a line not run as root,
/// [root-managed](root_managed) and outside the workspace directories.
fn unwritable(dir: &Path, writer: &Writer) -> bool {
    let (trusted, workspace) = (writer.trusted, &writer.workspace);
    let Ok(real) = std::fs::canonicalize(dir) else {
        return false;
    };
    if trusted.contains(&real) {
        return true;
    }
    let in_workspace = workspace
        .iter()
        .any(|w| std::fs::canonicalize(w).is_ok_and(|w| real.starts_with(w)));
    !writer.as_root && !in_workspace && root_managed(&real)
}

/// Why the program `typed`, found as `found`, could be another one when it runs after earlier
/// segments of its line: a PATH directory searched up to where it was found, or the directory
/// it was found or really lies in, is one the line may write ([`unwritable`] says which are
/// not). `None` when every one is safe. `cwd` is where relative PATH entries lead.
pub fn replaceable(
    typed: &str,
    found: &Executable,
    cwd: Option<&Path>,
    path_var: &str,
    writer: &Writer,
) -> Option<String> {
    let refuse = |dir: &Path, what: &str| {
        Some(format!(
            "`{typed}` is looked up through `{}` ({what}), which this line's other segments may write before it runs: a line of more than one segment runs only programs from directories only root can write",
            dir.display()
        ))
    };
    let found_dir = found.found.parent().unwrap_or(Path::new("/"));
    if !typed.contains('/') {
        for entry in path_var.split(':') {
            let Ok(dir) = path_entry_dir(entry, cwd) else {
                return refuse(Path::new(entry), "a PATH entry");
            };
            if !entry.starts_with('/') || !unwritable(&dir, writer) {
                return refuse(&dir, "a PATH entry");
            }
            if dir == found_dir {
                break;
            }
        }
    }
    for (dir, what) in [
        (found_dir, "where it was found"),
        (
            found.real.parent().unwrap_or(Path::new("/")),
            "where it lies",
        ),
    ] {
        if !unwritable(dir, writer) {
            return refuse(dir, what);
        }
    }
    None
}
