//! `git`: its global options read exactly as git reads them (so an option with a separate value
//! never hides the subcommand after it), the subcommands that run commands, and the repository a
//! call points git at (a repository's own configuration can run code).

use std::path::{Path, PathBuf};

use super::git_config;
use super::injection::Place;
use super::submodules;

#[cfg(test)]
mod bypass_tests;
mod config_reads;
mod discovery;
pub(super) mod keys;
mod remotes;
mod repository_arg;
pub(crate) mod subcommands;
mod user_config;
mod written_paths;

pub use keys::code_running_key;
use remotes::Remotes;
#[cfg(test)]
pub(crate) use subcommands::HOOKS;

/// Global options without a value (`git.c`, `handle_options`).
const GLOBAL_FLAGS: &[&str] = &[
    "-p",
    "--paginate",
    "-P",
    "--no-pager",
    "--no-replace-objects",
    "--literal-pathspecs",
    "--no-literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-optional-locks",
    "--no-lazy-fetch",
    "--no-advice",
    "--html-path",
    "--man-path",
    "--info-path",
    "--exec-path",
    "-v",
    "--version",
];

/// Global options whose value may follow as a separate argument (`--opt VALUE`; the long ones
/// also as `--opt=VALUE`), and whether giving them is refused, with why.
const GLOBAL_WITH_VALUE: &[(&str, Option<&str>)] = &[
    ("-C", None),
    ("--namespace", None),
    ("--attr-source", None),
    ("-c", Some("sets configuration, which can run commands")),
    (
        "--config-env",
        Some("sets configuration, which can run commands"),
    ),
    (
        "--git-dir",
        Some("points git at a repository whose own configuration can run commands"),
    ),
    (
        "--work-tree",
        Some("points git at a work tree outside the one it would find"),
    ),
    ("--super-prefix", Some("is internal to git")),
    ("--shallow-file", Some("is internal to git")),
];

/// Global options refused whatever follows them.
const GLOBAL_REFUSED: &[(&str, &str)] = &[
    (
        "--bare",
        "treats the directory as a repository whose own configuration can run commands",
    ),
    ("--help", "runs `git help`, which starts a pager or browser"),
    ("-h", "runs `git help`, which starts a pager or browser"),
];

/// Git subcommands that run configured or given commands.
pub const SUBCOMMANDS_REFUSED: &[&str] = &[
    "filter-branch",
    "difftool",
    "mergetool",
    "send-email",
    "instaweb",
    "daemon",
    "help",
    "web--browse",
    "bisect",
    "submodule",
    "upload-pack",
    "receive-pack",
    "upload-archive",
    "shell",
    "http-backend",
    "credential",
    "credential-store",
    "credential-cache",
    "hook",
    "remote-ext",
    "remote-fd",
    "archimport",
    "cvsimport",
    "cvsserver",
    "quiltimport",
    "svn",
    "p4",
    "var",
    "sh-setup",
    "sh-i18n",
    "merge-one-file",
    // Plumbing that runs a program named as its argument or configured, or runs git in other
    // repositories (`merge-index <program>`, `for-each-repo --config=<key> <command>`), or
    // installs scheduled jobs (`maintenance start`).
    "merge-index",
    "for-each-repo",
    "maintenance",
    "cvsexportcommit",
    "imap-send",
    "gui",
    "citool",
    "gitk",
    "gitweb",
    "scalar",
];

/// Git's built-in merge strategies; any other `-s`/`--strategy` name runs `git-merge-<name>`
/// found through the exec path and PATH.
const BUILTIN_STRATEGIES: &[&str] = &["ort", "recursive", "resolve", "octopus", "ours", "subtree"];

/// Subcommands taking `--strategy`, and whether `-s` is its short form there (for
/// `cherry-pick` and `revert`, `-s` is `--signoff`).
const STRATEGY_SUBCOMMANDS: &[(&str, bool)] = &[
    ("merge", true),
    ("pull", true),
    ("rebase", true),
    ("cherry-pick", false),
    ("revert", false),
];

/// Short options of those subcommands whose value is the rest of the cluster: a `s` after them
/// is part of the value (`-Xsubtree=x`, `-mmsg`).
const SHORT_WITH_VALUE: &str = "XmFSC";

/// Why subcommand `sub` is refused: a refused or internal one (`submodule--helper`,
/// `difftool--helper`, `mergetool--lib`), a remote helper run directly (`remote-<name>`), or a
/// name git does not have (an alias or an external `git-<name>`).
fn refused_subcommand(sub: &str) -> Option<String> {
    if SUBCOMMANDS_REFUSED.contains(&sub) {
        return Some(format!("`git {sub}` can run commands and is not allowed"));
    }
    if sub.contains("--") || sub.starts_with("remote-") {
        return Some(format!(
            "`git {sub}` is internal to git (helpers run commands) and is not allowed"
        ));
    }
    if subcommands::NOT_OFFERED.contains(&sub) {
        return Some(format!(
            "`git {sub}` is plumbing the analysis does not offer (a merge strategy run directly, or a transport to an unchecked remote)"
        ));
    }
    if subcommands::properties(sub).is_none() {
        return Some(format!(
            "`git {sub}` is no git command: git would run an alias or `git-{sub}` found on PATH"
        ));
    }
    None
}

/// The merge strategy an argument of `sub` names that is not built in, if any: `-s NAME`,
/// `-sNAME` (also at the end of a cluster), `--strategy NAME`, `--strategy=NAME` and any
/// abbreviation of `--strategy` of three letters or more.
fn foreign_strategy(sub: &str, args: &[String]) -> Option<String> {
    let (_, short) = STRATEGY_SUBCOMMANDS.iter().find(|(s, _)| *s == sub)?;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "--" {
            return None;
        }
        let value = if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            if name.len() < 3 || !"strategy".starts_with(name) {
                continue;
            }
            inline.map(str::to_string).or_else(|| args.get(i).cloned())
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|_| *short) {
            let stop = cluster.find(|c| SHORT_WITH_VALUE.contains(c));
            let Some(at) = cluster
                .find('s')
                .filter(|at| stop.is_none_or(|stop| *at < stop))
            else {
                continue;
            };
            let rest = &cluster[at + 1..];
            if rest.is_empty() {
                args.get(i).cloned()
            } else {
                Some(rest.to_string())
            }
        } else {
            continue;
        };
        let value = value.unwrap_or_default();
        if !BUILTIN_STRATEGIES.contains(&value.as_str()) {
            return Some(format!(
                "`git {sub} {arg}` names the merge strategy `{value}`, which is no built-in one (git runs `git-merge-{value}` from PATH)"
            ));
        }
    }
    None
}

/// Whether `url` names a remote helper as git reads it (`transport.c`): a scheme of letters,
/// digits, `+`, `.` and `-`, starting with a letter, then `::` (`evil::x` runs
/// `git-remote-evil`; `ext::` and `fd::` run commands themselves).
fn remote_helper_url(url: &str) -> bool {
    let Some((scheme, _)) = url.split_once("::") else {
        return false;
    };
    scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
}

/// Git subcommands where `-u` means `--upload-pack`.
const UPLOAD_PACK_U: &[&str] = &["clone", "fetch", "pull", "ls-remote", "archive"];

/// Where a `-C` leads: the directory, relative ones against `dir`.
fn step(dir: &Path, value: &str) -> PathBuf {
    if value.is_empty() {
        dir.to_path_buf()
    } else {
        dir.join(value)
    }
}

/// Whether git, finding the bare repository `dir` while it looks for one, refuses to use it:
/// `safe.bareRepository=explicit` in the configuration it reads that from
/// ([`user_config::bare_repositories_explicit`]), for a directory not named `.git` (git's
/// exception: the git directory of a work tree).
fn refused_bare(dir: &Path, env: user_config::Env) -> bool {
    dir.file_name().is_none_or(|name| name != ".git")
        && user_config::bare_repositories_explicit(env)
}

/// Why running git in `target` could read another repository's configuration than the one of
/// the trusted directory `root`: `target` must be `root` or below it, with no repository of its
/// own on the way ([`discovery::holds_repository`]: a `.git`, or a directory that is a bare
/// repository, which a download, an archive or the project itself may have brought).
fn untrusted_repository(target: &Path, root: &Path, env: user_config::Env) -> Option<String> {
    let shown = target.display();
    let (Ok(target), Ok(root)) = (std::fs::canonicalize(target), std::fs::canonicalize(root))
    else {
        return Some(format!(
            "git would run in `{shown}`, which cannot be resolved"
        ));
    };
    if !target.starts_with(&root) {
        return Some(format!(
            "git would run in `{}`, outside the trusted directory `{}`: its repository is untrusted",
            target.display(),
            root.display()
        ));
    }
    let mut dir = target.as_path();
    while dir != root {
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
            return Some(format!(
                "git would run in `{}`, a repository of its own inside the trusted directory (untrusted)",
                dir.display()
            ));
        }
        if discovery::is_git_directory(dir) {
            if refused_bare(dir, env) {
                // Git stops here without a repository: nothing of this one runs.
                return None;
            }
            return Some(format!(
                "git would run in `{}`, a bare repository (a git directory) inside the trusted directory: its configuration and hooks are untrusted",
                dir.display()
            ));
        }
        match dir.parent() {
            Some(parent) => dir = parent,
            None => break,
        }
    }
    None
}

/// The most bytes of a repository configuration file read; a longer one is refused unread.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The git directory a `.git` file names (`gitdir: <path>`, relative to the file's directory).
fn gitdir_of_file(dot_git: &Path) -> Result<PathBuf, String> {
    let text = std::fs::read_to_string(dot_git)
        .map_err(|e| format!("`{}` cannot be read ({e})", dot_git.display()))?;
    let line = text.lines().next().unwrap_or_default();
    let Some(value) = line.strip_prefix("gitdir:").map(str::trim) else {
        return Err(format!(
            "`{}` is a file that does not start with `gitdir:`",
            dot_git.display()
        ));
    };
    let base = dot_git.parent().unwrap_or(Path::new("/"));
    Ok(base.join(value))
}

/// The code-running key the configuration entry `entry` sets, if any, judged on its parts (a
/// subsection may hold any character, `/` and `=` too): a key of [`keys::CODE_RUNNING`] in its
/// form (strategy keys naming one that is not built in, `url.<base>.insteadOf` with a base that
/// is a `<transport>::<address>` URL), or a value that is such a URL.
fn code_running_entry(entry: &git_config::Entry) -> Option<String> {
    let sub = entry.subsection.as_deref();
    let full = match sub {
        Some(sub) => format!("{}.{sub}.{}", entry.section, entry.key),
        None => format!("{}.{}", entry.section, entry.key),
    };
    let value = entry.value.as_deref().unwrap_or_default();
    let runs = keys::row_of(&entry.section, sub, &entry.key).is_some_and(|row| match row.judge {
        keys::Judge::Always => true,
        keys::Judge::UrlBase => sub.is_some_and(remote_helper_url),
        keys::Judge::Strategies => {
            let words: Vec<String> = value.split_whitespace().map(String::from).collect();
            match entry.section.as_str() {
                "pull" => words
                    .iter()
                    .any(|w| !BUILTIN_STRATEGIES.contains(&w.as_str())),
                _ => foreign_strategy("merge", &words).is_some(),
            }
        }
    });
    if runs {
        return Some(keys::bounded(&full));
    }
    remote_helper_url(value).then(|| keys::bounded(&format!("{full} = {value}")))
}

/// The entries of the configuration file `path` (absent: none), read as git reads it
/// ([`git_config::parse`]; a file git would refuse is refused too). Linear in the file; a file
/// over [`MAX_CONFIG_BYTES`] is refused.
fn config_entries(path: &Path) -> Result<Vec<git_config::Entry>, String> {
    match std::fs::metadata(path) {
        Err(_) => return Ok(Vec::new()),
        Ok(meta) if meta.len() > MAX_CONFIG_BYTES => {
            return Err(format!(
                "`{}` is over {MAX_CONFIG_BYTES} bytes and cannot be checked",
                path.display()
            ))
        }
        Ok(_) => {}
    }
    let text =
        std::fs::read(path).map_err(|e| format!("`{}` cannot be read ({e})", path.display()))?;
    git_config::parse(&text).map_err(|why| {
        format!(
            "`{}` is a configuration git refuses or may read otherwise ({why})",
            path.display()
        )
    })
}

/// Why the repository git uses in the trusted directory `root` may run code: its `.git` is a
/// file naming a git directory outside `root` that is not a linked worktree of it (its
/// configuration and hooks are not the workspace's), its configuration (`config`,
/// `config.worktree`, the common directory's `config`) sets a code-running key
/// ([`code_running_key`]), or it has a hook installed that the subcommand `sub` may run (none
/// when there is no subcommand), or it has submodules and the subcommand `enters` them
/// ([`submodules`]); a `root` that is itself a bare repository is checked the same way; without
/// a `.git` in `root`, a repository above `root` that git would find
/// instead. Otherwise its remotes, for the subcommands that talk to one.
fn untrusted_root_repository(
    root: &Path,
    sub: Option<&str>,
    enters: bool,
    env: user_config::Env,
) -> Result<Remotes, String> {
    let Ok(root) = std::fs::canonicalize(root) else {
        return Err(format!("`{}` cannot be resolved", root.display()));
    };
    let dot_git = root.join(".git");
    let gitdir = match std::fs::symlink_metadata(&dot_git) {
        // The trusted directory is itself a bare repository: git uses it, so it is checked,
        // unless git refuses it (then it runs with no repository).
        Err(_) if discovery::is_git_directory(&root) && refused_bare(&root, env) => {
            return Ok(Remotes::none())
        }
        Err(_) if discovery::is_git_directory(&root) => root.clone(),
        Err(_) => {
            let above = root.ancestors().skip(1).find_map(|dir| {
                discovery::holds_repository(dir).then(|| {
                    format!(
                        "git would use the repository of `{}`, above the trusted directory `{}`",
                        dir.display(),
                        root.display()
                    )
                })
            });
            return above.map_or_else(|| Ok(Remotes::none()), Err);
        }
        Ok(meta) if meta.is_file() => gitdir_of_file(&dot_git)?,
        Ok(_) => dot_git,
    };
    let Ok(real) = std::fs::canonicalize(&gitdir) else {
        return Err(format!(
            "the repository's git directory `{}` cannot be resolved",
            gitdir.display()
        ));
    };
    let common = match std::fs::read_to_string(real.join("commondir")) {
        Err(_) => real.clone(),
        Ok(text) => match std::fs::canonicalize(real.join(text.trim())) {
            Ok(common) => common,
            Err(_) => {
                return Err(format!(
                    "the common directory `{}` of the repository cannot be resolved",
                    text.trim()
                ))
            }
        },
    };
    let inside = real.starts_with(&root) && common.starts_with(&root);
    if !inside && !linked_worktree(&real, &common, &root.join(".git")) {
        return Err(format!(
            "the repository's `.git` leads to `{}`, outside the trusted directory `{}` and not a worktree of it: its configuration and hooks are untrusted",
            real.display(),
            root.display()
        ));
    }
    let mut files = vec![real.join("config"), real.join("config.worktree")];
    if common != real {
        files.push(common.join("config"));
    }
    let mut all = Vec::new();
    for file in &files {
        let entries = config_entries(file)?;
        if let Some(key) = entries.iter().find_map(code_running_entry) {
            return Err(format!(
                "the repository's configuration `{}` sets `{key}`, which runs commands",
                file.display()
            ));
        }
        all.extend(entries);
    }
    if enters && submodules::present(&root, &real, &common) {
        return Err(format!(
            "the repository has submodules, and `git {}` may run git in them under their own configuration and hooks, which are not checked",
            sub.unwrap_or_default()
        ));
    }
    if let Some(why) = sub.and_then(|sub| installed_hook(&common.join("hooks"), sub)) {
        return Err(why);
    }
    Remotes::new(&all, Some(&common), MAX_CONFIG_BYTES)
}

/// Whether the git directory `real` is a linked worktree's (`git worktree add`): it is
/// `<common>/worktrees/<name>` and its `gitdir` file leads back to `dot_git`, the workspace's
/// `.git` file. Its configuration and hooks are then checked as the workspace's own.
fn linked_worktree(real: &Path, common: &Path, dot_git: &Path) -> bool {
    let back = std::fs::read_to_string(real.join("gitdir"))
        .ok()
        .and_then(|text| std::fs::canonicalize(text.trim()).ok());
    real.parent() == Some(common.join("worktrees").as_path())
        && back.is_some_and(|back| std::fs::canonicalize(dot_git).ok() == Some(back))
}

/// The first hook installed in `hooks` (a file there not named `*.sample`, executable or not: a
/// later segment of the line may make it so) that the subcommand `sub` may run.
fn installed_hook(hooks: &Path, sub: &str) -> Option<String> {
    let entries = std::fs::read_dir(hooks).ok()?;
    entries.flatten().find_map(|entry| {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        (!name.ends_with(".sample") && subcommands::runs_hook(sub, &name)).then(|| {
            format!(
                "the repository has the hook `{}`, which `git {sub}` may run",
                hooks.join(name.as_ref()).display()
            )
        })
    })
}

/// Reads git's global options, refusing what may run code, and returns the index of the
/// subcommand in `args` (`None`: there is none) and the directory git runs in (after `-C`). Every value is consumed where git consumes it,
/// an unknown option before the subcommand is refused, and `-C` must stay in the repository of
/// the trusted directory.
fn global_options(
    args: &[String],
    place: Place,
    env: user_config::Env,
) -> Result<(Option<usize>, Option<PathBuf>), String> {
    let refuse = |arg: &str, why: &str| Err(format!("argument injection: `git {arg}` {why}"));
    let cwd = place.cwd;
    let mut dir = cwd.map(Path::to_path_buf);
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') {
            return Ok((Some(i), dir));
        }
        if GLOBAL_FLAGS.contains(&arg.as_str()) || arg.starts_with("--list-cmds=") {
            i += 1;
            continue;
        }
        if let Some((_, why)) = GLOBAL_REFUSED.iter().find(|(o, _)| o == arg) {
            return refuse(arg, why);
        }
        if arg.starts_with("--exec-path=") {
            return refuse(arg, "sets where git finds the programs it runs");
        }
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value)),
            _ => (arg.as_str(), None),
        };
        let Some((option, refused)) = GLOBAL_WITH_VALUE.iter().find(|(o, _)| *o == name) else {
            return refuse(arg, "is an unknown option before the subcommand");
        };
        let value = match inline {
            Some(value) => value,
            None => match args.get(i + 1) {
                Some(value) => {
                    i += 1;
                    value.as_str()
                }
                None => return refuse(arg, "lacks its value"),
            },
        };
        if let Some(why) = refused {
            return refuse(&format!("{option} {value}"), why);
        }
        if *option == "-C" {
            let (Some(current), Some(root)) = (&dir, place.trusted_root()) else {
                return refuse(
                    &format!("-C {value}"),
                    "needs the working directory, which is unknown",
                );
            };
            let next = step(current, value);
            if let Some(why) = untrusted_repository(&next, root, env) {
                return Err(format!("argument injection: {why}"));
            }
            dir = Some(next);
        }
        i += 1;
    }
    Ok((None, dir))
}

/// Whether the URL or path `target` names a repository on this machine: a `file://` URL, or
/// no URL at all (no `://`, no `host:` before a `/`). `.` (the repository itself) does not.
pub(crate) fn local_url(target: &str) -> bool {
    if target.to_ascii_lowercase().starts_with("file://") {
        return true;
    }
    let colon = target.find(':');
    let slash = target.find('/');
    let scp = colon.is_some_and(|c| slash.is_none_or(|s| c < s));
    !(target.contains("://") || scp || target == "." || target.is_empty())
}

/// Why `url` runs code when git uses it: a `<transport>::<address>` URL, or a repository on
/// this machine other than the workspace's (a `file://` URL, or a path naming an existing file
/// or directory, also with `.git` added as git tries, from any of `dirs`; `shaped`: any path
/// holding `/` or starting with `.`, for configured URLs).
fn url_problem(url: &str, dirs: &[&Path], shaped: bool) -> Option<&'static str> {
    if remote_helper_url(url) {
        return Some(
            "a `<transport>::<address>` URL, which runs the program `git-remote-<transport>`",
        );
    }
    let on_this_machine = "a repository on this machine, runs git there under its configuration and hooks, which are not checked";
    if url.to_ascii_lowercase().starts_with("file://") {
        return Some(on_this_machine);
    }
    if !local_url(url) {
        return None;
    }
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    let local = |dir: &Path| {
        let path = dir.join(url);
        let own = canonical(&path).is_some_and(|p| Some(p) == canonical(dir));
        let exists = [
            path.clone(),
            PathBuf::from(format!("{}.git", path.display())),
        ]
        .iter()
        .any(|p| std::fs::symlink_metadata(p).is_ok());
        !own && (exists || shaped && (url.contains('/') || url.starts_with('.')))
    };
    let local = match dirs {
        [] => local(Path::new(".")),
        dirs => dirs.iter().any(|dir| local(dir)),
    };
    local.then_some(on_this_machine)
}

/// Why the arguments `rest` of the [talking](subcommands::TALKS) subcommand `sub`, or the
/// repository's configured remotes lead to a remote helper or another repository on this
/// machine ([`url_problem`], relative paths from each of `dirs`: git resolves them from the
/// top of the work tree, `clone` from where it runs), after git's URL rewriting (`url.<base>.insteadOf`, and
/// `pushInsteadOf` for pushes; `clone` reads no repository configuration). For `fetch`, `pull`,
/// `push` and `ls-remote` only the repository argument counts ([`repository_arg`]), never a
/// refspec; an argument naming a configured remote stands for that remote's URLs, which are
/// checked with the others. `archive` talks to one only through `--remote`.
fn local_remote(sub: &str, rest: &[String], dirs: &[&Path], remotes: &Remotes) -> Option<String> {
    fn valued(arg: &str) -> Option<&str> {
        ["--repo=", "--remote="]
            .iter()
            .find_map(|prefix| arg.strip_prefix(prefix))
    }
    let targets: Vec<&str> = match sub {
        "archive" => rest
            .iter()
            .enumerate()
            .filter_map(|(i, arg)| match arg.as_str() {
                "--remote" => rest.get(i + 1).map(String::as_str),
                arg => arg.strip_prefix("--remote="),
            })
            .collect(),
        s if subcommands::has(s, subcommands::TALKS) => repository_arg::repository_args(s, rest)
            .unwrap_or_else(|| {
                rest.iter()
                    .filter_map(|arg| {
                        valued(arg).or((!arg.starts_with('-')).then_some(arg.as_str()))
                    })
                    .collect()
            }),
        _ => return None,
    };
    if targets.is_empty() && !subcommands::has(sub, subcommands::TALKS) {
        return None;
    }
    let clone = sub == "clone";
    let rewritten = |target: &str| -> Vec<String> {
        match sub {
            "clone" => vec![target.to_string()],
            "push" | "send-pack" => vec![remotes.rewrites.push(target)],
            "remote" => vec![
                remotes.rewrites.fetch(target),
                remotes.rewrites.push(target),
            ],
            _ => vec![remotes.rewrites.fetch(target)],
        }
    };
    for target in targets {
        if !clone && remotes.is_remote(target) {
            continue;
        }
        for url in rewritten(target) {
            if let Some(why) = url_problem(&url, dirs, false) {
                let shown = keys::bounded(target);
                let via = match url == target {
                    true => String::new(),
                    false => format!(
                        " (rewritten to `{}` by the repository's `url.<base>.insteadOf`)",
                        keys::bounded(&url)
                    ),
                };
                return Some(format!("`git {sub}` with `{shown}`{via}, {why}"));
            }
        }
    }
    if clone {
        return None;
    }
    remotes.configured().iter().find_map(|(label, url)| {
        url_problem(url, dirs, true).map(|why| {
            format!(
                "`git {sub}` talks to the configured `{label}` = `{}`, {why}",
                keys::bounded(url)
            )
        })
    })
}

/// The subcommand in git's arguments `args` as git finds it: the first argument that is no
/// option or the separate value of one ([`GLOBAL_WITH_VALUE`]).
pub fn subcommand(args: &[String]) -> Option<&str> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') {
            return Some(arg);
        }
        if GLOBAL_WITH_VALUE.iter().any(|(option, _)| option == arg) {
            i += 1;
        }
        i += 1;
    }
    None
}

/// Checks git's arguments beyond the option table of [`RULES`](super::injection): global options,
/// refused subcommands and their short options that run commands. Git must run in the
/// repository of `place`'s trusted directory: its working directory is checked as `-C` is.
pub fn check_git(args: &[String], place: Place) -> Result<(), String> {
    if let Some((arg, key)) = args
        .iter()
        .find_map(|arg| code_running_key(arg).map(|key| (arg, key)))
    {
        return Err(format!(
            "argument injection: `git` argument `{arg}` names the config key `{key}`, which runs commands"
        ));
    }
    let env = |name: &str| std::env::var_os(name);
    if let (Some(cwd), Some(root)) = (place.cwd, place.trusted_root()) {
        if let Some(why) = untrusted_repository(cwd, root, &env) {
            return Err(format!("argument injection: {why}"));
        }
    }
    let (index, dir) = global_options(args, place, &env)?;
    let sub = index.map(|index| args[index].as_str());
    if let Some(why) = sub.and_then(refused_subcommand) {
        return Err(format!("argument injection: {why}"));
    }
    user_config::untrusted_user_config(sub, &env)
        .map_err(|why| format!("argument injection: {why}"))?;
    // The repository is checked once the subcommand is known: its hooks matter only to the
    // subcommands that run them.
    let remotes = match (place.cwd, place.trusted_root()) {
        (Some(_), Some(root)) => {
            let rest = index.map_or(&args[..0], |index| &args[index + 1..]);
            let enters = submodules::may_enter(sub, rest);
            untrusted_root_repository(root, sub, enters, &env)
                .map_err(|why| format!("argument injection: {why}"))?
        }
        _ => Remotes::none(),
    };
    let (Some(index), Some(sub)) = (index, sub) else {
        return Ok(());
    };
    let rest = &args[index + 1..];
    if let Some(why) = foreign_strategy(sub, rest) {
        return Err(format!("argument injection: {why}"));
    }
    if sub == "config" {
        config_reads::check_config(rest).map_err(|why| format!("argument injection: {why}"))?;
    }
    // A remote-helper URL wherever a URL may stand: an argument or an option's value.
    if let Some(arg) = rest.iter().find(|arg| {
        remote_helper_url(arg)
            || arg
                .split_once('=')
                .is_some_and(|(_, value)| remote_helper_url(value))
    }) {
        return Err(format!(
            "argument injection: `git {sub}` argument `{arg}` is a `<transport>::<address>` URL, which runs the program `git-remote-<transport>`"
        ));
    }
    let mut dirs: Vec<&Path> = dir.as_deref().into_iter().collect();
    dirs.extend(
        place
            .trusted_root()
            .filter(|root| Some(*root) != dir.as_deref()),
    );
    if let Some(why) = local_remote(sub, rest, &dirs, &remotes) {
        return Err(format!("argument injection: {why}"));
    }
    if let Some(why) = written_paths::leaving_path(sub, rest, dir.as_deref(), place.trusted_root())
    {
        return Err(format!("argument injection: {why}"));
    }
    let short_refused = match sub {
        s if UPLOAD_PACK_U.contains(&s) => Some('u'),
        "rebase" => Some('x'),
        "grep" => Some('O'),
        _ => None,
    };
    if let Some(letter) = short_refused {
        if let Some(arg) = args[index + 1..]
            .iter()
            .find(|a| !a.starts_with("--") && a.starts_with('-') && a[1..].contains(letter))
        {
            return Err(format!(
                "argument injection: `git {sub}` option `{arg}` is not allowed"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::{argv, Sandbox};

    #[test]
    fn options_with_a_separate_value_never_hide_the_subcommand() {
        let sandbox = Sandbox::new("git-options");
        let cwd = sandbox.dir("repo");
        sandbox.dir("repo/sub");
        let cases: &[(&str, bool)] = &[
            ("status", true),
            ("--no-pager log", true),
            ("-P --literal-pathspecs log", true),
            ("--namespace ns log", true),
            ("--namespace=ns log", true),
            ("--attr-source HEAD log", true),
            ("--version", true),
            ("--list-cmds=main", true),
            // The value is consumed: the subcommand after it is seen and refused.
            ("--attr-source HEAD config include.path x", false),
            ("--attr-source=HEAD config core.pager sh", false),
            ("--namespace x submodule foreach sh", false),
            ("--no-pager help -w log", false),
            ("-C sub config alias.x !sh", false),
            ("-C sub status", true),
            ("-C . -C sub status", true),
            ("-C sub -C .. status", true),
            // Options that set configuration, point at another repository or are internal.
            ("--shallow-file x status", false),
            ("--shallow-file=x status", false),
            ("--super-prefix x status", false),
            ("--git-dir /tmp/evil/.git status", false),
            ("--git-dir=/tmp/evil/.git status", false),
            ("--work-tree / status", false),
            ("--bare log", false),
            ("-c core.pager=sh log", false),
            ("--config-env core.pager=X log", false),
            ("--exec-path=/tmp status", false),
            ("--help", false),
            // Unknown options before the subcommand: git may take a value git does not say.
            ("--frobnicate x status", false),
            ("-x status", false),
            ("--git-di=x status", false),
            // A value missing at the end.
            ("-C", false),
        ];
        for (args, want) in cases {
            let got = check_git(&argv(args), Place::at(&cwd));
            assert_eq!(got.is_ok(), *want, "git {args}: {got:?}");
        }
    }

    #[test]
    fn no_global_option_hides_a_refused_subcommand() {
        let sandbox = Sandbox::new("git-generated");
        let cwd = sandbox.dir("repo");
        sandbox.dir("repo/sub");
        let values = ["sub", "HEAD", "x", "config", "status"];
        let mut checked = 0;
        for sub in SUBCOMMANDS_REFUSED {
            for (option, _) in GLOBAL_WITH_VALUE {
                for value in values {
                    let mut forms = vec![vec![option.to_string(), value.to_string()]];
                    if option.starts_with("--") {
                        forms.push(vec![format!("{option}={value}")]);
                    }
                    for mut args in forms {
                        // Also behind a flag and a second option.
                        args.insert(0, "--no-pager".to_string());
                        args.extend(["--namespace".to_string(), "n".to_string()]);
                        args.push(sub.to_string());
                        let got = check_git(&args, Place::at(&cwd));
                        assert!(got.is_err(), "git {}", args.join(" "));
                        checked += 1;
                    }
                }
            }
            // An option git does not list may take the subcommand's place as its value.
            for unknown in ["--frob", "-Z", "--git-dirx", "--", "-"] {
                let args = vec![unknown.to_string(), "x".to_string(), sub.to_string()];
                assert!(
                    check_git(&args, Place::at(&cwd)).is_err(),
                    "git {}",
                    args.join(" ")
                );
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn code_running_config_keys_are_refused_wherever_they_appear() {
        let refused = [
            "remote.origin.uploadpack=sh",
            "remote.origin.receivepack",
            "include.path",
            "includeIf.gitdir:/x.path",
            "filter.lfs.clean",
            "filter.x.smudge=sh",
            "diff.pdf.textconv=sh",
            "diff.x.command",
            "alias.st",
            "core.sshCommand=X",
            "--config-env=core.fsmonitor=X",
            "uploadpack.packObjectsHook",
            "credential.helper",
            "protocol.ext.allow=always",
            "tar.tgz.command",
            "trailer.sign.command",
            "url.ext::sh.insteadOf",
            "sequence.editor",
            "gpg.program",
            "merge.ours.driver",
            "submodule.x.update",
        ];
        for arg in refused {
            assert!(code_running_key(arg).is_some(), "{arg}");
            assert!(
                check_git(&["log".to_string(), arg.to_string()], Place::default()).is_err(),
                "{arg}"
            );
        }
        for arg in [
            "src/filter.rs",
            "README.md",
            "--oneline",
            "HEAD~3",
            "v1.2.3",
        ] {
            assert_eq!(code_running_key(arg), None, "{arg}");
        }
    }

    #[test]
    fn dash_c_stays_in_the_working_directory_repository() {
        let sandbox = Sandbox::new("git-dash-c");
        let cwd = sandbox.dir("repo");
        sandbox.dir("repo/.git");
        sandbox.dir("repo/src/deep");
        sandbox.dir("repo/vendor/evil/.git");
        sandbox.dir("repo/vendor/evil/src");
        sandbox.dir("elsewhere");
        let cases: &[(&str, bool)] = &[
            ("src", true),
            ("src/deep", true),
            (".", true),
            ("vendor", true),
            ("vendor/evil", false),
            ("vendor/evil/src", false),
            ("..", false),
            ("../elsewhere", false),
            ("/", false),
            ("missing", false),
        ];
        for (dir, want) in cases {
            let args = vec!["-C".to_string(), dir.to_string(), "status".to_string()];
            let got = check_git(&args, Place::at(&cwd));
            assert_eq!(got.is_ok(), *want, "git -C {dir}: {got:?}");
        }
        // Without a working directory, `-C` cannot be judged.
        assert!(check_git(&argv("-C src status"), Place::default()).is_err());
        assert!(check_git(&argv("status"), Place::default()).is_ok());
        // The working directory itself must be in the trusted directory's repository.
        let nested = cwd.join("vendor/evil");
        let inside = Place {
            cwd: Some(&nested),
            root: Some(&cwd),
        };
        let why = check_git(&argv("status"), inside).unwrap_err();
        assert!(why.contains("a repository of its own"), "{why}");
        let src = cwd.join("src");
        let fine = Place {
            cwd: Some(&src),
            root: Some(&cwd),
        };
        assert!(check_git(&argv("status"), fine).is_ok());
        assert!(check_git(&argv("-C ../vendor/evil status"), fine).is_err());
        let elsewhere = sandbox.root.join("elsewhere");
        let outside = Place {
            cwd: Some(&elsewhere),
            root: Some(&cwd),
        };
        let why = check_git(&argv("log"), outside).unwrap_err();
        assert!(why.contains("outside the trusted directory"), "{why}");
    }
}
