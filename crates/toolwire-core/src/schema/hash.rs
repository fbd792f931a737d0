//! A stable hash of a schema, to cache normalized forms and to tell schemas apart.

use serde_json::Value;

use crate::canonical::KeyOrder;

/// Stable hash of a schema: FNV-1a 64 of its canonical JSON (keys sorted), 16 hex digits.
/// (Arguments are hashed with SHA-256: see [`crate::canonical::args_sha256`].)
pub fn schema_hash(schema: &Value) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    struct Fnv(u64);
    impl std::io::Write for Fnv {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            for &b in bytes {
                self.0 ^= u64::from(b);
                self.0 = self.0.wrapping_mul(PRIME);
            }
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut hash = Fnv(OFFSET);
    // The sink never fails, so neither does the walk.
    let _ = crate::canonical::write_json(schema, KeyOrder::Sorted, &mut hash);
    format!("{:016x}", hash.0)
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
