//! Version managers' installing and version-selecting subcommands, which run or select files
//! the line names (attack review 3's 3: with pyenv allowlisted, `pyenv install ./x` and `pyenv
//! install x` ran the workspace file `x`: python-build sources a definition file, a bash
//! script, given in place of a version, and looks for it in the working directory first).
//!
//! `pyenv install` (python-build), `rbenv install` (ruby-build), `nodenv install` (node-build)
//! and their kin take a version name or a definition file; `-p`/`--patch` applies a patch read
//! from stdin to the source they build and run; without a version they install the one the
//! workspace's version file (`.python-version`, ...) names, which may be a file's name too.
//! `local`, `global`, `shell` and `uninstall` take a version name that is a directory under
//! the manager's root (`../../x` leaves it); asdf and mise take `path:DIR` versions, and their
//! plugin commands add a plugin (scripts they run) from a directory or repository. Each of
//! these passes only with names: no operand or option value that is a path or `path:`, no
//! definition file of the working directory, no patch, no plugin added.

use std::path::Path;

use super::subcommand;

/// One version manager's subcommands that take versions.
struct Manager {
    /// Program names.
    programs: &'static [&'static str],
    /// Subcommands installing the versions given (a definition file in place of a version
    /// when `definitions`), or the ones the workspace's version files name when none is.
    installs: &'static [&'static str],
    /// Whether an install operand may be a definition file (a script it sources), looked up in
    /// the working directory first, and `-p`/`--patch` reads a patch from stdin.
    definitions: bool,
    /// Subcommands selecting or removing versions by name.
    selects: &'static [&'static str],
    /// Subcommands adding a plugin, whose scripts it runs (a space between nested words).
    plugins: &'static [&'static str],
    /// Options of the installing subcommands that list versions and install none.
    listing: &'static [&'static str],
}

/// The `*env` family and its build plugins' shape (`pyenv install [-f] [-kvp] <version>|
/// <definition-file>`).
/// jenv's `add` registers a JDK directory, whose programs its shims then run.
const ENV_SELECTS: &[&str] = &["local", "global", "shell", "uninstall", "virtualenv", "add"];

/// One row per version manager (from each one's `--help`).
const MANAGERS: &[Manager] = &[
    Manager {
        programs: &[
            "pyenv", "rbenv", "nodenv", "goenv", "plenv", "phpenv", "luaenv", "scalaenv", "sbtenv",
            "tfenv", "swiftenv", "jenv",
        ],
        installs: &["install"],
        definitions: true,
        selects: ENV_SELECTS,
        plugins: &[],
        listing: &["-l", "--list", "-L", "--list-all"],
    },
    Manager {
        programs: &["asdf"],
        installs: &["install"],
        definitions: false,
        selects: &["local", "global", "shell", "set", "uninstall"],
        plugins: &["plugin add", "plugin-add", "plugin update", "plugin-update"],
        listing: &[],
    },
    Manager {
        programs: &["mise", "rtx"],
        installs: &["install", "i"],
        definitions: false,
        selects: &[
            "use",
            "u",
            "local",
            "global",
            "shell",
            "sh",
            "uninstall",
            "rm",
        ],
        plugins: &[
            "plugins install",
            "plugins i",
            "plugins add",
            "plugins a",
            "plugins link",
            "plugins ln",
            "plugin install",
            "plugin i",
            "plugin add",
            "plugin a",
            "plugin link",
            "plugin ln",
            "link",
        ],
        listing: &[],
    },
];

/// The commands of the `*env` family (pyenv, rbenv, nodenv, goenv, ...: their `libexec` and the
/// plugins they ship or commonly install), and their version and help options. Any other first
/// word makes the manager run the program `pyenv-<word>` it finds on PATH (a workspace file
/// when PATH holds `.` or a relative entry: attack review 4's 2 ran `./pyenv-pwn`); its
/// internal `version-file-read` and `version-file-write` read and write any file (attack review
/// 4's 3), so they are not among them.
const ENV_COMMANDS: &[&str] = &[
    "-v",
    "--version",
    "-h",
    "--help",
    "commands",
    "completions",
    "exec",
    "global",
    "help",
    "hooks",
    "init",
    "install",
    "latest",
    "local",
    "prefix",
    "rehash",
    "root",
    "shell",
    "shims",
    "uninstall",
    "version",
    "version-file",
    "version-name",
    "version-origin",
    "versions",
    "whence",
    "which",
    "virtualenv",
    "virtualenvs",
    "virtualenv-prefix",
    "virtualenv-delete",
    "activate",
    "deactivate",
    "doctor",
    "update",
    "add",
    "remove",
];

/// The build plugins run on their own (`python-build <definition> <prefix>`): they source the
/// definition and install into any directory, so only their listing and version options pass.
const BUILDERS: &[&str] = &["python-build", "ruby-build", "node-build", "go-build"];

/// What the builders print and exit with.
const BUILDER_INFO: &[&str] = &["--definitions", "-l", "--list", "--version", "-h", "--help"];

/// Why `value` (an operand, or an option's value) could name a file or directory rather than a
/// version: it holds a `/`, starts with `.` or `~`, or is a `path:` version.
fn path_like(value: &str) -> Option<&'static str> {
    if value.contains('/') || value.starts_with(['.', '~']) {
        return Some("is a path");
    }
    if value.to_ascii_lowercase().starts_with("path:") {
        return Some("is a `path:` version (a directory whose programs run)");
    }
    None
}

/// The refusal of `shown` (bounded) for `why`.
fn refuse(name: &str, sub: &str, arg: &str, why: &str) -> Result<(), String> {
    Err(format!(
        "argument injection: `{name} {sub}` `{}` {why}",
        arg.chars().take(64).collect::<String>()
    ))
}

/// Checks a version manager's arguments ([`MANAGERS`]; `pyenv-install` is `pyenv install`)
/// and refuses the build plugins ([`BUILDERS`]) beyond their listing options; `cwd` is where
/// it runs. Other programs pass.
pub fn check_version_manager(
    name: &str,
    args: &[String],
    cwd: Option<&Path>,
) -> Result<(), String> {
    if BUILDERS.contains(&name) {
        if !args.is_empty() && args.iter().all(|a| BUILDER_INFO.contains(&a.as_str())) {
            return Ok(());
        }
        return Err(format!(
            "argument injection: `{name}` sources the definition file it is given (a bash script; one of the working directory is taken first) and installs into any directory: only {} pass",
            BUILDER_INFO.join(", ")
        ));
    }
    let joined: Vec<String>;
    let (row, program, args) = match MANAGERS.iter().find(|row| row.programs.contains(&name)) {
        Some(row) => (row, name, args),
        None => {
            // `pyenv-install x`: the subcommand's own program, as the manager runs it.
            let Some((row, program, sub)) = name.split_once('-').and_then(|(program, sub)| {
                MANAGERS
                    .iter()
                    .find(|row| row.programs.contains(&program))
                    .map(|row| (row, program, sub))
            }) else {
                return Ok(());
            };
            joined = std::iter::once(sub.to_string())
                .chain(args.iter().cloned())
                .collect();
            (row, program, joined.as_slice())
        }
    };
    if let Some(plugin) = row.plugins.iter().find(|path| {
        let path: Vec<&str> = path.split(' ').collect();
        subcommand::find_path(args, &path).is_some()
    }) {
        return Err(format!(
            "argument injection: `{program} {plugin}` adds a plugin or links a tool from the directory or repository given, and the manager runs its scripts or programs"
        ));
    }
    // The `*env` family reads no option before its command: the first word is the command.
    if row.definitions {
        // `--debug` first sets PYENV_DEBUG and is shifted off.
        if let Some(first) = args.iter().find(|arg| *arg != "--debug") {
            if !ENV_COMMANDS.contains(&first.as_str()) {
                let shown: String = first.chars().take(64).collect();
                return Err(format!(
                    "argument injection: `{program} {shown}` is no command of {program}'s own: it runs the program `{program}-{shown}` it finds on PATH (a file of the workspace when PATH holds `.` or a relative entry), or reads or writes the file given (`version-file-read`, `version-file-write`)"
                ));
            }
        }
    }
    let Some((at, sub)) = subcommand::candidates(args)
        .into_iter()
        .find(|(_, word)| row.installs.contains(word) || row.selects.contains(word))
    else {
        return Ok(());
    };
    let installs = row.installs.contains(&sub);
    let mut operands = 0;
    let mut listing = false;
    let mut options_done = false;
    for (index, arg) in args.iter().enumerate() {
        if index == at {
            continue;
        }
        if !options_done && arg == "--" {
            options_done = true;
            continue;
        }
        if !options_done && arg.len() > 1 && arg.starts_with('-') {
            listing |= row.listing.contains(&arg.as_str());
            if installs && row.definitions && patch_option(arg) {
                return refuse(
                    program,
                    sub,
                    arg,
                    "applies a patch read from stdin to the source it builds and runs",
                );
            }
            if let Some(why) = arg.split_once('=').and_then(|(_, value)| path_like(value)) {
                return refuse(program, sub, arg, why);
            }
            continue;
        }
        if index > at {
            operands += 1;
        }
        if let Some(why) = path_like(arg) {
            return refuse(program, sub, arg, why);
        }
        if installs && row.definitions && index > at {
            match cwd {
                None => {
                    return refuse(
                        program,
                        sub,
                        arg,
                        "may name a definition file (a bash script it sources) of the working directory, which is unknown",
                    )
                }
                Some(dir) if std::fs::symlink_metadata(dir.join(arg)).is_ok() => {
                    return refuse(
                        program,
                        sub,
                        arg,
                        "names a file of the working directory, which it sources as a definition (a bash script)",
                    )
                }
                Some(_) => {}
            }
        }
    }
    if installs && operands == 0 && !listing {
        return Err(format!(
            "argument injection: `{program} {sub}` without a version installs the ones the workspace's version files name (a definition file of the workspace among them)"
        ));
    }
    Ok(())
}

/// Whether `arg` is the build plugins' `-p`/`--patch` (alone or in a short cluster).
fn patch_option(arg: &str) -> bool {
    match arg.strip_prefix("--") {
        Some(long) => {
            let name = long.split_once('=').map_or(long, |(n, _)| n);
            name.len() >= 2 && "patch".starts_with(name)
        }
        None => arg[1..].contains('p'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::{argv, Sandbox};

    /// (program, arguments, whether approved, what the refusal names). Attack review 3's 3
    /// (pyenv install x, ./x) and its class.
    const CASES: &[(&str, &str, bool, &str)] = &[
        ("pyenv", "install x", false, "definition"),
        ("pyenv", "install ./x", false, "./x"),
        ("pyenv", "install /tmp/x", false, "path"),
        ("pyenv", "install -f ../x", false, "../x"),
        ("pyenv", "install --patch 3.12.1", false, "--patch"),
        ("pyenv", "install -kp 3.12.1", false, "-kp"),
        ("pyenv", "install -p 3.12.1", false, "stdin"),
        ("pyenv", "install", false, "version files"),
        ("pyenv", "install -s", false, "version files"),
        ("pyenv", "local ./x", false, "./x"),
        ("pyenv", "local ../../../tmp/v", false, "path"),
        ("pyenv", "global ~/v", false, "~/v"),
        ("pyenv", "shell ./x", false, "pyenv shell"),
        ("pyenv", "uninstall -f ../../x", false, "uninstall"),
        ("pyenv", "virtualenv ./x venv", false, "./x"),
        ("jenv", "add ./jdk", false, "jenv add"),
        ("pyenv", "--debug install x", false, "definition"),
        // Attack review 4's 2 and 3: a word that is no command of the manager's runs
        // `pyenv-<word>` from PATH; the internal file readers and writers are no commands.
        ("pyenv", "pwn", false, "`pyenv-pwn`"),
        ("rbenv", "pwn x", false, "`rbenv-pwn`"),
        ("nodenv", "--foo", false, "no command"),
        (
            "pyenv",
            "version-file-write /tmp/f system",
            false,
            "no command",
        ),
        (
            "pyenv",
            "version-file-read /etc/shadow",
            false,
            "no command",
        ),
        ("pyenv", "sh-shell x", false, "no command"),
        ("pyenv", "--debug pwn", false, "`pyenv-pwn`"),
        ("pyenv", "versions --bare", true, ""),
        ("pyenv", "--version", true, ""),
        ("pyenv", "--debug versions", true, ""),
        ("pyenv", "which python", true, ""),
        ("rbenv", "version-name", true, ""),
        ("pyenv", "root", true, ""),
        ("pyenv-install", "x", false, "pyenv install"),
        ("pyenv-local", "./x", false, "pyenv local"),
        ("rbenv", "install ./x", false, "rbenv install"),
        ("rbenv", "install x", false, "definition"),
        ("rbenv", "install --patch 3.3.0", false, "--patch"),
        ("nodenv", "install x", false, "nodenv install"),
        ("nodenv", "install ./x", false, "./x"),
        ("goenv", "install ./x", false, "goenv install"),
        ("asdf", "install", false, "asdf install"),
        ("asdf", "install ../../x 1.0", false, "../../x"),
        ("asdf", "local nodejs path:./n", false, "path:"),
        ("asdf", "set nodejs path:n", false, "path:"),
        ("asdf", "plugin add x ./plugin", false, "asdf plugin add"),
        (
            "asdf",
            "plugin-add x https://example.com/p.git",
            false,
            "plugin",
        ),
        ("mise", "install", false, "mise install"),
        ("mise", "use node@path:./n", false, "path:"),
        ("mise", "use --path=./mise.toml node@20", false, "--path"),
        (
            "mise",
            "use -p ~/.config/mise/config.toml node@20",
            false,
            "path",
        ),
        ("mise", "-C ../other install node@20", false, "../other"),
        ("mise", "plugins link x ./p", false, "mise plugins link"),
        (
            "mise",
            "plugins install x https://example.com/p.git",
            false,
            "plugin",
        ),
        ("python-build", "./x /tmp/p", false, "python-build"),
        ("ruby-build", "3.3.0 /usr/local", false, "ruby-build"),
        ("node-build", "20.11.0 ~/.n", false, "node-build"),
        // Versions by name, listing and reading pass.
        ("pyenv", "install 3.12.1", true, ""),
        ("pyenv", "install -s 3.12.1", true, ""),
        ("pyenv", "install -v 3.12.1 3.11.9", true, ""),
        ("pyenv", "install --list", true, ""),
        ("pyenv", "install -l", true, ""),
        ("pyenv", "versions", true, ""),
        ("pyenv", "version", true, ""),
        ("pyenv", "local 3.12.1", true, ""),
        ("pyenv", "global system", true, ""),
        ("pyenv", "which python", true, ""),
        ("pyenv", "prefix", true, ""),
        ("pyenv-install", "3.12.1", true, ""),
        ("rbenv", "install 3.3.0", true, ""),
        ("rbenv", "install -L", true, ""),
        ("nodenv", "install 20.11.0", true, ""),
        ("asdf", "install nodejs 20.11.0", true, ""),
        ("asdf", "current", true, ""),
        ("asdf", "plugin list", true, ""),
        ("mise", "install node@20", true, ""),
        ("mise", "use node@20", true, ""),
        ("mise", "ls", true, ""),
        ("mise", "plugins ls", true, ""),
        ("python-build", "--definitions", true, ""),
        ("ruby-build", "--version", true, ""),
    ];

    #[test]
    fn versions_are_names_never_files() {
        let sandbox = Sandbox::new("version-managers");
        let ws = sandbox.dir("ws");
        sandbox.file("ws/x", 0o644);
        for (program, args, want, names) in CASES {
            let got = check_version_manager(program, &argv(args), Some(&ws));
            assert_eq!(got.is_ok(), *want, "{program} {args}: {got:?}");
            if let Err(why) = got {
                assert!(
                    why.contains(names),
                    "{program} {args}: {why} (want {names})"
                );
            }
        }
        // Without a working directory any version may be a definition file there.
        assert!(check_version_manager("pyenv", &argv("install 3.12.1"), None).is_err());
        assert!(check_version_manager("pyenv", &argv("local 3.12.1"), None).is_ok());
    }
}
