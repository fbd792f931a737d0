//! JSON text written without recursion: the canonical (sorted-key) form hashed into `argsHash`,
//! and the compact form of every audit line.
//!
//! Both walk the value with an explicit stack, so nesting depth costs heap, never call stack, and
//! both stream into any [`io::Write`] (the SHA-256 hasher for `argsHash`, so huge arguments are
//! never copied into one big `String`). Numbers and strings are written by serde_json, exactly as
//! `serde_json::to_string` writes them.

use std::io;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// How object keys are ordered in the written text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyOrder {
    /// Keys sorted by their UTF-8 bytes, at every level (the canonical form).
    Sorted,
    /// Keys in the order the object holds them (insertion order).
    AsHeld,
}

/// One pending piece of output on the explicit stack.
enum Piece<'a> {
    Value(&'a Value, usize),
    Key(&'a str),
    Punct(&'static [u8]),
}

/// Writes `value` as compact JSON text (no whitespace) into `out`, keys ordered by `order`.
///
/// Returns the deepest nesting of arrays and objects met (0 for a scalar, 1 for `{}` or `[1]`).
pub fn write_json<W: io::Write>(value: &Value, order: KeyOrder, out: &mut W) -> io::Result<usize> {
    let mut stack = vec![Piece::Value(value, 1)];
    let mut deepest = 0;
    while let Some(piece) = stack.pop() {
        match piece {
            Piece::Punct(bytes) => out.write_all(bytes)?,
            Piece::Key(key) => serde_json::to_writer(&mut *out, key).map_err(io::Error::from)?,
            Piece::Value(Value::Object(map), depth) => {
                deepest = deepest.max(depth);
                out.write_all(b"{")?;
                stack.push(Piece::Punct(b"}"));
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                if order == KeyOrder::Sorted {
                    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                }
                for (i, (key, item)) in entries.into_iter().enumerate().rev() {
                    stack.push(Piece::Value(item, depth + 1));
                    stack.push(Piece::Punct(b":"));
                    stack.push(Piece::Key(key));
                    if i > 0 {
                        stack.push(Piece::Punct(b","));
                    }
                }
            }
            Piece::Value(Value::Array(items), depth) => {
                deepest = deepest.max(depth);
                out.write_all(b"[")?;
                stack.push(Piece::Punct(b"]"));
                for (i, item) in items.iter().enumerate().rev() {
                    stack.push(Piece::Value(item, depth + 1));
                    if i > 0 {
                        stack.push(Piece::Punct(b","));
                    }
                }
            }
            Piece::Value(scalar, _) => {
                serde_json::to_writer(&mut *out, scalar).map_err(io::Error::from)?
            }
        }
    }
    Ok(deepest)
}

/// The canonical JSON text of `value`: keys sorted at every level, no whitespace.
pub fn canonical_json(value: &Value) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write_json(value, KeyOrder::Sorted, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Feeds written bytes into a SHA-256 hasher.
struct HashSink(Sha256);

impl io::Write for HashSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `argsHash`: the SHA-256 of the canonical JSON text of `args`, as 64 lowercase hex digits.
///
/// The canonical text is streamed into the hasher, never built as one string.
pub fn args_sha256(args: &Value) -> String {
    let mut sink = HashSink(Sha256::new());
    // The sink never fails, so neither does the walk.
    let _ = write_json(args, KeyOrder::Sorted, &mut sink);
    lower_hex(&sink.0.finalize())
}

/// `bytes` as lowercase hex digits, two a byte.
pub fn lower_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        hex.push(char::from(HEX[usize::from(byte >> 4)]));
        hex.push(char::from(HEX[usize::from(byte & 0xf)]));
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn args_sha256_matches_independent_digests() {
        // Expected digests from `printf '%s' '<canonical text>' | sha256sum`.
        let cases = [
            (
                json!({}),
                "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
            ),
            (
                json!({"b": 1, "a": [true, null, "x"]}),
                "54a65415ad370228851a1da4b31b6fd42dc58b19a50d35cae759325f7388ce64",
            ),
        ];
        for (args, expected) in cases {
            assert_eq!(args_sha256(&args), expected, "args {args}");
        }
    }

    #[test]
    fn canonical_text_sorts_keys_at_every_level() {
        let cases = [
            (json!({}), "{}"),
            (json!([]), "[]"),
            (
                json!({"b": 1, "a": [true, null, "x"]}),
                r#"{"a":[true,null,"x"],"b":1}"#,
            ),
            (
                json!({"z": {"y": 1, "x": [{"d": 0, "c": 1.5}]}, "a": "q\"\n"}),
                r#"{"a":"q\"\n","z":{"x":[{"c":1.5,"d":0}],"y":1}}"#,
            ),
            (json!("é\u{1}"), "\"é\\u0001\""),
            (
                json!(-12.5e300),
                &serde_json::to_string(&json!(-12.5e300)).unwrap(),
            ),
            (json!([[], {}, [1, [2]]]), "[[],{},[1,[2]]]"),
        ];
        for (value, expected) in cases {
            assert_eq!(canonical_json(&value), expected, "value {value}");
        }
    }

    #[test]
    fn as_held_order_matches_serde_json() {
        let value = json!({"b": 1, "a": {"d": [1, "x", null], "c": false}, "e": 0.25});
        let mut out = Vec::new();
        write_json(&value, KeyOrder::AsHeld, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string(&value).unwrap()
        );
    }

    #[test]
    fn reports_the_deepest_nesting() {
        let cases = [
            (json!(1), 0),
            (json!({}), 1),
            (json!([1, [2, [3]]]), 3),
            (json!({"a": [{"b": {}}]}), 4),
        ];
        for (value, expected) in cases {
            assert_eq!(
                write_json(&value, KeyOrder::AsHeld, &mut io::sink()).unwrap(),
                expected,
                "value {value}"
            );
        }
    }

    #[test]
    fn very_deep_values_hash_without_recursion() {
        let mut value = json!(0);
        for _ in 0..200_000 {
            value = Value::Array(vec![value]);
        }
        assert_eq!(args_sha256(&value).len(), 64);
        // Drop it iteratively too (serde_json's Drop recurses).
        let mut current = value;
        while let Value::Array(mut items) = current {
            current = items.pop().unwrap_or(Value::Null);
        }
    }
}
