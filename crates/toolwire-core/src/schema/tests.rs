//! Tests of the whole pipeline: every rule through [`normalize_schema`], idempotence of every
//! target over all table cases, the strict round trip, and properties over generated schemas.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use super::*;

fn options() -> NormalizeOptions {
    NormalizeOptions::default()
}

fn run(schema: &Value, target: SchemaTarget) -> Result<Normalized> {
    normalize_schema(schema, target, &options())
}

fn removed_pairs(n: &Normalized) -> Vec<(&str, &str)> {
    n.removed
        .iter()
        .map(|r| (r.path.as_str(), r.keyword.as_str()))
        .collect()
}

/// Every schema of the tables below, for the idempotence test.
fn table() -> Vec<(&'static str, Value)> {
    let mut exponential = Map::new();
    for i in 0..6 {
        let next = format!("#/$defs/D{}", i + 1);
        exponential.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": {"l": {"$ref": next}, "r": {"$ref": next}}}),
        );
    }
    exponential.insert("D6".into(), json!({"type": "string", "minLength": 1}));
    vec![
        ("empty", json!({})),
        ("true", json!(true)),
        (
            "properties without type",
            json!({"properties": {"a": {"type": "string"}}}),
        ),
        (
            "weather",
            json!({"type": "object", "properties": {
                "city": {"type": "string", "description": "City", "maxLength": 6_700_000},
                "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
                "days": {"type": "integer", "minimum": 1, "maximum": 14},
                "when": {"type": "string", "format": "date-time"},
                "mail": {"type": "string", "format": "email", "pattern": "^.+@.+$"}
            }, "required": ["city"], "additionalProperties": false,
               "$schema": "https://json-schema.org/draft/2020-12/schema"}),
        ),
        (
            "literal union",
            json!({"type": "object", "properties": {
                "unit": {"anyOf": [{"const": "c"}, {"const": "f"}, {"const": "k"}]}
            }}),
        ),
        (
            "nested unions",
            json!({"type": "object", "properties": {
                "v": {"oneOf": [
                    {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer"}]},
                    {"anyOf": [{"const": true}, {"type": "null"}]}
                ]},
                "w": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "x": {"type": ["string", "integer", "null"]}
            }}),
        ),
        (
            "tree cycle",
            json!({"$ref": "#/$defs/Node", "$defs": {"Node": {"type": "object", "properties": {
                "value": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            }, "required": ["value"]}}}),
        ),
        (
            "root union",
            json!({"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "string"}}, "required": ["kind", "x"]},
                {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "integer"}}, "required": ["kind"]}
            ]}),
        ),
        (
            "root allOf",
            json!({"allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"properties": {"b": {"type": "boolean"}}}
            ]}),
        ),
        (
            "inner allOf and extras",
            json!({"type": "object", "properties": {
                "m": {"allOf": [{"type": "object", "properties": {"p": {"type": "string"}}}, {"required": ["p"]}]},
                "n": {"allOf": [{"type": "string"}, {"type": "integer"}]},
                "o": {"type": "object", "additionalProperties": {"type": "string"}, "patternProperties": {"^x": {}}},
                "q": {"type": "array", "items": {"type": "string"}, "minItems": 1, "uniqueItems": true, "contains": {"const": "a"}, "minContains": 1},
                "r": {"not": {"type": "null"}, "$comment": "c", "readOnly": true, "contentMediaType": "text/plain"}
            }, "required": ["m", "ghost"]}),
        ),
        (
            "exponential but small",
            json!({"$ref": "#/$defs/D0", "$defs": exponential}),
        ),
        (
            "definitions and anchors",
            json!({"type": "object", "properties": {
                "a": {"$ref": "#/definitions/A"}, "b": {"$ref": "#bee"}, "c": {"$ref": "#/properties/a"}
            }, "definitions": {"A": {"type": "number", "multipleOf": 0.5}, "B": {"$anchor": "bee", "type": "boolean"}}}),
        ),
    ]
}

#[test]
fn every_target_is_idempotent_on_every_table_case() {
    for (name, schema) in table() {
        for target in SchemaTarget::ALL {
            for json_schema in [false, true] {
                let opts = NormalizeOptions {
                    json_schema,
                    ..options()
                };
                let first = normalize_schema(&schema, target, &opts)
                    .unwrap_or_else(|e| panic!("{name} {}: {e}", target.as_str()));
                let again = normalize_schema(&first.schema, target, &opts)
                    .unwrap_or_else(|e| panic!("{name} {} again: {e}", target.as_str()));
                assert_eq!(again.schema, first.schema, "{name} {}", target.as_str());
                assert!(
                    again.removed.is_empty(),
                    "{name} {}: {:?}",
                    target.as_str(),
                    again.removed
                );
                if target != SchemaTarget::P0 {
                    assert_eq!(first.schema["type"], "object", "{name} {}", target.as_str());
                }
            }
        }
    }
}

#[test]
fn a_huge_max_length_is_dropped_only_where_unsupported() {
    let schema = json!({"type": "object", "properties": {"code": {"type": "string", "maxLength": 6_700_000}}, "required": ["code"]});
    for target in SchemaTarget::ALL {
        let n = run(&schema, target).unwrap();
        let kept = n.schema["properties"]["code"].get("maxLength").is_some();
        let dropped = matches!(
            target,
            SchemaTarget::Gemini | SchemaTarget::Xai | SchemaTarget::OpenaiStrict
        );
        assert_eq!(kept, !dropped, "{}", target.as_str());
        let reported = removed_pairs(&n) == [("/properties/code/maxLength", "maxLength")];
        assert_eq!(reported, dropped, "{}: {:?}", target.as_str(), n.removed);
    }
}

#[test]
fn gemini_json_schema_form_takes_only_the_common_rewrites() {
    for (name, schema) in table() {
        let openai = run(&schema, SchemaTarget::Openai).unwrap();
        let opts = NormalizeOptions {
            json_schema: true,
            ..options()
        };
        let gemini = normalize_schema(&schema, SchemaTarget::Gemini, &opts).unwrap();
        assert_eq!(gemini, openai, "{name}");
    }
}

/// QUIRKS 28: Gemini `parameters` reject `additionalProperties`, `$schema`, `const`,
/// `propertyNames` and a list-valued `type` with 400 "Unknown name ... Cannot find field"
/// (nanbingxyz/5ire#42, zed-industries/zed#44875, router-for-me/CLIProxyAPI#97); WIRE.md §4:
/// string `format` only `enum`/`date-time`.
#[test]
fn gemini_sends_none_of_the_fields_it_rejects() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object", "additionalProperties": false, "propertyNames": {"pattern": "^[a-z]+$"},
        "properties": {
            "kind": {"const": "circle"},
            "label": {"type": ["string", "null"], "format": "uri"},
            "size": {"type": "object", "additionalProperties": {"type": "number"}}
        }
    });
    let n = run(&schema, SchemaTarget::Gemini).unwrap();
    assert_eq!(
        n.schema,
        json!({"type": "object", "properties": {
            "kind": {"type": "string", "enum": ["circle"]},
            "label": {"type": "string", "nullable": true},
            "size": {"type": "object"}
        }})
    );
    let text = n.schema.to_string();
    let rejected = [
        "\"additionalProperties\"",
        "\"$schema\"",
        "\"const\"",
        "\"propertyNames\"",
        "\"uri\"",
        "\"type\":[",
    ];
    for fragment in rejected {
        assert!(!text.contains(fragment), "{fragment} in {text}");
    }
}

#[test]
fn gemini_literal_union_becomes_an_enum() {
    let (_, schema) = table().swap_remove(4);
    let n = run(&schema, SchemaTarget::Gemini).unwrap();
    assert_eq!(
        n.schema,
        json!({"type": "object", "properties": {"unit": {"type": "string", "enum": ["c", "f", "k"]}}})
    );
}

#[test]
fn gemini_nested_unions() {
    let (_, schema) = table().swap_remove(5);
    let n = run(&schema, SchemaTarget::Gemini).unwrap();
    assert_eq!(
        n.schema["properties"],
        json!({
            "v": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "boolean", "enum": [true], "nullable": true}]},
            "w": {"type": "string", "nullable": true},
            "x": {"anyOf": [{"type": "string"}, {"type": "integer"}], "nullable": true}
        })
    );
    assert_eq!(
        removed_pairs(&n),
        [("/properties/v/oneOf/0/anyOf/0/maxLength", "maxLength")]
    );
    assert!(n
        .warnings
        .iter()
        .any(|w| w.contains("/properties/v/oneOf: sent as anyOf")));
}

/// QUIRKS 25: a top-level `oneOf/allOf/anyOf` in Anthropic's `input_schema` rejects the whole
/// request (anthropics/claude-code#27337, #5878, anomalyco/opencode#35516).
#[test]
fn anthropic_roots_have_no_top_level_combinator() {
    for (name, schema) in table() {
        let n = run(&schema, SchemaTarget::Anthropic).unwrap();
        for key in ["anyOf", "oneOf", "allOf"] {
            assert!(n.schema.get(key).is_none(), "{name}: {key} in {}", n.schema);
        }
    }
    let n = run(&table()[8].1, SchemaTarget::Anthropic).unwrap();
    assert_eq!(
        n.schema,
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "boolean"}}, "required": ["a"]})
    );
    let n = run(&table()[8].1, SchemaTarget::Openai).unwrap();
    assert!(n.schema.get("allOf").is_some());
}

#[test]
fn root_union_merge_through_the_pipeline() {
    let n = run(&table()[7].1, SchemaTarget::Openai).unwrap();
    assert_eq!(
        n.schema,
        json!({"type": "object", "properties": {
            "kind": {"enum": ["a", "b"]}, "x": {"type": "string"}, "y": {"type": "integer"}
        }, "required": ["kind"]})
    );
    assert_eq!(removed_pairs(&n), [("", "oneOf")]);
    assert_eq!(n.warnings.len(), 1);
    let n = run(&table()[7].1, SchemaTarget::Gemini).unwrap();
    assert_eq!(
        n.schema["properties"]["kind"],
        json!({"type": "string", "enum": ["a", "b"]})
    );
}

#[test]
fn a_cycle_is_cut_on_every_target() {
    let (_, schema) = table().swap_remove(6);
    for target in SchemaTarget::ALL
        .into_iter()
        .filter(|t| *t != SchemaTarget::P0)
    {
        let n = run(&schema, target).unwrap();
        assert!(
            removed_pairs(&n).contains(&("/$defs/Node/properties/children/items/$ref", "$ref")),
            "{}: {:?}",
            target.as_str(),
            n.removed
        );
        assert!(n.warnings.iter().any(|w| w.contains("#/$defs/Node")));
        assert_eq!(n.schema["properties"]["children"]["items"], json!({}));
    }
}

#[test]
fn remote_refs_are_errors_except_for_p0() {
    let schema = json!({"type": "object", "properties": {"a": {"$ref": "https://x/y.json"}}});
    for target in SchemaTarget::ALL {
        let got = run(&schema, target);
        if target == SchemaTarget::P0 {
            let n = got.unwrap();
            assert_eq!(n.schema, schema);
            assert_eq!(
                n.warnings,
                ["/properties/a/$ref: $ref is outside the portable subset"]
            );
        } else {
            let e = got.unwrap_err();
            assert_eq!(e.code, ErrorCode::ValidationError);
            assert_eq!(
                e.message,
                "remote $ref \"https://x/y.json\" at /properties/a is not fetched; inline it \
                 (a $ref to a URI is local only when a $id of the same schema declares it)"
            );
        }
    }
}

#[test]
fn p0_reports_and_changes_nothing() {
    for (name, schema) in table() {
        let n = run(&schema, SchemaTarget::P0).unwrap();
        assert_eq!(n.schema, schema, "{name}");
        assert!(n.removed.is_empty(), "{name}");
    }
    let n = run(&table()[7].1, SchemaTarget::P0).unwrap();
    assert_eq!(n.warnings, ["/oneOf: oneOf is outside the portable subset"]);
}

#[test]
fn limits_are_errors_naming_the_limit() {
    let deep = (0..10).fold(
        json!({"type": "string"}),
        |inner, _| json!({"type": "array", "items": inner}),
    );
    let big = json!({"type": "object", "description": "x".repeat(2000)});
    let mut defs = Map::new();
    for i in 0..30 {
        let next = format!("#/$defs/D{}", i + 1);
        defs.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": {"l": {"$ref": next}, "r": {"$ref": next}}}),
        );
    }
    defs.insert("D30".into(), json!({"type": "string"}));
    let exponential = json!({"$ref": "#/$defs/D0", "$defs": defs});
    let cases = [
        (
            deep,
            NormalizeOptions {
                max_depth: 5,
                ..options()
            },
            "nests schemas deeper than maxDepth 5",
        ),
        (
            big,
            NormalizeOptions {
                max_bytes: 1000,
                ..options()
            },
            "larger than maxBytes 1000",
        ),
        (
            exponential,
            NormalizeOptions {
                max_depth: 64,
                ..options()
            },
            "grows past maxBytes 1048576",
        ),
    ];
    for (schema, opts, fragment) in cases {
        for target in SchemaTarget::ALL {
            if target == SchemaTarget::P0 && fragment.contains("grows") {
                continue;
            }
            let started = std::time::Instant::now();
            let e = normalize_schema(&schema, target, &opts).unwrap_err();
            assert_eq!(e.code, ErrorCode::LimitExceeded, "{}", target.as_str());
            assert!(
                e.message.contains(fragment),
                "{}: {}",
                target.as_str(),
                e.message
            );
            assert!(started.elapsed().as_secs() < 5);
        }
    }
    let e = normalize_schema(
        &json!({}),
        SchemaTarget::Openai,
        &NormalizeOptions {
            max_depth: 0,
            ..options()
        },
    )
    .unwrap_err();
    assert!(e
        .message
        .contains("maxDepth must be a whole number from 1 to 256, got 0"));
}

#[test]
fn bad_schemas_are_validation_errors_naming_them() {
    let cases = [
        (
            json!("string"),
            "a schema must be a JSON object or boolean, got \"string\"",
        ),
        (json!([1]), "got [1]"),
        (
            json!({"type": "string"}),
            "the root schema has type \"string\"",
        ),
        (
            json!({"anyOf": [{"type": "object"}, {"type": "string"}]}),
            "variant at /anyOf/1",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "strnig"}}}),
            "not valid JSON Schema at /properties/a/type",
        ),
        (
            json!({"properties": {"a": {"$ref": "#/$defs/Nope"}}}),
            "$ref \"#/$defs/Nope\" at /properties/a does not resolve",
        ),
    ];
    for (schema, fragment) in cases {
        let e = run(&schema, SchemaTarget::Openai).unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationError, "{schema}");
        assert!(e.message.contains(fragment), "{schema}: {}", e.message);
    }
}

/// Found by the property test: what a root `allOf` brings to the root (here a `const`) is
/// judged by the root rules on the targets that merge `allOf`, so their output normalizes again.
#[test]
fn a_root_all_of_is_merged_before_the_root_rules() {
    let schema = json!({"allOf": [{"const": "a"}]});
    for target in [
        SchemaTarget::OpenaiStrict,
        SchemaTarget::Gemini,
        SchemaTarget::Anthropic,
    ] {
        let e = run(&schema, target).unwrap_err();
        assert!(
            e.message.contains("the root schema is const \"a\""),
            "{}",
            e.message
        );
    }
    let n = run(&schema, SchemaTarget::Openai).unwrap();
    assert_eq!(
        n.schema,
        json!({"allOf": [{"const": "a"}], "type": "object", "properties": {}})
    );
}

/// The strict form's nulls for optional properties are stripped on the way back; a null the
/// original allowed and a required property are kept.
#[test]
fn strict_round_trip() {
    let original = json!({"type": "object", "properties": {
        "city": {"type": "string"},
        "unit": {"$ref": "#/$defs/Unit"},
        "note": {"type": ["string", "null"]},
        "when": {"type": "object", "properties": {"day": {"type": "integer"}, "hour": {"type": "integer"}}, "required": ["day"]}
    }, "required": ["city"], "$defs": {"Unit": {"type": "string", "enum": ["c", "f"]}}});
    let n = run(&original, SchemaTarget::OpenaiStrict).unwrap();
    assert_eq!(
        n.schema,
        json!({"type": "object", "additionalProperties": false, "properties": {
            "city": {"type": "string"},
            "unit": {"type": ["string", "null"], "enum": ["c", "f", null]},
            "note": {"type": ["string", "null"]},
            "when": {"type": ["object", "null"], "additionalProperties": false,
                     "properties": {"day": {"type": "integer"}, "hour": {"type": ["integer", "null"]}},
                     "required": ["day", "hour"]}
        }, "required": ["city", "unit", "note", "when"]})
    );
    let strict = jsonschema::validator_for(&n.schema).unwrap();
    let loose = jsonschema::validator_for(&original).unwrap();
    let cases = [
        (
            json!({"city": "Oslo", "unit": null, "note": null, "when": {"day": 3, "hour": null}}),
            json!({"city": "Oslo", "note": null, "when": {"day": 3}}),
        ),
        (
            json!({"city": "Oslo", "unit": "c", "note": "n", "when": null}),
            json!({"city": "Oslo", "unit": "c", "note": "n"}),
        ),
    ];
    for (args, expected) in cases {
        assert!(strict.is_valid(&args), "{args}");
        assert!(!loose.is_valid(&args), "{args}");
        let back = denormalize_strict(&original, args.clone());
        assert_eq!(back, expected, "{args}");
        assert!(loose.is_valid(&back), "{back}");
    }
    // A required property's null is kept (and stays invalid, as the model sent it).
    let args = json!({"city": null, "unit": null, "note": null, "when": null});
    assert_eq!(
        denormalize_strict(&original, args),
        json!({"city": null, "note": null})
    );
}

#[test]
fn schema_hash_is_stable_under_key_order() {
    let a = json!({"type": "object", "properties": {"a": {}, "b": {"type": "string"}}});
    let b: Value =
        serde_json::from_str(r#"{"properties":{"b":{"type":"string"},"a":{}},"type":"object"}"#)
            .unwrap();
    assert_eq!(schema_hash(&a), schema_hash(&b));
}

#[test]
fn removed_and_warnings_serialize() {
    let n = run(&table()[3].1, SchemaTarget::Gemini).unwrap();
    let text = serde_json::to_value(&n).unwrap();
    assert_eq!(
        text["removed"][0],
        json!({"path": "/properties/city/maxLength", "keyword": "maxLength"})
    );
    assert!(text["warnings"].is_array());
}

/// The default depth ceiling works on a test thread's stack.
#[test]
fn the_deepest_allowed_schema_normalizes() {
    let depth = MAX_DEPTH_CEILING;
    let deep = (1..depth).fold(
        json!({"type": "string"}),
        |inner, _| json!({"type": "array", "items": inner}),
    );
    let deep = json!({"type": "object", "properties": {"p": deep}});
    let opts = NormalizeOptions {
        max_depth: depth,
        max_bytes: 1 << 20,
        json_schema: false,
    };
    for target in SchemaTarget::ALL {
        let got = normalize_schema(&deep, target, &opts);
        match got {
            Ok(n) => assert_eq!(limits::schema_depth(&n.schema), depth + 1),
            Err(e) => assert_eq!(e.code, ErrorCode::LimitExceeded, "{}: {e}", target.as_str()),
        }
    }
}

/// The properties the fuzz target checks, on one schema.
fn check_properties(schema: &Value) {
    for target in SchemaTarget::ALL {
        for json_schema in [false, true] {
            let opts = NormalizeOptions {
                json_schema,
                ..options()
            };
            let Ok(first) = normalize_schema(schema, target, &opts) else {
                continue;
            };
            let openapi = target == SchemaTarget::Gemini && !json_schema;
            if target == SchemaTarget::P0 {
                assert_eq!(&first.schema, schema);
                assert!(first.removed.is_empty());
                assert!(jsonschema::meta::validate(&first.schema).is_ok());
            } else {
                assert_eq!(first.schema["type"], "object", "{}", target.as_str());
                if !openapi {
                    if let Err(e) = jsonschema::validator_for(&first.schema) {
                        panic!(
                            "{} output does not compile: {e}\n{}",
                            target.as_str(),
                            first.schema
                        );
                    }
                }
            }
            let again = normalize_schema(&first.schema, target, &opts).unwrap_or_else(|e| {
                panic!(
                    "{} second pass failed: {e}\n{schema}\n{}",
                    target.as_str(),
                    first.schema
                )
            });
            assert_eq!(
                again.schema,
                first.schema,
                "{} on {schema}",
                target.as_str()
            );
            assert!(
                again.removed.is_empty(),
                "{} on {schema}: {:?}",
                target.as_str(),
                again.removed
            );
        }
    }
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "integer", "minimum": 0})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"type": ["string", "integer"]})),
        Just(json!({"const": "a"})),
        Just(json!({"const": 1})),
        Just(json!({"enum": ["x", "y"]})),
        Just(json!({"type": "string", "maxLength": 5, "format": "email"})),
        Just(json!({"type": "string", "format": "date-time"})),
        Just(json!({"$ref": "#/$defs/A"})),
        Just(json!({"$ref": "#"})),
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({})),
        Just(json!({"type": "null"})),
        Just(json!({"type": "number", "exclusiveMinimum": 1})),
        Just(json!({"$comment": "c", "readOnly": true, "description": "d"})),
        Just(json!({"type": ["object", "null"], "minProperties": 1})),
        Just(json!({"enum": ["x", null, 2]})),
        Just(json!({"$ref": "#/$defs/A", "description": "sibling"})),
        Just(json!({"$ref": "#anchor"})),
        Just(json!({"$ref": "#/properties/a"})),
        Just(json!({"type": "array", "prefixItems": [{"type": "string"}], "items": false})),
        Just(json!({"type": "string", "pattern": "^[a-z]+$", "minLength": 2})),
        Just(
            json!({"if": {"type": "string"}, "then": {"minLength": 1}, "else": {"type": "integer"}})
        ),
        Just(
            json!({"type": "object", "patternProperties": {"^x": {"type": "string"}}, "additionalProperties": true})
        ),
        Just(
            json!({"type": "object", "dependentRequired": {"a": ["b"]}, "propertyNames": {"maxLength": 3}})
        ),
    ]
}

fn schema_strategy() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 40, 4, |inner| {
        prop_oneof![
            (
                prop::collection::btree_map("[a-d]", inner.clone(), 0..4),
                prop::collection::btree_set("[a-e]", 0..3),
                any::<bool>()
            )
                .prop_map(|(props, required, typed)| {
                    let mut obj = json!({"properties": props, "required": required});
                    if typed {
                        obj["type"] = json!("object");
                    }
                    obj
                }),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({"anyOf": v})),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"oneOf": v})),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"allOf": v})),
            inner
                .clone()
                .prop_map(|i| json!({"type": "array", "items": i, "minItems": 1})),
            inner
                .clone()
                .prop_map(|i| json!({"not": i, "description": "n"})),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| {
                json!({"type": "object", "additionalProperties": a, "properties": {"p": b}})
            }),
        ]
    })
}

/// A root: any schema, or an object of generated properties; with a definition `A` (which has
/// the anchor `anchor`).
fn root_strategy() -> impl Strategy<Value = Value> {
    let object = (
        prop::collection::btree_map("[a-d]", schema_strategy(), 0..5),
        prop::collection::btree_set("[a-e]", 0..3),
    )
        .prop_map(|(props, required)| json!({"type": "object", "properties": props, "required": required}));
    (prop_oneof![schema_strategy(), object], schema_strategy()).prop_map(|(mut root, mut def)| {
        if let Value::Object(map) = &mut def {
            map.insert("$anchor".into(), json!("anchor"));
        }
        if let Value::Object(map) = &mut root {
            map.insert("$defs".into(), json!({"A": def}));
        }
        root
    })
}

proptest! {
    #[test]
    fn generated_schemas_normalize_to_fixed_points(schema in root_strategy()) {
        check_properties(&schema);
    }
}
