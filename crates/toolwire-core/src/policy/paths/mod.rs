//! The `workspaceOnly` check: every path argument of a tool must resolve inside the workspace
//! root.
//!
//! Which values are paths ([`collect`]): the parameters the tool declares in `pathParams`
//! ([`param`] describes the nested form, `files.*.path`), the path-named properties its schema
//! declares anywhere, found as validation applies the schema ([`schema`]: `$ref`, `allOf`,
//! `anyOf`, `oneOf`, nested objects, array items), and, whatever the schema says, every key of
//! the arguments the naming rule calls a path ([`names`]: `path`, `paths`, `file`, `dir`,
//! `cwd`, `*_path`, `*Path`, `*_file`, `*Dir`, ...) at any depth, and every `file:` URL.
//!
//! How a path is resolved ([`resolve`]): as the kernel would open it, bounded by `PATH_MAX`
//! and linear in the path (lexical past the first missing component). A path is inside only
//! if both of the ways a tool may open it stay inside: as given to the kernel (`link/..` is the
//! parent of the link's target) and with its `..` collapsed as text first, as `path.resolve`
//! does (`link/..` is the workspace), then given to the kernel. So `a/../../x` with
//! `a -> d1/d2` is refused although the kernel would reach `<root>/x`: a tool that calls
//! `path.resolve(root, p)` writes the parent of the root. Two passes, each linear. A path (or decoded
//! `file:` URL) of `PATH_MAX` bytes or more is refused at once, and the lookups of one call
//! share a budget, so no call holds the thread for long whatever its arguments.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

pub mod collect;
pub mod names;
pub mod param;
pub mod resolve;
pub mod schema;

pub use names::is_path_name;
pub use param::{PathParam, Segment};
pub use resolve::{MAX_LOOKUP_BYTES, MAX_SYMLINKS, PATH_MAX};
pub use schema::{declares, may_hold_strings, schema_path_params};

use collect::{collect, Found};
use resolve::{check_length, file_url_path, lexical, resolve, LookupBudget};

/// The path parameters of a `workspaceOnly` tool, besides the path-named keys every call is
/// searched for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathParams {
    /// Declared in `pathParams`: each value must be a string or an array of strings.
    pub declared: Vec<PathParam>,
    /// Found through the schema and not declared: their strings are checked, other values are
    /// validation's business (a union may give the name an object in another variant). A
    /// path-named map (`paths: { additionalProperties: { type: string } }`) is found as
    /// `paths.*`.
    pub from_schema: Vec<PathParam>,
}

impl PathParams {
    /// Every parameter, declared first, as `list()` shows them (`files.*.path`).
    pub fn shown(&self) -> Vec<String> {
        self.declared
            .iter()
            .chain(&self.from_schema)
            .map(ToString::to_string)
            .collect()
    }
}

/// The longest rendering of a refused value (or parameter name) in a [`PathViolation`].
const MAX_SHOWN: usize = 200;

/// A path argument that escapes the workspace (or cannot be checked).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathViolation {
    /// The parameter, with indexes for arrays: `file_path`, `paths[2]`, `files[0].path`.
    pub param: String,
    /// The same place as a JSON pointer into the arguments: `/files/0/path`.
    pub pointer: String,
    /// The value as given (JSON text for non-strings, cut to a readable length).
    pub value: String,
    /// The workspace root as given.
    pub root: Box<str>,
    /// Why it was refused, e.g. `resolves to /etc/passwd`.
    pub reason: String,
    /// Whether the value leaves the workspace or could not be checked at all.
    pub kind: ViolationKind,
}

/// Why a path value was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViolationKind {
    /// It resolves outside the workspace (or names another machine's file).
    Outside,
    /// It could not be checked: not a string, NUL bytes, a leading `~`, over `PATH_MAX`, a
    /// symlink loop, an unparsable `file:` URL, the call's lookup budget spent, an unresolvable
    /// root.
    Unchecked,
}

impl fmt::Display for PathViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            ViolationKind::Outside => "is outside the workspace",
            ViolationKind::Unchecked => "cannot be checked against the workspace",
        };
        write!(
            f,
            "parameter \"{}\" ({:?}) {what} {}: {}",
            self.param, self.value, self.root, self.reason
        )
    }
}

impl std::error::Error for PathViolation {}

/// Checks every path of `args` (see the module comment; `params` are the tool's declared and
/// schema-found parameters): each must resolve inside `root`. Absent and `null` parameters are
/// skipped; a declared parameter holding anything but a string or an array of strings, NUL
/// bytes, a leading `~`, a path of `PATH_MAX` bytes or more, a `file:` URL on another host,
/// symlink loops and a call whose lookups overrun [`MAX_LOOKUP_BYTES`] are refused. The first
/// refused value is reported, with its parameter as a name and as a JSON pointer.
pub fn check_workspace_paths(
    root: &Path,
    args: &Value,
    params: &PathParams,
) -> std::result::Result<(), PathViolation> {
    let (places, found) = collect(args, params);
    let mut resolved_root: Option<PathBuf> = None;
    let mut budget = LookupBudget::default();
    let absolute_root = std::env::current_dir()
        .map(|cwd| cwd.join(root))
        .unwrap_or_else(|_| root.to_path_buf());
    for (place, value) in found {
        let refuse_as = |kind: ViolationKind, value: String, reason: String| PathViolation {
            param: shown(&places.name(place)),
            pointer: shown(&places.pointer(place)),
            value,
            root: root.display().to_string().into(),
            reason,
            kind,
        };
        let refuse = |value, reason| refuse_as(ViolationKind::Unchecked, value, reason);
        let text = match value {
            Found::NotAPath(other) => {
                return Err(refuse(
                    shown(&other.to_string()),
                    format!(
                        "a path must be a string or an array of strings, got {}",
                        crate::json_text::json_type(other)
                    ),
                ))
            }
            Found::Path(text) => text,
        };
        let root_path = match &resolved_root {
            Some(path) => path,
            None => {
                let path = resolve(&absolute_root, &mut budget).map_err(|reason| {
                    refuse(
                        shown(text),
                        format!("the workspace root cannot be resolved: {reason}"),
                    )
                })?;
                resolved_root.insert(path)
            }
        };
        check_one(&absolute_root, root_path, text, &mut budget)
            .map_err(|(kind, reason)| refuse_as(kind, shown(text), reason))?;
    }
    Ok(())
}

/// `text` cut to [`MAX_SHOWN`] characters (reading no further).
pub(crate) fn shown(text: &str) -> String {
    match text.char_indices().nth(MAX_SHOWN) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}...", &text[..cut]),
    }
}

/// Checks one path string (or `file:` URL) against the root (as given, made absolute, and
/// resolved): why it is refused, if it is. Both resolutions of the module comment must stay
/// inside; the textual one is only needed when the path has a `..` to collapse.
fn check_one(
    absolute_root: &Path,
    resolved_root: &Path,
    text: &str,
    budget: &mut LookupBudget,
) -> std::result::Result<(), (ViolationKind, String)> {
    let unchecked = |reason: String| (ViolationKind::Unchecked, reason);
    let decoded = match file_url_path(text).transpose() {
        Ok(decoded) => decoded,
        Err(reason) if reason.starts_with("a file URL on host") => {
            return Err((ViolationKind::Outside, reason))
        }
        Err(reason) => return Err(unchecked(reason)),
    };
    let path = Path::new(decoded.as_deref().unwrap_or(text));
    check_length(path.as_os_str().len()).map_err(unchecked)?;
    if path.as_os_str().as_encoded_bytes().contains(&0) {
        return Err(unchecked("the path contains a NUL byte".to_string()));
    }
    if path.as_os_str().as_encoded_bytes().starts_with(b"~") {
        return Err(unchecked(
            "a leading ~ is not expanded; give the path relative to the workspace".to_string(),
        ));
    }
    let physical = resolve(&resolved_root.join(path), budget).map_err(unchecked)?;
    if !physical.starts_with(resolved_root) {
        return Err((
            ViolationKind::Outside,
            format!("resolves to {}", shown(&physical.to_string_lossy())),
        ));
    }
    if !path.components().any(|part| part == Component::ParentDir) {
        return Ok(());
    }
    let textual = resolve(&lexical(&absolute_root.join(path)), budget).map_err(unchecked)?;
    if textual.starts_with(resolved_root) {
        Ok(())
    } else {
        Err((
            ViolationKind::Outside,
            format!(
                "with its .. collapsed as text (as path.resolve does) it resolves to {}",
                shown(&textual.to_string_lossy())
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::fs;
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

    fn declared(names: &[&str]) -> PathParams {
        PathParams {
            declared: names.iter().map(|name| PathParam::key(name)).collect(),
            from_schema: Vec::new(),
        }
    }

    fn check(root: &Path, path: &str) -> std::result::Result<(), PathViolation> {
        check_workspace_paths(root, &json!({ "path": path }), &declared(&["path"]))
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
        let params = declared(&["file_path", "paths"]);
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
}

#[cfg(test)]
mod attack_tests {
    //! The `workspaceOnly` attack corpus: every way a path reaches a tool, each refused with the
    //! parameter named, next to the rows that must stay allowed.
    use super::*;
    use serde_json::json;
    use std::fs;

    /// `<tmp>/ws` with `src/a.ts` and a link `escape -> <tmp>/outside`.
    fn workspace() -> (PathBuf, PathBuf) {
        let base = std::env::temp_dir().join(format!(
            "toolwire-paths-attacks-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = fs::remove_dir_all(&base);
        let ws = base.join("ws");
        fs::create_dir_all(ws.join("src")).unwrap();
        fs::write(ws.join("src/a.ts"), "x").unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(base.join("outside"), ws.join("escape")).unwrap();
        (base, ws)
    }

    /// Checks `args` as a `workspaceOnly` tool with `schema` (and `declared` pathParams) would.
    fn check(
        ws: &Path,
        schema: &Value,
        declared: &[&str],
        args: &Value,
    ) -> std::result::Result<(), PathViolation> {
        let params = PathParams {
            declared: declared
                .iter()
                .map(|p| PathParam::parse(p).unwrap())
                .collect(),
            from_schema: schema_path_params(schema),
        };
        check_workspace_paths(ws, args, &params)
    }

    /// (what, schema, args, the refused parameter's pointer)
    fn refused_rows(ws: &Path) -> Vec<(&'static str, Value, Value, &'static str)> {
        let file_url = format!("file://{}/../outside/x", ws.display());
        vec![
            (
                "no schema at all",
                json!({}),
                json!({ "path": "../x" }),
                "/path",
            ),
            (
                "a $ref root",
                json!({ "$ref": "#/$defs/A", "$defs": { "A": { "type": "object",
                    "properties": { "target": { "type": "string" } } } } }),
                json!({ "target": "/etc/passwd" }),
                "/target",
            ),
            (
                "TypeBox Intersect (allOf)",
                json!({ "allOf": [{ "type": "object", "properties": { "name": { "type": "string" } } },
                    { "type": "object", "properties": { "source_path": { "type": "string" } } }] }),
                json!({ "name": "n", "source_path": "../../etc/shadow" }),
                "/source_path",
            ),
            (
                "zod discriminated union (anyOf)",
                json!({ "anyOf": [
                    { "type": "object", "properties": { "kind": { "const": "a" }, "file": { "type": "string" } } },
                    { "type": "object", "properties": { "kind": { "const": "b" }, "dir": { "type": "string" } } }] }),
                json!({ "kind": "b", "dir": "/etc" }),
                "/dir",
            ),
            (
                "_path suffix",
                json!({}),
                json!({ "source_path": "/etc/passwd" }),
                "/source_path",
            ),
            (
                "Path suffix",
                json!({}),
                json!({ "outputPath": "../out" }),
                "/outputPath",
            ),
            (
                "_file suffix",
                json!({}),
                json!({ "log_file": "/var/log/x" }),
                "/log_file",
            ),
            (
                "Dir suffix",
                json!({}),
                json!({ "workingDir": "/" }),
                "/workingDir",
            ),
            (
                "SCREAMING_CASE",
                json!({}),
                json!({ "FILE_PATH": "/etc/passwd" }),
                "/FILE_PATH",
            ),
            (
                "plural paths",
                json!({}),
                json!({ "paths": ["src/a.ts", "../b"] }),
                "/paths/1",
            ),
            (
                "path keys in an array of objects",
                json!({}),
                json!({ "files": [{ "path": "src/a.ts" }, { "path": "../../etc/hosts" }] }),
                "/files/1/path",
            ),
            (
                "path keys in nested objects",
                json!({}),
                json!({ "options": { "output": { "dir": "/tmp" } } }),
                "/options/output/dir",
            ),
            (
                "file:// URL",
                json!({}),
                json!({ "url": "file:///etc/passwd" }),
                "/url",
            ),
            (
                "file:// URL under a path key",
                json!({}),
                json!({ "path": file_url }),
                "/path",
            ),
            (
                "percent-encoded ..",
                json!({}),
                json!({ "uri": "file:///%2E%2E/%2e%2e/etc/passwd" }),
                "/uri",
            ),
            (
                "file URL on a host",
                json!({}),
                json!({ "src": "file://server/share" }),
                "/src",
            ),
            (
                "a 1 MB path",
                json!({}),
                json!({ "path": "a/".repeat(1 << 19) }),
                "/path",
            ),
            (
                "a 1 MB path of ..",
                json!({}),
                json!({ "file": "../".repeat(350_000) }),
                "/file",
            ),
            (
                "a map of paths the schema declares",
                json!({ "type": "object", "properties": { "paths": { "type": "object",
                    "additionalProperties": { "type": "string" } } } }),
                json!({ "paths": { "main": "src/a.ts", "alt": "/etc/passwd" } }),
                "/paths/alt",
            ),
            // Attack review 24: file URLs as Node's `new URL` reads them, under any key.
            (
                "file URL after a leading space, under href",
                json!({}),
                json!({ "href": " file:///etc/hostname" }),
                "/href",
            ),
            (
                "file URL with a tab in its scheme, under a free-text key",
                json!({}),
                json!({ "note": "fi\tle:///etc/hostname" }),
                "/note",
            ),
            (
                "file URL with backslashes, under link",
                json!({}),
                json!({ "link": "file:\\\\localhost\\etc\\hostname" }),
                "/link",
            ),
            (
                "file URL without slashes (file:etc/x is /etc/x), under uri",
                json!({}),
                json!({ "uri": "file:etc/hostname" }),
                "/uri",
            ),
            // Attack review 25: keys that name paths without a path word.
            (
                "output",
                json!({}),
                json!({ "output": "/tmp/x" }),
                "/output",
            ),
            ("out", json!({}), json!({ "out": "../x" }), "/out"),
            ("dst", json!({}), json!({ "dst": "/etc/cron.d/x" }), "/dst"),
            ("to", json!({}), json!({ "to": "../../x" }), "/to"),
            ("from", json!({}), json!({ "from": "/etc/shadow" }), "/from"),
            ("root", json!({}), json!({ "root": "/" }), "/root"),
            (
                "location",
                json!({}),
                json!({ "location": "/etc" }),
                "/location",
            ),
            (
                "dest_dir",
                json!({}),
                json!({ "dest_dir": "/tmp" }),
                "/dest_dir",
            ),
            (
                "an object under a path key",
                json!({}),
                json!({ "path": { "0": "/etc/passwd" } }),
                "/path/0",
            ),
            (
                "an array of objects under a path key",
                json!({}),
                json!({ "to": [{ "x": { "y": "../../x" } }] }),
                "/to/0/x/y",
            ),
            (
                "declared pathParams in an intersection",
                json!({ "allOf": [{ "$ref": "#/$defs/A" }], "$defs": { "A": {
                    "properties": { "jobs": { "type": "array", "items": { "properties": {
                        "location": { "type": "string" } } } } } } } }),
                json!({ "jobs": [{ "location": "../x" }] }),
                "/jobs/0/location",
            ),
        ]
    }

    #[test]
    fn every_way_a_path_reaches_a_tool_is_checked() {
        let (base, ws) = workspace();
        for (what, schema, args, pointer) in refused_rows(&ws) {
            let declared: &[&str] = if what.starts_with("declared") {
                &["jobs.*.location"]
            } else {
                &[]
            };
            let error = check(&ws, &schema, declared, &args).expect_err(what);
            assert_eq!(error.pointer, pointer, "{what}: {error}");
            assert!(error.value.chars().count() <= MAX_SHOWN + 3, "{what}");
            assert!(error.to_string().len() < 2 * MAX_SHOWN + 500, "{what}");
        }
        let _ = fs::remove_dir_all(base);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_that_escape_are_refused_wherever_the_path_sits() {
        let (base, ws) = workspace();
        for args in [
            json!({ "path": "escape/secret" }),
            json!({ "files": [{ "path": "escape" }] }),
            json!({ "target": format!("file://{}/escape/x", ws.display()) }),
            json!({ "paths": ["src", "escape/../../x"] }),
            json!({ "path": "missing/../escape/secret" }),
        ] {
            let error = check(&ws, &json!({}), &[], &args).expect_err("escapes");
            assert!(error.reason.starts_with("resolves to "), "{args}: {error}");
        }
        let _ = fs::remove_dir_all(base);
    }

    /// Each of `rows` (arguments) passes the check in `ws` with no schema.
    fn assert_all_allowed(ws: &Path, rows: impl IntoIterator<Item = Value>) {
        for args in rows {
            assert_eq!(check(ws, &json!({}), &[], &args), Ok(()), "{args}");
        }
    }

    /// Attack review 23: `a -> d1/d2`, then `a/../../x`. The kernel reaches `<ws>/x`; a tool
    /// that calls `path.resolve(ws, p)` collapses `..` first and writes `<ws>/../x`.
    #[cfg(unix)]
    #[test]
    fn dotdot_after_a_symlink_is_checked_as_text_and_as_the_kernel_reads_it() {
        let (base, ws) = workspace();
        fs::create_dir_all(ws.join("d1/d2")).unwrap();
        std::os::unix::fs::symlink("d1/d2", ws.join("a")).unwrap();
        for path in [
            "a/../../escape-1.txt",
            "missing/../a/../../escape-2.txt",
            "./a/./../../x",
            "src/../a/../../x",
        ] {
            let error = check(&ws, &json!({}), &[], &json!({ "path": path })).expect_err(path);
            assert_eq!(error.kind, ViolationKind::Outside, "{path}");
            assert!(
                error.reason.starts_with(
                    "with its .. collapsed as text (as path.resolve does) it resolves to "
                ),
                "{path}: {error}"
            );
        }
        let allowed = [
            "a/x.txt",
            "a/../src/a.ts",
            "d1/../src/a.ts",
            "a/..",
            "a/../d1/d2/x",
        ];
        assert_all_allowed(&ws, allowed.map(|path| json!({ "path": path })));
        let _ = fs::remove_dir_all(base);
    }

    /// The controls of attack review 23-25: what the new rules must keep allowed.
    #[cfg(unix)]
    #[test]
    fn ordinary_values_under_the_new_rules_stay_allowed() {
        let (base, ws) = workspace();
        fs::create_dir_all(ws.join("d1")).unwrap();
        std::os::unix::fs::symlink("src", ws.join("link")).unwrap();
        assert_all_allowed(
            &ws,
            [
                json!({ "path": "link/a.ts" }),
                json!({ "path": "d1/../src/a.ts" }),
                json!({ "href": "http://example.com/a/../../b", "url": "https://x.test/file:///etc" }),
                json!({ "to": "bob@example.com", "from": "alice@example.com", "cc": "/x" }),
                json!({ "to": "fr", "output": "json", "location": "Paris, France" }),
                json!({ "files": [{ "path": "src/a.ts", "content": "// /etc/passwd" }] }),
                json!({ "files": [{ "name": "a.ts", "content": "/etc/passwd", "encoding": "utf8" }] }),
                json!({ "body": "see file:///etc/passwd", "note": "files: /etc" }),
            ],
        );
        let _ = fs::remove_dir_all(base);
    }

    #[test]
    fn paths_over_path_max_are_refused_naming_the_limit() {
        let (base, ws) = workspace();
        for text in [
            "a/".repeat(1 << 19),
            "x".repeat(PATH_MAX),
            format!("file:///{}", "%41".repeat(PATH_MAX)),
        ] {
            let error = check(&ws, &json!({}), &[], &json!({ "dir": text })).unwrap_err();
            assert!(
                error.reason.contains("over PATH_MAX (4096"),
                "{}",
                error.reason
            );
            assert_eq!(error.value.chars().count(), MAX_SHOWN + 3);
        }
        let _ = fs::remove_dir_all(base);
    }

    #[test]
    fn long_paths_under_the_limit_resolve_lexically_past_the_first_missing_component() {
        let (base, ws) = workspace();
        // 300 paths of about 3800 bytes, each with 1900 components under a missing directory:
        // one lookup on disk per path past `src`, the rest lexical.
        let long = format!("src/missing/{}", "a/".repeat(1900));
        let paths: Vec<String> = (0..300).map(|i| format!("{long}{i}")).collect();
        assert_eq!(
            check(&ws, &json!({}), &[], &json!({ "paths": paths })),
            Ok(())
        );
        let escaping = format!("src/missing/{}{}", "a/".repeat(500), "../".repeat(503));
        assert!(check(&ws, &json!({}), &[], &json!({ "path": escaping })).is_err());
        let _ = fs::remove_dir_all(base);
    }

    #[test]
    fn many_paths_deep_in_an_existing_tree_share_one_lookup_budget() {
        let (base, ws) = workspace();
        let deep = "d/".repeat(300);
        fs::create_dir_all(ws.join(&deep)).unwrap();
        // Each path costs about 300 lookups of growing length: a few fit, a hundred do not.
        let one = json!({ "path": format!("{deep}x") });
        assert_eq!(check(&ws, &json!({}), &[], &one), Ok(()));
        let paths: Vec<String> = (0..100).map(|i| format!("{deep}{i}")).collect();
        let error = check(&ws, &json!({}), &[], &json!({ "paths": paths })).unwrap_err();
        assert_eq!(
            error.reason,
            format!(
                "checking this call's paths would look up more than {MAX_LOOKUP_BYTES} bytes of \
                 path on disk; send fewer or shallower paths"
            )
        );
        // The message says the real reason: not checked, rather than outside.
        assert_eq!(error.kind, ViolationKind::Unchecked);
        assert!(
            error
                .to_string()
                .contains("cannot be checked against the workspace"),
            "{error}"
        );
        let _ = fs::remove_dir_all(base);
    }

    #[test]
    fn a_union_giving_a_path_name_an_object_has_its_strings_checked() {
        let (base, ws) = workspace();
        let schema = json!({ "anyOf": [
            { "properties": { "target": { "type": "string" } } },
            { "properties": { "target": { "type": "object",
                "properties": { "id": { "type": "string" } } } } } ] });
        let object = json!({ "target": { "id": "../not/a/path" } });
        // Under a path-named key every string is a path, objects included (attack review, 25).
        assert_eq!(
            check(&ws, &schema, &[], &object).unwrap_err().pointer,
            "/target/id"
        );
        assert_eq!(
            check(&ws, &schema, &[], &json!({ "target": { "id": "a/b" } })),
            Ok(())
        );
        let string = json!({ "target": "../x" });
        assert_eq!(
            check(&ws, &schema, &[], &string).unwrap_err().pointer,
            "/target"
        );
        // Declared, the same object is refused: a declared path must be a string.
        let error = check(&ws, &schema, &["target"], &object).unwrap_err();
        assert_eq!(
            error.reason,
            "a path must be a string or an array of strings, got an object"
        );
        let _ = fs::remove_dir_all(base);
    }

    #[test]
    fn paths_inside_and_non_path_strings_stay_allowed() {
        let (base, ws) = workspace();
        let inside_url = format!("file://{}/src/a.ts", ws.display());
        let absolute_inside = ws.join("src/new.ts").display().to_string();
        for args in [
            json!({ "path": "src/a.ts", "outputPath": "build/out.js", "paths": ["src", "."] }),
            json!({ "files": [{ "path": "src/a.ts", "content": "../../etc/passwd" }] }),
            json!({ "dir": absolute_inside, "url": inside_url }),
            json!({ "content": "/etc/passwd", "command": "cat ../../x", "url": "https://e.com/../a" }),
            json!({ "note": "see file:///etc/passwd", "pattern": "/**/*.ts", "urlPath": "/api/v1" }),
            json!({ "count": 3, "cwd": null, "path_mode": "/strict", "profile": "/root" }),
            json!({ "xpath": "//div[@id]", "jsonPath": "$..book" }),
        ] {
            assert_eq!(check(&ws, &json!({}), &[], &args), Ok(()), "{args}");
        }
        let _ = fs::remove_dir_all(base);
    }
}
