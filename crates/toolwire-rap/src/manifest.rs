//! Toolset manifests (`GET {baseUrl}/.well-known/rap-toolset`): parsing, whole-manifest
//! validation, and the [`Toolsets`] registry of loaded tools.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::client::{Headers, NotifyTarget, RetryPolicy};
use crate::error::RapError;

/// Longest tool or toolset name.
pub const MAX_NAME_LEN: usize = 128;

/// A toolset as served by a RAP server; wire-compatible with `rap-protocol`'s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolsetManifest {
    /// The toolset's name.
    pub name: String,
    /// What the toolset is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Where invocations are POSTed: absolute, or relative to the base URL.
    pub endpoint: String,
    /// The tools; at least one.
    pub tools: Vec<ToolDef>,
    /// Whether the server's state needs migrating when a session moves (passed through).
    #[serde(default, rename = "needsMigration")]
    pub needs_migration: bool,
}

/// One tool of a manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    /// The tool's name (the invocation's `operation`).
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of the arguments.
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
    /// Free-form annotations, passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// A display script for UIs, passed through.
    #[serde(
        default,
        rename = "displayScript",
        skip_serializing_if = "Option::is_none"
    )]
    pub display_script: Option<String>,
}

/// Whether `name` follows RAP's name rule `[A-Za-z0-9_-]{1,128}`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Parses a manifest body and validates it whole (see [`validate_manifest`]). `url` only
/// labels errors. The body is read as `response.json()` reads it: a leading byte order mark is
/// dropped, escaped lone surrogates (a description cut inside an emoji) and bytes that are not
/// UTF-8 become U+FFFD instead of refusing the toolset, a duplicate key keeps its last value; a
/// number no double holds is refused naming it and its pointer.
pub fn parse_manifest(url: &str, body: &[u8]) -> Result<ToolsetManifest, RapError> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let text = String::from_utf8_lossy(body);
    let refused = |message: String| RapError::ManifestParse {
        url: url.to_owned(),
        message: toolwire_core::quote::bounded(&message),
    };
    let value =
        toolwire_core::json_input::parse_document(&text).map_err(|e| refused(e.to_string()))?;
    // Through a `Value`, so a duplicate key keeps its last value as `JSON.parse` does (a
    // derived struct would refuse it).
    let manifest = ToolsetManifest::deserialize(value).map_err(|e| refused(e.to_string()))?;
    validate_manifest(&manifest)?;
    Ok(manifest)
}

/// Checks a manifest whole: toolset and tool names follow [`is_valid_name`], at least one
/// tool, no duplicate tool names, every `inputSchema` compiles. The first failure is returned,
/// naming the offending value.
pub fn validate_manifest(manifest: &ToolsetManifest) -> Result<(), RapError> {
    let invalid = |reason: String| RapError::InvalidToolset {
        toolset: manifest.name.clone(),
        reason,
    };
    if !is_valid_name(&manifest.name) {
        return Err(invalid(format!(
            "toolset name {:?} does not match [A-Za-z0-9_-]{{1,128}}",
            manifest.name
        )));
    }
    if manifest.tools.is_empty() {
        return Err(invalid("it has no tools".to_owned()));
    }
    let mut seen = HashSet::new();
    for tool in &manifest.tools {
        if !is_valid_name(&tool.name) {
            return Err(invalid(format!(
                "tool name {:?} does not match [A-Za-z0-9_-]{{1,128}}",
                tool.name
            )));
        }
        if !seen.insert(tool.name.as_str()) {
            return Err(invalid(format!("tool {:?} is listed twice", tool.name)));
        }
        if let Err(e) = jsonschema::validator_for(&tool.input_schema) {
            return Err(invalid(format!(
                "inputSchema of tool {:?} does not compile: {e}",
                tool.name
            )));
        }
    }
    Ok(())
}

/// The manifest URL of a base URL.
pub fn manifest_url(base_url: &str) -> String {
    format!("{}/.well-known/rap-toolset", base_url.trim_end_matches('/'))
}

/// Resolves a manifest's `endpoint` against the base URL: an absolute http(s) URL is kept,
/// anything else is joined to the base URL (`/x` from its root, `x` below it). Returns the
/// parsed base URL and the endpoint.
pub fn resolve_endpoint(
    base_url: &str,
    endpoint: &str,
) -> Result<(reqwest::Url, reqwest::Url), RapError> {
    let bad = |value: &str, message: String| RapError::InvalidConfig {
        value: value.to_owned(),
        message,
    };
    let base = reqwest::Url::parse(&format!("{}/", base_url.trim_end_matches('/')))
        .map_err(|e| bad(base_url, format!("not a URL: {e}")))?;
    if !matches!(base.scheme(), "http" | "https") {
        return Err(bad(base_url, "not an http(s) URL".to_owned()));
    }
    let url = base
        .join(endpoint)
        .map_err(|e| bad(endpoint, format!("endpoint is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(RapError::InvalidToolset {
            toolset: String::new(),
            reason: format!("endpoint {endpoint:?} is not an http(s) URL"),
        });
    }
    Ok((base, url))
}

/// Per-toolset options (`addRapToolset`'s `timeoutMs`, `retry`, `prefix`, `headers`).
#[derive(Debug, Clone, Default)]
pub struct ToolsetOptions {
    /// Prepended to every tool name; the names are the toolset's own without it.
    pub prefix: Option<String>,
    /// The tools' own deadline; without it only the call's deadline applies.
    pub timeout: Option<Duration>,
    /// Retry of invocations on 5xx and connection failures.
    pub retry: RetryPolicy,
    /// Extra headers sent with the manifest fetch, every invocation, and the cancel and
    /// close_thread notifications; only ever to the base URL's origin.
    pub headers: Headers,
}

/// A loaded toolset: its manifest, where it lives, and its options.
#[derive(Debug, Clone)]
pub struct LoadedToolset {
    /// The base URL it was loaded from (cancel and close_thread go there).
    pub base_url: String,
    /// The resolved invocation endpoint.
    pub endpoint: String,
    /// The validated manifest.
    pub manifest: ToolsetManifest,
    /// Its options.
    pub options: ToolsetOptions,
}

impl LoadedToolset {
    /// Builds a loaded toolset from a validated manifest, resolving its endpoint. With
    /// `headers`, an endpoint on another origin than the base URL is refused: the headers
    /// were given for the base URL's server and are never sent elsewhere.
    pub fn new(
        base_url: &str,
        manifest: ToolsetManifest,
        options: ToolsetOptions,
    ) -> Result<Self, RapError> {
        let invalid = |reason: String| RapError::InvalidToolset {
            toolset: manifest.name.clone(),
            reason,
        };
        let (base, endpoint) =
            resolve_endpoint(base_url, &manifest.endpoint).map_err(|e| match e {
                RapError::InvalidToolset { reason, .. } => invalid(reason),
                other => other,
            })?;
        if !options.headers.is_empty() && endpoint.origin() != base.origin() {
            return Err(invalid(format!(
                "its endpoint {} is on origin {}, not {} where it was loaded from with \
                 headers; headers are only sent to the origin they were given for",
                endpoint,
                endpoint.origin().ascii_serialization(),
                base.origin().ascii_serialization()
            )));
        }
        Ok(LoadedToolset {
            base_url: base_url.trim_end_matches('/').to_owned(),
            endpoint: endpoint.to_string(),
            manifest,
            options,
        })
    }

    /// The names its tools are exposed under (with the prefix, if any).
    pub fn exposed_names(&self) -> Vec<String> {
        let prefix = self.options.prefix.as_deref().unwrap_or("");
        self.manifest
            .tools
            .iter()
            .map(|t| format!("{prefix}{}", t.name))
            .collect()
    }
}

/// One exposed remote tool.
#[derive(Debug, Clone)]
pub struct RemoteTool {
    /// The exposed name (prefix + the toolset's name for it).
    pub name: String,
    /// The toolset's name for it: the invocation's `operation`.
    pub operation: String,
    /// The toolset it belongs to.
    pub toolset: Arc<LoadedToolset>,
    /// Index of its definition in the manifest.
    index: usize,
    /// Its toolset's key in [`Toolsets`].
    toolset_key: u64,
}

impl RemoteTool {
    /// Its definition in the manifest.
    pub fn def(&self) -> &ToolDef {
        &self.toolset.manifest.tools[self.index]
    }
}

/// A loaded toolset and how many of its tools are still exposed.
#[derive(Debug)]
struct Slot {
    toolset: Arc<LoadedToolset>,
    exposed: usize,
}

/// The registry of loaded toolsets. Exposed names are unique across toolsets: a toolset with
/// a name that is already loaded is refused whole, and the earlier tools stay.
#[derive(Debug, Default)]
pub struct Toolsets {
    tools: HashMap<String, Arc<RemoteTool>>,
    /// By key, in load order.
    toolsets: BTreeMap<u64, Slot>,
    next_key: u64,
}

impl Toolsets {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a toolset and returns its exposed names in manifest order, or refuses it whole:
    /// a prefixed name breaking the name rule, or a name already loaded (named in the error).
    pub fn add(&mut self, toolset: LoadedToolset) -> Result<Vec<String>, RapError> {
        let names = toolset.exposed_names();
        for name in &names {
            if !is_valid_name(name) {
                return Err(RapError::InvalidConfig {
                    value: name.clone(),
                    message: "prefixed tool name does not match [A-Za-z0-9_-]{1,128}".to_owned(),
                });
            }
            if self.tools.contains_key(name) {
                return Err(RapError::DuplicateTool {
                    tool: name.clone(),
                    toolset: toolset.manifest.name.clone(),
                });
            }
        }
        let toolset = Arc::new(toolset);
        let key = self.next_key;
        self.next_key += 1;
        for (index, name) in names.iter().enumerate() {
            let tool = RemoteTool {
                name: name.clone(),
                operation: toolset.manifest.tools[index].name.clone(),
                toolset: Arc::clone(&toolset),
                index,
                toolset_key: key,
            };
            self.tools.insert(name.clone(), Arc::new(tool));
        }
        let exposed = names.len();
        self.toolsets.insert(key, Slot { toolset, exposed });
        Ok(names)
    }

    /// Removes the whole toolset that exposes `tool` (every one of its tools); returns whether
    /// one did. Lets an owner undo a load it could not complete on its side.
    pub fn remove_toolset(&mut self, tool: &str) -> bool {
        let Some(key) = self.tools.get(tool).map(|t| t.toolset_key) else {
            return false;
        };
        if let Some(slot) = self.toolsets.remove(&key) {
            for name in slot.toolset.exposed_names() {
                if self.tools.get(&name).is_some_and(|t| t.toolset_key == key) {
                    self.tools.remove(&name);
                }
            }
        }
        true
    }

    /// Removes one exposed tool (its name is free again); the toolset goes when its last tool
    /// does. Returns whether the tool was exposed.
    pub fn remove_tool(&mut self, name: &str) -> bool {
        let Some(tool) = self.tools.remove(name) else {
            return false;
        };
        if let Some(slot) = self.toolsets.get_mut(&tool.toolset_key) {
            slot.exposed -= 1;
            if slot.exposed == 0 {
                self.toolsets.remove(&tool.toolset_key);
            }
        }
        true
    }

    /// The tool exposed under `name`.
    pub fn get(&self, name: &str) -> Option<Arc<RemoteTool>> {
        self.tools.get(name).cloned()
    }

    /// Every exposed tool name, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.tools.keys().cloned().collect();
        names.sort();
        names
    }

    /// Where cancel and close_thread notifications go: the base URL of every loaded toolset
    /// with its headers, in load order, each (base URL, headers) once.
    pub fn notify_targets(&self) -> Vec<NotifyTarget> {
        let mut seen = HashSet::new();
        self.toolsets
            .values()
            .map(|slot| &slot.toolset)
            .filter(|t| seen.insert((t.base_url.as_str(), &t.options.headers)))
            .map(|t| NotifyTarget {
                base_url: t.base_url.clone(),
                headers: t.options.headers.clone(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn manifest(value: Value) -> Result<ToolsetManifest, RapError> {
        parse_manifest("<test>", value.to_string().as_bytes())
    }

    fn good() -> Value {
        json!({
            "name": "files",
            "description": "file tools",
            "endpoint": "/invoke",
            "tools": [
                {"name": "read_file", "description": "read", "inputSchema": {"type": "object"},
                 "annotations": {"readOnlyHint": true}, "displayScript": "x"},
                {"name": "write-file", "description": "write", "inputSchema": {"type": "object"}}
            ]
        })
    }

    #[test]
    fn accepts_a_good_manifest() {
        let m = manifest(good()).unwrap();
        assert_eq!(m.tools.len(), 2);
        assert_eq!(m.tools[0].display_script.as_deref(), Some("x"));
    }

    /// A server's `JSON.stringify` writes a description cut inside an emoji as an escaped lone
    /// surrogate: the toolset loads, the surrogate becoming U+FFFD.
    #[test]
    fn a_description_cut_inside_an_emoji_loads() {
        let body = good()
            .to_string()
            .replace("\"file tools\"", "\"file tools \\ud83d\"")
            .replace("\"read\"", "\"read \\udc00\"");
        let m = parse_manifest("<test>", body.as_bytes()).unwrap();
        assert_eq!(m.description.as_deref(), Some("file tools \u{FFFD}"));
        assert_eq!(m.tools[0].description, "read \u{FFFD}");
    }

    /// A manifest is read as `response.json()` reads it: a duplicate key keeps its last value
    /// and a leading byte order mark is dropped (both refused before); a number no double holds
    /// is refused naming it and its pointer.
    #[test]
    fn manifests_read_as_json_parse_reads_them() {
        let text = good().to_string();
        let duplicated = format!(r#"{{"description":"first",{}"#, &text[1..]);
        let m = parse_manifest("<test>", duplicated.as_bytes()).unwrap();
        assert_eq!(
            m.description,
            good()["description"].as_str().map(str::to_owned)
        );
        let bom = [&b"\xEF\xBB\xBF"[..], text.as_bytes()].concat();
        assert_eq!(parse_manifest("<test>", &bom).unwrap().name, good()["name"]);
        let huge = text.replacen("{\"type\"", "{\"maximum\":1e400,\"type\"", 1);
        assert_ne!(huge, text);
        let err = parse_manifest("<test>", huge.as_bytes()).unwrap_err();
        assert!(matches!(err, RapError::ManifestParse { .. }), "{err:?}");
        assert!(
            err.to_string().contains("1e400 at \"/tools/0/inputSchema"),
            "{err}"
        );
    }

    #[test]
    fn each_validation_failure_is_named() {
        let long = "a".repeat(129);
        let cases: Vec<(Value, &str)> = vec![
            (json!({"name": "bad name"}), "\"bad name\""),
            (json!({"name": ""}), "toolset name \"\""),
            (json!({"name": long}), &long),
            (json!({"tools": []}), "no tools"),
            (
                json!({"tools": [{"name": "a.b", "description": "", "inputSchema": {}}]}),
                "\"a.b\"",
            ),
            (
                json!({"tools": [{"name": "x", "description": "", "inputSchema": {}},
                                 {"name": "x", "description": "", "inputSchema": {}}]}),
                "tool \"x\" is listed twice",
            ),
            (
                json!({"tools": [{"name": "typed", "description": "",
                                  "inputSchema": {"type": "nonsense"}}]}),
                "inputSchema of tool \"typed\"",
            ),
            (
                json!({"tools": [{"name": "re", "description": "",
                                  "inputSchema": {"pattern": "("}}]}),
                "inputSchema of tool \"re\"",
            ),
        ];
        for (patch, want) in cases {
            let mut value = good();
            for (k, v) in patch.as_object().unwrap() {
                value[k] = v.clone();
            }
            let err = manifest(value).expect_err(want);
            assert!(
                matches!(err, RapError::InvalidToolset { .. }),
                "{want}: {err:?}"
            );
            assert!(err.to_string().contains(want), "{want}: got {err}");
        }
    }

    #[test]
    fn shape_errors_are_parse_errors() {
        for body in [
            &b"not json"[..],
            br#"{"name":"x"}"#,
            br#"{"name":"x","endpoint":"/","tools":{}}"#,
        ] {
            let err = parse_manifest("http://h/.well-known/rap-toolset", body).unwrap_err();
            assert!(matches!(err, RapError::ManifestParse { .. }), "{err:?}");
        }
    }

    #[test]
    fn endpoints_resolve() {
        let cases = [
            ("http://h:1", "/invoke", "http://h:1/invoke"),
            ("http://h:1/base/", "invoke", "http://h:1/base/invoke"),
            ("http://h:1/base", "/invoke", "http://h:1/invoke"),
            ("http://h:1", "https://other/x", "https://other/x"),
        ];
        for (base, endpoint, want) in cases {
            assert_eq!(resolve_endpoint(base, endpoint).unwrap().1.as_str(), want);
        }
        assert!(resolve_endpoint("ftp://h", "/x").is_err());
        assert!(resolve_endpoint("http://h", "file:///etc/passwd").is_err());
        assert!(resolve_endpoint("nope", "/x").is_err());
    }

    fn urls(registry: &Toolsets) -> Vec<String> {
        registry
            .notify_targets()
            .into_iter()
            .map(|t| t.base_url)
            .collect()
    }

    fn with_headers(headers: &[(&str, &str)]) -> ToolsetOptions {
        ToolsetOptions {
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
            ..ToolsetOptions::default()
        }
    }

    #[test]
    fn headers_are_never_sent_to_an_endpoint_on_another_origin() {
        let mut other_origin = good();
        other_origin["endpoint"] = json!("https://elsewhere.example/invoke");
        let key = with_headers(&[("x-api-key", "k")]);
        let err = LoadedToolset::new(
            "http://h:1",
            manifest(other_origin.clone()).unwrap(),
            key.clone(),
        )
        .unwrap_err();
        assert!(matches!(err, RapError::InvalidToolset { .. }), "{err:?}");
        let text = err.to_string();
        for part in ["files", "https://elsewhere.example", "http://h:1"] {
            assert!(text.contains(part), "{part} missing from: {text}");
        }
        // Without headers there is nothing to leak; on the same origin they go along.
        let plain = LoadedToolset::new(
            "http://h:1",
            manifest(other_origin).unwrap(),
            ToolsetOptions::default(),
        )
        .unwrap();
        assert_eq!(plain.endpoint, "https://elsewhere.example/invoke");
        let mut same_origin = good();
        same_origin["endpoint"] = json!("http://h:1/v2/invoke");
        let same = LoadedToolset::new("http://h:1/base", manifest(same_origin).unwrap(), key);
        assert_eq!(same.unwrap().endpoint, "http://h:1/v2/invoke");
    }

    #[test]
    fn notifications_go_to_each_server_once_with_its_headers() {
        let mut registry = Toolsets::new();
        let toolset = |name: &str, base: &str, options: ToolsetOptions| {
            let mut value = good();
            value["name"] = json!(name);
            let prefix = format!("{name}_");
            let options = ToolsetOptions {
                prefix: Some(prefix),
                ..options
            };
            LoadedToolset::new(base, manifest(value).unwrap(), options).unwrap()
        };
        let key = || with_headers(&[("x-api-key", "k")]);
        registry.add(toolset("a", "http://h", key())).unwrap();
        registry.add(toolset("b", "http://h/", key())).unwrap();
        registry
            .add(toolset("c", "http://h", ToolsetOptions::default()))
            .unwrap();
        registry.add(toolset("d", "http://g", key())).unwrap();
        let targets = registry.notify_targets();
        let seen: Vec<(&str, usize)> = targets
            .iter()
            .map(|t| (t.base_url.as_str(), t.headers.len()))
            .collect();
        assert_eq!(
            seen,
            vec![("http://h", 1), ("http://h", 0), ("http://g", 1)]
        );
        assert_eq!(targets[0].headers, key().headers);
    }

    fn loaded(value: Value, prefix: Option<&str>) -> LoadedToolset {
        let options = ToolsetOptions {
            prefix: prefix.map(str::to_owned),
            ..ToolsetOptions::default()
        };
        LoadedToolset::new("http://h", manifest(value).unwrap(), options).unwrap()
    }

    #[test]
    fn duplicate_across_toolsets_is_refused_whole() {
        let mut registry = Toolsets::new();
        assert_eq!(
            registry.add(loaded(good(), None)).unwrap(),
            vec!["read_file", "write-file"]
        );
        let mut other = good();
        other["name"] = json!("other");
        other["tools"][0]["name"] = json!("fresh");
        let err = registry.add(loaded(other.clone(), None)).unwrap_err();
        assert_eq!(
            err,
            RapError::DuplicateTool {
                tool: "write-file".into(),
                toolset: "other".into()
            }
        );
        // Refused whole: "fresh" was not registered; the earlier tools stay.
        assert_eq!(registry.names(), vec!["read_file", "write-file"]);
        // With a prefix it loads.
        let names = registry.add(loaded(other, Some("o_"))).unwrap();
        assert_eq!(names, vec!["o_fresh", "o_write-file"]);
        let tool = registry.get("o_write-file").unwrap();
        assert_eq!(tool.operation, "write-file");
        assert_eq!(tool.def().description, "write");
        assert_eq!(tool.toolset.endpoint, "http://h/invoke");
        assert_eq!(urls(&registry), vec!["http://h"]);
    }

    #[test]
    fn a_toolset_is_removed_whole() {
        let mut registry = Toolsets::new();
        registry.add(loaded(good(), None)).unwrap();
        let mut other = good();
        other["name"] = json!("other");
        registry.add(loaded(other, Some("o_"))).unwrap();
        assert!(registry.remove_toolset("o_read_file"));
        assert_eq!(registry.names(), vec!["read_file", "write-file"]);
        assert!(!registry.remove_toolset("o_write-file"));
        // Its names are free again.
        let mut again = good();
        again["name"] = json!("again");
        assert!(registry.add(loaded(again, Some("o_"))).is_ok());
    }

    #[test]
    fn a_tool_is_removed_alone_and_its_toolset_with_the_last() {
        let mut registry = Toolsets::new();
        registry.add(loaded(good(), None)).unwrap();
        assert!(registry.remove_tool("read_file"));
        assert!(!registry.remove_tool("read_file"));
        assert_eq!(registry.names(), vec!["write-file"]);
        assert_eq!(urls(&registry), vec!["http://h"]);
        assert!(registry.remove_tool("write-file"));
        assert!(urls(&registry).is_empty());
        assert!(registry.add(loaded(good(), None)).is_ok());
    }

    #[test]
    fn bad_prefix_is_refused() {
        let mut registry = Toolsets::new();
        let err = registry.add(loaded(good(), Some("a b"))).unwrap_err();
        assert!(err.to_string().contains("a bread_file"), "{err}");
        assert!(registry.names().is_empty());
    }
}
