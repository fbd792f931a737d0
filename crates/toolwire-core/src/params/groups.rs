//! Required groups: sets of names of which at least one must carry a value, checked on the root
//! object after renames, with one error listing every group that is not met.

use serde_json::{json, Map, Value};

use super::normalize::type_name;
use super::RequiredGroup;
use crate::error::ErrorCode;
use crate::error::ToolError;
use crate::json_text::push_json_string;
use crate::quote::quoted;
use crate::quote::MAX_QUOTED_ARGS;

/// Why a group is not met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Problem {
    /// None of its names is present.
    Missing,
    /// The first of its present names is null.
    Null,
    /// The first of its present names is a whitespace-only string.
    Blank,
}

impl Problem {
    fn as_str(self) -> &'static str {
        match self {
            Problem::Missing => "missing",
            Problem::Null => "null",
            Problem::Blank => "blank",
        }
    }
}

/// Checks every group against the root object of the arguments.
pub(crate) fn check(
    tool: &str,
    groups: &[RequiredGroup],
    args: &Map<String, Value>,
) -> Result<(), ToolError> {
    let unmet: Vec<(&RequiredGroup, Problem, Option<&str>)> = groups
        .iter()
        .filter_map(|group| {
            let (problem, name) = problem(group, args)?;
            Some((group, problem, name))
        })
        .collect();
    if unmet.is_empty() {
        return Ok(());
    }
    let mut listed = String::new();
    for (group, problem, name) in &unmet {
        listed.push_str("  - ");
        listed.push_str(&describe_group(group));
        listed.push_str(": required but ");
        match (problem, name) {
            (Problem::Missing, _) | (_, None) => listed.push_str("absent"),
            (Problem::Null, Some(name)) => {
                push_json_string(&mut listed, name);
                listed.push_str(" is null");
            }
            (Problem::Blank, Some(name)) => {
                push_json_string(&mut listed, name);
                listed.push_str(" is blank (only whitespace)");
            }
        }
        listed.push('\n');
    }
    let details = unmet
        .iter()
        .map(|(group, problem, _)| json!({"group": group.names, "problem": problem.as_str()}))
        .collect();
    Err(ToolError::new(
        ErrorCode::ValidationError,
        format!(
            "Validation failed for tool \"{tool}\":\n{listed}Received: {}\n\
             Fix the arguments and call the tool again.",
            received(args)
        ),
    )
    .with_details(Value::Array(details)))
}

/// Why `group` is not met, with the name at fault for a null or blank value; `None` when met.
fn problem<'g>(
    group: &'g RequiredGroup,
    args: &Map<String, Value>,
) -> Option<(Problem, Option<&'g str>)> {
    let mut first: Option<(Problem, Option<&str>)> = None;
    for name in &group.names {
        let problem = match args.get(name) {
            None => continue,
            Some(Value::Null) => Problem::Null,
            Some(Value::String(text)) if !group.allow_empty && text.trim().is_empty() => {
                Problem::Blank
            }
            Some(_) => return None,
        };
        first.get_or_insert((problem, Some(name)));
    }
    Some(first.unwrap_or((Problem::Missing, None)))
}

/// `path (or file_path)`, `a (or b or c)`, `query`.
fn describe_group(group: &RequiredGroup) -> String {
    match group.names.split_first() {
        None => String::new(),
        Some((first, [])) => first.clone(),
        Some((first, rest)) => format!("{first} (or {})", rest.join(" or ")),
    }
}

/// The keys of the arguments with their JSON types, `{"a": string, "b": integer}`, cut short
/// (on a key boundary) past [`MAX_QUOTED_ARGS`] bytes.
fn received(args: &Map<String, Value>) -> String {
    let mut out = String::from("{");
    for (shown, (key, value)) in args.iter().enumerate() {
        if out.len() > MAX_QUOTED_ARGS {
            out.push_str(&format!(", ... ({} more keys)", args.len() - shown));
            break;
        }
        if shown > 0 {
            out.push_str(", ");
        }
        out.push_str(&quoted(key));
        out.push_str(": ");
        out.push_str(type_name(value));
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(names: &[&str], allow_empty: bool) -> RequiredGroup {
        RequiredGroup {
            names: names.iter().map(|n| n.to_string()).collect(),
            allow_empty,
        }
    }

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn each_group_rule() {
        let path = || group(&["path", "file_path"], false);
        // (groups, args, expected problems (None = ok), text the message must hold)
        type Case = (
            Vec<RequiredGroup>,
            Value,
            Option<Vec<&'static str>>,
            &'static str,
        );
        let cases: Vec<Case> = vec![
            (vec![path()], json!({"path": "a"}), None, ""),
            (vec![path()], json!({"file_path": "a"}), None, ""),
            (
                vec![path()],
                json!({"path": null, "file_path": "a"}),
                None,
                "",
            ),
            (vec![path()], json!({"path": 0}), None, ""),
            (vec![path()], json!({"path": []}), None, ""),
            (
                vec![path()],
                json!({}),
                Some(vec!["missing"]),
                "path (or file_path): required but absent",
            ),
            (
                vec![path()],
                json!({"file_path": null}),
                Some(vec!["null"]),
                "path (or file_path): required but \"file_path\" is null",
            ),
            (
                vec![path()],
                json!({"path": " \n\t"}),
                Some(vec!["blank"]),
                "\"path\" is blank (only whitespace)",
            ),
            (
                vec![path()],
                json!({"path": ""}),
                Some(vec!["blank"]),
                "blank",
            ),
            (
                vec![group(&["newText"], true)],
                json!({"newText": ""}),
                None,
                "",
            ),
            (
                vec![group(&["newText"], true)],
                json!({"newText": "  "}),
                None,
                "",
            ),
            (
                vec![group(&["newText"], true)],
                json!({"newText": null}),
                Some(vec!["null"]),
                "newText: required but \"newText\" is null",
            ),
            (
                vec![group(&["a", "b", "c"], false)],
                json!({}),
                Some(vec!["missing"]),
                "a (or b or c): required but absent",
            ),
        ];
        for (groups, args, expected, text) in cases {
            let result = check("edit", &groups, &object(args.clone()));
            match expected {
                None => assert!(result.is_ok(), "{args}: {result:?}"),
                Some(problems) => {
                    let error = result.unwrap_err();
                    assert_eq!(error.code, ErrorCode::ValidationError);
                    assert_eq!(error.retryable, Some(false));
                    assert!(error.message.contains(text), "{}", error.message);
                    let details = error.details.unwrap();
                    let got: Vec<&str> = details
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|d| d["problem"].as_str().unwrap())
                        .collect();
                    assert_eq!(got, problems, "{args}");
                }
            }
        }
    }

    #[test]
    fn every_unmet_group_is_listed_with_what_was_received() {
        let groups = vec![
            group(&["path", "file_path"], false),
            group(&["newText"], true),
            group(&["query"], false),
            group(&["text"], false),
        ];
        let args = object(json!({"filepath": "a.txt", "text": "x", "query": " ", "newText": null}));
        let error = check("edit", &groups, &args).unwrap_err();
        assert_eq!(
            error.message,
            "Validation failed for tool \"edit\":\n\
             \x20 - path (or file_path): required but absent\n\
             \x20 - newText: required but \"newText\" is null\n\
             \x20 - query: required but \"query\" is blank (only whitespace)\n\
             Received: {\"filepath\": string, \"text\": string, \"query\": string, \"newText\": null}\n\
             Fix the arguments and call the tool again."
        );
        assert_eq!(
            error.details.unwrap(),
            json!([
                {"group": ["path", "file_path"], "problem": "missing"},
                {"group": ["newText"], "problem": "null"},
                {"group": ["query"], "problem": "blank"}
            ])
        );
    }

    #[test]
    fn received_names_types_and_stops_past_the_cap() {
        let args = object(json!({"a": 1, "b": 1.5, "c": true, "d": [], "e": {}, "f\"": "x"}));
        assert_eq!(
            received(&args),
            "{\"a\": integer, \"b\": number, \"c\": boolean, \"d\": array, \"e\": object, \"f\\\"\": string}"
        );
        let mut many = Map::new();
        for i in 0..1000 {
            many.insert(format!("key{i:04}"), Value::Null);
        }
        let text = received(&many);
        assert!(text.len() < MAX_QUOTED_ARGS + 100, "{}", text.len());
        assert!(text.ends_with("more keys)}"), "{text}");
        // One huge key is quoted cut, not whole.
        let huge = object(json!({ "k".repeat(20_000): 1 }));
        let text = received(&huge);
        assert!(text.len() < MAX_QUOTED_ARGS + 100, "{}", text.len());
        assert!(text.contains("18976 more bytes not shown"), "{text}");
        assert!(received(&Map::new()) == "{}");
    }
}
