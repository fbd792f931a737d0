//! Tests of the reference grammar: parsing, rendering whole and embedded references, paths.

use serde_json::{json, Map, Value};

use super::refs::{find_templates, follow, parse_template, Names, Scope, Slot, TemplateAt};
use super::{Piece, Reference, Target, Template};

/// Steps `a` (0), `list` (1) and `a.b` (2); `files` is captured by `list`.
struct TestNames;

impl Names for TestNames {
    fn step(&self, id: &str) -> Option<usize> {
        ["a", "list", "a.b"].iter().position(|s| *s == id)
    }
    fn capture(&self, name: &str) -> Option<usize> {
        (name == "files").then_some(1)
    }
}

fn step(id: &str, index: usize, path: &[&str]) -> Reference {
    Reference {
        target: Target::Step {
            id: id.to_string(),
            step: index,
        },
        path: path.iter().map(|s| s.to_string()).collect(),
    }
}

fn item(path: &[&str]) -> Reference {
    Reference {
        target: Target::Item,
        path: path.iter().map(|s| s.to_string()).collect(),
    }
}

#[test]
fn strings_parse_to_their_templates() {
    let index = Reference {
        target: Target::Index,
        path: vec![],
    };
    let cases: Vec<(&str, Option<Template>)> = vec![
        ("plain text", None),
        ("$HOME/x", None),
        ("costs $steps.a.data", None),
        ("{items} {indexes} {", None),
        ("$steps.a", Some(Template::Whole(step("a", 0, &[])))),
        (
            "$steps.a.data.files.0",
            Some(Template::Whole(step("a", 0, &["data", "files", "0"]))),
        ),
        // Ids may hold dots: the longest id wins.
        (
            "$steps.a.b.data",
            Some(Template::Whole(step("a.b", 2, &["data"]))),
        ),
        (
            "$vars.dir.name",
            Some(Template::Whole(Reference {
                target: Target::Var {
                    name: "dir".into(),
                    captured_by: None,
                },
                path: vec!["name".into()],
            })),
        ),
        (
            "$vars.files",
            Some(Template::Whole(Reference {
                target: Target::Var {
                    name: "files".into(),
                    captured_by: Some(1),
                },
                path: vec![],
            })),
        ),
        ("{item}", Some(Template::Whole(item(&[])))),
        ("{item.a.0}", Some(Template::Whole(item(&["a", "0"])))),
        ("{index}", Some(Template::Whole(index.clone()))),
        (
            "file {item.name} #{index}",
            Some(Template::Embedded(vec![
                Piece::Text("file ".into()),
                Piece::Reference(item(&["name"])),
                Piece::Text(" #".into()),
                Piece::Reference(index),
            ])),
        ),
        (
            "$$steps.a.data",
            Some(Template::Literal("$steps.a.data".into())),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_template(text, &TestNames), Ok(expected), "{text}");
    }
}

#[test]
fn malformed_references_are_refused_naming_them() {
    let cases = [
        ("$steps", "reference $steps names no step"),
        ("$steps.", "reference $steps. names no step"),
        (
            "$steps.x.data",
            "reference $steps.x.data is to an unknown step \"x\"",
        ),
        (
            "$steps.a..data",
            "reference $steps.a..data has an empty path segment",
        ),
        ("$steps.a.", "reference $steps.a. has an empty path segment"),
        ("$vars", "reference $vars names no var"),
        ("$vars.", "reference $vars. names no var"),
        (
            "$vars.x..y",
            "reference $vars.x..y has an empty path segment",
        ),
        ("{item.name", "reference {item.name is not closed with }"),
        ("{item.}", "reference {item.} has an empty path segment"),
        (
            "a {item.x..y} b",
            "reference {item.x..y} has an empty path segment",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(
            parse_template(text, &TestNames),
            Err(message.to_string()),
            "{text}"
        );
    }
}

#[test]
fn templates_are_found_in_values_only_with_their_places() {
    let args = json!({
        "$steps.a": "keys are never references",
        "list": ["x", "$steps.a.data", {"deep": "{index}"}],
        "n": 1,
    });
    let found = find_templates(&args, &TestNames).unwrap();
    assert_eq!(
        found,
        vec![
            TemplateAt {
                at: vec![Slot::Key("list".into()), Slot::Index(1)],
                template: Template::Whole(step("a", 0, &["data"])),
            },
            TemplateAt {
                at: vec![
                    Slot::Key("list".into()),
                    Slot::Index(2),
                    Slot::Key("deep".into())
                ],
                template: Template::Whole(Reference {
                    target: Target::Index,
                    path: vec![]
                }),
            },
        ]
    );
}

fn records() -> Vec<Option<Value>> {
    vec![
        Some(json!({
            "data": {
                "files": [{ "name": "a.txt", "size": 3 }, { "name": "b.txt", "size": 5 }],
                "data": { "files": "shadow" },
                "status": { "code": 200 },
            },
            "content": [{ "type": "text", "text": "two files" }],
            "status": "ok",
        })),
        Some(Value::Null),
        None,
    ]
}

#[test]
fn whole_references_keep_their_type_and_embedded_ones_are_stringified() {
    let records = records();
    let captured = vec![None, Some(json!(["x", "y"])), None];
    let mut vars = Map::new();
    vars.insert("dir".into(), json!("/tmp"));
    let item = json!({ "name": "a.txt", "tags": ["t"], "size": 3 });
    let scope = Scope {
        records: &records,
        captured: &captured,
        vars: &vars,
        item: Some(&item),
        index: Some(2),
    };
    let names = TestNames;
    let cases = [
        ("$steps.a.data.files.1.name", json!("b.txt")),
        (
            "$steps.a.data.files.0",
            json!({ "name": "a.txt", "size": 3 }),
        ),
        ("$steps.a.data.files.1.size", json!(5)),
        // The ActionPlan contract: `$steps.<id>.<path>` reads the step's data, and so does the
        // explicit `.data.` form; `$content` names the result's content blocks.
        ("$steps.a.files.1.name", json!("b.txt")),
        ("$steps.a.files.0.size", json!(3)),
        ("$steps.a.files.1", json!({ "name": "b.txt", "size": 5 })),
        ("$steps.a.data.data", json!({ "files": "shadow" })),
        ("$steps.a.data.data.files", json!("shadow")),
        ("$steps.a.data.files.0.name", json!("a.txt")),
        ("$steps.a.$content.0.text", json!("two files")),
        ("$steps.a.status.code", json!(200)),
        ("{item.name}={steps}", json!("a.txt={steps}")),
        // A step that failed under `continue` resolves to null, whatever the path.
        ("$steps.list.data.anything", Value::Null),
        ("$vars.files", json!(["x", "y"])),
        ("$vars.dir", json!("/tmp")),
        ("{item}", item.clone()),
        ("{item.tags}", json!(["t"])),
        ("{index}", json!(2)),
        ("{item.name} is #{index}", json!("a.txt is #2")),
        (
            "tags={item.tags} size={item.size}",
            json!("tags=[\"t\"] size=3"),
        ),
        ("$$vars.dir", json!("$vars.dir")),
    ];
    for (text, expected) in cases {
        let template = parse_template(text, &names).unwrap().unwrap();
        assert_eq!(scope.render(&template), Ok(expected), "{text}");
    }
}

#[test]
fn missing_paths_fail_with_a_clear_message() {
    let records = records();
    let captured = vec![None; 3];
    let vars = Map::new();
    let item = json!("plain");
    let scope = Scope {
        records: &records,
        captured: &captured,
        vars: &vars,
        item: Some(&item),
        index: None,
    };
    let cases = [
        (
            "$steps.a.data.files.7",
            "reference $steps.a.data.files.7 does not resolve: \"data.files\" has 2 elements, \
             no element 7",
        ),
        (
            "$steps.a.files.7",
            "reference $steps.a.files.7 does not resolve: \"files\" has 2 elements, \
             no element 7",
        ),
        (
            "$steps.a.data.nope",
            "reference $steps.a.data.nope does not resolve: \"data\" has no key \"nope\"",
        ),
        (
            "$steps.a.files.first",
            "reference $steps.a.files.first does not resolve: \"files\" is an array, \
             and \"first\" is not an index",
        ),
        // Only `$content` names a field of the record: its status is not reachable (a step
        // that can be referred to succeeded).
        (
            "$steps.a.$status",
            "reference $steps.a.$status does not resolve: the step's data has no key \"$status\"",
        ),
        (
            "$steps.a.b",
            "reference $steps.a.b: step \"a.b\" has not completed",
        ),
        (
            "{item.name}",
            "reference {item.name} does not resolve: the value is a string, which has no \"name\"",
        ),
        ("{index}", "reference {index} is outside a foreach"),
    ];
    for (text, message) in cases {
        let template = parse_template(text, &TestNames).unwrap().unwrap();
        assert_eq!(scope.render(&template), Err(message.to_string()), "{text}");
    }
}

/// A scope of step records only: nothing captured, outside any `foreach`.
fn steps_only<'a>(records: &'a [Option<Value>], vars: &'a Map<String, Value>) -> Scope<'a> {
    const NONE: &[Option<Value>] = &[None, None, None];
    Scope {
        records,
        captured: NONE,
        vars,
        item: None,
        index: None,
    }
}

/// A `foreach` step's record is the list of its iterations' records: the step as a whole is the
/// list of their data, and after the iteration's index the path reads that iteration's data.
#[test]
fn foreach_steps_read_each_iteration_s_data() {
    let iteration = |n: u64| json!({ "data": { "n": n }, "content": [], "status": "ok" });
    let records = vec![Some(json!([iteration(1), iteration(2)])), None, None];
    let vars = Map::new();
    let scope = steps_only(&records, &vars);
    for (text, expected) in [
        ("$steps.a", Ok(json!([{ "n": 1 }, { "n": 2 }]))),
        ("$steps.a.1", Ok(json!({ "n": 2 }))),
        ("$steps.a.1.n", Ok(json!(2))),
        ("$steps.a.0.data.n", Ok(json!(1))),
        ("$steps.a.0.$content", Ok(json!([]))),
        (
            "$steps.a.1.data.m",
            Err("reference $steps.a.1.data.m does not resolve: \"1.data\" has no key \"m\""
                .to_string()),
        ),
        (
            "$steps.a.n",
            Err("reference $steps.a.n does not resolve: the step's list of iterations is an array, \
                 and \"n\" is not an index"
                .to_string()),
        ),
    ] {
        let template = parse_template(text, &TestNames).unwrap().unwrap();
        assert_eq!(scope.render(&template), expected, "{text}");
    }
}

/// A message quotes at most about a kilobyte of a reference, however long it is.
#[test]
fn messages_quote_long_references_bounded() {
    let long = format!("$steps.nope.{}", "x".repeat(20_000));
    let message = parse_template(&long, &TestNames).unwrap_err();
    assert!(
        message.len() < 2 * crate::quote::MAX_QUOTED_BYTES + 200,
        "{}",
        message.len()
    );
    assert!(message.contains("more bytes not shown"), "{message}");
    let (records, vars) = (records(), Map::new());
    let scope = steps_only(&records, &vars);
    let long = format!("$steps.a.{}", "y".repeat(20_000));
    let template = parse_template(&long, &TestNames).unwrap().unwrap();
    let message = scope.render(&template).unwrap_err();
    assert!(
        message.len() < 3 * crate::quote::MAX_QUOTED_BYTES,
        "{}",
        message.len()
    );
}

#[test]
fn args_are_rendered_in_place_and_the_original_kept() {
    let records = records();
    let captured = vec![None; 3];
    let vars = Map::new();
    let args = json!({ "path": "$steps.a.data.files.0.name", "keep": [1, "{x}"] });
    let templates = find_templates(&args, &TestNames).unwrap();
    let scope = Scope {
        records: &records,
        captured: &captured,
        vars: &vars,
        item: None,
        index: None,
    };
    assert_eq!(
        scope.render_args(&args, &templates),
        Ok(json!({ "path": "a.txt", "keep": [1, "{x}"] }))
    );
    assert_eq!(args["path"], json!("$steps.a.data.files.0.name"));
}

#[test]
fn follow_indexes_arrays_with_numbers_and_objects_with_keys() {
    let value = json!({ "0": "key zero", "list": [[1, 2], [3]] });
    let path = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(follow(&value, &path(&["0"])), Ok(&json!("key zero")));
    assert_eq!(follow(&value, &path(&["list", "0", "1"])), Ok(&json!(2)));
    assert_eq!(follow(&value, &path(&[])), Ok(&value));
    assert!(follow(&value, &path(&["list", "-1"])).is_err());
}
