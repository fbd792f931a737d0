//! What a tool declares about the policy its calls pass: `ownerOnly`, `workspaceOnly` with its
//! `pathParams`, and `command` (the parameter that makes it exec-like). Checked once, when the
//! tool is registered.

use std::collections::HashSet;

use serde_json::Value;

use super::approvals::ApprovalSettings;
use super::paths::{declares, schema_path_params, PathParam, PathParams};
use crate::error::{Error, ErrorCode, Result};

/// A tool's policy flags, checked at registration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolGuards {
    /// Only a sender marked `isOwner` may call the tool; a call with no sender is refused.
    pub owner_only: bool,
    /// With `workspaceOnly`: the parameters whose paths must stay inside the workspace root,
    /// declared in `pathParams` and found through the schema (path-named keys of the
    /// arguments are checked besides, see [`crate::policy::paths`]).
    pub workspace_paths: Option<PathParams>,
    /// The parameter holding the shell command of an exec-like tool.
    pub command_param: Option<String>,
    /// The plugin that registered the tool (set by the registry, never declared).
    pub plugin: Option<String>,
    /// `approval: { security, ask }` over the runtime's settings.
    pub approval: ApprovalSettings,
}

impl ToolGuards {
    /// Checks tool `tool`'s flags against its `parameters` schema: `pathParams` needs
    /// `workspaceOnly` and each must name a (possibly nested, see [`PathParam`]) property the
    /// schema can hold, looked up through `$ref`, `allOf`, `anyOf`, `oneOf` and array items;
    /// `command` must name a parameter the same way.
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
        let not_a_parameter = |option: &str, name: &str| {
            invalid(format!(
                "tool \"{tool}\": {option} names \"{}\", which is not a parameter of the tool",
                super::paths::shown(name)
            ))
        };
        let workspace_only = workspace_only.unwrap_or(false);
        let mut workspace_paths = PathParams::default();
        let mut seen: HashSet<PathParam> = HashSet::new();
        if let Some(paths) = &declared_paths {
            if !workspace_only {
                return Err(invalid(format!(
                    "tool \"{tool}\": pathParams is given but workspaceOnly is not true; \
                     set workspaceOnly: true for the paths to be checked"
                )));
            }
            for (index, text) in paths.iter().enumerate() {
                let parsed = PathParam::parse(text);
                let param = match parsed {
                    Ok(param) if declares(parameters, &param) => param,
                    // A top-level name holding dots, written plainly.
                    _ if declares(parameters, &PathParam::key(text)) => PathParam::key(text),
                    Ok(_) => return Err(not_a_parameter("pathParams", text)),
                    Err(reason) => {
                        return Err(invalid(format!(
                            "tool \"{tool}\": pathParams[{index}] {reason}"
                        )))
                    }
                };
                if seen.insert(param.clone()) {
                    workspace_paths.declared.push(param);
                }
            }
        }
        if let Some(name) = &command {
            if !declares(parameters, &PathParam::key(name)) {
                return Err(not_a_parameter("command", name));
            }
        }
        if workspace_only {
            for param in schema_path_params(parameters) {
                if seen.insert(param.clone()) {
                    workspace_paths.from_schema.push(param);
                }
            }
        }
        Ok(ToolGuards {
            owner_only: owner_only.unwrap_or(false),
            workspace_paths: workspace_only.then_some(workspace_paths),
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

    /// The parameters a `workspaceOnly` tool's guards check, as `list()` shows them.
    fn checked(parameters: &Value, declared: &[&str]) -> Result<Vec<String>> {
        let declared = (!declared.is_empty())
            .then(|| declared.iter().map(ToString::to_string).collect::<Vec<_>>());
        let guards = ToolGuards::declared("t", parameters, None, Some(true), declared, None, None)?;
        Ok(guards.workspace_paths.expect("workspaceOnly").shown())
    }

    #[test]
    fn workspace_paths_are_the_declared_then_the_path_named_parameters() {
        assert_eq!(
            checked(&schema(), &[]).unwrap(),
            ["path", "outPath", "target"]
        );
        assert_eq!(
            checked(&schema(), &["cmd", "path"]).unwrap(),
            ["cmd", "path", "outPath", "target"]
        );
        let off = ToolGuards::declared("t", &schema(), Some(true), None, None, None, None).unwrap();
        assert_eq!(off.workspace_paths, None);
        assert!(off.owner_only);
    }

    #[test]
    fn path_params_can_name_properties_behind_refs_unions_and_arrays() {
        let intersect = json!({
            "allOf": [
                { "$ref": "#/$defs/Base" },
                { "type": "object", "properties": {
                    "jobs": { "type": "array", "items": { "type": "object",
                        "properties": { "location": { "type": "string" } } } } } }
            ],
            "$defs": { "Base": { "type": "object", "properties": {
                "from": { "type": "string" }, "a.b": { "type": "string" },
                ".hidden": { "type": "string" } } } }
        });
        assert_eq!(
            checked(
                &intersect,
                &[
                    "from",
                    "jobs.*.location",
                    "/jobs/*/location",
                    "a.b",
                    ".hidden"
                ]
            )
            .unwrap(),
            ["from", "jobs.*.location", "/a.b", "/.hidden"]
        );
        let union = json!({ "anyOf": [
            { "properties": { "kind": { "const": "x" }, "src": { "type": "string" } } },
            { "properties": { "kind": { "const": "y" }, "out": { "type": "string" } } } ] });
        assert_eq!(checked(&union, &["out"]).unwrap(), ["out", "src"]);
        // No schema: any name may be a parameter.
        let none = json!({ "type": "object", "properties": {} });
        assert_eq!(checked(&none, &["to"]).unwrap(), ["to"]);
        for (parameters, declared, expected) in [
            (
                &intersect,
                "jobs.*.nope",
                "pathParams names \"jobs.*.nope\", which is not",
            ),
            (
                &union,
                "kind.x",
                "pathParams names \"kind.x\", which is not",
            ),
            (
                &intersect,
                "a..b",
                "pathParams[0] \"a..b\" has an empty name",
            ),
        ] {
            let error = checked(parameters, &[declared]).expect_err(declared);
            assert!(error.message.contains(expected), "{}", error.message);
        }
        let command = ToolGuards::declared("t", &union, None, None, None, Some("out".into()), None);
        assert_eq!(command.unwrap().command_param.as_deref(), Some("out"));
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
