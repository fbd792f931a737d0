//! Callback tokens: a public selector that finds the pending call and a 128-bit secret from
//! the OS CSPRNG, compared in constant time. Written as 48 lowercase hex digits (16 for the
//! selector, 32 for the secret).

use crate::error::RapError;

/// Length of a token's secret in bytes (128 bits).
pub const SECRET_BYTES: usize = 16;

/// Length of a token in hex digits.
pub const TOKEN_HEX_LEN: usize = 16 + 2 * SECRET_BYTES;

/// A fresh secret straight from the OS CSPRNG.
pub fn new_secret() -> Result<[u8; SECRET_BYTES], RapError> {
    let mut secret = [0u8; SECRET_BYTES];
    getrandom::fill(&mut secret).map_err(|e| RapError::Internal {
        message: format!("OS random number generator failed: {e}"),
    })?;
    Ok(secret)
}

/// A random `u64` from the OS CSPRNG (retry jitter); 0 if the OS refuses.
pub fn random_u64() -> u64 {
    getrandom::u64().unwrap_or(0)
}

/// The token's text: selector then secret, in hex.
pub fn encode(selector: u64, secret: &[u8; SECRET_BYTES]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(TOKEN_HEX_LEN);
    let _ = write!(out, "{selector:016x}");
    for byte in secret {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// Splits a token's text into selector and secret; `None` unless it is exactly
/// [`TOKEN_HEX_LEN`] hex digits.
pub fn decode(text: &str) -> Option<(u64, [u8; SECRET_BYTES])> {
    let bytes = text.as_bytes();
    if bytes.len() != TOKEN_HEX_LEN || !bytes.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let selector = u64::from_str_radix(&text[..16], 16).ok()?;
    let mut secret = [0u8; SECRET_BYTES];
    for (i, byte) in secret.iter_mut().enumerate() {
        let at = 16 + 2 * i;
        *byte = u8::from_str_radix(&text[at..at + 2], 16).ok()?;
    }
    Some((selector, secret))
}

/// Constant-time equality of two secrets: the time taken does not depend on where they differ.
pub fn secrets_equal(a: &[u8; SECRET_BYTES], b: &[u8; SECRET_BYTES]) -> bool {
    let diff = a
        .iter()
        .zip(b.iter())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y));
    // black_box keeps the optimizer from turning the fold into an early-exit comparison.
    std::hint::black_box(diff) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejects() {
        let secret = new_secret().unwrap();
        let text = encode(0xabc, &secret);
        assert_eq!(text.len(), TOKEN_HEX_LEN);
        assert_eq!(decode(&text), Some((0xabc, secret)));
        assert_eq!(decode(&text[1..]), None);
        assert_eq!(decode(&format!("{}g", &text[1..])), None);
        assert_eq!(decode(&format!("+{}", &text[1..])), None);
        assert_eq!(decode("é"), None);
    }

    #[test]
    fn secrets_differ_and_compare() {
        let a = new_secret().unwrap();
        let b = new_secret().unwrap();
        assert_ne!(a, b);
        assert!(secrets_equal(&a, &a));
        assert!(!secrets_equal(&a, &b));
        let mut c = a;
        c[15] ^= 1;
        assert!(!secrets_equal(&a, &c));
    }
}
