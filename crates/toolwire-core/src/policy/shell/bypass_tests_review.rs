//! The bypasses an attacker review confirmed by running them (issue 19, section 4, points B-D),
//! each approved by the analyzer before its fix, with the approved controls that show the fixes
//! are not "refuse everything": git's internal and plumbing commands, foreign merge strategies
//! and remote-helper URLs (B); the repository git really uses in the workspace (C17); programs
//! whose purpose is to run another program, and interpreters whose options permute (D).

use std::os::unix::fs::PermissionsExt;

use super::tests::Sandbox;
use super::*;

/// Programs of the trusted `bin`, all allowlisted: every refusal is the analyzer's doing.
const ALLOWLIST: &[&str] = &["git", "ls", "m4", "dc", "cat"];

/// A workspace `ws` (a clean repository: `.git/config` as `git init` writes it, plus an origin)
/// with a trusted `bin` holding the allowlisted programs.
struct Review {
    sandbox: Sandbox,
    options: AnalyzeOptions,
}

const CLEAN_CONFIG: &str = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n[remote \"origin\"]\n\turl = https://example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n";

impl Review {
    fn new(name: &str, extra: &[&str]) -> Review {
        let sandbox = Sandbox::new(name);
        let bin = sandbox.dir("bin");
        let ws = sandbox.dir("ws");
        for program in ALLOWLIST.iter().chain(extra) {
            sandbox.exe(&format!("bin/{program}"));
        }
        sandbox.dir("ws/.git/hooks");
        std::fs::write(ws.join(".git/config"), CLEAN_CONFIG).unwrap();
        sandbox.file("ws/prog.m4", 0o644);
        sandbox.file("ws/other.m4", 0o644);
        sandbox.dir("ws/src");
        let options = AnalyzeOptions {
            cwd: Some(ws),
            allowlist: ALLOWLIST
                .iter()
                .chain(extra)
                .map(|s| s.to_string())
                .collect(),
            trusted_dirs: vec![bin.clone()],
            path: Some(bin.display().to_string()),
            ..AnalyzeOptions::default()
        };
        Review { sandbox, options }
    }

    /// The rows (command, what the reason must contain) that are approved or refused for
    /// another reason.
    fn failures(&self, rows: &[(String, String)]) -> Vec<String> {
        rows.iter()
            .filter_map(|(command, want)| {
                let analysis = analyze_command(command, &self.options);
                let reason = analysis.reason.unwrap_or_default();
                (analysis.approved || !reason.contains(want.as_str()))
                    .then(|| format!("{command:?} -> {reason:?} (want {want:?})"))
            })
            .collect()
    }

    fn assert_approved(&self, commands: &[&str]) {
        for command in commands {
            let analysis = analyze_command(command, &self.options);
            assert!(analysis.approved, "{command}: {:?}", analysis.reason);
        }
    }
}

fn rows(table: &[(&str, &str)]) -> Vec<(String, String)> {
    table
        .iter()
        .map(|(c, w)| (c.to_string(), w.to_string()))
        .collect()
}

/// B: each confirmed by running it with git 2.47 (`git merge -s evil` ran `git-merge-evil` from
/// PATH, `git ls-remote evil::x` ran `git-remote-evil`, `git merge-index sh -a` ran `sh`).
const GIT_CORPUS: &[(&str, &str)] = &[
    (
        "git submodule--helper foreach 'touch /tmp/x'",
        "internal to git",
    ),
    ("git difftool--helper a b", "internal to git"),
    ("git mergetool--lib", "internal to git"),
    (
        "git remote-ext x 'sh -c id'",
        "`git remote-ext` can run commands",
    ),
    ("git remote-http origin https://x", "internal to git"),
    (
        "git merge-index sh -a",
        "`git merge-index` can run commands",
    ),
    (
        "git for-each-repo status",
        "`git for-each-repo` can run commands",
    ),
    (
        "git maintenance start",
        "`git maintenance` can run commands",
    ),
    ("git gui citool", "`git gui` can run commands"),
    ("git sh-i18n", "`git sh-i18n` can run commands"),
    ("git merge -s evil main", "merge strategy `evil`"),
    ("git merge -sevil main", "merge strategy `evil`"),
    ("git merge -vs evil main", "merge strategy `evil`"),
    ("git merge --strategy=evil main", "merge strategy `evil`"),
    ("git merge --strategy evil main", "merge strategy `evil`"),
    ("git merge --strat=evil main", "merge strategy `evil`"),
    ("git pull -s evil origin main", "merge strategy `evil`"),
    ("git rebase -s evil main", "merge strategy `evil`"),
    (
        "git cherry-pick --strategy=evil HEAD",
        "merge strategy `evil`",
    ),
    ("git revert --strategy evil HEAD", "merge strategy `evil`"),
    ("git merge-evil", "no git command"),
    ("git lfs pull", "no git command"),
    ("git st", "no git command"),
    ("git ls-remote evil::x", "`<transport>::<address>` URL"),
    ("git fetch evil::x", "`<transport>::<address>` URL"),
    ("git pull evil::x main", "`<transport>::<address>` URL"),
    ("git clone evil::x dir", "`<transport>::<address>` URL"),
    ("git push evil::x main", "`<transport>::<address>` URL"),
    ("git remote add o evil::x", "`<transport>::<address>` URL"),
    (
        "git remote set-url origin my+t.r-x::addr",
        "`<transport>::<address>` URL",
    ),
    ("git push --repo=evil::x", "`<transport>::<address>` URL"),
    (
        "git submodule add evil::x sub",
        "`git submodule` can run commands",
    ),
];

#[test]
fn git_internal_commands_strategies_and_remote_helpers_are_refused() {
    let review = Review::new("review-git", &[]);
    let failures = review.failures(&rows(GIT_CORPUS));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    review.assert_approved(&[
        "git status",
        "git fetch origin",
        "git pull origin main",
        "git merge -s ort main",
        "git merge -s recursive -X ours main",
        "git merge -Xsubtree=lib main",
        "git merge -m 'msg with s' main",
        "git cherry-pick -s HEAD",
        "git rebase --strategy=ours main",
        "git log --stat",
        "git clone https://example.com/r.git dir",
        "git clone 'ssh://[::1]/r.git' dir",
        "git merge-file a b c",
        "git ls-remote origin",
        "git -C src status",
    ]);
}

/// Generated rows: every subcommand that takes a strategy, in every form the option is
/// written, with a foreign name; and every URL-taking subcommand with a remote-helper URL as an
/// argument and as an option's value.
#[test]
fn generated_strategy_and_url_rows() {
    let review = Review::new("review-git-generated", &[]);
    let mut table = Vec::new();
    for sub in ["merge", "pull", "rebase", "cherry-pick", "revert"] {
        for form in [
            "--strategy=evil",
            "--strategy evil",
            "--strate=evil",
            "--str evil",
        ] {
            table.push((
                format!("git {sub} {form} x"),
                "merge strategy `evil`".into(),
            ));
        }
        if matches!(sub, "merge" | "pull" | "rebase") {
            for form in ["-s evil", "-sevil", "-qs evil", "-nsevil"] {
                table.push((
                    format!("git {sub} {form} x"),
                    "merge strategy `evil`".into(),
                ));
            }
        }
    }
    let url_subs = [
        "fetch",
        "pull",
        "push",
        "clone",
        "ls-remote",
        "archive --remote",
        "remote add o",
        "fetch-pack",
        "send-pack",
    ];
    for sub in url_subs {
        for url in ["evil::x", "e2::/tmp/x", "a.b+c-d::x"] {
            table.push((format!("git {sub} {url}"), "::<address>` URL".into()));
            table.push((format!("git {sub} --x={url}"), "::<address>` URL".into()));
        }
    }
    for helper in [
        "submodule--helper",
        "difftool--helper",
        "x--helper",
        "remote-fd",
        "remote-ftp",
    ] {
        table.push((format!("git {helper} x"), format!("`git {helper}`")));
    }
    assert!(table.len() > 60, "{}", table.len());
    let failures = review.failures(&table);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// C17: the workspace root's own repository, as git finds it, set up one way per row: `.git`
/// is written fresh for each.
#[test]
fn the_repository_git_uses_in_the_workspace_is_checked() {
    let cases: &[(&str, Option<&str>)] = &[
        // A `.git` file leading outside the workspace (its config and hooks are not ours).
        (
            "file:gitdir: {outside}/.git",
            Some("outside the trusted directory"),
        ),
        (
            "file:gitdir: ../outside/.git",
            Some("outside the trusted directory"),
        ),
        (
            "file:not a gitdir line",
            Some("does not start with `gitdir:`"),
        ),
        ("file:gitdir: missing", Some("cannot be resolved")),
        // The root repository's own configuration running code.
        (
            "config:[core]\n\tfsmonitor = sh -c id\n",
            Some("core.fsmonitor"),
        ),
        (
            "config:[core]\n\thooksPath = /tmp/evil\n",
            Some("core.hookspath"),
        ),
        ("config:[core]\npager = less\n", Some("core.pager")),
        (
            "config:[diff \"pdf\"]\n\ttextconv = sh\n",
            Some(".textconv"),
        ),
        ("config:[alias]\n\tst = !sh\n", Some("alias.st")),
        ("config:[include]\n\tpath = /tmp/x\n", Some("include.path")),
        (
            "config:[remote \"origin\"]\n\turl = evil::x\n",
            Some("evil::x"),
        ),
        (
            "config:[core]\n\tsshCommand = sh\n",
            Some("core.sshcommand"),
        ),
        (
            "config.worktree:[core]\n\teditor = sh\n",
            Some("core.editor"),
        ),
        ("config:[core\n", Some("section header")),
        // A hook installed in the repository that these commands may run (`git status` writes
        // the index when it refreshes it; `git log` runs none: see
        // `hooks_ask_only_for_the_subcommands_that_run_them`).
        ("hooks/pre-commit.sample:#!/bin/sh\n", None),
        ("hooks/pre-commit:#!/bin/sh\n", None),
        // Controls: a clean configuration, and a `.git` file leading inside the workspace.
        ("config:[core]\n\tbare = false\n[user]\n\tname = me\n", None),
        ("file:gitdir: .repo", None),
    ];
    for (setup, want) in cases {
        let review = Review::new("review-root-repo", &[]);
        let ws = review.sandbox.root.join("ws");
        let outside = review.sandbox.dir("outside/.git");
        std::fs::write(outside.join("config"), CLEAN_CONFIG).unwrap();
        review.sandbox.dir("ws/.repo");
        std::fs::write(ws.join(".repo/config"), CLEAN_CONFIG).unwrap();
        let (kind, text) = setup.split_once(':').unwrap();
        if kind == "file" {
            std::fs::remove_dir_all(ws.join(".git")).unwrap();
            let text = text.replace(
                "{outside}",
                &review.sandbox.root.join("outside").display().to_string(),
            );
            std::fs::write(ws.join(".git"), format!("{text}\n")).unwrap();
        } else {
            std::fs::write(ws.join(".git").join(kind), text).unwrap();
        }
        for command in ["git status", "git -C src log"] {
            let analysis = analyze_command(command, &review.options);
            match want {
                Some(want) => {
                    let reason = analysis.reason.unwrap_or_default();
                    assert!(
                        !analysis.approved && reason.contains(want),
                        "{setup:?} {command}: {reason:?} (want {want:?})"
                    );
                }
                None => assert!(
                    analysis.approved,
                    "{setup:?} {command}: {:?}",
                    analysis.reason
                ),
            }
        }
    }
}

/// C17: a linked worktree (`git worktree add`) whose git directory lies in the main repository
/// elsewhere is checked there: its configuration and hooks, and the way back to the workspace.
#[test]
fn a_linked_worktree_is_checked_in_its_common_directory() {
    let review = Review::new("review-worktree", &[]);
    let ws = review.sandbox.root.join("ws");
    let main = review.sandbox.dir("main/.git");
    std::fs::write(main.join("config"), CLEAN_CONFIG).unwrap();
    let gitdir = review.sandbox.dir("main/.git/worktrees/ws");
    std::fs::write(gitdir.join("commondir"), "../..\n").unwrap();
    std::fs::write(
        gitdir.join("gitdir"),
        format!("{}\n", ws.join(".git").display()),
    )
    .unwrap();
    std::fs::remove_dir_all(ws.join(".git")).unwrap();
    std::fs::write(ws.join(".git"), format!("gitdir: {}\n", gitdir.display())).unwrap();
    assert!(analyze_command("git status", &review.options).approved);
    let refused = |want: &str| {
        let analysis = analyze_command("git status", &review.options);
        let reason = analysis.reason.unwrap_or_default();
        assert!(
            !analysis.approved && reason.contains(want),
            "{reason} (want {want})"
        );
    };
    // The main repository's configuration and hooks are the worktree's.
    std::fs::write(main.join("config"), "[core]\n\tfsmonitor = sh\n").unwrap();
    refused("core.fsmonitor");
    std::fs::write(main.join("config"), CLEAN_CONFIG).unwrap();
    review.sandbox.exe("main/.git/hooks/post-merge");
    assert!(analyze_command("git status", &review.options).approved);
    let analysis = analyze_command("git merge main", &review.options);
    let reason = analysis.reason.unwrap_or_default();
    assert!(reason.contains("the hook"), "{reason}");
    review.sandbox.exe("main/.git/hooks/post-index-change");
    refused("the hook");
    std::fs::remove_file(main.join("hooks/post-merge")).unwrap();
    std::fs::remove_file(main.join("hooks/post-index-change")).unwrap();
    // A worktree directory that does not lead back to this workspace is someone else's.
    std::fs::write(gitdir.join("gitdir"), "/tmp/elsewhere/.git\n").unwrap();
    refused("not a worktree of it");
}

/// C17: without a `.git` of its own, git run in the workspace finds the repository above it.
#[test]
fn a_repository_above_the_workspace_is_untrusted() {
    let review = Review::new("review-above", &[]);
    let ws = review.sandbox.root.join("ws");
    std::fs::remove_dir_all(ws.join(".git")).unwrap();
    assert!(analyze_command("git status", &review.options).approved);
    review.sandbox.dir(".git");
    let analysis = analyze_command("git status", &review.options);
    let reason = analysis.reason.unwrap_or_default();
    assert!(reason.contains("above the trusted directory"), "{reason}");
}

/// D: programs whose purpose is to run another program (each read from its `--help` on this
/// machine), allowlisted by name and still refused.
const RUNNERS: &[&str] = &[
    "choom",
    "sotruss",
    "memusage",
    "systemd-cat",
    "systemd-inhibit",
    "systemd-run",
    "systemd-socket-activate",
    "luit",
    "debconf",
    "debconf-apt-progress",
    "pg_virtualenv",
    "heaptrack",
    "msgexec",
    "msgfilter",
    "scriptlive",
    "scriptreplay",
    "gio",
    "gtk-launch",
    "gapplication",
    "mimeopen",
    "xdg-open",
    "xdg-email",
    "chromium",
    "google-chrome",
    "cpan",
    "cpan5.36-x86_64-linux-gnu",
    "gdbtui",
    "jdb",
    "ssh-argv0",
    "kernel-install",
    "make-first-existing-target",
    "uclampset",
    "gprofng",
    "x86_64-linux-gnu-gp-collect-app",
    "valgrind.bin",
    "vgdb",
    "ld.so",
    "ld-linux-x86-64.so.2",
    "ld-linux.so.2",
    "lli-14",
    "not-14",
    "llvm-jitlink-14",
    "bugpoint",
    "jexec",
    "jrunscript",
    "prove",
    "gpg-agent",
    "gpg-connect-agent",
    "x-terminal-emulator",
    "zutty",
    "zless",
    "xzmore",
    "zstdless",
    "perldoc",
    "pydoc3.11",
    "cscope",
    "bashbug",
    "perlbug",
    "vimtutor",
    "red",
    "switch_root",
];

#[test]
fn programs_that_run_a_program_are_refused_even_allowlisted() {
    let review = Review::new("review-runners", RUNNERS);
    let table: Vec<(String, String)> = RUNNERS
        .iter()
        .map(|name| (format!("{name} -- touch x"), String::new()))
        .collect();
    let failures = review.failures(&table);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for name in RUNNERS {
        let analysis = analyze_command(&format!("{name} x"), &review.options);
        let reason = analysis.reason.unwrap_or_default();
        assert!(
            reason.contains("wrapper") || reason.contains("spawn a shell"),
            "{name}: {reason}"
        );
    }
}

/// D: `dc` and `m4` read options with GNU getopt, which permutes: an option after the program
/// file is still an option (`dc file -e '!cmd'` ran the command).
#[test]
fn permuting_interpreters_are_checked_at_every_argument() {
    let review = Review::new("review-permute", &[]);
    let table = rows(&[
        ("dc prog.m4 -e '!touch /tmp/x'", "`-e`"),
        ("dc prog.m4 --expression=x", "`--expression=x`"),
        ("m4 prog.m4 -", "reads its program from stdin"),
        ("m4 prog.m4 -DX=1", "`-DX=1`"),
        ("m4 prog.m4 other.m4 --trace=x", "`--trace=x`"),
        ("m4 prog.m4 missing.m4", "does not exist"),
        ("m4 prog.m4 /dev/stdin", "device or process file"),
        ("dc -- -e", "does not exist"),
        ("m4", "reads its program from stdin"),
    ]);
    let failures = review.failures(&table);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    review.assert_approved(&[
        "m4 prog.m4",
        "dc prog.m4",
        "m4 prog.m4 other.m4",
        "m4 -- prog.m4",
    ]);
}

/// C16: a line whose earlier segment writes the program a later one runs. Every segment is
/// analyzed before any runs: with a writable directory before the trusted `bin` on PATH, the
/// `git` the analysis found in `bin` is not the `git` the shell runs after `cp` (confirmed by
/// running `cp /usr/bin/env ws/bin/git && git touch /tmp/x`).
#[test]
fn a_later_segment_never_runs_a_program_an_earlier_one_could_write() {
    let review = Review::new("review-line-writes", &["cp"]);
    let root = review.sandbox.root.clone();
    let bin = root.join("bin");
    review.sandbox.dir("ws/wbin");
    let open = review.sandbox.dir("open");
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    review.sandbox.exe("ws/tool");
    let with_path = |path: String| AnalyzeOptions {
        path: Some(path),
        allowlist: [
            &["git", "ls", "cp"][..],
            &[&format!("{}/ws/tool", root.display())],
        ]
        .concat()
        .iter()
        .map(|s| s.to_string())
        .collect(),
        ..review.options.clone()
    };
    let cases: &[(&str, &str, Option<&str>)] = &[
        (
            "{ws}/wbin:{bin}",
            "cp {bin}/ls wbin/git && git status",
            Some("`{ws}/wbin`"),
        ),
        ("{ws}/wbin:{bin}", "cp a b; git status", Some("`{ws}/wbin`")),
        (
            "{ws}/wbin:{bin}",
            "cp a b | git status",
            Some("`{ws}/wbin`"),
        ),
        (
            "{ws}/wbin:{bin}",
            "git status | cp a b",
            Some("`{ws}/wbin`"),
        ),
        (
            "{root}/missing:{bin}",
            "cp a b && git status",
            Some("`{root}/missing`"),
        ),
        (
            "{root}/open:{bin}",
            "cp a b && git status",
            Some("`{root}/open`"),
        ),
        (
            ".:{bin}",
            "cp {bin}/ls git && git status",
            Some("(a PATH entry)"),
        ),
        ("rel:{bin}", "cp a b && git status", Some("(a PATH entry)")),
        ("{bin}", "cp a b && ./tool", Some("(where it was found)")),
        // Controls: one segment cannot write its own program first; programs found before any
        // writable entry; a writable entry after the trusted one; a line whose segments all
        // write no file, whatever PATH holds (a new user's `npm run` put node_modules/.bin
        // first).
        ("{ws}/wbin:{bin}", "git status", None),
        ("{bin}", "ls && git status", None),
        ("{bin}:{ws}/wbin:.", "ls && git status | ls", None),
        ("{ws}/wbin:{bin}", "ls; git status", None),
        ("{ws}/wbin:{bin}", "ls | git status", None),
        ("{root}/missing:{bin}", "ls && git status", None),
        ("rel:{bin}", "ls && git status", None),
        ("{bin}", "./tool", None),
    ];
    let fill = |text: &str| {
        text.replace("{ws}", &format!("{}/ws", root.display()))
            .replace("{root}", &root.display().to_string())
            .replace("{bin}", &bin.display().to_string())
    };
    for (path, command, want) in cases {
        let options = with_path(fill(path));
        let command = fill(command);
        let analysis = analyze_command(&command, &options);
        match want {
            Some(want) => {
                let want = fill(want);
                let reason = analysis.reason.unwrap_or_default();
                assert!(
                    !analysis.approved && reason.contains(&want) && reason.contains("may write"),
                    "PATH={path} {command}: {reason} (want {want})"
                );
            }
            None => assert!(
                analysis.approved,
                "PATH={path} {command}: {:?}",
                analysis.reason
            ),
        }
    }
}
