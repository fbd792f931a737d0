//! What a version manager's shim hands over to (attack review 5's 2). A shim of pyenv, rbenv,
//! nodenv, asdf, mise, proto (a program in a `shims` directory) or volta (a link to
//! `volta-shim`) runs the version the workspace selects; when that is `system` (or a `path:`
//! version), it runs the same name found on PATH *without* the shims directory. With a `.`,
//! a relative entry or a workspace directory after the shims on PATH, `python hello.py`,
//! approved as pyenv's shim, ran the workspace's `./python`. So the name is resolved again
//! over PATH minus the shims directory, as the manager will, and that program gets the checks
//! of a bare resolution: found through a relative entry, or lying in a directory the agent
//! writes ([`Writable`](super::Writable)), it is refused; in its user's own directory, the
//! approval says so. A `path:` version (asdf's and mise's `nodejs path:./evil`, which runs
//! `./evil/bin/node`) in a version file of the workspace refuses the shim too.

use std::path::{Path, PathBuf};

use super::resolve::{self, Executable};
use super::{names, wrappers, writable_dir, Writable};

/// The name of the directories version managers keep their shims in.
const SHIMS_DIR: &str = "shims";

/// The real file's name of volta's shims (`~/.volta/bin/node` -> `volta-shim`).
const VOLTA_SHIM: &str = "volta-shim";

/// The shims directories `found` lies in (canonical): the directory it was found in or really
/// lies in, when named `shims`, or the one it was found in when it is a link to volta's shim.
fn shims_dirs(found: &Executable) -> Vec<PathBuf> {
    let found_dir = found.found.parent();
    let real_dir = found.real.parent();
    let volta = found.real_name() == VOLTA_SHIM;
    [found_dir, real_dir]
        .into_iter()
        .flatten()
        .filter(|dir| volta || dir.file_name().is_some_and(|name| name == SHIMS_DIR))
        .filter_map(|dir| std::fs::canonicalize(dir).ok())
        .fold(Vec::new(), |mut dirs, dir| {
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
            dirs
        })
}

/// The bounded display of a path.
fn shown(path: &Path) -> String {
    super::git::keys::bounded(&path.display().to_string())
}

/// The version files the managers read, looked for in the working directory and each of its
/// parents inside the workspace: asdf's and mise's (`.tool-versions`, `mise.toml`, ...),
/// proto's, and the `*env` family's (which take a version name only since pyenv 2.3.2's and
/// rbenv 1.2's fixes; a path among their words is refused all the same).
const VERSION_FILES: &[&str] = &[
    ".tool-versions",
    "mise.toml",
    ".mise.toml",
    "mise.local.toml",
    ".mise.local.toml",
    ".mise/config.toml",
    "mise/config.toml",
    ".config/mise.toml",
    ".config/mise/config.toml",
    ".rtx.toml",
    ".prototools",
    ".python-version",
    ".ruby-version",
    ".node-version",
    ".go-version",
    ".java-version",
];

/// The most bytes of a version file read.
const MAX_VERSION_FILE: u64 = 64 * 1024;

/// Why a version file of the workspace (a parent of `cwd` inside it) makes a shim run a program
/// the workspace chooses: a `path:` version, or a version word that is a path (`/x`, `./x`,
/// `../x`, `~/x`). `None` when none does.
fn workspace_version_path(cwd: Option<&Path>, workspace: &[&Path]) -> Option<String> {
    use std::io::Read;
    let cwd = std::fs::canonicalize(cwd?).ok()?;
    let roots: Vec<PathBuf> = workspace
        .iter()
        .filter_map(|w| std::fs::canonicalize(w).ok())
        .collect();
    for dir in cwd.ancestors() {
        if !roots.iter().any(|root| dir.starts_with(root)) {
            break;
        }
        for name in VERSION_FILES {
            let path = dir.join(name);
            let Ok(file) = std::fs::File::open(&path) else {
                continue;
            };
            let mut text = String::new();
            if file
                .take(MAX_VERSION_FILE)
                .read_to_string(&mut text)
                .is_err()
            {
                continue;
            }
            let words = text
                .lines()
                .map(|line| line.split('#').next().unwrap_or_default())
                .flat_map(|line| line.split(|c: char| c.is_whitespace() || c == '"' || c == '\''));
            for word in words {
                let lower = word.to_ascii_lowercase();
                if lower.contains("path:") || word.starts_with(['/', '.', '~']) && word != "." {
                    return Some(format!(
                        "the version file `{}` selects `{}`, a directory whose programs the shim runs",
                        shown(&path),
                        super::git::keys::bounded(word)
                    ));
                }
            }
        }
    }
    None
}

/// When `found` (what `typed_name` resolved to) is a version manager's shim: the program the
/// shim hands over to for the `system` version, resolved over `path_var` without the shims
/// directory (relative entries against `cwd`), checked as a bare resolution is. `Err` refuses
/// it; `Ok` holds a warning for the approval (empty when there is nothing to say, or no shim).
/// `workspace` holds the directories the agent's own tools write.
pub fn check_handover(
    typed_name: &str,
    found: &Executable,
    cwd: Option<&Path>,
    path_var: &str,
    workspace: &[&Path],
) -> Result<String, String> {
    let shims = shims_dirs(found);
    let Some(shim_dir) = shims.first() else {
        return Ok(String::new());
    };
    if let Some(why) = workspace_version_path(cwd, workspace) {
        return Err(format!(
            "`{typed_name}` is a version manager's shim (`{}`): {why}",
            shown(&found.found)
        ));
    }
    let lead = format!(
        "`{typed_name}` is a version manager's shim (`{}`), which runs, when the selected version is `system` (or a `path:` version, which the workspace's version files may name), the `{typed_name}` found on PATH without `{}`",
        shown(&found.found),
        shown(shim_dir)
    );
    for entry in path_var.split(':') {
        let dir = resolve::path_entry_dir(entry, cwd).map_err(|why| format!("{lead}: {why}"))?;
        let in_shims = std::fs::canonicalize(&dir).is_ok_and(|dir| shims.contains(&dir));
        let candidate = dir.join(typed_name);
        if in_shims || !resolve::is_executable_file(&candidate) {
            continue;
        }
        if !entry.starts_with('/') {
            let entry = if entry.is_empty() { "(empty)" } else { entry };
            return Err(format!(
                "{lead}: `{}`, found through the relative PATH entry `{}`, which the working directory decides; take relative entries out of PATH",
                shown(&candidate),
                super::git::keys::bounded(entry)
            ));
        }
        let real = std::fs::canonicalize(&candidate).unwrap_or_else(|_| candidate.clone());
        let real_name = real.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(wrapper) = names::lookup_names(real_name)
            .into_iter()
            .find(|name| wrappers::is_wrapper(name))
        {
            return Err(format!(
                "{lead}: `{}`, a wrapper (`{wrapper}`) that runs other commands",
                shown(&real)
            ));
        }
        let dirs = [dir.as_path(), real.parent().unwrap_or(Path::new("/"))];
        let writable = dirs.iter().find_map(|dir| {
            let dir = std::fs::canonicalize(dir).ok()?;
            writable_dir(&dir, workspace).map(|how| (dir, how))
        });
        return match writable {
            Some((dir, how @ (Writable::Workspace | Writable::Shared))) => Err(format!(
                "{lead}: `{}`, and `{}` {}, so what runs can be replaced; take such directories out of PATH",
                shown(&candidate),
                shown(&dir),
                how.why()
            )),
            Some((dir, how)) => Ok(format!(
                " (warning: {lead}: `{}`, and `{}` {})",
                shown(&candidate),
                shown(&dir),
                how.why()
            )),
            None => Ok(String::new()),
        };
    }
    Ok(String::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::Sandbox;

    #[test]
    fn a_shim_hands_over_to_the_path_without_its_directory() {
        let sandbox = Sandbox::new("shims");
        let ws = sandbox.dir("ws");
        let shims = sandbox.dir("home/.pyenv/shims");
        let system = sandbox.dir("usr/bin");
        let bin = sandbox.dir("ws/bin");
        sandbox.exe("home/.pyenv/shims/python");
        sandbox.exe("ws/python");
        sandbox.exe("ws/bin/python");
        sandbox.exe("usr/bin/python");
        let volta_bin = sandbox.dir("home/.volta/bin");
        let volta = sandbox.exe("home/.volta/volta-shim");
        sandbox.link("home/.volta/bin/node", &volta);
        sandbox.exe("ws/node");
        let found = |dir: &Path, name: &str| Executable {
            found: dir.join(name),
            real: std::fs::canonicalize(dir.join(name)).unwrap(),
        };
        let (s, w, b, u, v) = (
            shims.display().to_string(),
            ws.display().to_string(),
            bin.display().to_string(),
            system.display().to_string(),
            volta_bin.display().to_string(),
        );
        let workspace = [ws.as_path()];
        // (PATH, the shim's directory, its name, refused, what the reason names)
        let cases: Vec<(String, &Path, &str, Option<&str>)> = vec![
            (
                format!("{s}:.:{u}"),
                &shims,
                "python",
                Some("relative PATH entry `.`"),
            ),
            (format!("{s}::{u}"), &shims, "python", Some("(empty)")),
            (format!("{s}:bin:{u}"), &shims, "python", Some("`bin`")),
            (
                format!("{s}:{b}:{u}"),
                &shims,
                "python",
                Some("lies in the workspace"),
            ),
            (format!("{s}:{w}"), &shims, "python", Some("`system`")),
            (format!("{v}:.:{u}"), &volta_bin, "node", Some("relative")),
            // The system's own program, or none: nothing to say.
            (format!("{s}:{u}:."), &shims, "python", None),
            (s.clone(), &shims, "python", None),
            (format!("{u}:{s}:."), &system, "python", None),
        ];
        for (path, dir, name, refused) in cases {
            let got = check_handover(name, &found(dir, name), Some(&ws), &path, &workspace);
            match refused {
                Some(names) => {
                    let why = got.expect_err(&path);
                    assert!(why.contains(names), "{path}: {why} (want {names})");
                    assert!(why.contains("shim"), "{path}: {why}");
                }
                // Run as a user, the sandbox's directories are the user's own: a warning.
                None => assert!(
                    got.as_ref()
                        .is_ok_and(|w| w.is_empty() || w.contains("belongs to the user")),
                    "{path}: {got:?}"
                ),
            }
        }
        // A `path:` version (asdf, mise) or a path in a version file of the workspace.
        let clean = format!("{s}:{u}");
        let below_ws = || {
            check_handover(
                "python",
                &found(&shims, "python"),
                Some(&bin),
                &clean,
                &workspace,
            )
        };
        for (file, text) in [
            (".tool-versions", "nodejs path:./evil\n"),
            ("mise.toml", "[tools]\nnode = \"path:/tmp/evil\"\n"),
            (".python-version", "../../../tmp/evil\n"),
        ] {
            std::fs::write(ws.join(file), text).unwrap();
            let got = below_ws();
            assert!(
                got.as_ref().is_err_and(|why| why.contains(file)),
                "{file}: {got:?}"
            );
            std::fs::remove_file(ws.join(file)).unwrap();
        }
        std::fs::write(
            ws.join(".tool-versions"),
            "nodejs 20.11.0 # lts/iron\npython system\n",
        )
        .unwrap();
        let got = below_ws();
        assert!(got.is_ok(), "{got:?}");
        // Without a working directory, a relative entry after the shims cannot be read.
        let got = check_handover(
            "python",
            &found(&shims, "python"),
            None,
            &format!("{s}:."),
            &[],
        );
        assert!(got.unwrap_err().contains("working directory is unknown"));
        assert_eq!(shims_dirs(&found(&shims, "python")).len(), 1);
    }
}
