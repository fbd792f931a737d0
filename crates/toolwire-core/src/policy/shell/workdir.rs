//! Where an exec-like tool call's command runs: the working directory its arguments name
//! (`cwd` and the other usual names for it), resolved the way the tool resolves it, so the
//! analyzer looks up the program the shell will run.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use crate::args::quote_arguments as quoted;

/// The argument names exec-like tools give their working directory.
pub const WORKDIR_KEYS: &[&str] = &[
    "cwd",
    "workdir",
    "workDir",
    "work_dir",
    "working_dir",
    "workingDir",
    "working_directory",
    "workingDirectory",
    "directory",
    "dir",
];

/// `path` with `.` and `..` resolved lexically (the way `path.resolve` and the kernel's
/// `chdir` of a joined path read it when no symlink is involved).
fn lexically_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The working directory of a call with arguments `args`: the directory its `cwd` (or
/// `workdir`, `working_directory`, ... [`WORKDIR_KEYS`]) argument names, a relative one
/// resolved against `base` (the workspace root, else the process's working directory), or
/// `base` itself when it names none. `Err` says why the directory cannot be known: a value
/// that is not a string, a relative value without a base, or two names for different
/// directories. A `null` value counts as absent.
pub fn call_workdir(args: &Value, base: Option<&Path>) -> Result<Option<PathBuf>, String> {
    let mut chosen: Option<(&str, PathBuf)> = None;
    for key in WORKDIR_KEYS {
        let value = match args.get(key) {
            None | Some(Value::Null) => continue,
            Some(value) => value,
        };
        let Some(text) = value.as_str() else {
            return Err(format!(
                "the working directory argument \"{key}\" is not a string: {}",
                quoted(value)
            ));
        };
        let dir = if text.starts_with('/') {
            PathBuf::from(text)
        } else {
            match base {
                Some(base) => base.join(text),
                None => {
                    return Err(format!(
                        "the working directory argument \"{key}\" is relative ({}) and there is no base directory to resolve it against",
                        quoted(value)
                    ))
                }
            }
        };
        let normal = lexically_normal(&dir);
        // `sub/..` through a symlink `sub` is another directory for `chdir` than for
        // `path.resolve`: which one the tool uses is unknown.
        if dir.components().any(|c| c == Component::ParentDir) {
            let physical = std::fs::canonicalize(&dir).ok();
            if physical.is_some() && physical != std::fs::canonicalize(&normal).ok() {
                return Err(format!(
                    "the working directory argument \"{key}\" ({}) leaves a symlink with `..`: the directory depends on how the tool resolves it",
                    quoted(value)
                ));
            }
        }
        let dir = normal;
        match &chosen {
            Some((first, earlier)) if *earlier != dir => {
                return Err(format!(
                    "the working directory arguments \"{first}\" and \"{key}\" name different directories ({} and {})",
                    earlier.display(),
                    dir.display()
                ))
            }
            Some(_) => {}
            None => chosen = Some((key, dir)),
        }
    }
    Ok(chosen
        .map(|(_, dir)| dir)
        .or_else(|| base.map(Path::to_path_buf)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_call_names_its_working_directory() {
        let base = Path::new("/work/space");
        let cases: &[(Value, Option<&str>)] = &[
            (json!({}), Some("/work/space")),
            (json!({ "cwd": null }), Some("/work/space")),
            (json!({ "cwd": "/abs" }), Some("/abs")),
            // A relative cwd is resolved, never dropped.
            (json!({ "cwd": "sub" }), Some("/work/space/sub")),
            (
                json!({ "cwd": "./sub/../other" }),
                Some("/work/space/other"),
            ),
            (json!({ "cwd": "" }), Some("/work/space")),
            (json!({ "cwd": ".." }), Some("/work")),
            (json!({ "workdir": "tools" }), Some("/work/space/tools")),
            (json!({ "working_directory": "/x" }), Some("/x")),
            (json!({ "workingDirectory": "x" }), Some("/work/space/x")),
            (json!({ "dir": "x", "cwd": "x/" }), Some("/work/space/x")),
        ];
        for (args, want) in cases {
            let got = call_workdir(args, Some(base)).unwrap();
            assert_eq!(got.as_deref(), want.map(Path::new), "{args}");
        }
    }

    #[test]
    fn dot_dot_through_a_symlink_is_ambiguous() {
        let sandbox = crate::policy::shell::tests::Sandbox::new("workdir");
        let real = sandbox.dir("elsewhere/inner");
        sandbox.dir("ws");
        sandbox.link("ws/link", &real);
        let base = sandbox.root.join("ws");
        let err = call_workdir(&json!({ "cwd": "link/.." }), Some(&base)).unwrap_err();
        assert!(err.contains("leaves a symlink with `..`"), "{err}");
        sandbox.dir("ws/plain");
        let dir = call_workdir(&json!({ "cwd": "plain/.." }), Some(&base)).unwrap();
        assert_eq!(dir, Some(base.clone()));
    }

    #[test]
    fn an_unknowable_working_directory_is_an_error_naming_it() {
        let base = Path::new("/work/space");
        let cases: &[(Value, Option<&Path>, &str)] = &[
            (
                json!({ "cwd": 3 }),
                Some(base),
                "\"cwd\" is not a string: 3",
            ),
            (
                json!({ "cwd": ["/a"] }),
                Some(base),
                "\"cwd\" is not a string: [\"/a\"]",
            ),
            (
                json!({ "cwd": "/a", "workdir": "/b" }),
                Some(base),
                "\"cwd\" and \"workdir\" name different directories (/a and /b)",
            ),
            (
                json!({ "cwd": "rel" }),
                None,
                "\"cwd\" is relative (\"rel\")",
            ),
        ];
        for (args, base, want) in cases {
            let err = call_workdir(args, *base).unwrap_err();
            assert!(err.contains(want), "{args}: {err}");
        }
        let long = json!({ "cwd": 7, "workdir": "x".repeat(100_000) });
        assert!(call_workdir(&long, Some(base)).unwrap_err().len() < 1500);
        let long = json!({ "cwd": ["y".repeat(100_000)] });
        assert!(call_workdir(&long, Some(base)).unwrap_err().len() < 1500);
        assert_eq!(call_workdir(&json!({}), None).unwrap(), None);
    }
}
