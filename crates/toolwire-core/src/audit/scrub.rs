//! [`RecordScrubber`]: the secret scrubbing every record and run description goes through at the
//! [`AuditWriter`](super::AuditWriter) boundary.
//!
//! Calls and results reach the writer already scrubbed by dispatch, but other records do not
//! (a plan's `vars` and `args` in `run.json`, the steps of `run.confirmationRequested`, anything
//! a driver adds later). Scrubbing again where every record passes means nothing written to the
//! audit directory can bypass it; a record without secrets is passed through without a copy.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use crate::sanitize::values::{has_secret, scrub_value};
use crate::sanitize::{ResultRules, Sanitizer};

/// Replaces secrets in the strings and keys of audit records with `[redacted:<kind>]`, using the same
/// compiled patterns (built-in and custom) as the runtime's results.
#[derive(Clone, Debug)]
pub struct RecordScrubber {
    sanitizer: Arc<Sanitizer>,
}

impl RecordScrubber {
    /// Scrubs with `sanitizer`'s secret patterns; none when its secret scrubbing is off.
    pub fn new(sanitizer: Arc<Sanitizer>) -> RecordScrubber {
        RecordScrubber { sanitizer }
    }

    /// `value` with the secrets of its strings and object keys replaced; borrowed when it holds
    /// none.
    pub fn scrub<'a>(&self, value: &'a Value) -> Cow<'a, Value> {
        let Some(scanner) = self.sanitizer.scanner() else {
            return Cow::Borrowed(value);
        };
        if !has_secret(value, scanner) {
            return Cow::Borrowed(value);
        }
        let mut scrubbed = value.clone();
        scrub_value(&mut scrubbed, scanner, &mut Default::default());
        Cow::Owned(scrubbed)
    }
}

impl Default for RecordScrubber {
    /// The default settings: every built-in secret kind.
    fn default() -> Self {
        RecordScrubber::new(ResultRules::default().sanitizer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sanitize::SanitizeOptions;
    use serde_json::json;

    const OPENAI: &str = "sk-proj-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

    #[test]
    fn scrubs_nested_strings_and_borrows_clean_records() {
        let scrubber = RecordScrubber::default();
        let record = json!({"plan": {"vars": {"key": OPENAI}, "steps": [{"args": {"auth": format!("Bearer {OPENAI}")}}]}});
        let scrubbed = scrubber.scrub(&record);
        let text = scrubbed.to_string();
        assert!(!text.contains(OPENAI), "{text}");
        assert!(text.contains("[redacted:openai-key]"), "{text}");
        let clean = json!({"type": "step.started", "stepId": "a"});
        assert!(matches!(scrubber.scrub(&clean), Cow::Borrowed(_)));
    }

    #[test]
    fn follows_the_sanitizer_settings() {
        let custom = SanitizeOptions::default()
            .with(
                &json!({"secrets": {"patterns": [{"kind": "acme", "pattern": "acme_[0-9]{8}"}]}}),
                "sanitize",
            )
            .unwrap();
        let scrubber = RecordScrubber::new(Arc::new(Sanitizer::new(custom).unwrap()));
        assert_eq!(
            *scrubber.scrub(&json!(["acme_12345678"])),
            json!(["[redacted:acme]"])
        );
        let off = SanitizeOptions::default()
            .with(&json!({"secrets": {"enabled": false}}), "sanitize")
            .unwrap();
        let scrubber = RecordScrubber::new(Arc::new(Sanitizer::new(off).unwrap()));
        assert_eq!(*scrubber.scrub(&json!([OPENAI])), json!([OPENAI]));
    }
}
