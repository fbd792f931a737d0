//! Argument injection through allowlisted programs: options that make a program run another
//! command (or write where it should not), kept as one table row per program.

use super::sed::check_sed;

/// The forbidden arguments of one program.
struct Rule {
    /// Program names (real file name or typed basename).
    programs: &'static [&'static str],
    /// Short option letters refused anywhere in a `-abc` cluster (a letter may also be a
    /// value; refusing more is fine).
    short: &'static str,
    /// Long options refused as `--name`, `--name=value` or any abbreviation `--na...`.
    long: &'static [&'static str],
    /// Arguments refused when equal.
    exact: &'static [&'static str],
    /// Substrings refused anywhere in an argument (compared in lower case).
    substrings: &'static [&'static str],
    /// Whether the first argument is a short-option cluster even without `-` (old tar style).
    bare_cluster_first: bool,
}

const RULES: &[Rule] = &[
    Rule {
        programs: &["git"],
        short: "c",
        long: &[
            "config-env",
            "config",
            "exec-path",
            "upload-pack",
            "receive-pack",
            "exec",
            "template",
            "output",
            "extcmd",
            "tool",
            "open-files-in-pager",
        ],
        exact: &[],
        substrings: &[
            "ext::",
            "fd::",
            "core.pager",
            "core.sshcommand",
            "core.fsmonitor",
            "core.hookspath",
            "core.editor",
            "core.gitproxy",
            "core.askpass",
            "diff.external",
            "alias.",
            "sequence.editor",
            "credential.helper",
            "gpg.program",
            "gpg.ssh.program",
            "uploadpack.",
            "receivepack.",
            "merge.tool",
            "diff.tool",
            "mergetool.",
            "difftool.",
            "ssh.variant",
        ],
        bare_cluster_first: false,
    },
    Rule {
        programs: &["find"],
        short: "",
        long: &[],
        exact: &[
            "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf",
            "-fls",
        ],
        substrings: &[],
        bare_cluster_first: false,
    },
    Rule {
        programs: &["tar", "gtar", "bsdtar"],
        short: "IF",
        long: &[
            "to-command",
            "checkpoint-action",
            "use-compress-program",
            "rsh-command",
            "info-script",
            "new-volume-script",
            "rmt-command",
        ],
        exact: &[],
        substrings: &[],
        bare_cluster_first: true,
    },
    Rule {
        programs: &["rsync"],
        short: "eM",
        long: &["rsh", "rsync-path", "remote-option", "daemon", "config"],
        exact: &[],
        substrings: &[],
        bare_cluster_first: false,
    },
    Rule {
        programs: &["ssh", "scp"],
        short: "oFS",
        long: &[],
        exact: &[],
        substrings: &["proxycommand", "localcommand"],
        bare_cluster_first: false,
    },
    Rule {
        programs: &["sftp"],
        short: "oFSD",
        long: &[],
        exact: &[],
        substrings: &["proxycommand", "localcommand"],
        bare_cluster_first: false,
    },
    Rule {
        programs: &["zip"],
        short: "T",
        long: &["unzip-command"],
        exact: &[],
        substrings: &[],
        bare_cluster_first: false,
    },
];

/// Git subcommands that run configured or given commands.
const GIT_SUBCOMMANDS_REFUSED: &[&str] = &[
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
    "shell",
    "http-backend",
    "credential",
    "config",
    "hook",
    "remote-ext",
    "remote-fd",
    "archimport",
    "cvsimport",
    "svn",
    "p4",
];

/// Git subcommands where `-u` means `--upload-pack`.
const GIT_UPLOAD_PACK_U: &[&str] = &["clone", "fetch", "pull", "ls-remote"];

fn check_rule(rule: &Rule, program: &str, args: &[String]) -> Result<(), String> {
    let refuse = |arg: &str, what: &str| {
        Err(format!(
            "argument injection: `{program}` {what} `{arg}` is not allowed"
        ))
    };
    for (index, arg) in args.iter().enumerate() {
        if rule.exact.contains(&arg.as_str()) {
            return refuse(arg, "action");
        }
        let lower = arg.to_lowercase();
        if let Some(sub) = rule.substrings.iter().find(|s| lower.contains(*s)) {
            return refuse(arg, &format!("argument containing `{sub}`:"));
        }
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(n, _)| n);
            if !name.is_empty() && rule.long.iter().any(|l| l.starts_with(name)) {
                return refuse(arg, "option");
            }
            continue;
        }
        let cluster = match arg.strip_prefix('-') {
            Some(c) => Some(c),
            None if rule.bare_cluster_first && index == 0 => Some(arg.as_str()),
            None => None,
        };
        if let Some(cluster) = cluster {
            if cluster.chars().any(|c| rule.short.contains(c)) {
                return refuse(arg, "option");
            }
        }
    }
    Ok(())
}

/// The git subcommand: the first argument that is not a global option (or its value).
fn git_subcommand(args: &[String]) -> Option<&str> {
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        if matches!(
            arg,
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace"
        ) {
            i += 2;
        } else if arg.starts_with('-') {
            i += 1;
        } else {
            return Some(arg);
        }
    }
    None
}

fn check_git(args: &[String]) -> Result<(), String> {
    let Some(sub) = git_subcommand(args) else {
        return Ok(());
    };
    if GIT_SUBCOMMANDS_REFUSED.contains(&sub) {
        return Err(format!(
            "argument injection: `git {sub}` can run commands and is not allowed"
        ));
    }
    let short_refused = match sub {
        s if GIT_UPLOAD_PACK_U.contains(&s) => Some('u'),
        "rebase" => Some('x'),
        "grep" => Some('O'),
        _ => None,
    };
    if let Some(letter) = short_refused {
        if let Some(arg) = args
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

/// Checks `args` (argv without argv[0]) of the program known as `names` (its real file name and
/// typed basename) for argument injection.
pub fn check_arguments(names: &[&str], args: &[String]) -> Result<(), String> {
    for name in names {
        if let Some(rule) = RULES.iter().find(|r| r.programs.contains(name)) {
            check_rule(rule, name, args)?;
        }
        match *name {
            "git" => check_git(args)?,
            "sed" | "gsed" => check_sed(args)?,
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::argv;

    #[test]
    fn injection_tables() {
        let cases: &[(&str, &str, bool)] = &[
            ("git", "status", true),
            ("git", "log --oneline -n 5", true),
            ("git", "commit -am msg", true),
            ("git", "push -u origin main", true),
            ("git", "add -u", true),
            ("git", "diff --ext-diff", true),
            ("git", "-c core.pager=sh log", false),
            ("git", "--config-env=core.pager=X log", false),
            ("git", "--exec-path=/tmp status", false),
            ("git", "clone --upload-pack=sh x", false),
            ("git", "clone --upload-pa=sh x", false),
            ("git", "clone -u sh x", false),
            ("git", "push --receive-pack=sh x", false),
            ("git", "archive --remote=x --exec=sh", false),
            ("git", "clone ext::sh", false),
            ("git", "fetch fd::3", false),
            ("git", "log --format=core.fsmonitor", false),
            ("git", "rebase -x sh main", false),
            ("git", "rebase --exec=sh main", false),
            ("git", "diff --output=/tmp/x", false),
            ("git", "config alias.x !sh", false),
            ("git", "submodule foreach sh", false),
            ("git", "-C dir status", true),
            ("git", "grep -O sh pattern", false),
            ("git", "grep --open-files-in-pager=sh x", false),
            ("git", "grep -n pattern", true),
            ("git", "help -w log", false),
            ("rsync", "--daemon --config=x", false),
            ("find", ". -name x", true),
            ("find", ". -exec sh ;", false),
            ("find", ". -execdir sh ;", false),
            ("find", ". -ok sh ;", false),
            ("find", ". -delete", false),
            ("find", ". -fprintf out x", false),
            ("tar", "-xzf a.tgz", true),
            ("tar", "xzf a.tgz", true),
            ("tar", "--to-command=sh -xf a", false),
            ("tar", "--to-com=sh -xf a", false),
            ("tar", "-cf x --checkpoint-action=exec=sh .", false),
            ("tar", "-I sh -cf x .", false),
            ("tar", "cIf sh x .", false),
            ("tar", "-xF sh", false),
            ("rsync", "-avz a b", true),
            ("rsync", "-e sh a b", false),
            ("rsync", "-avze sh a b", false),
            ("rsync", "--rsh=sh a b", false),
            ("rsync", "--rsync-path=sh a b", false),
            ("ssh", "host uptime", true),
            ("ssh", "-oProxyCommand=sh x", false),
            ("ssh", "-o ProxyCommand=sh x", false),
            ("ssh", "-F cfg x", false),
            ("scp", "-S sh a b", false),
            ("sftp", "-D sh host", false),
            ("zip", "-r a.zip dir", true),
            ("zip", "-T a.zip x", false),
            ("zip", "-TT sh a.zip x", false),
            ("zip", "--unzip-command sh a.zip", false),
            ("sed", "-n e id", false),
            ("sed", "s/a/b/", true),
            ("ls", "-exec", true),
        ];
        for (program, args, want) in cases {
            let got = check_arguments(&[program], &argv(args));
            assert_eq!(got.is_ok(), *want, "{program} {args}: {got:?}");
        }
    }
}
