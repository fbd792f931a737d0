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
/// top-level property of `schema` whose type is a string (or an array of strings) and whose
/// name is `path`, `file_path`, `filePath`, `dir`, `cwd` or ends in `Path`.
pub fn path_params(schema: &Value, declared: Option<&[String]>) -> Vec<String> {
    if let Some(declared) = declared {
        return declared.to_vec();
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .filter(|(name, property)| is_path_name(name) && holds_strings(property))
        .map(|(name, _)| name.clone())
        .collect()
}

fn is_path_name(name: &str) -> bool {
    matches!(name, "path" | "file_path" | "filePath" | "dir" | "cwd") || name.ends_with("Path")
}

/// Whether a property schema's type is `string` (alone or with others) or an array of such.
fn holds_strings(property: &Value) -> bool {
    let has_type = |schema: &Value, wanted: &str| match schema.get("type") {
        Some(Value::String(kind)) => kind == wanted,
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == wanted),
        _ => false,
    };
    has_type(property, "string")
        || (has_type(property, "array")
            && property
                .get("items")
                .is_some_and(|items| has_type(items, "string")))
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
