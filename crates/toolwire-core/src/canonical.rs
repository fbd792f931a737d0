//! JSON text written without recursion: the canonical (sorted-key) form hashed into `argsHash`,
//! and the compact form of every audit line.
//!
//! Both walk the value with an explicit stack, so nesting depth costs heap, never call stack, and
//! both stream into any [`io::Write`] (the SHA-256 hasher for `argsHash`, so huge arguments are
//! never copied into one big `String`). Numbers and strings are written by serde_json, exactly as
//! `serde_json::to_string` writes them.

use std::io;

use serde_json::{Number, Value};
use sha2::{Digest, Sha256};

/// How object keys are ordered in the written text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyOrder {
    /// Keys sorted by their UTF-8 bytes, at every level, and numbers written by value (see
    /// [`number_by_value`]): the canonical form.
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
            Piece::Value(Value::Number(number), _) if order == KeyOrder::Sorted => {
                serde_json::to_writer(&mut *out, &number_by_value(number))
                    .map_err(io::Error::from)?
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

/// The one form of a number's value in the canonical text: a whole number within the 64-bit
/// integer range is an integer (`1.0`, `1e0` and `-0.0` become `1`, `1` and `0`), any other
/// number stays the `f64` it parsed to (written in its shortest form). Numbers arrive parsed into
/// `f64`, `i64` or `u64`, so a huge exponent (`1e308`) costs nothing more than any other number:
/// no digits are ever expanded. So every `argsHash` (a hook's `ToolCall`, the audit log, loop
/// detection) is the same for `{"n":1}`, `{"n":1.0}` and `{"n":1e0}`.
pub fn number_by_value(number: &Number) -> Number {
    /// 2^63 and 2^64 as `f64` (both exact).
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    const TWO_64: f64 = 18_446_744_073_709_551_616.0;
    if number.is_i64() || number.is_u64() {
        return number.clone();
    }
    let Some(float) = number.as_f64() else {
        return number.clone();
    };
    if float.fract() != 0.0 {
        return number.clone();
    }
    if (-TWO_63..TWO_63).contains(&float) {
        // In range and whole: the cast is exact.
        Number::from(float as i64)
    } else if (0.0..TWO_64).contains(&float) {
        Number::from(float as u64)
    } else {
        number.clone()
    }
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
    fn numbers_are_hashed_by_value_whatever_their_spelling() {
        // Seen by a new user (issue 19): a hook's argsHash of {"n":1.0} was the hash of the text
        // as the model spelled it, the audit log's (after JavaScript) of {"n":1}.
        let same: &[&[&str]] = &[
            &["1", "1.0", "1e0", "10E-1", "1.00000"],
            &["0", "-0", "0.0", "-0.0", "0e5"],
            &["-3", "-3.0", "-30e-1"],
            &["1.5", "15e-1", "1.50"],
            &["9007199254740993", "9007199254740993"],
            &["1e300", "1E300", "10e299"],
        ];
        let text = |n: &str| format!(r#"{{"n":{n},"list":[{n},{{"m":{n}}}]}}"#);
        let hash = |n: &str| args_sha256(&serde_json::from_str(&text(n)).unwrap());
        let mut distinct = std::collections::HashSet::new();
        for group in same {
            let first = hash(group[0]);
            for spelling in *group {
                assert_eq!(hash(spelling), first, "{spelling} and {}", group[0]);
            }
            distinct.insert(first);
        }
        assert_eq!(
            distinct.len(),
            same.len(),
            "different values keep different hashes"
        );
        assert_eq!(
            canonical_json(&serde_json::from_str(&text("1.0")).unwrap()),
            r#"{"list":[1,{"m":1}],"n":1}"#
        );
        // Written as is (not canonical), a number keeps its form.
        let mut out = Vec::new();
        write_json(&json!(1.0), KeyOrder::AsHeld, &mut out).unwrap();
        assert_eq!(out, b"1.0");
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
