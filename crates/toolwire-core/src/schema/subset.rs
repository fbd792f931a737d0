//! The targets that only drop keywords (xAI, llama.cpp) and the portable-subset report (p0).

use serde_json::Value;

use super::limits::walk_schemas;
use super::node::{child, show, Node, Obj, Val};
use super::report::Report;
use crate::error::{Error, ErrorCode, Result};

/// What xAI drops.
const XAI_DROPS: [&str; 6] = [
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minContains",
    "maxContains",
];

/// What llama.cpp drops (besides unions, which it reduces to one branch).
const LLAMACPP_DROPS: [&str; 3] = ["$schema", "additionalProperties", "$ref"];

/// The constructs outside the portable subset (a `$ref` is judged by its value).
const NOT_PORTABLE: [&str; 8] = [
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
];

fn too_deep(limit: usize, at: &str) -> Error {
    Error::caller(
        ErrorCode::LimitExceeded,
        format!(
            "the schema nests deeper than {limit} levels at {}",
            show(at)
        ),
    )
}

/// Drops the xAI keywords everywhere.
pub(crate) fn xai(mut root: Obj, limit: usize, report: &mut Report) -> Result<Obj> {
    drop_everywhere(&mut root, &XAI_DROPS, 1, limit, report)?;
    Ok(root)
}

fn drop_everywhere(
    obj: &mut Obj,
    names: &[&str],
    depth: usize,
    limit: usize,
    report: &mut Report,
) -> Result<()> {
    if depth > limit {
        return Err(too_deep(limit, &obj.at));
    }
    for name in names {
        if let Some(word) = obj.words.shift_remove(*name) {
            report.dropped(&word.at, name);
        }
    }
    for node in obj.children_mut() {
        if let Node::Obj(sub) = node {
            drop_everywhere(sub, names, depth + 1, limit, report)?;
        }
    }
    Ok(())
}

/// Replaces every union with its first non-null branch and drops the llama.cpp keywords.
pub(crate) fn llamacpp(root: Obj, limit: usize, report: &mut Report) -> Result<Obj> {
    let mut node = Node::Obj(root);
    first_branches(&mut node, 1, limit, report)?;
    match node {
        Node::Obj(obj) => Ok(obj),
        Node::Bool(_) => Err(Error::caller(
            ErrorCode::ValidationError,
            "the root schema only has unions of false; it accepts nothing".to_owned(),
        )),
    }
}

/// Whether `node` is `{"type": "null"}` (possibly with other keywords).
fn is_null_branch(node: &Node) -> bool {
    node.as_obj().is_some_and(|o| o.type_name() == Some("null"))
}

fn first_branches(node: &mut Node, depth: usize, limit: usize, report: &mut Report) -> Result<()> {
    let Node::Obj(obj) = node else {
        return Ok(());
    };
    if depth > limit {
        return Err(too_deep(limit, &obj.at));
    }
    while let Some(key) = ["anyOf", "oneOf"].into_iter().find(|k| obj.has(k)) {
        let Some(word) = obj.words.shift_remove(key) else {
            break;
        };
        report.dropped(&word.at, key);
        let Val::List(branches) = word.val else {
            continue;
        };
        let count = branches.len();
        let usable = |b: &Node| !matches!(b, Node::Bool(false));
        let pick = branches
            .iter()
            .position(|b| usable(b) && !is_null_branch(b))
            .or_else(|| branches.iter().position(usable));
        let Some(pick) = pick else {
            *node = Node::Bool(false);
            return Ok(());
        };
        if count > 1 {
            report.warn(format!(
                "{}: llama.cpp gets only branch {pick} of the {key}; the other {} are dropped",
                child(&word.at, key),
                count - 1
            ));
        }
        if let Some(Node::Obj(branch)) = branches.into_iter().nth(pick) {
            for (name, bw) in branch.words {
                match obj.words.get(&name) {
                    None => {
                        obj.words.insert(name, bw);
                    }
                    Some(own) if own.val.to_value() == bw.val.to_value() => {}
                    Some(_) => report.dropped(&bw.at, &name),
                }
            }
        }
    }
    for name in LLAMACPP_DROPS {
        if let Some(word) = obj.words.shift_remove(name) {
            report.dropped(&word.at, name);
        }
    }
    for sub in obj.children_mut() {
        first_branches(sub, depth + 1, limit, report)?;
    }
    Ok(())
}

/// Whether `r` names a definition: `#/$defs/X` or `#/definitions/X`.
fn is_local_definition(r: &Value) -> bool {
    let Some(r) = r.as_str() else { return false };
    ["#/$defs/", "#/definitions/"].into_iter().any(|prefix| {
        r.strip_prefix(prefix)
            .is_some_and(|name| !name.is_empty() && !name.contains('/'))
    })
}

/// Warns `"<pointer>: <keyword> is outside the portable subset"` for each construct outside
/// it, in document order; the schema itself is not touched.
pub(crate) fn p0_findings(doc: &Value, max_depth: usize, report: &mut Report) -> Result<()> {
    walk_schemas(doc, max_depth, "the schema", |visit| {
        for (name, value) in visit.map {
            let outside = if name == "$ref" {
                !is_local_definition(value)
            } else {
                NOT_PORTABLE.contains(&name.as_str())
            };
            if outside {
                report.warn(format!(
                    "{}: {name} is outside the portable subset",
                    child(visit.at, name)
                ));
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::refs::inline;
    use serde_json::json;

    fn run(
        schema: Value,
        pass: fn(Obj, usize, &mut Report) -> Result<Obj>,
    ) -> (Value, Vec<(String, String)>, Vec<String>) {
        let mut report = Report::default();
        let Node::Obj(obj) = inline(&schema, &Default::default(), &mut report).unwrap() else {
            panic!("bool root")
        };
        let out = pass(obj, 64, &mut report).unwrap();
        let (removed, warnings) = report.finish(&schema);
        (
            out.to_value(),
            removed.into_iter().map(|r| (r.path, r.keyword)).collect(),
            warnings,
        )
    }

    #[test]
    fn xai_drops_length_and_count_limits() {
        let schema = json!({"type": "object", "properties": {
            "s": {"type": "string", "maxLength": 6_700_000, "minLength": 1, "pattern": "x"},
            "a": {"type": "array", "minItems": 1, "maxItems": 3, "contains": {"const": 1}, "minContains": 1, "maxContains": 2}
        }});
        let (output, removed, _) = run(schema, xai);
        assert_eq!(
            output,
            json!({"type": "object", "properties": {
                "s": {"type": "string", "pattern": "x"},
                "a": {"type": "array", "contains": {"const": 1}}
            }})
        );
        assert_eq!(removed.len(), 6);
        assert_eq!(
            removed[0],
            ("/properties/s/maxLength".to_owned(), "maxLength".to_owned())
        );
    }

    #[test]
    fn llamacpp_keeps_the_first_non_null_branch() {
        let schema = json!({"type": "object", "additionalProperties": false,
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "properties": {
            "a": {"description": "d", "anyOf": [{"type": "null"}, {"type": "string", "description": "x"}, {"type": "integer"}]},
            "b": {"oneOf": [{"anyOf": [{"type": "number"}, {"type": "string"}]}, {"type": "boolean"}]},
            "c": {"anyOf": [{"type": "null"}]}
        }});
        let (output, removed, warnings) = run(schema, llamacpp);
        assert_eq!(
            output,
            json!({"type": "object", "properties": {
                "a": {"description": "d", "type": "string"},
                "b": {"type": "number"},
                "c": {"type": "null"}
            }})
        );
        let paths: Vec<&str> = removed.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/additionalProperties",
                "/$schema",
                "/properties/a/anyOf",
                "/properties/a/anyOf/1/description",
                "/properties/b/oneOf",
                "/properties/b/oneOf/0/anyOf",
                "/properties/c/anyOf"
            ]
        );
        assert!(
            warnings[0].starts_with("/properties/a/anyOf: llama.cpp gets only branch 1"),
            "{warnings:?}"
        );
    }

    #[test]
    fn p0_reports_what_is_outside_the_portable_subset() {
        let schema = json!({"type": "object", "properties": {
            "a": {"anyOf": [{"type": "string"}, {"not": {"const": 1}}]},
            "b": {"$ref": "#/$defs/B"},
            "c": {"$ref": "https://x/y.json"},
            "d": {"$ref": "#/properties/a"},
            "e": {"if": {}, "then": {}, "else": {}},
            "f": {"patternProperties": {"x": {}}, "allOf": [], "oneOf": []}
        }, "$defs": {"B": {"type": "string"}}});
        let mut report = Report::default();
        p0_findings(&schema, 64, &mut report).unwrap();
        assert_eq!(
            report.warnings(),
            [
                "/properties/a/anyOf: anyOf is outside the portable subset",
                "/properties/a/anyOf/1/not: not is outside the portable subset",
                "/properties/c/$ref: $ref is outside the portable subset",
                "/properties/d/$ref: $ref is outside the portable subset",
                "/properties/e/if: if is outside the portable subset",
                "/properties/e/then: then is outside the portable subset",
                "/properties/e/else: else is outside the portable subset",
                "/properties/f/patternProperties: patternProperties is outside the portable subset",
                "/properties/f/allOf: allOf is outside the portable subset",
                "/properties/f/oneOf: oneOf is outside the portable subset",
            ]
        );
    }
}
