//! [`replay_run`]: rebuilding a recorded run from its directory.
//!
//! Only a missing directory or `run.json` (and a file that cannot be read at all) is an error;
//! what the files hold is reported: a partial final line is counted, a malformed line is kept in
//! [`Replay::malformed`] for [`verify`](super::verify) to report.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, BufReader};
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use super::lines::{scan_jsonl, Tail};
use super::record::{attempt_of, call_id_of, LogFile, CALL_ID, RUN_FILE, SEQ};
use super::writer::PARTIAL_LINE_DROPPED;
use crate::error::{Error, ErrorCode, Result};
use crate::json_text::json_type;

/// A line of the log that is not a usable record.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MalformedLine {
    /// The file name, e.g. `"calls.jsonl"`.
    pub file: String,
    /// The line number, from 1.
    pub line: usize,
    /// The `callId` of the line, when it parsed far enough to have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Why the line is unusable.
    pub message: String,
}

/// One call attempt `(callId, attempt)` with the records recorded for it, as indices into
/// [`Replay::calls`] and [`Replay::results`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallPair {
    /// The call's id.
    pub call_id: String,
    /// The attempt number (1 when the records have none).
    pub attempt: u64,
    /// The call record, or `None` for results whose call was never recorded.
    pub call: Option<usize>,
    /// Further call records with the same id and attempt (a breach verify reports).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extra_calls: Vec<usize>,
    /// The results recorded for this attempt, in `seq` order (exactly one when all is well).
    pub results: Vec<usize>,
}

/// A run rebuilt from its directory; serializes as `{ run, calls, results, events, partialLines,
/// partialLinesByFile, malformed, pairs }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Replay {
    /// The content of `run.json` (`null` when it does not parse; see `malformed`).
    pub run: Value,
    /// The call records, in `seq` order, exactly as recorded (timing included).
    pub calls: Vec<Value>,
    /// The result records, in `seq` order, exactly as recorded.
    pub results: Vec<Value>,
    /// The event records, in `seq` order, exactly as recorded.
    pub events: Vec<Value>,
    /// Partial final lines in all files: writes cut short by a crash, counted and skipped (and
    /// those a later writer cut off before appending, from its `audit_partial_line_dropped`
    /// events).
    pub partial_lines: usize,
    /// `partial_lines` per file name (all three files always present).
    pub partial_lines_by_file: BTreeMap<String, usize>,
    /// Lines that are not usable records, in file order.
    pub malformed: Vec<MalformedLine>,
    /// Every `(callId, attempt)` with its call and results, ordered by the first `seq` of each.
    pub pairs: Vec<CallPair>,
}

/// Reads the run directory `dir` back: `run.json` and the three JSONL files.
///
/// A missing directory or `run.json` is an error naming it, as is a file that exists but cannot
/// be read; a missing JSONL file is empty. Everything about the content is reported in the
/// returned [`Replay`], never thrown.
pub fn replay_run(dir: &Path) -> Result<Replay> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(Error::caller(
                ErrorCode::ValidationError,
                format!("audit directory {} is not a directory", dir.display()),
            ))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(Error::caller(
                ErrorCode::NotFound,
                format!("audit directory {} does not exist", dir.display()),
            ))
        }
        Err(e) => {
            return Err(Error::caller(
                ErrorCode::ExecutionError,
                format!("audit directory {}: {e}", dir.display()),
            ))
        }
    }
    let mut replay = Replay {
        run: Value::Null,
        calls: Vec::new(),
        results: Vec::new(),
        events: Vec::new(),
        partial_lines: 0,
        partial_lines_by_file: LogFile::ALL
            .iter()
            .map(|f| (f.file_name().to_string(), 0))
            .collect(),
        malformed: Vec::new(),
        pairs: Vec::new(),
    };
    replay.run = read_run(dir, &mut replay.malformed)?;
    for file in LogFile::ALL {
        let (records, partial) = read_records(dir, file, &mut replay.malformed)?;
        let records = sorted_by_seq(records);
        if partial {
            count_partial(&mut replay, file.file_name());
        }
        match file {
            LogFile::Calls => replay.calls = records,
            LogFile::Results => replay.results = records,
            LogFile::Events => replay.events = records,
        }
    }
    let dropped: Vec<String> = replay
        .events
        .iter()
        .filter(|e| e.get("type").and_then(Value::as_str) == Some(PARTIAL_LINE_DROPPED))
        .filter_map(|e| e.get("file").and_then(Value::as_str).map(str::to_string))
        .collect();
    for name in dropped {
        count_partial(&mut replay, &name);
    }
    replay.pairs = pair_calls(&replay.calls, &replay.results);
    Ok(replay)
}

fn count_partial(replay: &mut Replay, file_name: &str) {
    if let Some(count) = replay.partial_lines_by_file.get_mut(file_name) {
        *count += 1;
        replay.partial_lines += 1;
    }
}

/// Reads `run.json`; a missing file is an error, one that does not parse is reported.
fn read_run(dir: &Path, malformed: &mut Vec<MalformedLine>) -> Result<Value> {
    let path = dir.join(RUN_FILE);
    let bytes = std::fs::read(&path).map_err(|e| {
        let code = if e.kind() == io::ErrorKind::NotFound {
            ErrorCode::NotFound
        } else {
            ErrorCode::ExecutionError
        };
        Error::caller(code, format!("audit file {}: {e}", path.display()))
    })?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(run) => Ok(run),
        Err(e) => {
            malformed.push(MalformedLine {
                file: RUN_FILE.to_string(),
                line: e.line(),
                call_id: None,
                message: format!("{RUN_FILE} does not parse: {e}"),
            });
            Ok(Value::Null)
        }
    }
}

/// The usable records of one file with their `seq`, and whether it ends in a partial line.
fn read_records(
    dir: &Path,
    file: LogFile,
    malformed: &mut Vec<MalformedLine>,
) -> Result<(Vec<(u64, Value)>, bool)> {
    let path = dir.join(file.file_name());
    // A log file replaced by a directory (or anything but a file) holds no records: read as
    // missing, which verify_run reports (`missing_file`), with the records it misses.
    if std::fs::metadata(&path).is_ok_and(|meta| !meta.is_file()) {
        return Ok((Vec::new(), false));
    }
    let handle = match File::open(&path) {
        Ok(handle) => handle,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Vec::new(), false)),
        Err(e) => {
            return Err(Error::caller(
                ErrorCode::ExecutionError,
                format!("audit file {}: cannot be opened: {e}", path.display()),
            ))
        }
    };
    let mut records = Vec::new();
    let tail = scan_jsonl(BufReader::new(handle), |line, parsed| {
        let checked = parsed.map_err(|e| (None, format!("does not parse: {e}")));
        match checked.and_then(|value| check_record(file, value)) {
            Ok(record) => records.push(record),
            Err((call_id, message)) => malformed.push(MalformedLine {
                file: file.file_name().to_string(),
                line,
                call_id,
                message,
            }),
        }
    })
    .map_err(|e| {
        Error::caller(
            ErrorCode::ExecutionError,
            format!("audit file {}: cannot be read: {e}", path.display()),
        )
    })?;
    Ok((records, matches!(tail, Tail::Partial { .. })))
}

/// A parsed line as a record of `file` with its `seq`, or why it is not one (with its `callId`
/// when it has one).
fn check_record(
    file: LogFile,
    value: Value,
) -> std::result::Result<(u64, Value), (Option<String>, String)> {
    let Value::Object(fields) = &value else {
        return Err((None, format!("is {}, not an object", json_type(&value))));
    };
    let call_id = call_id_of(fields).map(str::to_string);
    let refuse = |message: String| Err((call_id.clone(), message));
    let Some(seq) = fields.get(SEQ).and_then(Value::as_u64) else {
        return refuse("has no numeric seq".to_string());
    };
    if file.needs_call_id() && call_id.is_none() {
        return refuse(format!("has no string {CALL_ID}"));
    }
    if let Err(message) = attempt_of(fields) {
        return refuse(message);
    }
    Ok((seq, value))
}

/// The records in `seq` order (records with equal `seq` keep their file order).
fn sorted_by_seq(mut records: Vec<(u64, Value)>) -> Vec<Value> {
    records.sort_by_key(|(seq, _)| *seq);
    records.into_iter().map(|(_, record)| record).collect()
}

/// The `(callId, attempt)` key of a checked record.
fn key_of(record: &Value) -> (String, u64) {
    let empty = Map::new();
    let fields = record.as_object().unwrap_or(&empty);
    (
        call_id_of(fields).unwrap_or_default().to_string(),
        attempt_of(fields).unwrap_or(1),
    )
}

/// The `seq` of a checked record.
pub(crate) fn seq_of(record: &Value) -> u64 {
    record.get(SEQ).and_then(Value::as_u64).unwrap_or(0)
}

/// Pairs calls and results by `(callId, attempt)`, ordered by the first `seq` of each pair.
fn pair_calls(calls: &[Value], results: &[Value]) -> Vec<CallPair> {
    let mut pairs: Vec<CallPair> = Vec::new();
    let mut index: HashMap<(String, u64), usize> = HashMap::new();
    let mut pair_for = |key: (String, u64), pairs: &mut Vec<CallPair>| -> usize {
        *index.entry(key.clone()).or_insert_with(|| {
            pairs.push(CallPair {
                call_id: key.0,
                attempt: key.1,
                call: None,
                extra_calls: Vec::new(),
                results: Vec::new(),
            });
            pairs.len() - 1
        })
    };
    for (i, call) in calls.iter().enumerate() {
        let at = pair_for(key_of(call), &mut pairs);
        match pairs[at].call {
            None => pairs[at].call = Some(i),
            Some(_) => pairs[at].extra_calls.push(i),
        }
    }
    for (i, result) in results.iter().enumerate() {
        let at = pair_for(key_of(result), &mut pairs);
        pairs[at].results.push(i);
    }
    let first_seq = |pair: &CallPair| match pair.call {
        Some(c) => seq_of(&calls[c]),
        None => pair.results.first().map_or(0, |&r| seq_of(&results[r])),
    };
    pairs.sort_by_key(first_seq);
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::test_support::{call_line, result_line, write_run, Scratch};
    use crate::audit::verify::verify_run;
    use crate::audit::writer::AuditWriter;
    use serde_json::json;

    /// Writes a small run with two calls (one retried), their results and events.
    fn record_run(dir: &Path) -> Vec<Value> {
        let mut writer =
            AuditWriter::create(dir, &json!({"runId": "r1", "plan": ["a", "b"]})).unwrap();
        let records = [
            (LogFile::Events, json!({"type": "run_start"})),
            (
                LogFile::Calls,
                json!({"callId": "a", "stepId": "s1", "tool": "read", "args": {"path": "x"}, "startedAt": 10}),
            ),
            (
                LogFile::Calls,
                json!({"callId": "b", "stepId": "s2", "attempt": 1, "tool": "exec", "args": {"cmd": "ls"}, "startedAt": 11}),
            ),
            (
                LogFile::Results,
                json!({"callId": "b", "attempt": 1, "status": "error", "endedAt": 20, "durationMs": 9}),
            ),
            (
                LogFile::Calls,
                json!({"callId": "b", "stepId": "s2", "attempt": 2, "tool": "exec", "args": {"cmd": "ls"}, "startedAt": 21}),
            ),
            (
                LogFile::Results,
                json!({"callId": "a", "status": "success", "startedAt": 10, "endedAt": 25, "durationMs": 15}),
            ),
            (
                LogFile::Results,
                json!({"callId": "b", "attempt": 2, "status": "success", "endedAt": 30, "durationMs": 9}),
            ),
            (LogFile::Events, json!({"type": "run_end"})),
        ];
        let mut written = Vec::new();
        for (i, (file, record)) in records.into_iter().enumerate() {
            let ts = 1000 + u64::try_from(i).unwrap();
            match file {
                LogFile::Calls => writer.record_call(&record, ts),
                LogFile::Results => writer.record_result(&record, ts),
                LogFile::Events => writer.record_event(&record, ts),
            }
            .unwrap();
            written.push(record);
        }
        writer
            .finish(Some(&json!({"status": "ok", "endedAt": 7})))
            .unwrap();
        written
    }

    #[test]
    fn round_trip_gives_back_what_was_written_in_order() {
        let scratch = Scratch::new("roundtrip");
        let dir = scratch.path("run");
        let written = record_run(&dir);
        let replay = replay_run(&dir).unwrap();
        assert_eq!(
            replay.run,
            json!({"runId": "r1", "plan": ["a", "b"], "status": "ok", "endedAt": 7, "lastSeq": written.len()})
        );
        assert_eq!(replay.partial_lines, 0);
        assert!(replay.malformed.is_empty());
        // Merged by seq, the three files give back the records in the order they were written,
        // each with its fields (timing included) as given plus seq, ts and argsHash.
        let mut merged: Vec<&Value> = replay
            .calls
            .iter()
            .chain(&replay.results)
            .chain(&replay.events)
            .collect();
        merged.sort_by_key(|r| seq_of(r));
        assert_eq!(merged.len(), written.len());
        for (i, (got, given)) in merged.iter().zip(&written).enumerate() {
            let seq = u64::try_from(i).unwrap() + 1;
            assert_eq!(got["seq"], seq);
            assert_eq!(got["ts"], 999 + seq);
            for (key, value) in given.as_object().unwrap() {
                assert_eq!(&got[key], value, "record {seq} field {key}");
            }
        }
        let pairs: Vec<(&str, u64, Option<usize>, Vec<usize>)> = replay
            .pairs
            .iter()
            .map(|p| (p.call_id.as_str(), p.attempt, p.call, p.results.clone()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("a", 1, Some(0), vec![1]),
                ("b", 1, Some(1), vec![0]),
                ("b", 2, Some(2), vec![2])
            ]
        );
        let verification = verify_run(&dir);
        assert!(verification.ok, "{:?}", verification.problems);
    }

    #[test]
    fn serializes_in_camel_case() {
        let scratch = Scratch::new("json");
        let dir = scratch.path("run");
        record_run(&dir);
        let value = serde_json::to_value(replay_run(&dir).unwrap()).unwrap();
        let keys: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "run",
                "calls",
                "results",
                "events",
                "partialLines",
                "partialLinesByFile",
                "malformed",
                "pairs"
            ]
        );
        assert_eq!(
            value["pairs"][0],
            json!({"callId": "a", "attempt": 1, "call": 0, "results": [1]})
        );
        assert_eq!(
            value["partialLinesByFile"],
            json!({"calls.jsonl": 0, "events.jsonl": 0, "results.jsonl": 0})
        );
    }

    #[test]
    fn a_partial_final_line_is_counted_not_malformed() {
        let scratch = Scratch::new("partial");
        let dir = scratch.path("run");
        record_run(&dir);
        let path = dir.join("results.jsonl");
        let text = std::fs::read(&path).unwrap();
        std::fs::write(&path, &text[..text.len() - 10]).unwrap();
        let replay = replay_run(&dir).unwrap();
        assert_eq!(replay.partial_lines, 1);
        assert_eq!(replay.partial_lines_by_file["results.jsonl"], 1);
        assert!(replay.malformed.is_empty());
        assert_eq!(replay.results.len(), 2);
        // The lost line was the final result of "b": a missing result, and its seq a gap.
        let verification = verify_run(&dir);
        let kinds: Vec<(&str, Option<&str>)> = verification
            .problems
            .iter()
            .map(|p| (p.kind.as_str(), p.call_id.as_deref()))
            .collect();
        assert_eq!(kinds, [("missing_result", Some("b")), ("seq_gap", None)]);
    }

    #[test]
    fn a_malformed_middle_line_is_kept_with_file_and_line() {
        let scratch = Scratch::new("malformed");
        let dir = scratch.path("run");
        let args = json!({});
        let calls = [
            call_line(1, "a", 1, &args),
            "{\"seq\":2,\"callId\":\"b\",".to_string(),
            call_line(3, "c", 1, &args),
        ];
        let results = [result_line(4, "a", 1), result_line(5, "c", 1)];
        write_run(
            &dir,
            &calls,
            &results,
            &["{\"ts\":1,\"type\":\"no seq\"}", "[1]"],
        );
        let replay = replay_run(&dir).unwrap();
        assert_eq!(replay.partial_lines, 0);
        let malformed: Vec<(&str, usize)> = replay
            .malformed
            .iter()
            .map(|m| (m.file.as_str(), m.line))
            .collect();
        assert_eq!(
            malformed,
            [("calls.jsonl", 2), ("events.jsonl", 1), ("events.jsonl", 2)]
        );
        assert!(
            replay.malformed[0].message.contains("does not parse"),
            "{:?}",
            replay.malformed[0]
        );
        assert_eq!(replay.malformed[1].message, "has no numeric seq");
        assert_eq!(replay.malformed[2].message, "is an array, not an object");
        assert_eq!(replay.calls.len(), 2);
    }

    #[test]
    fn missing_directory_or_run_json_is_an_error_naming_it() {
        let scratch = Scratch::new("missing");
        let dir = scratch.path("nowhere");
        let err = replay_run(&dir).unwrap_err();
        assert_eq!(err.code, ErrorCode::NotFound);
        assert!(err.message.contains("nowhere"), "{}", err.message);
        std::fs::create_dir_all(&dir).unwrap();
        let err = replay_run(&dir).unwrap_err();
        assert!(err.message.contains("run.json"), "{}", err.message);
        // Missing JSONL files are empty, a run.json that does not parse is reported.
        std::fs::write(dir.join("run.json"), "{\"a\":").unwrap();
        let replay = replay_run(&dir).unwrap();
        assert_eq!(replay.run, Value::Null);
        assert_eq!(replay.malformed[0].file, "run.json");
        assert!(replay.calls.is_empty());
    }

    #[test]
    fn a_file_cut_at_any_byte_replays() {
        let scratch = Scratch::new("cuts");
        let dir = scratch.path("run");
        record_run(&dir);
        let calls = std::fs::read(dir.join("calls.jsonl")).unwrap();
        let line_ends: Vec<usize> = calls
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .map(|(i, _)| i + 1)
            .collect();
        let copy = scratch.path("copy");
        std::fs::create_dir_all(&copy).unwrap();
        for name in ["run.json", "results.jsonl", "events.jsonl"] {
            std::fs::copy(dir.join(name), copy.join(name)).unwrap();
        }
        for cut in 0..=calls.len() {
            std::fs::write(copy.join("calls.jsonl"), &calls[..cut]).unwrap();
            let replay = replay_run(&copy).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
            let whole = line_ends.iter().filter(|&&end| end <= cut).count();
            // A cut right before a line's "\n" leaves a whole record missing only its newline.
            let unterminated = line_ends.contains(&(cut + 1));
            let expected_partial =
                usize::from(!line_ends.contains(&cut) && cut > 0 && !unterminated);
            assert_eq!(replay.partial_lines, expected_partial, "cut at {cut}");
            assert_eq!(
                replay.calls.len(),
                whole + usize::from(unterminated),
                "cut at {cut}"
            );
            assert!(
                replay.malformed.is_empty(),
                "cut at {cut}: {:?}",
                replay.malformed
            );
            let verification = verify_run(&copy);
            assert!(
                verification
                    .problems
                    .iter()
                    .all(|p| p.kind != "malformed_line"),
                "cut at {cut}"
            );
        }
    }
}
