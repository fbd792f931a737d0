//! [`verify_run`]: checking the invariants of a recorded run, reporting every breach.
//!
//! A call is one `(callId, attempt)`. The invariants: every line is a usable record; `seq` is
//! unique across the three files; each call is recorded once; the highest attempt of each
//! `callId` has exactly one result (its final result) and no attempt has more than one; the
//! attempts of a `callId` run 1, 2, .. without gaps, recorded in that order; each result comes
//! after its call (by `seq`) and has a call; each call's `argsHash` is the SHA-256 of its
//! recorded `args`; every record was written whole (a record the writer had to cut or could not
//! write at all is reported, see [`salvage`](super::salvage)). Nothing is missing: the three
//! files exist, the `seq` numbers across them run 1, 2, .. without a gap up to the last (and up
//! to `run.json`'s `lastSeq`, written when the run ended, so a cut tail shows), and `run.json`
//! has `endedAt` (a run without it is still open or crashed: its log may be incomplete).
//! Partial final lines are counted by replay; the `seq` a partial line held shows as a gap.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::record::{call_id_of, LogFile, ARGS, ARGS_HASH};
use super::replay::{replay_run, seq_of, Replay};
use super::salvage::INCOMPLETE;
use super::writer::{ENDED_AT, LAST_SEQ, RECORD_LOST};
use crate::canonical::args_sha256;

/// One breach of an invariant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    /// The call concerned, when there is one.
    pub call_id: Option<String>,
    /// What kind of breach: `malformed_line`, `duplicate_seq`, `duplicate_call`,
    /// `missing_result`, `duplicate_result`, `result_before_call`, `orphan_result`,
    /// `attempt_gap`, `attempt_order`, `args_hash_mismatch`, `incomplete_record` (a record
    /// written with parts cut or left out, saying why), `lost_record` (a record that could not
    /// be written at all), `missing_file` (a JSONL file of the run is not there), `seq_gap`
    /// (records missing: the `seq` numbers named appear in no file), `seq_after_end` (records
    /// past the `lastSeq` that `run.json` says ended the run), `run_not_ended` (`run.json` has
    /// no `endedAt`: the run is still open or crashed), or `unreadable_run`.
    pub kind: String,
    /// What is wrong, naming the call, attempt, file, line or `seq`.
    pub message: String,
}

/// The outcome of [`verify_run`]: `ok` when there is no problem.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verification {
    /// Whether the run holds every invariant.
    pub ok: bool,
    /// Every breach found, in the order of the log.
    pub problems: Vec<Problem>,
}

/// Replays the run directory `dir` and checks its invariants. A directory that cannot be
/// replayed (missing, no `run.json`) is one `unreadable_run` problem, never a panic or an error.
pub fn verify_run(dir: &Path) -> Verification {
    let replay = match replay_run(dir) {
        Ok(replay) => replay,
        Err(e) => {
            return verification(vec![Problem {
                call_id: None,
                kind: "unreadable_run".to_string(),
                message: e.message,
            }])
        }
    };
    // Replay reads a missing file as empty; a run's writer always creates all three.
    let mut problems: Vec<Problem> = LogFile::ALL
        .iter()
        .filter(|file| !dir.join(file.file_name()).is_file())
        .map(|file| Problem {
            call_id: None,
            kind: "missing_file".to_string(),
            message: format!("{} is missing from the run directory", file.file_name()),
        })
        .collect();
    problems.extend(verify_replay(&replay).problems);
    verification(problems)
}

fn verification(problems: Vec<Problem>) -> Verification {
    Verification {
        ok: problems.is_empty(),
        problems,
    }
}

/// Checks the invariants of an already replayed run.
pub fn verify_replay(replay: &Replay) -> Verification {
    let mut problems = Vec::new();
    let mut report = |call_id: Option<&str>, kind: &str, message: String| {
        problems.push(Problem {
            call_id: call_id.map(str::to_string),
            kind: kind.to_string(),
            message,
        })
    };
    for line in &replay.malformed {
        report(
            line.call_id.as_deref(),
            "malformed_line",
            format!("{} line {}: {}", line.file, line.line, line.message),
        );
    }
    check_unique_seq(replay, &mut report);
    check_whole_records(replay, &mut report);

    // The highest recorded call attempt of each callId.
    let mut highest: HashMap<&str, u64> = HashMap::new();
    for pair in replay.pairs.iter().filter(|p| p.call.is_some()) {
        let top = highest.entry(pair.call_id.as_str()).or_insert(0);
        *top = (*top).max(pair.attempt);
    }
    for pair in &replay.pairs {
        let id = Some(pair.call_id.as_str());
        let name = format!("call \"{}\" attempt {}", pair.call_id, pair.attempt);
        let Some(c) = pair.call else {
            for &r in &pair.results {
                let seq = seq_of(&replay.results[r]);
                report(
                    id,
                    "orphan_result",
                    format!("result seq {seq} of {name} has no recorded call"),
                );
            }
            continue;
        };
        let call = &replay.calls[c];
        let call_seq = seq_of(call);
        for &extra in &pair.extra_calls {
            let seq = seq_of(&replay.calls[extra]);
            report(
                id,
                "duplicate_call",
                format!("{name} is recorded again at seq {seq} (first at seq {call_seq})"),
            );
        }
        // An incomplete call is reported as such; its recorded args are not those hashed.
        if call.get(INCOMPLETE).is_none() {
            check_args_hash(call, &name, id, &mut report);
        }
        for &r in &pair.results {
            let seq = seq_of(&replay.results[r]);
            if seq < call_seq {
                report(
                    id,
                    "result_before_call",
                    format!("result seq {seq} of {name} comes before its call (seq {call_seq})"),
                );
            }
        }
        let is_final = highest.get(pair.call_id.as_str()) == Some(&pair.attempt);
        // A `pending` result (waiting for approval) is followed by the call's final one once
        // the approval is resolved: only the results that are not pending must be unique.
        let pending = pair
            .results
            .iter()
            .filter(|&&r| {
                replay.results[r].get("status").and_then(Value::as_str) == Some("pending")
            })
            .count();
        let finals = pair.results.len() - pending;
        let counted = if finals == 0 { pending } else { finals };
        match counted {
            0 if is_final => report(
                id,
                "missing_result",
                format!("{name} (its final attempt, seq {call_seq}) has no result"),
            ),
            0 | 1 => {}
            n => {
                let seqs: Vec<String> = pair
                    .results
                    .iter()
                    .map(|&r| seq_of(&replay.results[r]).to_string())
                    .collect();
                report(
                    id,
                    "duplicate_result",
                    format!("{name} has {n} final results (seq {})", seqs.join(", ")),
                );
            }
        }
    }
    check_attempts(replay, &mut report);
    check_seq_complete(replay, &mut report);
    if replay.run.get(ENDED_AT).is_none() {
        report(
            None,
            "run_not_ended",
            "run.json has no endedAt: the run is still open or its process stopped before it ended, so its log may be incomplete".to_string(),
        );
    }
    verification(problems)
}

/// The most gaps named one by one; the rest are counted in one more problem.
const MAX_GAPS_NAMED: usize = 32;

/// No record is missing: the `seq` numbers across the three files run 1, 2, .. without a gap up
/// to the highest, and up to `run.json`'s `lastSeq` when the run ended (a cut tail). Each gap is
/// one `seq_gap` naming its range; records past `lastSeq` are one `seq_after_end`.
fn check_seq_complete(replay: &Replay, report: &mut impl FnMut(Option<&str>, &str, String)) {
    let mut seqs: Vec<u64> = [&replay.calls, &replay.results, &replay.events]
        .into_iter()
        .flat_map(|records| records.iter().map(seq_of))
        .collect();
    seqs.sort_unstable();
    seqs.dedup();
    let highest = seqs.last().copied().unwrap_or(0);
    let last = replay.run.get(LAST_SEQ).and_then(Value::as_u64);
    let end = last.map_or(highest, |last| last.max(highest));
    // Missing ranges (first, last), in order: before each recorded seq, then after the highest.
    let mut gaps: Vec<(u64, u64)> = Vec::new();
    let mut expected = 1;
    for &seq in seqs.iter().chain(std::iter::once(&end.saturating_add(1))) {
        if seq > expected {
            gaps.push((expected, seq - 1));
        }
        expected = expected.max(seq.saturating_add(1));
    }
    for &(first, to) in gaps.iter().take(MAX_GAPS_NAMED) {
        let what = if first == to {
            format!("seq {first} is")
        } else {
            format!("seq {first} to {to} are")
        };
        let tail = if first > highest {
            format!(" (after the last recorded, seq {highest}; run.json says the run ended at seq {end})")
        } else {
            String::new()
        };
        report(
            None,
            "seq_gap",
            format!("{what} missing from every file: records were lost{tail}"),
        );
    }
    if gaps.len() > MAX_GAPS_NAMED {
        let missing: u64 = gaps[MAX_GAPS_NAMED..]
            .iter()
            .map(|(first, to)| to - first + 1)
            .fold(0, u64::saturating_add);
        report(
            None,
            "seq_gap",
            format!(
                "{} more gaps ({missing} seq numbers) are missing from every file",
                gaps.len() - MAX_GAPS_NAMED
            ),
        );
    }
    if let Some(last) = last.filter(|&last| highest > last) {
        report(
            None,
            "seq_after_end",
            format!("records up to seq {highest} follow the end of the run (run.json says it ended at seq {last})"),
        );
    }
}

/// `seq` must be unique across the three files.
fn check_unique_seq(replay: &Replay, report: &mut impl FnMut(Option<&str>, &str, String)) {
    // (seq, file): stable sort keeps the files in calls, results, events order.
    let mut seqs: Vec<(u64, &str)> = [
        (&replay.calls, LogFile::Calls),
        (&replay.results, LogFile::Results),
        (&replay.events, LogFile::Events),
    ]
    .into_iter()
    .flat_map(|(records, file)| records.iter().map(move |r| (seq_of(r), file.file_name())))
    .collect();
    seqs.sort_by_key(|(seq, _)| *seq);
    for window in seqs.windows(2) {
        if window[0].0 == window[1].0 {
            report(
                None,
                "duplicate_seq",
                format!(
                    "seq {} is used twice ({} and {})",
                    window[0].0, window[0].1, window[1].1
                ),
            );
        }
    }
}

/// Every record must have been written whole: each record carrying an [`INCOMPLETE`] marker is
/// an `incomplete_record`, each [`RECORD_LOST`] event a `lost_record`, in `seq` order.
fn check_whole_records(replay: &Replay, report: &mut impl FnMut(Option<&str>, &str, String)) {
    let mut found: Vec<(u64, LogFile, &Value)> = [
        (&replay.calls, LogFile::Calls),
        (&replay.results, LogFile::Results),
        (&replay.events, LogFile::Events),
    ]
    .into_iter()
    .flat_map(|(records, file)| records.iter().map(move |r| (seq_of(r), file, r)))
    .filter(|(_, file, r)| {
        r.get(INCOMPLETE).is_some()
            || *file == LogFile::Events
                && r.get("type").and_then(Value::as_str) == Some(RECORD_LOST)
    })
    .collect();
    found.sort_by_key(|(seq, _, _)| *seq);
    let text = |value: Option<&Value>| match value {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "no reason given".to_string(),
    };
    if let Some(marker) = replay.run.get(INCOMPLETE) {
        let reason = text(marker.get("reason").or(Some(marker)));
        report(
            None,
            "incomplete_record",
            format!("run.json was not written whole: {reason}"),
        );
    }
    for (seq, file, record) in found {
        let Some(marker) = record.get(INCOMPLETE) else {
            report(
                None,
                "lost_record",
                format!(
                    "a record of {} could not be written (event seq {seq}): {}",
                    text(record.get("file")),
                    text(record.get("reason")),
                ),
            );
            continue;
        };
        // A call or result names its call by `callId`, an event by `toolCallId`.
        let field = |names: &[&str]| names.iter().find_map(|n| record.get(*n)?.as_str());
        let id = record
            .as_object()
            .and_then(call_id_of)
            .or_else(|| field(&["toolCallId"]));
        let what = match (id, field(&["tool", "toolName"])) {
            (Some(id), Some(tool)) => format!(" of call \"{id}\" (tool \"{tool}\")"),
            (Some(id), None) => format!(" of call \"{id}\""),
            _ => String::new(),
        };
        let reason = text(marker.get("reason").or(Some(marker)));
        report(
            id,
            "incomplete_record",
            format!(
                "{} seq {seq}{what} was not written whole: {reason}",
                file.file_name()
            ),
        );
    }
}

/// The call's `argsHash` must be the SHA-256 of its recorded `args` (`null` when absent).
fn check_args_hash(
    call: &Value,
    name: &str,
    id: Option<&str>,
    report: &mut impl FnMut(Option<&str>, &str, String),
) {
    let expected = args_sha256(call.get(ARGS).unwrap_or(&Value::Null));
    match call.get(ARGS_HASH) {
        Some(Value::String(recorded)) if *recorded == expected => {}
        Some(recorded) => report(
            id,
            "args_hash_mismatch",
            format!("{name} records argsHash {recorded}, its args hash to \"{expected}\""),
        ),
        None => report(
            id,
            "args_hash_mismatch",
            format!("{name} has no argsHash (its args hash to \"{expected}\")"),
        ),
    }
}

/// The recorded attempts of each callId must be 1..=n, recorded in increasing order.
fn check_attempts(replay: &Replay, report: &mut impl FnMut(Option<&str>, &str, String)) {
    // (callId, attempt, call seq) of every recorded call, grouped by callId in log order.
    let mut order: Vec<&str> = Vec::new();
    let mut attempts: HashMap<&str, Vec<(u64, u64)>> = HashMap::new();
    for pair in &replay.pairs {
        let Some(c) = pair.call else { continue };
        let list = attempts.entry(pair.call_id.as_str()).or_insert_with(|| {
            order.push(pair.call_id.as_str());
            Vec::new()
        });
        list.push((pair.attempt, seq_of(&replay.calls[c])));
    }
    for id in order {
        let Some(list) = attempts.get_mut(id) else {
            continue;
        };
        list.sort_unstable();
        let mut expected = 1;
        for &(attempt, _) in list.iter() {
            if attempt > expected {
                let missing = if attempt - expected == 1 {
                    format!("attempt {expected} is")
                } else {
                    format!("attempts {expected} to {} are", attempt - 1)
                };
                report(
                    Some(id),
                    "attempt_gap",
                    format!("call \"{id}\": {missing} missing before attempt {attempt}"),
                );
            }
            expected = attempt + 1;
        }
        for window in list.windows(2) {
            let ((a, a_seq), (b, b_seq)) = (window[0], window[1]);
            if b_seq < a_seq {
                report(
                    Some(id),
                    "attempt_order",
                    format!("call \"{id}\": attempt {b} (seq {b_seq}) is recorded before attempt {a} (seq {a_seq})"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::test_support::{call_line, result_line, write_run, Scratch};
    use serde_json::json;

    /// A hand-written run: `calls`, `results`, `events` lines; expected (kind, callId) problems.
    struct Case {
        name: &'static str,
        calls: Vec<String>,
        results: Vec<String>,
        events: Vec<String>,
        expected: Vec<(&'static str, Option<&'static str>)>,
        message: &'static str,
    }

    fn case(
        name: &'static str,
        calls: Vec<String>,
        results: Vec<String>,
        expected: Vec<(&'static str, Option<&'static str>)>,
        message: &'static str,
    ) -> Case {
        Case {
            name,
            calls,
            results,
            events: Vec::new(),
            expected,
            message,
        }
    }

    #[test]
    fn reports_each_kind_of_breach_naming_the_call() {
        let args = json!({"path": "a"});
        let call = |seq, id, attempt| call_line(seq, id, attempt, &args);
        let result = result_line;
        let pending = |seq: u64, id: &str| {
            json!({ "seq": seq, "ts": 1000 + seq, "callId": id, "attempt": 1, "status": "pending" })
                .to_string()
        };
        let cases = vec![
            case(
                "healthy",
                vec![call(1, "a", 1)],
                vec![result(2, "a", 1)],
                vec![],
                "",
            ),
            case(
                "missing_result",
                vec![call(1, "a", 1), call(2, "b", 1)],
                vec![result(3, "a", 1)],
                vec![("missing_result", Some("b"))],
                "call \"b\" attempt 1 (its final attempt, seq 2) has no result",
            ),
            case(
                "only the final attempt needs a result",
                vec![call(1, "a", 1), call(2, "a", 2)],
                vec![result(3, "a", 2)],
                vec![],
                "",
            ),
            case(
                "duplicate_result",
                vec![call(1, "a", 1)],
                vec![result(2, "a", 1), result(3, "a", 1)],
                vec![("duplicate_result", Some("a"))],
                "call \"a\" attempt 1 has 2 final results (seq 2, 3)",
            ),
            case(
                "a pending result then the final one",
                vec![call(1, "a", 1)],
                vec![pending(2, "a"), result(3, "a", 1)],
                vec![],
                "",
            ),
            case(
                "two final results after a pending one",
                vec![call(1, "a", 1)],
                vec![pending(2, "a"), result(3, "a", 1), result(4, "a", 1)],
                vec![("duplicate_result", Some("a"))],
                "call \"a\" attempt 1 has 2 final results (seq 2, 3, 4)",
            ),
            case(
                "result_before_call",
                vec![call(2, "a", 1)],
                vec![result(1, "a", 1)],
                vec![("result_before_call", Some("a"))],
                "result seq 1 of call \"a\" attempt 1 comes before its call (seq 2)",
            ),
            case(
                "attempt_gap",
                vec![call(1, "a", 1), call(3, "a", 3)],
                vec![result(2, "a", 1), result(4, "a", 3)],
                vec![("attempt_gap", Some("a"))],
                "call \"a\": attempt 2 is missing before attempt 3",
            ),
            case(
                "attempt_gap not starting at 1",
                vec![call(1, "a", 3)],
                vec![result(2, "a", 3)],
                vec![("attempt_gap", Some("a"))],
                "call \"a\": attempts 1 to 2 are missing before attempt 3",
            ),
            case(
                "attempt_order",
                vec![call(1, "a", 2), call(2, "a", 1)],
                vec![result(3, "a", 2)],
                vec![("attempt_order", Some("a"))],
                "call \"a\": attempt 2 (seq 1) is recorded before attempt 1 (seq 2)",
            ),
            case(
                "orphan_result",
                vec![call(1, "a", 1)],
                vec![result(2, "a", 1), result(3, "ghost", 1)],
                vec![("orphan_result", Some("ghost"))],
                "result seq 3 of call \"ghost\" attempt 1 has no recorded call",
            ),
            case(
                "orphan_result of an attempt never called",
                vec![call(1, "a", 1)],
                vec![result(2, "a", 1), result(3, "a", 2)],
                vec![("orphan_result", Some("a"))],
                "result seq 3 of call \"a\" attempt 2 has no recorded call",
            ),
            case(
                "malformed_line",
                vec![call(1, "a", 1), "{\"seq\":2,".into(), call(3, "b", 1)],
                vec![result(4, "a", 1), result(5, "b", 1)],
                vec![("malformed_line", None), ("seq_gap", None)],
                "calls.jsonl line 2: does not parse",
            ),
            case(
                "malformed_line naming its call",
                vec![call(1, "a", 1), json!({"callId": "b", "ts": 1}).to_string()],
                vec![result(2, "a", 1)],
                vec![("malformed_line", Some("b"))],
                "calls.jsonl line 2: has no numeric seq",
            ),
            case(
                "args_hash_mismatch",
                vec![
                    json!({"seq": 1, "callId": "a", "args": {"x": 1}, "argsHash": "00"})
                        .to_string(),
                ],
                vec![result(2, "a", 1)],
                vec![("args_hash_mismatch", Some("a"))],
                "call \"a\" attempt 1 records argsHash \"00\", its args hash to",
            ),
            case(
                "args_hash_mismatch when absent",
                vec![json!({"seq": 1, "callId": "a", "args": {}}).to_string()],
                vec![result(2, "a", 1)],
                vec![("args_hash_mismatch", Some("a"))],
                "call \"a\" attempt 1 has no argsHash",
            ),
            case(
                "duplicate_call",
                vec![call(1, "a", 1), call(2, "a", 1)],
                vec![result(3, "a", 1)],
                vec![("duplicate_call", Some("a"))],
                "call \"a\" attempt 1 is recorded again at seq 2 (first at seq 1)",
            ),
            Case {
                name: "duplicate_seq",
                calls: vec![call(1, "a", 1)],
                results: vec![result(2, "a", 1)],
                events: vec![json!({"seq": 2, "type": "x"}).to_string()],
                expected: vec![("duplicate_seq", None)],
                message: "seq 2 is used twice (results.jsonl and events.jsonl)",
            },
            case(
                "seq_gap: every line of one call deleted from every file",
                vec![call(1, "a", 1), call(4, "c", 1)],
                vec![result(3, "a", 1), result(6, "c", 1)],
                vec![("seq_gap", None), ("seq_gap", None)],
                "seq 2 is missing from every file: records were lost",
            ),
            Case {
                name: "seq_gap: a range, across the files",
                calls: vec![call(1, "a", 1)],
                results: vec![result(2, "a", 1)],
                events: vec![json!({"seq": 7, "type": "x"}).to_string()],
                expected: vec![("seq_gap", None)],
                message: "seq 3 to 6 are missing from every file: records were lost",
            },
            case(
                "seq_gap: the log does not start at 1",
                vec![call(3, "a", 1)],
                vec![result(4, "a", 1)],
                vec![("seq_gap", None)],
                "seq 1 to 2 are missing from every file",
            ),
            case(
                "several at once, in log order",
                vec![call(1, "a", 1), call(2, "b", 2)],
                vec![result(3, "b", 2), result(4, "b", 2), result(5, "z", 1)],
                vec![
                    ("missing_result", Some("a")),
                    ("duplicate_result", Some("b")),
                    ("orphan_result", Some("z")),
                    ("attempt_gap", Some("b")),
                ],
                "call \"a\" attempt 1 (its final attempt, seq 1) has no result",
            ),
        ];
        for case in cases {
            let scratch = Scratch::new("verify");
            let dir = scratch.path("run");
            write_run(&dir, &case.calls, &case.results, &case.events);
            let verification = verify_run(&dir);
            let got: Vec<(&str, Option<&str>)> = verification
                .problems
                .iter()
                .map(|p| (p.kind.as_str(), p.call_id.as_deref()))
                .collect();
            assert_eq!(
                got, case.expected,
                "{}: {:?}",
                case.name, verification.problems
            );
            assert_eq!(verification.ok, case.expected.is_empty(), "{}", case.name);
            if let Some(first) = verification.problems.first() {
                assert!(
                    first.message.starts_with(case.message),
                    "{}: {}",
                    case.name,
                    first.message
                );
            }
        }
    }

    #[test]
    fn reports_every_record_not_written_whole_naming_its_call() {
        let scratch = Scratch::new("whole");
        let dir = scratch.path("run");
        let args = json!({"path": "a"});
        let cut = json!({"reason": "1 value nested deeper than 127 levels could not be written", "cut": 1});
        let mut incomplete_call: Value =
            serde_json::from_str(&call_line(1, "a", 1, &args)).unwrap();
        incomplete_call["tool"] = json!("read");
        incomplete_call[INCOMPLETE] = cut.clone();
        incomplete_call["args"] = json!("[audit: cut]");
        let calls = vec![incomplete_call.to_string(), call_line(3, "b", 1, &args)];
        let results = vec![result_line(2, "a", 1), result_line(4, "b", 1)];
        let events = vec![
            json!({"seq": 5, "type": "tool_execution_end", "toolCallId": "b", "toolName": "write", "auditIncomplete": cut}).to_string(),
            json!({"seq": 6, "type": RECORD_LOST, "file": "results.jsonl", "reason": "the record is not JSON: EOF"}).to_string(),
        ];
        write_run(&dir, &calls, &results, &events);
        let mut run: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
        run[INCOMPLETE] = json!({"reason": "the plan could not be serialized"});
        std::fs::write(dir.join("run.json"), run.to_string()).unwrap();

        let verification = verify_run(&dir);
        let got: Vec<(&str, Option<&str>, &str)> = verification
            .problems
            .iter()
            .map(|p| (p.kind.as_str(), p.call_id.as_deref(), p.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("incomplete_record", None, "run.json was not written whole: the plan could not be serialized"),
                ("incomplete_record", Some("a"), "calls.jsonl seq 1 of call \"a\" (tool \"read\") was not written whole: 1 value nested deeper than 127 levels could not be written"),
                ("incomplete_record", Some("b"), "events.jsonl seq 5 of call \"b\" (tool \"write\") was not written whole: 1 value nested deeper than 127 levels could not be written"),
                ("lost_record", None, "a record of results.jsonl could not be written (event seq 6): the record is not JSON: EOF"),
            ],
            "no args_hash_mismatch for the cut call"
        );
        assert!(!verification.ok);
    }

    /// A run written by the writer: two calls with results and an event (seq 1 to 5), ended
    /// when `end` (so run.json has endedAt and lastSeq 5), else dropped as a crash leaves it.
    fn written_run(dir: &Path, end: bool) {
        let mut writer = crate::audit::AuditWriter::create(dir, &json!({"runId": "r"})).unwrap();
        for id in ["a", "b"] {
            writer
                .record_call(&json!({"callId": id, "attempt": 1, "args": {}}), 1)
                .unwrap();
            writer
                .record_result(&json!({"callId": id, "attempt": 1, "status": "success"}), 2)
                .unwrap();
        }
        writer.record_event(&json!({"type": "done"}), 3).unwrap();
        if end {
            writer.finish(None).unwrap();
        }
    }

    /// Every way a written log loses records, each seen: (name, damage, expected problems).
    #[test]
    fn reports_every_way_records_go_missing() {
        type Damage = fn(&Path);
        type Expected = Vec<(&'static str, &'static str)>;
        let cases: Vec<(&str, bool, Damage, Expected)> = vec![
            ("untouched", true, |_| {}, vec![]),
            (
                "crashed: no endedAt",
                false,
                |_| {},
                vec![("run_not_ended", "run.json has no endedAt")],
            ),
            (
                "every file deleted",
                true,
                |dir| {
                    for name in ["calls.jsonl", "results.jsonl", "events.jsonl"] {
                        std::fs::remove_file(dir.join(name)).unwrap();
                    }
                },
                vec![
                    ("missing_file", "calls.jsonl is missing"),
                    ("missing_file", "results.jsonl is missing"),
                    ("missing_file", "events.jsonl is missing"),
                    ("seq_gap", "seq 1 to 5 are missing from every file: records were lost (after the last recorded, seq 0; run.json says the run ended at seq 5)"),
                ],
            ),
            (
                "every file emptied",
                true,
                |dir| {
                    for name in ["calls.jsonl", "results.jsonl", "events.jsonl"] {
                        std::fs::write(dir.join(name), "").unwrap();
                    }
                },
                vec![("seq_gap", "seq 1 to 5 are missing")],
            ),
            (
                "the tail cut: the last event gone",
                true,
                |dir| std::fs::write(dir.join("events.jsonl"), "").unwrap(),
                vec![("seq_gap", "seq 5 is missing from every file: records were lost (after the last recorded, seq 4;")],
            ),
            (
                "one call's lines deleted from every file",
                true,
                |dir| {
                    for name in ["calls.jsonl", "results.jsonl"] {
                        let text = std::fs::read_to_string(dir.join(name)).unwrap();
                        let kept: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
                        std::fs::write(dir.join(name), kept).unwrap();
                    }
                },
                vec![("seq_gap", "seq 1 to 2 are missing from every file")],
            ),
            (
                "records after the end",
                true,
                |dir| {
                    let line = json!({"seq": 6, "ts": 1, "type": "late"}).to_string();
                    let mut text = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
                    text.push_str(&format!("{line}\n"));
                    std::fs::write(dir.join("events.jsonl"), text).unwrap();
                },
                vec![("seq_after_end", "records up to seq 6 follow the end of the run (run.json says it ended at seq 5)")],
            ),
        ];
        for (name, end, damage, expected) in cases {
            let scratch = Scratch::new("missing");
            let dir = scratch.path("run");
            written_run(&dir, end);
            damage(&dir);
            let verification = verify_run(&dir);
            let got: Vec<(&str, &str)> = verification
                .problems
                .iter()
                .map(|p| (p.kind.as_str(), p.message.as_str()))
                .collect();
            assert_eq!(got.len(), expected.len(), "{name}: {got:?}");
            for ((kind, message), (want_kind, want_message)) in got.iter().zip(&expected) {
                assert_eq!(kind, want_kind, "{name}: {got:?}");
                assert!(message.starts_with(want_message), "{name}: {message}");
            }
            assert_eq!(verification.ok, expected.is_empty(), "{name}");
        }
    }

    #[test]
    fn many_gaps_are_named_up_to_a_bound_then_counted() {
        let scratch = Scratch::new("gaps");
        let dir = scratch.path("run");
        // Events at seq 2, 4, .. 200: 100 one-seq gaps (1, 3, .. 199).
        let events: Vec<String> = (1..=100)
            .map(|i| json!({"seq": 2 * i, "type": "x"}).to_string())
            .collect();
        write_run::<&str, &str, String>(&dir, &[], &[], &events);
        let problems = verify_run(&dir).problems;
        assert_eq!(problems.len(), MAX_GAPS_NAMED + 1);
        assert!(problems.iter().all(|p| p.kind == "seq_gap"));
        assert!(problems[0].message.starts_with("seq 1 is missing"));
        assert_eq!(
            problems[MAX_GAPS_NAMED].message,
            format!(
                "{} more gaps ({} seq numbers) are missing from every file",
                100 - MAX_GAPS_NAMED,
                100 - MAX_GAPS_NAMED
            )
        );
    }

    #[test]
    fn an_unreadable_run_is_one_problem() {
        let scratch = Scratch::new("unreadable");
        let verification = verify_run(&scratch.path("nowhere"));
        assert!(!verification.ok);
        assert_eq!(verification.problems.len(), 1);
        assert_eq!(verification.problems[0].kind, "unreadable_run");
        assert!(verification.problems[0].message.contains("nowhere"));
    }

    #[test]
    fn serializes_in_camel_case() {
        let verification = verification(vec![Problem {
            call_id: Some("c1".into()),
            kind: "missing_result".into(),
            message: "m".into(),
        }]);
        assert_eq!(
            serde_json::to_value(&verification).unwrap(),
            json!({"ok": false, "problems": [{"callId": "c1", "kind": "missing_result", "message": "m"}]})
        );
    }
}
