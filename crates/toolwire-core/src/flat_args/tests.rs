use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::args::{parse_arguments, prepare_arguments};
use crate::registry::{Registry, ToolDeclaration, ToolSpec};

/// A registered tool with `parameters` and extra declaration keys.
fn spec_with(parameters: Value, extra: Value) -> Arc<ToolSpec> {
    let mut declaration = json!({"name": "t", "parameters": parameters});
    declaration
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let declaration: ToolDeclaration = serde_json::from_value(declaration).unwrap();
    Registry::new().register(declaration).unwrap()
}

fn spec(parameters: Value) -> Arc<ToolSpec> {
    spec_with(parameters, json!({}))
}

/// The benchmark's schema: ten scalar properties, four required, nothing else allowed.
fn ten() -> Value {
    json!({
        "type": "object",
        "properties": {
            "p0": {"type": "number"},
            "p1": {"type": "number", "minimum": 0},
            "p2": {"type": "integer"},
            "p5": {"type": "string"},
            "p6": {"type": "string", "minLength": 1},
            "p8": {"type": "string", "maxLength": 4},
            "e": {"enum": ["a", "b", null]},
            "f": {"type": "boolean"},
            "d": {"type": "string", "format": "date"},
            "any": true
        },
        "required": ["p0", "p1", "p5", "p6"],
        "additionalProperties": false
    })
}

fn accepts(spec: &ToolSpec, text: &str) -> bool {
    spec.flat().expect("a flat schema").accepts(text)
}

#[test]
fn arguments_as_the_schema_asks_are_accepted_as_text() {
    let tool = spec(ten());
    for text in [
        r#"{"p0":1.5,"p1":0,"p5":"","p6":"x"}"#,
        r#" { "p6" : "héllo" , "p5":"a b", "p1": 1e3, "p0": -0 , "p2": 7, "e": null, "f": true } "#,
        r#"{"p0":1,"p1":2,"p5":"line\nbreak","p6":"tab\t\"quoted\"","p8":"four","d":"2026-11-27","any":null}"#,
    ] {
        assert!(accepts(&tool, text), "{text}");
    }
}

#[test]
fn anything_unusual_is_left_to_the_full_path() {
    let tool = spec(ten());
    let base = r#""p0":1,"p1":2,"p5":"a","p6":"b""#;
    for text in [
        // not an object, or not one whole value
        "[]".to_owned(),
        String::new(),
        format!("{{{base}}} x"),
        format!("{{{base},}}"),
        format!("{{{base}"),
        // a required property missing, an unknown or repeated key, a key with an escape
        r#"{"p0":1,"p1":2,"p5":"a"}"#.to_owned(),
        format!(r#"{{{base},"path":"x"}}"#),
        format!(r#"{{{base},"P0":1}}"#),
        format!(r#"{{{base},"p0":2}}"#),
        format!(r#"{{{base},"p\u0032":3}}"#),
        // values a property refuses, nested values, numbers no double holds
        r#"{"p0":1,"p1":-1,"p5":"a","p6":"b"}"#.to_owned(),
        r#"{"p0":"1","p1":2,"p5":"a","p6":"b"}"#.to_owned(),
        r#"{"p0":1,"p1":2,"p5":"a","p6":""}"#.to_owned(),
        format!(r#"{{{base},"p2":1.5}}"#),
        format!(r#"{{{base},"p8":"fives"}}"#),
        format!(r#"{{{base},"d":"yesterday"}}"#),
        format!(r#"{{{base},"e":"c"}}"#),
        format!(r#"{{{base},"any":{{"a":1}}}}"#),
        format!(r#"{{{base},"any":[1]}}"#),
        format!(r#"{{{base},"p2":1e999}}"#),
        // malformed tokens and strings the parser must judge or repair
        format!(r#"{{{base},"p2":01}}"#),
        format!(r#"{{{base},"p2":1-}}"#),
        format!(r#"{{{base},"f":tru}}"#),
        format!(r#"{{{base},"f":truex}}"#),
        format!(r#"{{{base},"p8":"\ud800"}}"#),
        format!("{{{base},\"p8\":\"a\u{1}\"}}"),
        format!(r#"{{{base},"p8":"\x"}}"#),
    ] {
        assert!(!accepts(&tool, &text), "{text}");
    }
}

#[test]
fn only_flat_schemas_with_no_renaming_rules_are_checked_as_text() {
    let flat = |parameters: Value, extra: Value| spec_with(parameters, extra).flat().is_some();
    assert!(flat(ten(), json!({})));
    assert!(flat(json!({"type": "object"}), json!({})));
    assert!(flat(ten(), json!({"coerce": true})));
    let refers = json!({"type": "object", "$defs": {"n": {"type": "number"}}, "properties": {"a": {"$ref": "#/$defs/n"}}});
    let composed = json!({"type": "object", "properties": {"a": {"type": "string"}}, "allOf": [{"required": ["a"]}]});
    let sized =
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "minProperties": 1});
    let nested_ref = json!({"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#"}, {"type": "string"}]}}});
    let undeclared_required =
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]});
    for parameters in [refers, composed, sized, nested_ref, undeclared_required] {
        assert!(!flat(parameters.clone(), json!({})), "{parameters}");
    }
    assert!(!flat(ten(), json!({"aliases": {"file": "p5"}})));
    assert!(!flat(ten(), json!({"requiredGroups": [["p5", "p6"]]})));
}

#[test]
fn a_property_reads_in_the_dialect_of_its_schema() {
    // draft 4's exclusiveMaximum is a boolean beside maximum; 2020-12's is a number
    let draft4 = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": {"type": "number", "maximum": 5, "exclusiveMaximum": true}}
    });
    let tool = spec(draft4);
    assert!(accepts(&tool, r#"{"n":4}"#));
    assert!(!accepts(&tool, r#"{"n":5}"#));
}

#[test]
fn with_coercion_on_a_value_of_another_type_takes_the_full_path() {
    let tool = spec_with(ten(), json!({"coerce": true}));
    assert!(accepts(&tool, r#"{"p0":1,"p1":2,"p5":"a","p6":"b"}"#));
    // normalization would coerce "5" to 5 for p2 (integer): not "as it is"
    assert!(!accepts(
        &tool,
        r#"{"p0":1,"p1":2,"p5":"a","p6":"b","p2":"5"}"#
    ));
}

// ---- the promise, over arbitrary text -----------------------------------------------------

/// Property schemas a flat tool may declare.
fn property_schema() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "number"})),
        Just(json!({"type": "integer", "minimum": -3, "maximum": 1000})),
        Just(json!({"type": "string", "maxLength": 3})),
        Just(json!({"type": "string", "pattern": "^[a-c]*$"})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"type": "boolean"})),
        Just(json!({"enum": [1, "1", true]})),
        Just(json!({"const": "x"})),
        Just(json!({})),
        Just(json!(true)),
        Just(json!({"type": "object"})),
        Just(json!({"type": "array", "items": {"type": "number"}})),
    ]
}

/// Value texts: well-formed and not, scalar and not.
fn value_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0".to_owned()),
        Just("-0".to_owned()),
        Just("1.0".to_owned()),
        Just("1e2".to_owned()),
        Just("1E+2".to_owned()),
        Just("-4".to_owned()),
        Just("2.5".to_owned()),
        Just("1e400".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just("01".to_owned()),
        Just("1.".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        Just("null".to_owned()),
        Just("nul".to_owned()),
        Just(r#""x""#.to_owned()),
        Just(r#""1""#.to_owned()),
        Just(r#""""#.to_owned()),
        Just(r#""ab\nc""#.to_owned()),
        Just(r#""\u0061""#.to_owned()),
        Just(r#""\ud83d\ude00""#.to_owned()),
        Just(r#""\udc00""#.to_owned()),
        Just(r#""\q""#.to_owned()),
        Just("\"a\u{7}\"".to_owned()),
        Just(r#""é""#.to_owned()),
        Just("{}".to_owned()),
        Just("[1]".to_owned()),
        "[a-c]{0,5}".prop_map(|s| format!("\"{s}\"")),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|n| n.to_string()),
    ]
}

fn key_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0usize..4).prop_map(|i| format!("\"k{i}\"")),
        1 => Just(r#""K0""#.to_owned()),
        1 => Just(r#""k\u0030""#.to_owned()),
        1 => Just(r#""z""#.to_owned()),
        1 => Just("k0".to_owned()),
    ]
}

fn whitespace() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just(""), Just(""), Just(" "), Just("\n\t"), Just("\u{a0}")]
}

prop_compose! {
    fn flat_tool()(
        schemas in proptest::collection::vec(property_schema(), 4),
        required in proptest::collection::vec(any::<bool>(), 4),
        closed in any::<bool>(),
        coerce in any::<bool>(),
    ) -> (Value, bool) {
        let properties: serde_json::Map<String, Value> = schemas
            .into_iter()
            .enumerate()
            .map(|(i, schema)| (format!("k{i}"), schema))
            .collect();
        let required: Vec<String> = (0..4).filter(|&i| required[i]).map(|i| format!("k{i}")).collect();
        (json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": !closed,
        }), coerce)
    }
}

prop_compose! {
    fn object_text()(
        members in proptest::collection::vec((key_text(), value_text(), whitespace()), 0..6),
        open in prop_oneof![Just("{"), Just(" {"), Just("[")],
        close in prop_oneof![Just("}"), Just("} "), Just("},"), Just("")],
        separator in prop_oneof![8 => Just(","), 1 => Just(",,"), 1 => Just(";")],
    ) -> String {
        let body: Vec<String> = members
            .into_iter()
            .map(|(key, value, ws)| format!("{ws}{key}{ws}:{ws}{value}{ws}"))
            .collect();
        format!("{open}{}{close}", body.join(separator))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// The promise of crate::flat_args: what the text check accepts, the full path parses
    /// without repair, leaves unchanged, and finds valid.
    #[test]
    fn text_the_check_accepts_is_valid_and_unchanged_on_the_full_path(
        (parameters, coerce) in flat_tool(),
        text in object_text(),
    ) {
        let tool = spec_with(parameters, json!({"coerce": coerce}));
        let flat = tool.flat().expect("these schemas are flat");
        if flat.accepts(&text) {
            let parsed = parse_arguments("t", &text).map_err(|e| TestCaseError::fail(format!("{text}: {}", e.message)))?;
            prop_assert!(!parsed.repaired, "{}", text);
            let mut args = parsed.value;
            let before = args.clone();
            let prepared = prepare_arguments(&tool, &mut args)
                .map_err(|e| TestCaseError::fail(format!("{text}: {}", e.message)))?;
            prop_assert!(!prepared.changed, "{}", text);
            prop_assert_eq!(args, before);
        }
    }
}

#[test]
fn the_property_tests_inputs_are_often_accepted() {
    // the promise above would hold trivially if the check accepted nothing: it accepts the
    // common case of those inputs
    let tool = spec(json!({
        "type": "object",
        "properties": {"k0": {"type": "number"}, "k1": {"type": "string", "maxLength": 3}},
        "required": ["k0"],
        "additionalProperties": false
    }));
    for text in [
        r#"{"k0":0}"#,
        r#" {"k1":"x", "k0":-4}"#,
        r#"{"k0":1e2,"k1":"a\nb"}"#,
    ] {
        assert!(accepts(&tool, text), "{text}");
    }
}

/// A number token reads as serde_json reads it (the same `u64`, `i64` or `f64`, or nothing),
/// short integers included, which are read without it.
#[test]
fn number_tokens_read_as_serde_json_reads_them() {
    let same = |token: &str| {
        let ours = super::number(token);
        let theirs: Option<serde_json::Number> = serde_json::from_str(token).ok();
        assert_eq!(ours, theirs, "{token}");
        if let (Some(ours), Some(theirs)) = (&ours, &theirs) {
            // (PartialEq of Number tells 0 from -0.0 by kind only: compare the bits too)
            assert_eq!(
                ours.as_f64().map(f64::to_bits),
                theirs.as_f64().map(f64::to_bits),
                "{token}"
            );
            assert_eq!(
                (ours.is_u64(), ours.is_i64()),
                (theirs.is_u64(), theirs.is_i64()),
                "{token}"
            );
        }
    };
    for token in [
        "0",
        "-0",
        "00",
        "-00",
        "01",
        "-01",
        "-",
        "",
        "7",
        "-7",
        "123456789012345678",
        "-123456789012345678",
        "999999999999999999",
        "1234567890123456789",
        "-9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "1.0",
        "-0.0",
        "1e2",
        "1E+2",
        "1.",
        ".5",
        "1e400",
        "--1",
        "1-",
        "+1",
    ] {
        same(token);
    }
    let mut n: i64 = 1;
    while n < i64::MAX / 7 {
        same(&n.to_string());
        same(&(-n).to_string());
        n = n * 7 + 3;
    }
}
