//! The options of [`analyze_command`](super::analyze_command), parsed from the JSON object the
//! JavaScript binding passes.

use std::path::PathBuf;

use serde_json::Value;

use super::safe_bins::DEFAULT_SAFE_BINS;
use crate::error::{Error, ErrorCode, Result};

/// The default trusted directories: the root-owned standard directories of the default PATHs
/// of root and users on Debian and Ubuntu (`/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:
/// /sbin:/bin`, users adding `/usr/local/games:/usr/games`), Fedora, Arch, Alpine and the
/// Docker images' default PATH. Per-user directories (`~/.local/bin`, `~/bin`) are not trusted.
pub const DEFAULT_TRUSTED_DIRS: &[&str] = &[
    "/bin",
    "/usr/bin",
    "/usr/local/bin",
    "/sbin",
    "/usr/sbin",
    "/usr/local/sbin",
    "/usr/games",
    "/usr/local/games",
];

/// The default link dirs: the alternatives system's directory (Debian, Fedora), through which
/// `/usr/bin/which` leads to `/usr/bin/which.debianutils`.
pub const DEFAULT_LINK_DIRS: &[&str] = &["/etc/alternatives"];

/// What the analyzer approves and where it looks for programs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalyzeOptions {
    /// The directory the command runs in (absolute): relative executable paths and relative PATH
    /// entries are resolved against it.
    pub cwd: Option<PathBuf>,
    /// The trusted directory (the workspace root) whose repository git may use; `None` means
    /// `cwd`. Not settable from JavaScript.
    pub root: Option<PathBuf>,
    /// Allowed programs: bare names (found in a trusted dir) or path globs.
    pub allowlist: Vec<String>,
    /// Stream filters allowed with the arguments of their profile.
    pub safe_bins: Vec<String>,
    /// Directories whose programs bare allowlist names and safe bins may match.
    pub trusted_dirs: Vec<PathBuf>,
    /// The PATH used for lookups; `None` means the process's PATH.
    pub path: Option<String>,
    /// Root-managed directories a symlink chain may pass through between trusted dirs without
    /// losing the names of the trusted links before them; a link in one lends no name itself.
    /// Not settable from JavaScript.
    pub link_dirs: Vec<PathBuf>,
    /// Whether the command runs as root, who can write every directory: in a line of several
    /// segments only the trusted dirs are then safe to find programs in
    /// ([`line_writes`](super::line_writes)). Defaults to whether this process runs as root
    /// (unknown counts as root). Not settable from JavaScript.
    pub runs_as_root: bool,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            cwd: None,
            root: None,
            allowlist: Vec::new(),
            safe_bins: DEFAULT_SAFE_BINS.iter().map(|s| s.to_string()).collect(),
            trusted_dirs: DEFAULT_TRUSTED_DIRS.iter().map(PathBuf::from).collect(),
            path: None,
            link_dirs: DEFAULT_LINK_DIRS.iter().map(PathBuf::from).collect(),
            runs_as_root: process_runs_as_root() != Some(false),
        }
    }
}

/// Whether this process runs as root (the owner of `/proc/self` is its effective user); `None`
/// when that cannot be read.
fn process_runs_as_root() -> Option<bool> {
    std::fs::metadata("/proc/self")
        .ok()
        .map(|meta| std::os::unix::fs::MetadataExt::uid(&meta) == 0)
}

fn invalid(message: String) -> Error {
    Error::caller(
        ErrorCode::ValidationError,
        format!("analyzeCommand: {message}"),
    )
}

fn string_list(value: &Value, key: &str) -> Result<Vec<String>> {
    let items = value.as_array().ok_or_else(|| {
        invalid(format!(
            "options.{key} must be an array of strings, got {value}"
        ))
    })?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item.as_str() {
            Some("") => Err(invalid(format!("options.{key}[{i}] must not be empty"))),
            Some(s) => Ok(s.to_string()),
            None => Err(invalid(format!(
                "options.{key}[{i}] must be a string, got {item}"
            ))),
        })
        .collect()
}

fn absolute_path(value: &str, key: &str) -> Result<PathBuf> {
    if value.starts_with('/') {
        Ok(PathBuf::from(value))
    } else {
        Err(invalid(format!(
            "options.{key} must be an absolute path, got {value:?}"
        )))
    }
}

impl AnalyzeOptions {
    /// Parses `{ cwd, allowlist, safeBins, trustedDirs, env }` (`null` gives the defaults).
    /// Unknown keys and wrong types are `VALIDATION_ERROR`s naming the key path.
    pub fn from_json(value: &Value) -> Result<AnalyzeOptions> {
        let mut options = AnalyzeOptions::default();
        let object = match value {
            Value::Null => return Ok(options),
            Value::Object(object) => object,
            other => return Err(invalid(format!("options must be an object, got {other}"))),
        };
        for (key, value) in object {
            match key.as_str() {
                "cwd" => match value {
                    Value::Null => {}
                    Value::String(s) => options.cwd = Some(absolute_path(s, "cwd")?),
                    other => {
                        return Err(invalid(format!(
                            "options.cwd must be a string, got {other}"
                        )))
                    }
                },
                "allowlist" => options.allowlist = string_list(value, "allowlist")?,
                "safeBins" => options.safe_bins = string_list(value, "safeBins")?,
                "trustedDirs" => {
                    options.trusted_dirs = string_list(value, "trustedDirs")?
                        .iter()
                        .enumerate()
                        .map(|(i, d)| absolute_path(d, &format!("trustedDirs[{i}]")))
                        .collect::<Result<_>>()?;
                }
                "env" => {
                    let env = value.as_object().ok_or_else(|| {
                        invalid(format!("options.env must be an object, got {value}"))
                    })?;
                    match env.get("PATH") {
                        None | Some(Value::Null) => {}
                        Some(Value::String(path)) => options.path = Some(path.clone()),
                        Some(other) => {
                            return Err(invalid(format!(
                                "options.env.PATH must be a string, got {other}"
                            )))
                        }
                    }
                }
                other => {
                    return Err(crate::options::unknown_option(
                        "analyzeCommand: options",
                        other,
                        &["cwd", "allowlist", "safeBins", "trustedDirs", "env"],
                    ))
                }
            }
        }
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_and_defaults() {
        let options = AnalyzeOptions::from_json(&json!({
            "cwd": "/work", "allowlist": ["git"], "safeBins": ["wc"],
            "trustedDirs": ["/opt/bin"], "env": { "PATH": "/opt/bin", "HOME": "/x" }
        }))
        .unwrap();
        assert_eq!(options.cwd, Some(PathBuf::from("/work")));
        assert_eq!(options.allowlist, vec!["git"]);
        assert_eq!(options.safe_bins, vec!["wc"]);
        assert_eq!(options.trusted_dirs, vec![PathBuf::from("/opt/bin")]);
        assert_eq!(options.path.as_deref(), Some("/opt/bin"));
        let defaults = AnalyzeOptions::from_json(&json!({})).unwrap();
        assert_eq!(defaults, AnalyzeOptions::default());
        assert_eq!(defaults.safe_bins.len(), 6);
        assert_eq!(AnalyzeOptions::from_json(&Value::Null).unwrap(), defaults);
    }

    #[test]
    fn defaults_are_the_documented_lists() {
        // The README's list of the default trusted dirs, read from the README itself: the
        // constant and the documentation cannot drift apart.
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
                .expect("README.md at the repository root");
        let start = readme
            .find("`trustedDirs` (default ")
            .expect("the trustedDirs paragraph");
        let list = &readme[start..];
        let list = &list["`trustedDirs` (default ".len()..list.find(": the root-owned").unwrap()];
        let documented: Vec<&str> = list
            .split(',')
            .map(|dir| dir.trim().trim_matches('`'))
            .collect();
        assert_eq!(DEFAULT_TRUSTED_DIRS, documented.as_slice());
        let defaults = AnalyzeOptions::from_json(&Value::Null).unwrap();
        let dirs: Vec<&str> = defaults
            .trusted_dirs
            .iter()
            .map(|dir| dir.to_str().unwrap())
            .collect();
        assert_eq!(dirs, DEFAULT_TRUSTED_DIRS);
        assert_eq!(
            defaults.safe_bins,
            ["cut", "uniq", "head", "tail", "tr", "wc"]
        );
        assert!(defaults.allowlist.is_empty());
        assert_eq!((defaults.cwd, defaults.path), (None, None));
    }

    #[test]
    fn errors_name_the_key_path() {
        let cases = [
            (
                json!({"safeBins": ["a", "b", 5]}),
                "analyzeCommand: options.safeBins[2] must be a string, got 5",
            ),
            (
                json!({"allowlist": "git"}),
                "options.allowlist must be an array of strings",
            ),
            (json!({"cwd": 3}), "options.cwd must be a string, got 3"),
            (
                json!({"cwd": "rel"}),
                "options.cwd must be an absolute path",
            ),
            (
                json!({"trustedDirs": ["bin"]}),
                "options.trustedDirs[0] must be an absolute path",
            ),
            (
                json!({"env": {"PATH": 1}}),
                "options.env.PATH must be a string, got 1",
            ),
            (json!({"env": []}), "options.env must be an object"),
            (
                json!({"allowList": ["git"]}),
                "analyzeCommand: options has unknown key \"allowList\" (expected one of: cwd, allowlist, \
                 safeBins, trustedDirs, env); did you mean \"allowlist\"?",
            ),
            (json!([1]), "options must be an object"),
        ];
        for (value, want) in cases {
            let err = AnalyzeOptions::from_json(&value).unwrap_err();
            assert_eq!(err.code, ErrorCode::ValidationError);
            assert!(err.message.contains(want), "{value}: {}", err.message);
        }
    }
}
