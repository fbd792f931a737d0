//! Programs a line's own segments could put in place before they run: every segment is
//! analyzed before any runs, so in `cp /usr/bin/env bin/git && git touch x` (with `bin` before
//! `/usr/bin` on PATH) the second `git` is found in `/usr/bin` by the analysis and in `bin` by
//! the shell.
//!
//! The rule: in a line of more than one segment where some segment may write files (any
//! program but those known to write none, [`repo_writes`](super::repo_writes)), every
//! directory another program is looked up through must be one the line cannot write. A line
//! whose segments all write no file (`ls | head -n 3`, `git log | head`) cannot change its
//! programs, whatever PATH holds (`node_modules/.bin` first under `npm run`, `~/.local/bin`). A trusted dir counts as such, and so, when the process is not root, does an
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

use super::repo_writes::first_file_writers;
use super::resolve::{path_entry_dir, Executable};
use super::SegmentVerdict;

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

/// Why the program `typed`, found as `found`, could be another one when it runs after other
/// segments of its line that write files (the caller names them): a PATH directory searched up to where it was found, or the directory
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
            "`{typed}` is looked up through `{}` ({what})",
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

/// Refuses every approved segment of `verdicts` whose program is
/// [replaceable](SegmentVerdict::replaceable) when another approved segment of the line may
/// write files ([`first_file_writers`]), naming it (bounded). Linear: two writers are enough to
/// find, for each segment, another one.
pub fn refuse_replaceable_beside_writers(verdicts: &mut [SegmentVerdict]) {
    let writers = first_file_writers(verdicts);
    for i in 0..verdicts.len() {
        let Some(why) = verdicts[i].replaceable.take() else {
            continue;
        };
        let Some(&writer) = writers.iter().find(|&&w| w != i) else {
            continue;
        };
        if verdicts[i].approved {
            let shown: String = verdicts[writer].argv.join(" ").chars().take(200).collect();
            verdicts[i].approved = false;
            verdicts[i].reason = Some(format!(
                "{why}, which `{shown}` in this line may write before it runs: beside a segment that may write files, a program runs only from directories only root can write"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use crate::policy::shell::tests::Sandbox;
    use crate::policy::shell::{analyze_command, AnalyzeOptions};

    /// Lines under a PATH whose first entry the line could write, with whether they pass: a line
    /// whose segments all write no file runs (seen by a new user: `npm run`, `npx` and `tsx`
    /// put `node_modules/.bin` first, and `~/.local/bin`, `~/.cargo/bin`, pyenv shims and nvm
    /// do the same, so `ls | head -n 3` was refused); beside a segment that may write files,
    /// every program looked up through that entry is refused.
    const LINES: &[(&str, bool)] = &[
        ("ls | head -n 3", true),
        ("ls && git status", true),
        ("git log | head -n 3", true),
        ("cat README.md | grep -n TODO", true),
        ("ls; ls -la | wc -l", true),
        ("git status && git diff | head", true),
        // A segment that may write files: the others (and git) may be another program.
        ("cp x y && ls", false),
        ("ls && cp x y", false),
        ("cp x y | head -n 3", false),
        ("cp /bin/true UNSAFE/ls && ls", false),
        ("cp /bin/true UNSAFE/git && git status", false),
        ("chmod +x UNSAFE/head; ls | head", false),
        // Git writing the work tree (never `.git`, but perhaps a program on PATH).
        ("git checkout HEAD -- ls && ls", false),
        ("git stash; ls", false),
        ("git reset --hard && git log | head", false),
        ("git add x && git status | head", true),
        // One segment cannot change its own program.
        ("cp x y", true),
    ];

    #[test]
    fn a_path_the_line_could_write_matters_only_beside_a_writer() {
        let sandbox = Sandbox::new("line-writes-readers");
        let ws = sandbox.dir("ws");
        sandbox.dir("ws/.git/hooks");
        std::fs::write(ws.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
        let programs = ["ls", "head", "git", "cat", "grep", "wc", "cp", "chmod"];
        let base = sandbox.allowlisting(ws.clone(), &programs);
        let bin = base.trusted_dirs[0].clone();
        // In the workspace (`npm run`'s node_modules/.bin), writable by a group (a shared
        // ~/.local/bin), and missing (a shim dir not made yet).
        let group = sandbox.dir("group/bin");
        std::fs::set_permissions(&group, std::fs::Permissions::from_mode(0o775)).unwrap();
        let unsafe_dirs = [
            sandbox.dir("ws/node_modules/.bin"),
            group,
            sandbox.root.join("missing"),
        ];
        for dir in &unsafe_dirs {
            for runs_as_root in [false, true] {
                let options = AnalyzeOptions {
                    path: Some(format!("{}:{}", dir.display(), bin.display())),
                    runs_as_root,
                    ..base.clone()
                };
                for (line, want) in LINES {
                    let line = line.replace("UNSAFE", &dir.display().to_string());
                    let analysis = analyze_command(&line, &options);
                    let reason = analysis.reason.clone().unwrap_or_default();
                    assert_eq!(
                        analysis.approved,
                        *want,
                        "{line} with {} first on PATH (root: {runs_as_root}): {reason}",
                        dir.display()
                    );
                    if !want {
                        assert!(reason.contains("may write"), "{line}: {reason}");
                    }
                }
            }
        }
        // The refusal names the entry and the segment that may write it.
        let options = AnalyzeOptions {
            path: Some(format!("{}:{}", unsafe_dirs[0].display(), bin.display())),
            runs_as_root: false,
            ..base.clone()
        };
        let reason = analyze_command("cp x y && ls", &options).reason.unwrap();
        assert!(
            reason.contains("node_modules/.bin") && reason.contains("`cp x y` in this line"),
            "{reason}"
        );
    }

    /// A program known to write no file is known only by its real file: one of that name
    /// outside the trusted dirs (allowlisted by a path) may be anything, so it counts as a
    /// writer beside the others.
    #[test]
    fn a_reader_outside_the_trusted_dirs_may_write() {
        let sandbox = Sandbox::new("line-writes-untrusted-reader");
        let ws = sandbox.dir("ws");
        let programs = ["ls", "head"];
        let base = sandbox.allowlisting(ws.clone(), &programs);
        let bin = base.trusted_dirs[0].clone();
        let local = sandbox.dir("ws/node_modules/.bin");
        sandbox.exe("ws/node_modules/.bin/ls");
        let options = AnalyzeOptions {
            allowlist: vec!["head".into(), format!("{}/*", local.display())],
            path: Some(format!("{}:{}", local.display(), bin.display())),
            runs_as_root: false,
            ..base
        };
        assert!(analyze_command("ls", &options).approved);
        let analysis = analyze_command("ls | head -n 3", &options);
        assert!(!analysis.approved, "{:?}", analysis.reason);
        assert!(analysis
            .reason
            .unwrap()
            .contains("`ls` in this line may write"));
    }
}
