//! [`PlanRun`]: the plan's scheduler, a state machine without clock or I/O. Its driver asks
//! [`PlanRun::next`] what to do, performs the [`PlanAction`]s in order (dispatch a call, sleep
//! before a retry, emit a step event) and feeds back results ([`PlanRun::completed`]), elapsed
//! waits ([`PlanRun::retry_due`]) and cancellation ([`PlanRun::cancel`]); each answer is the next
//! actions. The last action is always one [`PlanAction::Finished`].

use std::collections::{HashMap, VecDeque};

use serde_json::{json, Value};

use super::actions::{
    PlanAction, PlanOutcomeSummary, PlanStatus, StepEventKind, StepOutcome, StepProblem, StepStatus,
};
use super::parse::{Foreach, OnError, Plan, MAX_FOREACH_ITEMS};
use super::refs::{quoted, Scope};
use crate::error::{Error, ErrorCode, Result};
use crate::json_text::json_type;

/// The longest wait asked for, in milliseconds (the longest `setTimeout` delay).
pub const MAX_DELAY_MS: u64 = (1 << 31) - 1;

/// How many calls a plan runs at once when its options name no number.
pub const DEFAULT_MAX_CONCURRENCY: usize = 4;

/// The retries a plan step may take when its options name no number (a step's own
/// `retry.max` above it is lowered to it).
pub const DEFAULT_MAX_RETRIES: u32 = 5;

/// How a plan runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanRunOptions {
    /// The most calls dispatched and not yet completed at once (each `foreach` iteration counts);
    /// at least 1. Default 4.
    pub max_concurrency: usize,
    /// The run id when the plan names none (default `"plan"`; the plan's `runId` wins).
    pub run_id: Option<String>,
}

impl Default for PlanRunOptions {
    fn default() -> Self {
        PlanRunOptions {
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
            run_id: None,
        }
    }
}

/// Where a step is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Some dependency has not ended.
    Waiting,
    /// Scheduled; iterations left to start or calls in flight.
    Active,
    /// Ended, with a status.
    Done(StepStatus),
}

/// Why the plan stopped starting work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Halt {
    /// A step failed under `onError: fail` (its index): no new step starts.
    Failed(usize),
    /// The driver cancelled: nothing new is dispatched.
    Cancelled,
}

struct StepRun {
    phase: Phase,
    /// Dependencies that have not ended.
    waiting_on: usize,
    /// The resolved `foreach` items (empty for a plain step).
    items: Vec<Value>,
    /// How many iterations: the items' count, or 1.
    iterations: usize,
    /// The next iteration to start.
    next: usize,
    in_flight: usize,
    /// Iterations waiting for a retry (its backoff, or a free slot).
    retries: usize,
    /// Each iteration's record once it succeeded.
    records: Vec<Option<Value>>,
    succeeded: usize,
    /// The first failure that ended an iteration.
    problem: Option<StepProblem>,
    /// No more iterations or retries start.
    stopped: bool,
    started: bool,
    /// Indexes into the run's results.
    results: Vec<usize>,
}

struct InFlight {
    step: usize,
    iteration: usize,
    attempt: u32,
}

/// One run of a validated [`Plan`].
pub struct PlanRun {
    plan: Plan,
    run_id: String,
    max_concurrency: usize,
    dependents: Vec<Vec<usize>>,
    /// Step ids to plan indexes.
    ids: HashMap<String, usize>,
    steps: Vec<StepRun>,
    /// Each step's record (`{ data, content, status }`, or the list of its iterations' records)
    /// once it ended `ok`; `null` once it failed under `onError: continue`.
    records: Vec<Option<Value>>,
    /// Each step's data for `captureAs`, same convention.
    captured: Vec<Option<Value>>,
    calls: HashMap<String, InFlight>,
    /// Retries the driver sleeps for: `(step, iteration)` -> the attempt after the wait.
    waits: HashMap<(usize, usize), u32>,
    /// Retries due, waiting for a free slot: `(step, iteration, attempt)`.
    retry_queue: VecDeque<(usize, usize, u32)>,
    /// Scheduled steps with iterations left to start, in the order they became ready.
    active: VecDeque<usize>,
    /// Steps whose dependencies all ended, to schedule or skip.
    newly_ready: VecDeque<usize>,
    halt: Option<Halt>,
    begun: bool,
    ended: usize,
    finished: bool,
    results: Vec<Value>,
    out: Vec<PlanAction>,
}

impl PlanRun {
    /// A run of `plan`, not yet begun: the first [`next`](Self::next) starts it.
    pub fn new(plan: Plan, options: PlanRunOptions) -> Result<PlanRun> {
        if options.max_concurrency == 0 {
            return Err(Error::caller(
                ErrorCode::ValidationError,
                "maxConcurrency must be at least 1, got 0",
            ));
        }
        let deps: Vec<&[usize]> = plan.steps.iter().map(|s| s.depends_on.as_slice()).collect();
        let dependents = super::graph::dependents(&deps);
        let steps = plan
            .steps
            .iter()
            .map(|step| StepRun {
                phase: Phase::Waiting,
                waiting_on: step.depends_on.len(),
                items: Vec::new(),
                iterations: 1,
                next: 0,
                in_flight: 0,
                retries: 0,
                records: Vec::new(),
                succeeded: 0,
                problem: None,
                stopped: false,
                started: false,
                results: Vec::new(),
            })
            .collect();
        let run_id = plan
            .run_id
            .clone()
            .or(options.run_id)
            .unwrap_or_else(|| "plan".to_string());
        let count = plan.steps.len();
        let ids = plan
            .steps
            .iter()
            .enumerate()
            .map(|(index, step)| (step.id.clone(), index))
            .collect();
        Ok(PlanRun {
            ids,
            plan,
            run_id,
            max_concurrency: options.max_concurrency,
            dependents,
            steps,
            records: vec![None; count],
            captured: vec![None; count],
            calls: HashMap::new(),
            waits: HashMap::new(),
            retry_queue: VecDeque::new(),
            active: VecDeque::new(),
            newly_ready: VecDeque::new(),
            halt: None,
            begun: false,
            ended: 0,
            finished: false,
            results: Vec::new(),
            out: Vec::new(),
        })
    }

    /// The run's id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// How many calls are dispatched and not yet completed.
    pub fn in_flight(&self) -> usize {
        self.calls.len()
    }

    /// Whether [`PlanAction::Finished`] was returned.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The actions gathered so far, handed over. (In this crate's tests each is serialized and
    /// checked against its layout, `plan::layout`, which the driver's types are generated from.)
    fn drain(&mut self) -> Vec<PlanAction> {
        let out = std::mem::take(&mut self.out);
        #[cfg(test)]
        for action in &out {
            let value = serde_json::to_value(action).expect("plan actions serialize");
            if let Some(why) = super::layout::misfit(&value) {
                panic!("a plan action does not fit its layout: {why}");
            }
        }
        out
    }

    /// What to do now. The first call starts the run; later calls return whatever is left to do
    /// (usually nothing: every other method returns its own actions).
    // The name is the issue's; this is no iterator (it returns a batch, empty when idle).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Vec<PlanAction> {
        if !self.begun {
            self.begun = true;
            for step in 0..self.steps.len() {
                if self.steps[step].waiting_on == 0 {
                    self.newly_ready.push_back(step);
                }
            }
        }
        self.advance();
        self.drain()
    }

    /// Feeds back the result (a [`ToolResult`](crate::envelope::ToolResult) as JSON) of the
    /// call dispatched as `call_id`. A result whose `status` is not `"ok"` is a failure: it is
    /// retried while attempts are left, unless its `retryable` (or `error.retryable`) is
    /// `false` or its status is `"cancelled"`; then the step's `onError` applies.
    pub fn completed(&mut self, call_id: &str, result: &Value) -> Result<Vec<PlanAction>> {
        let Some(status) = result.get("status").and_then(Value::as_str) else {
            return Err(Error::caller(
                ErrorCode::ValidationError,
                format!(
                    "the result of plan call {} must be an object with a string status, got {}",
                    quoted(call_id),
                    json_type(result)
                ),
            ));
        };
        let Some(call) = self.calls.remove(call_id) else {
            return Err(Error::caller(
                ErrorCode::NotFound,
                format!(
                    "no call {} of plan run {} is in flight",
                    quoted(call_id),
                    quoted(&self.run_id)
                ),
            ));
        };
        let InFlight {
            step,
            iteration,
            attempt,
        } = call;
        self.results.push(result.clone());
        let at = self.results.len() - 1;
        let run = &mut self.steps[step];
        run.results.push(at);
        run.in_flight -= 1;
        if status == "ok" {
            if let Some(slot) = run.records.get_mut(iteration) {
                *slot = Some(record_of(result));
            }
            run.succeeded += 1;
        } else if self.halt != Some(Halt::Cancelled) {
            self.failed_attempt(step, iteration, attempt, status, result);
        }
        self.maybe_end(step);
        self.advance();
        Ok(self.drain())
    }

    /// The wait announced by a [`PlanAction::Wait`] for `step_id` (and `index`) is over: its
    /// retry runs as soon as a slot is free. A wait made stale by a cancellation or the step's
    /// end is ignored.
    pub fn retry_due(&mut self, step_id: &str, index: Option<usize>) -> Result<Vec<PlanAction>> {
        let Some(&step) = self.ids.get(step_id) else {
            return Err(Error::caller(
                ErrorCode::NotFound,
                format!("retry_due: the plan has no step {}", quoted(step_id)),
            ));
        };
        let iteration = index.unwrap_or(0);
        if let Some(attempt) = self.waits.remove(&(step, iteration)) {
            if !self.steps[step].stopped && self.halt != Some(Halt::Cancelled) {
                self.retry_queue.push_back((step, iteration, attempt));
            }
        }
        self.advance();
        Ok(self.drain())
    }

    /// Cancels the run: nothing new is dispatched, pending retries are dropped, steps that have
    /// not completed end `cancelled` (those with calls in flight once those calls complete: the
    /// driver aborts them), and the plan ends `cancelled`.
    pub fn cancel(&mut self) -> Vec<PlanAction> {
        if self.finished || self.halt == Some(Halt::Cancelled) {
            return self.drain();
        }
        self.begun = true;
        self.halt = Some(Halt::Cancelled);
        self.waits.clear();
        self.retry_queue.clear();
        for step in 0..self.steps.len() {
            let run = &mut self.steps[step];
            if run.phase == Phase::Active {
                run.stopped = true;
                run.retries = 0;
                self.maybe_end(step);
            } else if run.phase == Phase::Waiting && run.waiting_on == 0 {
                // Ready but not yet scheduled (before the first `next`).
                self.newly_ready.retain(|&s| s != step);
                self.end_step(step, StepStatus::Cancelled, Some(cancelled_problem()));
            }
        }
        self.advance();
        self.drain()
    }

    /// Schedules or skips newly ready steps and fills free slots until nothing changes; then
    /// finishes the run when every step has ended.
    fn advance(&mut self) {
        loop {
            while let Some(step) = self.newly_ready.pop_front() {
                self.make_ready(step);
            }
            self.fill_slots();
            if self.newly_ready.is_empty() {
                break;
            }
        }
        if !self.finished && self.begun && self.ended == self.steps.len() {
            self.finished = true;
            let summary = self.summary();
            self.out.push(PlanAction::Finished(summary));
        }
    }

    /// Every dependency of `step` ended: skip it, or schedule it and resolve its `foreach`.
    fn make_ready(&mut self, step: usize) {
        if self.steps[step].phase != Phase::Waiting {
            return;
        }
        match self.halt {
            Some(Halt::Cancelled) => {
                return self.end_step(step, StepStatus::Cancelled, Some(cancelled_problem()))
            }
            Some(Halt::Failed(at)) => {
                let problem = self.plan_failed_problem(at);
                return self.end_step(step, StepStatus::Skipped, Some(problem));
            }
            None => {}
        }
        if let Some(problem) = self.blocked_by_dependency(step) {
            return self.end_step(step, StepStatus::Skipped, Some(problem));
        }
        self.event(StepEventKind::Scheduled, step, None);
        let run = &mut self.steps[step];
        run.phase = Phase::Active;
        match self.foreach_items(step) {
            Ok(None) => {}
            Ok(Some(items)) => {
                let run = &mut self.steps[step];
                run.iterations = items.len();
                run.items = items;
            }
            Err(problem) => {
                let run = &mut self.steps[step];
                run.iterations = 0;
                self.iteration_failed(step, problem);
                return self.maybe_end(step);
            }
        }
        let run = &mut self.steps[step];
        run.records = vec![None; run.iterations];
        if run.iterations == 0 {
            run.started = true;
            self.event(StepEventKind::Started, step, None);
            return self.maybe_end(step);
        }
        self.active.push_back(step);
    }

    /// Why `step` cannot run: a dependency that did not end `ok` (or `failed` under `continue`).
    fn blocked_by_dependency(&self, step: usize) -> Option<StepProblem> {
        let id = &self.plan.steps[step].id;
        self.plan.steps[step].depends_on.iter().find_map(|&dep| {
            let how = match self.steps[dep].phase {
                Phase::Done(StepStatus::Ok) => return None,
                Phase::Done(StepStatus::Failed)
                    if self.plan.steps[dep].on_error == OnError::Continue =>
                {
                    return None
                }
                Phase::Done(StepStatus::Failed) => "failed",
                Phase::Done(StepStatus::Cancelled) => "was cancelled",
                _ => "was skipped",
            };
            Some(StepProblem {
                code: "DEPENDENCY_SKIPPED".to_string(),
                message: format!(
                    "step {} is skipped: its dependency {} {how}",
                    quoted(id),
                    quoted(&self.plan.steps[dep].id)
                ),
            })
        })
    }

    /// The step's `foreach` list, resolved: `Ok(None)` for a plain step.
    fn foreach_items(&self, step: usize) -> std::result::Result<Option<Vec<Value>>, StepProblem> {
        let spec = &self.plan.steps[step];
        let items = match &spec.foreach {
            None => return Ok(None),
            Some(Foreach::Items(items)) => items.clone(),
            Some(Foreach::Reference(reference)) => {
                let value = self
                    .scope(None, None)
                    .resolve(reference)
                    .map_err(|message| StepProblem {
                        code: "REFERENCE_ERROR".to_string(),
                        message: format!("step {}: foreach {message}", quoted(&spec.id)),
                    })?;
                match value {
                    Value::Array(items) => items,
                    other => {
                        return Err(StepProblem {
                            code: "REFERENCE_ERROR".to_string(),
                            message: format!(
                                "step {}: foreach {reference} is {}, not a list",
                                quoted(&spec.id),
                                json_type(&other)
                            ),
                        })
                    }
                }
            }
        };
        if items.len() > MAX_FOREACH_ITEMS {
            return Err(StepProblem {
                code: ErrorCode::LimitExceeded.as_str().to_string(),
                message: format!(
                    "step {}: foreach lists {} items, more than the limit of {MAX_FOREACH_ITEMS}",
                    quoted(&spec.id),
                    items.len()
                ),
            });
        }
        Ok(Some(items))
    }

    fn scope<'s>(&'s self, item: Option<&'s Value>, index: Option<usize>) -> Scope<'s> {
        Scope {
            records: &self.records,
            captured: &self.captured,
            vars: &self.plan.vars,
            item,
            index,
        }
    }

    /// Dispatches retries and new iterations while slots are free.
    fn fill_slots(&mut self) {
        while self.calls.len() < self.max_concurrency && self.halt != Some(Halt::Cancelled) {
            if let Some((step, iteration, attempt)) = self.retry_queue.pop_front() {
                if !self.steps[step].stopped {
                    self.steps[step].retries -= 1;
                    self.dispatch(step, iteration, attempt);
                }
                continue;
            }
            let Some(&step) = self.active.front() else {
                break;
            };
            let run = &mut self.steps[step];
            if run.stopped || run.next >= run.iterations {
                self.active.pop_front();
                continue;
            }
            let iteration = run.next;
            run.next += 1;
            self.dispatch(step, iteration, 1);
        }
    }

    /// Resolves one iteration's arguments and dispatches its call, or fails the iteration when a
    /// reference does not resolve.
    fn dispatch(&mut self, step: usize, iteration: usize, attempt: u32) {
        if !self.steps[step].started {
            self.steps[step].started = true;
            self.event(StepEventKind::Started, step, None);
        }
        let spec = &self.plan.steps[step];
        let looped = spec.foreach.is_some();
        let item = self.steps[step].items.get(iteration);
        let index = looped.then_some(iteration);
        let args = match self
            .scope(item, index)
            .render_args(&spec.args, &spec.templates)
        {
            Ok(args) => args,
            Err(message) => {
                let problem = StepProblem {
                    code: "REFERENCE_ERROR".to_string(),
                    message: format!("step {}: {message}", quoted(&spec.id)),
                };
                self.iteration_failed(step, problem);
                return self.maybe_end(step);
            }
        };
        // One id for every attempt of a call: the attempts of one call are told apart by
        // `attempt`, as the audit log expects.
        let call_id = match index {
            Some(index) => format!("{}:{}:{index}", self.run_id, spec.id),
            None => format!("{}:{}", self.run_id, spec.id),
        };
        let action = PlanAction::Dispatch {
            step_id: spec.id.clone(),
            call_id: call_id.clone(),
            tool: spec.tool.clone(),
            args,
            attempt,
            loop_id: self.loop_id(step),
            index,
            timeout_ms: spec.timeout_ms,
            preview: spec.preview,
            confirmation_required: spec.needs_confirmation,
        };
        self.calls.insert(
            call_id,
            InFlight {
                step,
                iteration,
                attempt,
            },
        );
        self.steps[step].in_flight += 1;
        self.out.push(action);
    }

    /// A call of `step` failed: retry it, or fail the iteration.
    fn failed_attempt(
        &mut self,
        step: usize,
        iteration: usize,
        attempt: u32,
        status: &str,
        result: &Value,
    ) {
        let spec = &self.plan.steps[step];
        let error = result.get("error");
        let marked_final = [
            result.get("retryable"),
            error.and_then(|e| e.get("retryable")),
        ]
        .into_iter()
        .any(|flag| flag == Some(&Value::Bool(false)));
        let retryable = status != "cancelled"
            && !marked_final
            && attempt <= spec.retry.max
            && !self.steps[step].stopped;
        if retryable {
            let next = attempt + 1;
            let factor = 1u64.checked_shl(attempt - 1).unwrap_or(u64::MAX);
            let delay_ms = spec
                .retry
                .backoff_ms
                .saturating_mul(factor)
                .min(MAX_DELAY_MS);
            self.steps[step].retries += 1;
            if delay_ms == 0 {
                self.retry_queue.push_back((step, iteration, next));
            } else {
                self.waits.insert((step, iteration), next);
                self.out.push(PlanAction::Wait {
                    step_id: spec.id.clone(),
                    index: spec.foreach.is_some().then_some(iteration),
                    attempt: next,
                    delay_ms,
                });
            }
            return;
        }
        let code = error
            .and_then(|e| e.get("code"))
            .and_then(Value::as_str)
            .map_or_else(|| status.to_ascii_uppercase(), str::to_string);
        let why = error
            .and_then(|e| e.get("message"))
            .and_then(Value::as_str)
            .unwrap_or(status);
        let at = match spec.foreach {
            Some(_) => format!(" (iteration {iteration})"),
            None => String::new(),
        };
        let problem = StepProblem {
            code,
            message: format!(
                "step {}{at} failed on attempt {attempt}: {why}",
                quoted(&spec.id)
            ),
        };
        self.iteration_failed(step, problem);
    }

    /// An iteration of `step` failed for good: the step starts nothing more, and under
    /// `onError: fail` the plan halts.
    fn iteration_failed(&mut self, step: usize, problem: StepProblem) {
        let run = &mut self.steps[step];
        run.problem.get_or_insert(problem);
        run.stopped = true;
        run.retries = 0;
        if self.plan.steps[step].on_error == OnError::Fail && self.halt.is_none() {
            self.halt = Some(Halt::Failed(step));
            // Scheduled steps that have not started never will.
            let waiting: Vec<usize> = self
                .active
                .iter()
                .copied()
                .filter(|&s| s != step && !self.steps[s].started)
                .collect();
            let problem = self.plan_failed_problem(step);
            for other in waiting {
                self.steps[other].stopped = true;
                self.end_step(other, StepStatus::Skipped, Some(problem.clone()));
            }
        }
    }

    /// Ends `step` when nothing of it is in flight or pending.
    fn maybe_end(&mut self, step: usize) {
        let run = &self.steps[step];
        if run.phase != Phase::Active
            || run.in_flight > 0
            || run.retries > 0
            || (!run.stopped && run.next < run.iterations)
        {
            return;
        }
        if let Some(problem) = run.problem.clone() {
            let status = match self.plan.steps[step].on_error {
                OnError::Fail | OnError::Continue => StepStatus::Failed,
                OnError::Skip => StepStatus::Skipped,
            };
            if self.plan.steps[step].on_error == OnError::Continue {
                self.records[step] = Some(Value::Null);
                self.captured[step] = Some(Value::Null);
            }
            return self.end_step(step, status, Some(problem));
        }
        if run.succeeded < run.iterations {
            return self.end_step(step, StepStatus::Cancelled, Some(cancelled_problem()));
        }
        let records: Vec<Value> = self.steps[step]
            .records
            .iter_mut()
            .map(|r| r.take().unwrap_or(Value::Null))
            .collect();
        let (record, data) = if self.plan.steps[step].foreach.is_some() {
            let data = records.iter().map(|r| r["data"].clone()).collect();
            (Value::Array(records), Value::Array(data))
        } else {
            let record = records.into_iter().next().unwrap_or(Value::Null);
            let data = record["data"].clone();
            (record, data)
        };
        self.records[step] = Some(record);
        if self.plan.steps[step].capture_as.is_some() {
            self.captured[step] = Some(data);
        }
        self.end_step(step, StepStatus::Ok, None);
    }

    /// Records the step's end, emits its event, and readies the dependents it was the last
    /// dependency of.
    fn end_step(&mut self, step: usize, status: StepStatus, problem: Option<StepProblem>) {
        let run = &mut self.steps[step];
        if matches!(run.phase, Phase::Done(_)) {
            return;
        }
        run.phase = Phase::Done(status);
        run.problem = problem.clone();
        self.ended += 1;
        let kind = match status {
            StepStatus::Ok => StepEventKind::Finished,
            StepStatus::Failed => StepEventKind::Failed,
            StepStatus::Skipped => StepEventKind::Skipped,
            StepStatus::Cancelled => StepEventKind::Cancelled,
        };
        self.event(kind, step, problem);
        for at in 0..self.dependents[step].len() {
            let dependent = self.dependents[step][at];
            let run = &mut self.steps[dependent];
            run.waiting_on -= 1;
            if run.waiting_on == 0 {
                self.newly_ready.push_back(dependent);
            }
        }
    }

    fn event(&mut self, kind: StepEventKind, step: usize, problem: Option<StepProblem>) {
        let spec = &self.plan.steps[step];
        self.out.push(PlanAction::StepEvent {
            kind,
            step_id: spec.id.clone(),
            tool: spec.tool.clone(),
            loop_id: self.loop_id(step),
            confirmation_required: spec.needs_confirmation,
            problem,
        });
    }

    /// The `loopId` of a `foreach` step's calls: `<runId>:<stepId>`.
    fn loop_id(&self, step: usize) -> Option<String> {
        let spec = &self.plan.steps[step];
        spec.foreach
            .is_some()
            .then(|| format!("{}:{}", self.run_id, spec.id))
    }

    fn plan_failed_problem(&self, at: usize) -> StepProblem {
        StepProblem {
            code: "PLAN_FAILED".to_string(),
            message: format!(
                "not run: the plan failed at step {}",
                quoted(&self.plan.steps[at].id)
            ),
        }
    }

    fn summary(&mut self) -> PlanOutcomeSummary {
        let status = match self.halt {
            Some(Halt::Cancelled) => PlanStatus::Cancelled,
            Some(Halt::Failed(_)) => PlanStatus::Failed,
            None => PlanStatus::Ok,
        };
        let steps = self
            .plan
            .steps
            .iter()
            .zip(&self.steps)
            .map(|(spec, run)| StepOutcome {
                id: spec.id.clone(),
                status: match run.phase {
                    Phase::Done(status) => status,
                    _ => StepStatus::Cancelled,
                },
                results: run.results.clone(),
                problem: run.problem.clone(),
            })
            .collect();
        PlanOutcomeSummary {
            run_id: self.run_id.clone(),
            status,
            steps,
            results: std::mem::take(&mut self.results),
        }
    }
}

fn cancelled_problem() -> StepProblem {
    StepProblem {
        code: ErrorCode::Cancelled.as_str().to_string(),
        message: "the plan was cancelled before the step completed".to_string(),
    }
}

/// A successful result's record: `{ data, content, status }`, where `data` is the result's
/// `data`, or its `details` when it has no data.
fn record_of(result: &Value) -> Value {
    let data = result
        .get("data")
        .filter(|d| !d.is_null())
        .or_else(|| result.get("details"))
        .cloned()
        .unwrap_or(Value::Null);
    json!({
        "data": data,
        "content": result.get("content").cloned().unwrap_or_else(|| json!([])),
        "status": result.get("status").cloned().unwrap_or(Value::Null),
    })
}
