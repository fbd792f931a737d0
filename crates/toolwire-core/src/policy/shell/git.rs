//! `git`: its global options read exactly as git reads them (so an option with a separate value
//! never hides the subcommand after it), the subcommands that run commands, and the repository a
//! call points git at (a repository's own configuration can run code).

use std::path::{Path, PathBuf};

use super::injection::Place;

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
    "config",
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
    "merge-one-file",
];

/// Git subcommands where `-u` means `--upload-pack`.
const UPLOAD_PACK_U: &[&str] = &["clone", "fetch", "pull", "ls-remote", "archive"];

/// Config keys that make git run a command, load code or trust other configuration, found
/// anywhere in an argument (compared in lower case).
const CODE_RUNNING_KEYS: &[&str] = &[
    "core.pager",
    "core.sshcommand",
    "core.fsmonitor",
    "core.hookspath",
    "core.editor",
    "core.gitproxy",
    "core.askpass",
    "core.alternaterefscommand",
    "core.worktree",
    "diff.external",
    "include.path",
    "includeif.",
    "sequence.editor",
    "credential.helper",
    "gpg.program",
    "gpg.ssh.program",
    "uploadpack",
    "receivepack",
    "merge.tool",
    "diff.tool",
    "ssh.variant",
    "imap.tunnel",
    "interactive.difffilter",
    "safe.directory",
    "safe.barerepository",
    "web.browser",
    "protocol.allow",
];

/// Config sections all of whose keys run commands or load code (`filter.<driver>.clean`,
/// `alias.<name>`, `includeIf.<cond>.path`): refused as the start of an argument without `/`.
const CODE_RUNNING_SECTIONS: &[&str] = &[
    "filter.",
    "alias.",
    "pager.",
    "hook.",
    "protocol.",
    "credential.",
    "gpg.",
    "mergetool.",
    "difftool.",
    "sendemail.",
    "browser.",
    "man.",
    "trailer.",
    "submodule.",
    "url.",
];

/// The last part of config keys that run commands in any section (`diff.<driver>.textconv`,
/// `remote.<name>.uploadpack`, `tar.<format>.command`, `merge.<driver>.driver`).
const CODE_RUNNING_KEY_ENDS: &[&str] = &[
    ".textconv",
    ".command",
    ".cmd",
    ".driver",
    ".process",
    ".clean",
    ".smudge",
    ".insteadof",
    ".pushinsteadof",
    ".update",
    ".vcs",
    ".uploadpack",
    ".receivepack",
    ".proxy",
];

/// The code-running config key `arg` names or sets, if any: a known key anywhere in it, or a
/// key-shaped argument (no `/`; `key` or `key=value`, also after `--option=`) of a code-running
/// section or ending in a code-running key.
pub fn code_running_key(arg: &str) -> Option<String> {
    let lower = arg.to_lowercase();
    if let Some(key) = CODE_RUNNING_KEYS.iter().find(|k| lower.contains(*k)) {
        return Some((*key).to_string());
    }
    let text = match lower.strip_prefix("--") {
        Some(rest) => rest.split_once('=').map_or(rest, |(_, value)| value),
        None => lower.as_str(),
    };
    let key = text.split_once('=').map_or(text, |(key, _)| key);
    if key.contains('/') || !key.contains('.') {
        return None;
    }
    let section = CODE_RUNNING_SECTIONS.iter().find(|s| key.starts_with(*s));
    let end = CODE_RUNNING_KEY_ENDS.iter().find(|e| key.ends_with(*e));
    section.or(end).map(|_| key.to_string())
}

/// Where a `-C` leads: the directory, relative ones against `dir`.
fn step(dir: &Path, value: &str) -> PathBuf {
    if value.is_empty() {
        dir.to_path_buf()
    } else {
        dir.join(value)
    }
}

/// Why running git in `target` could read another repository's configuration than the one of
/// the trusted directory `root`: `target` must be `root` or below it, with no `.git` of its own
/// on the way (a nested repository, which a download or an archive may have brought).
fn untrusted_repository(target: &Path, root: &Path) -> Option<String> {
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
        match dir.parent() {
            Some(parent) => dir = parent,
            None => break,
        }
    }
    None
}

/// Reads git's global options, refusing what may run code, and returns the index of the
/// subcommand in `args` (`None`: there is none). Every value is consumed where git consumes it,
/// an unknown option before the subcommand is refused, and `-C` must stay in the repository of
/// the trusted directory.
fn global_options(args: &[String], place: Place) -> Result<Option<usize>, String> {
    let refuse = |arg: &str, why: &str| Err(format!("argument injection: `git {arg}` {why}"));
    let cwd = place.cwd;
    let mut dir = cwd.map(Path::to_path_buf);
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') {
            return Ok(Some(i));
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
            if let Some(why) = untrusted_repository(&next, root) {
                return Err(format!("argument injection: {why}"));
            }
            dir = Some(next);
        }
        i += 1;
    }
    Ok(None)
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
    if let (Some(cwd), Some(root)) = (place.cwd, place.trusted_root()) {
        if let Some(why) = untrusted_repository(cwd, root) {
            return Err(format!("argument injection: {why}"));
        }
    }
    let Some(index) = global_options(args, place)? else {
        return Ok(());
    };
    let sub = args[index].as_str();
    if SUBCOMMANDS_REFUSED.contains(&sub) {
        return Err(format!(
            "argument injection: `git {sub}` can run commands and is not allowed"
        ));
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
