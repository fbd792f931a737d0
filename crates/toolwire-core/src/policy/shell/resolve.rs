//! Executable resolution: PATH lookup for bare names (every entry, relative ones against the
//! working directory, as the shell does), `cwd` for relative paths, the real path
//! of what was found (symlinks resolved), and the names it may be matched by in trusted dirs.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::line_writes::root_managed;

/// Whether `path` is a regular file with an execute bit (symlinks followed).
pub(crate) fn is_executable_file(path: &Path) -> bool {
    match std::fs::metadata(path) {
        Ok(meta) => meta.is_file() && meta.permissions().mode() & 0o111 != 0,
        Err(_) => false,
    }
}

/// The most symlinks followed while reading the chain from a found path to its real file.
const MAX_SYMLINK_HOPS: usize = 40;

/// An executable as the analyzer found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Executable {
    /// Where it was found: a PATH entry joined with the name, or the typed path (joined to the
    /// `cwd` when relative). May be a symlink.
    pub found: PathBuf,
    /// Its real path: every symlink resolved.
    pub real: PathBuf,
}

impl Executable {
    /// The real file's name.
    pub fn real_name(&self) -> &str {
        file_name(&self.real)
    }

    /// The names a bare allowlist entry may match this executable by, and the paths of the
    /// trusted links lending them (which a path entry may match besides the real path):
    /// none unless the real file lies directly in a trusted dir, or is a [system
    /// file](system_file) reached through a link in one (`/usr/bin/npm` ->
    /// `../lib/node_modules/npm/bin/npm-cli.js`, as nodesource, the official tarball and the
    /// node images install it). Then the real file's name when it lies in a trusted dir, plus
    /// the name of every symlink on the way from [`found`](Self::found) to the real file that
    /// lies in a trusted dir with every later link also in one (`/usr/bin/python3` ->
    /// `python3.11`, placed there by the system). A link in one of `link_dirs`
    /// (`/usr/bin/which` -> `/etc/alternatives/which` -> `/usr/bin/which.debianutils`) is
    /// passed through without lending its own name. A name given only by what was typed or by
    /// a link outside these dirs (`./ls` -> `/usr/bin/rm`) is never one of them. `workspace`
    /// holds the directories the agent's own tools write.
    pub fn trusted_identity(
        &self,
        trusted: &[PathBuf],
        link_dirs: &[PathBuf],
        workspace: &[&Path],
    ) -> TrustedIdentity {
        let mut identity = TrustedIdentity::default();
        let real_trusted = in_trusted_dir(&self.real, trusted);
        if !real_trusted && !system_file(&self.real, workspace) {
            return identity;
        }
        if real_trusted {
            identity.names.push(self.real_name().to_string());
        }
        let Some(links) = symlink_chain(&self.found, &self.real) else {
            return identity;
        };
        for link in links.iter().rev() {
            let link_dir = link
                .parent()
                .and_then(|dir| std::fs::canonicalize(dir).ok());
            let Some(link_dir) = link_dir else { break };
            if link_dirs.contains(&link_dir) {
                continue;
            }
            if !trusted.contains(&link_dir) {
                break;
            }
            let name = file_name(link);
            if !name.is_empty() && !identity.names.iter().any(|known| known == name) {
                identity.names.push(name.to_string());
            }
            if let Some(path) = link_dir.join(name).to_str() {
                identity.links.push(path.to_string());
            }
        }
        identity
    }
}

/// What a program found through the trusted dirs goes by there ([`Executable::trusted_identity`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedIdentity {
    /// The names a bare allowlist entry may match.
    pub names: Vec<String>,
    /// The paths of the links in trusted dirs that lend those names (`/usr/bin/npm`).
    pub links: Vec<String>,
}

/// Whether `real` is a file only root can change, outside the `workspace` directories: owned by
/// root, writable by no group or other user, in a [root-managed](root_managed) directory.
fn system_file(real: &Path, workspace: &[&Path]) -> bool {
    let Ok(meta) = std::fs::metadata(real) else {
        return false;
    };
    let in_workspace = workspace
        .iter()
        .any(|w| std::fs::canonicalize(w).is_ok_and(|w| real.starts_with(w)));
    meta.uid() == 0
        && meta.mode() & 0o022 == 0
        && !in_workspace
        && real.parent().is_some_and(root_managed)
}

/// The last component of `path` as UTF-8 (empty when it has none or is not UTF-8).
fn file_name(path: &Path) -> &str {
    path.file_name()
        .and_then(|name| name.to_str())
        .unwrap_or_default()
}

/// The symlinks from `found` to its real file, in order (empty when `found` is no symlink).
/// `None` when the chain cannot be read, is too long, or no longer ends at `real` (it changed
/// since `real` was computed).
fn symlink_chain(found: &Path, real: &Path) -> Option<Vec<PathBuf>> {
    let mut links = Vec::new();
    let mut current = found.to_path_buf();
    while std::fs::symlink_metadata(&current)
        .ok()?
        .file_type()
        .is_symlink()
    {
        if links.len() == MAX_SYMLINK_HOPS {
            return None;
        }
        let target = std::fs::read_link(&current).ok()?;
        let next = if target.is_absolute() {
            target
        } else {
            current.parent()?.join(target)
        };
        links.push(std::mem::replace(&mut current, next));
    }
    (std::fs::canonicalize(&current).ok()? == real).then_some(links)
}

/// The executable `candidate` with its real path, or why it is not one.
fn real_executable(candidate: &Path) -> Result<Executable, String> {
    if !candidate.exists() {
        return Err(format!("`{}` not found", candidate.display()));
    }
    if !is_executable_file(candidate) {
        return Err(format!(
            "`{}` is not an executable regular file",
            candidate.display()
        ));
    }
    let real = std::fs::canonicalize(candidate)
        .map_err(|e| format!("`{}` cannot be resolved: {e}", candidate.display()))?;
    Ok(Executable {
        found: candidate.to_path_buf(),
        real,
    })
}

/// The directory a PATH entry names, as the shell reads it: an absolute entry as is; an empty
/// entry, `.` and any other relative entry (`bin`, `./tools`) against the working directory
/// `cwd`. An entry starting with `~` is refused (bash expands it, POSIX shells do not), and so
/// is a relative entry when the working directory is unknown.
pub fn path_entry_dir(entry: &str, cwd: Option<&Path>) -> Result<PathBuf, String> {
    if entry.starts_with('/') {
        return Ok(PathBuf::from(entry));
    }
    if entry.starts_with('~') {
        return Err(format!(
            "PATH entry `{entry}` starts with `~`, which shells expand differently"
        ));
    }
    let shown = if entry.is_empty() { "(empty)" } else { entry };
    match cwd {
        Some(dir) => Ok(dir.join(entry)),
        None => Err(format!(
            "PATH entry `{shown}` is relative and the working directory is unknown"
        )),
    }
}

/// Resolves the executable `name` as the shell will: where it was found and its real path.
///
/// A name without `/` is looked up through `path_var` in order, every entry searched: an empty
/// entry, `.` and other relative entries name directories of the working directory `cwd`,
/// exactly as the shell reads them. A name with `/` is taken as is when absolute, else against
/// `cwd`. Without a `cwd`, a relative name or a relative PATH entry reached before the program
/// is found is refused: the analyzer would not know what runs. An empty `path_var` (no PATH)
/// finds nothing.
pub fn resolve_executable(
    name: &str,
    cwd: Option<&Path>,
    path_var: &str,
) -> Result<Executable, String> {
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
    // No PATH at all (what an `env` without PATH gives) finds nothing. A shell given an empty
    // PATH would search the working directory: refusing is the safe side of that difference.
    if path_var.is_empty() {
        return Err(format!("`{name}` not found in PATH (PATH is empty)"));
    }
    for entry in path_var.split(':') {
        let candidate = path_entry_dir(entry, cwd)?.join(name);
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
