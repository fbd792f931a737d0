//! The secret scanner (built-in kinds) on any bytes as lossy UTF-8:
//! - no panic;
//! - every secret found lies on char boundaries, is not empty, and the secrets are sorted and
//!   disjoint;
//! - the scrubbed text is no longer than the input plus the labels put in (`[redacted:<kind>]`
//!   per secret counted);
//! - scrubbing is idempotent: scrubbing the output again changes nothing.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use toolwire_core::secrets::SecretScanner;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let scanner = SecretScanner::new(&[]).expect("the built-in kinds compile");
    let found = scanner.find(&text);
    let mut after = 0;
    for secret in &found {
        assert!(secret.start < secret.end, "empty secret in {text:?}");
        assert!(secret.start >= after, "overlapping secrets in {text:?}");
        assert!(text.is_char_boundary(secret.start) && text.is_char_boundary(secret.end));
        after = secret.end;
    }
    let mut counts = BTreeMap::new();
    let scrubbed = scanner.scrub(&text, &mut counts);
    let labels: usize = counts
        .iter()
        .map(|(kind, count)| (kind.len() + "[redacted:]".len()) * *count as usize)
        .sum();
    assert!(
        scrubbed.len() <= text.len() + labels,
        "{text:?} -> {scrubbed:?}"
    );
    let again = scanner.scrub(&scrubbed, &mut BTreeMap::new());
    assert_eq!(again, scrubbed, "scrubbing again changed {text:?}");
});
