//! The records of the audit log: the three JSONL files, the fields the log relies on, and how a
//! record is stamped (`seq`, `ts`, `argsHash`) and checked before it is written.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::canonical::args_sha256;
use crate::error::{Error, ErrorCode, Result};
use crate::json_text::json_type;

/// The run description, rewritten atomically (plan, policy snapshot, confirmation, end state).
pub const RUN_FILE: &str = "run.json";

/// The deepest nesting a written line may have: serde_json reads at most 127 levels back, and
/// a line that could not be read back would be lost to replay. Deeper parts of a record are cut
/// (see [`salvage`](super::salvage)).
pub const MAX_LINE_DEPTH: usize = 127;

/// Field: the position of a record across the three files (one counter per run directory).
pub const SEQ: &str = "seq";
/// Field: when the record was written, in milliseconds since the Unix epoch.
pub const TS: &str = "ts";
/// Field: the id pairing a call with its results.
pub const CALL_ID: &str = "callId";
/// Field: the attempt number of a call (1 when absent).
pub const ATTEMPT: &str = "attempt";
/// Field: the arguments of a call.
pub const ARGS: &str = "args";
/// Field: the hex SHA-256 of the canonical arguments of a call (see
/// [`args_sha256`](crate::canonical::args_sha256)).
pub const ARGS_HASH: &str = "argsHash";

crate::codes! {
    /// One of the three append-only JSONL files of a run directory; the driver names the file
    /// of a record by its code.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub enum LogFile {
        /// `calls.jsonl`: one line per call attempt.
        Calls = 0,
        /// `results.jsonl`: one line per result.
        Results = 1,
        /// `events.jsonl`: everything else that happened during the run.
        Events = 2,
    }
}

impl LogFile {
    /// The three files, in the order they are flushed and read.
    pub const ALL: [LogFile; 3] = [LogFile::Calls, LogFile::Results, LogFile::Events];

    /// The file name inside the run directory, e.g. `"calls.jsonl"`.
    pub fn file_name(self) -> &'static str {
        match self {
            LogFile::Calls => "calls.jsonl",
            LogFile::Results => "results.jsonl",
            LogFile::Events => "events.jsonl",
        }
    }

    /// The position of this file in [`LogFile::ALL`].
    pub fn index(self) -> usize {
        match self {
            LogFile::Calls => 0,
            LogFile::Results => 1,
            LogFile::Events => 2,
        }
    }

    /// What one record of this file is, for messages ("call", "result", "event").
    pub fn record_kind(self) -> &'static str {
        match self {
            LogFile::Calls => "call",
            LogFile::Results => "result",
            LogFile::Events => "event",
        }
    }

    /// Whether records of this file must carry a string `callId`.
    pub fn needs_call_id(self) -> bool {
        !matches!(self, LogFile::Events)
    }
}

/// The most of a value a message quotes.
const MAX_QUOTED: usize = 200;

/// `value` as JSON text for a message, cut after [`MAX_QUOTED`] bytes (never megabytes).
fn quoted(value: &Value) -> String {
    let mut text = value.to_string();
    if text.len() > MAX_QUOTED {
        let mut end = MAX_QUOTED;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("...");
    }
    text
}

/// The attempt number of a record: its `attempt` field, 1 when absent.
///
/// An `attempt` that is not a positive integer is an error naming the value.
pub fn attempt_of(record: &Map<String, Value>) -> std::result::Result<u64, String> {
    match record.get(ATTEMPT) {
        None => Ok(1),
        Some(value) => match value.as_u64() {
            Some(n) if n >= 1 => Ok(n),
            _ => Err(format!(
                "attempt {} is not a positive integer",
                quoted(value)
            )),
        },
    }
}

/// The `callId` of a record, when it is a string.
pub fn call_id_of(record: &Map<String, Value>) -> Option<&str> {
    record.get(CALL_ID).and_then(Value::as_str)
}

/// Builds the line written for `record` in `file`: `seq` and `ts` first (set by the writer,
/// replacing any the caller gave), then the caller's fields in their order, and for calls an
/// `argsHash` of `args` (`null` when absent) unless the caller supplied one.
///
/// A record that is not an object, a call or result without a string `callId`, or an `attempt`
/// that is not a positive integer is a caller error naming the offending value.
pub fn stamp(file: LogFile, record: &Value, seq: u64, ts: u64) -> Result<Map<String, Value>> {
    let kind = file.record_kind();
    let Value::Object(fields) = record else {
        return Err(Error::caller(
            ErrorCode::ValidationError,
            format!(
                "audit {kind} record must be a JSON object, got {}",
                json_type(record)
            ),
        ));
    };
    if file.needs_call_id() && call_id_of(fields).is_none() {
        let found = fields
            .get(CALL_ID)
            .map_or_else(|| "none".to_string(), quoted);
        return Err(Error::caller(
            ErrorCode::ValidationError,
            format!("audit {kind} record needs a string callId, got {found}"),
        ));
    }
    if let Err(message) = attempt_of(fields) {
        return Err(Error::caller(
            ErrorCode::ValidationError,
            format!("audit {kind} record: {message}"),
        ));
    }
    let mut line = Map::with_capacity(fields.len() + 3);
    line.insert(SEQ.into(), Value::from(seq));
    line.insert(TS.into(), Value::from(ts));
    for (key, value) in fields {
        if key != SEQ && key != TS {
            line.insert(key.clone(), value.clone());
        }
    }
    if file == LogFile::Calls && !line.contains_key(ARGS_HASH) {
        let hash = args_sha256(fields.get(ARGS).unwrap_or(&Value::Null));
        line.insert(ARGS_HASH.into(), Value::String(hash));
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stamps_seq_ts_first_and_hashes_call_args() {
        let call =
            json!({"callId": "c1", "tool": "read", "args": {"b": 1, "a": [true, null, "x"]}});
        let line = stamp(LogFile::Calls, &call, 7, 1000).unwrap();
        let keys: Vec<&str> = line.keys().map(String::as_str).collect();
        assert_eq!(keys, ["seq", "ts", "callId", "tool", "args", "argsHash"]);
        assert_eq!(line["seq"], 7);
        assert_eq!(line["ts"], 1000);
        assert_eq!(
            line["argsHash"],
            "54a65415ad370228851a1da4b31b6fd42dc58b19a50d35cae759325f7388ce64"
        );
    }

    #[test]
    fn keeps_a_given_args_hash_and_replaces_seq_and_ts() {
        let call = json!({"seq": 99, "ts": 1, "callId": "c1", "argsHash": "given"});
        let line = stamp(LogFile::Calls, &call, 3, 50).unwrap();
        assert_eq!(line["argsHash"], "given");
        assert_eq!(line["seq"], 3);
        assert_eq!(line["ts"], 50);
    }

    #[test]
    fn results_and_events_get_no_args_hash() {
        for file in [LogFile::Results, LogFile::Events] {
            let line = stamp(file, &json!({"callId": "c", "args": {}}), 1, 2).unwrap();
            assert!(!line.contains_key("argsHash"), "{file:?}");
        }
    }

    #[test]
    fn rejects_bad_records_naming_the_value() {
        let cases = [
            (
                LogFile::Calls,
                json!([1]),
                "must be a JSON object, got an array",
            ),
            (
                LogFile::Events,
                json!("x"),
                "must be a JSON object, got a string",
            ),
            (
                LogFile::Calls,
                json!({"tool": "t"}),
                "needs a string callId, got none",
            ),
            (
                LogFile::Results,
                json!({"callId": 5}),
                "needs a string callId, got 5",
            ),
            (
                LogFile::Calls,
                json!({"callId": "c", "attempt": 0}),
                "attempt 0 is not a positive integer",
            ),
            (
                LogFile::Results,
                json!({"callId": "c", "attempt": "2"}),
                "attempt \"2\" is not a positive integer",
            ),
        ];
        for (file, record, expected) in cases {
            let err = stamp(file, &record, 1, 1).unwrap_err();
            assert!(err.message.contains(expected), "{record}: {}", err.message);
            assert_eq!(err.code, ErrorCode::ValidationError);
        }
        // A huge value is quoted by its start only.
        let huge = json!({"callId": ["x".repeat(1_000_000)], "attempt": "y".repeat(1_000_000)});
        for file in [LogFile::Calls, LogFile::Events] {
            let err = stamp(file, &huge, 1, 1).unwrap_err();
            assert!(err.message.len() < 300, "{}", err.message.len());
            assert!(err.message.contains("..."), "{}", err.message);
        }
    }

    #[test]
    fn events_need_no_call_id() {
        assert!(stamp(LogFile::Events, &json!({"type": "run_start"}), 1, 1).is_ok());
    }
}
