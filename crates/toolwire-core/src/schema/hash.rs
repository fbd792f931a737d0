//! A stable hash of a schema, to cache normalized forms and to tell schemas apart.

use serde_json::Value;

use crate::envelope::args_hash;

/// Stable hash of a schema: FNV-1a 64 of its canonical JSON (keys sorted), 16 hex digits.
pub fn schema_hash(schema: &Value) -> String {
    args_hash(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_ignores_key_order_and_whitespace() {
        let a: Value = serde_json::from_str(
            r#"{"type":"object","properties":{"a":{"type":"string"},"b":{}}}"#,
        )
        .unwrap();
        let b: Value = serde_json::from_str(
            r#"{ "properties": { "b": {}, "a": { "type": "string" } }, "type": "object" }"#,
        )
        .unwrap();
        let c: Value = serde_json::from_str(r#"{"type":"object","properties":{"a":{}}}"#).unwrap();
        assert_eq!(schema_hash(&a), schema_hash(&b));
        assert_ne!(schema_hash(&a), schema_hash(&c));
        assert_eq!(schema_hash(&a).len(), 16);
        assert!(schema_hash(&a).chars().all(|c| c.is_ascii_hexdigit()));
    }
}
