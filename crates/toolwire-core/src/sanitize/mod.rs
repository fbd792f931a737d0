//! Result sanitization: what a tool returns is bounded and made safe before it reaches the model,
//! the events and the audit log.
//!
//! - [`text`]: head-and-tail truncation under a budget, on strings, string ends or bytes, with
//!   secrets scrubbed from what is kept ([`crate::ansi`] escapes removed on request);
//! - [`crate::secrets`] (a module of its own, below quoting): the secret kinds and the user's own
//!   patterns, matched in linear time;
//! - [`images`]: MIME sniffing, decompression-bomb checks, resizing and re-encoding;
//! - [`content`]: a result's blocks under one budget ([`joined`]: secrets split across them); [`media`]: `MEDIA:` lines of trusted tools;
//! - [`crate::dispatch::view`]: what events and audit records may carry (redaction allowlists,
//!   image metadata);
//! - [`options`]: the settings and their defaults; [`report`]: what was changed;
//! - [`stream`]: secrets scrubbed from text arriving in pieces (a model's streamed answer);
//! - [`blocks`]: content as the driver describes it, its blocks laid out as [`layout`] declares.

pub mod blocks;
pub mod content;
pub mod images;
pub mod joined;
pub mod layout;
pub mod media;
pub mod options;
pub mod report;
pub mod stream;
pub mod text;
pub mod values;

use std::sync::Arc;

use crate::error::Result;
use crate::secrets::SecretScanner;
pub use content::{InputBlock, SanitizedBlock};
pub use options::{Limits, RedactionMode, SanitizeOptions};
pub use report::SanitizeReport;
use text::TextRules;

/// Sanitization settings compiled once (the secret patterns) and shared by every result.
pub struct Sanitizer {
    /// The settings.
    pub options: SanitizeOptions,
    scanner: Option<Arc<SecretScanner>>,
}

impl Sanitizer {
    /// Compiles the settings; a bad custom pattern is the caller's error, naming it.
    pub fn new(options: SanitizeOptions) -> Result<Sanitizer> {
        let scanner = if options.secrets {
            Some(Arc::new(SecretScanner::new(&options.patterns)?))
        } else {
            None
        };
        Ok(Sanitizer { options, scanner })
    }

    /// A sanitizer with other settings, sharing this one's compiled patterns when the secret
    /// settings are the same (a dispatch that overrides only budgets compiles nothing).
    pub fn with_options(&self, options: SanitizeOptions) -> Result<Sanitizer> {
        if options.secrets == self.options.secrets && options.patterns == self.options.patterns {
            let scanner = self.scanner.clone();
            return Ok(Sanitizer { options, scanner });
        }
        Sanitizer::new(options)
    }

    /// The secret scanner, when scrubbing is on.
    pub fn scanner(&self) -> Option<&SecretScanner> {
        self.scanner.as_deref()
    }

    /// The secret scanner, shared, when scrubbing is on.
    pub fn shared_scanner(&self) -> Option<Arc<SecretScanner>> {
        self.scanner.clone()
    }

    /// The rules for text.
    pub fn text_rules(&self) -> TextRules<'_> {
        TextRules {
            head_ratio: self.options.head_ratio,
            strip_ansi: self.options.strip_ansi,
            scanner: self.scanner.as_deref(),
        }
    }
}

impl std::fmt::Debug for Sanitizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sanitizer")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// Everything that bounds a result and its events: the sanitizer, the input limits and the
/// redaction mode. Given on the runtime; a dispatch may override any part.
#[derive(Clone, Debug)]
pub struct ResultRules {
    /// The compiled `sanitize` settings.
    pub sanitizer: Arc<Sanitizer>,
    /// The `limits` settings.
    pub limits: Limits,
    /// The `redaction` mode.
    pub redaction: RedactionMode,
}

impl Default for ResultRules {
    fn default() -> Self {
        ResultRules {
            sanitizer: Arc::new(
                Sanitizer::new(SanitizeOptions::default()).expect("the built-in patterns compile"),
            ),
            limits: Limits::default(),
            redaction: RedactionMode::Strict,
        }
    }
}

/// The `sanitize`, `limits` and `redaction` options as given (on the runtime, or on one dispatch
/// over the runtime's); each `None` when absent or `null`.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize)]
pub struct RuleOptions {
    /// `sanitize`.
    #[serde(default)]
    pub sanitize: Option<serde_json::Value>,
    /// `limits`.
    #[serde(default)]
    pub limits: Option<serde_json::Value>,
    /// `redaction`.
    #[serde(default)]
    pub redaction: Option<serde_json::Value>,
}

impl RuleOptions {
    /// Whether nothing is given.
    pub fn is_empty(&self) -> bool {
        self.sanitize.is_none() && self.limits.is_none() && self.redaction.is_none()
    }
}

impl ResultRules {
    /// These rules with `options` applied over them; `at` names where they came from in errors.
    /// The compiled secret patterns are kept when `options` leaves them as they are.
    pub fn with(&self, options: &RuleOptions, at: &str) -> Result<ResultRules> {
        let mut rules = self.clone();
        if let Some(sanitize) = &options.sanitize {
            let options = self
                .sanitizer
                .options
                .with(sanitize, &format!("{at}sanitize"))?;
            rules.sanitizer = Arc::new(self.sanitizer.with_options(options)?);
        }
        if let Some(limits) = &options.limits {
            rules.limits = self.limits.with(limits, &format!("{at}limits"))?;
        }
        if let Some(redaction) = &options.redaction {
            rules.redaction = RedactionMode::parse(redaction, &format!("{at}redaction"))?;
        }
        Ok(rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn options(value: serde_json::Value) -> RuleOptions {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn overrides_apply_over_the_rules_and_keep_the_compiled_patterns_when_they_can() {
        let base = ResultRules::default()
            .with(
                &options(json!({"sanitize": {"secrets": {"patterns": [{"kind": "acme", "pattern": "acme_[0-9]{8}"}]}}})),
                "runtime option ",
            )
            .unwrap();
        let budget_only = base
            .with(
                &options(json!({"sanitize": {"maxResultChars": 1000}, "redaction": "permissive"})),
                "dispatch: options.",
            )
            .unwrap();
        assert_eq!(budget_only.sanitizer.options.max_result_chars, 1000);
        assert_eq!(budget_only.redaction, RedactionMode::Permissive);
        assert!(Arc::ptr_eq(
            budget_only.sanitizer.scanner.as_ref().unwrap(),
            base.sanitizer.scanner.as_ref().unwrap()
        ));
        let mut scrubbed = Default::default();
        let kept = budget_only
            .sanitizer
            .scanner()
            .unwrap()
            .scrub("id acme_12345678", &mut scrubbed);
        assert_eq!(kept, "id [redacted:acme]");
        let no_secrets = base
            .with(
                &options(json!({"sanitize": {"secrets": {"enabled": false}}})),
                "dispatch: options.",
            )
            .unwrap();
        assert!(no_secrets.sanitizer.scanner().is_none());
        assert!(options(json!({"sanitize": null})).is_empty());
        let error = base
            .with(
                &options(json!({"limits": {"maxIdChars": 0}})),
                "dispatch: options.",
            )
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("dispatch: options.limits.maxIdChars"),
            "{error}"
        );
    }
}
