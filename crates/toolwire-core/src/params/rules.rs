//! Parsing a tool's normalization rules from its declaration, once, at registration.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::names::{closest_property, properties};
use super::{ParamRules, RequiredGroup};
use crate::error::{Error, ErrorCode, Result};
use crate::json_text::json_string;
use crate::json_text::json_type;
use crate::quote::quote_arguments;

/// The shape of `requiredGroups`, quoted in its errors.
const GROUPS_SHAPE: &str =
    "a name, or an array of one or more names optionally ending in {\"allowEmpty\": bool}";

/// Parses the declaration fields: `aliases` (JSON object of string->string, or absent),
/// `requiredGroups` (JSON array, or absent), `coerce` (bool or absent -> the runtime default
/// given). Each bad value is `Error::caller(VALIDATION_ERROR)` naming the tool, the field and
/// the value; an alias whose target is not a property of the schema's root `properties` is an
/// error too (when the schema has `properties`), and so is an alias from a name that is itself
/// such a property, an alias from == to, or two aliases with the same `from`. A JSON `null`
/// counts as absent.
pub fn parse_rules(
    tool: &str,
    schema: &Value,
    aliases: Option<&Value>,
    required_groups: Option<&Value>,
    coerce: Option<bool>,
    default_coerce: bool,
) -> Result<ParamRules> {
    let declared = properties(schema, schema);
    Ok(ParamRules {
        aliases: parse_aliases(tool, declared, aliases)?,
        required_groups: parse_required_groups(tool, required_groups)?,
        coerce: coerce.unwrap_or(default_coerce),
    })
}

fn invalid(tool: &str, message: String) -> Error {
    Error::caller(
        ErrorCode::ValidationError,
        format!("tool \"{tool}\": {message}"),
    )
}

/// `a string: "x"`, `an array: [1,2]`: the type and the value, capped.
fn described(value: &Value) -> String {
    format!("{}: {}", json_type(value), quote_arguments(value))
}

fn parse_aliases(
    tool: &str,
    declared: Option<&Map<String, Value>>,
    aliases: Option<&Value>,
) -> Result<Vec<(String, String)>> {
    let entries = match aliases {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(entries)) => entries,
        Some(other) => {
            return Err(invalid(
                tool,
                format!(
                    "aliases must be a JSON object of {{\"alias\": \"property\"}}, got {}",
                    described(other)
                ),
            ))
        }
    };
    let mut parsed = Vec::with_capacity(entries.len());
    let mut seen = HashSet::with_capacity(entries.len());
    for (from, to) in entries {
        let Value::String(to) = to else {
            return Err(invalid(
                tool,
                format!(
                    "aliases[{}] must be the name of a property (a string), got {}",
                    json_string(from),
                    described(to)
                ),
            ));
        };
        push_alias(tool, declared, &mut seen, &mut parsed, from, to)?;
    }
    Ok(parsed)
}

/// Checks one alias against the schema and the aliases before it, then adds it.
fn push_alias<'a>(
    tool: &str,
    declared: Option<&Map<String, Value>>,
    seen: &mut HashSet<&'a str>,
    parsed: &mut Vec<(String, String)>,
    from: &'a str,
    to: &str,
) -> Result<()> {
    let at = format!("aliases[{}]", json_string(from));
    if from == to {
        return Err(invalid(
            tool,
            format!("{at} maps {} to itself", json_string(from)),
        ));
    }
    if !seen.insert(from) {
        return Err(invalid(
            tool,
            format!("{at}: {} has more than one alias", json_string(from)),
        ));
    }
    if let Some(declared) = declared {
        if !declared.contains_key(to) {
            let hint = closest_property(to, declared.keys().map(String::as_str))
                .map(|near| format!(" Did you mean {}?", json_string(near)))
                .unwrap_or_default();
            return Err(invalid(
                tool,
                format!(
                    "{at} points to {}, which is not a property of the parameters schema.{hint}",
                    json_string(to)
                ),
            ));
        }
        if declared.contains_key(from) {
            return Err(invalid(
                tool,
                format!(
                    "{at}: {} is itself a property of the parameters schema; an alias from it \
                     would rename a valid argument",
                    json_string(from)
                ),
            ));
        }
    }
    parsed.push((from.to_owned(), to.to_owned()));
    Ok(())
}

fn parse_required_groups(tool: &str, groups: Option<&Value>) -> Result<Vec<RequiredGroup>> {
    let elements = match groups {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(elements)) => elements,
        Some(other) => {
            return Err(invalid(
                tool,
                format!(
                "requiredGroups must be an array whose elements are each {GROUPS_SHAPE}; got {}",
                described(other)
            ),
            ))
        }
    };
    elements
        .iter()
        .enumerate()
        .map(|(index, element)| parse_group(tool, index, element))
        .collect()
}

/// One element of `requiredGroups`: a name, or names optionally ending in an options object.
fn parse_group(tool: &str, index: usize, element: &Value) -> Result<RequiredGroup> {
    let at = format!("requiredGroups[{index}]");
    let items = match element {
        Value::String(_) => std::slice::from_ref(element),
        Value::Array(items) => items.as_slice(),
        other => {
            return Err(invalid(
                tool,
                format!("{at} must be {GROUPS_SHAPE}; got {}", described(other)),
            ))
        }
    };
    let (names, allow_empty) = match items.split_last() {
        Some((Value::Object(options), names)) => (names, parse_options(tool, &at, options)?),
        _ => (items, false),
    };
    if names.is_empty() {
        return Err(invalid(
            tool,
            format!(
                "{at} names no property; a group needs at least one name, got {}",
                quote_arguments(element)
            ),
        ));
    }
    let names = names
        .iter()
        .enumerate()
        .map(|(position, name)| match name {
            Value::String(name) if !name.is_empty() => Ok(name.clone()),
            other => {
                let at = match element {
                    Value::Array(_) => format!("{at}[{position}]"),
                    _ => at.clone(),
                };
                let why = if other.is_object() {
                    "only the last element of a group may be an options object"
                } else {
                    "a name must be a non-empty string"
                };
                Err(invalid(
                    tool,
                    format!("{at}: {why}; got {}", described(other)),
                ))
            }
        })
        .collect::<Result<Vec<String>>>()?;
    Ok(RequiredGroup { names, allow_empty })
}

/// The options object ending a group: `{allowEmpty?: bool}`.
fn parse_options(tool: &str, at: &str, options: &Map<String, Value>) -> Result<bool> {
    let mut allow_empty = false;
    for (key, value) in options {
        match (key.as_str(), value) {
            ("allowEmpty", Value::Bool(flag)) => allow_empty = *flag,
            ("allowEmpty", other) => {
                return Err(invalid(
                    tool,
                    format!(
                        "{at}.allowEmpty must be a boolean, got {}",
                        described(other)
                    ),
                ))
            }
            (unknown, _) => {
                return Err(invalid(
                    tool,
                    format!(
                        "{at}: option {} is unknown; the only option is \"allowEmpty\"",
                        json_string(unknown)
                    ),
                ))
            }
        }
    }
    Ok(allow_empty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {"path": {"type": "string"}, "newText": {}}})
    }

    fn group(names: &[&str], allow_empty: bool) -> RequiredGroup {
        RequiredGroup {
            names: names.iter().map(|n| n.to_string()).collect(),
            allow_empty,
        }
    }

    #[test]
    fn declarations_parse_into_rules() {
        let rules = parse_rules(
            "edit",
            &schema(),
            Some(&json!({"file_path": "path", "text": "newText"})),
            Some(&json!([["path", "file_path"], ["newText", {"allowEmpty": true}], "query", ["a", {}]])),
            None,
            true,
        )
        .unwrap();
        assert_eq!(
            rules,
            ParamRules {
                aliases: vec![
                    ("file_path".into(), "path".into()),
                    ("text".into(), "newText".into())
                ],
                required_groups: vec![
                    group(&["path", "file_path"], false),
                    group(&["newText"], true),
                    group(&["query"], false),
                    group(&["a"], false),
                ],
                coerce: true,
            }
        );
    }

    #[test]
    fn absent_fields_and_coerce_defaults() {
        for (aliases, groups, coerce, default, expected) in [
            (None, None, None, false, false),
            (Some(json!(null)), Some(json!(null)), None, true, true),
            (None, None, Some(false), true, false),
            (None, None, Some(true), false, true),
        ] {
            let rules = parse_rules(
                "t",
                &schema(),
                aliases.as_ref(),
                groups.as_ref(),
                coerce,
                default,
            )
            .unwrap();
            assert_eq!(
                rules,
                ParamRules {
                    coerce: expected,
                    ..ParamRules::default()
                }
            );
        }
    }

    #[test]
    fn aliases_without_declared_properties_are_not_checked_against_them() {
        let rules = parse_rules(
            "t",
            &json!({"type": "object"}),
            Some(&json!({"file_path": "path"})),
            None,
            None,
            false,
        )
        .unwrap();
        assert_eq!(rules.aliases, vec![("file_path".into(), "path".into())]);
    }

    #[test]
    fn bad_declarations_name_the_tool_the_field_and_the_value() {
        // (aliases, requiredGroups, text the message must hold)
        let cases = [
            (json!(["path"]), json!(null), "aliases must be a JSON object"),
            (json!({"file_path": 3}), json!(null), "aliases[\"file_path\"] must be the name of a property (a string), got a number: 3"),
            (json!({"file_path": "pth"}), json!(null), "aliases[\"file_path\"] points to \"pth\", which is not a property of the parameters schema. Did you mean \"path\"?"),
            (json!({"file_path": "zzzzzz"}), json!(null), "points to \"zzzzzz\", which is not a property of the parameters schema."),
            (json!({"path": "path"}), json!(null), "aliases[\"path\"] maps \"path\" to itself"),
            (json!({"newText": "path"}), json!(null), "\"newText\" is itself a property"),
            (json!(null), json!({"path": 1}), "requiredGroups must be an array"),
            (json!(null), json!([3]), "requiredGroups[0] must be a name, or an array"),
            (json!(null), json!(["path", []]), "requiredGroups[1] names no property"),
            (json!(null), json!([[{"allowEmpty": true}]]), "requiredGroups[0] names no property"),
            (json!(null), json!([""]), "requiredGroups[0]: a name must be a non-empty string; got a string: \"\""),
            (json!(null), json!([["a", 2]]), "requiredGroups[0][1]: a name must be a non-empty string; got a number: 2"),
            (json!(null), json!([["a", {}, "b"]]), "requiredGroups[0][1]: only the last element of a group may be an options object"),
            (json!(null), json!([["a", {"allowBlank": true}]]), "requiredGroups[0]: option \"allowBlank\" is unknown"),
            (json!(null), json!([["a", {"allowEmpty": "yes"}]]), "requiredGroups[0].allowEmpty must be a boolean, got a string: \"yes\""),
        ];
        for (aliases, groups, expected) in cases {
            let error = parse_rules(
                "edit",
                &schema(),
                Some(&aliases),
                Some(&groups),
                None,
                false,
            )
            .unwrap_err();
            assert_eq!(error.code, ErrorCode::ValidationError);
            assert!(!error.becomes_result());
            assert!(
                error.message.starts_with("tool \"edit\": "),
                "{}",
                error.message
            );
            assert!(error.message.contains(expected), "{}", error.message);
        }
    }

    #[test]
    fn an_alias_source_declared_twice_is_refused() {
        let mut seen = HashSet::new();
        let mut parsed = Vec::new();
        push_alias("edit", None, &mut seen, &mut parsed, "file_path", "path").unwrap();
        let error =
            push_alias("edit", None, &mut seen, &mut parsed, "file_path", "newText").unwrap_err();
        assert!(
            error
                .message
                .contains("aliases[\"file_path\"]: \"file_path\" has more than one alias"),
            "{}",
            error.message
        );
        assert_eq!(parsed, vec![("file_path".into(), "path".into())]);
    }
}
