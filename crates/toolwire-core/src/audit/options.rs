//! The `audit` option of a runtime or dispatch: `{ dir, flushIntervalMs }`.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use crate::error::{Error, ErrorCode, Result};

/// How often buffered records are flushed when the option does not say: 1000 ms.
pub const DEFAULT_FLUSH_INTERVAL_MS: u64 = 1000;

/// Where and how a run is recorded.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuditOptions {
    /// The run directory (created with its parents; appended to when it exists).
    pub dir: PathBuf,
    /// How long a record may wait in memory before a flush is due, in milliseconds.
    #[serde(default = "default_flush_interval")]
    pub flush_interval_ms: u64,
}

fn default_flush_interval() -> u64 {
    DEFAULT_FLUSH_INTERVAL_MS
}

impl AuditOptions {
    /// Reads the option from its JSON form; anything else is a caller error naming the value.
    pub fn from_value(value: &Value) -> Result<AuditOptions> {
        let options: AuditOptions =
            crate::options::from_json_text("audit option", &value.to_string())?;
        if options.dir.as_os_str().is_empty() {
            return Err(Error::caller(
                ErrorCode::ValidationError,
                "audit option: dir must not be empty",
            ));
        }
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_option_with_its_default_interval() {
        let cases = [
            (json!({"dir": "/tmp/r"}), 1000),
            (json!({"dir": "/tmp/r", "flushIntervalMs": 0}), 0),
            (json!({"dir": "/tmp/r", "flushIntervalMs": 250}), 250),
        ];
        for (value, interval) in cases {
            let options = AuditOptions::from_value(&value).unwrap();
            assert_eq!(options.dir, PathBuf::from("/tmp/r"));
            assert_eq!(options.flush_interval_ms, interval, "{value}");
        }
    }

    #[test]
    fn refuses_bad_options_naming_them() {
        let cases = [
            (json!({}), "missing field `dir`"),
            (json!({"dir": ""}), "dir must not be empty"),
            (json!({"dir": "d", "flushIntervalMs": -1}), "-1"),
            (
                json!({"dir": "d", "flushEvery": 5}),
                "audit option has unknown key \"flushEvery\" (expected one of: dir, flushIntervalMs)",
            ),
            (json!("d"), "audit option: expected object AuditOptions, got string \"d\""),
        ];
        for (value, expected) in cases {
            let err = AuditOptions::from_value(&value).unwrap_err();
            assert!(err.message.contains(expected), "{value}: {}", err.message);
        }
    }
}
