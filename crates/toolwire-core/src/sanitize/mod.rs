//! Result sanitization: what a tool returns is bounded and made safe before it reaches the model,
//! the events and the audit log.
//!
//! - [`text`]: head-and-tail truncation under a budget, on strings, string ends or bytes, with
//!   secrets scrubbed from what is kept ([`ansi`] escapes removed on request);
//! - [`secrets`]: the secret kinds and the user's own patterns, matched in linear time;
//! - [`images`]: MIME sniffing, decompression-bomb checks, resizing and re-encoding;
//! - [`content`]: a result's blocks under one budget; [`media`]: `MEDIA:` lines of trusted tools;
//! - [`view`]: what events and audit records may carry (redaction allowlists, image metadata);
//! - [`options`]: the settings and their defaults; [`report`]: what was changed.

pub mod ansi;
pub mod blocks;
pub mod content;
pub mod images;
pub mod media;
pub mod options;
pub mod report;
pub mod secrets;
pub mod text;
pub mod values;
pub mod view;

use crate::error::Result;
pub use content::{InputBlock, SanitizedBlock};
pub use options::{Limits, RedactionMode, SanitizeOptions};
pub use report::SanitizeReport;
use secrets::SecretScanner;
use text::TextRules;

/// Sanitization settings compiled once (the secret patterns) and shared by every result.
pub struct Sanitizer {
    /// The settings.
    pub options: SanitizeOptions,
    scanner: Option<SecretScanner>,
}

impl Sanitizer {
    /// Compiles the settings; a bad custom pattern is the caller's error, naming it.
    pub fn new(options: SanitizeOptions) -> Result<Sanitizer> {
        let scanner = if options.secrets {
            Some(SecretScanner::new(&options.patterns)?)
        } else {
            None
        };
        Ok(Sanitizer { options, scanner })
    }

    /// The secret scanner, when scrubbing is on.
    pub fn scanner(&self) -> Option<&SecretScanner> {
        self.scanner.as_ref()
    }

    /// The rules for text.
    pub fn text_rules(&self) -> TextRules<'_> {
        TextRules {
            head_ratio: self.options.head_ratio,
            strip_ansi: self.options.strip_ansi,
            scanner: self.scanner.as_ref(),
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
    pub sanitizer: std::sync::Arc<Sanitizer>,
    /// The `limits` settings.
    pub limits: Limits,
    /// The `redaction` mode.
    pub redaction: RedactionMode,
}

impl Default for ResultRules {
    fn default() -> Self {
        ResultRules {
            sanitizer: std::sync::Arc::new(
                Sanitizer::new(SanitizeOptions::default()).expect("the built-in patterns compile"),
            ),
            limits: Limits::default(),
            redaction: RedactionMode::Strict,
        }
    }
}

impl ResultRules {
    /// These rules with `sanitize`, `limits` and `redaction` values applied over them (each
    /// `None` when not given); `at` names where they came from in errors.
    pub fn with(
        &self,
        sanitize: Option<&serde_json::Value>,
        limits: Option<&serde_json::Value>,
        redaction: Option<&serde_json::Value>,
        at: &str,
    ) -> Result<ResultRules> {
        let mut rules = self.clone();
        if let Some(sanitize) = sanitize {
            let options = self
                .sanitizer
                .options
                .with(sanitize, &format!("{at}sanitize"))?;
            rules.sanitizer = std::sync::Arc::new(Sanitizer::new(options)?);
        }
        if let Some(limits) = limits {
            rules.limits = self.limits.with(limits, &format!("{at}limits"))?;
        }
        if let Some(redaction) = redaction {
            rules.redaction = RedactionMode::parse(redaction, &format!("{at}redaction"))?;
        }
        Ok(rules)
    }
}
