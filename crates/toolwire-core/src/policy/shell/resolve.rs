//! Executable resolution: PATH lookup for bare names, `cwd` for relative paths, and the real
//! path of what was found (symlinks resolved).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Whether `path` is a regular file with an execute bit (symlinks followed).
fn is_executable_file(path: &Path) -> bool {
    match std::fs::metadata(path) {
        Ok(meta) => meta.is_file() && meta.permissions().mode() & 0o111 != 0,
        Err(_) => false,
    }
}

/// The real path of an executable candidate, or why it is not one.
fn real_executable(candidate: &Path) -> Result<PathBuf, String> {
    if !candidate.exists() {
        return Err(format!("`{}` not found", candidate.display()));
    }
    if !is_executable_file(candidate) {
        return Err(format!(
            "`{}` is not an executable regular file",
            candidate.display()
        ));
    }
    std::fs::canonicalize(candidate)
        .map_err(|e| format!("`{}` cannot be resolved: {e}", candidate.display()))
}

/// Resolves the executable `name` to its real path.
///
/// A name without `/` is looked up through `path_var` (empty, `.` and relative entries are
/// skipped); a name with `/` is taken as is when absolute, else against `cwd` (refused without
/// one).
pub fn resolve_executable(
    name: &str,
    cwd: Option<&Path>,
    path_var: &str,
) -> Result<PathBuf, String> {
    if name.is_empty() {
        return Err("empty command name".to_string());
    }
    if name.contains('/') {
        let candidate = if name.starts_with('/') {
            PathBuf::from(name)
        } else {
            match cwd {
                Some(dir) => dir.join(name),
                None => return Err(format!("relative path `{name}` without a cwd")),
            }
        };
        return real_executable(&candidate);
    }
    for dir in path_var.split(':') {
        if dir.is_empty() || !dir.starts_with('/') {
            continue;
        }
        let candidate = Path::new(dir).join(name);
        if is_executable_file(&candidate) {
            return real_executable(&candidate);
        }
    }
    Err(format!("`{name}` not found in PATH"))
}

/// The real paths of `dirs` that exist (the others can hold nothing).
pub fn canonical_dirs(dirs: &[PathBuf]) -> Vec<PathBuf> {
    dirs.iter()
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .collect()
}

/// Whether the real path `real` is a file directly inside one of the (canonical) `trusted` dirs.
pub fn in_trusted_dir(real: &Path, trusted: &[PathBuf]) -> bool {
    match real.parent() {
        Some(parent) => trusted.iter().any(|t| t == parent),
        None => false,
    }
}
