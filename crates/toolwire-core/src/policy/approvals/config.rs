//! The `approvals` runtime option and the `approval: { security, ask }` overrides of tools and
//! dispatches.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{Ask, Security};
use crate::error::{Error, Result};
use crate::policy::shell::AnalyzeOptions;
use crate::policy::tools::canonical_tool_name;
use crate::policy::tools::config::{check_keys, describe, object, validation};

/// The default time `onApproval` has to answer.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;

/// A `security` and an `ask`, either possibly unset (then the level below applies).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ApprovalSettings {
    /// What may run.
    pub security: Option<Security>,
    /// When to ask.
    pub ask: Option<Ask>,
}

impl ApprovalSettings {
    /// Parses `{ security?, ask? }` found at `at`.
    pub fn from_json(value: &Value, at: &str) -> Result<ApprovalSettings> {
        if value.is_null() {
            return Ok(ApprovalSettings::default());
        }
        let map = object(value, at)?;
        check_keys(map, at, &["security", "ask"])?;
        settings(map, at)
    }

    /// These settings over `base`: the fields given here win.
    pub fn over(self, base: ApprovalSettings) -> ApprovalSettings {
        ApprovalSettings {
            security: self.security.or(base.security),
            ask: self.ask.or(base.ask),
        }
    }
}

/// The runtime's `approvals` option.
#[derive(Clone, Debug, PartialEq)]
pub struct ApprovalsConfig {
    /// The runtime's settings (both set).
    pub settings: ApprovalSettings,
    /// What applies when `onApproval` does not answer in time.
    pub ask_fallback: Security,
    /// How long `onApproval` may take.
    pub timeout_ms: u64,
    /// Where `allow-always` grants are kept.
    pub file: Option<PathBuf>,
    /// Canonical names of tools that are hits under `allowlist`.
    pub allow_tools: Vec<String>,
    /// Whether the runtime has an `onApproval` callback (else calls wait in deferred mode).
    pub has_callback: bool,
    /// How the commands of exec-like tools are analyzed.
    pub analyze: AnalyzeOptions,
}

impl Default for ApprovalsConfig {
    /// No `approvals` option: everything runs, nothing is asked.
    fn default() -> Self {
        ApprovalsConfig {
            settings: ApprovalSettings {
                security: Some(Security::Full),
                ask: Some(Ask::Off),
            },
            ask_fallback: Security::Deny,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            file: None,
            allow_tools: Vec::new(),
            has_callback: false,
            analyze: AnalyzeOptions::default(),
        }
    }
}

const KEYS: &[&str] = &[
    "security",
    "ask",
    "askFallback",
    "timeoutMs",
    "file",
    "allowTools",
    "hasCallback",
    "allowlist",
    "safeBins",
    "trustedDirs",
    "env",
];

impl ApprovalsConfig {
    /// Parses the `approvals` option found at `at` (`null`: the default, nothing asked). Given,
    /// its defaults are security `allowlist`, ask `on-miss`, askFallback `deny`, timeoutMs
    /// 120000. JavaScript passes `hasCallback` in place of the `onApproval` function.
    pub fn from_json(value: &Value, at: &str) -> Result<ApprovalsConfig> {
        if value.is_null() {
            return Ok(ApprovalsConfig::default());
        }
        let map = object(value, at)?;
        check_keys(map, at, KEYS)?;
        let given = settings(map, at)?;
        let ask_fallback = match map.get("askFallback") {
            None | Some(Value::Null) => Security::Deny,
            Some(value) => security(value, &format!("{at}.askFallback"))?,
        };
        let timeout_ms = match map.get("timeoutMs") {
            None | Some(Value::Null) => DEFAULT_TIMEOUT_MS,
            Some(value) => value
                .as_f64()
                .filter(|ms| ms.is_finite() && *ms > 0.0 && *ms <= 9.0e15)
                .map(|ms| ms.ceil() as u64)
                .ok_or_else(|| {
                    validation(format!(
                        "{at}.timeoutMs must be a positive number of milliseconds, got {}",
                        describe(value)
                    ))
                })?,
        };
        let file = match map.get("file") {
            None | Some(Value::Null) => None,
            Some(Value::String(path)) if !path.is_empty() && !path.contains('\0') => {
                Some(PathBuf::from(path))
            }
            Some(other) => {
                return Err(validation(format!(
                    "{at}.file must be a non-empty path string, got {}",
                    describe(other)
                )))
            }
        };
        let allow_tools = match map.get("allowTools") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::String(name) => Ok(canonical_tool_name(name)),
                    other => Err(validation(format!(
                        "{at}.allowTools[{i}] must be a string, got {}",
                        describe(other)
                    ))),
                })
                .collect::<Result<_>>()?,
            Some(other) => {
                return Err(validation(format!(
                    "{at}.allowTools must be an array of tool names, got {}",
                    describe(other)
                )))
            }
        };
        let has_callback = matches!(map.get("hasCallback"), Some(Value::Bool(true)));
        let analysis_keys: Map<String, Value> = ["allowlist", "safeBins", "trustedDirs", "env"]
            .iter()
            .filter_map(|key| map.get(*key).map(|value| (key.to_string(), value.clone())))
            .collect();
        let analyze =
            AnalyzeOptions::from_json(&Value::Object(analysis_keys)).map_err(|e| Error {
                message: e
                    .message
                    .replacen("analyzeCommand: options.", &format!("{at}."), 1),
                ..e
            })?;
        Ok(ApprovalsConfig {
            settings: ApprovalSettings {
                security: Some(given.security.unwrap_or(Security::Allowlist)),
                ask: Some(given.ask.unwrap_or(Ask::OnMiss)),
            },
            ask_fallback,
            timeout_ms,
            file,
            allow_tools,
            has_callback,
            analyze,
        })
    }
}

fn settings(map: &Map<String, Value>, at: &str) -> Result<ApprovalSettings> {
    let security = match map.get("security") {
        None | Some(Value::Null) => None,
        Some(value) => Some(security(value, &format!("{at}.security"))?),
    };
    let ask = match map.get("ask") {
        None | Some(Value::Null) => None,
        Some(value) => Some(match value.as_str() {
            Some("off") => Ask::Off,
            Some("on-miss") => Ask::OnMiss,
            Some("always") => Ask::Always,
            _ => {
                return Err(validation(format!(
                    "{at}.ask must be \"off\", \"on-miss\" or \"always\", got {}",
                    describe(value)
                )))
            }
        }),
    };
    Ok(ApprovalSettings { security, ask })
}

fn security(value: &Value, at: &str) -> Result<Security> {
    match value.as_str() {
        Some("deny") => Ok(Security::Deny),
        Some("allowlist") => Ok(Security::Allowlist),
        Some("full") => Ok(Security::Full),
        _ => Err(validation(format!(
            "{at} must be \"deny\", \"allowlist\" or \"full\", got {}",
            describe(value)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use serde_json::json;

    #[test]
    fn defaults_depend_on_whether_approvals_is_given() {
        let absent = ApprovalsConfig::from_json(&Value::Null, "approvals").unwrap();
        assert_eq!(absent.settings.security, Some(Security::Full));
        assert_eq!(absent.settings.ask, Some(Ask::Off));
        let given = ApprovalsConfig::from_json(&json!({}), "approvals").unwrap();
        assert_eq!(given.settings.security, Some(Security::Allowlist));
        assert_eq!(given.settings.ask, Some(Ask::OnMiss));
        assert_eq!(given.ask_fallback, Security::Deny);
        assert_eq!(given.timeout_ms, DEFAULT_TIMEOUT_MS);
        let full = ApprovalsConfig::from_json(
            &json!({
                "security": "full", "ask": "always", "askFallback": "allowlist",
                "timeoutMs": 1.5, "file": "/tmp/a.json", "allowTools": ["Bash", "read"],
                "hasCallback": true, "allowlist": ["/usr/bin/git"], "env": { "PATH": "/x" }
            }),
            "approvals",
        )
        .unwrap();
        assert_eq!(full.timeout_ms, 2);
        assert_eq!(
            full.allow_tools,
            vec!["exec".to_string(), "read".to_string()]
        );
        assert!(full.has_callback);
        assert_eq!(full.analyze.allowlist, vec!["/usr/bin/git".to_string()]);
        assert_eq!(full.analyze.path.as_deref(), Some("/x"));
        assert_eq!(full.file, Some(PathBuf::from("/tmp/a.json")));
    }

    #[test]
    fn bad_values_are_named() {
        let rows = [
            (json!(3), "approvals must be an object, got 3"),
            (
                json!({ "ask": "sometimes" }),
                "approvals.ask must be \"off\", \"on-miss\" or \"always\", got \"sometimes\"",
            ),
            (
                json!({ "security": 1 }),
                "approvals.security must be \"deny\", \"allowlist\" or \"full\", got 1",
            ),
            (
                json!({ "askFallback": "maybe" }),
                "approvals.askFallback must be \"deny\", \"allowlist\" or \"full\", got \"maybe\"",
            ),
            (
                json!({ "timeoutMs": 0 }),
                "approvals.timeoutMs must be a positive number of milliseconds, got 0",
            ),
            (
                json!({ "file": "" }),
                "approvals.file must be a non-empty path string, got \"\"",
            ),
            (
                json!({ "allowTools": ["a", 2] }),
                "approvals.allowTools[1] must be a string, got 2",
            ),
            (
                json!({ "allowTools": "a" }),
                "approvals.allowTools must be an array of tool names, got \"a\"",
            ),
            (
                json!({ "safeBins": [5] }),
                "approvals.safeBins[0] must be a string, got 5",
            ),
            (
                json!({ "onApproval": 1 }),
                "approvals has unknown key \"onApproval\"",
            ),
        ];
        for (value, expected) in rows {
            let error = ApprovalsConfig::from_json(&value, "approvals").expect_err(expected);
            assert_eq!(error.code, ErrorCode::ValidationError);
            assert!(error.message.starts_with(expected), "{}", error.message);
        }
        let error = ApprovalSettings::from_json(&json!({ "asks": "off" }), "tool \"t\": approval")
            .unwrap_err();
        assert!(error
            .message
            .starts_with("tool \"t\": approval has unknown key \"asks\""));
    }

    #[test]
    fn overrides_win_field_by_field() {
        let base = ApprovalSettings {
            security: Some(Security::Allowlist),
            ask: Some(Ask::OnMiss),
        };
        let tool = ApprovalSettings::from_json(&json!({ "ask": "always" }), "a").unwrap();
        let merged = tool.over(base);
        assert_eq!(merged.security, Some(Security::Allowlist));
        assert_eq!(merged.ask, Some(Ask::Always));
    }
}
