//! References and templates inside a plan step's arguments: parsing them once at validation, and
//! resolving them against the completed steps, the vars and the current `foreach` item when the
//! step is dispatched. The grammar is in the [module doc](super).

use std::fmt;

use serde_json::{Map, Value};

use crate::json_text::json_type;
use crate::quote::bounded;

/// The longest step id, in bytes (ids are ASCII).
pub const MAX_STEP_ID_LEN: usize = 128;

/// What a reference points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// `$steps.<id>`: the record of a completed step, by its index in the plan.
    Step {
        /// The step's id.
        id: String,
        /// The step's index in the plan.
        step: usize,
    },
    /// `$vars.<name>`: a plan var, or the data captured by a step's `captureAs`.
    Var {
        /// The var's name.
        name: String,
        /// The index of the step whose `captureAs` is this name, when it is not a plan var.
        captured_by: Option<usize>,
    },
    /// `{item}` / `{item.<path>}`: the current `foreach` item.
    Item,
    /// `{index}`: the current `foreach` index, from 0.
    Index,
}

/// One reference: a target and a path of segments into its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// What it points at.
    pub target: Target,
    /// The segments after the target: object keys, or array indexes written as numbers.
    pub path: Vec<String>,
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (open, head, close) = match &self.target {
            Target::Step { id, .. } => ("", format!("$steps.{id}"), ""),
            Target::Var { name, .. } => ("", format!("$vars.{name}"), ""),
            Target::Item => ("{", "item".to_string(), "}"),
            Target::Index => ("{", "index".to_string(), "}"),
        };
        write!(f, "{open}{head}")?;
        for segment in &self.path {
            write!(f, ".{segment}")?;
        }
        f.write_str(close)
    }
}

/// A piece of an embedded template string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Literal text.
    Text(String),
    /// `{item...}` or `{index}`, stringified.
    Reference(Reference),
}

/// What a string in a step's arguments becomes at dispatch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Template {
    /// The whole string is one reference: it becomes the referenced JSON value, of any type.
    Whole(Reference),
    /// Text with embedded `{item...}` / `{index}` references: it stays a string.
    Embedded(Vec<Piece>),
    /// An escaped string (`$$steps...` / `$$vars...`): it becomes this text, without the escape.
    Literal(String),
}

impl Template {
    /// Every reference the template holds.
    pub fn references(&self) -> Vec<&Reference> {
        match self {
            Template::Whole(reference) => vec![reference],
            Template::Embedded(pieces) => pieces
                .iter()
                .filter_map(|piece| match piece {
                    Piece::Reference(reference) => Some(reference),
                    Piece::Text(_) => None,
                })
                .collect(),
            Template::Literal(_) => Vec::new(),
        }
    }
}

/// Where names resolve while parsing: step ids and `captureAs` names.
pub trait Names {
    /// The index of the step with this id.
    fn step(&self, id: &str) -> Option<usize>;
    /// The index of the step whose `captureAs` is this name.
    fn capture(&self, name: &str) -> Option<usize>;
}

/// Parses the string `text`: `Ok(None)` when it holds no reference and stays as it is; `Err` with
/// a message naming the reference when a reference is malformed or names an unknown step.
pub fn parse_template(text: &str, names: &dyn Names) -> Result<Option<Template>, String> {
    if text.starts_with("$$steps") || text.starts_with("$$vars") {
        return Ok(Some(Template::Literal(text[1..].to_string())));
    }
    if let Some(rest) = reference_rest(text, "$steps") {
        return parse_step_reference(text, rest, names).map(|r| Some(Template::Whole(r)));
    }
    if let Some(rest) = reference_rest(text, "$vars") {
        return parse_var_reference(text, rest, names).map(|r| Some(Template::Whole(r)));
    }
    parse_embedded(text)
}

/// The text after `head.` when `text` is `head` or starts with `head.`.
fn reference_rest<'t>(text: &'t str, head: &str) -> Option<&'t str> {
    let rest = text.strip_prefix(head)?;
    if rest.is_empty() {
        return Some("");
    }
    rest.strip_prefix('.')
}

fn parse_step_reference(text: &str, rest: &str, names: &dyn Names) -> Result<Reference, String> {
    if rest.is_empty() {
        return Err(format!("reference {} names no step", bounded(text)));
    }
    // Step ids may hold dots: take the longest dotted prefix that is a step id.
    let mut found = None;
    for (end, _) in rest.match_indices('.').chain([(rest.len(), "")]) {
        if end > MAX_STEP_ID_LEN {
            break;
        }
        if let Some(step) = names.step(&rest[..end]) {
            found = Some((end, step));
        }
    }
    let Some((end, step)) = found else {
        let first = rest.split('.').next().unwrap_or(rest);
        return Err(format!(
            "reference {} is to an unknown step {}",
            bounded(text),
            quoted(first)
        ));
    };
    let path = parse_path(text, rest.get(end + 1..).unwrap_or(""), end < rest.len())?;
    Ok(Reference {
        target: Target::Step {
            id: rest[..end].to_string(),
            step,
        },
        path,
    })
}

fn parse_var_reference(text: &str, rest: &str, names: &dyn Names) -> Result<Reference, String> {
    let (name, tail) = match rest.split_once('.') {
        Some((name, tail)) => (name, Some(tail)),
        None => (rest, None),
    };
    if name.is_empty() {
        return Err(format!("reference {} names no var", bounded(text)));
    }
    let path = parse_path(text, tail.unwrap_or(""), tail.is_some())?;
    Ok(Reference {
        target: Target::Var {
            name: name.to_string(),
            captured_by: names.capture(name),
        },
        path,
    })
}

/// Splits a dotted path; `present` says a dot announced it, so it must not be empty.
fn parse_path(text: &str, path: &str, present: bool) -> Result<Vec<String>, String> {
    if !present {
        return Ok(Vec::new());
    }
    let segments: Vec<String> = path.split('.').map(str::to_string).collect();
    if segments.iter().any(String::is_empty) {
        return Err(format!(
            "reference {} has an empty path segment",
            bounded(text)
        ));
    }
    Ok(segments)
}

/// Finds `{item}`, `{item.<path>}` and `{index}` in a longer string.
fn parse_embedded(text: &str) -> Result<Option<Template>, String> {
    let mut pieces = Vec::new();
    let mut literal_start = 0;
    let mut cursor = 0;
    while let Some(offset) = text[cursor..].find('{') {
        let open = cursor + offset;
        let after = &text[open..];
        let (reference, len) = if after.starts_with("{index}") {
            (
                Reference {
                    target: Target::Index,
                    path: Vec::new(),
                },
                "{index}".len(),
            )
        } else if after.starts_with("{item}") {
            (
                Reference {
                    target: Target::Item,
                    path: Vec::new(),
                },
                "{item}".len(),
            )
        } else if let Some(tail) = after.strip_prefix("{item.") {
            let Some(close) = tail.find('}') else {
                return Err(format!(
                    "reference {} is not closed with }}",
                    bounded(after)
                ));
            };
            let whole = &after[..close + "{item.}".len()];
            let path = parse_path(whole, &tail[..close], true)?;
            (
                Reference {
                    target: Target::Item,
                    path,
                },
                whole.len(),
            )
        } else {
            cursor = open + 1;
            continue;
        };
        if open > literal_start {
            pieces.push(Piece::Text(text[literal_start..open].to_string()));
        }
        pieces.push(Piece::Reference(reference));
        cursor = open + len;
        literal_start = cursor;
    }
    if pieces.is_empty() {
        return Ok(None);
    }
    if literal_start < text.len() {
        pieces.push(Piece::Text(text[literal_start..].to_string()));
    }
    if let [Piece::Reference(reference)] = pieces.as_slice() {
        return Ok(Some(Template::Whole(reference.clone())));
    }
    Ok(Some(Template::Embedded(pieces)))
}

/// One step on the way from the root of a JSON value to a nested value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A key of an object.
    Key(String),
    /// An index of an array.
    Index(usize),
}

/// A templated string inside a step's arguments: where it is and what it becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateAt {
    /// The path from the arguments' root to the string.
    pub at: Vec<Slot>,
    /// What the string becomes.
    pub template: Template,
}

/// Every templated string value in `value` (object keys are never templates), in document
/// order; the walk is iterative. `Err` carries the message of the first malformed reference.
pub fn find_templates(value: &Value, names: &dyn Names) -> Result<Vec<TemplateAt>, String> {
    let mut found = Vec::new();
    let mut path: Vec<Slot> = Vec::new();
    let mut stack: Vec<(&Value, usize, Option<Slot>)> = vec![(value, 0, None)];
    while let Some((node, depth, slot)) = stack.pop() {
        path.truncate(depth);
        if let Some(slot) = slot {
            path.push(slot);
        }
        match node {
            Value::String(text) => {
                if let Some(template) = parse_template(text, names)? {
                    found.push(TemplateAt {
                        at: path.clone(),
                        template,
                    });
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate().rev() {
                    stack.push((item, path.len(), Some(Slot::Index(index))));
                }
            }
            Value::Object(map) => {
                let children: Vec<_> = map.iter().collect();
                for (key, item) in children.into_iter().rev() {
                    stack.push((item, path.len(), Some(Slot::Key(key.clone()))));
                }
            }
            _ => {}
        }
    }
    Ok(found)
}

/// What references resolve against when a step is dispatched.
pub struct Scope<'a> {
    /// Each step's record, by plan index: `None` while it has not completed, `Some(null)` when it
    /// failed under `onError: continue`.
    pub records: &'a [Option<Value>],
    /// Each step's captured data, by plan index (same convention as `records`).
    pub captured: &'a [Option<Value>],
    /// The plan's vars.
    pub vars: &'a Map<String, Value>,
    /// The current `foreach` item.
    pub item: Option<&'a Value>,
    /// The current `foreach` index.
    pub index: Option<usize>,
}

impl Scope<'_> {
    /// The value `reference` points at, or a message saying why it does not resolve.
    pub fn resolve(&self, reference: &Reference) -> Result<Value, String> {
        let index_value;
        let root: &Value = match &reference.target {
            Target::Step { step, id } => match self.records.get(*step) {
                Some(Some(Value::Null)) => return Ok(Value::Null),
                Some(Some(record)) => {
                    return step_value(record, &reference.path).map_err(|problem| {
                        format!("reference {} does not resolve: {problem}", shown(reference))
                    })
                }
                _ => {
                    return Err(format!(
                        "reference {}: step {} has not completed",
                        shown(reference),
                        quoted(id)
                    ))
                }
            },
            Target::Var {
                captured_by: Some(step),
                ..
            } => match self.captured.get(*step) {
                Some(Some(Value::Null)) => return Ok(Value::Null),
                Some(Some(data)) => data,
                _ => {
                    return Err(format!(
                        "reference {}: its step has not completed",
                        shown(reference)
                    ))
                }
            },
            Target::Var { name, .. } => match self.vars.get(name) {
                Some(value) => value,
                None => {
                    return Err(format!(
                        "reference {} is to an unknown var {}",
                        shown(reference),
                        quoted(name)
                    ))
                }
            },
            Target::Item => match self.item {
                Some(item) => item,
                None => {
                    return Err(format!(
                        "reference {} is outside a foreach",
                        shown(reference)
                    ))
                }
            },
            Target::Index => match self.index {
                Some(index) => {
                    index_value = Value::from(index);
                    &index_value
                }
                None => {
                    return Err(format!(
                        "reference {} is outside a foreach",
                        shown(reference)
                    ))
                }
            },
        };
        follow(root, &reference.path).cloned().map_err(|problem| {
            format!("reference {} does not resolve: {problem}", shown(reference))
        })
    }

    /// What `template` becomes.
    pub fn render(&self, template: &Template) -> Result<Value, String> {
        match template {
            Template::Whole(reference) => self.resolve(reference),
            Template::Literal(text) => Ok(Value::String(text.clone())),
            Template::Embedded(pieces) => {
                let mut out = String::new();
                for piece in pieces {
                    match piece {
                        Piece::Text(text) => out.push_str(text),
                        Piece::Reference(reference) => match self.resolve(reference)? {
                            Value::String(text) => out.push_str(&text),
                            other => out.push_str(&other.to_string()),
                        },
                    }
                }
                Ok(Value::String(out))
            }
        }
    }

    /// A copy of `args` with every template rendered.
    pub fn render_args(&self, args: &Value, templates: &[TemplateAt]) -> Result<Value, String> {
        let mut out = args.clone();
        for TemplateAt { at, template } in templates {
            let rendered = self.render(template)?;
            let mut node = &mut out;
            for slot in at {
                let next = match slot {
                    Slot::Key(key) => node.get_mut(key.as_str()),
                    Slot::Index(index) => node.get_mut(*index),
                };
                node = next.ok_or_else(|| "internal: a template's place vanished".to_string())?;
            }
            *node = rendered;
        }
        Ok(out)
    }
}

/// What `$steps.<id>.<path>` reads in a completed step's record (`{ data, content, status }`, or
/// the list of a `foreach` step's iteration records): the step's data. A first segment `data`
/// names the data explicitly (`$steps.<id>.data.<path>` is the same value as
/// `$steps.<id>.<path>`), and `$content` the result's content blocks; a `foreach` step's first
/// segment is the iteration's index, the rest read that iteration the same way, and the step as
/// a whole is the list of its iterations' data.
fn step_value(record: &Value, path: &[String]) -> Result<Value, String> {
    let Value::Array(iterations) = record else {
        return record_value(record, path, &[]);
    };
    let Some((index, rest)) = path.split_first() else {
        let data: Result<Vec<Value>, String> = iterations
            .iter()
            .map(|r| record_value(r, &[], &[]))
            .collect();
        return data.map(Value::Array);
    };
    let at = std::slice::from_ref(index);
    match follow_from(record, at, &[], "the step's list of iterations")? {
        Value::Null => Ok(Value::Null),
        iteration => record_value(iteration, rest, at),
    }
}

/// The value at `path` in one step record, as [`step_value`] reads it; `before` is the part of
/// the reference's path already followed (a `foreach` index), for messages.
fn record_value(record: &Value, path: &[String], before: &[String]) -> Result<Value, String> {
    let (field, rest, named) = match path.split_first() {
        Some((first, rest)) if first == "data" => ("data", rest, 1),
        Some((first, rest)) if first == "$content" => ("content", rest, 1),
        _ => ("data", path, 0),
    };
    let root = record.get(field).unwrap_or(&Value::Null);
    let mut prefix = before.to_vec();
    prefix.extend_from_slice(&path[..named]);
    follow_from(root, rest, &prefix, "the step's data").cloned()
}

/// A reference as a message shows it, at most [`MAX_QUOTED_BYTES`](crate::quote::MAX_QUOTED_BYTES)
/// of it.
fn shown(reference: &Reference) -> String {
    crate::quote::bounded(&reference.to_string())
}

/// The value at `path` inside `root`: keys index objects, numbers index arrays.
pub fn follow<'v>(root: &'v Value, path: &[String]) -> Result<&'v Value, String> {
    follow_from(root, path, &[], "the value")
}

/// [`follow`], with messages naming where the walk stands as the reference wrote it: `prefix`
/// is the part of its path that led to `root`, and `root_name` names `root` when that is empty.
fn follow_from<'v>(
    root: &'v Value,
    path: &[String],
    prefix: &[String],
    root_name: &str,
) -> Result<&'v Value, String> {
    let mut node = root;
    for (depth, segment) in path.iter().enumerate() {
        // Where the walk stands, named only when a message needs it.
        let at = || {
            let walked: Vec<&str> = prefix
                .iter()
                .chain(&path[..depth])
                .map(String::as_str)
                .collect();
            if walked.is_empty() {
                root_name.to_string()
            } else {
                quoted(&walked.join("."))
            }
        };
        node = match node {
            Value::Object(map) => map
                .get(segment)
                .ok_or_else(|| format!("{} has no key {}", at(), quoted(segment)))?,
            Value::Array(items) => {
                let index: usize = segment.parse().map_err(|_| {
                    format!(
                        "{} is an array, and {} is not an index",
                        at(),
                        quoted(segment)
                    )
                })?;
                items.get(index).ok_or_else(|| {
                    format!("{} has {} elements, no element {index}", at(), items.len())
                })?
            }
            other => {
                return Err(format!(
                    "{} is {}, which has no {}",
                    at(),
                    json_type(other),
                    quoted(segment)
                ))
            }
        };
    }
    Ok(node)
}

/// `"text"` as a JSON string, for messages, at most
/// [`MAX_QUOTED_BYTES`](crate::quote::MAX_QUOTED_BYTES) of it.
pub fn quoted(text: &str) -> String {
    crate::quote::quoted(text)
}
