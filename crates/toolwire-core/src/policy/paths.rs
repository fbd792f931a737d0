//! The `workspaceOnly` check: path arguments of a tool must resolve inside the workspace root.
//!
//! A path is resolved the way the kernel would open it: component by component from the root
//! (or `/`), following symlinks that exist (at most [`MAX_SYMLINKS`] of them) and applying `..`
//! to the directory reached so far. Components that do not exist yet are kept as written, so a
//! file a write would create is fine as long as it lands inside. `..` is therefore applied
//! after the symlinks before it are followed: `link/../x` with `link -> /etc/ssh` is `/etc/x`,
//! as the tool would see it, not `<root>/x`.

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

/// The most symlinks followed while resolving one path (as Linux's `MAXSYMLINKS`).
pub const MAX_SYMLINKS: usize = 40;

/// The longest rendering of a refused value in a [`PathViolation`].
const MAX_SHOWN: usize = 200;

/// A path argument that escapes the workspace (or cannot be checked).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathViolation {
    /// The parameter, with an index for arrays: `file_path`, `paths[2]`.
    pub param: String,
    /// The value as given (JSON text for non-strings, cut to a readable length).
    pub value: String,
    /// The workspace root as given.
    pub root: String,
    /// Why it was refused, e.g. `resolves to /etc/passwd`.
    pub reason: String,
}

impl fmt::Display for PathViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "parameter \"{}\" ({:?}) is outside the workspace {}: {}",
            self.param, self.value, self.root, self.reason
        )
    }
}

impl std::error::Error for PathViolation {}

/// The parameters of a tool that hold paths: the `declared` list if given, else every
/// top-level property of `schema` named `path`, `file_path`, `filePath`, `dir`, `cwd` or
/// ending in `Path` whose schema does not rule out a string ([`may_hold_strings`]).
pub fn path_params(schema: &Value, declared: Option<&[String]>) -> Vec<String> {
    if let Some(declared) = declared {
        return declared.to_vec();
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .filter(|(name, property)| is_path_name(name) && may_hold_strings(property))
        .map(|(name, _)| name.clone())
        .collect()
}

fn is_path_name(name: &str) -> bool {
    matches!(name, "path" | "file_path" | "filePath" | "dir" | "cwd") || name.ends_with("Path")
}

/// Whether a value valid against the property schema `property` can be a string, or an array
/// holding strings: the schema does not rule them out. `true`, `{}` and a schema without `type`
/// can; `type` must name `string` (or `array` with items that can); `anyOf` and `oneOf` need a
/// branch that can, `allOf` every branch; `enum` and `const` need a string value. A schema that
/// is not an object or boolean rules everything out.
pub fn may_hold_strings(property: &Value) -> bool {
    let object = match property {
        Value::Bool(allowed) => return *allowed,
        Value::Object(object) => object,
        _ => return false,
    };
    let type_allows = match object.get("type") {
        None => true,
        Some(Value::String(kind)) => type_allows_strings(kind, object.get("items")),
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| {
            kind.as_str()
                .is_some_and(|kind| type_allows_strings(kind, object.get("items")))
        }),
        Some(_) => false,
    };
    let some_branch = |key: &str| match object.get(key) {
        None => true,
        Some(Value::Array(branches)) => branches.iter().any(may_hold_strings),
        Some(_) => false,
    };
    let every_branch = match object.get("allOf") {
        None => true,
        Some(Value::Array(branches)) => branches.iter().all(may_hold_strings),
        Some(_) => false,
    };
    let enum_allows = match object.get("enum") {
        None => true,
        Some(Value::Array(values)) => values.iter().any(Value::is_string),
        Some(_) => false,
    };
    let const_allows = match object.get("const") {
        None => true,
        Some(value) => value.is_string(),
    };
    type_allows
        && some_branch("anyOf")
        && some_branch("oneOf")
        && every_branch
        && enum_allows
        && const_allows
}

/// Whether the JSON type `kind` admits a string: `string`, or `array` whose `items` (absent:
/// anything) admit one.
fn type_allows_strings(kind: &str, items: Option<&Value>) -> bool {
    match kind {
        "string" => true,
        "array" => match items {
            None => true,
            Some(items) => may_hold_strings(items),
        },
        _ => false,
    }
}

/// Checks every parameter of `params` present in `args`: strings (or arrays of strings) that
/// resolve inside `root`. Absent and `null` parameters are skipped; any other type, NUL bytes,
/// a leading `~` and symlink loops are refused.
pub fn check_workspace_paths(
    root: &Path,
    args: &Value,
    params: &[String],
) -> std::result::Result<(), PathViolation> {
    let mut resolved_root: Option<PathBuf> = None;
    for param in params {
        let Some(value) = args.get(param.as_str()).filter(|value| !value.is_null()) else {
            continue;
        };
        let root_path = match &resolved_root {
            Some(path) => path.clone(),
            None => {
                let absolute = std::env::current_dir()
                    .map(|cwd| cwd.join(root))
                    .unwrap_or_else(|_| root.to_path_buf());
                let path = resolve(&absolute).map_err(|reason| PathViolation {
                    param: param.clone(),
                    value: shown(&value.to_string()),
                    root: root.display().to_string(),
                    reason: format!("the workspace root cannot be resolved: {reason}"),
                })?;
                resolved_root = Some(path.clone());
                path
            }
        };
        match value {
            Value::String(text) => check_one(root, &root_path, param.clone(), text)?,
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    let name = format!("{param}[{index}]");
                    match item {
                        Value::String(text) => check_one(root, &root_path, name, text)?,
                        other => return Err(not_a_path(root, name, other)),
                    }
                }
            }
            other => return Err(not_a_path(root, param.clone(), other)),
        }
    }
    Ok(())
}

fn not_a_path(root: &Path, param: String, value: &Value) -> PathViolation {
    PathViolation {
        param,
        value: shown(&value.to_string()),
        root: root.display().to_string(),
        reason: format!(
            "a path must be a string or an array of strings, got {}",
            crate::registry::json_type(value)
        ),
    }
}

fn shown(text: &str) -> String {
    if text.chars().count() <= MAX_SHOWN {
        text.to_string()
    } else {
        let cut: String = text.chars().take(MAX_SHOWN).collect();
        format!("{cut}...")
    }
}

/// Checks one path string against the resolved root.
fn check_one(
    root: &Path,
    resolved_root: &Path,
    param: String,
    text: &str,
) -> std::result::Result<(), PathViolation> {
    let refuse = |reason: String| PathViolation {
        param: param.clone(),
        value: shown(text),
        root: root.display().to_string(),
        reason,
    };
    if text.contains('\0') {
        return Err(refuse("the path contains a NUL byte".to_string()));
    }
    if text.starts_with('~') {
        return Err(refuse(
            "a leading ~ is not expanded; give the path relative to the workspace".to_string(),
        ));
    }
    let resolved = resolve(&resolved_root.join(text)).map_err(&refuse)?;
    if resolved.starts_with(resolved_root) {
        Ok(())
    } else {
        Err(refuse(format!("resolves to {}", resolved.display())))
    }
}

/// Resolves an absolute path as the kernel would, following existing symlinks; components that
/// do not exist are kept as written (and `..` after them removes them).
fn resolve(path: &Path) -> std::result::Result<PathBuf, String> {
    let mut resolved = PathBuf::new();
    // Components still to walk, last first (so pushing a symlink's target is cheap).
    let mut pending: Vec<OsString> = Vec::new();
    push_components(&mut pending, path, &mut resolved);
    let mut followed = 0usize;
    while let Some(part) = pending.pop() {
        if part == ".." {
            resolved.pop();
            continue;
        }
        let next = resolved.join(&part);
        match fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                followed += 1;
                if followed > MAX_SYMLINKS {
                    return Err(format!(
                        "more than {MAX_SYMLINKS} symlinks followed at {} (a loop?)",
                        next.display()
                    ));
                }
                let target = fs::read_link(&next)
                    .map_err(|error| format!("cannot read the link {}: {error}", next.display()))?;
                push_components(&mut pending, &target, &mut resolved);
            }
            _ => resolved = next,
        }
    }
    Ok(resolved)
}

/// Queues the components of `path` in front of `pending`; a root or prefix resets `resolved`.
fn push_components(pending: &mut Vec<OsString>, path: &Path, resolved: &mut PathBuf) {
    let mut parts: Vec<OsString> = Vec::new();
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => {
                *resolved = PathBuf::from(prefix.as_os_str());
                parts.clear();
            }
            Component::RootDir => {
                let prefix: PathBuf = resolved
                    .components()
                    .take_while(|part| matches!(part, Component::Prefix(_)))
                    .collect();
                *resolved = prefix;
                resolved.push(std::path::MAIN_SEPARATOR_STR);
                parts.clear();
            }
            Component::CurDir => {}
            Component::ParentDir => parts.push(OsString::from("..")),
            Component::Normal(name) => parts.push(name.to_os_string()),
        }
    }
    pending.extend(parts.into_iter().rev());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A fresh directory under the system temp dir, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new() -> TempDir {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let path = std::env::temp_dir().join(format!(
                "toolwire-policy-paths-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = fs::remove_dir_all(&path);
            fs::create_dir_all(&path).unwrap();
            TempDir(path)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    /// `<tmp>/ws` (with `sub/file.txt`), `<tmp>/ws2` and `<tmp>/outside/secret.txt`.
    fn layout() -> (TempDir, PathBuf) {
        let tmp = TempDir::new();
        let ws = tmp.0.join("ws");
        fs::create_dir_all(ws.join("sub")).unwrap();
        fs::write(ws.join("sub/file.txt"), "x").unwrap();
        fs::create_dir_all(tmp.0.join("ws2")).unwrap();
        fs::create_dir_all(tmp.0.join("outside/deep")).unwrap();
        fs::write(tmp.0.join("outside/secret.txt"), "s").unwrap();
        (tmp, ws)
    }

    fn check(root: &Path, path: &str) -> std::result::Result<(), PathViolation> {
        check_workspace_paths(root, &json!({ "path": path }), &["path".to_string()])
    }

    #[test]
    fn plain_paths() {
        let (tmp, ws) = layout();
        let outside = tmp.0.join("outside/secret.txt");
        let inside = ws.join("sub/file.txt");
        let sibling = tmp.0.join("ws2/file.txt");
        for (path, allowed) in [
            ("sub/file.txt", true),
            ("./sub/../sub/file.txt", true),
            ("", true),
            (".", true),
            ("a/b/c/new.txt", true),
            ("missing/../new.txt", true),
            (inside.to_str().unwrap(), true),
            ("..", false),
            ("../outside/secret.txt", false),
            ("sub/../../outside/secret.txt", false),
            ("missing/../../x", false),
            (outside.to_str().unwrap(), false),
            (sibling.to_str().unwrap(), false),
            ("../ws2/file.txt", false),
            ("/", false),
        ] {
            assert_eq!(check(&ws, path).is_ok(), allowed, "{path}");
        }
    }

    #[test]
    fn refusals_name_the_resolved_path() {
        let (tmp, ws) = layout();
        let error = check(&ws, "../outside/secret.txt").unwrap_err();
        let resolved = fs::canonicalize(tmp.0.join("outside/secret.txt")).unwrap();
        assert_eq!(error.param, "path");
        assert_eq!(error.value, "../outside/secret.txt");
        assert_eq!(error.reason, format!("resolves to {}", resolved.display()));
        assert_eq!(
            error.to_string(),
            format!(
                "parameter \"path\" (\"../outside/secret.txt\") is outside the workspace {}: \
                 resolves to {}",
                ws.display(),
                resolved.display()
            )
        );
    }

    #[test]
    fn bad_values() {
        let (_tmp, ws) = layout();
        let params = ["file_path".to_string(), "paths".to_string()];
        for (args, param, reason) in [
            (
                json!({ "file_path": "a\u{0}b" }),
                "file_path",
                "the path contains a NUL byte",
            ),
            (
                json!({ "file_path": "~/x" }),
                "file_path",
                "a leading ~ is not expanded; give the path relative to the workspace",
            ),
            (
                json!({ "file_path": 3 }),
                "file_path",
                "a path must be a string or an array of strings, got a number",
            ),
            (
                json!({ "file_path": { "p": "x" } }),
                "file_path",
                "a path must be a string or an array of strings, got an object",
            ),
            (
                json!({ "paths": ["ok.txt", 1] }),
                "paths[1]",
                "a path must be a string or an array of strings, got a number",
            ),
        ] {
            let error = check_workspace_paths(&ws, &args, &params).unwrap_err();
            assert_eq!(
                (error.param.as_str(), error.reason.as_str()),
                (param, reason)
            );
        }
        let error = check_workspace_paths(&ws, &json!({ "paths": ["ok.txt", "../x"] }), &params)
            .unwrap_err();
        assert_eq!(error.param, "paths[1]");
        for args in [
            json!({}),
            json!({ "file_path": null }),
            json!({ "other": "../../x" }),
            json!({ "paths": ["a", "sub/b"], "file_path": "c" }),
            json!("not an object"),
        ] {
            assert_eq!(check_workspace_paths(&ws, &args, &params), Ok(()), "{args}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinks() {
        use std::os::unix::fs::symlink;
        let (tmp, ws) = layout();
        let outside = tmp.0.join("outside");
        symlink(outside.join("secret.txt"), ws.join("file_link")).unwrap();
        symlink(&outside, ws.join("dir_link")).unwrap();
        symlink(outside.join("deep"), ws.join("deep_link")).unwrap();
        symlink(outside.join("missing.txt"), ws.join("dangling")).unwrap();
        symlink(ws.join("sub"), ws.join("inside_abs")).unwrap();
        symlink("sub/file.txt", ws.join("inside_rel")).unwrap();
        symlink("loop_b", ws.join("loop_a")).unwrap();
        symlink("loop_a", ws.join("loop_b")).unwrap();
        for (path, allowed) in [
            ("file_link", false),
            ("dir_link", false),
            ("dir_link/secret.txt", false),
            ("dir_link/new.txt", false),
            ("deep_link/../secret.txt", false),
            ("deep_link/..", false),
            ("dangling", false),
            ("inside_abs/file.txt", true),
            ("inside_abs/new/deeper.txt", true),
            ("inside_rel", true),
            ("inside_abs/../sub/file.txt", true),
            ("loop_a", false),
        ] {
            assert_eq!(check(&ws, path).is_ok(), allowed, "{path}");
        }
        assert!(check(&ws, "loop_a")
            .unwrap_err()
            .reason
            .starts_with("more than 40 symlinks followed"));
        // A root reached through a symlink is resolved too.
        let root_link = tmp.0.join("root_link");
        symlink(&ws, &root_link).unwrap();
        assert_eq!(check(&root_link, "sub/file.txt"), Ok(()));
        assert_eq!(check(&root_link, ws.join("sub").to_str().unwrap()), Ok(()));
        assert!(check(&root_link, "../outside/secret.txt").is_err());
    }

    #[test]
    fn default_params_from_the_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "file_path": { "type": "string" },
                "filePath": { "type": ["string", "null"] },
                "dir": {},
                "cwd": true,
                "outputPath": { "anyOf": [{ "type": "null" }, { "type": "string" }] },
                "sourcePath": { "type": "array", "items": { "type": "string" } },
                "inputPath": { "oneOf": [{ "type": "integer" }, { "type": "string" }] },
                "basePath": { "description": "no type at all" },
                "listPath": { "type": "array" },
                "modePath": { "enum": ["a", 1] },
                "refPath": { "$ref": "#/$defs/p" },
                "countPath": { "type": "integer" },
                "numberPath": { "anyOf": [{ "type": "integer" }, { "type": "null" }] },
                "flagPath": { "oneOf": [{ "type": "boolean" }] },
                "boolPath": { "type": ["boolean", "null"] },
                "numbersPath": { "type": "array", "items": { "type": "number" } },
                "onePath": { "const": 1 },
                "neverPath": false,
                "bothPath": { "allOf": [{ "type": "string" }, { "type": "integer" }] },
                "name": { "type": "string" },
                "paths": { "type": "array", "items": { "type": "string" } },
                "Path_": { "type": "string" },
            }
        });
        let mut params = path_params(&schema, None);
        params.sort();
        let mut expected = vec![
            "path",
            "file_path",
            "filePath",
            "dir",
            "cwd",
            "outputPath",
            "sourcePath",
            "inputPath",
            "basePath",
            "listPath",
            "modePath",
            "refPath",
        ];
        expected.sort();
        assert_eq!(params, expected);
        let declared = vec!["target".to_string()];
        assert_eq!(path_params(&schema, Some(&declared)), vec!["target"]);
        assert!(path_params(&json!({ "type": "string" }), None).is_empty());
        assert!(path_params(&json!(true), None).is_empty());
    }

    #[test]
    fn a_path_param_without_a_declared_type_is_checked() {
        let (_dir, root) = layout();
        let schema = json!({ "properties": { "path": {}, "dirPath": { "anyOf": [
            { "type": "string" }, { "type": "null" } ] } } });
        let params = path_params(&schema, None);
        assert_eq!(params, vec!["path", "dirPath"]);
        let refused = check_workspace_paths(&root, &json!({ "path": "../../etc/passwd" }), &params)
            .unwrap_err();
        assert_eq!(refused.param, "path");
        let refused =
            check_workspace_paths(&root, &json!({ "dirPath": "/etc" }), &params).unwrap_err();
        assert_eq!(refused.param, "dirPath");
        assert!(
            check_workspace_paths(&root, &json!({ "path": "a", "dirPath": null }), &params).is_ok()
        );
    }
}
