//! The paths git subcommands write to that an argument names (`worktree add <path>`, `clone
//! <url> <dir>`, `init <dir>`, `archive -o <file>`, `bundle create <file>`, `format-patch -o
//! <dir>`, ...): each must stay in the workspace and out of any `.git` in it. A path outside
//! is a write the analysis cannot vouch for (`git worktree add ~/.config/git evil` checked a
//! branch's `config` out as git's global configuration, whose `core.fsmonitor` the next `git
//! status` ran), and one in a `.git` writes a repository's configuration or hooks.

use std::path::Path;

/// One subcommand's written paths: whether every operand is one (`worktree add <path>`, `clone
/// <url> <dir>`: an operand that is no path stays inside when joined), its long options whose
/// value is one (any abbreviation git accepts of two letters or more, `--opt=v` or `--opt v`),
/// and its short options whose value is one (glued, at the end of a cluster, or separate).
struct Writer {
    sub: &'static str,
    operands: bool,
    long: &'static [&'static str],
    short: &'static str,
}

const fn writer(
    sub: &'static str,
    operands: bool,
    long: &'static [&'static str],
    short: &'static str,
) -> Writer {
    Writer {
        sub,
        operands,
        long,
        short,
    }
}

/// Every subcommand the analysis lets run that writes a path an argument names (git 2.47
/// manual pages), beyond the work tree's own files. The diff family's `--output` is refused
/// outright by the option table.
const WRITERS: &[Writer] = &[
    writer("worktree", true, &[], ""),
    writer("clone", true, &["separate-git-dir"], ""),
    writer("init", true, &["separate-git-dir"], ""),
    writer("init-db", true, &["separate-git-dir"], ""),
    writer("bundle", true, &[], ""),
    writer("pack-objects", true, &[], ""),
    writer("merge-file", true, &[], ""),
    writer("archive", false, &["output"], "o"),
    writer("format-patch", false, &["output-directory"], "o"),
    writer("bugreport", false, &["output-directory"], "o"),
    writer("diagnose", false, &["output-directory"], "o"),
    writer("index-pack", false, &[], "o"),
    writer("mailsplit", false, &[], "o"),
    writer("checkout-index", false, &["prefix"], ""),
    writer("apply", false, &["directory"], ""),
    writer("am", false, &["directory"], ""),
    writer("fast-export", false, &["export-marks"], ""),
    writer("fast-import", false, &["export-marks"], ""),
    writer("commit-graph", false, &["object-dir"], ""),
    writer("multi-pack-index", false, &["object-dir"], ""),
];

/// A subcommand whose first operand is a repository it reads, not a path it writes (`clone
/// <repository> [<directory>]`: a URL or `host:../x` is no path here), with its options that
/// take a separate value (long ones also as any abbreviation of two letters or more, short
/// ones at the end of a cluster), so that a value is never taken for that operand. An option
/// not listed here with a separate value only makes more operands count as written paths.
struct Source {
    sub: &'static str,
    long: &'static [&'static str],
    short: &'static str,
}

/// `git clone`'s options with a value (git 2.47 manual page).
const SOURCES: &[Source] = &[Source {
    sub: "clone",
    long: &[
        "origin",
        "branch",
        "upload-pack",
        "reference",
        "reference-if-able",
        "config",
        "depth",
        "shallow-since",
        "shallow-exclude",
        "separate-git-dir",
        "jobs",
        "filter",
        "server-option",
        "template",
        "bundle-uri",
        "revision",
        "ref-format",
    ],
    short: "obucj",
}];

/// The directory `git clone <repository>` creates without a directory operand: the last part
/// of the repository's path or URL, without a trailing `/`, `/.git`, `.git` or `.bundle`.
fn cloned_directory(repository: &str) -> &str {
    let mut name = repository.trim_end_matches('/');
    name = name
        .strip_suffix("/.git")
        .unwrap_or(name)
        .trim_end_matches('/');
    let name = name.rsplit(['/', ':']).next().unwrap_or(name);
    let name = name.strip_suffix(".git").unwrap_or(name);
    name.strip_suffix(".bundle").unwrap_or(name)
}

/// The operands of `rest` for `source`'s subcommand past its repository (the directory), or
/// the directory named after the repository when there is none.
fn source_written<'a>(source: &Source, rest: &'a [String]) -> Vec<&'a str> {
    let mut operands: Vec<&str> = Vec::new();
    let mut operands_only = false;
    let mut i = 0;
    while let Some(arg) = rest.get(i) {
        i += 1;
        if operands_only || !arg.starts_with('-') || arg == "-" {
            operands.push(arg);
        } else if arg == "--" {
            operands_only = true;
        } else if let Some(long) = arg.strip_prefix("--") {
            let valued = !long.contains('=')
                && long.len() >= 2
                && source.long.iter().any(|full| full.starts_with(long));
            i += usize::from(valued);
        } else if arg.ends_with(|c| source.short.contains(c)) {
            i += 1;
        }
    }
    match operands.as_slice() {
        [] => Vec::new(),
        [repository] => vec![cloned_directory(repository)],
        [_, written @ ..] => written.to_vec(),
    }
}

/// Options that let a subcommand write wherever its input says (`apply --unsafe-paths`).
const UNSAFE: &[(&str, &str)] = &[("apply", "unsafe-paths"), ("am", "unsafe-paths")];

/// The paths the arguments `rest` of subcommand `sub` name for git to write, as written.
fn written<'a>(sub: &str, rest: &'a [String]) -> Vec<&'a str> {
    let Some(row) = WRITERS.iter().find(|w| w.sub == sub) else {
        return Vec::new();
    };
    let source = SOURCES.iter().find(|s| s.sub == sub);
    let mut paths = source.map_or_else(Vec::new, |source| source_written(source, rest));
    let mut operands_only = false;
    let mut i = 0;
    while let Some(arg) = rest.get(i) {
        i += 1;
        if operands_only || !arg.starts_with('-') || arg == "-" {
            if row.operands && source.is_none() {
                paths.push(arg.as_str());
            }
            continue;
        }
        if arg == "--" {
            operands_only = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            if name.len() >= 2 && row.long.iter().any(|full| full.starts_with(name)) {
                match inline {
                    Some(value) => paths.push(value),
                    None => {
                        if let Some(value) = rest.get(i) {
                            paths.push(value.as_str());
                            i += 1;
                        }
                    }
                }
            }
            continue;
        }
        let cluster = &arg[1..];
        if let Some(at) = cluster.find(|c| row.short.contains(c)) {
            let glued = &cluster[at + 1..];
            if !glued.is_empty() {
                paths.push(glued);
            } else if let Some(value) = rest.get(i) {
                paths.push(value.as_str());
                i += 1;
            }
        }
    }
    paths
}

/// Why the arguments `rest` of subcommand `sub` make git write outside the trusted directory
/// `root` or into a `.git` inside it (relative paths from `dir`, where git runs), or let the
/// input choose where (`apply --unsafe-paths`). Without a `root`, an absolute path or one with
/// `..` is refused. A leading `~` is the shell's home directory, outside.
pub(super) fn leaving_path(
    sub: &str,
    rest: &[String],
    dir: Option<&Path>,
    root: Option<&Path>,
) -> Option<String> {
    if let Some((_, flag)) = UNSAFE.iter().find(|(s, flag)| {
        *s == sub
            && rest.iter().any(|a| {
                a.strip_prefix("--")
                    .is_some_and(|name| name.len() >= 2 && flag.starts_with(name))
            })
    }) {
        return Some(format!(
            "`git {sub} --{flag}` writes wherever its input says, outside the workspace too"
        ));
    }
    let root = root.and_then(|root| std::fs::canonicalize(root).ok());
    let who = format!("git {sub}");
    written(sub, rest)
        .into_iter()
        .find_map(|path| super::super::write_paths::leaving(&who, path, dir, root.as_deref()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::{argv, Sandbox};

    #[test]
    fn written_paths_stay_in_the_workspace() {
        let sandbox = Sandbox::new("git-written");
        let ws = sandbox.dir("ws");
        sandbox.dir("ws/.git/hooks");
        sandbox.dir("ws/sub");
        sandbox.dir("elsewhere");
        std::os::unix::fs::symlink(sandbox.root.join("elsewhere"), ws.join("out")).unwrap();
        let cases: &[(&str, bool)] = &[
            ("worktree add ../x evil", false),
            ("worktree add /tmp/x", false),
            ("worktree add ~/.config/git evil", false),
            ("worktree add out/x", false),
            ("worktree add sub/../../x", false),
            ("worktree add .git/x", false),
            ("worktree add .GIT/x", false),
            ("worktree move a ../b", false),
            ("worktree add -b topic wt", true),
            ("worktree add sub/wt main", true),
            ("clone https://example.com/r.git /tmp/z", false),
            (
                "clone --separate-git-dir /tmp/s https://example.com/r.git",
                false,
            ),
            ("clone --sep=/tmp/s https://example.com/r.git", false),
            ("clone https://example.com/r.git", true),
            ("clone https://example.com/r.git sub/r", true),
            // Only the directory is written: the repository (a URL, `host:path`, a path
            // elsewhere) is read.
            ("clone host:../x dest", true),
            ("clone host:/../../../x dest", true),
            ("clone git@host:../../../x.git dest", true),
            ("clone ssh://host/../../x dest", true),
            ("clone -b main host:/srv/x.git dest", true),
            ("clone --origin up -- host:/x dest", true),
            ("clone host:/srv/x.git", true),
            ("clone https://example.com/r.git ../dest", false),
            ("clone https://example.com/r.git dest/../../x", false),
            ("clone -b main https://example.com/r.git /tmp/z", false),
            (
                "clone --orig up https://example.com/r.git ~/.config/git",
                false,
            ),
            ("clone -qb main url ../z", false),
            ("clone url dest/.git/hooks", false),
            ("clone url ../z --origin up", false),
            ("clone https://example.com/..", false),
            ("clone --unknown-valued v url ../z", false),
            ("init /tmp/q", false),
            ("init --separate-git-dir=../q", false),
            ("init sub/new", true),
            ("init-db ../q", false),
            ("archive -o /tmp/a.zip HEAD", false),
            ("archive -o/tmp/a.zip HEAD", false),
            ("archive -vo ../a.zip HEAD", false),
            ("archive -o .git/hooks/pre-commit HEAD", false),
            ("archive -o a.zip HEAD", true),
            ("bundle create /tmp/b HEAD", false),
            ("bundle create b.bundle HEAD", true),
            ("format-patch -o /tmp/p HEAD~1", false),
            ("format-patch --output-directory ../p", false),
            ("format-patch --output-dir=/p", false),
            ("format-patch -o patches HEAD~1", true),
            ("checkout-index --prefix=/tmp/x/ -a", false),
            ("checkout-index --prefix=.git/ -a", false),
            ("checkout-index --prefix=sub/ -a", true),
            ("bugreport -o /tmp", false),
            ("diagnose --output-directory=/tmp", false),
            ("fast-export --export-marks=/tmp/m", false),
            ("fast-import --export-marks ../m", false),
            ("pack-objects /tmp/p", false),
            ("index-pack -o /tmp/i x.pack", false),
            ("mailsplit -o/tmp m", false),
            ("merge-file ../a b c", false),
            ("commit-graph write --object-dir /tmp/o", false),
            ("multi-pack-index --object-dir=/tmp/o write", false),
            ("apply --directory=../.. x.patch", false),
            ("apply --unsafe-paths x.patch", false),
            ("am --directory /x y.mbox", false),
            ("apply x.patch", true),
            ("log --oneline", true),
            ("status", true),
        ];
        for (line, want) in cases {
            let args = argv(line);
            let got = leaving_path(&args[0], &args[1..], Some(&ws), Some(&ws));
            assert_eq!(got.is_none(), *want, "git {line}: {got:?}");
            if let Some(why) = got {
                assert!(why.contains(&format!("git {}", args[0])), "{why}");
            }
        }
        // Without a workspace, only paths that may lead anywhere are refused.
        for (line, want) in [
            ("init /tmp/q", false),
            ("init ../q", false),
            ("init q", true),
        ] {
            let args = argv(line);
            let got = leaving_path(&args[0], &args[1..], None, None);
            assert_eq!(got.is_none(), want, "git {line}: {got:?}");
        }
    }
}
