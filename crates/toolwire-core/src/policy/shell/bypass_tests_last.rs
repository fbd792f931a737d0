//! The last attacker review of the shell analysis (issue 19, section 4): what a line run as root
//! may use (E1, with root's default PATH), lines not run as root (E2, C16's other branch),
//! repository hooks asked for only by the subcommands that run them (E3, confirmed with the real
//! git), programs that run code from the workspace or the environment (E4), and a line's other
//! segments writing the repository git reads (E5).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::tests::Sandbox;
use super::*;

/// Default PATHs, as each system sets them for root and for users.
const DEFAULT_PATHS: &[(&str, &str, bool)] = &[
    (
        "Debian/Ubuntu/Alpine root, Docker images",
        "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        true,
    ),
    (
        "Debian user",
        "/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games",
        false,
    ),
    (
        "Ubuntu /etc/environment",
        "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/games:/usr/local/games",
        true,
    ),
    (
        "Fedora",
        "/usr/local/bin:/usr/bin:/usr/local/sbin:/usr/sbin",
        true,
    ),
    ("Arch", "/usr/local/sbin:/usr/local/bin:/usr/bin", true),
];

/// A workspace holding a clean repository, the real `ls` and `git` allowlisted by name.
fn workspace(sandbox: &Sandbox) -> PathBuf {
    let ws = sandbox.dir("ws");
    sandbox.dir("ws/.git/hooks");
    std::fs::write(ws.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
    ws
}

/// Analyzes `command` under `options` and asserts its verdict: approved when `want`, else
/// refused for a reason containing `refusal`. `case` says which case failed. Every table of
/// this file goes through it.
fn expect(command: &str, options: &AnalyzeOptions, want: bool, refusal: &str, case: &str) {
    let analysis = analyze_command(command, options);
    let reason = analysis.reason.unwrap_or_default();
    assert_eq!(analysis.approved, want, "{case}: {command}: {reason}");
    assert!(
        want || reason.contains(refusal),
        "{case}: {command}: {reason} (want {refusal:?})"
    );
}

/// E1: as root (these tests' own user, and many containers'), every multi-segment line asked,
/// because `/usr/local/sbin`, first on root's default PATH, was not trusted.
#[test]
fn default_paths_approve_allowlisted_lines_as_root_and_as_a_user() {
    let sandbox = Sandbox::new("last-default-paths");
    let ws = workspace(&sandbox);
    for (system, path, as_root) in DEFAULT_PATHS {
        let runs = if *as_root {
            vec![true, false]
        } else {
            vec![false]
        };
        for runs_as_root in runs {
            let options = AnalyzeOptions {
                cwd: Some(ws.clone()),
                allowlist: vec!["ls".into(), "git".into()],
                path: Some(path.to_string()),
                runs_as_root,
                ..AnalyzeOptions::default()
            };
            for command in ["ls && git status", "git log -n 1 | head -n 3", "ls; ls -la"] {
                expect(
                    command,
                    &options,
                    true,
                    "",
                    &format!("{system} (root: {runs_as_root})"),
                );
            }
        }
    }
    // A per-user directory first on PATH is no trusted dir, as root or not: beside a segment
    // that may write files, nothing is looked up through it.
    let home_bin = sandbox.dir("home/.local/bin");
    for runs_as_root in [true, false] {
        let options = AnalyzeOptions {
            cwd: Some(ws.clone()),
            allowlist: vec!["ls".into(), "git".into(), "cp".into()],
            path: Some(format!("{}:/usr/local/sbin:/usr/bin", home_bin.display())),
            runs_as_root,
            ..AnalyzeOptions::default()
        };
        std::fs::set_permissions(&home_bin, std::fs::Permissions::from_mode(0o775)).unwrap();
        let case = format!("root {runs_as_root}");
        expect("ls && git status", &options, true, "", &case);
        expect("cp a b && git status", &options, false, ".local/bin", &case);
    }
}

/// E2 (C16 for a process that is not root): a root-owned directory outside the workspace that
/// no one else can write is safe to find programs in; one owned by another user, writable by
/// its group or by anyone, or inside the workspace is not. Run as root, none of them is.
#[test]
fn a_line_not_run_as_root_also_trusts_root_managed_dirs() {
    let sandbox = Sandbox::new("last-root-managed");
    let ws = workspace(&sandbox);
    let bin = sandbox.dir("bin");
    for program in ["ls", "git", "cp"] {
        sandbox.exe(&format!("bin/{program}"));
    }
    let mode = |dir: &Path, mode: u32| {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let sys = sandbox.dir("sys");
    let sticky = sandbox.dir("sticky");
    let under_sticky = sandbox.dir("sticky/inner");
    mode(&sticky, 0o1777);
    let group = sandbox.dir("group");
    mode(&group, 0o775);
    let open = sandbox.dir("open");
    mode(&open, 0o777);
    let other = sandbox.dir("other");
    std::os::unix::fs::chown(&other, Some(65534), Some(65534)).unwrap();
    let wbin = sandbox.dir("ws/wbin");
    // (PATH entry before the trusted `bin`, approved when not run as root).
    let cases: &[(&Path, bool)] = &[
        (&sys, true),
        (&under_sticky, true),
        (&sticky, false),
        (&group, false),
        (&open, false),
        (&other, false),
        (&wbin, false),
        (&sandbox.root.join("missing"), false),
    ];
    for (entry, user_approves) in cases {
        for runs_as_root in [false, true] {
            let options = AnalyzeOptions {
                cwd: Some(ws.clone()),
                allowlist: vec!["ls".into(), "git".into(), "cp".into()],
                trusted_dirs: vec![bin.clone()],
                path: Some(format!("{}:{}", entry.display(), bin.display())),
                runs_as_root,
                ..AnalyzeOptions::default()
            };
            let case = format!("{} (root: {runs_as_root})", entry.display());
            expect("ls && git status", &options, true, "", &case);
            let want = *user_approves && !runs_as_root;
            expect("cp a b && ls", &options, want, "may write", &case);
        }
    }
}

/// The real git in `dir`, without any user or system configuration.
pub(super) fn git_command(dir: &Path, home: &Path) -> Command {
    let mut command = Command::new("/usr/bin/git");
    command
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "a")
        .env("GIT_AUTHOR_EMAIL", "a@example.com")
        .env("GIT_COMMITTER_NAME", "a")
        .env("GIT_COMMITTER_EMAIL", "a@example.com")
        .env("GIT_PAGER", "cat")
        .stdin(Stdio::null());
    command
}

/// Runs the real git in `dir` ([`git_command`]).
pub(super) fn git(dir: &Path, home: &Path, args: &[&str]) -> std::process::Output {
    git_command(dir, home).args(args).output().unwrap()
}

/// A real repository `ws` with one commit on `main`, and every hook git knows (and a name it
/// does not) installed as a script that appends its name to `marks`.
pub(super) struct HookedRepository {
    pub(super) sandbox: Sandbox,
    pub(super) ws: PathBuf,
    pub(super) marks: PathBuf,
}

impl HookedRepository {
    pub(super) fn new(name: &str) -> HookedRepository {
        let sandbox = Sandbox::new(name);
        let ws = sandbox.dir("ws");
        let home = sandbox.root.clone();
        assert!(git(&ws, &home, &["init", "-q", "-b", "main"])
            .status
            .success());
        std::fs::write(ws.join("a.txt"), "hello\n").unwrap();
        git(&ws, &home, &["add", "a.txt"]);
        assert!(git(&ws, &home, &["commit", "-qm", "init"]).status.success());
        let marks = sandbox.root.join("marks");
        HookedRepository { sandbox, ws, marks }
    }

    pub(super) fn install(&self, hook: &str) {
        let path = self.ws.join(".git/hooks").join(hook);
        let script = format!("#!/bin/sh\necho {hook} >> '{}'\n", self.marks.display());
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn uninstall_all(&self) {
        let hooks = self.ws.join(".git/hooks");
        std::fs::remove_dir_all(&hooks).unwrap();
        std::fs::create_dir(&hooks).unwrap();
    }

    /// Runs `git <args>` for real (a line added to the file first, so that there is something
    /// to commit and refreshing the index finds changed stat data) and returns the hooks it ran.
    fn run(&self, args: &str) -> String {
        let _ = std::fs::remove_file(&self.marks);
        let mut file = std::fs::File::options()
            .append(true)
            .open(self.ws.join("a.txt"))
            .unwrap();
        std::io::Write::write_all(&mut file, b"more\n").unwrap();
        file.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
            .unwrap();
        let args: Vec<&str> = args.split_whitespace().collect();
        git(&self.ws, &self.sandbox.root, &args);
        std::fs::read_to_string(&self.marks).unwrap_or_default()
    }

    pub(super) fn options(&self) -> AnalyzeOptions {
        AnalyzeOptions {
            cwd: Some(self.ws.clone()),
            allowlist: vec!["git".into()],
            path: Some("/usr/bin:/bin".into()),
            ..AnalyzeOptions::default()
        }
    }
}

/// Subcommands that run no hook, with every hook installed: approved, and run for real, no
/// hook runs.
const HOOK_FREE: &[&str] = &[
    "log",
    "log --oneline -n 1",
    "show",
    "show HEAD:a.txt",
    "rev-parse HEAD",
    "ls-files",
    "cat-file -t HEAD",
    "blame a.txt",
    "grep hello",
    "shortlog -s HEAD",
    "for-each-ref",
    "show-ref",
    "ls-tree HEAD",
    "rev-list HEAD",
    "merge-base HEAD HEAD",
    "name-rev HEAD",
    "diff-files",
    "diff-index HEAD",
    "diff-tree -r HEAD",
    "count-objects",
    "check-attr -a a.txt",
    "check-ignore a.txt",
    "format-patch -1 --stdout",
    "fsck",
    "version",
    "--version",
    "ls-remote .",
    "cherry main",
];

/// E3: with every hook installed, read-only subcommands are approved and, run for real, run
/// none; before the fix any installed hook made every git command ask.
#[test]
fn subcommands_that_run_no_hook_are_approved_with_every_hook_installed() {
    let repo = HookedRepository::new("last-hooks-free");
    for (hook, _) in git::HOOKS {
        repo.install(hook);
    }
    repo.install("not-a-hook-git-knows");
    let options = repo.options();
    for args in HOOK_FREE {
        let analysis = analyze_command(&format!("git {args}"), &options);
        assert!(analysis.approved, "git {args}: {:?}", analysis.reason);
        assert_eq!(repo.run(args), "", "git {args} ran a hook");
    }
    // Controls that hooks do run here: the index written by `add`, a commit. (`status` writes
    // the index only when its refresh changes an entry or finds one racily clean, which depends
    // on how the file system's clock ticks between the commands: not a control.)
    assert!(repo.run("add a.txt").contains("post-index-change"));
    assert!(repo.run("commit -qam x").contains("pre-commit"));
}

/// E3, per hook: (hook installed alone, subcommand, whether it asks, whether running it for real
/// shows the hook run). Rows with `true` in the last column were confirmed with git 2.47.
const HOOK_TABLE: &[(&str, &str, bool, bool)] = &[
    ("pre-commit", "commit -qam x", true, true),
    ("pre-commit", "status", false, false),
    ("pre-commit", "add a.txt", false, false),
    ("pre-commit", "diff", false, false),
    ("pre-commit", "log", false, false),
    ("pre-commit", "merge main", true, false),
    ("pre-commit", "rebase main", true, false),
    ("commit-msg", "commit -qam x", true, true),
    ("prepare-commit-msg", "commit -qam x", true, true),
    ("post-commit", "commit -qam x", true, true),
    ("post-commit", "fetch origin", false, false),
    ("post-checkout", "switch -q --create other", true, true),
    ("post-checkout", "checkout -q main", true, true),
    ("post-checkout", "restore a.txt", true, true),
    ("post-checkout", "status", false, false),
    ("post-checkout", "commit -qam x", false, false),
    ("post-merge", "merge main", true, false),
    ("post-merge", "pull", true, false),
    ("post-merge", "log", false, false),
    ("pre-rebase", "rebase main", true, false),
    ("pre-rebase", "commit -qam x", false, false),
    ("pre-push", "push origin main", true, false),
    ("pre-push", "fetch origin", false, false),
    ("pre-receive", "push -q . main:pushed1", true, true),
    ("update", "push -q . main:pushed2", true, true),
    // `status` writes the index (and runs the hook) only when its refresh changes an entry or
    // finds one racily clean, which depends on the file system's clock: it asks, unconfirmed.
    ("post-index-change", "status", true, false),
    ("post-index-change", "diff", true, false),
    ("post-index-change", "add a.txt", true, true),
    ("post-index-change", "log", false, false),
    ("post-index-change", "rev-parse HEAD", false, false),
    ("reference-transaction", "branch topic", true, true),
    ("reference-transaction", "tag v1", true, true),
    ("reference-transaction", "fetch origin", true, false),
    ("reference-transaction", "status", false, false),
    ("pre-auto-gc", "gc --auto", true, false),
    ("pre-auto-gc", "commit -qam x", true, false),
    ("pre-auto-gc", "status", false, false),
    ("applypatch-msg", "am x.patch", true, false),
    ("applypatch-msg", "apply x.patch", false, false),
    ("post-rewrite", "commit -q --amend --no-edit", true, true),
    // A name git 2.47 does not run may be a later git's hook: every hook-running subcommand.
    ("not-a-hook-git-knows", "commit -qam x", true, false),
    ("not-a-hook-git-knows", "status", true, false),
    ("not-a-hook-git-knows", "log", false, false),
    // Samples never run; `fsmonitor-watchman` runs only through `core.fsmonitor`, refused.
    ("pre-commit.sample", "commit -qam x", false, false),
    ("fsmonitor-watchman", "status", false, false),
];

#[test]
fn hooks_ask_only_for_the_subcommands_that_run_them() {
    let repo = HookedRepository::new("last-hooks-table");
    let options = repo.options();
    for (hook, args, asks, runs) in HOOK_TABLE {
        repo.uninstall_all();
        repo.install(hook);
        let analysis = analyze_command(&format!("git {args}"), &options);
        let reason = analysis.reason.clone().unwrap_or_default();
        assert_eq!(!analysis.approved, *asks, "{hook}: git {args}: {reason}");
        if *asks {
            assert!(reason.contains(hook), "{hook}: git {args}: {reason}");
        }
        if *runs {
            assert!(
                repo.run(args).contains(hook),
                "{hook} not run by git {args}"
            );
        }
    }
    // Without a subcommand git runs no hook.
    repo.install("pre-commit");
    assert!(analyze_command("git --no-pager --version", &options).approved);
}

/// E4: variables that make a program run another program or load code, as a review listed them
/// and more of each kind (pagers, editors, askpass and ssh helpers, preloads, shell startup
/// files, interpreter options, package-manager configuration).
const CODE_RUNNING_VARIABLES: &[&str] = &[
    "PATH",
    "PAGER",
    "GIT_PAGER",
    "MANPAGER",
    "LESSOPEN",
    "LESSCLOSE",
    "LESS",
    "EDITOR",
    "VISUAL",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_PROXY_COMMAND",
    "GIT_EXEC_PATH",
    "GIT_DIR",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_KEY_0",
    "GIT_CONFIG_PARAMETERS",
    "GIT_TEMPLATE_DIR",
    "BROWSER",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "GCONV_PATH",
    "BASH_ENV",
    "ENV",
    "PROMPT_COMMAND",
    "PS4",
    "SHELLOPTS",
    "BASHOPTS",
    "IFS",
    "SHELL",
    "HOME",
    "XDG_CONFIG_HOME",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "PERL5OPT",
    "PERL5LIB",
    "NODE_OPTIONS",
    "NODE_PATH",
    "RUBYOPT",
    "RUBYLIB",
    "PIP_INDEX_URL",
    "PIP_FIND_LINKS",
    "npm_config_script_shell",
    "NPM_CONFIG_GIT",
    "YARN_YARN_PATH",
    "MAKEFLAGS",
    "TAR_OPTIONS",
    "PATCH_GET",
    "pager",
];

/// The ways a line sets a variable for the programs after it.
const ASSIGNMENT_SPELLINGS: &[&str] = &[
    "{V}=x git log",
    "LANG=C {V}=x git log",
    "{V}=x LANG=C git log",
    "env {V}=x git log",
    "env -i {V}=x git log",
    "export {V}=x; git log",
    "declare -x {V}=x && git log",
    "typeset -x {V}=x; git log",
    "readonly {V}=x; git log",
    "local {V}=x; git log",
    "printf -v {V} x; git log",
    "{V}=x",
];

/// A trusted `bin` of fake programs, all allowlisted, and a workspace `ws` (a clean
/// repository) as the working directory.
fn fake_programs(name: &str, programs: &[&str]) -> (Sandbox, AnalyzeOptions) {
    let sandbox = Sandbox::new(name);
    let ws = workspace(&sandbox);
    let options = sandbox.allowlisting(ws, programs);
    (sandbox, options)
}

/// E4: every code-running variable in every spelling, on the line and in the call's
/// environment, is refused; the safe table's variables with plain values pass on the line as
/// they do in the call (before the fix any `NAME=value` word was refused).
#[test]
fn code_running_variables_are_refused_in_every_spelling() {
    let (_sandbox, options) = fake_programs("last-variables", &["git", "ls", "printf"]);
    let mut approved = Vec::new();
    for variable in CODE_RUNNING_VARIABLES {
        for spelling in ASSIGNMENT_SPELLINGS {
            let command = spelling.replace("{V}", variable);
            if analyze_command(&command, &options).approved {
                approved.push(command);
            }
        }
        for key in callenv::ENV_KEYS {
            let args = serde_json::json!({ "command": "git log", *key: { *variable: "x" } });
            assert!(
                callenv::unsafe_call_env(&args).is_some(),
                "{key}: {variable}"
            );
        }
    }
    assert!(approved.is_empty(), "approved: {approved:#?}");
    let controls = [
        "LANG=C git log",
        "LC_ALL=C TZ=UTC ls -la",
        "NO_COLOR=1 git status && ls",
        "TZ=America/New_York ls",
        "RUST_LOG=info,x=debug ls",
        "LANG=en_US.UTF-8 git log | LC_ALL=C ls",
    ];
    for command in controls {
        let analysis = analyze_command(command, &options);
        assert!(analysis.approved, "{command}: {:?}", analysis.reason);
    }
    // Safe names with values that name a file (a locale or zone file elsewhere).
    for command in [
        "LANG=/tmp/x ls",
        "LC_ALL=../x ls",
        "TZ=/tmp/x ls",
        "TZ=:/tmp/x ls",
        "TZ=../../tmp/x ls",
        "TERM=/tmp/x ls",
    ] {
        let analysis = analyze_command(command, &options);
        let reason = analysis.reason.unwrap_or_default();
        assert!(reason.contains("may name a file"), "{command}: {reason}");
        let (name, value) = command
            .split_whitespace()
            .next()
            .unwrap()
            .split_once('=')
            .unwrap();
        let args = serde_json::json!({ "env": { name: value } });
        assert!(callenv::unsafe_call_env(&args).is_some(), "{command}");
    }
}

/// E4, run for real: git runs the program these variables name (the marker file appears), and
/// the line setting them is refused.
#[test]
fn git_runs_the_programs_its_variables_name() {
    let repo = HookedRepository::new("last-variables-run");
    let marker = repo.sandbox.root.join("ran");
    let program = format!("touch '{}'; :", marker.display());
    // (A pager runs only on a terminal: editors, diff programs and ssh helpers run anyway.)
    let cases: &[(&[(&str, &str)], &str)] = &[
        (&[("GIT_EDITOR", &program)], "commit -a"),
        (&[("EDITOR", &program)], "commit -a"),
        // git reads VISUAL on a terminal that is not dumb.
        (&[("TERM", "xterm"), ("VISUAL", &program)], "commit -a"),
        (&[("GIT_EXTERNAL_DIFF", &program)], "diff"),
        (
            &[("GIT_SSH_COMMAND", &program)],
            "ls-remote ssh://example.com/x",
        ),
        (
            &[
                ("GIT_CONFIG_COUNT", "1"),
                ("GIT_CONFIG_KEY_0", "diff.external"),
                ("GIT_CONFIG_VALUE_0", &program),
            ],
            "diff",
        ),
    ];
    for (vars, args) in cases {
        let _ = std::fs::remove_file(&marker);
        std::fs::write(repo.ws.join("a.txt"), "changed\n").unwrap();
        let mut command = git_command(&repo.ws, &repo.sandbox.root);
        command
            .args(args.split_whitespace())
            .env_remove("GIT_PAGER")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (name, value) in *vars {
            command.env(name, value);
        }
        command.status().unwrap();
        assert!(marker.exists(), "{vars:?} git {args} ran nothing");
        let line = vars
            .iter()
            .map(|(name, _)| format!("{name}=x"))
            .collect::<Vec<_>>()
            .join(" ");
        let analysis = analyze_command(&format!("{line} git {args}"), &repo.options());
        assert!(!analysis.approved, "{line} git {args}");
    }
}

/// E4: package managers and `patch`, allowlisted, through the whole analyzer: (command, what
/// the reason must contain; `None` for the controls that stay approved).
const PACKAGE_CORPUS: &[(&str, Option<&str>)] = &[
    ("pip install .", Some("local path")),
    ("pip3 install -e .", Some("source to build from")),
    ("pip3.11 install --editable=.", Some("source to build from")),
    (
        "pip install -r requirements.txt",
        Some("source to build from"),
    ),
    (
        "pip install git+https://example.com/x.git",
        Some("version control"),
    ),
    ("pip install ./dist/x-1.0.tar.gz", Some("local path")),
    ("pip install x-1.0.tar.gz", Some("archive")),
    ("pip install mypkg", Some("working directory")),
    ("pip wheel .", Some("local path")),
    ("pip config edit", Some("configuration")),
    ("python3 -m pip install .", Some("interpreter")),
    ("npm test", Some("package.json scripts")),
    ("npm run build", Some("package.json scripts")),
    ("npm install", Some("package.json scripts")),
    ("npm ci", Some("package.json scripts")),
    ("npm --prefix ls install", Some("before the subcommand")),
    ("yarn", Some("installs")),
    ("yarn build", Some("package.json scripts")),
    ("pnpm install", Some("package.json scripts")),
    ("pnpm build", Some("package.json scripts")),
    ("npx tsc -p .", Some("package's program")),
    ("patch -e f s.ed", Some("`-e`")),
    ("patch --ed f s.ed", Some("--ed")),
    ("patch -Ne f s.ed", Some("-Ne")),
    ("patch -g1 -p1 -i x.diff", Some("-g1")),
    ("patch --get=1 -i x.diff", Some("--get")),
    // Controls.
    ("pip install requests", None),
    ("pip3 install -U 'requests>=2' urllib3", None),
    ("pip list --outdated", None),
    ("npm ls --all", None),
    ("npm view react version", None),
    ("pnpm why react", None),
    ("yarn why react", None),
    ("patch -p1 -i x.diff", None),
    ("patch -N -p0 f x.diff", None),
];

#[test]
fn package_managers_and_patch_run_no_workspace_code() {
    let (sandbox, options) = fake_programs(
        "last-packages",
        &[
            "pip", "pip3", "pip3.11", "python3", "npm", "yarn", "pnpm", "npx", "patch",
        ],
    );
    sandbox.dir("ws/mypkg");
    let mut failures = Vec::new();
    for (command, want) in PACKAGE_CORPUS {
        let analysis = analyze_command(command, &options);
        let reason = analysis.reason.clone().unwrap_or_default();
        let ok = match want {
            Some(want) => !analysis.approved && reason.contains(want),
            None => analysis.approved,
        };
        if !ok {
            failures.push(format!("{command}: {reason} (want {want:?})"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// E4, run for real: `npm test` and `pip wheel .` run the workspace's code; `npm ls` does not.
#[test]
fn package_managers_run_the_workspace_code_for_real() {
    let sandbox = Sandbox::new("last-packages-run");
    let ws = sandbox.dir("ws");
    let marker = sandbox.root.join("ran");
    let touch = format!("touch {}", marker.display());
    let scripts = [
        "test",
        "preinstall",
        "install",
        "postinstall",
        "prepare",
        "prels",
    ];
    let scripts: serde_json::Map<String, serde_json::Value> = scripts
        .iter()
        .map(|name| (name.to_string(), serde_json::Value::String(touch.clone())))
        .collect();
    let package = serde_json::json!({ "name": "ws", "version": "1.0.0", "scripts": scripts });
    std::fs::write(ws.join("package.json"), package.to_string()).unwrap();
    let run = |program: &str, args: &[&str]| {
        let _ = std::fs::remove_file(&marker);
        let status = Command::new(program)
            .args(args)
            .current_dir(&ws)
            .env("HOME", &sandbox.root)
            .env("npm_config_cache", sandbox.root.join("cache"))
            .env("npm_config_offline", "true")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        status.is_ok() && marker.exists()
    };
    if Path::new("/usr/bin/npm").exists() {
        assert!(run("/usr/bin/npm", &["test"]), "npm test ran no script");
        assert!(!run("/usr/bin/npm", &["ls"]), "npm ls ran a script");
    }
    let setup = format!(
        "import pathlib\npathlib.Path({:?}).touch()\nfrom setuptools import setup\nsetup(name='x', version='1')\n",
        marker.display().to_string()
    );
    std::fs::write(ws.join("setup.py"), setup).unwrap();
    let pip_wheel = [
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "-q",
        "-w",
        "out",
        ".",
    ];
    let python = ["/usr/bin/python3", "/root/.pyenv/shims/python3"]
        .into_iter()
        .find(|p| {
            Command::new(p)
                .args(["-c", "import pip, setuptools"])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        });
    if let Some(python) = python {
        assert!(run(python, &pip_wheel), "pip wheel . ran no setup.py");
    }
}

/// E5: a line's other segment writing the repository git reads when it runs (each approved
/// before the fix; the first confirmed by running it, in
/// `a_segment_writing_a_hook_runs_it_in_the_same_line`).
const REPOSITORY_WRITES: &[(&str, bool)] = &[
    ("cp x .git/hooks/pre-commit && git commit -m x", false),
    ("cp x .git/config && git status", false),
    ("chmod +x .git/hooks/pre-commit && git commit -m x", false),
    ("cp x y | git status", false),
    ("git status; cp x .git/config", false),
    ("git worktree add .git/hooks HEAD && git commit -m x", false),
    ("git bundle create .git/config HEAD && git log", false),
    ("git archive -o .git/config HEAD; git status", false),
    ("git merge-file .git/config a b && git log", false),
    // Controls: readers and git subcommands that write only the index, refs and work tree.
    ("ls && git status", true),
    ("git add -A && git commit -m x", true),
    ("git status | head -n 3", true),
    ("git log --oneline | grep fix | wc -l", true),
    ("git fetch && git rebase origin/main", true),
    ("cat a.txt && git diff", true),
    ("git -C src status && git log", true),
    ("cp x y && ls", true),
    ("LANG=C git log && LC_ALL=C git status", true),
    (
        "LANG=C git bundle create .git/config HEAD && git log",
        false,
    ),
    ("cp x .yarnrc.yml && yarn why react", false),
    ("cp x .npmrc; npm ls", false),
    ("ls && yarn why react", true),
    ("npm ls && git status", true),
];

#[test]
fn git_runs_only_beside_programs_that_write_no_file() {
    let (sandbox, options) = fake_programs(
        "last-repo-writes",
        &[
            "git", "cp", "ls", "chmod", "cat", "head", "grep", "wc", "npm", "yarn",
        ],
    );
    sandbox.dir("ws/src");
    // Not root: as root every program beside a writer asks (`lines_run_as_root_...`).
    let options = AnalyzeOptions {
        runs_as_root: false,
        ..options
    };
    for (command, want) in REPOSITORY_WRITES {
        // A git subcommand naming a path in `.git` to write is refused on its own
        // (`git::written_paths`), before the line rule.
        let written = ["worktree add", "bundle create", "archive -o", "merge-file"];
        let refusal = match written
            .iter()
            .any(|sub| command.contains(&format!("git {sub} .git")))
        {
            true => "inside a `.git`",
            false => "may write them first",
        };
        expect(command, &options, *want, refusal, "E5");
    }
}

/// E5, run for real: the hook the first segment puts in place runs in the second.
#[test]
fn a_segment_writing_a_hook_runs_it_in_the_same_line() {
    let repo = HookedRepository::new("last-repo-writes-run");
    let hook = repo.sandbox.root.join("hook");
    let marker = repo.sandbox.root.join("ran");
    std::fs::write(&hook, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let line = format!(
        "cp '{}' .git/hooks/pre-commit && git commit -qam x",
        hook.display()
    );
    Command::new("/bin/sh")
        .args(["-c", &line])
        .current_dir(&repo.ws)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "a")
        .env("GIT_AUTHOR_EMAIL", "a@example.com")
        .env("GIT_COMMITTER_NAME", "a")
        .env("GIT_COMMITTER_EMAIL", "a@example.com")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    std::fs::remove_file(repo.ws.join(".git/hooks/pre-commit")).unwrap();
    let options = AnalyzeOptions {
        allowlist: vec!["git".into(), "cp".into()],
        ..repo.options()
    };
    assert!(marker.exists(), "the hook written in the line did not run");
    let analysis = analyze_command(&line, &options);
    assert!(!analysis.approved, "{line}");
}

/// E3: a push to another repository on this machine runs that repository's receive hooks
/// (confirmed: `git push ../other.git main` ran its `pre-receive`); URLs, remote names, refspecs
/// and the workspace's own repository stay approved.
#[test]
fn a_push_to_a_local_repository_is_refused() {
    let repo = HookedRepository::new("last-local-push");
    let home = repo.sandbox.root.clone();
    let other = repo.sandbox.dir("other.git");
    assert!(git(&other, &home, &["init", "-q", "--bare"])
        .status
        .success());
    let marks = repo.marks.clone();
    let hook = other.join("hooks/pre-receive");
    std::fs::write(
        &hook,
        format!("#!/bin/sh\necho pre-receive >> '{}'\n", marks.display()),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(repo
        .run("push -q ../other.git main")
        .contains("pre-receive"));
    let options = repo.options();
    for (args, want) in [
        ("push ../other.git main", false),
        ("push -q --repo=../other.git main", false),
        (&*format!("push file://{} main", other.display()), false),
        (&*format!("push {} main", other.display()), false),
        ("push origin main", true),
        ("push origin HEAD:refs/heads/x", true),
        ("push https://example.com/x.git main", true),
        ("push git@example.com:x.git main", true),
        ("push . main:other", true),
        ("push -o ci.skip origin main", true),
    ] {
        expect(&format!("git {args}"), &options, want, "", "E3");
    }
}

/// F5: a line run as root can write the trusted dirs, so a program found there may be one an
/// earlier segment put in place (`cp ./evil /usr/local/sbin/wc && wc -l` was approved; found
/// by the attacker review, repro 10.sh, confirmed by running as root). As root, a program runs
/// beside other segments only when none of them writes files; not as root the same lines pass.
const ROOT_LINES: &[(&str, bool)] = &[
    ("cp ./evil bin/wc && wc -l", false),
    ("cp ./evil bin/ls; ls", false),
    ("ls | cp ./evil bin/wc", false),
    ("chmod +x bin/wc && wc -l", false),
    ("cp a b && cp c d", false),
    ("git archive -o bin/wc HEAD && wc -l", false),
    // Controls: every segment writes no file.
    ("ls && git status", true),
    ("git log -n 1 | head -n 3 | wc -l", true),
    ("cat a.txt && ls -la", true),
    ("cp ./evil bin/wc", true),
];

#[test]
fn lines_run_as_root_run_programs_only_beside_segments_that_write_no_file() {
    let (sandbox, options) = fake_programs(
        "last-root-writes",
        &["git", "cp", "ls", "chmod", "cat", "head", "wc"],
    );
    for (command, want) in ROOT_LINES {
        for runs_as_root in [true, false] {
            let options = AnalyzeOptions {
                runs_as_root,
                ..options.clone()
            };
            let want = *want || !runs_as_root;
            let case = format!("F5 (root: {runs_as_root})");
            expect(command, &options, want, "runs as root", &case);
        }
    }
    drop(sandbox);
}

/// F2/F3: configuration files in every syntax git accepts, each setting a code-running key
/// (`EVIL` stands for a program): git's own `git config --file f --list` shows the key, and
/// the analyzer refuses. Seen in the attacker review: a `]` inside a quoted subsection ended
/// the header early (repro 2.sh), a UTF-8 BOM hid the first header (3.sh); `/` or `=` inside a
/// subsection hid the key from the argument-shaped check.
const CONFIG_VARIANTS: &[(&str, &str)] = &[
    ("[diff \"x]y\"] textconv = EVIL\n", "diff.x]y.textconv=EVIL"),
    (
        "\u{feff}[core]\n\tfsmonitor = EVIL\n",
        "core.fsmonitor=EVIL",
    ),
    ("[core]\r\n\tfsmonitor = EVIL\r\n", "core.fsmonitor=EVIL"),
    (
        "[diff \"a/b\"]\n\ttextconv = EVIL\n",
        "diff.a/b.textconv=EVIL",
    ),
    (
        "[diff \"a=b\"]\n\ttextconv = EVIL\n",
        "diff.a=b.textconv=EVIL",
    ),
    ("[Core]\n\tFSMonitor = EVIL\n", "core.fsmonitor=EVIL"),
    ("[diff.x]\n\ttextconv = EVIL\n", "diff.x.textconv=EVIL"),
    ("[core]\n\tfsmonitor = EV\\\nIL\n", "core.fsmonitor=EVIL"),
    (
        "[core] ; c\n fsmonitor = \"EVIL\" # c\n",
        "core.fsmonitor=EVIL",
    ),
    ("[core]fsmonitor=EVIL", "core.fsmonitor=EVIL"),
    (
        "[diff \"\\x\\]\"] textconv = EVIL\n",
        "diff.x].textconv=EVIL",
    ),
    (
        "[diff \"a b\"]\n\ttextconv = EVIL\n",
        "diff.a b.textconv=EVIL",
    ),
    ("[tar \"tgz\"]\n\tcommand = EVIL\n", "tar.tgz.command=EVIL"),
    (
        "[includeIf \"gitdir:/\"]\n\tpath = EVIL\n",
        "includeif.gitdir:/.path=EVIL",
    ),
    ("[include]\n\tpath = EVIL\n", "include.path=EVIL"),
    (
        "[remote \"o\"]\n\turl = ext::EVIL\n",
        "remote.o.url=ext::EVIL",
    ),
    ("[filter \"a\"]\n\tsmudge = EVIL\n", "filter.a.smudge=EVIL"),
];

/// Configuration git refuses to read (it stops with a fatal error): refused too.
const CONFIG_REFUSED_BY_GIT: &[&str] = &[
    "[diff \"x]\n\ttextconv = EVIL\n",
    "[core]\n\tpager = \"EVIL\n",
    "[core]\n\tpager = \\qEVIL\n",
    "[co re]\n\tx = 1\n",
];

#[test]
fn configuration_is_read_in_every_syntax_git_accepts() {
    let repo = HookedRepository::new("last-config-syntax");
    let home = repo.sandbox.root.clone();
    let config = repo.ws.join(".git/config");
    let base = std::fs::read_to_string(&config).unwrap();
    let options = repo.options();
    // A BOM counts only at the very start of the file: such a text is the whole file.
    let check = |text: &str| {
        let whole = match text.starts_with('\u{feff}') {
            true => text.to_string(),
            false => format!("{base}{text}"),
        };
        std::fs::write(&config, whole).unwrap();
        let listed = git(
            &repo.ws,
            &home,
            &["config", "--file", ".git/config", "--list"],
        );
        let analysis = analyze_command("git status", &options);
        (listed, analysis)
    };
    for (text, key) in CONFIG_VARIANTS {
        let (listed, analysis) = check(text);
        let listed = String::from_utf8_lossy(&listed.stdout).to_string();
        assert!(listed.contains(key), "git reads {text:?} as:\n{listed}");
        assert!(!analysis.approved, "{text:?} approved");
    }
    for text in CONFIG_REFUSED_BY_GIT {
        let (listed, analysis) = check(text);
        assert!(!listed.status.success(), "git accepts {text:?}");
        let reason = analysis.reason.unwrap_or_default();
        assert!(
            reason.contains("refuses or may read otherwise"),
            "{text:?}: {reason}"
        );
    }
    // Control: the same syntaxes with harmless keys pass.
    let (_, analysis) = check("\r\n[diff \"x]y\"] wordRegex = .\n[user.x]\n\tname = \"a b\" ; c\n");
    assert!(analysis.approved, "{:?}", analysis.reason);
}

/// F2/F3 run for real: the `]`-in-subsection textconv runs under `git show`, the BOM-hidden
/// fsmonitor under `git status`; both are refused.
#[test]
fn hidden_config_keys_run_code_for_real() {
    let repo = HookedRepository::new("last-config-real");
    let home = repo.sandbox.root.clone();
    let marker = repo.sandbox.root.join("ran");
    let evil = repo.sandbox.root.join("evil.sh");
    std::fs::write(
        &evil,
        format!(
            "#!/bin/sh\ntouch '{}'\ncat \"$1\" 2>/dev/null\n",
            marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&evil, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(repo.ws.join(".gitattributes"), "a.txt diff=x]y\n").unwrap();
    let config = repo.ws.join(".git/config");
    let base = std::fs::read_to_string(&config).unwrap();
    for (text, args) in [
        (
            format!("{base}[diff \"x]y\"] textconv = {}\n", evil.display()),
            "show",
        ),
        (
            format!("\u{feff}[core]\n\tfsmonitor = {}\n{base}", evil.display()),
            "status",
        ),
    ] {
        let _ = std::fs::remove_file(&marker);
        std::fs::write(&config, &text).unwrap();
        git(&repo.ws, &home, &[args]);
        assert!(marker.exists(), "git {args} ran no code with {text:?}");
        let analysis = analyze_command(&format!("git {args}"), &repo.options());
        assert!(!analysis.approved, "git {args} approved with {text:?}");
    }
}

/// F4: every subcommand that talks to another repository runs git there when that one is on
/// this machine (seen in the attacker review, repro 4.sh: `git archive --remote=vendor/x` ran
/// vendor/x's `tar.tgz.command`, confirmed here for real); such a repository, named by an
/// argument, an option's value or the configuration's remotes, is refused. URLs, remote names,
/// the repository itself and paths that are not a remote stay approved.
#[test]
fn talking_to_a_repository_on_this_machine_is_refused() {
    let repo = HookedRepository::new("last-local-remote");
    let home = repo.sandbox.root.clone();
    let other = repo.sandbox.dir("ws/vendor/x");
    assert!(git(&other, &home, &["init", "-q"]).status.success());
    std::fs::write(other.join("f"), "v\n").unwrap();
    git(&other, &home, &["add", "f"]);
    assert!(git(&other, &home, &["commit", "-qm", "v"]).status.success());
    let marker = repo.sandbox.root.join("ran");
    let evil = repo.sandbox.root.join("evil.sh");
    std::fs::write(
        &evil,
        format!("#!/bin/sh\ntouch '{}'\ncat\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(&evil, std::fs::Permissions::from_mode(0o755)).unwrap();
    git(
        &other,
        &home,
        &["config", "tar.tgz.command", &evil.display().to_string()],
    );
    git(
        &repo.ws,
        &home,
        &["archive", "--remote=vendor/x", "--format=tgz", "HEAD"],
    );
    assert!(marker.exists(), "vendor/x's tar.tgz.command did not run");
    std::fs::create_dir(repo.ws.join("src")).unwrap();
    let url = format!("file://{}", other.display());
    let options = repo.options();
    let cases: &[(&str, bool)] = &[
        ("archive --remote=vendor/x --format=tgz HEAD", false),
        ("archive --remote vendor/x HEAD", false),
        (&format!("archive --remote={url} HEAD"), false),
        ("fetch vendor/x", false),
        (&format!("fetch {url} main"), false),
        ("pull vendor/x main", false),
        ("clone vendor/x copy", false),
        ("ls-remote vendor/x", false),
        (&format!("ls-remote {}", other.display()), false),
        ("remote add -f o vendor/x", false),
        ("request-pull HEAD vendor/x", false),
        ("push vendor/x main", false),
        // Controls.
        ("archive --format=tar HEAD", true),
        ("archive HEAD src", true),
        ("fetch origin", true),
        ("fetch https://example.com/x.git main", true),
        ("ls-remote git@example.com:x.git", true),
        ("pull . main", true),
        ("clone https://example.com/x.git copy", true),
        ("remote -v", true),
    ];
    for (args, want) in cases {
        expect(
            &format!("git {args}"),
            &options,
            *want,
            "on this machine",
            "local",
        );
    }
    // A remote configured with a local path: talking to it asks, other subcommands pass.
    let config = repo.ws.join(".git/config");
    let base = std::fs::read_to_string(&config).unwrap();
    for (text, args) in [
        ("[remote \"o\"]\n\turl = vendor/x\n", "fetch o"),
        (
            "[remote \"o\"]\n\turl = https://example.com/x\n\tpushurl = /srv/x.git\n",
            "push o",
        ),
        ("[branch \"main\"]\n\tremote = ../x\n", "pull"),
        (&*format!("[remote \"o\"]\n\turl = {url}\n"), "ls-remote o"),
        (
            "[remote \"o\"]\n\turl = vendor/x\n",
            "archive --remote=o HEAD",
        ),
    ] {
        std::fs::write(&config, format!("{base}{text}")).unwrap();
        let analysis = analyze_command(&format!("git {args}"), &options);
        assert!(!analysis.approved, "git {args} with {text:?}");
        assert!(analyze_command("git status", &options).approved, "{text:?}");
    }
    std::fs::write(
        &config,
        format!("{base}[remote \"o\"]\n\turl = https://example.com/x\n"),
    )
    .unwrap();
    assert!(analyze_command("git fetch o", &options).approved);
}

/// F1: `git status` and `git diff` run git inside each submodule, under the submodule's own
/// configuration (attacker review, repro 1.sh: a `core.fsmonitor` in `.git/modules/sub/config`
/// ran, confirmed here for real). A repository with submodules, absorbed under `.git/modules`
/// or embedded (a gitlink in the index only, no `.gitmodules`), asks for every subcommand that
/// may enter one; the top repository's readers stay approved, and so does a repository without.
#[test]
fn submodules_are_entered_by_status_and_diff() {
    let repo = HookedRepository::new("last-submodules");
    let home = repo.sandbox.root.clone();
    let options = repo.options();
    expect("git status", &options, true, "", "no submodule yet");
    let src = repo.sandbox.dir("src");
    assert!(git(&src, &home, &["init", "-q"]).status.success());
    git(&src, &home, &["commit", "-q", "--allow-empty", "-m", "s"]);
    let added = git(
        &repo.ws,
        &home,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "-q",
            "add",
            "../src",
            "sub",
        ],
    );
    assert!(added.status.success(), "{added:?}");
    git(&repo.ws, &home, &["commit", "-qm", "sub"]);
    let marker = repo.sandbox.root.join("ran");
    let evil = repo.sandbox.root.join("evil.sh");
    std::fs::write(&evil, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
    std::fs::set_permissions(&evil, std::fs::Permissions::from_mode(0o755)).unwrap();
    let sub = repo.ws.join("sub");
    git(
        &sub,
        &home,
        &["config", "core.fsmonitor", &evil.display().to_string()],
    );
    git(
        &repo.ws,
        &home,
        &["config", "--remove-section", "submodule.sub"],
    );
    for args in ["status", "diff"] {
        let _ = std::fs::remove_file(&marker);
        git(&repo.ws, &home, &[args]);
        assert!(
            marker.exists(),
            "git {args} did not run the submodule's fsmonitor"
        );
    }
    let check = |layout: &str| {
        for (line, want) in [
            ("git status", false),
            ("git diff", false),
            ("git log -p", false),
            ("git ls-files --recurse-submodules", false),
            ("git rev-parse HEAD", true),
            ("git ls-files", true),
            ("git branch --list", true),
        ] {
            expect(line, &options, want, "submodules", layout);
        }
    };
    check("absorbed");
    // Embedded: the submodule's own .git directory, no .gitmodules and no .git/modules; the
    // index's gitlink is all that is left.
    std::fs::remove_file(sub.join(".git")).unwrap();
    std::fs::rename(repo.ws.join(".git/modules/sub"), sub.join(".git")).unwrap();
    std::fs::remove_dir(repo.ws.join(".git/modules")).unwrap();
    std::fs::remove_file(repo.ws.join(".gitmodules")).unwrap();
    git(&sub, &home, &["config", "--unset", "core.worktree"]);
    check("embedded");
}
