//! Programs that run other programs or program text (wrappers and interpreters), programs that
//! are refused outright, and shell words that are not programs at all.

/// Programs that run another command or a shell; never approved automatically.
pub const WRAPPERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "env",
    "sudo",
    "doas",
    "su",
    "xargs",
    "nohup",
    "timeout",
    "nice",
    "ionice",
    "stdbuf",
    "setsid",
    "chroot",
    "busybox",
    "toybox",
    "time",
    "watch",
    "strace",
    "ltrace",
    "command",
    "builtin",
    "exec",
    "eval",
    "source",
    ".",
    // Also: other shells and command runners.
    "ash",
    "mksh",
    "rbash",
    "csh",
    "tcsh",
    "yash",
    "posh",
    "elvish",
    "nu",
    "xonsh",
    "script",
    "unshare",
    "nsenter",
    "flock",
    "runuser",
    "pkexec",
    "systemd-run",
    "parallel",
    "taskset",
    "chrt",
    "prlimit",
    "firejail",
    "unbuffer",
    "expect",
    "tclsh",
    "wish",
];

/// Programs that can spawn a shell interactively (pagers, editors); refused outright.
pub const REFUSED_PROGRAMS: &[&str] = &[
    "less",
    "more",
    "man",
    "vi",
    "vim",
    "nvi",
    "emacs",
    "nano",
    "view",
    "vimdiff",
    "rvim",
    "ex",
    "ed",
    "most",
    "pg",
    "pager",
    "editor",
    "sensible-pager",
    "sensible-editor",
    "gdb",
];

/// Reserved words and builtins that change the shell itself or run code; refused as argv[0].
pub const SHELL_WORDS: &[&str] = &[
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "case",
    "esac",
    "for",
    "select",
    "while",
    "until",
    "do",
    "done",
    "in",
    "function",
    "coproc",
    "[[",
    "]]",
    "trap",
    "alias",
    "unalias",
    "fc",
    "enable",
    "hash",
    "set",
    "export",
    "readonly",
    "declare",
    "typeset",
    "local",
    "let",
    "unset",
    "shopt",
    "ulimit",
    "umask",
    "cd",
    "pushd",
    "popd",
    "exit",
    "logout",
    "return",
    "shift",
    "read",
    "mapfile",
    "readarray",
    "getopts",
    "wait",
    "fg",
    "bg",
    "jobs",
    "disown",
    "suspend",
    "history",
    "bind",
    "complete",
    "compgen",
    "caller",
    "dirs",
    "times",
];

/// Whether the program `name` is a wrapper.
pub fn is_wrapper(name: &str) -> bool {
    WRAPPERS.contains(&name)
}

/// Whether the program `name` is an interpreter, and whether it always runs program text
/// (awk and its variants).
fn interpreter(name: &str) -> Option<bool> {
    const PREFIXED: &[&str] = &["python", "pypy", "perl", "ruby", "php", "lua"];
    const EXACT: &[&str] = &[
        "node",
        "nodejs",
        "deno",
        "bun",
        "osascript",
        "pwsh",
        "powershell",
        "irb",
        "jshell",
        "Rscript",
        "R",
        "guile",
        "racket",
        "sbcl",
        "julia",
        "raku",
        "tsx",
        "ts-node",
    ];
    if matches!(name, "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk") {
        return Some(true);
    }
    if EXACT.contains(&name) || PREFIXED.iter().any(|p| name.starts_with(p)) {
        return Some(false);
    }
    None
}

/// Why running the interpreter `name` with `args` runs program text, or `None` when `name` is
/// not an interpreter or runs a script file.
///
/// An interpreter runs a script file only when its first argument is a path (not an option, not
/// `-`, not a subcommand such as `eval`); options before the script, no argument at all (the
/// program comes from stdin) and awk in any form count as program text.
pub fn interpreter_program_text(name: &str, args: &[String]) -> Option<String> {
    let always = interpreter(name)?;
    if always {
        return Some(format!("`{name}` runs program text"));
    }
    match args.first().map(String::as_str) {
        None => Some(format!(
            "`{name}` without a script reads its program from stdin"
        )),
        Some("-") => Some(format!("`{name} -` reads its program from stdin")),
        Some(arg) if arg.starts_with('-') => Some(format!(
            "`{name}` with option `{arg}` may run program text (-c/-e/-E/--eval/-r/-p)"
        )),
        Some(sub @ ("eval" | "repl" | "run" | "x" | "exec" | "-e")) => {
            Some(format!("`{name} {sub}` may run program text"))
        }
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::argv;

    #[test]
    fn interpreters_run_program_text_unless_given_a_script() {
        let cases: &[(&str, &str, bool)] = &[
            ("python3", "script.py", false),
            ("python3.12", "script.py -c x", false),
            ("python3", "-c print", true),
            ("python3", "-Bc print", true),
            ("python3", "", true),
            ("python3", "- x", true),
            ("perl", "-e x", true),
            ("perl5.36.0", "-E x", true),
            ("ruby", "-r x y", true),
            ("node", "--eval=x", true),
            ("node", "-p x", true),
            ("node", "app.js", false),
            ("deno", "eval x", true),
            ("deno", "run x.ts", true),
            ("php", "-r x", true),
            ("lua5.4", "-e x", true),
            ("osascript", "-e x", true),
            ("pwsh", "-Command x", true),
            ("awk", "", true),
            ("gawk", "-f prog.awk", true),
            ("mawk", "{print}", true),
            ("ls", "-c", false),
            ("git", "", false),
        ];
        for (name, args, want) in cases {
            let got = interpreter_program_text(name, &argv(args));
            assert_eq!(got.is_some(), *want, "{name} {args}: {got:?}");
        }
    }

    #[test]
    fn wrapper_and_refused_lists() {
        for name in [
            "sh", "bash", "env", "sudo", "xargs", "busybox", ".", "exec", "time",
        ] {
            assert!(is_wrapper(name), "{name}");
        }
        for name in ["ls", "git", "cat", "python3"] {
            assert!(!is_wrapper(name), "{name}");
        }
        for name in ["less", "more", "man", "vi", "vim", "nvi", "emacs", "nano"] {
            assert!(REFUSED_PROGRAMS.contains(&name), "{name}");
        }
    }
}
