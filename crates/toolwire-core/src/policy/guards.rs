//! What a tool declares about the policy its calls pass: `ownerOnly`, `workspaceOnly` with its
//! `pathParams`, and `command` (the parameter that makes it exec-like). Checked once, when the
//! tool is registered.

use serde_json::Value;

use super::approvals::ApprovalSettings;
use super::paths::path_params;
use crate::error::{Error, ErrorCode, Result};

/// A tool's policy flags, checked at registration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolGuards {
    /// Only a sender marked `isOwner` may call the tool; a call with no sender is refused.
    pub owner_only: bool,
    /// With `workspaceOnly`: the parameters whose paths must stay inside the workspace root.
    pub workspace_paths: Option<Vec<String>>,
    /// The parameter holding the shell command of an exec-like tool.
    pub command_param: Option<String>,
    /// The plugin that registered the tool (set by the registry, never declared).
    pub plugin: Option<String>,
    /// `approval: { security, ask }` over the runtime's settings.
    pub approval: ApprovalSettings,
}

impl ToolGuards {
    /// Checks tool `tool`'s flags against its `parameters` schema: `pathParams` needs
    /// `workspaceOnly` and must name parameters the schema declares (when it declares any);
    /// `command` must name a declared parameter.
    pub fn declared(
        tool: &str,
        parameters: &Value,
        owner_only: Option<bool>,
        workspace_only: Option<bool>,
        declared_paths: Option<Vec<String>>,
        command: Option<String>,
        approval: Option<&Value>,
    ) -> Result<ToolGuards> {
        let invalid = |message: String| Error::caller(ErrorCode::ValidationError, message);
        let properties = parameters.get("properties").and_then(Value::as_object);
        let declares = |name: &str| properties.is_some_and(|p| p.contains_key(name));
        let workspace_only = workspace_only.unwrap_or(false);
        if let Some(paths) = &declared_paths {
            if !workspace_only {
                return Err(invalid(format!(
                    "tool \"{tool}\": pathParams is given but workspaceOnly is not true; \
                     set workspaceOnly: true for the paths to be checked"
                )));
            }
            if let Some(unknown) = paths.iter().find(|name| !declares(name)) {
                return Err(invalid(format!(
                    "tool \"{tool}\": pathParams names \"{unknown}\", which is not a parameter \
                     of the tool"
                )));
            }
        }
        if let Some(name) = &command {
            if !declares(name) {
                return Err(invalid(format!(
                    "tool \"{tool}\": command names \"{name}\", which is not a parameter of the \
                     tool"
                )));
            }
        }
        Ok(ToolGuards {
            owner_only: owner_only.unwrap_or(false),
            workspace_paths: workspace_only
                .then(|| path_params(parameters, declared_paths.as_deref())),
            command_param: command,
            plugin: None,
            approval: match approval {
                None => ApprovalSettings::default(),
                Some(value) => {
                    ApprovalSettings::from_json(value, &format!("tool \"{tool}\": approval"))?
                }
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "outPath": { "type": "string" },
                "target": { "type": "string" },
                "cmd": { "type": "string" },
                "count": { "type": "integer" }
            }
        })
    }

    #[test]
    fn workspace_paths_default_to_the_path_named_parameters() {
        let guards =
            ToolGuards::declared("t", &schema(), None, Some(true), None, None, None).unwrap();
        assert_eq!(
            guards.workspace_paths,
            Some(vec!["path".to_string(), "outPath".to_string()])
        );
        let declared = Some(vec!["target".to_string()]);
        let guards =
            ToolGuards::declared("t", &schema(), None, Some(true), declared, None, None).unwrap();
        assert_eq!(guards.workspace_paths, Some(vec!["target".to_string()]));
        let off = ToolGuards::declared("t", &schema(), Some(true), None, None, None, None).unwrap();
        assert_eq!(off.workspace_paths, None);
        assert!(off.owner_only);
    }

    #[test]
    fn flags_that_name_missing_parameters_are_refused() {
        // (workspaceOnly, pathParams, command, the error's start)
        type Row = (
            Option<bool>,
            Option<Vec<String>>,
            Option<String>,
            &'static str,
        );
        let rows: Vec<Row> = vec![
            (
                Some(true),
                Some(vec!["nope".into()]),
                None,
                "tool \"t\": pathParams names \"nope\", which is not a parameter of the tool",
            ),
            (
                None,
                Some(vec!["path".into()]),
                None,
                "tool \"t\": pathParams is given but workspaceOnly is not true",
            ),
            (
                None,
                None,
                Some("command".into()),
                "tool \"t\": command names \"command\", which is not a parameter of the tool",
            ),
        ];
        for (workspace_only, paths, command, expected) in rows {
            let error =
                ToolGuards::declared("t", &schema(), None, workspace_only, paths, command, None)
                    .expect_err(expected);
            assert_eq!(error.code, ErrorCode::ValidationError);
            assert!(error.message.starts_with(expected), "{}", error.message);
        }
        let ok = ToolGuards::declared("t", &schema(), None, None, None, Some("cmd".into()), None);
        assert_eq!(ok.unwrap().command_param.as_deref(), Some("cmd"));
    }
}
