//! Where an exec-like tool call's command runs: the working directory its arguments name
//! (`cwd` and the other usual names for it), resolved the way the tool resolves it, so the
//! analyzer looks up the program the shell will run.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use crate::quote::quote_arguments as quoted;

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
    "folder",
    "path",
    "location",
    "root",
    "cwd_path",
    "cwdPath",
    "workspace",
    "project_dir",
    "projectDir",
    "project_root",
    "projectRoot",
    "base_dir",
    "baseDir",
    "run_dir",
    "runDir",
    "exec_dir",
    "execDir",
];

/// Why another string argument of the call may be where its command runs: one that is not
/// the command (`command_param`), a working directory name ([`WORKDIR_KEYS`], read by
/// [`call_workdir`]) or an environment ([`ENV_KEYS`](super::callenv::ENV_KEYS)), and names an
/// existing directory (a relative one against `base`) other than `workdir`, the one the
/// command is analyzed in. A tool may take its working directory under a name no list has
/// (`{command, target: "sub"}`): the analysis would then vouch for the wrong directory, so the
/// call is ambiguous. Only the top-level strings are read.
pub fn other_directory(
    args: &Value,
    command_param: &str,
    workdir: Option<&Path>,
    base: Option<&Path>,
) -> Option<String> {
    let analyzed = workdir.and_then(|dir| std::fs::canonicalize(dir).ok());
    let Value::Object(fields) = args else {
        return None;
    };
    fields.iter().find_map(|(key, value)| {
        let text = value.as_str()?;
        let skipped = key == command_param
            || WORKDIR_KEYS.contains(&key.as_str())
            || super::callenv::ENV_KEYS.contains(&key.as_str());
        if skipped || text.is_empty() {
            return None;
        }
        let path = match base {
            Some(base) => base.join(text),
            None if text.starts_with('/') => PathBuf::from(text),
            None => return None,
        };
        let dir = std::fs::canonicalize(path).ok().filter(|p| p.is_dir())?;
        (analyzed.as_ref() != Some(&dir)).then(|| {
            format!(
                "the argument \"{key}\" ({}) names the directory {}, which may be where the command runs; it is analyzed in {}",
                quoted(value),
                dir.display(),
                analyzed.as_ref().map_or("an unknown directory".to_string(), |d| d.display().to_string())
            )
        })
    })
}

/// `key` in lower case without `_` and `-`: `working-dir`, `Working_Dir` and `workingdir` are
/// one name.
fn folded(key: &str) -> String {
    key.chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The most bytes of a key path quoted in a refusal.
const MAX_KEY_PATH: usize = 120;

/// Why the call's arguments hold a working directory or environment the analysis does not
/// read: a key named like one ([`WORKDIR_KEYS`] or [`ENV_KEYS`](super::callenv::ENV_KEYS),
/// compared without case, `_` and `-`) anywhere in `args` other than the top-level keys
/// [`call_workdir`] and [`unsafe_call_env`](super::callenv::unsafe_call_env) read, with a
/// value other than `null`. A tool taking `{ command, options: { cwd, env } }` (as
/// `child_process` takes them) runs its command elsewhere or with another environment than
/// the analysis saw, so such a call is never vouched for. Linear in the size of `args`.
pub fn unread_settings(args: &Value) -> Option<String> {
    let workdir: Vec<String> = WORKDIR_KEYS.iter().map(|k| folded(k)).collect();
    let env: Vec<String> = super::callenv::ENV_KEYS.iter().map(|k| folded(k)).collect();
    let mut stack: Vec<(String, &Value)> = vec![(String::new(), args)];
    while let Some((path, value)) = stack.pop() {
        let children: Box<dyn Iterator<Item = (String, &Value)>> = match value {
            Value::Object(fields) => Box::new(fields.iter().map(|(k, v)| (k.clone(), v))),
            Value::Array(items) => {
                Box::new(items.iter().enumerate().map(|(i, v)| (i.to_string(), v)))
            }
            _ => continue,
        };
        let top = path.is_empty();
        let in_object = value.is_object();
        for (key, child) in children {
            let key_path = if top {
                key.clone()
            } else if path.len() >= MAX_KEY_PATH {
                path.clone()
            } else {
                format!("{path}.{key}")
            };
            if in_object && !child.is_null() {
                let name = folded(&key);
                let read = top
                    && (WORKDIR_KEYS.contains(&key.as_str())
                        || super::callenv::ENV_KEYS.contains(&key.as_str()));
                let what = if workdir.contains(&name) {
                    Some("a working directory")
                } else if env.contains(&name) {
                    Some("an environment")
                } else {
                    None
                };
                if let (Some(what), false) = (what, read) {
                    let mut shown: String = key_path.chars().take(MAX_KEY_PATH).collect();
                    if shown.len() < key_path.len() {
                        shown.push_str("...");
                    }
                    return Some(format!(
                        "the argument {} names {what} the analysis does not read (only top-level \"cwd\", \"env\" and their usual names are): the command may run elsewhere or with another environment",
                        quoted(&Value::String(shown))
                    ));
                }
            }
            if child.is_object() || child.is_array() {
                stack.push((key_path, child));
            }
        }
    }
    None
}

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

    /// Issue 19 attack 7: an exec tool taking `{ command, options: { cwd, env } }` (as
    /// `child_process.execSync` does) ran git in `options.cwd` while the root was analyzed.
    #[test]
    fn a_working_directory_or_environment_not_read_is_refused() {
        let refused: &[(Value, &str)] = &[
            (
                json!({ "command": "git status", "options": { "cwd": "sub" } }),
                "\"options.cwd\"",
            ),
            (
                json!({ "options": { "env": { "GIT_CONFIG_COUNT": "1" } } }),
                "\"options.env\"",
            ),
            (
                json!({ "opts": { "workingDirectory": "/x" } }),
                "\"opts.workingDirectory\"",
            ),
            (json!({ "spawnOptions": { "env": {} } }), "an environment"),
            (
                json!({ "execOptions": { "dir": "." } }),
                "a working directory",
            ),
            (
                json!({ "config": { "settings": { "cwd": "a" } } }),
                "\"config.settings.cwd\"",
            ),
            (json!({ "calls": [{ "cwd": "a" }] }), "\"calls.0.cwd\""),
            // Other spellings of a read name, at the top level too.
            (json!({ "CWD": "sub" }), "\"CWD\""),
            (json!({ "working-dir": "sub" }), "\"working-dir\""),
            (json!({ "Env": { "PATH": "/tmp" } }), "\"Env\""),
            (json!({ "env-vars": { "A": "b" } }), "an environment"),
            (
                json!({ "options": { "ENVIRONMENT": { "A": "b" } } }),
                "an environment",
            ),
        ];
        for (args, want) in refused {
            let why = unread_settings(args).unwrap_or_default();
            assert!(why.contains(want), "{args}: {why}");
        }
        let read: &[Value] = &[
            json!({ "command": "git status" }),
            json!({ "command": "ls", "cwd": "sub", "env": { "LANG": "C" } }),
            json!({ "command": "ls", "workingDirectory": "sub", "envVars": {} }),
            json!({ "command": "ls", "options": { "timeout": 5, "shell": true } }),
            json!({ "command": "ls", "options": { "cwd": null } }),
            json!({ "command": "ls", "tags": ["cwd", "env"] }),
        ];
        for args in read {
            assert_eq!(unread_settings(args), None, "{args}");
        }
        // A deep key path is quoted bounded.
        let mut deep = json!({ "cwd": "x" });
        for _ in 0..60 {
            deep = json!({ "abcdefghijklmnop": deep });
        }
        assert!(unread_settings(&deep).unwrap().len() < 600);
    }

    /// Issue 19 review: `{command, folder: "sub"}` was analyzed at the root.
    #[test]
    fn another_argument_naming_a_directory_is_ambiguous() {
        let sandbox = crate::policy::shell::tests::Sandbox::new("workdir-other");
        let base = sandbox.dir("ws");
        let sub = sandbox.dir("ws/sub");
        sandbox.file("ws/notes.txt", 0o644);
        for key in [
            "folder",
            "path",
            "location",
            "root",
            "cwd_path",
            "projectDir",
        ] {
            let args = json!({ "command": "ls", key: "sub" });
            assert_eq!(
                call_workdir(&args, Some(&base)).unwrap(),
                Some(sub.clone()),
                "{key}"
            );
        }
        let cases: &[(Value, Option<&str>)] = &[
            (
                json!({ "command": "ls", "target": "sub" }),
                Some("\"target\" (\"sub\")"),
            ),
            (
                json!({ "command": "ls", "in": "/" }),
                Some("names the directory /"),
            ),
            (
                json!({ "command": "ls", "cwd": "sub", "other": "." }),
                Some("\"other\""),
            ),
            // Controls: the analyzed directory itself, files, missing paths, non-strings.
            (
                json!({ "command": "ls", "cwd": "sub", "other": "sub/" }),
                None,
            ),
            (json!({ "command": "ls", "note": "notes.txt" }), None),
            (json!({ "command": "ls", "note": "missing" }), None),
            (json!({ "command": "sub", "timeout": 5 }), None),
            (json!({ "command": "ls", "env": "sub" }), None),
        ];
        for (args, want) in cases {
            let dir = call_workdir(args, Some(&base)).unwrap();
            let got = other_directory(args, "command", dir.as_deref(), Some(&base));
            match want {
                Some(want) => assert!(
                    got.as_deref().is_some_and(|g| g.contains(want)),
                    "{args}: {got:?}"
                ),
                None => assert_eq!(got, None, "{args}"),
            }
        }
        // A long value naming a directory is never echoed whole.
        let long = json!({ "command": "ls", "x": format!("sub/{}", "./".repeat(50_000)) });
        let got = other_directory(&long, "command", Some(&base), Some(&base)).unwrap();
        assert!(got.len() < 1500, "{}", got.len());
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
