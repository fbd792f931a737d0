//! What the plan scheduler asks its driver to do, and the outcome it ends with.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{json, Map, Value};

/// How a step ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    /// Every call of the step succeeded.
    Ok,
    /// The step failed (after its retries); `onError` said what followed.
    Failed,
    /// The step did not run, or its failure was skipped (`onError: skip`).
    Skipped,
    /// The plan was cancelled before the step completed.
    Cancelled,
}

impl StepStatus {
    /// The status as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Ok => "ok",
            StepStatus::Failed => "failed",
            StepStatus::Skipped => "skipped",
            StepStatus::Cancelled => "cancelled",
        }
    }
}

/// How a plan ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PlanStatus {
    /// No step failed under `onError: fail`.
    Ok,
    /// A step failed under `onError: fail`.
    Failed,
    /// The plan was cancelled.
    Cancelled,
}

/// The kind of a step event, for the driver's `step.*` events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepEventKind {
    /// Its dependencies are done; it waits for a free slot.
    Scheduled,
    /// Its first call was dispatched.
    Started,
    /// It ended `ok`.
    Finished,
    /// It ended `failed`.
    Failed,
    /// It ended `skipped`.
    Skipped,
    /// It ended `cancelled`.
    Cancelled,
}

/// Why a step did not end `ok`, when no result says it (or to sum the results up).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StepProblem {
    /// A machine-readable code: the failed result's `error.code` (an `ErrorCode`), or one of
    /// the plan's own codes (`REFERENCE_ERROR`, `DEPENDENCY_SKIPPED`, `PLAN_FAILED`), as
    /// `PlanStepErrorCode` in index.d.ts and the README's Plans section list them.
    pub code: String,
    /// What happened, naming the step and what is at fault.
    pub message: String,
}

crate::codes! {
    /// The code each [`PlanAction`] crosses as, its first element (layouts: `plan::layout`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum PlanActionCode {
        /// [`PlanAction::Dispatch`].
        Dispatch = 0,
        /// [`PlanAction::Wait`].
        Wait = 1,
        /// [`PlanAction::StepEvent`].
        StepEvent = 2,
        /// [`PlanAction::Finished`].
        Finished = 3,
        /// An action the binding could not serialize: `[4, message]`.
        Fault = 4,
    }
}

/// One thing for the driver to do, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanAction {
    /// Run one call through the dispatcher; feed its result to
    /// [`PlanRun::completed`](super::PlanRun::completed) with the same `call_id`.
    Dispatch {
        /// The step the call belongs to.
        step_id: String,
        /// Unique in the run per call, the same for all its attempts: `<runId>:<stepId>[:<index>]`.
        call_id: String,
        /// The tool to call.
        tool: String,
        /// The arguments, references resolved.
        args: Value,
        /// 1 for the first attempt.
        attempt: u32,
        /// Shared by a `foreach` step's iterations: `<runId>:<stepId>`.
        loop_id: Option<String>,
        /// The iteration's index, from 0, for a `foreach` step.
        index: Option<usize>,
        /// The step's deadline, when it sets one.
        timeout_ms: Option<u64>,
        /// The step's `preview` flag.
        preview: bool,
        /// Whether `confirmationsRequired` names the step.
        confirmation_required: bool,
    },
    /// Sleep `delay_ms` before a retry, then call
    /// [`PlanRun::retry_due`](super::PlanRun::retry_due) with the step and index.
    Wait {
        /// The step to retry.
        step_id: String,
        /// The iteration, for a `foreach` step.
        index: Option<usize>,
        /// The attempt that will run after the wait.
        attempt: u32,
        /// `backoffMs * 2^(attempt - 2)`, at most 2^31 - 1.
        delay_ms: u64,
    },
    /// Something happened to a step; emit it as `step.<kind>`.
    StepEvent {
        /// What happened.
        kind: StepEventKind,
        /// The step.
        step_id: String,
        /// The step's tool.
        tool: String,
        /// The `loopId` its calls share, for a `foreach` step (known before any call).
        loop_id: Option<String>,
        /// Whether `confirmationsRequired` names the step, so its events carry the
        /// `confirmationId`.
        confirmation_required: bool,
        /// Why, for `failed`, `skipped` and `cancelled`.
        problem: Option<StepProblem>,
    },
    /// The plan is over; nothing else will be asked.
    Finished(PlanOutcomeSummary),
}

/// A plan action as it crosses: a JSON array, its code first, then its elements in the order
/// `plan::layout` declares (an absent optional value as `null`). `Finished` carries each step's
/// results as indexes into the results the driver fed back, in the order it fed them.
impl Serialize for PlanAction {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(None)?;
        match self {
            PlanAction::Dispatch {
                step_id,
                call_id,
                tool,
                args,
                attempt,
                loop_id,
                index,
                timeout_ms,
                preview,
                confirmation_required,
            } => {
                seq.serialize_element(&(PlanActionCode::Dispatch as u8))?;
                seq.serialize_element(step_id)?;
                seq.serialize_element(call_id)?;
                seq.serialize_element(tool)?;
                seq.serialize_element(args)?;
                seq.serialize_element(attempt)?;
                seq.serialize_element(loop_id)?;
                seq.serialize_element(index)?;
                seq.serialize_element(timeout_ms)?;
                seq.serialize_element(preview)?;
                seq.serialize_element(confirmation_required)?;
            }
            PlanAction::Wait {
                step_id,
                index,
                attempt,
                delay_ms,
            } => {
                seq.serialize_element(&(PlanActionCode::Wait as u8))?;
                seq.serialize_element(step_id)?;
                seq.serialize_element(index)?;
                seq.serialize_element(attempt)?;
                seq.serialize_element(delay_ms)?;
            }
            PlanAction::StepEvent {
                kind,
                step_id,
                tool,
                loop_id,
                confirmation_required,
                problem,
            } => {
                seq.serialize_element(&(PlanActionCode::StepEvent as u8))?;
                seq.serialize_element(kind)?;
                seq.serialize_element(step_id)?;
                seq.serialize_element(tool)?;
                seq.serialize_element(loop_id)?;
                seq.serialize_element(confirmation_required)?;
                seq.serialize_element(problem)?;
            }
            PlanAction::Finished(summary) => {
                seq.serialize_element(&(PlanActionCode::Finished as u8))?;
                seq.serialize_element(&summary.run_id)?;
                seq.serialize_element(&summary.status)?;
                let mut steps = Map::new();
                for step in &summary.steps {
                    let mut out =
                        json!({ "status": step.status.as_str(), "results": step.results });
                    if let Some(problem) = &step.problem {
                        out["error"] = json!(problem);
                    }
                    steps.insert(step.id.clone(), out);
                }
                seq.serialize_element(&steps)?;
            }
        }
        seq.end()
    }
}

/// The actions as they cross: a JSON array of arrays (`plan::layout`). An action that cannot be
/// serialized becomes a [`PlanActionCode::Fault`], which fails the plan naming why.
pub fn actions_json(actions: &[PlanAction]) -> String {
    let values: Vec<Value> = actions
        .iter()
        .map(|action| {
            serde_json::to_value(action)
                .unwrap_or_else(|e| fault(&format!("unserializable plan action: {e}")))
        })
        .collect();
    Value::Array(values).to_string()
}

/// A [`PlanActionCode::Fault`] as it crosses: `[4, message]`.
pub fn fault(message: &str) -> Value {
    json!([PlanActionCode::Fault as u8, message])
}

/// How one step ended.
#[derive(Clone, Debug, PartialEq)]
pub struct StepOutcome {
    /// The step's id.
    pub id: String,
    /// How it ended.
    pub status: StepStatus,
    /// Indexes into [`PlanOutcomeSummary::results`] of every result of this step, every attempt,
    /// in the order they arrived.
    pub results: Vec<usize>,
    /// Why it did not end `ok`.
    pub problem: Option<StepProblem>,
}

/// The outcome of a plan: `{ runId, status, steps: { [stepId]: { status, results, error? } },
/// results }` as JSON (see [`PlanOutcomeSummary::to_json`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanOutcomeSummary {
    /// The run's id.
    pub run_id: String,
    /// How the plan ended.
    pub status: PlanStatus,
    /// Every step, in plan order.
    pub steps: Vec<StepOutcome>,
    /// Every result fed back, in the order it arrived.
    pub results: Vec<Value>,
}

impl PlanOutcomeSummary {
    /// The outcome of the step with this id.
    pub fn step(&self, id: &str) -> Option<&StepOutcome> {
        self.steps.iter().find(|step| step.id == id)
    }

    /// The JSON the binding returns: the steps as an object keyed by id in plan order, each with
    /// its `results` (the result objects themselves) and `error` when it did not end `ok`.
    pub fn to_json(&self) -> Value {
        let mut steps = Map::new();
        for step in &self.steps {
            steps.insert(step.id.clone(), self.step_json(step));
        }
        json!({
            "runId": self.run_id,
            "status": self.status,
            "steps": steps,
            "results": self.results,
        })
    }

    fn step_json(&self, step: &StepOutcome) -> Value {
        let results: Vec<&Value> = step
            .results
            .iter()
            .filter_map(|&at| self.results.get(at))
            .collect();
        let mut out = json!({ "status": step.status, "results": results });
        if let Some(problem) = &step.problem {
            out["error"] = json!(problem);
        }
        out
    }
}

impl Serialize for PlanOutcomeSummary {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("runId", &self.run_id)?;
        map.serialize_entry("status", &self.status)?;
        let steps: Map<String, Value> = self
            .steps
            .iter()
            .map(|step| (step.id.clone(), self.step_json(step)))
            .collect();
        map.serialize_entry("steps", &steps)?;
        map.serialize_entry("results", &self.results)?;
        map.end()
    }
}
