//! [`verify_run`]: checking the invariants of a recorded run, reporting every breach.
//!
//! A call is one `(callId, attempt)`. The invariants: every line is a usable record; `seq` is
//! unique across the three files; each call is recorded once; the highest attempt of each
//! `callId` has exactly one result (its final result) and no attempt has more than one; the
//! attempts of a `callId` run 1, 2, .. without gaps, recorded in that order; each result comes
//! after its call (by `seq`) and has a call; each call's `argsHash` is the SHA-256 of its
//! recorded `args`. Partial final lines are counted by replay, not reported here.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::canonical::args_sha256;
use super::record::{ARGS, ARGS_HASH};
use super::replay::{replay_run, seq_of, Replay};

/// One breach of an invariant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    /// The call concerned, when there is one.
    pub call_id: Option<String>,
    /// What kind of breach: `malformed_line`, `duplicate_seq`, `duplicate_call`,
    /// `missing_result`, `duplicate_result`, `result_before_call`, `orphan_result`,
    /// `attempt_gap`, `attempt_order`, `args_hash_mismatch`, or `unreadable_run`.
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
    match replay_run(dir) {
        Ok(replay) => verify_replay(&replay),
        Err(e) => verification(vec![Problem {
            call_id: None,
            kind: "unreadable_run".to_string(),
            message: e.message,
        }]),
    }
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
        check_args_hash(call, &name, id, &mut report);
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
        match pair.results.len() {
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
                    format!("{name} has {n} results (seq {})", seqs.join(", ")),
                );
            }
        }
    }
    check_attempts(replay, &mut report);
    verification(problems)
}

/// `seq` must be unique across the three files.
fn check_unique_seq(replay: &Replay, report: &mut impl FnMut(Option<&str>, &str, String)) {
    let mut seqs: Vec<(u64, &str)> = [
        (&replay.calls, "calls.jsonl"),
        (&replay.results, "results.jsonl"),
        (&replay.events, "events.jsonl"),
    ]
    .into_iter()
    .flat_map(|(records, file)| records.iter().map(move |r| (seq_of(r), file)))
    .collect();
    seqs.sort_unstable();
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
