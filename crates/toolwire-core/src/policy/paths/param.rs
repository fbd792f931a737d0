//! Where a path parameter sits in a tool's arguments: a property, or a property nested in
//! objects and arrays.
//!
//! Written (in `pathParams`, and as `list()` shows them) in a dotted form, `options.output.path`,
//! where `*` stands for every item of an array (or every value of an object): `files.*.path`.
//! Arrays met on the way are entered item by item anyway, so `files.path` is `files.*.path`; a
//! number picks one item (`pair.0`). A name holding a `.` (or empty, or `*`) is written as a JSON
//! pointer instead (RFC 6901 escapes, `*` for every item): `/a.b/*/path`. A parameter whose value
//! is an array is every string of that array (`paths`).

use std::fmt;

/// One step of a [`PathParam`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    /// A property name (or, in an array, an item index).
    Key(String),
    /// Every item of an array, or every value of an object.
    Any,
}

/// Where path values sit in the arguments (see the module comment).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PathParam {
    /// The steps from the arguments object, never empty.
    pub segments: Vec<Segment>,
}

impl PathParam {
    /// The top-level property `name`.
    pub fn key(name: &str) -> PathParam {
        PathParam {
            segments: vec![Segment::Key(name.to_string())],
        }
    }

    /// Reads the dotted or pointer form (see the module comment).
    pub fn parse(text: &str) -> Result<PathParam, String> {
        let segments: Vec<Segment> = if let Some(pointer) = text.strip_prefix('/') {
            pointer
                .split('/')
                .map(|token| match token {
                    "*" => Segment::Any,
                    token => Segment::Key(crate::pointer::unescape(token).into_owned()),
                })
                .collect()
        } else {
            let mut segments = Vec::new();
            for token in text.split('.') {
                segments.push(match token {
                    "" => {
                        return Err(format!(
                            "{text:?} has an empty name; write a name holding dots as a JSON \
                             pointer (\"/a.b\")"
                        ))
                    }
                    "*" => Segment::Any,
                    token => Segment::Key(token.to_string()),
                });
            }
            segments
        };
        Ok(PathParam { segments })
    }

    /// Whether the dotted form can show every segment.
    fn dotted(&self) -> bool {
        self.segments.iter().all(|segment| match segment {
            Segment::Any => true,
            Segment::Key(key) => !key.is_empty() && key != "*" && !key.contains(['.', '/']),
        })
    }
}

impl fmt::Display for PathParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dotted = self.dotted();
        let mut out = String::new();
        for (index, segment) in self.segments.iter().enumerate() {
            let token = match segment {
                Segment::Any => "*",
                Segment::Key(key) => key.as_str(),
            };
            if dotted {
                if index > 0 {
                    out.push('.');
                }
                out.push_str(token);
            } else {
                crate::pointer::push_token(&mut out, token);
            }
        }
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str) -> Segment {
        Segment::Key(name.to_string())
    }

    #[test]
    fn both_forms_parse_and_show_round_trip() {
        let rows = [
            ("path", vec![key("path")], "path"),
            (
                "files.*.path",
                vec![key("files"), Segment::Any, key("path")],
                "files.*.path",
            ),
            (
                "/files/*/path",
                vec![key("files"), Segment::Any, key("path")],
                "files.*.path",
            ),
            (
                "options.output.dir",
                vec![key("options"), key("output"), key("dir")],
                "options.output.dir",
            ),
            ("/a.b/c", vec![key("a.b"), key("c")], "/a.b/c"),
            ("/x~1y/~0z", vec![key("x/y"), key("~z")], "/x~1y/~0z"),
            ("pair.0", vec![key("pair"), key("0")], "pair.0"),
            ("/", vec![key("")], "/"),
        ];
        for (text, segments, shown) in rows {
            let param = PathParam::parse(text).unwrap();
            assert_eq!(param.segments, segments, "{text}");
            assert_eq!(param.to_string(), shown, "{text}");
            assert_eq!(PathParam::parse(shown).unwrap(), param, "{shown}");
        }
    }

    #[test]
    fn empty_dotted_names_are_refused() {
        for text in ["", "a..b", ".a", "a."] {
            let error = PathParam::parse(text).unwrap_err();
            assert!(error.contains("has an empty name"), "{text}: {error}");
        }
    }
}
