//! Deno and Bun, JavaScript runtimes whose first word is a subcommand: `deno task build` runs a
//! deno.json task (any shell command), `deno test` and `bun test` the workspace's tests, `bun
//! run build` a package.json script, `deno run main.ts` and `bun main.ts` a workspace file (as
//! `node main.js` does), `deno eval` and `bun -e` program text. One table per runtime says what
//! each subcommand does; a word that is none of them is a file to run (it must exist) for
//! deno, and a file or else a package.json script for bun. New-user review 3, item 5: the
//! subcommands were read as script names (`deno test` passed when a file `test` existed).

use std::path::Path;

use super::packages::{runs_workspace_code, shown_call, PACKAGE_PROGRAM};
use super::wrappers::script_operand;

/// What a runtime's subcommand does.
#[derive(Clone, Copy)]
enum Does {
    /// Runs no code the workspace holds (formatting, type checking, documentation).
    Nothing,
    /// Runs code the workspace holds: what, for the reason.
    WorkspaceCode(&'static str),
    /// Runs the file its first operand names, after the options that load nothing.
    File,
    /// Runs program text given on the line or read from the terminal.
    ProgramText,
}

/// A runtime: its names, the options alone that print and exit, its subcommands.
struct Runtime {
    name: &'static str,
    info: &'static [&'static str],
    subcommands: &'static [(&'static [&'static str], Does)],
    /// What a word that is neither a subcommand nor an existing file runs.
    other_word: &'static str,
}

const SCRIPTS: &str = "package.json scripts or install scripts";
const DENO_TASKS: &str = "deno.json tasks and package.json scripts (any shell command)";
const TESTS: &str = "the workspace's tests and the modules they import";
const BUNDLE: &str =
    "the workspace's modules and plugins while it bundles (Bun macros run at build time)";

const RUNTIMES: &[Runtime] = &[
    Runtime {
        name: "deno",
        info: &["-V", "--version", "-h", "--help"],
        subcommands: &[
            (
                &[
                    "fmt",
                    "check",
                    "doc",
                    "info",
                    "types",
                    "help",
                    "completions",
                ],
                Does::Nothing,
            ),
            (&["task"], Does::WorkspaceCode(DENO_TASKS)),
            (&["test", "bench", "coverage"], Does::WorkspaceCode(TESTS)),
            // Deno 2.2 loads the lint plugins deno.json names (`lint.plugins`).
            (
                &["lint"],
                Does::WorkspaceCode("the lint plugins deno.json names (lint.plugins)"),
            ),
            (
                &["compile", "bundle", "serve", "jupyter"],
                Does::WorkspaceCode(BUNDLE),
            ),
            (
                &[
                    "install",
                    "i",
                    "add",
                    "remove",
                    "uninstall",
                    "outdated",
                    "update",
                    "upgrade",
                    "publish",
                    "init",
                    "clean",
                    "cache",
                    "vendor",
                ],
                Does::WorkspaceCode(SCRIPTS),
            ),
            (&["x"], Does::WorkspaceCode(PACKAGE_PROGRAM)),
            (&["run"], Does::File),
            (&["eval", "repl"], Does::ProgramText),
        ],
        other_word: "a file of that name (deno runs it), which does not exist",
    },
    Runtime {
        name: "bun",
        info: &["-v", "--version", "--revision", "-h", "--help"],
        subcommands: &[
            (&["test"], Does::WorkspaceCode(TESTS)),
            (&["build"], Does::WorkspaceCode(BUNDLE)),
            // `bun run x` runs a package.json script named x before a file named x.
            (&["run"], Does::WorkspaceCode(SCRIPTS)),
            (
                &[
                    "install",
                    "i",
                    "add",
                    "a",
                    "remove",
                    "rm",
                    "update",
                    "link",
                    "unlink",
                    "pm",
                    "create",
                    "c",
                    "init",
                    "upgrade",
                    "patch",
                    "patch-commit",
                    "publish",
                    "outdated",
                ],
                Does::WorkspaceCode(SCRIPTS),
            ),
            (&["x"], Does::WorkspaceCode(PACKAGE_PROGRAM)),
            (&["repl"], Does::ProgramText),
        ],
        other_word: SCRIPTS,
    },
];

/// Options a runtime runs a file with that load no code and take no separate value: Deno's
/// permission flags (`--allow-read=x` takes its value after `=` only), quiet and type-check
/// switches, Bun's `--bun`.
fn plain_file_option(arg: &str) -> bool {
    const EXACT: &[&str] = &[
        "-A",
        "--allow-all",
        "-q",
        "--quiet",
        "--no-prompt",
        "--check",
        "--no-check",
        "--bun",
    ];
    EXACT.contains(&arg)
        || ["--allow-", "--deny-", "--check="]
            .iter()
            .any(|p| arg.starts_with(p))
}

/// Why a runtime refused: its rule decides the label.
#[derive(Debug)]
pub enum Refusal {
    /// Runs program text or a file that is not a script (the interpreter rule).
    ProgramText(String),
    /// Runs code the workspace holds (the build-tool rule's wording, labelled already).
    WorkspaceCode(String),
}

/// The verdict on running the runtime `name` with `args` in `cwd`, or `None` when `name` is
/// not Deno or Bun.
pub fn check_runtime(
    name: &str,
    args: &[String],
    cwd: Option<&Path>,
) -> Option<Result<(), Refusal>> {
    let runtime = RUNTIMES.iter().find(|r| r.name == name)?;
    let workspace = |what: &str| {
        Err(Refusal::WorkspaceCode(runs_workspace_code(
            &shown_call(name, args),
            what,
        )))
    };
    if !args.is_empty() && args.iter().all(|a| runtime.info.contains(&a.as_str())) {
        return Some(Ok(()));
    }
    let Some(first) = args.first() else {
        return Some(Err(Refusal::ProgramText(format!(
            "`{name}` without a subcommand or file starts a REPL (program text)"
        ))));
    };
    if first.starts_with('-') {
        return Some(Err(Refusal::ProgramText(format!(
            "`{name}` with option `{}` before its subcommand or file: it may run program text or load code (-e, --preload, --config); write the subcommand first",
            first.chars().take(64).collect::<String>()
        ))));
    }
    let does = runtime
        .subcommands
        .iter()
        .find(|(names, _)| names.contains(&first.as_str()))
        .map(|(_, does)| *does);
    Some(match does {
        Some(Does::Nothing) => Ok(()),
        Some(Does::WorkspaceCode(what)) => workspace(what),
        Some(Does::ProgramText) => Err(Refusal::ProgramText(format!(
            "`{name} {first}` runs program text"
        ))),
        Some(Does::File) => run_file(name, &args[1..], cwd),
        // Bun runs a package.json script before a file of the same name: a bare word is a
        // file only when it reads as a path (`main.ts`, `./main`).
        None if runtime.other_word == SCRIPTS && !first.contains(['.', '/']) => workspace(SCRIPTS),
        None => match script_operand(name, first, cwd) {
            None => Ok(()),
            Some(_) if runtime.other_word == SCRIPTS => workspace(SCRIPTS),
            Some(why) => Err(Refusal::ProgramText(why)),
        },
    })
}

/// `deno run`'s verdict: options that load nothing, then an existing script file.
fn run_file(name: &str, args: &[String], cwd: Option<&Path>) -> Result<(), Refusal> {
    let Some(at) = args.iter().position(|a| !plain_file_option(a)) else {
        return Err(Refusal::ProgramText(format!(
            "`{name} run` without a script reads its program from stdin"
        )));
    };
    let script = &args[at];
    if script.starts_with('-') {
        return Err(Refusal::ProgramText(format!(
            "`{name} run` with option `{}`: only permission and type-check switches pass before the script (others may load code: --preload, --import-map, --config, --v8-flags)",
            script.chars().take(64).collect::<String>()
        )));
    }
    match script_operand(name, script, cwd) {
        Some(why) => Err(Refusal::ProgramText(why)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::packages::WORKSPACE_CODE_RULE;
    use crate::policy::shell::tests::{argv, Sandbox};

    /// What each call does, with files named `test`, `task`, `run`, `x` and `build` in the
    /// working directory (repro 21: they made `deno test` and `bun test` pass), `main.ts` a
    /// script. `Some(true)`: passes; `Some(false)`: runs workspace code; `None`: program text.
    const CALLS: &[(&str, &str, Option<bool>)] = &[
        ("deno", "--version", Some(true)),
        ("deno", "-V", Some(true)),
        ("deno", "--help", Some(true)),
        ("deno", "fmt --check", Some(true)),
        ("deno", "fmt", Some(true)),
        ("deno", "check main.ts", Some(true)),
        ("deno", "info", Some(true)),
        ("deno", "doc main.ts", Some(true)),
        ("deno", "run main.ts", Some(true)),
        ("deno", "run -A main.ts", Some(true)),
        ("deno", "run --allow-read=. --allow-net main.ts", Some(true)),
        ("deno", "main.ts", Some(true)),
        ("bun", "--version", Some(true)),
        ("bun", "--revision", Some(true)),
        ("bun", "main.ts", Some(true)),
        ("bun", "./main.ts", Some(true)),
        ("deno", "test", Some(false)),
        ("deno", "test -A", Some(false)),
        ("deno", "task build", Some(false)),
        ("deno", "task", Some(false)),
        ("deno", "bench", Some(false)),
        ("deno", "lint", Some(false)),
        ("deno", "compile main.ts", Some(false)),
        ("deno", "serve main.ts", Some(false)),
        ("deno", "install", Some(false)),
        ("deno", "x cowsay", Some(false)),
        ("bun", "test", Some(false)),
        ("bun", "run build", Some(false)),
        ("bun", "run main.ts", Some(false)),
        ("bun", "build ./main.ts", Some(false)),
        ("bun", "install", Some(false)),
        ("bun", "x cowsay", Some(false)),
        ("bun", "dev", Some(false)),
        ("bun", "test --version", Some(false)),
        ("deno", "eval 1", None),
        ("deno", "repl", None),
        ("deno", "", None),
        ("deno", "-A main.ts", None),
        ("deno", "run", None),
        ("deno", "run --preload=evil.ts main.ts", None),
        ("deno", "run --import-map x.json main.ts", None),
        ("deno", "run -", None),
        ("deno", "run missing.ts", None),
        ("deno", "run /dev/stdin", None),
        ("deno", "missing.ts", None),
        ("deno", "--version eval", None),
        ("bun", "", None),
        ("bun", "-e 1", None),
        ("bun", "--eval=1", None),
        ("bun", "-p 1", None),
        ("bun", "--preload ./x.ts main.ts", None),
        ("bun", "repl", None),
    ];

    #[test]
    fn deno_and_bun_subcommands_are_read_as_subcommands() {
        let sandbox = Sandbox::new("runtimes");
        let ws = sandbox.dir("ws");
        for file in ["test", "task", "run", "x", "build", "dev", "main.ts"] {
            sandbox.file(&format!("ws/{file}"), 0o644);
        }
        for (name, args, want) in CALLS {
            let got = check_runtime(name, &argv(args), Some(&ws)).expect(name);
            match (want, &got) {
                (Some(true), Ok(())) | (None, Err(Refusal::ProgramText(_))) => {}
                (Some(false), Err(Refusal::WorkspaceCode(why))) => assert!(
                    why.starts_with(&format!("{WORKSPACE_CODE_RULE}: `{name}")),
                    "{name} {args}: {why}"
                ),
                _ => panic!("{name} {args}: want {want:?}, got {got:?}"),
            }
        }
        // The subcommand is named, not read as a script that "does not exist".
        let Some(Err(Refusal::WorkspaceCode(why))) =
            check_runtime("deno", &argv("test"), Some(&ws))
        else {
            panic!("deno test")
        };
        assert!(
            why.contains("`deno test`") && why.contains("tests"),
            "{why}"
        );
        assert!(check_runtime("node", &argv("x.js"), Some(&ws)).is_none());
    }
}
