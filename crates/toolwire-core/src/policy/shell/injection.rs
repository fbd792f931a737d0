//! Argument injection through allowlisted programs: options that make a program run another
//! command (or write where it should not), kept as one table row per program.

use std::path::Path;

use super::code_args::{check_make, check_package_manager, check_sqlite, check_ssh};
use super::git::check_git;
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
        // Config keys are checked by `git::code_running_key`.
        substrings: &["ext::", "fd::"],
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
        programs: &["ssh"],
        // `-I` loads a PKCS#11 library, `-E` appends to any file.
        short: "oFSIE",
        long: &[],
        exact: &[],
        substrings: &["proxycommand", "localcommand"],
        bare_cluster_first: false,
    },
    Rule {
        programs: &["scp"],
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
    Rule {
        programs: &["npm", "npx", "pnpm", "pnpx", "yarn", "bunx"],
        // `-c`: `npm exec -c`, `npx -c`, `pnpm exec -c` run a shell command.
        short: "c",
        long: &[
            "call",
            "shell-mode",
            "script-shell",
            "shell",
            "node-options",
            "editor",
            "browser",
            "git",
            "userconfig",
            "init-module",
            "onload-script",
        ],
        exact: &[],
        substrings: &[],
        bare_cluster_first: false,
    },
    Rule {
        programs: &["socat"],
        short: "",
        long: &[],
        exact: &[],
        // Address types that run a program (case-insensitive).
        substrings: &["exec:", "system:", "shell:"],
        bare_cluster_first: false,
    },
    Rule {
        programs: &["nc", "ncat", "netcat"],
        short: "ec",
        long: &["exec", "sh-exec", "lua-exec"],
        exact: &[],
        substrings: &[],
        bare_cluster_first: false,
    },
    Rule {
        programs: &["tcpdump"],
        // `-z`: a post-rotate command.
        short: "z",
        long: &[],
        exact: &[],
        substrings: &[],
        bare_cluster_first: false,
    },
    Rule {
        programs: &["wget"],
        short: "e",
        long: &["use-askpass", "execute", "config"],
        exact: &[],
        substrings: &[],
        bare_cluster_first: false,
    },
    Rule {
        programs: &["openssl"],
        short: "",
        long: &[],
        // Options that load a shared library.
        exact: &["-engine", "-provider", "-provider-path"],
        substrings: &[],
        bare_cluster_first: false,
    },
];

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

/// Where a command runs: its working directory, and the directory whose repository is trusted
/// (the working directory when not given).
#[derive(Clone, Copy, Debug, Default)]
pub struct Place<'a> {
    /// The working directory.
    pub cwd: Option<&'a Path>,
    /// The trusted directory (the workspace root).
    pub root: Option<&'a Path>,
}

impl<'a> Place<'a> {
    /// Runs in `cwd`, which is trusted.
    pub fn at(cwd: &'a Path) -> Self {
        Place {
            cwd: Some(cwd),
            root: None,
        }
    }

    /// The trusted directory: `root`, else the working directory.
    pub fn trusted_root(&self) -> Option<&'a Path> {
        self.root.or(self.cwd)
    }
}

/// Checks `args` (argv without argv[0]) of the program known as `names` (its real file name,
/// typed basename and their [variant names](super::names::variant_names)) for argument
/// injection; `place` is where the command runs.
pub fn check_arguments(names: &[&str], args: &[String], place: Place) -> Result<(), String> {
    for name in names {
        if let Some(rule) = RULES.iter().find(|r| r.programs.contains(name)) {
            check_rule(rule, name, args)?;
        }
        match *name {
            "git" => check_git(args, place)?,
            "sed" | "gsed" => check_sed(args)?,
            "ssh" => check_ssh(args)?,
            "sqlite3" | "sqlite" => check_sqlite(args)?,
            "make" | "gmake" | "bmake" | "pmake" => check_make(args, place.cwd)?,
            "npm" | "pnpm" | "yarn" => check_package_manager(name, args)?,
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
            // `-C` needs the working directory to judge its repository.
            ("git", "-C dir status", false),
            ("git", "--attr-source x config include.path /tmp/x", false),
            ("git", "--shallow-file x status", false),
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
            ("ssh", "host uptime", false),
            ("ssh", "-N -L 1:h:2 host", true),
            ("ssh", "-I /tmp/p11.so -N host", false),
            ("npx", "tsc -p .", true),
            ("npx", "-c id", false),
            ("npm", "exec -c id", false),
            ("npm", "exec --call=id", false),
            ("npm", "test --script-shell=/tmp/x", false),
            ("npm", "install --global x", true),
            ("pnpm", "exec id", false),
            ("make", "--eval=x", false),
            ("make", "all", true),
            ("sqlite3", "db .shell", false),
            ("sqlite3", "db 'select 1'", true),
            ("socat", "- EXEC:sh", false),
            ("socat", "- system:sh", false),
            ("socat", "- TCP:host:80", true),
            ("ncat", "--sh-exec id host 1", false),
            ("nc", "-e /bin/sh host 1", false),
            ("nc", "host 80", true),
            ("tcpdump", "-z /tmp/x -w f", false),
            ("wget", "--use-askpass=/tmp/x u", false),
            ("wget", "-O out u", true),
            ("openssl", "req -engine /tmp/x.so", false),
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
            let got = check_arguments(&[program], &argv(args), Place::default());
            assert_eq!(got.is_ok(), *want, "{program} {args}: {got:?}");
        }
    }
}
