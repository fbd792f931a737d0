//! The repository argument of `git fetch`, `pull`, `push` and `ls-remote` as git's
//! parse-options reads their arguments (git 2.47, `git <sub> --help-all`): options may come
//! anywhere before `--`, a long option may be abbreviated to a unique prefix, a value-taking
//! option takes the next argument unless its value is attached, and the repository is the
//! first argument left (every one with `fetch --multiple`). The arguments after it are
//! refspecs or patterns, which never name a repository: `git fetch origin main` is not a
//! fetch from a directory `main`.

/// One subcommand's options: the long ones taking a value (attached or as the next argument),
/// the long ones taking none (flags, and options whose value must be attached), and the short
/// letters of each kind (`rest`: the value is the rest of the cluster, if any).
struct Options {
    sub: &'static str,
    valued: &'static [&'static str],
    flags: &'static [&'static str],
    short_valued: &'static str,
    short_flags: &'static str,
    short_rest: &'static str,
}

const TABLE: &[Options] = &[
    Options {
        sub: "fetch",
        valued: &[
            "upload-pack",
            "jobs",
            "depth",
            "shallow-since",
            "shallow-exclude",
            "deepen",
            "submodule-prefix",
            "recurse-submodules-default",
            "refmap",
            "server-option",
            "negotiation-tip",
            "filter",
        ],
        flags: &[
            "verbose",
            "quiet",
            "all",
            "set-upstream",
            "append",
            "atomic",
            "force",
            "multiple",
            "tags",
            "prefetch",
            "prune",
            "prune-tags",
            "recurse-submodules",
            "dry-run",
            "porcelain",
            "write-fetch-head",
            "keep",
            "update-head-ok",
            "progress",
            "unshallow",
            "refetch",
            "update-shallow",
            "ipv4",
            "ipv6",
            "negotiate-only",
            "auto-maintenance",
            "auto-gc",
            "show-forced-updates",
            "write-commit-graph",
            "stdin",
        ],
        short_valued: "jo",
        short_flags: "vqafmtnkupP46",
        short_rest: "",
    },
    Options {
        sub: "pull",
        valued: &[
            "cleanup",
            "strategy",
            "strategy-option",
            "upload-pack",
            "depth",
            "shallow-since",
            "shallow-exclude",
            "deepen",
            "refmap",
            "server-option",
            "negotiation-tip",
        ],
        flags: &[
            "verbose",
            "quiet",
            "progress",
            "recurse-submodules",
            "rebase",
            "stat",
            "summary",
            "log",
            "signoff",
            "squash",
            "commit",
            "edit",
            "ff",
            "ff-only",
            "verify",
            "verify-signatures",
            "autostash",
            "gpg-sign",
            "allow-unrelated-histories",
            "all",
            "append",
            "force",
            "tags",
            "prune",
            "jobs",
            "dry-run",
            "keep",
            "unshallow",
            "update-shallow",
            "ipv4",
            "ipv6",
            "show-forced-updates",
            "set-upstream",
        ],
        short_valued: "sXo",
        short_flags: "vqnaftpk46",
        short_rest: "rSj",
    },
    Options {
        sub: "push",
        valued: &[
            "repo",
            "receive-pack",
            "exec",
            "push-option",
            "recurse-submodules",
        ],
        flags: &[
            "verbose",
            "quiet",
            "all",
            "branches",
            "mirror",
            "delete",
            "tags",
            "dry-run",
            "porcelain",
            "force",
            "force-with-lease",
            "force-if-includes",
            "thin",
            "progress",
            "prune",
            "no-verify",
            "verify",
            "follow-tags",
            "signed",
            "atomic",
            "set-upstream",
            "ipv4",
            "ipv6",
        ],
        short_valued: "o",
        short_flags: "vqdnfu46",
        short_rest: "",
    },
    Options {
        sub: "ls-remote",
        valued: &["upload-pack", "exec", "sort", "server-option"],
        flags: &[
            "quiet",
            "tags",
            "branches",
            "heads",
            "refs",
            "get-url",
            "exit-code",
            "symref",
        ],
        short_valued: "o",
        short_flags: "qtbh",
        short_rest: "",
    },
];

/// What an option is, as parse-options resolves its name.
#[derive(Debug, PartialEq, Eq)]
enum Kind {
    /// Takes no value, or only an attached one.
    Flag(&'static str),
    /// Takes a value, attached or the next argument.
    Valued(&'static str),
    /// Not in the table (git would refuse it; it may take the next argument).
    Unknown,
}

impl Options {
    /// The long option `name` (without `--`): exact, or the one option it abbreviates;
    /// `no-<x>` negates and takes no value.
    fn long(&self, name: &str) -> Kind {
        let exact = |list: &[&'static str]| list.iter().copied().find(|o| *o == name);
        if let Some(o) = exact(self.flags) {
            return Kind::Flag(o);
        }
        if let Some(o) = exact(self.valued) {
            return Kind::Valued(o);
        }
        if name.starts_with("no-") {
            return Kind::Flag("");
        }
        let flags: Vec<&'static str> = self
            .flags
            .iter()
            .copied()
            .filter(|o| o.starts_with(name))
            .collect();
        let valued: Vec<&'static str> = self
            .valued
            .iter()
            .copied()
            .filter(|o| o.starts_with(name))
            .collect();
        match (&flags[..], &valued[..]) {
            ([o], []) => Kind::Flag(o),
            ([], [o]) => Kind::Valued(o),
            _ => Kind::Unknown,
        }
    }
}

/// The arguments of `sub`'s arguments `rest` that may name the repository it talks to, or
/// `None` when `sub` is not one of the table. The first argument that is no option or an
/// option's value; every one with `fetch --multiple`; a `push --repo` value; and where an
/// option the table does not know may have taken the next argument, the one after it too.
pub fn repository_args<'a>(sub: &str, rest: &'a [String]) -> Option<Vec<&'a str>> {
    let options = TABLE.iter().find(|o| o.sub == sub)?;
    let mut positionals: Vec<(&str, bool)> = Vec::new();
    let mut named = Vec::new();
    let mut multiple = false;
    let mut after_unknown = false;
    let mut i = 0;
    while let Some(arg) = rest.get(i) {
        i += 1;
        if arg == "--" {
            positionals.extend(rest[i..].iter().map(|a| (a.as_str(), false)));
            break;
        }
        if arg == "-" || !arg.starts_with('-') {
            positionals.push((arg, after_unknown));
            after_unknown = false;
            continue;
        }
        after_unknown = false;
        let (kind, inline) = match arg.strip_prefix("--") {
            Some(long) => {
                let (name, inline) = match long.split_once('=') {
                    Some((name, value)) => (name, Some(value)),
                    None => (long, None),
                };
                (options.long(name), inline)
            }
            None => short_cluster(options, &arg[1..]),
        };
        match kind {
            Kind::Flag(o) => multiple |= o == "multiple" || o == "m",
            Kind::Valued(o) => {
                let value = match inline {
                    Some(value) => Some(value),
                    None => {
                        i += 1;
                        rest.get(i - 1).map(String::as_str)
                    }
                };
                if o == "repo" {
                    named.extend(value);
                }
            }
            Kind::Unknown => after_unknown = inline.is_none(),
        }
    }
    if multiple {
        named.extend(positionals.iter().map(|(a, _)| *a));
        return Some(named);
    }
    for (arg, after_unknown) in positionals {
        named.push(arg);
        if !after_unknown {
            break;
        }
    }
    Some(named)
}

/// A cluster of short options (`-qj4`, `-o x`): flags up to a letter taking a value, whose
/// value is the rest of the cluster or else the next argument (`Valued` with no inline value).
fn short_cluster<'a>(options: &Options, cluster: &'a str) -> (Kind, Option<&'a str>) {
    for (at, c) in cluster.char_indices() {
        let rest = &cluster[at + c.len_utf8()..];
        if options.short_valued.contains(c) {
            let inline = (!rest.is_empty()).then_some(rest);
            return (Kind::Valued(""), inline);
        }
        if options.short_rest.contains(c) {
            return (Kind::Flag(""), None);
        }
        if c == 'm' && options.short_flags.contains(c) {
            return (Kind::Flag("m"), None);
        }
        if !options.short_flags.contains(c) {
            return (Kind::Unknown, None);
        }
    }
    (Kind::Flag(""), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Refspec and pattern shapes after the repository are never taken for it; options with a
    /// separate value never hide it.
    #[test]
    fn the_repository_is_told_apart_from_refspecs() {
        let cases: &[(&str, &str, &[&str])] = &[
            ("fetch", "origin main", &["origin"]),
            ("fetch", "origin +a:b", &["origin"]),
            ("fetch", "origin HEAD:main refs/heads/x", &["origin"]),
            ("fetch", "origin tag v1", &["origin"]),
            ("fetch", "--depth 1 ../other main", &["../other"]),
            ("fetch", "--dep 1 ../other main", &["../other"]),
            ("fetch", "--depth=1 ../other main", &["../other"]),
            ("fetch", "-j 4 ../other main", &["../other"]),
            ("fetch", "-qj4 ../other main", &["../other"]),
            ("fetch", "-qo x ../other main", &["../other"]),
            ("fetch", "origin --depth 1 main", &["origin"]),
            ("fetch", "--prune origin main", &["origin"]),
            ("fetch", "--no-depth origin main", &["origin"]),
            ("fetch", "--multiple a ../b main", &["a", "../b", "main"]),
            ("fetch", "-m a ../b", &["a", "../b"]),
            ("fetch", "--mul a ../b", &["a", "../b"]),
            ("fetch", "-- ../x main", &["../x"]),
            ("fetch", "", &[]),
            // An option the table lacks may take the next argument: both are kept.
            ("fetch", "--frobnicate x ../other main", &["x", "../other"]),
            ("fetch", "-Z x ../other main", &["x", "../other"]),
            ("pull", "origin main", &["origin"]),
            ("pull", "-s ort ../other main", &["../other"]),
            ("pull", "-X theirs ../other main", &["../other"]),
            ("pull", "--rebase ../other main", &["../other"]),
            ("pull", "-r ../other main", &["../other"]),
            ("pull", "--cleanup strip ../other main", &["../other"]),
            ("push", "origin HEAD:main", &["origin"]),
            ("push", "origin :del", &["origin"]),
            ("push", "--repo ../other main", &["../other", "main"]),
            ("push", "--repo=../other main", &["../other", "main"]),
            ("push", "-o ci.skip ../other main", &["../other"]),
            (
                "push",
                "--recurse-submodules check ../other main",
                &["../other"],
            ),
            ("push", "-u origin main", &["origin"]),
            ("push", "--force-with-lease origin main", &["origin"]),
            ("ls-remote", "origin main", &["origin"]),
            ("ls-remote", "--sort refname ../other", &["../other"]),
            ("ls-remote", "-h ../other refs/heads/*", &["../other"]),
        ];
        for (sub, args, want) in cases {
            let rest: Vec<String> = args.split_whitespace().map(String::from).collect();
            let got = repository_args(sub, &rest);
            assert_eq!(got.as_deref(), Some(*want), "git {sub} {args}");
        }
        assert_eq!(repository_args("clone", &[]), None);
    }
}
