//! Merging schemas into one object: the branches of an `allOf` (every target that cannot send
//! `allOf`), the variants of a root union, and several schemas of one property.

use std::collections::{HashMap, HashSet};

use indexmap::IndexMap;

use serde_json::Value;

use super::node::{child, short, show, At, Name, Node, Obj, Val, Word};
use super::report::Report;
use crate::canonical::args_sha256;

/// Why an `allOf` cannot be merged: the pointer of the branch at fault and what it is.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub at: String,
    pub what: String,
}

/// How a schema is described in messages: its `type`, or `false`, or what it lacks.
pub(crate) fn describe(node: &Node) -> String {
    match node {
        Node::Bool(b) => b.to_string(),
        Node::Obj(obj) => match (obj.data("type"), obj.data("const")) {
            (Some(t), _) => format!("type {}", short(t)),
            (None, Some(c)) => format!("const {}", short(c)),
            (None, None) => "a schema without \"type\"".to_owned(),
        },
    }
}

/// Whether two schemas are the same JSON.
pub(crate) fn same(a: &Node, b: &Node) -> bool {
    a.to_value() == b.to_value()
}

/// Merges `obj`'s `allOf` into it; one that cannot be merged is dropped, and the report says
/// why (for targets that take no `allOf`).
pub(crate) fn merge_or_drop_all_of(obj: &mut Obj, report: &mut Report) {
    let Some(at) = obj.words.get("allOf").map(|w| w.at.clone()) else {
        return;
    };
    if let Err(refusal) = merge_all_of(obj, report) {
        report.dropped(&at, "allOf");
        report.warn(format!(
            "{}: cannot be merged ({} at {}) and is dropped; its constraints are not sent",
            child(&at, "allOf"),
            refusal.what,
            show(&refusal.at)
        ));
    }
}

/// Sends `oneOf` as `anyOf` (for targets that take no `oneOf`); when the schema has an `anyOf`
/// too, `oneOf` is dropped and the warning ends with `only_one_union`, saying why.
pub(crate) fn one_of_as_any_of(obj: &mut Obj, report: &mut Report, only_one_union: &str) {
    let Some(word) = obj.words.shift_remove("oneOf") else {
        return;
    };
    let at = child(&word.at, "oneOf");
    if obj.has("anyOf") {
        report.dropped(&word.at, "oneOf");
        report.warn(format!(
            "{at}: dropped, since the schema has an anyOf as well and {only_one_union}"
        ));
    } else {
        report.warn(format!(
            "{at}: sent as anyOf; a value matching several branches is accepted too"
        ));
        obj.words.insert("anyOf".to_owned(), word);
    }
}

/// Merges the `allOf` of `obj` into `obj`: nested `allOf`s are flattened, `properties` merged
/// by name (a property defined differently by two parts becomes an `allOf` of both, for the
/// caller to merge in turn), `required` united, any other keyword taken when `obj` lacks it
/// (a different value than `obj`'s is dropped and reported). Refused, with the `allOf` taken
/// out of `obj`, when a part is `false` or its `type` differs from another's.
pub(crate) fn merge_all_of(obj: &mut Obj, report: &mut Report) -> Result<(), Refusal> {
    let Some(word) = obj.words.shift_remove("allOf") else {
        return Ok(());
    };
    let list_at = child(&word.at, "allOf");
    let Val::List(branches) = word.val else {
        return Err(Refusal {
            at: list_at,
            what: "not a list of schemas".to_owned(),
        });
    };
    let mut stack: Vec<(Node, String)> = branches
        .into_iter()
        .enumerate()
        .rev()
        .map(|(i, b)| (b, child(&list_at, &i.to_string())))
        .collect();
    let mut parts: Vec<Obj> = Vec::new();
    while let Some((node, at)) = stack.pop() {
        match node {
            Node::Bool(true) => {}
            Node::Bool(false) => {
                return Err(Refusal {
                    at,
                    what: "false".to_owned(),
                })
            }
            Node::Obj(mut part) => {
                if let Some(inner) = part.words.shift_remove("allOf") {
                    let inner_at = child(&inner.at, "allOf");
                    match inner.val {
                        Val::List(items) => {
                            for (i, item) in items.into_iter().enumerate().rev() {
                                stack.push((item, child(&inner_at, &i.to_string())));
                            }
                        }
                        val => {
                            part.words
                                .insert("allOf".to_owned(), Word { at: inner.at, val });
                        }
                    }
                }
                parts.push(part);
            }
        }
    }
    let mut kind: Option<&Value> = obj.data("type");
    for part in &parts {
        if let Some(t) = part.data("type") {
            match kind {
                None => kind = Some(t),
                Some(k) if k == t => {}
                Some(k) => {
                    return Err(Refusal {
                        at: part.at.to_string(),
                        what: format!("type {} where another part has type {}", short(t), short(k)),
                    })
                }
            }
        }
    }
    for part in parts {
        for (name, word) in part.words {
            lift(obj, name, word, report);
        }
    }
    Ok(())
}

/// Adds keyword `name` of an `allOf` part to `obj`.
fn lift(obj: &mut Obj, name: String, word: Word, report: &mut Report) {
    let Some(existing) = obj.words.get_mut(&name) else {
        obj.words.insert(name, word);
        return;
    };
    match (&mut existing.val, word.val) {
        (Val::Map(base), Val::Map(extra)) if name == "properties" => {
            for (key, node) in extra {
                match base.get_mut(&key) {
                    None => {
                        base.insert(key, node);
                    }
                    Some(current) if same(current, &node) => {}
                    Some(current) => {
                        let at = match &*current {
                            Node::Obj(o) => o.at.clone(),
                            Node::Bool(_) => {
                                At::from(child(&child(&existing.at, "properties"), &key))
                            }
                        };
                        let first = std::mem::replace(current, Node::Bool(true));
                        let mut both = Obj::empty(at);
                        both.set("allOf", Val::List(vec![first, node]));
                        *current = Node::Obj(both);
                    }
                }
            }
        }
        (Val::Names(base), Val::Names(extra)) => unite(base, extra),
        (current, val) => {
            if current.to_value() != val.to_value() {
                report.dropped(&word.at, &name);
                report.warn(format!(
                    "{}: differs from {} of another part of the same allOf ({}) and is dropped",
                    child(&word.at, &name),
                    name,
                    show(&child(&existing.at, &name))
                ));
            }
        }
    }
}

/// `base` with the names of `extra` it lacks appended.
pub(crate) fn unite(base: &mut Vec<Name>, extra: Vec<Name>) {
    let mut seen: HashSet<String> = base.iter().map(|n| n.name.clone()).collect();
    for entry in extra {
        if seen.insert(entry.name.clone()) {
            base.push(entry);
        }
    }
}

/// Distinct schemas in order of first appearance (compared as JSON, found by hash).
#[derive(Default)]
pub(crate) struct Distinct {
    nodes: Vec<(Value, Node)>,
    by_hash: HashMap<String, Vec<usize>>,
}

impl Distinct {
    /// Adds `node` unless the same schema is there already.
    pub(crate) fn add(&mut self, node: Node) {
        let value = node.to_value();
        let slot = self.by_hash.entry(args_sha256(&value)).or_default();
        if slot.iter().any(|&i| self.nodes[i].0 == value) {
            return;
        }
        slot.push(self.nodes.len());
        self.nodes.push((value, node));
    }

    /// The distinct schemas merged into one: itself when there is one; one `enum` when all
    /// are `enum`/`const` and otherwise equal; else an `anyOf` of them (its origin `at`).
    pub(crate) fn merge(self, at: &At) -> Node {
        let mut nodes: Vec<Node> = self.nodes.into_iter().map(|(_, n)| n).collect();
        if nodes.len() == 1 {
            return nodes.remove(0);
        }
        if let Some(merged) = merge_enums(&nodes) {
            return merged;
        }
        let mut any = Obj::empty(at.clone());
        any.set("anyOf", Val::List(nodes));
        Node::Obj(any)
    }
}

/// One schema with the values of all `enum`s/`const`s, when every node has one and the nodes
/// are otherwise the same.
fn merge_enums(nodes: &[Node]) -> Option<Node> {
    let mut rest_of_first: Option<Value> = None;
    let mut values: Vec<Value> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut enum_at: Option<At> = None;
    for node in nodes {
        let obj = node.as_obj()?;
        let listed: Vec<Value> = match (obj.data("enum"), obj.data("const")) {
            (Some(Value::Array(items)), None) => items.clone(),
            (None, Some(c)) => vec![c.clone()],
            _ => return None,
        };
        let mut rest = obj.clone();
        let word = rest
            .words
            .shift_remove("enum")
            .or_else(|| rest.words.shift_remove("const"))?;
        enum_at.get_or_insert(word.at);
        let rest = rest.to_value();
        match &rest_of_first {
            None => rest_of_first = Some(rest),
            Some(first) if *first == rest => {}
            Some(_) => return None,
        }
        for value in listed {
            if seen.insert(value.to_string()) {
                values.push(value);
            }
        }
    }
    let mut merged = nodes[0].as_obj()?.clone();
    merged.words.shift_remove("const");
    merged.words.insert(
        "enum".to_owned(),
        Word {
            at: enum_at?,
            val: Val::Data(Value::Array(values)),
        },
    );
    Some(Node::Obj(merged))
}

/// The variants of a union flattened: a variant that is nothing but another `anyOf`/`oneOf`
/// is replaced by its variants.
pub(crate) fn flatten_union(variants: Vec<Node>) -> Vec<Node> {
    let mut out = Vec::with_capacity(variants.len());
    let mut stack: Vec<Node> = variants.into_iter().rev().collect();
    while let Some(node) = stack.pop() {
        match node {
            Node::Obj(mut obj) if is_pure_union(&obj) => {
                let word = obj.words.shift_remove_index(0).map(|(_, w)| w);
                if let Some(Word {
                    val: Val::List(inner),
                    ..
                }) = word
                {
                    stack.extend(inner.into_iter().rev());
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether `obj` has one keyword, an `anyOf` or `oneOf` list.
pub(crate) fn is_pure_union(obj: &Obj) -> bool {
    obj.words.len() == 1
        && obj
            .words
            .iter()
            .all(|(name, w)| (name == "anyOf" || name == "oneOf") && matches!(w.val, Val::List(_)))
}

/// The properties, `required` intersection and common `additionalProperties` of object
/// variants being merged into one object.
#[derive(Default)]
pub(crate) struct ObjectUnion {
    props: IndexMap<String, Distinct>,
    required: Option<Vec<Name>>,
    additional: Option<Option<Value>>,
    variants: usize,
}

impl ObjectUnion {
    /// Adds one object variant (`true` or a schema object).
    pub(crate) fn add(&mut self, variant: Option<Obj>) {
        self.variants += 1;
        let Some(variant) = variant else {
            self.required = Some(Vec::new());
            self.additional = Some(None);
            return;
        };
        let additional = variant
            .words
            .get("additionalProperties")
            .map(|w| w.val.to_value());
        self.additional = match self.additional.take() {
            None => Some(additional),
            Some(prev) if prev == additional => Some(prev),
            Some(_) => Some(None),
        };
        let mut words = variant.words;
        let names = match words.shift_remove("required").map(|w| w.val) {
            Some(Val::Names(names)) => names,
            _ => Vec::new(),
        };
        self.required = Some(match self.required.take() {
            None => names,
            Some(prev) => {
                let here: HashSet<&str> = names.iter().map(|n| n.name.as_str()).collect();
                prev.into_iter()
                    .filter(|n| here.contains(n.name.as_str()))
                    .collect()
            }
        });
        if let Some(Word {
            val: Val::Map(props),
            ..
        }) = words.shift_remove("properties")
        {
            for (key, node) in props {
                self.props.entry(key).or_default().add(node);
            }
        }
    }

    /// Merges the union into `obj`: its own properties and `required` win and stay.
    pub(crate) fn merge_into(self, obj: &mut Obj) {
        let at = obj.at.clone();
        let merged: IndexMap<String, Node> = self
            .props
            .into_iter()
            .map(|(key, distinct)| (key, distinct.merge(&at)))
            .collect();
        match obj.words.get_mut("properties") {
            Some(Word {
                val: Val::Map(own), ..
            }) => {
                for (key, node) in merged {
                    own.entry(key).or_insert(node);
                }
            }
            _ => obj.set("properties", Val::Map(merged)),
        }
        let required = self.required.unwrap_or_default();
        match obj.words.get_mut("required") {
            Some(Word {
                val: Val::Names(own),
                ..
            }) => unite(own, required),
            _ => {
                if !required.is_empty() {
                    obj.set("required", Val::Names(required));
                }
            }
        }
        if let Some(Some(additional)) = self.additional {
            if !obj.has("additionalProperties") {
                let node = match additional {
                    Value::Bool(b) => Node::Bool(b),
                    _ => return,
                };
                obj.set("additionalProperties", Val::One(Box::new(node)));
            }
        }
        if !obj.has("type") {
            obj.set("type", Val::Data(Value::String("object".to_owned())));
        }
    }

    /// How many variants were added.
    pub(crate) fn variants(&self) -> usize {
        self.variants
    }
}

/// Drops the keywords of `obj` that `fits(name, value)` refuses (unknown to the target, or of a
/// shape it cannot take), reporting each; for a keyword in `keep` (one the target has, in
/// another form) a warning says `{path}: this form of {name} {why} and is dropped`.
pub(crate) fn drop_unfit(
    obj: &mut Obj,
    report: &mut Report,
    keep: &[&str],
    why: &str,
    fits: impl Fn(&str, &Val) -> bool,
) {
    let dropped: Vec<(String, At)> = obj
        .words
        .iter()
        .filter(|(name, word)| !fits(name.as_str(), &word.val))
        .map(|(name, word)| (name.clone(), word.at.clone()))
        .collect();
    for (name, at) in dropped {
        obj.words.shift_remove(&name);
        report.dropped(&at, &name);
        if keep.contains(&name.as_str()) {
            report.warn(format!(
                "{}: this form of {name} {why} and is dropped",
                child(&at, &name)
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(value: Value) -> Node {
        let mut report = Report::default();
        super::super::refs::inline(&value, &Default::default(), &mut report).unwrap()
    }

    fn obj(value: Value) -> Obj {
        match node(value) {
            Node::Obj(o) => o,
            Node::Bool(_) => panic!("not an object"),
        }
    }

    #[test]
    fn all_of_parts_merge_into_one() {
        let cases = [
            (
                json!({"allOf": [{"properties": {"a": {}}, "required": ["a"]},
                                 {"type": "object", "properties": {"b": {}}, "required": ["b", "a"]}]}),
                json!({"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a", "b"]}),
            ),
            (
                json!({"type": "string", "allOf": [{"minLength": 1}, {"allOf": [{"maxLength": 5}]}]}),
                json!({"type": "string", "minLength": 1, "maxLength": 5}),
            ),
            (
                json!({"allOf": [{"properties": {"a": {"minimum": 1}}}, {"properties": {"a": {"maximum": 5}}}]}),
                json!({"properties": {"a": {"allOf": [{"minimum": 1}, {"maximum": 5}]}}}),
            ),
        ];
        for (input, expected) in cases {
            let mut o = obj(input.clone());
            let mut report = Report::default();
            merge_all_of(&mut o, &mut report).unwrap();
            assert_eq!(o.to_value(), expected, "{input}");
        }
    }

    #[test]
    fn all_of_conflicts_are_reported_or_refused() {
        let mut o = obj(json!({"description": "a", "allOf": [{"description": "b"}]}));
        let mut report = Report::default();
        merge_all_of(&mut o, &mut report).unwrap();
        assert_eq!(o.to_value(), json!({"description": "a"}));
        let (removed, warnings) = report.finish(&json!({}));
        assert_eq!(removed[0].path, "/allOf/0/description");
        assert_eq!(warnings.len(), 1);

        for (input, at) in [
            (
                json!({"allOf": [{"type": "object"}, {"type": "string"}]}),
                "/allOf/1",
            ),
            (
                json!({"type": "object", "allOf": [{"type": "string"}]}),
                "/allOf/0",
            ),
            (json!({"allOf": [true, false]}), "/allOf/1"),
        ] {
            let mut o = obj(input.clone());
            let refusal = merge_all_of(&mut o, &mut Report::default()).unwrap_err();
            assert_eq!(refusal.at, at, "{input}");
        }
    }

    #[test]
    fn distinct_schemas_merge_to_one_enum_or_an_any_of() {
        let at = At::from("");
        let cases = [
            (
                vec![json!({"type": "string"}), json!({"type": "string"})],
                json!({"type": "string"}),
            ),
            (
                vec![
                    json!({"type": "string", "const": "a"}),
                    json!({"type": "string", "enum": ["b", "a"]}),
                ],
                json!({"type": "string", "enum": ["a", "b"]}),
            ),
            (
                vec![json!({"type": "string"}), json!({"type": "integer"})],
                json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
            ),
            (
                vec![
                    json!({"type": "string", "enum": ["a"]}),
                    json!({"type": "integer", "enum": [1]}),
                ],
                json!({"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "integer", "enum": [1]}]}),
            ),
        ];
        for (inputs, expected) in cases {
            let mut distinct = Distinct::default();
            for input in &inputs {
                distinct.add(node(input.clone()));
            }
            assert_eq!(distinct.merge(&at).to_value(), expected, "{inputs:?}");
        }
    }

    #[test]
    fn nested_pure_unions_flatten() {
        let o = obj(
            json!({"anyOf": [{"anyOf": [{"const": 1}, {"oneOf": [{"const": 2}]}]}, {"const": 3, "description": "d"}]}),
        );
        let Some(Word {
            val: Val::List(variants),
            ..
        }) = o.words.get("anyOf")
        else {
            panic!()
        };
        let flat: Vec<Value> = flatten_union(variants.clone())
            .iter()
            .map(Node::to_value)
            .collect();
        assert_eq!(
            flat,
            [
                json!({"const": 1}),
                json!({"const": 2}),
                json!({"const": 3, "description": "d"})
            ]
        );
    }
}
