//! The runtime's gate: the policy a call passes before it runs. The tool policy's layers and
//! `ownerOnly` decide whether a tool may be called at all (and whether `definitions()` shows
//! it); `workspaceOnly` checks the final arguments' paths. Loop detection and approvals keep
//! state per run and per call, so the dispatcher holds those.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::envelope::ToolError;
use crate::error::{Error, ErrorCode, Result};
use crate::json_text::json_type;
use crate::policy::approvals::ApprovalsConfig;
use crate::policy::loops::LoopOptions;
use crate::policy::paths::check_workspace_paths;
use crate::policy::tools::{
    canonical_tool_name, Decision, PolicyConfig, PolicyContext, ToolPolicy,
};
use crate::registry::{Registry, ToolDeclaration, ToolSpec};

/// The layer named when `ownerOnly` refuses a call.
pub const OWNER_ONLY_LAYER: &str = "ownerOnly";

/// The policy settings of one runtime, compiled once. The default has no policy, no workspace
/// root and loop detection on with its default thresholds.
#[derive(Debug)]
pub struct PolicyGate {
    /// `None` when the runtime has no `policy` option: every tool is allowed.
    tools: Option<ToolPolicy>,
    workspace_root: Option<PathBuf>,
    loops: Option<LoopOptions>,
    approvals: ApprovalsConfig,
}

impl Default for PolicyGate {
    fn default() -> Self {
        PolicyGate {
            tools: None,
            workspace_root: None,
            loops: Some(LoopOptions::default()),
            approvals: ApprovalsConfig::default(),
        }
    }
}

impl PolicyGate {
    /// Parses the runtime options `policy`, `workspaceRoot`, `loopDetection` and `approvals`
    /// (each `null` when absent). Loop detection is on by default; `loopDetection: false` turns
    /// it off. Without `approvals` nothing is ever asked.
    pub fn from_options(
        policy: &Value,
        workspace_root: &Value,
        loop_detection: &Value,
        approvals: &Value,
    ) -> Result<PolicyGate> {
        let tools = match policy {
            Value::Null => None,
            value => Some(ToolPolicy::new(PolicyConfig::from_json(value, "policy")?)),
        };
        let workspace_root = match workspace_root {
            Value::Null => None,
            Value::String(root) if !root.is_empty() && !root.contains('\0') => {
                Some(PathBuf::from(root))
            }
            other => {
                return Err(Error::caller(
                    ErrorCode::ValidationError,
                    format!(
                        "runtime option workspaceRoot must be a non-empty path string, got {}",
                        shown(other)
                    ),
                ))
            }
        };
        let loops = LoopOptions::from_json(loop_detection, "loopDetection")?;
        let approvals = ApprovalsConfig::from_json(approvals, "approvals")?;
        Ok(PolicyGate {
            tools,
            workspace_root,
            loops,
            approvals,
        })
    }

    /// The loop detection thresholds (`None`: off).
    pub fn loop_options(&self) -> Option<LoopOptions> {
        self.loops
    }

    /// The approvals settings.
    pub fn approvals(&self) -> &ApprovalsConfig {
        &self.approvals
    }

    /// The workspace root, when configured.
    pub fn workspace_root(&self) -> Option<&PathBuf> {
        self.workspace_root.as_ref()
    }

    /// Refuses registering a `workspaceOnly` tool when there is no workspace root to check
    /// its paths against.
    pub fn check_declaration(&self, declaration: &ToolDeclaration) -> Result<()> {
        if declaration.workspace_only == Some(true) && self.workspace_root.is_none() {
            return Err(Error::caller(
                ErrorCode::ValidationError,
                format!(
                    "tool \"{}\" is workspaceOnly, but the runtime has no workspaceRoot to keep \
                     its paths in; pass new ToolRuntime({{ workspaceRoot }})",
                    declaration.name
                ),
            ));
        }
        Ok(())
    }

    /// Whether `tool` may be called in `ctx`, with the layer and rule that decided: the tool
    /// policy's layers, then the `ownerOnly` flag of the registered tools the name stands for
    /// ([`registered_as`]: `ADMIN` or an alias is judged as the tool it names).
    pub fn explain(&self, tool: &str, ctx: &PolicyContext, registry: &Registry) -> Decision {
        let is_plugin_tool = |name: &str| {
            registered_as(registry, name)
                .iter()
                .any(|spec| spec.guards.plugin.is_some())
        };
        let decision = match &self.tools {
            Some(policy) => policy.decide(tool, ctx, &is_plugin_tool),
            None => Decision {
                allowed: true,
                layer: None,
                rule: None,
            },
        };
        if !decision.allowed {
            return decision;
        }
        let owner_only = registered_as(registry, tool)
            .iter()
            .any(|spec| spec.guards.owner_only);
        let is_owner = ctx.sender.as_ref().is_some_and(|sender| sender.is_owner);
        if owner_only && !is_owner {
            let rule = if ctx.sender.is_none() {
                "ownerOnly: the call has no sender"
            } else {
                "ownerOnly: the sender is not the owner"
            };
            return Decision {
                allowed: false,
                layer: Some(OWNER_ONLY_LAYER),
                rule: Some(rule.to_string()),
            };
        }
        decision
    }

    /// Refuses a call of `spec` the context may not make, as the `POLICY_DENIED` error its
    /// result carries (`details`: the layer and rule).
    pub fn admit(
        &self,
        spec: &ToolSpec,
        ctx: &PolicyContext,
        registry: &Registry,
    ) -> std::result::Result<(), ToolError> {
        if self.tools.is_none() && !spec.guards.owner_only {
            return Ok(());
        }
        let decision = self.explain(&spec.name, ctx, registry);
        if decision.allowed {
            return Ok(());
        }
        let layer = decision.layer.unwrap_or("policy");
        let rule = decision.rule.as_deref().unwrap_or("not allowed");
        let mut error = ToolError::new(
            ErrorCode::PolicyDenied,
            format!(
                "Tool \"{}\" is not allowed here ({layer} policy, {rule}), so the call was not \
                 run. Do not call it again; use another tool or ask the user.",
                spec.name
            ),
        );
        error.details = Some(json!({ "layer": layer, "rule": rule }));
        Err(error)
    }

    /// Refuses `args` of a `workspaceOnly` tool whose paths leave the workspace (`details`: the
    /// layer, the parameter as a name and as a JSON pointer, the value cut short, the reason).
    pub fn check_paths<'a>(
        &self,
        spec: &ToolSpec,
        args: impl FnOnce() -> &'a Value,
    ) -> std::result::Result<(), ToolError> {
        let (Some(params), Some(root)) = (&spec.guards.workspace_paths, &self.workspace_root)
        else {
            return Ok(());
        };
        check_workspace_paths(root, args(), params).map_err(|violation| {
            let mut error = ToolError::new(
                ErrorCode::PolicyDenied,
                format!(
                    "Tool \"{}\" may only use paths inside the workspace: {violation}. The call \
                     was not run; use a path inside {}.",
                    spec.name, violation.root
                ),
            );
            error.details = Some(json!({
                "layer": "workspaceOnly",
                "param": violation.param,
                "pointer": violation.pointer,
                "value": violation.value,
                "reason": violation.reason,
            }));
            error
        })
    }
}

/// The registered tools the name `tool` stands for, as the policy reads names: the tool
/// registered under exactly that name, else every tool whose name is the same once
/// case-insensitive and with aliases resolved (`ADMIN` is `admin`, `bash` is `exec`).
fn registered_as<'r>(registry: &'r Registry, tool: &str) -> Vec<&'r ToolSpec> {
    if let Some(spec) = registry.get(tool) {
        return vec![spec.as_ref()];
    }
    let canonical = canonical_tool_name(tool);
    registry
        .iter()
        .filter(|spec| canonical_tool_name(&spec.name) == canonical)
        .map(|spec| spec.as_ref())
        .collect()
}

/// A refused option value as the error shows it.
fn shown(value: &Value) -> String {
    match value {
        Value::String(text) if text.is_empty() => "an empty string".to_string(),
        Value::String(_) => "a path with a NUL byte".to_string(),
        other => json_type(other).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::ToolDeclaration;

    fn declaration(tool: &Value) -> ToolDeclaration {
        serde_json::from_value(tool.clone()).unwrap()
    }

    fn registry(tools: &[Value]) -> Registry {
        let mut registry = Registry::new();
        for tool in tools {
            registry.register(declaration(tool)).unwrap();
        }
        registry
    }

    fn context(value: Value) -> PolicyContext {
        PolicyContext::from_json(&value).unwrap()
    }

    #[test]
    fn no_policy_allows_everything_but_owner_only_still_needs_the_owner() {
        let gate = PolicyGate::default();
        let registry = registry(&[
            json!({ "name": "read" }),
            json!({ "name": "admin", "ownerOnly": true }),
        ]);
        let read = registry.get("read").unwrap();
        let admin = registry.get("admin").unwrap();
        assert!(gate.admit(read, &context(json!({})), &registry).is_ok());
        let rows = [
            (json!({}), Some("ownerOnly: the call has no sender")),
            (
                json!({ "sender": { "id": "u1" } }),
                Some("ownerOnly: the sender is not the owner"),
            ),
            (json!({ "sender": { "id": "u1", "isOwner": true } }), None),
        ];
        for (ctx, refused) in rows {
            let answer = gate.admit(admin, &context(ctx.clone()), &registry);
            match refused {
                None => assert!(answer.is_ok(), "{ctx}"),
                Some(rule) => {
                    let error = answer.expect_err("refused");
                    assert_eq!(error.code, ErrorCode::PolicyDenied);
                    assert_eq!(error.retryable, Some(false));
                    assert_eq!(
                        error.details,
                        Some(json!({ "layer": "ownerOnly", "rule": rule }))
                    );
                    assert!(error
                        .message
                        .starts_with("Tool \"admin\" is not allowed here"));
                }
            }
        }
    }

    #[test]
    fn layers_decide_and_plugin_tools_form_group_plugins() {
        let gate = PolicyGate::from_options(
            &json!({ "deny": ["group:runtime", "group:plugins"] }),
            &Value::Null,
            &Value::Null,
            &Value::Null,
        )
        .unwrap();
        let mut registry = registry(&[json!({ "name": "exec" }), json!({ "name": "read" })]);
        let plugin_tool: ToolDeclaration =
            serde_json::from_value(json!({ "name": "browse" })).unwrap();
        registry
            .register_plugin("web-kit", vec![plugin_tool])
            .unwrap();
        let ctx = context(json!({}));
        let explain = |tool: &str| gate.explain(tool, &ctx, &registry);
        assert!(explain("read").allowed);
        let exec = explain("exec");
        assert_eq!(
            (exec.allowed, exec.layer, exec.rule.as_deref()),
            (false, Some("global"), Some("deny: group:runtime"))
        );
        assert!(!explain("bash").allowed, "aliases are the same tool");
        let browse = explain("browse");
        assert_eq!(
            (browse.allowed, browse.rule.as_deref()),
            (false, Some("deny: group:plugins"))
        );
        let error = gate
            .admit(registry.get("exec").unwrap(), &ctx, &registry)
            .expect_err("denied");
        assert_eq!(
            error.details,
            Some(json!({ "layer": "global", "rule": "deny: group:runtime" }))
        );
    }

    #[test]
    fn owner_only_and_plugins_follow_the_name_as_the_policy_reads_it() {
        let gate = PolicyGate::from_options(
            &json!({ "deny": ["group:plugins"] }),
            &Value::Null,
            &Value::Null,
            &Value::Null,
        )
        .unwrap();
        let mut registry = registry(&[
            json!({ "name": "admin", "ownerOnly": true }),
            json!({ "name": "exec", "ownerOnly": true }),
            json!({ "name": "Mixed", "ownerOnly": true }),
            json!({ "name": "mixed" }),
        ]);
        let plugin_tool: ToolDeclaration =
            serde_json::from_value(json!({ "name": "browse" })).unwrap();
        registry.register_plugin("kit", vec![plugin_tool]).unwrap();
        let guest = context(json!({ "sender": { "id": "u2" } }));
        let owner = context(json!({ "sender": { "id": "u1", "isOwner": true } }));
        for name in ["admin", "ADMIN", "Admin", " admin ", "exec", "Bash", "EXEC"] {
            let decision = gate.explain(name, &guest, &registry);
            assert_eq!(
                (decision.allowed, decision.layer),
                (false, Some(OWNER_ONLY_LAYER)),
                "{name}"
            );
            assert!(gate.explain(name, &owner, &registry).allowed, "{name}");
        }
        // An exact registration is the tool a call of that name runs.
        assert!(gate.explain("mixed", &guest, &registry).allowed);
        assert!(!gate.explain("Mixed", &guest, &registry).allowed);
        // Neither spelling registered: any tool of that name being ownerOnly refuses.
        assert!(!gate.explain("MIXED", &guest, &registry).allowed);
        let browse = gate.explain("BROWSE", &owner, &registry);
        assert_eq!(
            (browse.allowed, browse.rule.as_deref()),
            (false, Some("deny: group:plugins"))
        );
        assert!(gate.explain("unknown", &guest, &registry).allowed);
    }

    #[test]
    fn options_are_checked_and_named() {
        let rows = [
            (
                json!(5),
                Value::Null,
                "runtime option workspaceRoot must be a non-empty path string, got a number",
            ),
            (
                json!(""),
                Value::Null,
                "runtime option workspaceRoot must be a non-empty path string, got an empty string",
            ),
            (
                Value::Null,
                json!({ "warnAt": 0 }),
                "loopDetection.warnAt must be",
            ),
        ];
        for (root, loops, expected) in rows {
            let error = PolicyGate::from_options(&Value::Null, &root, &loops, &Value::Null)
                .expect_err(expected);
            assert_eq!(error.code, ErrorCode::ValidationError);
            assert!(error.message.starts_with(expected), "{}", error.message);
        }
        let off = PolicyGate::from_options(&Value::Null, &Value::Null, &json!(false), &Value::Null)
            .unwrap();
        assert_eq!(off.loop_options(), None);
        let on = PolicyGate::default();
        assert_eq!(on.loop_options(), Some(LoopOptions::default()));
        let parsed =
            PolicyGate::from_options(&Value::Null, &Value::Null, &Value::Null, &Value::Null)
                .unwrap();
        assert_eq!(parsed.loop_options(), Some(LoopOptions::default()));
    }

    #[test]
    fn workspace_paths_are_checked_against_the_root() {
        let dir = std::env::temp_dir().join(format!("toolwire-gate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let gate = PolicyGate::from_options(
            &Value::Null,
            &json!(dir.to_str().unwrap()),
            &Value::Null,
            &Value::Null,
        )
        .unwrap();
        let write = json!({
            "name": "write",
            "workspaceOnly": true,
            "parameters": { "type": "object", "properties": { "path": { "type": "string" } } }
        });
        assert!(gate.check_declaration(&declaration(&write)).is_ok());
        let registry = registry(std::slice::from_ref(&write));
        let spec = registry.get("write").unwrap();
        let notes = json!({ "path": "notes/a.txt" });
        let escape = json!({ "path": "../escape.txt" });
        assert!(gate.check_paths(spec, || &notes).is_ok());
        let error = gate.check_paths(spec, || &escape).expect_err("outside");
        assert_eq!(error.code, ErrorCode::PolicyDenied);
        assert_eq!(error.details.as_ref().unwrap()["param"], json!("path"));
        assert_eq!(error.details.as_ref().unwrap()["pointer"], json!("/path"));
        assert!(error.message.contains("\"path\""), "{}", error.message);
        let no_root = PolicyGate::default();
        let refused = no_root
            .check_declaration(&declaration(&write))
            .expect_err("no root");
        assert!(
            refused.message.contains("no workspaceRoot"),
            "{}",
            refused.message
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
