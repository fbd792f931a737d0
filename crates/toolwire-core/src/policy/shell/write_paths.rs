//! Whether a path a program will write stays in the workspace: resolved as the kernel will
//! when the file is created (each existing symlink on the way followed, `..` taken physically,
//! the missing rest appended), it must lie under the trusted directory and out of any `.git`
//! in it (a repository's configuration and hooks). Read by git's written paths
//! ([`git::written_paths`](super::git)) and the archive extractors ([`extract_paths`](super::extract_paths)).

use std::path::{Component, Path, PathBuf};

/// `path` (relative ones from `dir`) resolved as the kernel will when it is created.
pub fn resolved(dir: &Path, path: &str) -> PathBuf {
    let mut out = match std::fs::canonicalize(dir) {
        Ok(dir) => dir,
        Err(_) => dir.to_path_buf(),
    };
    let mut missing = false;
    for component in Path::new(path).components() {
        match component {
            Component::RootDir => out = PathBuf::from("/"),
            Component::CurDir | Component::Prefix(_) => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                if !missing {
                    match std::fs::canonicalize(&out) {
                        Ok(real) => out = real,
                        Err(_) => missing = std::fs::symlink_metadata(&out).is_err(),
                    }
                }
            }
        }
    }
    out
}

/// Why `who` (how the call is shown: `git clone`, `dpkg -x`) writing `path` (relative ones from
/// `dir`, where it runs) leaves the trusted directory `root` (canonical) or enters a `.git`
/// inside it, or `None`. Without a `root` or a `dir`, an absolute path or one with `..` is
/// refused. A leading `~` is the shell's home directory, outside.
pub fn leaving(who: &str, path: &str, dir: Option<&Path>, root: Option<&Path>) -> Option<String> {
    let shown = super::git::keys::bounded(path);
    let outside = format!("`{who}` would write `{shown}`, outside the workspace");
    if path.starts_with('~') {
        return Some(outside);
    }
    let (Some(root), Some(dir)) = (root, dir) else {
        let loose = path.starts_with('/')
            || Path::new(path)
                .components()
                .any(|c| c == Component::ParentDir);
        return loose.then_some(outside);
    };
    let target = resolved(dir, path);
    let Ok(inner) = target.strip_prefix(root) else {
        return Some(format!(
            "{outside} `{}` (it resolves to `{}`)",
            root.display(),
            target.display()
        ));
    };
    inner
        .components()
        .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
        .then(|| {
            format!("`{who}` would write `{shown}`, inside a `.git` (a repository's configuration and hooks)")
        })
}
