//! rustup, one binary installed under many names: called `rustup` it is its own CLI (whose
//! `run` is a wrapper, [`SUBCOMMAND_WRAPPERS`](super::wrappers::SUBCOMMAND_WRAPPERS)); called
//! `cargo`, `rustc`, ... (the links in `~/.cargo/bin`) it is a proxy running that tool of the
//! toolchain it picks: the one `+toolchain` names, else the one a `rust-toolchain.toml` (or
//! `rust-toolchain`) file of the working directory or a directory above it names, which may be
//! a `path` to a directory of the workspace, whose programs then run (attack review 2, repro 6).

use std::path::Path;

/// The tools rustup installs proxies for.
const PROXIES: &[&str] = &[
    "cargo",
    "rustc",
    "rustdoc",
    "rustfmt",
    "cargo-fmt",
    "cargo-clippy",
    "clippy-driver",
    "cargo-miri",
    "rust-analyzer",
    "rls",
    "rust-gdb",
    "rust-gdbgui",
    "rust-lldb",
];

/// The toolchain files rustup reads, in the order it looks for them in each directory.
const TOOLCHAIN_FILES: &[&str] = &["rust-toolchain", "rust-toolchain.toml"];

/// How much of a toolchain file is read (rustup's are a few lines).
const MAX_TOOLCHAIN_FILE: u64 = 64 * 1024;

/// rustup subcommands that run a program besides the tools (`doc` opens a browser) or make a
/// directory a toolchain (`toolchain link NAME DIR`: its programs run later).
const CLI_REFUSED: &[&str] = &["doc", "link"];

/// Checks rustup's arguments: `names` are the program's names (the typed one among them says
/// whether it runs as a proxy), `cwd` where it runs.
pub fn check_rustup(names: &[&str], args: &[String], cwd: Option<&Path>) -> Result<(), String> {
    let Some(proxy) = names.iter().find(|name| PROXIES.contains(name)) else {
        // A path where the CLI takes toolchain names (`override set ./tc`) may name a
        // toolchain directory too.
        return match args.iter().take_while(|a| *a != "--").find(|a| {
            CLI_REFUSED.contains(&a.as_str())
                || (!a.starts_with('-') && (a.contains('/') || a.starts_with('.')))
        }) {
            Some(arg) => Err(format!(
                "argument injection: `rustup {}` opens a browser or makes a directory a toolchain whose programs run",
                arg.chars().take(64).collect::<String>()
            )),
            None => Ok(()),
        };
    };
    if let Some(toolchain) = args.first().and_then(|a| a.strip_prefix('+')) {
        if toolchain.is_empty()
            || toolchain.contains(['/', '\\'])
            || toolchain.starts_with(['.', '~'])
        {
            return Err(format!(
                "argument injection: `{proxy} +{}` names a toolchain by its path: the programs there run",
                toolchain.chars().take(64).collect::<String>()
            ));
        }
        return Ok(());
    }
    let Some(cwd) = cwd else {
        return Err(format!(
            "`{proxy}` is rustup's proxy, which runs the toolchain a rust-toolchain file of the working directory names, and the working directory is unknown"
        ));
    };
    for dir in cwd.ancestors() {
        for file in TOOLCHAIN_FILES {
            let path = dir.join(file);
            if std::fs::symlink_metadata(&path).is_err() {
                continue;
            }
            if let Some(why) = toolchain_path(&path) {
                return Err(format!(
                    "`{proxy}` is rustup's proxy and `{}` {why}: the programs there run (give `+<toolchain>`)",
                    path.display()
                ));
            }
            // rustup stops at the first toolchain file it finds.
            return Ok(());
        }
    }
    Ok(())
}

/// Why the toolchain file at `path` may name a toolchain directory: a `path` key, a one-line
/// name holding a `/`, or a file that cannot be read whole.
fn toolchain_path(path: &Path) -> Option<&'static str> {
    use std::io::Read;
    let mut text = String::new();
    let read = std::fs::File::open(path)
        .and_then(|file| file.take(MAX_TOOLCHAIN_FILE + 1).read_to_string(&mut text));
    if read.is_err() || text.len() as u64 > MAX_TOOLCHAIN_FILE {
        return Some("cannot be read whole");
    }
    let toml = text.contains('[') || text.contains('=');
    let names_path = text.lines().any(|line| {
        let line = line.trim_start().trim_start_matches(['"', '\'']);
        line.strip_prefix("path").is_some_and(|rest| {
            rest.trim_start_matches(['"', '\''])
                .trim_start()
                .starts_with('=')
        })
    });
    if names_path || (!toml && text.contains(['/', '\\'])) {
        return Some("names a toolchain by its path");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::{argv, Sandbox};

    #[test]
    fn rustup_proxies_run_no_toolchain_of_the_workspace() {
        let sandbox = Sandbox::new("rustup-proxies");
        let ws = sandbox.dir("ws");
        let sub = sandbox.dir("ws/sub");
        let proxy = ["rustup", "cargo"];
        let cli = ["rustup"];
        let cases: &[(&[&str], &str, Option<&str>, bool)] = &[
            (&proxy, "+stable --version", None, true),
            (&proxy, "+nightly-2024-01-01 --version", None, true),
            (&proxy, "+./tc --version", None, false),
            (&proxy, "+/tmp/tc --version", None, false),
            (&proxy, "+ --version", None, false),
            (&proxy, "--version", None, true),
            (
                &proxy,
                "--version",
                Some("[toolchain]\nchannel = \"stable\"\n"),
                true,
            ),
            (&proxy, "--version", Some("stable\n"), true),
            (
                &proxy,
                "--version",
                Some("[toolchain]\npath = \"./tc\"\n"),
                false,
            ),
            (
                &proxy,
                "--version",
                Some("[toolchain]\n  \"path\"= '/x'\n"),
                false,
            ),
            (&proxy, "--version", Some("./tc\n"), false),
            (
                &proxy,
                "+stable --version",
                Some("[toolchain]\npath = \"./tc\"\n"),
                true,
            ),
            (&cli, "show", None, true),
            (&cli, "toolchain list", None, true),
            (&cli, "toolchain link evil ./tc", None, false),
            (&cli, "doc", None, false),
            (&cli, "override set ./tc", None, false),
            (&cli, "default /tmp/tc", None, false),
            (&cli, "default stable", None, true),
        ];
        for (names, args, file, want) in cases {
            let toolchain = ws.join("rust-toolchain.toml");
            match file {
                Some(text) => std::fs::write(&toolchain, text).unwrap(),
                None => {
                    let _ = std::fs::remove_file(&toolchain);
                }
            }
            // Found from a directory below too.
            let got = check_rustup(names, &argv(args), Some(&sub));
            assert_eq!(got.is_ok(), *want, "{names:?} {args} {file:?}: {got:?}");
        }
        assert!(check_rustup(&proxy, &argv("--version"), None).is_err());
    }
}
