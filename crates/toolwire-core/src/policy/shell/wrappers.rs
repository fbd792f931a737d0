//! Programs that run other programs or program text (wrappers and interpreters), programs that
//! are refused outright, and shell words that are not programs at all.

use std::path::{Path, PathBuf};

/// Programs that run another command or a shell; never approved automatically. Looked up by
/// every normalized name ([`names::lookup_names`](super::names::lookup_names)).
pub const WRAPPERS: &[&str] = &[
    // Shells.
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "ash",
    "mksh",
    "pdksh",
    "oksh",
    "loksh",
    "rbash",
    "csh",
    "tcsh",
    "yash",
    "posh",
    "elvish",
    "nu",
    "xonsh",
    "oil",
    "osh",
    "ysh",
    "rc",
    "es",
    "scsh",
    "ion",
    "murex",
    // Shell builtins and keywords that run their arguments.
    "command",
    "builtin",
    "exec",
    "eval",
    "source",
    ".",
    "time",
    "coproc",
    "noglob",
    "nocorrect",
    // Privilege, identity and namespace changers.
    "env",
    "sudo",
    "sudoedit",
    "doas",
    "su",
    "ksu",
    "runuser",
    "pkexec",
    "setpriv",
    "capsh",
    "sg",
    "newgrp",
    "chroot",
    "unshare",
    "nsenter",
    "setsid",
    "fakeroot",
    "fakechroot",
    "proot",
    "bwrap",
    "firejail",
    "nsjail",
    "minijail0",
    "runcon",
    "sandbox",
    "schroot",
    "systemd-nspawn",
    "systemd-run",
    "machinectl",
    "flatpak-spawn",
    "lxc-attach",
    "cgexec",
    "chpst",
    "setuidgid",
    "envuidgid",
    "envdir",
    "softlimit",
    "pgrphack",
    "setlock",
    "start-stop-daemon",
    "daemonize",
    "daemon",
    "dbus-launch",
    "dbus-run-session",
    "ssh-agent",
    "xvfb-run",
    // Personality changers: `setarch` and the architecture names it is installed under.
    "setarch",
    "uname26",
    "linux32",
    "linux64",
    "i386",
    "i486",
    "i586",
    "i686",
    "athlon",
    "x86_64",
    "ia64",
    "ppc",
    "ppc32",
    "ppc64",
    "ppcle",
    "ppc64le",
    "s390",
    "s390x",
    "sparc",
    "sparc32",
    "sparc32bash",
    "sparc64",
    "mips",
    "mips32",
    "mips64",
    "parisc",
    "parisc32",
    "parisc64",
    "arm",
    "armh",
    "armv7l",
    "armv8l",
    "aarch64",
    "alpha",
    "loongarch",
    "loongarch64",
    "m68k",
    "riscv32",
    "riscv64",
    "arch",
    // Schedulers, resource and priority setters, retry and timing helpers.
    "nohup",
    "timeout",
    "nice",
    "ionice",
    "stdbuf",
    "taskset",
    "chrt",
    "prlimit",
    "numactl",
    "cpulimit",
    "trickle",
    "faketime",
    "eatmydata",
    "flock",
    "lckdo",
    "watch",
    "at",
    "batch",
    "crontab",
    "entr",
    "chronic",
    "ifne",
    "pee",
    "parallel",
    "sem",
    "xargs",
    "run-parts",
    "retry",
    // Proxies and terminal multiplexers.
    "torsocks",
    "torify",
    "proxychains",
    "proxychains4",
    "tsocks",
    "tmux",
    "screen",
    "byobu",
    "dtach",
    "abduco",
    "script",
    "rlwrap",
    "unbuffer",
    "expect",
    "empty",
    // Tracers, debuggers' launchers and compiler front-ends that run a given program.
    "strace",
    "ltrace",
    "valgrind",
    "perf",
    "catchsegv",
    "gdbserver",
    "ccache",
    "distcc",
    // Multi-call binaries, which are every program at once.
    "busybox",
    "toybox",
    // Openers that run whatever program a file type is configured with.
    "xdg-open",
    "open",
    "run-mailcap",
    "see",
    "print",
    "edit",
    "compose",
    "sensible-browser",
    "x-www-browser",
    "www-browser",
    "gnome-www-browser",
    "mimeopen",
    "xdg-email",
    "gio",
    "gtk-launch",
    "gapplication",
    // Launchers, tracers, profilers and session tools that run the program given as an
    // argument (each read from its `--help` on Debian 12: `choom -n N -- cmd`,
    // `systemd-inhibit cmd`, `msgexec cmd`, `heaptrack cmd`, `ld.so prog`, `not cmd`, ...).
    "choom",
    "uclampset",
    "sotruss",
    "memusage",
    "heaptrack",
    "gprofng",
    "gp-collect-app",
    "valgrind.bin",
    "vgdb",
    "systemd-cat",
    "systemd-inhibit",
    "systemd-socket-activate",
    "switch_root",
    "luit",
    "debconf",
    "debconf-apt-progress",
    "pg_virtualenv",
    "msgexec",
    "msgfilter",
    "scriptlive",
    "scriptreplay",
    "ssh-argv0",
    "kernel-install",
    "make-first-existing-target",
    "prove",
    "gpg-agent",
    "gpg-connect-agent",
    "ld.so",
    "ld-linux",
    "ld-linux-x86-64",
    "ld-linux-aarch64",
    "ld-musl",
    "lli",
    "lli-child-target",
    "llvm-jitlink",
    "bugpoint",
    "not",
    "jexec",
    "jrunscript",
    // Terminal emulators (`-e cmd`) and browsers with a command-prefix option
    // (`chromium --renderer-cmd-prefix=cmd`, `--utility-cmd-prefix`, `--browser-subprocess-path`).
    "x-terminal-emulator",
    "xterm",
    "uxterm",
    "zutty",
    "gnome-terminal",
    "konsole",
    "chromium",
    "chromium-browser",
    "chrome",
    "google-chrome",
    "google-chrome-stable",
    "firefox",
    // Container, sandbox, session and job launchers that run the command given (issue 19
    // attack 9's class: `flatpak run`, `toolbox run`, `distrobox enter -- cmd`, `xinit cmd`,
    // `tini -- cmd`, `mpirun cmd`, `apptainer exec img cmd`, ...).
    "flatpak",
    "toolbox",
    "distrobox",
    "distrobox-enter",
    "startx",
    "xinit",
    "run-one",
    "run-this-one",
    "tini",
    "dumb-init",
    "s6-setuidgid",
    "with-contenv",
    "mpirun",
    "mpiexec",
    "srun",
    "sandbox-exec",
    "apptainer",
    "singularity",
    "lxc-execute",
    "runc",
    "crun",
    "ctr",
    // corepack runs the package manager it names with any arguments (`corepack yarn build`,
    // `corepack npm@10 test`) and `corepack enable` writes its shims.
    "corepack",
    // Runners that load an environment file and run the command given (attack review 2,
    // repros 7 and 14: `dotenv run cmd` (python-dotenv), `dotenv -- cmd` (dotenv-cli) and
    // `logsave FILE cmd` ran).
    "logsave",
    "dotenv",
    "dotenvx",
    "envchain",
    "nix-shell",
    // uv's `uvx` (`uv tool run`) runs a package's program, downloaded, as `npx` does.
    "uvx",
];

/// A program that runs the command given after one of its subcommands (`rustup run stable
/// cmd`, `pyenv exec cmd`): a wrapper in that form only.
pub struct SubcommandWrapper {
    /// Program names (every normalized name is looked up).
    pub programs: &'static [&'static str],
    /// The subcommands that run the command given, refused at the subcommand's place
    /// ([`subcommand::candidates`](super::subcommand::candidates)); a space separates the
    /// words of a nested one (`tasks run`).
    pub subcommands: &'static [&'static str],
    /// Whether the program is a multi-call binary that acts as its own CLI only when called by
    /// one of `programs` (rustup's proxies `cargo`, `rustc`, ... are the same file).
    pub by_typed_name: bool,
}

/// Version managers, environment and secret loaders, and project tools whose subcommand runs
/// the command given (attack review 2, repros 6 and 7: `rustup run stable cmd` and `pyenv exec
/// cmd` ran under an allowlist admitting their shims' directory).
pub const SUBCOMMAND_WRAPPERS: &[SubcommandWrapper] = &[
    SubcommandWrapper {
        programs: &["rustup"],
        subcommands: &["run"],
        by_typed_name: true,
    },
    SubcommandWrapper {
        programs: &[
            "pyenv", "rbenv", "nodenv", "goenv", "jenv", "plenv", "phpenv", "luaenv", "scalaenv",
            "sbtenv", "tfenv", "swiftenv",
        ],
        subcommands: &["exec"],
        by_typed_name: false,
    },
    SubcommandWrapper {
        programs: &["asdf"],
        subcommands: &["exec", "env"],
        by_typed_name: false,
    },
    SubcommandWrapper {
        // `trust` lets every later call run the configuration's hooks and env scripts, which
        // `env` and `hook-env` then run.
        programs: &["mise", "rtx"],
        subcommands: &[
            "exec",
            "x",
            "run",
            "r",
            "watch",
            "w",
            "trust",
            "env",
            "hook-env",
            // `mise en` starts a shell in the tools' environment.
            "en",
            "tasks run",
            "task run",
            "tasks r",
            "task r",
        ],
        by_typed_name: false,
    },
    SubcommandWrapper {
        programs: &["direnv"],
        subcommands: &["exec", "allow", "permit", "grant", "edit"],
        by_typed_name: false,
    },
    SubcommandWrapper {
        programs: &[
            "uv", "poetry", "pipenv", "pdm", "hatch", "rye", "pixi", "pipx", "uvx",
        ],
        subcommands: &["run", "shell", "exec", "tool", "env run"],
        by_typed_name: false,
    },
    SubcommandWrapper {
        programs: &["conda", "mamba", "micromamba"],
        subcommands: &["run"],
        by_typed_name: false,
    },
    SubcommandWrapper {
        programs: &["nvm", "fnm", "volta", "opam", "nix", "guix", "devbox"],
        subcommands: &["exec", "run", "shell", "develop", "environment"],
        by_typed_name: false,
    },
    SubcommandWrapper {
        // Secret loaders that run a command with the secrets in its environment.
        programs: &[
            "doppler",
            "op",
            "infisical",
            "aws-vault",
            "chamber",
            "sops",
            "teller",
        ],
        subcommands: &["run", "exec", "exec-env", "exec-file", "plugin run"],
        by_typed_name: false,
    },
];

/// Why `name` (one of the program's names) called as `typed_name` with `args` runs the command
/// given after a subcommand ([`SUBCOMMAND_WRAPPERS`]), or `None`.
pub fn wrapping_subcommand(name: &str, typed_name: &str, args: &[String]) -> Option<String> {
    let row = SUBCOMMAND_WRAPPERS
        .iter()
        .find(|row| row.programs.contains(&name))?;
    if row.by_typed_name
        && !super::names::lookup_names(typed_name)
            .iter()
            .any(|typed| row.programs.contains(&typed.as_str()))
    {
        return None;
    }
    // At the subcommand's place only (`uv pip install run` installs a package named run).
    let sub = row.subcommands.iter().find(|sub| {
        let path: Vec<&str> = sub.split(' ').collect();
        super::subcommand::find_path(args, &path).is_some()
    })?;
    Some(format!(
        "`{name} {sub}` runs the command or task given (a wrapper): analyze that command on its own line"
    ))
}

/// Programs that can spawn a shell interactively (pagers, editors, debuggers, interactive
/// clients with a `!` escape); refused outright. Looked up by every normalized name.
pub const REFUSED_PROGRAMS: &[&str] = &[
    // Pagers and viewers.
    "less",
    "more",
    "man",
    "most",
    "pg",
    "pager",
    "sensible-pager",
    "info",
    "pinfo",
    "w3m",
    "lynx",
    "links",
    "elinks",
    // Editors.
    "vi",
    "vim",
    "nvi",
    "nvim",
    "gvim",
    "vimx",
    "evim",
    "rvim",
    "view",
    "rview",
    "gview",
    "vimdiff",
    "ex",
    "ed",
    "emacs",
    "emacsclient",
    "nano",
    "pico",
    "editor",
    "sensible-editor",
    "kak",
    "micro",
    "joe",
    "jed",
    "mg",
    "hx",
    "helix",
    "zile",
    "jove",
    "elvis",
    "ne",
    "vile",
    "mcedit",
    "mc",
    "vipe",
    "vipw",
    "vigr",
    "visudo",
    // Pagers under the names of the decompressing and documentation front-ends that start them.
    "zless",
    "zmore",
    "bzless",
    "bzmore",
    "xzless",
    "xzmore",
    "lzless",
    "lzmore",
    "zstdless",
    "perldoc",
    "pydoc",
    "cscope",
    // Editors started by bug reporters and tutors, and restricted `ed`.
    "bashbug",
    "perlbug",
    "perlthanks",
    "vimtutor",
    "red",
    // Debuggers.
    "gdb",
    "gdbtui",
    // A browser front end to gdb (rustup's `rust-gdbgui` runs it; attack review 4's 10).
    "gdbgui",
    "jdb",
    "jhsdb",
    "lldb",
    "cgdb",
    "pdb",
    "r2",
    "radare2",
    "rr",
    // Interactive clients and file managers with a shell escape.
    "ftp",
    "sftp",
    "tftp",
    "telnet",
    "mysql",
    "mariadb",
    "psql",
    "gnuplot",
    "nmap",
    "mutt",
    "neomutt",
    "tig",
    "nnn",
    "ranger",
    "vifm",
    "lf",
    "minicom",
    "cpan",
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
    // zsh and ksh builtins that assign, schedule or load code.
    "vared",
    "sched",
    "zmodload",
    "autoload",
    "emulate",
    "repeat",
    "foreach",
    "zpty",
    "zle",
    "integer",
    "float",
    "nameref",
    "functions",
    "unfunction",
    "disable",
    "setopt",
    "unsetopt",
    "private",
    "zparseopts",
    "zformat",
    "zstat",
    "strftime",
    "limit",
    "unlimit",
    "unhash",
    "rehash",
    "r",
    "hist",
    "getln",
];

/// Builtins that share their name with a program and assign a shell variable with an option
/// (`printf -v PATH ...` rewrites the PATH the next program is found through), with that option.
const ASSIGNING_BUILTINS: &[(&str, &str)] = &[("printf", "-v")];

/// Why `name args` assigns a shell variable as a builtin, or `None`. The option is refused in
/// any form the builtin's option parser accepts (`-v VAR`, `-vVAR`, in a cluster), before `--`
/// or the first operand.
pub fn assigning_builtin(name: &str, args: &[String]) -> Option<String> {
    let (_, option) = ASSIGNING_BUILTINS.iter().find(|(n, _)| *n == name)?;
    let letter = option.trim_start_matches('-');
    for arg in args {
        if arg == "--" || !arg.starts_with('-') || arg == "-" {
            return None;
        }
        if arg[1..].contains(letter) {
            return Some(format!(
                "`{name} {arg}` assigns a shell variable (it can rewrite PATH for the next program)"
            ));
        }
    }
    None
}

/// Wrappers the issue's reviews found approved, by their exact names: the one list the wrapper
/// test checks and the bypass corpus allowlists (and runs) them from.
#[cfg(test)]
pub(crate) const REVIEWED_WRAPPERS: &[&str] = &[
    "setarch",
    "linux32",
    "linux64",
    "x86_64",
    "i386",
    "setpriv",
    "capsh",
    "sg",
    "run-parts",
    "fakeroot",
    "tmux",
    "screen",
    "unshare",
    "nsenter",
    "chroot",
    "flock",
    "script",
    "expect",
    "busybox",
    "toybox",
    "rlwrap",
    "strace",
    "valgrind",
    "ssh-agent",
    "at",
    "crontab",
    "entr",
    "xdg-open",
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
        "clisp",
        "ecl",
        "julia",
        "raku",
        "rakudo",
        "tsx",
        "ts-node",
        "ipython",
        "bpython",
        "ptpython",
        "jjs",
        "rhino",
        "gjs",
        "qjs",
        "d8",
        "ocaml",
        "ghci",
        "runghc",
        "runhaskell",
        "swift",
        "kotlin",
        "groovy",
        "scala",
        "clojure",
        "clj",
        "bb",
        "elixir",
        "iex",
        "erl",
        "escript",
        "crystal",
        "dart",
        "coffee",
        "zx",
        "octave",
        "scheme",
        "csi",
        "gsi",
        "chez",
        "petite",
        "gosh",
        "tcc",
        "java",
        "tclsh",
        "wish",
        "jimsh",
        "pike",
        "io",
        "nim",
        "m4",
        "dc",
    ];
    if matches!(
        name,
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" | "goawk" | "frawk"
    ) {
        return Some(true);
    }
    if EXACT.contains(&name) || PREFIXED.iter().any(|p| name.starts_with(p)) {
        return Some(false);
    }
    None
}

/// Why the program file operand `file` of `name` is program text from a pipe rather than a
/// file: `-`, anything under `/dev` or `/proc` (`/dev/stdin`, `/dev/fd/0`, `/proc/self/fd/0`),
/// or an existing path that is not a regular file once every symlink is followed (a FIFO, a
/// socket, a link to the pipe). A relative path is resolved against `cwd` when known.
pub fn piped_operand(name: &str, file: &str, cwd: Option<&Path>) -> Option<String> {
    if file == "-" {
        return Some(format!("`{name} -` reads its program from stdin"));
    }
    let path = match cwd {
        Some(dir) => dir.join(file),
        None => PathBuf::from(file),
    };
    let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    let special = |p: &Path| p.starts_with("/dev") || p.starts_with("/proc");
    if special(&path) || special(&real) {
        return Some(format!(
            "`{name}` program file `{file}` is a device or process file (program text from a pipe)"
        ));
    }
    match std::fs::metadata(&path) {
        Ok(meta) if !meta.is_file() => Some(format!(
            "`{name}` program file `{file}` is not a regular file (a FIFO or device feeds it program text)"
        )),
        _ => None,
    }
}

/// Why the script operand `script` of an interpreter is not a script file: a piped operand
/// ([`piped_operand`]), a relative path when the working directory `cwd` is unknown, or a path
/// that does not exist (it could be made a FIFO before it runs).
pub fn script_operand(name: &str, script: &str, cwd: Option<&Path>) -> Option<String> {
    if !script.starts_with('/') && cwd.is_none() {
        return Some(format!(
            "`{name}` script `{script}` is relative and the working directory is unknown"
        ));
    }
    if let Some(why) = piped_operand(name, script, cwd) {
        return Some(why);
    }
    let path = cwd.map_or_else(|| PathBuf::from(script), |dir| dir.join(script));
    match std::fs::metadata(path) {
        Ok(_) => None,
        Err(_) => Some(format!("`{name}` script `{script}` does not exist")),
    }
}

/// Interpreters that read their options with GNU `getopt_long`, which permutes: an option after
/// the program file (`dc file -e '!cmd'`, `m4 file -`) is still an option.
const PERMUTING_INTERPRETERS: &[&str] = &["m4", "dc"];

/// Why the permuting interpreter `name` runs program text with `args`: any option before `--`
/// wherever it stands (the option check looks at every argument, not only the first), no
/// operand at all, or an operand that is no script file ([`script_operand`]).
fn permuted_program_text(name: &str, args: &[String], cwd: Option<&Path>) -> Option<String> {
    let mut operands = 0;
    let mut options_end = false;
    for arg in args {
        if !options_end && arg == "--" {
            options_end = true;
            continue;
        }
        if !options_end && arg.starts_with('-') && arg != "-" {
            return Some(format!(
                "`{name}` with option `{arg}` may run program text (GNU getopt reads options after operands too)"
            ));
        }
        operands += 1;
        if let Some(why) = script_operand(name, arg, cwd) {
            return Some(why);
        }
    }
    if operands == 0 {
        return Some(format!(
            "`{name}` without a script reads its program from stdin"
        ));
    }
    None
}

/// Why running the interpreter `name` with `args` runs program text, or `None` when `name` is
/// not an interpreter or runs a script file.
///
/// An interpreter runs a script file only when its first argument is a path to an existing
/// regular file ([`script_operand`]); options before the script, no argument at all (the
/// program comes from stdin), a subcommand such as `eval`, and awk in any form count as
/// program text.
pub fn interpreter_program_text(name: &str, args: &[String], cwd: Option<&Path>) -> Option<String> {
    let always = interpreter(name)?;
    if always {
        return Some(format!("`{name}` runs program text"));
    }
    if !args.is_empty()
        && args
            .iter()
            .all(|a| version_flags(name).contains(&a.as_str()))
    {
        return None;
    }
    if PERMUTING_INTERPRETERS.contains(&name) {
        return permuted_program_text(name, args, cwd);
    }
    match args.first().map(String::as_str) {
        None => Some(format!(
            "`{name}` without a script reads its program from stdin"
        )),
        Some("-") => Some(format!("`{name} -` reads its program from stdin")),
        Some("-m") if name.starts_with("python") || name.starts_with("pypy") => Some(format!(
            "`{name} -m` runs a module found on sys.path, which starts with the working directory (code the workspace can write)"
        )),
        Some(arg) if arg.starts_with('-') => Some(format!(
            "`{name}` with option `{arg}` before any script: an interpreter's options may run program text or load code, so it is approved only with a script file, or with version or help options alone ({})",
            match version_flags(name) {
                [] => "it has none known".to_string(),
                flags => flags.join(", "),
            }
        )),
        Some(sub @ ("eval" | "repl" | "run" | "x" | "exec" | "-e")) => {
            Some(format!("`{name} {sub}` may run program text"))
        }
        Some(script) => script_operand(name, script, cwd),
    }
}

/// The options each interpreter reads as "print the version or usage and exit": given alone,
/// they run no program text and read no stdin (`lua -v` alone does not; `tclsh` has none:
/// it takes any other word as its script's arguments and reads stdin).
fn version_flags(name: &str) -> &'static [&'static str] {
    const FAMILIES: &[(&str, bool, &[&str])] = &[
        ("python", true, &["-V", "--version", "-VV", "-h", "--help"]),
        ("pypy", true, &["-V", "--version", "-h", "--help"]),
        ("perl", true, &["-v", "-V", "-h"]),
        ("ruby", true, &["-v", "--version", "-h", "--help"]),
        ("php", true, &["-v", "--version", "-h", "--help"]),
        ("lua", true, &["-v"]),
        ("node", false, &["-v", "--version", "-h", "--help"]),
        ("nodejs", false, &["-v", "--version", "-h", "--help"]),
        ("java", false, &["-version", "--version", "-h", "--help"]),
        ("julia", false, &["-v", "--version", "-h", "--help"]),
        ("swift", false, &["--version", "-version"]),
        ("tsx", false, &["-v", "--version", "-h", "--help"]),
        ("ts-node", false, &["-v", "--version", "-h", "--help"]),
        ("dart", false, &["--version"]),
        ("elixir", false, &["-v", "--version"]),
        ("Rscript", false, &["--version"]),
    ];
    FAMILIES
        .iter()
        .find(|(family, prefixed, _)| name == *family || (*prefixed && name.starts_with(family)))
        .map_or(&[], |(_, _, flags)| flags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::{argv, Sandbox};

    /// A new user's everyday checks (repro 3): `node --version` was refused as "may run program
    /// text (-c/-e/...)", naming options node does not have.
    #[test]
    fn interpreters_pass_with_version_or_help_options_alone() {
        let cases: &[(&str, &str, bool)] = &[
            ("node", "--version", true),
            ("node", "-v", true),
            ("nodejs", "-h", true),
            ("python3", "-V", true),
            ("python3", "--version", true),
            ("python3.12", "-VV", true),
            ("pypy3", "--version", true),
            ("perl", "-v", true),
            ("ruby", "--version", true),
            ("php8.2", "-v", true),
            ("lua5.4", "-v", true),
            ("java", "-version", true),
            ("swift", "--version", true),
            ("tsx", "--version", true),
            // Anything beside them, and the flags of another interpreter, still refused.
            ("node", "--version -e x", false),
            ("node", "-v -p x", false),
            ("node", "-V", false),
            ("python3", "-v", false),
            ("python3", "-V -c x", false),
            ("python3", "-m pytest", false),
            ("python3", "-m http.server", false),
            ("ruby", "-v -e x", false),
            ("lua", "-v -", false),
            ("lua", "-v -e x", false),
            ("tclsh", "--version", false),
            ("tclsh", "-v", false),
            ("awk", "--version", false),
            ("node", "", false),
        ];
        for (name, args, want) in cases {
            let got = interpreter_program_text(name, &argv(args), None);
            assert_eq!(got.is_none(), *want, "{name} {args}: {got:?}");
        }
        // The reason names the real rule and the flags that pass.
        let why = interpreter_program_text("node", &argv("--inspect app.js"), None).unwrap();
        assert!(
            why.contains("`--inspect`") && why.contains("--version"),
            "{why}"
        );
        assert!(!why.contains("-c/-e"), "{why}");
        let why = interpreter_program_text("python3", &argv("-m pytest"), None).unwrap();
        assert!(why.contains("sys.path"), "{why}");
    }

    #[test]
    fn interpreters_run_program_text_unless_given_a_script() {
        let sandbox = Sandbox::new("interpreters");
        let cwd = sandbox.dir("ws");
        for script in ["script.py", "app.js", "x.ts"] {
            sandbox.file(&format!("ws/{script}"), 0o644);
        }
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
            ("php", "-r x", true),
            ("lua5.4", "-e x", true),
            ("osascript", "-e x", true),
            ("pwsh", "-Command x", true),
            ("awk", "", true),
            ("gawk", "-f prog.awk", true),
            ("mawk", "{print}", true),
            ("goawk", "{print}", true),
            ("tclsh", "", true),
            ("m4", "-Dx=y", true),
            ("dc", "-e 1", true),
            ("ls", "-c", false),
            ("git", "", false),
            // Program text from a pipe under a file's name.
            ("python3", "/dev/stdin", true),
            ("python3", "/dev/fd/0", true),
            ("python3", "/dev/fd/3", true),
            ("python3", "/proc/self/fd/0", true),
            ("node", "/proc/thread-self/fd/0", true),
            ("perl", "../../../../../../../../dev/stdin", true),
            // A script that is not there (it could be made a FIFO before it runs).
            ("python3", "missing.py", true),
            // A directory is no script.
            ("python3", ".", true),
        ];
        for (name, args, want) in cases {
            let got = interpreter_program_text(name, &argv(args), Some(&cwd));
            assert_eq!(got.is_some(), *want, "{name} {args}: {got:?}");
        }
        // Without a working directory a relative script cannot be read.
        assert!(interpreter_program_text("python3", &argv("script.py"), None).is_some());
    }

    #[test]
    fn a_fifo_or_a_link_to_the_pipe_is_no_script() {
        let sandbox = Sandbox::new("fifo");
        let cwd = sandbox.dir("ws");
        sandbox.link("ws/stdin.py", Path::new("/dev/stdin"));
        sandbox.link("ws/fd.py", Path::new("/proc/self/fd/0"));
        let made = std::process::Command::new("mkfifo")
            .arg(cwd.join("fifo.py"))
            .status()
            .is_ok_and(|s| s.success());
        for script in ["stdin.py", "fd.py"] {
            let got = interpreter_program_text("python3", &argv(script), Some(&cwd));
            assert!(got.is_some(), "{script}");
        }
        if made {
            let got = interpreter_program_text("python3", &argv("fifo.py"), Some(&cwd));
            assert!(got.unwrap().contains("not a regular file"));
        }
    }

    /// The wrapping subcommand is read at the subcommand's place only: before, any listed
    /// word before `--` made the line a wrapper (`uv pip install run`, `poetry show run`
    /// installed or showed a package named run); options before the subcommand, with their
    /// values, still hide nothing.
    #[test]
    fn wrapping_subcommands_at_the_subcommands_place() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("uv", "pip install run", None),
            ("uv", "pip show exec", None),
            ("poetry", "show run", None),
            ("poetry", "add shell", None),
            ("conda", "list run", None),
            ("conda", "install -n base run", None),
            ("pyenv", "versions exec", None),
            ("mise", "ls run", None),
            ("mise", "tasks ls", None),
            ("doppler", "secrets get run", None),
            ("rustup", "component add run", None),
            ("uv", "run touch y", Some("uv run")),
            ("uv", "--directory x run touch y", Some("uv run")),
            ("uv", "--directory=x run touch y", Some("uv run")),
            ("uv", "-q run touch y", Some("uv run")),
            ("uv", "tool run ruff", Some("uv tool")),
            ("poetry", "-C dir run pytest", Some("poetry run")),
            ("conda", "run -n base id", Some("conda run")),
            ("pyenv", "exec id", Some("pyenv exec")),
            ("mise", "tasks run build", Some("mise tasks run")),
            ("mise", "task --verbose run build", Some("mise task run")),
            ("mise", "-C d x -- id", Some("mise x")),
            ("mise", "en", Some("mise en")),
            ("hatch", "env run -- id", Some("hatch env run")),
            ("op", "plugin run -- gh", Some("op plugin run")),
            ("rustup", "--verbose run stable id", Some("rustup run")),
            ("rustup", "+stable run stable id", Some("rustup run")),
        ];
        for (program, args, want) in cases {
            let got = wrapping_subcommand(program, program, &argv(args));
            match want {
                None => assert_eq!(got, None, "{program} {args}"),
                Some(names) => {
                    let why = got.unwrap_or_else(|| panic!("{program} {args}: not a wrapper"));
                    assert!(why.contains(names), "{program} {args}: {why}");
                }
            }
        }
    }

    #[test]
    fn printf_dash_v_assigns() {
        let cases: &[(&str, bool)] = &[
            ("-v PATH /tmp/evil", true),
            ("-vPATH /tmp/evil", true),
            ("-- -v x", false),
            ("%s x", false),
            ("x -v y", false),
        ];
        for (args, want) in cases {
            let got = assigning_builtin("printf", &argv(args));
            assert_eq!(got.is_some(), *want, "printf {args}: {got:?}");
        }
        assert_eq!(assigning_builtin("echo", &argv("-v x")), None);
    }

    #[test]
    fn wrapper_and_refused_lists() {
        let basic = ["sh", "bash", "env", "sudo", "xargs", ".", "exec", "time"];
        for name in basic.iter().chain(REVIEWED_WRAPPERS) {
            assert!(is_wrapper(name), "{name}");
        }
        for name in ["ls", "git", "cat", "python3"] {
            assert!(!is_wrapper(name), "{name}");
        }
        for name in [
            "less", "more", "man", "vi", "vim", "nvi", "emacs", "nano", "gdb", "lldb", "nvim",
            "sftp", "ftp",
        ] {
            assert!(REFUSED_PROGRAMS.contains(&name), "{name}");
        }
    }
}
