//! Loop detection: a run that keeps making the same call (same tool, same arguments) is warned
//! once and then blocked.
//!
//! Memory is bounded: at most [`MAX_RUNS`] runs are tracked (starting another evicts the run
//! that started first, which then counts from zero if it calls again) and at most
//! [`MAX_KEYS_PER_RUN`] distinct calls per run (a new one evicts the call first seen).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::tools::canonical_tool_name;
use crate::canonical::args_sha256;
use crate::error::{Error, ErrorCode, Result};

/// The most runs tracked at once.
pub const MAX_RUNS: usize = 1024;
/// The most distinct calls tracked per run.
pub const MAX_KEYS_PER_RUN: usize = 4096;

/// The thresholds of loop detection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopOptions {
    /// The count of identical calls at which the run is warned (once), default 5.
    pub warn_at: u32,
    /// The count from which identical calls are blocked, default 10.
    pub block_at: u32,
}

impl Default for LoopOptions {
    fn default() -> Self {
        LoopOptions {
            warn_at: 5,
            block_at: 10,
        }
    }
}

impl LoopOptions {
    /// Parses `loopDetection` found at path `at`: `false` turns detection off (`None`); `true`,
    /// `null` and `{}` give the defaults; `{ warnAt, blockAt }` must be positive integers with
    /// `warnAt < blockAt`. Anything else is a `VALIDATION_ERROR` naming the path.
    pub fn from_json(value: &Value, at: &str) -> Result<Option<LoopOptions>> {
        let map = match value {
            Value::Bool(false) => return Ok(None),
            Value::Bool(true) | Value::Null => return Ok(Some(LoopOptions::default())),
            Value::Object(map) => map,
            other => {
                return Err(invalid(format!(
                    "{at} must be false or an object {{ warnAt, blockAt }}, got {}",
                    crate::json_text::json_type(other)
                )))
            }
        };
        crate::options::check_option_keys(
            at,
            map.keys().map(String::as_str),
            &["warnAt", "blockAt"],
        )?;
        let defaults = LoopOptions::default();
        let options = LoopOptions {
            warn_at: threshold(map.get("warnAt"), &format!("{at}.warnAt"), defaults.warn_at)?,
            block_at: threshold(
                map.get("blockAt"),
                &format!("{at}.blockAt"),
                defaults.block_at,
            )?,
        };
        if options.warn_at >= options.block_at {
            return Err(invalid(format!(
                "{at}.warnAt ({}) must be less than {at}.blockAt ({})",
                options.warn_at, options.block_at
            )));
        }
        Ok(Some(options))
    }
}

fn invalid(message: String) -> Error {
    Error::caller(ErrorCode::ValidationError, message)
}

/// A positive integer threshold, or the default when absent or `null`.
fn threshold(value: Option<&Value>, at: &str, default: u32) -> Result<u32> {
    match value {
        None | Some(Value::Null) => Ok(default),
        Some(value) => value
            .as_u64()
            .filter(|count| *count > 0)
            .and_then(|count| u32::try_from(count).ok())
            .ok_or_else(|| {
                invalid(format!(
                    "{at} must be a positive integer, got {}",
                    if value.is_number() {
                        value.to_string()
                    } else {
                        crate::json_text::json_type(value).to_string()
                    }
                ))
            }),
    }
}

/// What [`LoopDetector::record`] says about a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopVerdict {
    /// Go ahead.
    Ok,
    /// Go ahead, but the run has now made this call `count` times (said once per run and call).
    Warn {
        /// How many times the call was made, this one included.
        count: u32,
    },
    /// Refuse the call: it was made `count` times, this one included.
    Block {
        /// How many times the call was made, this one included.
        count: u32,
    },
}

/// The counts of one run.
#[derive(Debug, Default)]
struct RunCounts {
    /// When the run was first seen (key into `LoopDetector::run_order`).
    started: u64,
    /// The count per call key.
    calls: HashMap<String, u32>,
    /// Call keys by first-seen sequence, for eviction.
    call_order: BTreeMap<u64, String>,
    /// The next call sequence number.
    next_call: u64,
}

/// Counts identical calls per run.
#[derive(Debug)]
pub struct LoopDetector {
    /// `None`: detection is off.
    options: Option<LoopOptions>,
    runs: HashMap<String, RunCounts>,
    /// Run ids by start sequence, for eviction.
    run_order: BTreeMap<u64, String>,
    next_run: u64,
}

impl LoopDetector {
    /// A detector with these thresholds; `None` (from `loopDetection: false`) never warns or
    /// blocks.
    pub fn new(options: Option<LoopOptions>) -> LoopDetector {
        LoopDetector {
            options,
            runs: HashMap::new(),
            run_order: BTreeMap::new(),
            next_run: 0,
        }
    }

    /// Records a call of `tool` with `args` in `run` and says whether it loops. Calls are the
    /// same when their canonical tool names and canonical arguments (keys sorted, numbers
    /// compared by value: `1`, `1.0` and `1e0` are one argument) are equal.
    pub fn record(&mut self, run: &str, tool: &str, args: &Value) -> LoopVerdict {
        let Some(options) = self.options else {
            return LoopVerdict::Ok;
        };
        let key = format!("{}\u{0}{}", canonical_tool_name(tool), args_sha256(args));
        let counts = self.run_mut(run);
        let count = match counts.calls.get_mut(&key) {
            Some(count) => {
                *count = count.saturating_add(1);
                *count
            }
            None => {
                if counts.calls.len() >= MAX_KEYS_PER_RUN {
                    if let Some((_, oldest)) = counts.call_order.pop_first() {
                        counts.calls.remove(&oldest);
                    }
                }
                let seq = counts.next_call;
                counts.next_call += 1;
                counts.call_order.insert(seq, key.clone());
                counts.calls.insert(key, 1);
                1
            }
        };
        if count >= options.block_at {
            LoopVerdict::Block { count }
        } else if count == options.warn_at {
            LoopVerdict::Warn { count }
        } else {
            LoopVerdict::Ok
        }
    }

    /// Forgets a run (its calls count from zero again).
    pub fn end_run(&mut self, run: &str) {
        if let Some(counts) = self.runs.remove(run) {
            self.run_order.remove(&counts.started);
        }
    }

    /// How many runs are tracked.
    pub fn tracked_runs(&self) -> usize {
        self.runs.len()
    }

    /// The counts of a run, starting it (and evicting the oldest run) if it is new.
    fn run_mut(&mut self, run: &str) -> &mut RunCounts {
        if !self.runs.contains_key(run) {
            if self.runs.len() >= MAX_RUNS {
                if let Some((_, oldest)) = self.run_order.pop_first() {
                    self.runs.remove(&oldest);
                }
            }
            let started = self.next_run;
            self.next_run += 1;
            self.run_order.insert(started, run.to_string());
            self.runs.insert(
                run.to_string(),
                RunCounts {
                    started,
                    ..RunCounts::default()
                },
            );
        }
        self.runs.entry(run.to_string()).or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn options(warn_at: u32, block_at: u32) -> Option<LoopOptions> {
        Some(LoopOptions { warn_at, block_at })
    }

    #[test]
    fn thresholds() {
        let mut detector = LoopDetector::new(options(2, 4));
        let args = json!({ "cmd": "ls" });
        let verdicts: Vec<LoopVerdict> = (0..6)
            .map(|_| detector.record("r", "exec", &args))
            .collect();
        assert_eq!(
            verdicts,
            vec![
                LoopVerdict::Ok,
                LoopVerdict::Warn { count: 2 },
                LoopVerdict::Ok,
                LoopVerdict::Block { count: 4 },
                LoopVerdict::Block { count: 5 },
                LoopVerdict::Block { count: 6 },
            ]
        );
    }

    #[test]
    fn defaults() {
        let mut detector = LoopDetector::new(Some(LoopOptions::default()));
        let verdicts: Vec<LoopVerdict> = (0..10)
            .map(|_| detector.record("r", "read", &json!({})))
            .collect();
        assert_eq!(verdicts[4], LoopVerdict::Warn { count: 5 });
        assert_eq!(verdicts[8], LoopVerdict::Ok);
        assert_eq!(verdicts[9], LoopVerdict::Block { count: 10 });
    }

    #[test]
    fn what_counts_as_the_same_call() {
        let mut detector = LoopDetector::new(options(1, 2));
        // First sightings warn at warn_at 1; the second sighting of the same call blocks.
        let rows = [
            (
                "r",
                "exec",
                json!({ "a": 1, "b": 2 }),
                LoopVerdict::Warn { count: 1 },
            ),
            (
                "r",
                "exec",
                json!({ "b": 2, "a": 1 }),
                LoopVerdict::Block { count: 2 },
            ),
            (
                "r",
                "exec",
                json!({ "a": 1, "b": 3 }),
                LoopVerdict::Warn { count: 1 },
            ),
            (
                "r",
                "Bash",
                json!({ "a": 1, "b": 3 }),
                LoopVerdict::Block { count: 2 },
            ),
            (
                "r",
                "read",
                json!({ "a": 1, "b": 3 }),
                LoopVerdict::Warn { count: 1 },
            ),
            (
                "other",
                "exec",
                json!({ "a": 1, "b": 2 }),
                LoopVerdict::Warn { count: 1 },
            ),
        ];
        for (index, (run, tool, args, expected)) in rows.into_iter().enumerate() {
            assert_eq!(detector.record(run, tool, &args), expected, "row {index}");
        }
    }

    /// Numbers are compared by value, whatever their spelling; different values stay apart,
    /// also past 2^53 where `f64` and the integers differ.
    #[test]
    fn numbers_are_the_same_argument_by_value() {
        let parse = |text: &str| serde_json::from_str::<Value>(text).unwrap();
        let same = [
            ("{\"n\": 1}", "{\"n\": 1.0}"),
            ("{\"n\": 1}", "{\"n\": 1e0}"),
            ("{\"n\": 1}", "{\"n\": 10e-1}"),
            ("{\"n\": 0}", "{\"n\": -0.0}"),
            ("{\"n\": -3}", "{\"n\": -3.000}"),
            ("{\"n\": 1500}", "{\"n\": 1.5e3}"),
            ("{\"n\": 0.5}", "{\"n\": 5e-1}"),
            ("{\"n\": 1e300}", "{\"n\": 1E+300}"),
            ("{\"n\": 1e308}", "{\"n\": 10e307}"),
            (
                "{\"n\": 9223372036854775807}",
                "{\"n\": 9223372036854775807}",
            ),
            ("{\"n\": 9007199254740992}", "{\"n\": 9007199254740992.0}"),
            (
                "{\"n\": 18446744073709549568}",
                "{\"n\": 1.8446744073709549568e19}",
            ),
            ("{\"l\": [1, {\"x\": 2}]}", "{\"l\": [1.0, {\"x\": 2e0}]}"),
        ];
        let different = [
            ("{\"n\": 1}", "{\"n\": 1.5}"),
            ("{\"n\": 1}", "{\"n\": \"1\"}"),
            ("{\"n\": 9007199254740993}", "{\"n\": 9007199254740992}"),
            (
                "{\"n\": 18446744073709551615}",
                "{\"n\": 1.8446744073709552e19}",
            ),
            ("{\"n\": 1e300}", "{\"n\": 1e301}"),
        ];
        for (verdict, pairs) in [
            (LoopVerdict::Block { count: 2 }, &same[..]),
            (LoopVerdict::Warn { count: 1 }, &different[..]),
        ] {
            for (first, second) in pairs {
                let mut detector = LoopDetector::new(options(1, 2));
                detector.record("r", "t", &parse(first));
                assert_eq!(
                    detector.record("r", "t", &parse(second)),
                    verdict,
                    "{first} then {second}"
                );
            }
        }
    }

    #[test]
    fn end_run_resets() {
        let mut detector = LoopDetector::new(options(2, 3));
        let args = json!({ "q": "x" });
        detector.record("r", "web_search", &args);
        assert_eq!(
            detector.record("r", "web_search", &args),
            LoopVerdict::Warn { count: 2 }
        );
        detector.end_run("r");
        assert_eq!(detector.tracked_runs(), 0);
        assert_eq!(detector.record("r", "web_search", &args), LoopVerdict::Ok);
        assert_eq!(
            detector.record("r", "web_search", &args),
            LoopVerdict::Warn { count: 2 }
        );
        detector.end_run("never-seen");
    }

    #[test]
    fn off() {
        let mut detector = LoopDetector::new(None);
        for _ in 0..20 {
            assert_eq!(detector.record("r", "exec", &json!({})), LoopVerdict::Ok);
        }
        assert_eq!(detector.tracked_runs(), 0);
    }

    #[test]
    fn memory_is_bounded() {
        let mut detector = LoopDetector::new(options(2, 3));
        detector.record("first", "exec", &json!({}));
        for run in 0..MAX_RUNS {
            detector.record(&format!("run{run}"), "exec", &json!({}));
        }
        assert_eq!(detector.tracked_runs(), MAX_RUNS);
        // "first" was evicted, so it counts from one again.
        assert_eq!(
            detector.record("first", "exec", &json!({})),
            LoopVerdict::Ok
        );

        let mut detector = LoopDetector::new(options(2, 3));
        detector.record("r", "exec", &json!({ "i": -1 }));
        for i in 0..MAX_KEYS_PER_RUN {
            detector.record("r", "exec", &json!({ "i": i }));
        }
        // The first call was evicted; the most recent one is still counted.
        assert_eq!(
            detector.record("r", "exec", &json!({ "i": -1 })),
            LoopVerdict::Ok
        );
        assert_eq!(
            detector.record("r", "exec", &json!({ "i": MAX_KEYS_PER_RUN - 1 })),
            LoopVerdict::Warn { count: 2 }
        );
    }

    #[test]
    fn parsing_options() {
        let defaults = Some(LoopOptions::default());
        for (value, expected) in [
            (json!(false), None),
            (json!(true), defaults),
            (json!(null), defaults),
            (json!({}), defaults),
            (json!({ "warnAt": 2 }), options(2, 10)),
            (json!({ "warnAt": 3, "blockAt": 4 }), options(3, 4)),
            (json!({ "blockAt": 6, "warnAt": null }), options(5, 6)),
        ] {
            assert_eq!(
                LoopOptions::from_json(&value, "loopDetection").unwrap(),
                expected,
                "{value}"
            );
        }
        for (value, message) in [
            (
                json!(3),
                "loopDetection must be false or an object { warnAt, blockAt }, got a number",
            ),
            (
                json!({ "warnAt": 0 }),
                "loopDetection.warnAt must be a positive integer, got 0",
            ),
            (
                json!({ "blockAt": 0 }),
                "loopDetection.blockAt must be a positive integer, got 0",
            ),
            (
                json!({ "warnAt": 1.5 }),
                "loopDetection.warnAt must be a positive integer, got 1.5",
            ),
            (
                json!({ "warnAt": -2 }),
                "loopDetection.warnAt must be a positive integer, got -2",
            ),
            (
                json!({ "warnAt": "5" }),
                "loopDetection.warnAt must be a positive integer, got a string",
            ),
            (
                json!({ "blockAt": 5000000000u64 }),
                "loopDetection.blockAt must be a positive integer, got 5000000000",
            ),
            (
                json!({ "warnAt": 4, "blockAt": 4 }),
                "loopDetection.warnAt (4) must be less than loopDetection.blockAt (4)",
            ),
            (
                json!({ "warnAt": 12 }),
                "loopDetection.warnAt (12) must be less than loopDetection.blockAt (10)",
            ),
            (
                json!({ "warn": 1 }),
                "loopDetection has unknown key \"warn\" (expected one of: warnAt, blockAt); \
                 did you mean \"warnAt\"?",
            ),
        ] {
            let error = LoopOptions::from_json(&value, "loopDetection").expect_err(message);
            assert_eq!(error.code, ErrorCode::ValidationError);
            assert_eq!(error.message, message);
        }
    }
}
