//! Git's configuration and remotes read as git reads them, run with the real git (issue 19,
//! last round): code-running keys in their subsection forms (user review, repro 16), URLs
//! rewritten by `url.<base>.insteadOf` before the "repository on this machine" check, and the
//! repository argument told apart from refspecs.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::super::bypass_tests_last::{git, git_command, HookedRepository};
use super::super::tests::Sandbox;
use super::super::*;
use super::user_config;

/// An executable script at `path` touching `marker` and failing (a merge strategy that fails
/// leaves the branches as they were).
fn toucher(path: &Path, marker: &Path) {
    std::fs::write(
        path,
        format!("#!/bin/sh\ntouch '{}'\nexit 2\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `text` appended to the repository's own configuration as `git init` wrote it.
fn configure(repo: &HookedRepository, base: &str, text: &str) {
    std::fs::write(repo.ws.join(".git/config"), format!("{base}{text}")).unwrap();
}

/// An HTTP server on loopback answering every request `401` with a Basic challenge, which makes
/// git ask its credential helpers. Returns its URL.
fn unauthorized_server() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(
                b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    url
}

/// Repro 16: `[credential "<url>"] helper = !cmd` runs when that server answers 401 (confirmed
/// here for real); it and the other subsection forms of code-running keys are refused, while
/// keys of the same sections that run nothing pass.
#[test]
fn code_running_keys_are_refused_in_their_subsection_forms() {
    let repo = HookedRepository::new("git-subsection-keys");
    let home = repo.sandbox.root.clone();
    let base = std::fs::read_to_string(repo.ws.join(".git/config")).unwrap();
    let marker = repo.sandbox.root.join("ran");
    let url = unauthorized_server();
    configure(
        &repo,
        &base,
        &format!(
            "[credential \"{url}\"]\n\thelper = \"!touch '{}'\"\n",
            marker.display()
        ),
    );
    let fetch = format!("fetch {url}/x.git");
    git_command(&repo.ws, &home)
        .env("GIT_TERMINAL_PROMPT", "0")
        .args(fetch.split(' '))
        .output()
        .unwrap();
    assert!(
        marker.exists(),
        "the credential helper for {url} did not run"
    );
    let options = repo.options();
    let analysis = analyze_command(&format!("git {fetch}"), &options);
    let reason = analysis.reason.clone().unwrap_or_default();
    assert!(!analysis.approved, "{reason}");
    assert!(
        reason.contains(&format!("credential.{url}.helper")),
        "{reason}"
    );
    // Subsection forms that run code, then keys of the same sections that run nothing.
    let cases: &[(&str, bool)] = &[
        (
            "[credential \"https://example.com\"]\n\thelper = store\n",
            false,
        ),
        (
            "[Credential \"https://example.com/a b\"]\n\tHelper = x\n",
            false,
        ),
        ("[credential.https://example.com]\n\thelper = x\n", false),
        ("[gpg \"ssh\"]\n\tdefaultKeyCommand = x\n", false),
        ("[gpg \"x509\"]\n\tprogram = x\n", false),
        ("[includeIf \"onbranch:main\"]\n\tpath = x\n", false),
        ("[remote \"a.b\"]\n\tuploadpack = x\n", false),
        ("[trailer \"s\"]\n\tcmd = x\n", false),
        ("[guitool \"t\"]\n\tcmd = x\n", false),
        (
            "[url \"ext::sh -c x\"]\n\tinsteadOf = https://example.com/\n",
            false,
        ),
        (
            "[credential \"https://example.com\"]\n\tusername = me\n\tuseHttpPath = true\n",
            true,
        ),
        (
            "[http \"https://example.com\"]\n\tproxy = http://p:8080\n\tsslVerify = false\n",
            true,
        ),
        ("[gpg]\n\tformat = ssh\n", true),
        (
            "[remote \"origin\"]\n\turl = https://example.com/r.git\n\tproxy = http://p:8080\n",
            true,
        ),
        ("[url \"https://github.com/\"]\n\tinsteadOf = gh:\n", true),
        ("[diff \"pdf\"]\n\tbinary = true\n", true),
        ("[pull]\n\ttwohead = ort\n\toctopus = octopus\n", true),
        ("[branch \"main\"]\n\tmergeOptions = --no-ff -s ort\n", true),
    ];
    for (text, want) in cases {
        configure(&repo, &base, text);
        for line in ["git status", "git fetch origin"] {
            let analysis = analyze_command(line, &options);
            assert_eq!(
                analysis.approved, *want,
                "{line} with {text:?}: {:?}",
                analysis.reason
            );
        }
    }
}

/// `pull.twohead`, `pull.octopus` and `branch.<name>.mergeOptions` name merge strategies, and
/// one that is not built in runs `git-merge-<name>` from PATH (confirmed here for real for
/// `git merge`): refused as `-s <name>` is.
#[test]
fn configured_merge_strategies_are_checked_as_given_ones() {
    let repo = HookedRepository::new("git-strategy-keys");
    let home = repo.sandbox.root.clone();
    let base = std::fs::read_to_string(repo.ws.join(".git/config")).unwrap();
    assert!(git(&repo.ws, &home, &["branch", "side"]).status.success());
    git(&repo.ws, &home, &["checkout", "-q", "side"]);
    git(
        &repo.ws,
        &home,
        &["commit", "-q", "--allow-empty", "-m", "s"],
    );
    git(&repo.ws, &home, &["checkout", "-q", "main"]);
    git(
        &repo.ws,
        &home,
        &["commit", "-q", "--allow-empty", "-m", "m"],
    );
    let bin: PathBuf = repo.sandbox.dir("bin");
    let marker = repo.sandbox.root.join("ran");
    toucher(&bin.join("git-merge-evil"), &marker);
    let options = repo.options();
    for text in [
        "[pull]\n\ttwohead = evil\n",
        "[branch \"main\"]\n\tmergeOptions = --no-ff -s evil\n",
        "[branch \"main\"]\n\tmergeOptions = --strategy=evil\n",
    ] {
        configure(&repo, &base, text);
        let _ = std::fs::remove_file(&marker);
        git_command(&repo.ws, &home)
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .args(["merge", "-q", "--no-edit", "side"])
            .output()
            .unwrap();
        git(&repo.ws, &home, &["merge", "--abort"]);
        assert!(
            marker.exists(),
            "git merge did not run git-merge-evil with {text:?}"
        );
        let analysis = analyze_command("git merge side", &options);
        assert!(!analysis.approved, "approved with {text:?}");
    }
    configure(&repo, &base, "[pull]\n\toctopus = octopus evil\n");
    assert!(!analyze_command("git pull", &options).approved);
}

/// A workspace repository with one commit and a bare repository `vendor/cache.git` inside it
/// whose `pre-receive` hook touches `ran`.
fn with_local_bare(name: &str) -> (HookedRepository, String, PathBuf) {
    let repo = HookedRepository::new(name);
    let home = repo.sandbox.root.clone();
    let bare = repo.sandbox.dir("ws/vendor/cache.git");
    assert!(git(&bare, &home, &["init", "-q", "--bare"])
        .status
        .success());
    let marker = repo.sandbox.root.join("ran");
    toucher(&bare.join("hooks/pre-receive"), &marker);
    let base = std::fs::read_to_string(repo.ws.join(".git/config")).unwrap();
    (repo, base, marker)
}

/// Runs `git <args>` for real in the workspace and tells whether the bare repository's
/// `pre-receive` ran.
fn hook_ran(repo: &HookedRepository, marker: &Path, args: &str) -> bool {
    let _ = std::fs::remove_file(marker);
    let args: Vec<&str> = args.split_whitespace().collect();
    git_command(&repo.ws, &repo.sandbox.root)
        .env("GIT_TERMINAL_PROMPT", "0")
        .args(&args)
        .output()
        .unwrap();
    marker.exists()
}

/// Repro 16's second form: `url.<local path>.insteadOf` (or `pushInsteadOf`) turns a push to an
/// https URL, or to a configured remote, into a push to a repository on this machine whose
/// hooks run (confirmed here for real); so do the legacy `.git/remotes/<name>` and
/// `.git/branches/<name>` files, a path git completes with `.git`, and a path relative to
/// `-C`. Each is refused; the same URLs without a rewrite, and fetches a `pushInsteadOf` does
/// not rewrite, pass.
#[test]
fn urls_are_rewritten_before_the_local_repository_check() {
    let (repo, base, marker) = with_local_bare("git-insteadof");
    let bare = repo.ws.join("vendor/cache.git").display().to_string();
    let vendor = repo.ws.join("vendor").display().to_string();
    let options = repo.options();
    let app = "https://github.com/acme/app.git";
    let setups: &[(String, &str)] = &[
        (
            format!("[url \"{bare}\"]\n\tinsteadOf = {app}\n"),
            "push https://github.com/acme/app.git HEAD:main",
        ),
        (
            format!("[url \"https://elsewhere/\"]\n\tinsteadOf = https://github.com/\n[url \"{vendor}/\"]\n\tinsteadOf = https://github.com/acme/\n"),
            "push https://github.com/acme/cache.git HEAD:main",
        ),
        (
            format!("[url \"{bare}\"]\n\tpushInsteadOf = {app}\n"),
            "push https://github.com/acme/app.git HEAD:main",
        ),
        (
            format!("[remote \"o\"]\n\turl = {app}\n[url \"{bare}\"]\n\tinsteadOf = {app}\n"),
            "push o HEAD:main",
        ),
        (
            format!("[remote \"o\"]\n\turl = {app}\n[url \"file://{bare}\"]\n\tinsteadOf = {app}\n"),
            "push o HEAD:main",
        ),
        (
            "[url \"vendor/\"]\n\tinsteadOf = gh:\n".to_string(),
            "push gh:cache.git HEAD:main",
        ),
        (String::new(), "push vendor/cache HEAD:main"),
    ];
    for (text, args) in setups {
        configure(&repo, &base, text);
        assert!(
            hook_ran(&repo, &marker, args),
            "git {args} with {text:?} ran no hook"
        );
        let analysis = analyze_command(&format!("git {args}"), &options);
        let reason = analysis.reason.clone().unwrap_or_default();
        assert!(!analysis.approved, "git {args} approved with {text:?}");
        assert!(reason.contains("on this machine"), "git {args}: {reason}");
    }
    // Git resolves a relative path from the top of the work tree, not from a subdirectory it
    // runs in (confirmed: from `src`, `git push vendor/cache.git` ran the hook).
    configure(&repo, &base, "");
    let src = repo.sandbox.dir("ws/src");
    let _ = std::fs::remove_file(&marker);
    git_command(&src, &repo.sandbox.root)
        .args(["push", "vendor/cache.git", "HEAD:main"])
        .output()
        .unwrap();
    assert!(
        marker.exists(),
        "a push from src did not reach vendor/cache.git"
    );
    let in_src = AnalyzeOptions {
        cwd: Some(src.clone()),
        root: Some(repo.ws.clone()),
        ..repo.options()
    };
    for line in [
        "git push vendor/cache.git HEAD:main",
        "git -C .. push src/../vendor/cache.git HEAD:main",
    ] {
        assert!(!analyze_command(line, &in_src).approved, "{line}");
    }
    // The legacy remote files.
    configure(&repo, &base, "");
    for (file, text) in [
        (
            "remotes/foo",
            "URL: vendor/cache.git\nPush: HEAD:refs/heads/main\n",
        ),
        ("branches/foo", "vendor/cache.git#main\n"),
    ] {
        let path = repo.ws.join(".git").join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        assert!(hook_ran(&repo, &marker, "push foo HEAD:main"), "{file}");
        assert!(
            !analyze_command("git push foo HEAD:main", &options).approved,
            "{file}"
        );
        assert!(
            !analyze_command("git fetch foo", &options).approved,
            "{file}"
        );
        assert!(analyze_command("git status", &options).approved, "{file}");
        std::fs::remove_file(&path).unwrap();
    }
    // Controls: no rewrite leads here.
    for (text, args) in [
        (
            format!("[url \"{bare}\"]\n\tinsteadOf = {app}\n"),
            "push https://github.com/acme/other.git HEAD:main",
        ),
        (
            format!("[url \"{bare}\"]\n\tpushInsteadOf = {app}\n"),
            "fetch https://github.com/acme/app.git",
        ),
        (
            format!("[url \"{bare}\"]\n\tinsteadOf = {app}\n"),
            "push origin main",
        ),
        (
            "[url \"https://github.com/\"]\n\tinsteadOf = gh:\n".to_string(),
            "push gh:acme/app.git HEAD:main",
        ),
    ] {
        configure(&repo, &base, &text);
        let analysis = analyze_command(&format!("git {args}"), &options);
        assert!(
            analysis.approved,
            "git {args} with {text:?}: {:?}",
            analysis.reason
        );
    }
}

/// The rewriting agrees with git's own (`git ls-remote --get-url` prints the URL git would
/// fetch from): the longest prefix, the first configured base on a tie, an empty prefix.
#[test]
fn rewrites_agree_with_git() {
    let repo = HookedRepository::new("git-rewrite-agree");
    let base = std::fs::read_to_string(repo.ws.join(".git/config")).unwrap();
    let text = "[url \"/srv/a\"]\n\tinsteadOf = https://h/\n[url \"/srv/b\"]\n\tinsteadOf = https://h/x\n\tinsteadOf = git@h:\n[url \"/srv/c\"]\n\tinsteadOf = https://h/x\n[url \"/srv/e\"]\n\tinsteadOf = \"\"\n[url \"/srv/p\"]\n\tpushInsteadOf = https://h/x/y\n";
    configure(&repo, &base, text);
    let entries = super::super::git_config::parse(format!("{base}{text}").as_bytes()).unwrap();
    let rewrites = super::remotes::Rewrites::new(&entries);
    for url in [
        "https://h/z.git",
        "https://h/x.git",
        "https://h/x/y.git",
        "git@h:r.git",
        "ssh://other/r",
        "h",
    ] {
        let out = git(
            &repo.ws,
            &repo.sandbox.root,
            &["ls-remote", "--get-url", url],
        );
        let got = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert_eq!(rewrites.fetch(url), got, "{url}");
    }
}

/// Only the repository argument of `fetch`, `pull`, `push` and `ls-remote` may name a
/// repository on this machine: a refspec or pattern that happens to name a directory of the
/// workspace (`main`, `refs/heads/x`, `v1`, `tag`) is no longer refused, while the repository
/// argument still is behind options with a separate value.
#[test]
fn refspecs_are_never_taken_for_a_repository() {
    let (repo, _, _) = with_local_bare("git-refspecs");
    for dir in ["main", "refs/heads/x", "v1", "tag", "x"] {
        repo.sandbox.dir(&format!("ws/{dir}"));
    }
    let options = repo.options();
    let cases: &[(&str, bool)] = &[
        ("fetch origin main", true),
        ("fetch origin +main:x", true),
        ("fetch origin refs/heads/x", true),
        ("fetch origin tag v1", true),
        ("fetch --depth 1 origin main", true),
        ("fetch origin --depth 1 main", true),
        ("pull origin main", true),
        ("pull --rebase origin main", true),
        ("pull -s ort origin main", true),
        ("push origin HEAD:main", true),
        ("push origin :x", true),
        ("push origin main x v1", true),
        ("push -o ci.skip origin main", true),
        ("ls-remote origin main", true),
        ("ls-remote --sort refname origin refs/heads/x", true),
        // The repository argument, wherever options put it.
        ("fetch vendor/cache.git main", false),
        ("fetch --depth 1 vendor/cache.git main", false),
        ("fetch -j 2 vendor/cache.git main", false),
        ("fetch --multiple origin vendor/cache.git", false),
        ("pull -s ort vendor/cache.git main", false),
        ("pull -X theirs vendor/cache.git main", false),
        ("push --repo vendor/cache.git main", false),
        (
            "push --recurse-submodules check vendor/cache.git main",
            false,
        ),
        ("push -- vendor/cache.git main", false),
        ("ls-remote --sort refname vendor/cache.git", false),
        ("fetch main", false),
    ];
    for (args, want) in cases {
        let analysis = analyze_command(&format!("git {args}"), &options);
        assert_eq!(
            analysis.approved, *want,
            "git {args}: {:?}",
            analysis.reason
        );
    }
}

/// Attack review 2, repros 2 and 2b: a bare repository is a repository git finds (a directory
/// holding `HEAD`, `objects/` and `refs/`), and a project may carry one as plain files
/// (`vendor.git`). Its `diff.external` ran for `git -C vendor.git log --ext-diff -p` from the
/// workspace and for `git show --ext-diff` run in it; `log.showSignature` with `gpg.program`
/// ran that program on a plain `git log` there. Each runs for real here and is refused; a
/// bare repository with nothing code-running in it, as the workspace itself, passes.
#[test]
fn bare_repositories_are_found_and_checked_as_git_finds_them() {
    let sandbox = Sandbox::new("git-bare");
    let home = sandbox.root.clone();
    let marker = sandbox.root.join("ran");
    let evil = sandbox.root.join("evil.sh");
    toucher(&evil, &marker);
    let src = sandbox.dir("src");
    git(&src, &home, &["init", "-q", "-b", "main"]);
    std::fs::write(src.join("f"), "x\n").unwrap();
    git(&src, &home, &["add", "f"]);
    git(&src, &home, &["commit", "-qm", "a"]);
    std::fs::write(src.join("f"), "y\n").unwrap();
    git(&src, &home, &["commit", "-qam", "b"]);
    let ws = sandbox.dir("ws");
    git(&ws, &home, &["init", "-q", "-b", "main"]);
    let clone = |dir: &Path, bare: &str| {
        let from = src.display().to_string();
        let out = git(dir, &home, &["clone", "-q", "--bare", &from, bare]);
        assert!(out.status.success(), "{out:?}");
        dir.join(bare)
    };
    let vendor = clone(&ws, "vendor.git");
    let external = format!("[diff]\n\texternal = {}\n", evil.display());
    let config = std::fs::read_to_string(vendor.join("config")).unwrap();
    std::fs::write(vendor.join("config"), format!("{config}{external}")).unwrap();
    let plain = clone(&sandbox.root, "plain.git");
    let signed = clone(&sandbox.root, "signed.git");
    let sign = format!(
        "[log]\n\tshowSignature = true\n[gpg]\n\tprogram = {}\n",
        evil.display()
    );
    std::fs::write(signed.join("config"), format!("{config}{sign}")).unwrap();
    let options = |cwd: &Path| AnalyzeOptions {
        cwd: Some(cwd.to_path_buf()),
        allowlist: vec!["git".into()],
        path: Some("/usr/bin:/bin".into()),
        ..AnalyzeOptions::default()
    };
    // (working directory, line, runs code for real, approved)
    let cases: &[(&Path, &str, bool, bool)] = &[
        (&ws, "git -C vendor.git log --ext-diff -p", true, false),
        (&ws, "git -C vendor.git/refs log", false, false),
        (
            &ws,
            "git --no-pager -C ./vendor.git/ show HEAD",
            false,
            false,
        ),
        (&vendor, "git show --ext-diff HEAD", true, false),
        (&vendor, "git log", false, false),
        (&vendor.join("refs"), "git log", false, false),
        (&plain, "git log --oneline", false, true),
        (&plain, "git -C refs log --oneline", false, true),
        (&ws, "git status", false, true),
    ];
    for (cwd, line, runs, want) in cases {
        let _ = std::fs::remove_file(&marker);
        let args: Vec<&str> = line.split(' ').skip(1).collect();
        git(cwd, &home, &args);
        assert_eq!(marker.exists(), *runs, "{line} in {}", cwd.display());
        let analysis = analyze_command(line, &options(cwd));
        let case = format!("{line} in {}: {:?}", cwd.display(), analysis.reason);
        assert_eq!(analysis.approved, *want, "{case}");
        if !want {
            let reason = analysis.reason.unwrap_or_default();
            assert!(
                reason.contains("repository") || reason.contains("diff.external"),
                "{case}"
            );
        }
    }
    // Repro 2b: a commit with a `gpgsig` header makes `git log` run `gpg.program`.
    let tree = git(&signed, &home, &["rev-parse", "HEAD^{tree}"]).stdout;
    let commit = sandbox.root.join("commit");
    std::fs::write(
        &commit,
        format!(
            "tree {}author a <a@b> 1 +0000\ncommitter a <a@b> 1 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n\nmsg\n",
            String::from_utf8_lossy(&tree)
        ),
    )
    .unwrap();
    let object = git(
        &signed,
        &home,
        &[
            "hash-object",
            "-w",
            "-t",
            "commit",
            &commit.display().to_string(),
        ],
    );
    let object = String::from_utf8_lossy(&object.stdout).trim().to_string();
    git(&signed, &home, &["update-ref", "refs/heads/main", &object]);
    let _ = std::fs::remove_file(&marker);
    git(&signed, &home, &["log"]);
    assert!(marker.exists(), "gpg.program did not run on git log");
    let analysis = analyze_command("git log", &options(&signed));
    let reason = analysis.reason.unwrap_or_default();
    assert!(
        !analysis.approved && reason.contains("gpg.program"),
        "{reason}"
    );
}

/// Attack review 2, repro 5: `git worktree add ~/.config/git evil` (approved: a write outside
/// the workspace) checked the branch's `config` out as git's XDG configuration, and the next
/// `git status` ran its `core.fsmonitor`. Both are run for real here: the worktree outside is
/// refused, and configuration git reads besides the repository's is checked (the files each
/// environment names, includes followed), keys that cannot run for the subcommand aside.
#[test]
fn configuration_outside_the_repository_is_checked() {
    let repo = HookedRepository::new("git-user-config");
    let home = repo.sandbox.dir("home");
    let marker = repo.sandbox.root.join("ran");
    let evil = repo.sandbox.root.join("evil.sh");
    toucher(&evil, &marker);
    git(&repo.ws, &home, &["checkout", "-q", "-b", "evil"]);
    std::fs::write(
        repo.ws.join("config"),
        format!("[core]\n\tfsmonitor = {}\n", evil.display()),
    )
    .unwrap();
    git(&repo.ws, &home, &["add", "config"]);
    git(&repo.ws, &home, &["commit", "-qm", "cfg", "--no-verify"]);
    git(&repo.ws, &home, &["checkout", "-q", "main"]);
    let xdg = home.join(".config/git");
    let add = format!("git worktree add {} evil", xdg.display());
    let analysis = analyze_command(&add, &repo.options());
    let reason = analysis.reason.unwrap_or_default();
    assert!(
        !analysis.approved && reason.contains("outside the workspace"),
        "{reason}"
    );
    // Had it run (with the user's real git configuration read from `home`):
    let mut run = git_command(&repo.ws, &home);
    run.env_remove("GIT_CONFIG_GLOBAL")
        .args(add.split(' ').skip(1));
    assert!(run.output().unwrap().status.success());
    let mut status = git_command(&repo.ws, &home);
    status.env_remove("GIT_CONFIG_GLOBAL").arg("status");
    status.output().unwrap();
    assert!(marker.exists(), "the global core.fsmonitor did not run");
    let vars = |pairs: Vec<(&'static str, String)>| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| std::ffi::OsString::from(v))
        }
    };
    let at_home = vars(vec![
        ("HOME", home.display().to_string()),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
    ]);
    let why = user_config::untrusted_user_config(Some("status"), &at_home).unwrap_err();
    assert!(
        why.contains("core.fsmonitor") && why.contains(".config/git/config"),
        "{why}"
    );
    // Each place and form, one at a time: (file under the sandbox, text, subcommand, refused).
    let other = repo.sandbox.dir("other");
    let cases: &[(&str, &str, &str, bool)] = &[
        (".gitconfig", "[core]\n\tpager = sh\n", "log", true),
        (".gitconfig", "[diff]\n\texternal = x\n", "log", true),
        (".gitconfig", "[include]\n\tpath = inc\n", "log", true),
        (
            ".gitconfig",
            "[includeIf \"gitdir:/nowhere/\"]\n\tpath = ~/inc\n",
            "log",
            true,
        ),
        (
            ".gitconfig",
            "[credential]\n\thelper = store\n",
            "fetch",
            true,
        ),
        (
            ".gitconfig",
            "[credential]\n\thelper = store\n",
            "status",
            false,
        ),
        (".gitconfig", "[safe]\n\tdirectory = *\n", "status", false),
        (".gitconfig", "[alias]\n\tst = status\n", "status", false),
        (".gitconfig", "[user]\n\tname = a\n", "status", false),
        (".gitconfig", "[core\n", "status", true),
    ];
    for (file, text, sub, refused) in cases {
        std::fs::remove_file(xdg.join("config")).ok();
        std::fs::write(other.join(file), text).unwrap();
        std::fs::write(other.join("inc"), "[core]\n\tsshCommand = x\n").unwrap();
        let env = vars(vec![
            ("HOME", other.display().to_string()),
            ("GIT_CONFIG_NOSYSTEM", "1".into()),
        ]);
        let got = user_config::untrusted_user_config(Some(sub), &env);
        assert_eq!(got.is_err(), *refused, "{text:?} for {sub}: {got:?}");
    }
    // Files and settings the environment names.
    let global = other.join("global");
    std::fs::write(&global, "[gpg]\n\tprogram = x\n").unwrap();
    std::fs::create_dir_all(other.join("xdg/git")).unwrap();
    std::fs::copy(&global, other.join("xdg/git/config")).unwrap();
    let envs: Vec<Vec<(&'static str, String)>> = vec![
        vec![
            ("GIT_CONFIG_GLOBAL", global.display().to_string()),
            ("GIT_CONFIG_NOSYSTEM", "1".into()),
        ],
        vec![("GIT_CONFIG_SYSTEM", global.display().to_string())],
        vec![
            ("XDG_CONFIG_HOME", other.join("xdg").display().to_string()),
            ("GIT_CONFIG_NOSYSTEM", "1".into()),
        ],
        vec![
            ("GIT_CONFIG_COUNT", "1".into()),
            ("GIT_CONFIG_KEY_0", "core.pager".into()),
        ],
        vec![("GIT_CONFIG_COUNT", "x".into())],
        vec![("GIT_CONFIG_PARAMETERS", "'core.pager'='sh'".into())],
    ];
    for pairs in envs {
        let shown = format!("{pairs:?}");
        let env = vars(pairs);
        assert!(
            user_config::untrusted_user_config(Some("log"), &env).is_err(),
            "{shown}"
        );
    }
}

/// Task r9 (git leftovers): with `safe.bareRepository=explicit` in the global configuration,
/// git refuses a bare repository it finds (`cannot use bare repository`), so its
/// `diff.external` never runs (confirmed with the real git) and the analysis does not refuse
/// the line for it; without the setting the repository is still refused. A git directory named
/// `.git` is git's exception and stays checked.
#[test]
fn safe_bare_repository_explicit_is_honoured() {
    let sandbox = Sandbox::new("git-safe-bare-explicit");
    let home = sandbox.root.clone();
    let marker = sandbox.root.join("ran");
    let evil = sandbox.root.join("evil.sh");
    toucher(&evil, &marker);
    let ws = sandbox.dir("ws");
    git(&ws, &home, &["init", "-q", "-b", "main"]);
    let vendor = ws.join("vendor.git");
    assert!(git(&ws, &home, &["init", "-q", "--bare", "vendor.git"])
        .status
        .success());
    let config = std::fs::read_to_string(vendor.join("config")).unwrap();
    let external = format!("[diff]\n\texternal = {}\n", evil.display());
    std::fs::write(vendor.join("config"), format!("{config}{external}")).unwrap();
    let global = sandbox.root.join("global");
    std::fs::write(&global, "[safe]\n\tbareRepository = explicit\n").unwrap();
    let out = git_command(&ws, &home)
        .env("GIT_CONFIG_GLOBAL", &global)
        .args(["-C", "vendor.git", "log", "--ext-diff", "-p"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("cannot use bare repository"),
        "{stderr}"
    );
    assert!(
        !marker.exists(),
        "the refused bare repository's diff.external ran"
    );
    let global_path = global.display().to_string();
    let explicit = |name: &str| match name {
        "GIT_CONFIG_GLOBAL" => Some(global_path.clone().into()),
        "GIT_CONFIG_NOSYSTEM" => Some("1".into()),
        _ => None,
    };
    let unset = |name: &str| match name {
        "GIT_CONFIG_NOSYSTEM" => Some("1".into()),
        "GIT_CONFIG_GLOBAL" => Some("/dev/null".into()),
        _ => None,
    };
    assert_eq!(super::untrusted_repository(&vendor, &ws, &explicit), None);
    assert!(super::untrusted_repository(&vendor, &ws, &unset).is_some());
    // As the workspace itself, the same.
    assert!(super::untrusted_root_repository(&vendor, Some("log"), false, &explicit).is_ok());
    assert!(super::untrusted_root_repository(&vendor, Some("log"), false, &unset).is_err());
    // A git directory named `.git` is used whatever the setting.
    let dot_git = sandbox.dir("ws/sub/.git");
    for entry in ["objects", "refs"] {
        std::fs::create_dir(dot_git.join(entry)).unwrap();
    }
    std::fs::write(dot_git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    assert!(super::untrusted_repository(&dot_git, &ws, &explicit).is_some());
}
