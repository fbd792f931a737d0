//! Programs whose arguments can be code to run (a remote command, SQL shell dot-commands, a
//! makefile from a pipe): the forms refused even when the program is
//! allowlisted. Options that run a given command are in [`injection`](super::injection)'s table;
//! these need to read the argument list as the program does.

use super::wrappers::piped_operand;
use std::path::Path;

/// `ssh` options that take a value (OpenSSH's `getopt` string), as one argument or the next.
const SSH_VALUED: &str = "BbcDEeFIiJLlmOopQRSWw";

/// `ssh` options after which no remote shell runs (`-N` no command, `-G`/`-V`/`-Q` print and
/// exit, `-O` talks to a control master).
const SSH_NO_SHELL: &str = "NGVQO";

/// Refuses `ssh` running a remote command (`ssh host cmd`) or a remote shell (`ssh host`, which
/// reads its commands from stdin). Options may follow the destination, as ssh reads them.
pub fn check_ssh(args: &[String]) -> Result<(), String> {
    let mut destination: Option<&str> = None;
    let mut no_shell = false;
    let mut i = 0;
    let mut options_done = false;
    while let Some(arg) = args.get(i) {
        i += 1;
        if !options_done && arg == "--" {
            options_done = true;
            continue;
        }
        if !options_done && arg.len() > 1 && arg.starts_with('-') {
            for (at, letter) in arg.char_indices().skip(1) {
                no_shell |= SSH_NO_SHELL.contains(letter);
                if SSH_VALUED.contains(letter) {
                    if at + letter.len_utf8() == arg.len() {
                        i += 1;
                    }
                    break;
                }
            }
            continue;
        }
        match destination {
            None => destination = Some(arg),
            Some(host) => {
                return Err(format!(
                    "argument injection: `ssh {host} {arg}` runs a remote command"
                ))
            }
        }
    }
    match destination {
        Some(host) if !no_shell => Err(format!(
            "argument injection: `ssh {host}` without -N runs a remote shell that reads commands from stdin"
        )),
        _ => Ok(()),
    }
}

/// `sqlite3` options that take the next argument as their value.
const SQLITE_VALUED: &[&str] = &[
    "-separator",
    "-newline",
    "-nullvalue",
    "-escape",
    "-mmap",
    "-maxsize",
    "-vfs",
    "-heap",
    "-lookaside",
    "-pagecache",
    "-pcachetrace",
];

/// Refuses `sqlite3` forms that can run commands or load code, unless `-safe` is given (it
/// disables them all): `-cmd` and `-init` (dot-commands), an argument that is a dot-command
/// (`.shell`, `.system`, `.output |cmd`, `.load`), `load_extension`, and no SQL argument at all
/// (the shell then reads dot-commands from stdin).
pub fn check_sqlite(args: &[String]) -> Result<(), String> {
    let option = |arg: &str| arg.trim_start_matches('-').to_string();
    if args
        .iter()
        .any(|a| a.starts_with('-') && option(a) == "safe")
    {
        return Ok(());
    }
    let refuse = |arg: &str, why: &str| Err(format!("argument injection: `sqlite3` {why} `{arg}`"));
    let mut operands = 0;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg.to_lowercase().contains("load_extension") {
            return refuse(arg, "loads code with");
        }
        if arg.len() > 1 && arg.starts_with('-') {
            let name = format!("-{}", option(arg));
            if name == "-cmd" || name == "-init" {
                return refuse(arg, "runs dot-commands (which can run a shell) with");
            }
            if SQLITE_VALUED.contains(&name.as_str()) {
                i += 1;
            }
            continue;
        }
        operands += 1;
        if operands > 1 && arg.trim_start().starts_with('.') {
            return refuse(arg, "dot-command (which can run a shell)");
        }
    }
    if operands < 2 {
        return Err(
            "argument injection: `sqlite3` without SQL reads dot-commands (which can run a shell) from stdin; add -safe"
                .to_string(),
        );
    }
    Ok(())
}

/// Refuses `make` forms that run code given on its command line: `--eval`/`-E` (makefile text),
/// a variable override (`CC=...`, `SHELL=...`: it changes what recipes run) and a makefile read
/// from a pipe or device (`-f -`, `-f /dev/stdin`).
pub fn check_make(args: &[String], cwd: Option<&Path>) -> Result<(), String> {
    let refuse = |arg: &str, why: &str| Err(format!("argument injection: `make` {why} `{arg}`"));
    let makefile = |value: &str| match piped_operand("make", value, cwd) {
        Some(why) => Err(format!("argument injection: {why}")),
        None => Ok(()),
    };
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            if !name.is_empty() && "eval".starts_with(name) {
                return refuse(arg, "evaluates makefile text given in");
            }
            if !name.is_empty() && ("file".starts_with(name) || "makefile".starts_with(name)) {
                match value.or_else(|| args.get(i).map(String::as_str)) {
                    Some(value) => makefile(value)?,
                    None => return refuse(arg, "lacks the value of"),
                }
                i += usize::from(value.is_none());
            }
            continue;
        }
        if let Some(cluster) = arg.strip_prefix('-') {
            if cluster.contains('E') {
                return refuse(arg, "evaluates makefile text given in");
            }
            if let Some(at) = cluster.find('f') {
                let inline = &cluster[at + 1..];
                if inline.is_empty() {
                    match args.get(i) {
                        Some(value) => makefile(value)?,
                        None => return refuse(arg, "lacks the value of"),
                    }
                    i += 1;
                } else {
                    makefile(inline)?;
                }
            }
            continue;
        }
        if arg.contains('=') {
            return refuse(arg, "variable override (it changes what recipes run)");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::argv;

    #[test]
    fn ssh_runs_no_remote_command_or_shell() {
        let cases: &[(&str, bool)] = &[
            ("-N -L 8080:localhost:80 host", true),
            ("host -N", true),
            ("-G host", true),
            ("-V", true),
            ("-O check host", true),
            ("host uptime", false),
            ("-p 22 host id", false),
            ("-p22 host id", false),
            ("-l root host -- id", false),
            ("host", false),
            ("-i key host", false),
            ("-t host sh", false),
        ];
        for (args, want) in cases {
            let got = check_ssh(&argv(args));
            assert_eq!(got.is_ok(), *want, "ssh {args}: {got:?}");
        }
    }

    #[test]
    fn sqlite_runs_no_dot_command_unless_safe() {
        let cases: &[(&[&str], bool)] = &[
            (&["db", "select 1"], true),
            (&["-json", "db", "select * from t"], true),
            (&["-separator", ".", "db", "select 1"], true),
            (&["db", ".shell id"], false),
            (&["db", " .system id"], false),
            (&["db", ".output |sh"], false),
            (&["db", "select load_extension('x')"], false),
            (&["-cmd", ".shell id", "db", "select 1"], false),
            (&["--init", "x.sql", "db", "select 1"], false),
            (&["db"], false),
            (&[], false),
            (&["-safe", "db"], true),
            (&["--safe", "db", ".shell id"], true),
        ];
        for (args, want) in cases {
            let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            let got = check_sqlite(&args);
            assert_eq!(got.is_ok(), *want, "sqlite3 {args:?}: {got:?}");
        }
    }

    #[test]
    fn make_takes_no_code_from_its_command_line() {
        let cases: &[(&str, bool)] = &[
            ("", true),
            ("-j4 test", true),
            ("-C sub all", true),
            ("-f other.mk all", true),
            ("--file=other.mk", true),
            ("--eval=x", false),
            ("--ev x", false),
            ("-E x", false),
            ("-jE x", false),
            ("CC=sh", false),
            ("SHELL=/tmp/x all", false),
            ("-f -", false),
            ("-f/dev/stdin", false),
            ("--file=/proc/self/fd/0", false),
            ("--makefile /dev/fd/0", false),
            ("-f", false),
        ];
        for (args, want) in cases {
            let got = check_make(&argv(args), None);
            assert_eq!(got.is_ok(), *want, "make {args}: {got:?}");
        }
    }
}
