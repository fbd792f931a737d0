//! End-to-end tests of `normalize_arguments`: one row per rule.

use serde_json::{json, Value};

use super::*;
use crate::error::ErrorCode;

fn rules(aliases: &[(&str, &str)], coerce: bool) -> ParamRules {
    ParamRules {
        aliases: aliases
            .iter()
            .map(|(from, to)| (from.to_string(), to.to_string()))
            .collect(),
        required_groups: Vec::new(),
        coerce,
    }
}

fn renamed(from: &str, to: &str, by: RenameReason, path: &str) -> Rename {
    Rename {
        from: from.into(),
        to: to.into(),
        by,
        path: path.into(),
    }
}

fn coerced(path: &str, from: &str, to: &str) -> Coercion {
    Coercion {
        path: path.into(),
        from: from.into(),
        to: to.into(),
    }
}

/// A schema with the usual edit-tool properties, a nested object and arrays.
fn edit_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "file_path": {"type": "string"},
            "oldText": {"type": "string"},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "force": {"type": "boolean"},
            "label": {"type": "string"},
            "either": {"type": ["integer", "boolean"]},
            "maybe": {"type": ["null", "string"]},
            "lines": {"type": "array", "items": {"type": "integer"}},
            "options": {
                "type": "object",
                "properties": {"max_depth": {"type": "integer"}, "followLinks": {"type": "boolean"}}
            },
            "entries": {"type": "array", "items": {"$ref": "#/$defs/entry"}},
            "blocks": {"type": "array"}
        },
        "$defs": {"entry": {"type": "object", "properties": {"line_no": {"type": "integer"}}}}
    })
}

struct Row {
    name: &'static str,
    schema: Value,
    rules: ParamRules,
    args: Value,
    expected_args: Value,
    renamed: Vec<Rename>,
    coerced: Vec<Coercion>,
}

fn rows() -> Vec<Row> {
    use RenameReason::{Alias, Case};
    let edit = edit_schema;
    vec![
        Row {
            name: "camelCase key renamed to the snake_case property",
            schema: edit(),
            rules: rules(&[], false),
            args: json!({"filePath": "a.txt"}),
            expected_args: json!({"file_path": "a.txt"}),
            renamed: vec![renamed("filePath", "file_path", Case, "")],
            coerced: vec![],
        },
        Row {
            name: "snake_case key renamed to the camelCase property",
            schema: edit(),
            rules: rules(&[], false),
            args: json!({"old_text": "x", "FILE-PATH": "a"}),
            expected_args: json!({"oldText": "x", "file_path": "a"}),
            renamed: vec![
                renamed("FILE-PATH", "file_path", Case, ""),
                renamed("old_text", "oldText", Case, ""),
            ],
            coerced: vec![],
        },
        Row {
            name: "two properties with one canonical form: no rename",
            schema: json!({"properties": {"filePath": {}, "file_path": {}}}),
            rules: rules(&[], false),
            args: json!({"FilePath": "a"}),
            expected_args: json!({"FilePath": "a"}),
            renamed: vec![],
            coerced: vec![],
        },
        Row {
            name: "two keys claiming one property: no rename",
            schema: edit(),
            rules: rules(&[], false),
            args: json!({"filePath": "a", "FILE_PATH": "b"}),
            expected_args: json!({"filePath": "a", "FILE_PATH": "b"}),
            renamed: vec![],
            coerced: vec![],
        },
        Row {
            name: "target already present: no rename",
            schema: edit(),
            rules: rules(&[], false),
            args: json!({"filePath": "a", "file_path": "b"}),
            expected_args: json!({"filePath": "a", "file_path": "b"}),
            renamed: vec![],
            coerced: vec![],
        },
        Row {
            name: "a key that is a property is never renamed",
            schema: json!({"properties": {"path": {}, "Path": {}}}),
            rules: rules(&[], false),
            args: json!({"Path": "a"}),
            expected_args: json!({"Path": "a"}),
            renamed: vec![],
            coerced: vec![],
        },
        Row {
            name: "alias renames to its target",
            schema: edit(),
            rules: rules(&[("path", "file_path")], false),
            args: json!({"path": "a"}),
            expected_args: json!({"file_path": "a"}),
            renamed: vec![renamed("path", "file_path", Alias, "")],
            coerced: vec![],
        },
        Row {
            name: "alias with both names present: nothing renamed",
            schema: edit(),
            rules: rules(&[("path", "file_path")], false),
            args: json!({"path": "a", "file_path": "b"}),
            expected_args: json!({"path": "a", "file_path": "b"}),
            renamed: vec![],
            coerced: vec![],
        },
        Row {
            name: "aliases apply at the root only",
            schema: edit(),
            rules: rules(&[("depth", "max_depth")], false),
            args: json!({"options": {"depth": 1}}),
            expected_args: json!({"options": {"depth": 1}}),
            renamed: vec![],
            coerced: vec![],
        },
        Row {
            name: "nested renames in properties and array items (through a local $ref)",
            schema: edit(),
            rules: rules(&[], false),
            args: json!({"options": {"maxDepth": 2, "follow_links": true}, "entries": [{"lineNo": 1}, {"line_no": 2}, {"LINE_NO": 3}]}),
            expected_args: json!({"options": {"max_depth": 2, "followLinks": true}, "entries": [{"line_no": 1}, {"line_no": 2}, {"line_no": 3}]}),
            renamed: vec![
                renamed("lineNo", "line_no", Case, "/entries/0"),
                renamed("LINE_NO", "line_no", Case, "/entries/2"),
                renamed("follow_links", "followLinks", Case, "/options"),
                renamed("maxDepth", "max_depth", Case, "/options"),
            ],
            coerced: vec![],
        },
        Row {
            name: "text blocks joined with a newline for a string property",
            schema: edit(),
            rules: rules(&[], false),
            args: json!({"oldText": [{"type": "text", "text": "a"}, {"text": "b", "type": "text"}]}),
            expected_args: json!({"oldText": "a\nb"}),
            renamed: vec![],
            coerced: vec![coerced("/oldText", "text-blocks", "string")],
        },
        Row {
            name: "text blocks for a non-string property left alone",
            schema: edit(),
            rules: rules(&[], true),
            args: json!({"blocks": [{"type": "text", "text": "a"}]}),
            expected_args: json!({"blocks": [{"type": "text", "text": "a"}]}),
            renamed: vec![],
            coerced: vec![],
        },
        Row {
            name: "text blocks with extra keys or other types left alone",
            schema: edit(),
            rules: rules(&[], true),
            args: json!({
                "oldText": [{"type": "text", "text": "a", "cache": true}],
                "label": [{"type": "image", "text": "a"}],
                "maybe": []
            }),
            expected_args: json!({
                "oldText": [{"type": "text", "text": "a", "cache": true}],
                "label": [{"type": "image", "text": "a"}],
                "maybe": []
            }),
            renamed: vec![],
            coerced: vec![],
        },
        Row {
            name: "each coercion",
            schema: edit(),
            rules: rules(&[], true),
            args: json!({
                "count": " 5 ", "ratio": "2.5", "force": "TRUE", "label": 7,
                "either": "false", "maybe": true, "lines": ["1", 2, "3.0"],
                "options": {"max_depth": "4", "followLinks": "false"},
                "entries": [{"line_no": "9"}]
            }),
            expected_args: json!({
                "count": 5, "ratio": 2.5, "force": true, "label": "7",
                "either": false, "maybe": "true", "lines": [1, 2, 3],
                "options": {"max_depth": 4, "followLinks": false},
                "entries": [{"line_no": 9}]
            }),
            renamed: vec![],
            coerced: vec![
                coerced("/count", "string", "integer"),
                coerced("/either", "string", "boolean"),
                coerced("/entries/0/line_no", "string", "integer"),
                coerced("/force", "string", "boolean"),
                coerced("/label", "integer", "string"),
                coerced("/lines/0", "string", "integer"),
                coerced("/lines/2", "string", "integer"),
                coerced("/maybe", "boolean", "string"),
                coerced("/options/followLinks", "string", "boolean"),
                coerced("/options/max_depth", "string", "integer"),
                coerced("/ratio", "string", "number"),
            ],
        },
        Row {
            name: "no coercion with coerce off",
            schema: edit(),
            rules: rules(&[], false),
            args: json!({"count": "5", "ratio": "2.5", "force": "true", "label": 7, "lines": ["1"]}),
            expected_args: json!({"count": "5", "ratio": "2.5", "force": "true", "label": 7, "lines": ["1"]}),
            renamed: vec![],
            coerced: vec![],
        },
        Row {
            name: "values that already match or do not parse are not coerced",
            schema: edit(),
            rules: rules(&[], true),
            args: json!({
                "count": "5.5", "ratio": "two", "force": "yes", "label": null,
                "maybe": null, "either": 3, "lines": [" ", "1e400", "99999999999999999999"]
            }),
            expected_args: json!({
                "count": "5.5", "ratio": "two", "force": "yes", "label": null,
                "maybe": null, "either": 3, "lines": [" ", "1e400", "99999999999999999999"]
            }),
            renamed: vec![],
            coerced: vec![],
        },
        Row {
            name: "a renamed key's value is normalized under its new name",
            schema: edit(),
            rules: rules(&[], true),
            args: json!({"Count": "3"}),
            expected_args: json!({"count": 3}),
            renamed: vec![renamed("Count", "count", Case, "")],
            coerced: vec![coerced("/count", "string", "integer")],
        },
    ]
}

#[test]
fn each_rule() {
    for row in rows() {
        let mut args = row.args.clone();
        let normalization = normalize_arguments("edit", &row.schema, &row.rules, &mut args)
            .unwrap_or_else(|e| panic!("{}: {e:?}", row.name));
        assert_eq!(args, row.expected_args, "{}", row.name);
        let mut got = normalization.clone();
        got.renamed
            .sort_by(|a, b| (&a.path, &a.from).cmp(&(&b.path, &b.from)));
        got.coerced.sort_by(|a, b| a.path.cmp(&b.path));
        assert_eq!(got.renamed, row.renamed, "{}", row.name);
        assert_eq!(got.coerced, row.coerced, "{}", row.name);
        assert_eq!(
            normalization.is_empty(),
            row.renamed.is_empty() && row.coerced.is_empty()
        );
    }
}

#[test]
fn a_target_of_several_types_takes_the_first_that_parses() {
    let schema = json!({"properties": {
        "a": {"type": ["integer", "boolean", "string"]},
        "b": {"type": ["boolean", "number"]},
        "c": {"type": ["number", "string"]}
    }});
    let mut args = json!({"a": "true", "b": "1.5", "c": false});
    let normalization = normalize_arguments("t", &schema, &rules(&[], true), &mut args).unwrap();
    assert_eq!(args, json!({"a": "true", "b": 1.5, "c": "false"}));
    assert_eq!(
        normalization.coerced,
        vec![
            coerced("/b", "string", "number"),
            coerced("/c", "boolean", "string")
        ]
    );
}

#[test]
fn anything_but_an_object_is_left_for_the_validator() {
    let mut with_groups = rules(&[], true);
    with_groups.required_groups = vec![RequiredGroup {
        names: vec!["path".into()],
        allow_empty: false,
    }];
    for value in [json!([1]), json!("5"), json!(null), json!(3)] {
        let mut args = value.clone();
        let normalization =
            normalize_arguments("t", &edit_schema(), &with_groups, &mut args).unwrap();
        assert!(normalization.is_empty());
        assert_eq!(args, value);
    }
}

#[test]
fn required_groups_are_checked_after_renames() {
    let mut with_groups = rules(&[("path", "file_path")], false);
    with_groups.required_groups = vec![
        RequiredGroup {
            names: vec!["file_path".into()],
            allow_empty: false,
        },
        RequiredGroup {
            names: vec!["oldText".into(), "old".into()],
            allow_empty: false,
        },
    ];
    let mut args = json!({"path": "a", "old_text": "x"});
    let normalization =
        normalize_arguments("edit", &edit_schema(), &with_groups, &mut args).unwrap();
    assert_eq!(normalization.renamed.len(), 2);

    let mut args = json!({"filepath": "a", "text": "x"});
    let error = normalize_arguments("edit", &edit_schema(), &with_groups, &mut args).unwrap_err();
    assert_eq!(error.code, ErrorCode::ValidationError);
    assert!(
        error
            .message
            .contains("  - oldText (or old): required but absent\n"),
        "{}",
        error.message
    );
    assert!(
        error
            .message
            .contains("Received: {\"file_path\": string, \"text\": string}"),
        "{}",
        error.message
    );
}

#[test]
fn normalization_serializes_as_documented() {
    let normalization = Normalization {
        renamed: vec![renamed("file_path", "path", RenameReason::Alias, "")],
        coerced: vec![coerced("/count", "string", "integer")],
    };
    let json = serde_json::to_value(&normalization).unwrap();
    assert_eq!(
        json,
        json!({
            "renamed": [{"from": "file_path", "to": "path", "by": "alias", "path": ""}],
            "coerced": [{"path": "/count", "from": "string", "to": "integer"}]
        })
    );
    let back: Normalization = serde_json::from_value(json).unwrap();
    assert_eq!(back, normalization);
    assert_eq!(
        serde_json::to_value(RenameReason::Case).unwrap(),
        json!("case")
    );
    let schema = serde_json::to_value(schemars::schema_for!(Normalization)).unwrap();
    assert!(schema["properties"]["renamed"].is_object(), "{schema}");
}

#[test]
fn deep_nesting_stops_at_the_depth_bound_without_failing() {
    let schema = json!({
        "$defs": {"node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"}, "n": {"type": "integer"}}}},
        "$ref": "#/$defs/node"
    });
    let mut args = json!({"n": "0"});
    for _ in 0..200 {
        args = json!({"child": args, "n": "1"});
    }
    let normalization = normalize_arguments("t", &schema, &rules(&[], true), &mut args).unwrap();
    assert_eq!(normalization.coerced.len(), normalize::MAX_DEPTH);
    assert_eq!(args["n"], json!(1));
}
