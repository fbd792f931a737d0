//! The arguments of a Gemini call streamed as `partialArgs`: an ordered tree built from
//! `jsonPath`s (`$.a.b[0]`, `$['key']`) and values, written out as compact JSON when the call
//! ends. Keys keep their first-seen order, so the text reads as the model wrote it; building
//! and writing are linear in the arguments' size.

use super::partial_json::{PartialOp, PathSegment};
use crate::json_text::push_json_string;
use std::collections::HashMap;

/// The arguments of a streamed call, as an ordered tree.
#[derive(Debug)]
pub(super) enum Node {
    Null,
    Bool(bool),
    /// JSON number text.
    Number(String),
    String(String),
    Array(Vec<Node>),
    Object(Object),
}

/// Object members in first-seen order; looked up through an index once there are many.
#[derive(Debug, Default)]
pub(super) struct Object {
    entries: Vec<(String, Node)>,
    index: Option<HashMap<String, usize>>,
}

/// Past this many members an object keeps a key index, so lookups stay O(1).
const INDEX_FROM: usize = 16;
/// The largest gap of missing array elements filled with `null` (a later index than the next).
const MAX_INDEX_GAP: usize = 4096;

impl Object {
    pub(super) fn get_or_insert(&mut self, key: &str) -> &mut Node {
        let position = match &mut self.index {
            Some(index) => index.get(key).copied(),
            None => self.entries.iter().position(|(k, _)| k == key),
        };
        let position = match position {
            Some(position) => position,
            None => {
                self.entries.push((key.to_owned(), Node::Null));
                let position = self.entries.len() - 1;
                if let Some(index) = &mut self.index {
                    index.insert(key.to_owned(), position);
                } else if self.entries.len() > INDEX_FROM {
                    self.index = Some(
                        self.entries
                            .iter()
                            .enumerate()
                            .map(|(i, (k, _))| (k.clone(), i))
                            .collect(),
                    );
                }
                position
            }
        };
        &mut self.entries[position].1
    }
}

impl Node {
    pub(super) fn write(&self, out: &mut String) {
        match self {
            Node::Null => out.push_str("null"),
            Node::Bool(true) => out.push_str("true"),
            Node::Bool(false) => out.push_str("false"),
            Node::Number(text) => out.push_str(text),
            Node::String(text) => push_json_string(out, text),
            Node::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Node::Object(object) => {
                out.push('{');
                for (i, (key, value)) in object.entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    push_json_string(out, key);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// The node at `path`, creating containers on the way (an object for a key, an array for an
/// index). Elements skipped by an index past the end are filled with `null` and reported in
/// `ops`. A value of another type on the way is replaced by the container and `replaced` set.
/// Fails with the index when it lies too far past the end of its array.
pub(super) fn place<'n>(
    root: &'n mut Node,
    path: &[PathSegment],
    ops: &mut Vec<PartialOp>,
    replaced: &mut bool,
) -> Result<&'n mut Node, usize> {
    let mut node = root;
    for (depth, segment) in path.iter().enumerate() {
        node = match segment {
            PathSegment::Key(key) => {
                if !matches!(node, Node::Object(_)) {
                    *replaced |= !matches!(node, Node::Null);
                    *node = Node::Object(Object::default());
                }
                let Node::Object(object) = node else {
                    unreachable!("just made an object")
                };
                object.get_or_insert(key)
            }
            PathSegment::Index(index) => {
                let index = *index;
                if !matches!(node, Node::Array(_)) {
                    *replaced |= !matches!(node, Node::Null);
                    *node = Node::Array(Vec::new());
                }
                let Node::Array(items) = node else {
                    unreachable!("just made an array")
                };
                if index > items.len() {
                    if index - items.len() > MAX_INDEX_GAP {
                        return Err(index);
                    }
                    for missing in items.len()..index {
                        let mut missing_path = path[..depth].to_vec();
                        missing_path.push(PathSegment::Index(missing));
                        ops.push(PartialOp::Value {
                            path: missing_path,
                            json: "null".to_owned(),
                        });
                    }
                    items.resize_with(index, || Node::Null);
                }
                if index == items.len() {
                    items.push(Node::Null);
                }
                &mut items[index]
            }
        };
    }
    Ok(node)
}

/// Parses a `jsonPath` as Gemini writes it: `$`, then `.key`, `[n]`, `['key']` or `["key"]`.
pub(super) fn parse_path(text: &str) -> Result<Vec<PathSegment>, String> {
    let rest = text
        .strip_prefix('$')
        .ok_or_else(|| "it does not start with $".to_owned())?;
    let bytes = rest.as_bytes();
    let mut segments = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'.' => {
                let start = i + 1;
                let mut end = start;
                while end < bytes.len() && bytes[end] != b'.' && bytes[end] != b'[' {
                    end += 1;
                }
                if end == start {
                    return Err(format!("an empty key at offset {}", start + 1));
                }
                segments.push(PathSegment::Key(rest[start..end].to_owned()));
                i = end;
            }
            b'[' => {
                let quote = bytes.get(i + 1).copied();
                if matches!(quote, Some(b'\'') | Some(b'"')) {
                    let quote = quote.unwrap_or(b'"');
                    let mut key = String::new();
                    let mut j = i + 2;
                    let mut run = j;
                    loop {
                        match bytes.get(j) {
                            None => return Err("an unterminated quoted key".to_owned()),
                            Some(b'\\') if j + 1 < bytes.len() => {
                                key.push_str(&rest[run..j]);
                                let escaped = j + 1;
                                let width =
                                    rest[escaped..].chars().next().map_or(1, char::len_utf8);
                                key.push_str(&rest[escaped..escaped + width]);
                                j = escaped + width;
                                run = j;
                            }
                            Some(&b) if b == quote => {
                                key.push_str(&rest[run..j]);
                                break;
                            }
                            Some(_) => j += 1,
                        }
                    }
                    if bytes.get(j + 1) != Some(&b']') {
                        return Err(format!(
                            "a quoted key not followed by ] at offset {}",
                            j + 2
                        ));
                    }
                    segments.push(PathSegment::Key(key));
                    i = j + 2;
                } else {
                    let start = i + 1;
                    let mut end = start;
                    while end < bytes.len() && bytes[end].is_ascii_digit() {
                        end += 1;
                    }
                    if end == start || bytes.get(end) != Some(&b']') {
                        return Err(format!("a bad index at offset {}", start + 1));
                    }
                    let index = rest[start..end]
                        .parse::<usize>()
                        .map_err(|_| format!("an index too large at offset {}", start + 1))?;
                    segments.push(PathSegment::Index(index));
                    i = end + 1;
                }
            }
            _ => return Err(format!("an unexpected character at offset {}", i + 1)),
        }
    }
    Ok(segments)
}
