//! The configuration git reads besides the repository's (`git help config`, FILES and
//! ENVIRONMENT): the system file (`GIT_CONFIG_SYSTEM`, else `/etc/gitconfig`; none with
//! `GIT_CONFIG_NOSYSTEM`), the global ones (`GIT_CONFIG_GLOBAL`, else
//! `$XDG_CONFIG_HOME/git/config` or `~/.config/git/config`, and `~/.gitconfig`), the files their
//! `include.path` and `includeIf.<condition>.path` name, and `GIT_CONFIG_COUNT` /
//! `GIT_CONFIG_KEY_<n>` and `GIT_CONFIG_PARAMETERS` in the environment. They lie outside the
//! workspace, but an earlier call may have written one (`git worktree add ~/.config/git
//! <branch>` checked a branch's `config` out as the global configuration), and a code-running
//! key there runs for every git call.

use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::subcommands;

/// The most configuration files followed through includes.
const MAX_FILES: usize = 32;
/// The most `GIT_CONFIG_KEY_<n>` read.
const MAX_ENV_KEYS: usize = 100;

/// The process environment as the check reads it (a function, so tests give their own).
pub(super) type Env<'a> = &'a dyn Fn(&str) -> Option<OsString>;

/// The configuration files git reads besides the repository's, each with whether it is the
/// system file.
fn files(env: Env) -> Vec<(PathBuf, bool)> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    let mut files = Vec::new();
    let no_system = set("GIT_CONFIG_NOSYSTEM")
        .is_some_and(|v| !matches!(v.to_str(), Some("0" | "false" | "no" | "off")));
    if !no_system {
        let system =
            set("GIT_CONFIG_SYSTEM").map_or(PathBuf::from("/etc/gitconfig"), PathBuf::from);
        files.push((system, true));
    }
    if let Some(global) = set("GIT_CONFIG_GLOBAL") {
        files.push((PathBuf::from(global), false));
        return files;
    }
    let home = set("HOME").map(PathBuf::from);
    let xdg = set("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|home| home.join(".config")));
    files.extend(xdg.map(|xdg| (xdg.join("git/config"), false)));
    files.extend(home.map(|home| (home.join(".gitconfig"), false)));
    files
}

/// Whether the file at `path` is the administrator's: it and every directory above it belong to
/// root and no one else may write them (a file under `/tmp` is not) (the system file a package installed, such as a cloud SDK's
/// credential helper). A call cannot have written it unless it ran as root, and the analysis
/// refuses what writes outside the workspace.
fn administrators(path: &Path) -> bool {
    let sealed =
        |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.uid() == 0 && m.mode() & 0o022 == 0);
    path.is_absolute() && path.ancestors().all(sealed)
}

/// Whether the code-running key of `entry` can run for subcommand `sub` when it comes from the
/// user's or the system's configuration: `safe.*` is honoured only there (its place), aliases
/// and the tools of refused subcommands (`difftool`, `mergetool`, `help`, `send-email`,
/// `instaweb`) never run for a subcommand the analysis lets run, and credential helpers run only
/// for a subcommand that talks to a remote.
fn runs_for(section: &str, key: &str, sub: Option<&str>) -> bool {
    match section {
        "safe" | "alias" | "difftool" | "mergetool" | "browser" | "man" | "web" | "sendemail"
        | "guitool" | "instaweb" => false,
        "diff" | "merge" if key == "tool" || key == "guitool" => false,
        "credential" => sub.is_some_and(|sub| subcommands::has(sub, subcommands::TALKS)),
        _ => true,
    }
}

/// The file an `include.path` value names, as git resolves it: `~/` from `HOME`, a relative
/// one from the including file's directory.
fn included(value: &str, from: &Path, env: Env) -> PathBuf {
    match value.strip_prefix("~/") {
        Some(rest) => {
            env("HOME").map_or(PathBuf::from(value), |home| PathBuf::from(home).join(rest))
        }
        None => from.parent().unwrap_or(Path::new("/")).join(value),
    }
}

/// Whether git refuses to use a bare repository it finds (rather than one named by
/// `--git-dir` or `GIT_DIR`): `safe.bareRepository` is `explicit` in the configuration it reads
/// it from, the system, global and environment configuration (never a repository's own), the
/// last value winning (`setup.c`, `get_allowed_bare_repo`). Git then stops there: `cannot use
/// bare repository`, or no repository for a command that needs none, so that repository's
/// configuration and hooks never run. A file that cannot be read, or configuration in
/// `GIT_CONFIG_PARAMETERS` (whose quoting is not read here) naming the key, counts as not
/// `explicit` (the analysis keeps refusing the repository).
pub(super) fn bare_repositories_explicit(env: Env) -> bool {
    let mut value: Option<String> = None;
    let mut stack: Vec<PathBuf> = files(env).into_iter().rev().map(|(p, _)| p).collect();
    let mut read = 0;
    while let Some(path) = stack.pop() {
        read += 1;
        if read > MAX_FILES {
            return false;
        }
        let Ok(entries) = super::config_entries(&path) else {
            return false;
        };
        // Includes are read where they stand: what follows them overrides them.
        let mut after: Vec<PathBuf> = Vec::new();
        for entry in entries {
            // Git reads the key before it knows a repository: an `includeIf` condition
            // (`gitdir:`, `onbranch:`, `hasconfig:`) never holds then (attack review 3's 5).
            let include = entry.key == "path" && entry.section == "include";
            if include {
                if let Some(included_path) = entry.value.as_deref() {
                    // Reading it first and this file's rest after keeps git's order only
                    // when nothing follows; a later key in this file is re-read below.
                    after.push(included(included_path, &path, env));
                }
            } else if entry.section == "safe" && entry.key == "barerepository" {
                if !after.is_empty() {
                    // A value after an include: order matters, read conservatively.
                    return false;
                }
                value = entry.value.clone();
            }
        }
        stack.extend(after.into_iter().rev());
    }
    let count = env("GIT_CONFIG_COUNT")
        .and_then(|c| c.to_string_lossy().trim().parse::<usize>().ok())
        .unwrap_or(0)
        .min(MAX_ENV_KEYS);
    for n in 0..count {
        let key = env(&format!("GIT_CONFIG_KEY_{n}")).unwrap_or_default();
        if key
            .to_string_lossy()
            .eq_ignore_ascii_case("safe.bareRepository")
        {
            value = env(&format!("GIT_CONFIG_VALUE_{n}")).map(|v| v.to_string_lossy().into());
        }
    }
    if env("GIT_CONFIG_PARAMETERS").is_some_and(|v| {
        v.to_string_lossy()
            .to_ascii_lowercase()
            .contains("barerepository")
    }) {
        return false;
    }
    value.as_deref() == Some("explicit")
}

/// Why the configuration git reads besides the repository's may run code for subcommand `sub`
/// (`None`: none given): a file there (or one it includes, whatever the include's condition)
/// sets a code-running key that can run for it, a file cannot be read, or the environment
/// sets configuration. The administrator's system file is trusted ([`administrators`]).
pub(super) fn untrusted_user_config(sub: Option<&str>, env: Env) -> Result<(), String> {
    if env("GIT_CONFIG_PARAMETERS").is_some_and(|v| !v.is_empty()) {
        return Err(
            "the environment sets `GIT_CONFIG_PARAMETERS`, configuration for every git call".into(),
        );
    }
    if let Some(count) = env("GIT_CONFIG_COUNT") {
        let count = count
            .to_string_lossy()
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= MAX_ENV_KEYS);
        let Some(count) = count else {
            return Err(format!(
                "the environment's `GIT_CONFIG_COUNT` is not a number up to {MAX_ENV_KEYS}"
            ));
        };
        for n in 0..count {
            let key = env(&format!("GIT_CONFIG_KEY_{n}")).unwrap_or_default();
            let key = key.to_string_lossy();
            if let Some(found) = super::code_running_key(&key) {
                return Err(format!(
                    "the environment's `GIT_CONFIG_KEY_{n}` sets `{found}`, which runs commands"
                ));
            }
        }
    }
    let mut queue: Vec<PathBuf> = Vec::new();
    for (path, system) in files(env) {
        if !(system && administrators(&path)) {
            queue.push(path);
        }
    }
    let mut read = 0;
    while let Some(path) = queue.pop() {
        read += 1;
        if read > MAX_FILES {
            return Err(format!(
                "git's configuration includes more than {MAX_FILES} files"
            ));
        }
        for entry in super::config_entries(&path)? {
            let include =
                entry.key == "path" && (entry.section == "include" || entry.section == "includeif");
            if include {
                if let Some(value) = entry.value.as_deref() {
                    queue.push(included(value, &path, env));
                }
                continue;
            }
            if !runs_for(&entry.section, &entry.key, sub) {
                continue;
            }
            if let Some(key) = super::code_running_entry(&entry) {
                return Err(format!(
                    "git's configuration `{}` (read for every repository) sets `{key}`, which runs commands",
                    path.display()
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::Sandbox;

    /// `safe.bareRepository` as git reads it: from the global and system files (and their
    /// includes) and the environment, the last value winning; `explicit` only spelled so.
    #[test]
    fn safe_bare_repository_is_read_where_git_reads_it() {
        let sandbox = Sandbox::new("git-safe-bare");
        let home = sandbox.dir("home");
        let system = sandbox.root.join("gitconfig");
        /// Configuration given as environment keys and values.
        type Keys<'a> = &'a [(&'a str, &'a str)];
        // (system file, ~/.gitconfig, environment keys, explicit)
        let cases: &[(&str, &str, Keys, bool)] = &[
            ("", "[safe]\n\tbareRepository = explicit\n", &[], true),
            ("[safe]\nbarerepository=explicit\n", "", &[], true),
            (
                "[safe]\nbareRepository=explicit\n",
                "[safe]\nbareRepository=all\n",
                &[],
                false,
            ),
            (
                "[safe]\nbareRepository=all\n",
                "[safe]\nbareRepository=explicit\n",
                &[],
                true,
            ),
            ("", "[include]\npath = inc\n", &[], true),
            // A condition never holds when git reads the key (attack review 3's 5).
            ("", "[includeIf \"gitdir:/\"]\npath = inc\n", &[], false),
            (
                "",
                "[safe]\nbareRepository=explicit\n",
                &[("safe.bareRepository", "all")],
                false,
            ),
            ("", "", &[("safe.bareRepository", "explicit")], true),
            ("", "[safe]\nbareRepository=Explicit\n", &[], false),
            ("", "[safe]\nbareRepository\n", &[], false),
            ("", "", &[], false),
        ];
        std::fs::write(home.join("inc"), "[safe]\nbareRepository=explicit\n").unwrap();
        for (system_text, global, keys, want) in cases {
            std::fs::write(&system, system_text).unwrap();
            std::fs::write(home.join(".gitconfig"), global).unwrap();
            let env = |name: &str| -> Option<OsString> {
                let value = match name {
                    "HOME" => home.display().to_string(),
                    "GIT_CONFIG_SYSTEM" => system.display().to_string(),
                    "GIT_CONFIG_COUNT" if !keys.is_empty() => keys.len().to_string(),
                    _ => {
                        let (n, value) = name
                            .strip_prefix("GIT_CONFIG_KEY_")
                            .map(|n| (n, true))
                            .or_else(|| {
                                name.strip_prefix("GIT_CONFIG_VALUE_").map(|n| (n, false))
                            })?;
                        let (key, val) = keys.get(n.parse::<usize>().ok()?)?;
                        (if value { key } else { val }).to_string()
                    }
                };
                Some(value.into())
            };
            assert_eq!(
                bare_repositories_explicit(&env),
                *want,
                "{system_text:?} {global:?} {keys:?}"
            );
        }
    }
}
