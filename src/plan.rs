//! `NativePlan`: one run of an action plan, driven by `executePlan` in `ts/plan.ts`.
//!
//! The core's [`PlanRun`] decides what runs and when; this wrapper only moves JSON text across
//! the boundary. Actions cross as arrays (`toolwire_core::plan::layout`); `finished` carries
//! result *indices* (into the order results were fed back) instead of the results themselves,
//! so the driver keeps its own ToolResult objects and nothing large crosses twice.

use napi_derive::napi;
use serde_json::{json, Value};
use toolwire_core::json_input::repair_surrogates;
use toolwire_core::plan::{actions_json, Plan, PlanRun, PlanRunOptions};
use toolwire_core::{Error, ErrorCode, Result};

use crate::error::guard;

use toolwire_core::plan::DEFAULT_MAX_RETRIES;

/// One run of a validated plan. Every method returns the next actions as a JSON array.
#[napi]
pub struct NativePlan {
    run: PlanRun,
    /// The steps `confirmationsRequired` names, as `[{ id, tool, args, preview }]`.
    confirmation_steps: Value,
}

#[napi]
impl NativePlan {
    /// Validates `plan` (JSON; a bad plan throws `PLAN_INVALID` naming the step and reference)
    /// and prepares its run. `options`: `{ maxConcurrency?, runId?, maxRetries? }` as JSON; every
    /// step's `retry.max` is clamped to `maxRetries` (default 5).
    #[napi(constructor)]
    pub fn new(plan_json: String, options_json: String) -> crate::error::Result<Self> {
        guard(|| {
            let options = parse_options(&options_json)?;
            // One value handed over: lone surrogates become U+FFFD, and a plan nested deeper
            // than MAX_VALUE_DEPTH is refused before parsing.
            let mut value = crate::convert::parse_value("plan", &plan_json)
                .map_err(|e| Error::caller(ErrorCode::PlanInvalid, e.message))?;
            let mut plan = Plan::from_json(&value)?;
            if clamp_retries(&mut value, options.max_retries) {
                plan = Plan::from_json(&value)?;
            }
            let confirmation_steps = Value::Array(
                plan.steps()
                    .iter()
                    .filter(|step| step.needs_confirmation())
                    .map(|step| {
                        json!({
                            "id": step.id(),
                            "tool": step.tool(),
                            "args": step.args(),
                            "preview": step.preview(),
                        })
                    })
                    .collect(),
            );
            let run = PlanRun::new(plan, options.run)?;
            Ok(NativePlan {
                run,
                confirmation_steps,
            })
        })
    }

    /// The run's id: the plan's `runId`, else the one the options gave.
    #[napi(getter)]
    pub fn run_id(&self) -> String {
        self.run.run_id().to_owned()
    }

    /// The steps that need a confirmation before the plan runs: `[{ id, tool, args, preview }]`
    /// as JSON (`args` as written, references unresolved); `[]` when none does.
    #[napi]
    pub fn confirmation_steps(&self) -> String {
        self.confirmation_steps.to_string()
    }

    /// What to do now; the first call starts the run.
    // The name is the issue's (and the core's); this is no iterator.
    #[allow(clippy::should_implement_trait)]
    #[napi]
    pub fn next(&mut self) -> crate::error::Result<String> {
        guard(|| Ok(actions_json(&self.run.next())))
    }

    /// Feeds back the result (a ToolResult as JSON) of the call dispatched as `call_id`.
    #[napi]
    pub fn completed(
        &mut self,
        call_id: String,
        result_json: String,
    ) -> crate::error::Result<String> {
        guard(|| {
            let result: Value =
                serde_json::from_str(&repair_surrogates(&result_json)).map_err(|e| {
                    Error::caller(
                        ErrorCode::ValidationError,
                        format!("the result of plan call {call_id:?} is not valid JSON: {e}"),
                    )
                })?;
            Ok(actions_json(&self.run.completed(&call_id, &result)?))
        })
    }

    /// The wait a `wait` action announced for `step_id` (and `index`) is over.
    #[napi]
    pub fn retry_due(
        &mut self,
        step_id: String,
        index: Option<u32>,
    ) -> crate::error::Result<String> {
        guard(|| {
            let index = index.map(|i| i as usize);
            Ok(actions_json(&self.run.retry_due(&step_id, index)?))
        })
    }

    /// Cancels the run: nothing new is dispatched; the calls in flight end it as they complete.
    #[napi]
    pub fn cancel(&mut self) -> crate::error::Result<String> {
        guard(|| Ok(actions_json(&self.run.cancel())))
    }
}

/// The options of a [`NativePlan`], parsed.
struct NativePlanOptions {
    run: PlanRunOptions,
    max_retries: u32,
}

/// Parses `{ maxConcurrency?, runId?, maxRetries? }`, naming any bad value.
fn parse_options(text: &str) -> Result<NativePlanOptions> {
    let bad = |message: String| Error::caller(ErrorCode::ValidationError, message);
    let value: Value = serde_json::from_str(text)
        .map_err(|e| bad(format!("executePlan: options are not valid JSON: {e}")))?;
    let Value::Object(object) = value else {
        return Err(bad(format!(
            "executePlan: options must be an object, got {value}"
        )));
    };
    let mut options = NativePlanOptions {
        run: PlanRunOptions::default(),
        max_retries: DEFAULT_MAX_RETRIES,
    };
    for (key, value) in &object {
        match key.as_str() {
            "maxConcurrency" => {
                options.run.max_concurrency = whole(value, "maxConcurrency", 1, u32::MAX)? as usize;
            }
            "maxRetries" => {
                options.max_retries = whole(value, "maxRetries", 0, u32::MAX)?;
            }
            "runId" => match value {
                Value::String(id) => options.run.run_id = Some(id.clone()),
                Value::Null => {}
                other => {
                    return Err(bad(format!(
                        "executePlan: options.runId must be a string, got {other}"
                    )))
                }
            },
            other => {
                return Err(bad(format!(
                    "executePlan: unknown option {other:?} for the native plan"
                )))
            }
        }
    }
    Ok(options)
}

/// A whole number in `min..=max`, or an error naming the option and the value.
fn whole(value: &Value, name: &str, min: u32, max: u32) -> Result<u32> {
    value
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| {
            Error::caller(
                ErrorCode::ValidationError,
                format!(
                    "executePlan: options.{name} must be a whole number of at least {min}, got {value}"
                ),
            )
        })
}

/// Lowers every step's numeric `retry.max` above `max_retries` to it; whether anything changed.
/// Called on a plan that already validated, so the shape is known to be right.
fn clamp_retries(plan: &mut Value, max_retries: u32) -> bool {
    let Some(steps) = plan.get_mut("steps").and_then(Value::as_array_mut) else {
        return false;
    };
    let mut changed = false;
    for step in steps {
        let Some(max) = step.pointer_mut("/retry/max") else {
            continue;
        };
        if max.as_u64().is_some_and(|n| n > u64::from(max_retries)) {
            *max = Value::from(max_retries);
            changed = true;
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolwire_core::plan::PlanActionCode;

    /// `maxConcurrency`, `maxRetries` and `runId` as parsed, or a part of the error message.
    type Expected = Result<(usize, u32, Option<&'static str>), &'static str>;

    #[test]
    fn options_are_parsed_or_named() {
        let cases: &[(&str, Expected)] = &[
            ("{}", Ok((4, 5, None))),
            (
                r#"{"maxConcurrency":2,"maxRetries":0,"runId":"r"}"#,
                Ok((2, 0, Some("r"))),
            ),
            (r#"{"maxConcurrency":0}"#, Err("options.maxConcurrency")),
            (r#"{"maxRetries":-1}"#, Err("options.maxRetries")),
            (r#"{"maxRetries":1.5}"#, Err("got 1.5")),
            (r#"{"runId":3}"#, Err("options.runId")),
            (r#"{"other":1}"#, Err("\"other\"")),
            ("[]", Err("must be an object")),
        ];
        for (text, expected) in cases {
            match (parse_options(text), expected) {
                (Ok(options), Ok((concurrency, retries, run_id))) => {
                    assert_eq!(options.run.max_concurrency, *concurrency, "{text}");
                    assert_eq!(options.max_retries, *retries, "{text}");
                    assert_eq!(options.run.run_id.as_deref(), *run_id, "{text}");
                }
                (Err(error), Err(part)) => {
                    assert!(error.message.contains(part), "{text}: {}", error.message)
                }
                (got, _) => panic!("{text}: unexpected {:?}", got.err()),
            }
        }
    }

    #[test]
    fn retries_are_clamped_only_above_the_policy() {
        let mut plan = json!({ "steps": [
            { "id": "a", "tool": "t", "retry": { "max": 9 } },
            { "id": "b", "tool": "t", "retry": { "max": 2 } },
            { "id": "c", "tool": "t" },
        ]});
        assert!(clamp_retries(&mut plan, 3));
        assert_eq!(plan["steps"][0]["retry"]["max"], 3);
        assert_eq!(plan["steps"][1]["retry"]["max"], 2);
        assert!(plan["steps"][2].get("retry").is_none());
        assert!(!clamp_retries(&mut plan, 3));
    }

    #[test]
    fn finished_carries_result_indices() {
        let plan = Plan::from_json(&json!({ "steps": [{ "id": "a", "tool": "t" }] })).unwrap();
        let mut run = PlanRun::new(plan, PlanRunOptions::default()).unwrap();
        let first: Value = serde_json::from_str(&actions_json(&run.next())).unwrap();
        let code = |action: &Value| action[0].as_u64().unwrap();
        let call_id = first
            .as_array()
            .unwrap()
            .iter()
            .find(|a| code(a) == PlanActionCode::Dispatch as u64)
            .unwrap()[2]
            .as_str()
            .unwrap()
            .to_owned();
        let done = run.completed(&call_id, &json!({ "status": "ok" })).unwrap();
        let done: Value = serde_json::from_str(&actions_json(&done)).unwrap();
        let finished = done.as_array().unwrap().last().unwrap();
        assert_eq!(code(finished), PlanActionCode::Finished as u64);
        assert_eq!(finished[2], "ok");
        assert_eq!(finished[3]["a"], json!({ "status": "ok", "results": [0] }));
        assert_eq!(finished.as_array().unwrap().len(), 4);
    }
}
