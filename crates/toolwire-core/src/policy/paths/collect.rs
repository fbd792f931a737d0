//! Finding the path values of one call's arguments, in one pass per source, each value once:
//!
//! 1. the [`PathParam`]s of the tool: those declared in `pathParams` must hold a string or an
//!    array of strings; of those found through its schema only the strings count;
//! 2. every key the naming rule calls a path ([`is_path_name`]), at any depth: every string
//!    under it, at any depth, through arrays and objects alike (`{path: {"0": "/etc/passwd"}}`
//!    is a path, as a tool that takes `Object.values(path)` sees it); other values are not
//!    paths. Two exceptions keep file records usable: an object that has a path-named key of
//!    its own (`files: [{path, content}]`) is a record whose other keys are searched by name
//!    only, and the [`CONTENT_KEYS`] of an object (`files: [{name, content}]`) hold data;
//! 3. every string that is a `file:` URL as Node's `new URL` reads it ([`is_file_url`]), under
//!    any key (`href`, `url`, `link`, free text).
//!
//! The walks use explicit stacks, so deep arguments cost no native stack, and each place is
//! recorded once with its parent, so naming a refused one costs its depth only.

use std::collections::HashSet;

use serde_json::Value;

use super::names::is_path_name;
use super::param::{PathParam, Segment};
use super::resolve::is_file_url;
use super::PathParams;

/// One step from a parent place to a value.
#[derive(Clone, Copy, Debug)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The places of the arguments met by the walks: each its parent (an index) and its step.
#[derive(Debug, Default)]
pub struct Places<'a> {
    places: Vec<(Option<usize>, Step<'a>)>,
}

impl<'a> Places<'a> {
    fn add(&mut self, parent: Option<usize>, step: Step<'a>) -> Option<usize> {
        self.places.push((parent, step));
        Some(self.places.len() - 1)
    }

    fn steps(&self, place: Option<usize>) -> Vec<Step<'a>> {
        let mut steps = Vec::new();
        let mut at = place;
        while let Some(index) = at {
            let (parent, step) = self.places[index];
            steps.push(step);
            at = parent;
        }
        steps.reverse();
        steps
    }

    /// The place as a JSON pointer into the arguments: `/files/0/path`.
    pub fn pointer(&self, place: Option<usize>) -> String {
        let mut out = String::new();
        for step in self.steps(place) {
            match step {
                Step::Key(key) => crate::pointer::push_token(&mut out, key),
                Step::Index(index) => {
                    out.push('/');
                    out.push_str(&index.to_string());
                }
            }
        }
        out
    }

    /// The place as a parameter name: `file_path`, `paths[2]`, `files[0].path`.
    pub fn name(&self, place: Option<usize>) -> String {
        let mut out = String::new();
        for step in self.steps(place) {
            match step {
                Step::Key(key) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                }
                Step::Index(index) => {
                    out.push('[');
                    out.push_str(&index.to_string());
                    out.push(']');
                }
            }
        }
        out
    }
}

/// A value to check: a path string, or a value a path parameter holds that is not one.
#[derive(Debug)]
pub enum Found<'a> {
    /// A path (or `file:` URL) string.
    Path(&'a str),
    /// Not a string or an array of strings, where [`PathParam`] expects one.
    NotAPath(&'a Value),
}

/// The values of `args` to check, each with its place (see the module comment), in this
/// order: the parameters', then the path-named keys' and `file:` URLs not already found.
pub fn collect<'a>(
    args: &'a Value,
    params: &PathParams,
) -> (Places<'a>, Vec<(Option<usize>, Found<'a>)>) {
    let mut places = Places::default();
    let mut found = Vec::new();
    let mut seen: HashSet<*const Value> = HashSet::new();
    let mut out = Out {
        places: &mut places,
        found: &mut found,
        seen: &mut seen,
    };
    for param in &params.declared {
        by_param(args, param, true, &mut out);
    }
    for param in &params.from_schema {
        by_param(args, param, false, &mut out);
    }
    by_name(args, &mut out);
    (places, found)
}

/// Where the walks record what they meet.
struct Out<'o, 'a> {
    places: &'o mut Places<'a>,
    found: &'o mut Vec<(Option<usize>, Found<'a>)>,
    /// The strings already found (by address), so each is checked once.
    seen: &'o mut HashSet<*const Value>,
}

impl<'a> Out<'_, 'a> {
    fn path(&mut self, place: Option<usize>, value: &'a Value, text: &'a str) {
        if self.seen.insert(value) {
            self.found.push((place, Found::Path(text)));
        }
    }
}

/// The values at `param`'s places; `strict`: anything but strings is refused there.
fn by_param<'a>(args: &'a Value, param: &PathParam, strict: bool, out: &mut Out<'_, 'a>) {
    let mut stack: Vec<(&'a Value, Option<usize>, usize)> = vec![(args, None, 0)];
    while let Some((value, place, next)) = stack.pop() {
        let Some(segment) = param.segments.get(next) else {
            held(value, place, strict, out);
            continue;
        };
        match (value, segment) {
            (Value::Object(map), Segment::Key(key)) => {
                if let Some((key, child)) = map.get_key_value(key.as_str()) {
                    stack.push((child, out.places.add(place, Step::Key(key)), next + 1));
                }
            }
            (Value::Object(map), Segment::Any) => {
                for (key, child) in map.iter().rev() {
                    stack.push((child, out.places.add(place, Step::Key(key)), next + 1));
                }
            }
            (Value::Array(items), segment) => {
                let index = match segment {
                    Segment::Key(key) => key.parse::<usize>().ok(),
                    Segment::Any => None,
                };
                match index {
                    Some(index) => {
                        if let Some(item) = items.get(index) {
                            stack.push((item, out.places.add(place, Step::Index(index)), next + 1));
                        }
                    }
                    None => {
                        // `*` consumes the array; a name applies to every item.
                        let after = if *segment == Segment::Any {
                            next + 1
                        } else {
                            next
                        };
                        for (index, item) in items.iter().enumerate().rev() {
                            stack.push((item, out.places.add(place, Step::Index(index)), after));
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// What a parameter holds: a string, an array of strings, `null` (absent), or something else
/// (refused when `strict`, else left to the search by name).
fn held<'a>(value: &'a Value, place: Option<usize>, strict: bool, out: &mut Out<'_, 'a>) {
    match value {
        Value::Null => {}
        Value::String(text) => out.path(place, value, text),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let at = out.places.add(place, Step::Index(index));
                match item {
                    Value::String(text) => out.path(at, item, text),
                    other if strict => out.found.push((at, Found::NotAPath(other))),
                    _ => {}
                }
            }
        }
        other if strict => out.found.push((place, Found::NotAPath(other))),
        _ => {}
    }
}

/// Keys whose strings are data, not paths, in an object under a path-named key (unless the key
/// itself is path-named): the content of a file entry, its encoding, a note about it.
pub const CONTENT_KEYS: &[&str] = &[
    "content",
    "contents",
    "text",
    "data",
    "body",
    "code",
    "encoding",
    "mode",
    "description",
    "message",
    "comment",
];

/// Path-named keys at any depth, and `file:` URLs anywhere.
fn by_name<'a>(args: &'a Value, out: &mut Out<'_, 'a>) {
    // (value, its place, whether it is under a path-named key)
    let mut stack: Vec<(&'a Value, Option<usize>, bool)> = vec![(args, None, false)];
    while let Some((value, place, is_path)) = stack.pop() {
        match value {
            Value::String(text) if is_path || is_file_url(text) => out.path(place, value, text),
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate().rev() {
                    stack.push((item, out.places.add(place, Step::Index(index)), is_path));
                }
            }
            Value::Object(map) => {
                // Under a path-named key, a record of a file ({path, content}) is searched by
                // name only; any other object's strings are paths, its data keys excepted.
                let inherits = is_path && !map.keys().any(|key| is_path_name(key));
                for (key, child) in map.iter().rev() {
                    let is_path = is_path_name(key)
                        || (inherits && !CONTENT_KEYS.contains(&key.to_ascii_lowercase().as_str()));
                    stack.push((child, out.places.add(place, Step::Key(key)), is_path));
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What `collect` finds, as (name, pointer, the string or the JSON type).
    fn found(
        args: &Value,
        declared: &[&str],
        from_schema: &[&str],
    ) -> Vec<(String, String, String)> {
        let parse = |list: &[&str]| list.iter().map(|p| PathParam::parse(p).unwrap()).collect();
        let params = PathParams {
            declared: parse(declared),
            from_schema: parse(from_schema),
        };
        let (places, found) = collect(args, &params);
        found
            .iter()
            .map(|(place, value)| {
                let shown = match value {
                    Found::Path(text) => text.to_string(),
                    Found::NotAPath(value) => crate::json_text::json_type(value).to_string(),
                };
                (places.name(*place), places.pointer(*place), shown)
            })
            .collect()
    }

    fn row(name: &str, pointer: &str, value: &str) -> (String, String, String) {
        (name.into(), pointer.into(), value.into())
    }

    #[test]
    fn path_named_keys_are_found_at_any_depth() {
        let args = json!({
            "file_path": "a",
            "outputPath": "b",
            "source_path": "c",
            "paths": ["d", ["e"], { "dir": "f", "note": "../not-a-path" }],
            "path": { "0": "i", "deep": [{ "x": "j" }], "content": "// data" },
            "sources": [{ "name": "k", "contents": "/data" }],
            "files": [{ "path": "g", "content": "/etc/passwd as text" }],
            "options": { "output": { "format": "h" }, "label": "x/y" },
            "count": 3,
            "cwd": 4,
            "url": "file:///etc/passwd",
            "nested": [{ "deeper": { "link": "FILE://localhost/x" } }],
            "content": "see file:///etc/passwd",
            "spaced": " file:///a",
            "tabbed": "fi\tle:///b",
            "mail": { "to": "bob@example.com", "subject": "s" },
        });
        assert_eq!(
            found(&args, &[], &[]),
            vec![
                row("file_path", "/file_path", "a"),
                row("outputPath", "/outputPath", "b"),
                row("source_path", "/source_path", "c"),
                row("paths[0]", "/paths/0", "d"),
                row("paths[1][0]", "/paths/1/0", "e"),
                row("paths[2].dir", "/paths/2/dir", "f"),
                row("path.0", "/path/0", "i"),
                row("path.deep[0].x", "/path/deep/0/x", "j"),
                row("sources[0].name", "/sources/0/name", "k"),
                row("files[0].path", "/files/0/path", "g"),
                row("options.output.format", "/options/output/format", "h"),
                row("url", "/url", "file:///etc/passwd"),
                row(
                    "nested[0].deeper.link",
                    "/nested/0/deeper/link",
                    "FILE://localhost/x"
                ),
                row("spaced", "/spaced", " file:///a"),
                row("tabbed", "/tabbed", "fi\tle:///b"),
                row("mail.to", "/mail/to", "bob@example.com"),
            ]
        );
    }

    #[test]
    fn params_find_their_values_first_and_only_once() {
        let args = json!({
            "from": "a",
            "to": ["b", 2],
            "job": { "items": [{ "loc": "c" }, { "loc": "d" }], "dest": { "x": 1 } },
            "path": "e",
            "map": { "k1": "f" },
            "files": ["g", { "h": 1 }, 2],
            "union": { "kind": "object" },
        });
        let params = [
            "from",
            "to",
            "job.items.loc",
            "/job/dest",
            "path",
            "map.*",
            "absent.x",
        ];
        // Parameters found through the schema take strings only: no refusal of other values.
        let from_schema = ["files", "union", "job.dest"];
        assert_eq!(
            found(&args, &params, &from_schema),
            vec![
                row("from", "/from", "a"),
                row("to[0]", "/to/0", "b"),
                row("to[1]", "/to/1", "a number"),
                row("job.items[0].loc", "/job/items/0/loc", "c"),
                row("job.items[1].loc", "/job/items/1/loc", "d"),
                row("job.dest", "/job/dest", "an object"),
                row("path", "/path", "e"),
                row("map.k1", "/map/k1", "f"),
                row("files[0]", "/files/0", "g"),
            ]
        );
    }

    #[test]
    fn deep_arguments_use_no_native_stack() {
        let mut args = json!({ "path": "x" });
        for _ in 0..100_000 {
            args = Value::Array(vec![args]);
        }
        let (_, found) = collect(&args, &PathParams::default());
        assert_eq!(found.len(), 1);
        // serde_json drops deep values recursively; leak this one to keep the test's stack small.
        std::mem::forget(args);
    }
}
