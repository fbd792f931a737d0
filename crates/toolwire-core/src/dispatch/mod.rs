//! The scheduler: which call runs when, with which arguments, under which deadline, and what
//! comes back.
//!
//! The [`Dispatcher`] is a state machine without I/O. Its driver (the JavaScript layer, or a test)
//! opens batches of calls, performs the [`Action`]s it returns (run a hook, start a tool, abort a
//! signal, arm the one timer) and feeds back [`Completion`]s and timer ticks. Every input returns
//! the next actions in the order they must happen, so events are ordered by construction and a
//! batch crosses the language boundary a handful of times, not once per call.
//!
//! Each call walks `begin -> (beforeToolCall) -> (concurrencyKey) -> queue -> run ->
//! (afterToolCall) -> (onPersist) -> end`, and every path out of that walk, whatever failed, ends
//! with exactly one [`Action::End`].

mod approval;
mod call_args;
pub use approval::ResumedCall;
mod finalize;
mod keys;
pub use finalize::partial_view;
pub mod layout;
pub mod protocol;
pub mod view;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::args::{parse_arguments, prepare_arguments, validate_arguments};
use crate::envelope::ContentBlock;
use crate::envelope::{args_hash, duration_ms, ToolCall, ToolError, ToolResult, ToolStatus};
use crate::error::{Error, ErrorCode, Result};
use crate::gate::PolicyGate;
use crate::id_hash::IdMap;
use crate::output::{
    apply_after_answer, apply_persist_answer, apply_verdict, before_decision, check_outcome,
    BeforeDecision, OutputShape, ToolOutcome,
};
use crate::params::Normalization;
use crate::policy::approvals::ApprovalStore;
use crate::policy::loops::{LoopDetector, LoopVerdict};
use crate::registry::{ExecutionMode, Registry, ToolSpec};
use crate::sanitize::content::MIN_SHARE;
use crate::sanitize::text::{kept_again, utf16_len, Kept};
use crate::sanitize::{Limits, ResultRules, SanitizeReport};
use call_args::CallArgs;
use keys::KeyLocks;
pub use protocol::{
    AbortReason, Action, AllowedTools, BatchOptions, CallRef, CallRequest, Completion,
    CompletionKind, Hooks, Ran, RawArguments, Resumed,
};

/// A moment on the driver's two clocks: the monotonic one for deadlines and durations, the wall
/// one for timestamps. The dispatcher never reads the process's clocks: the JavaScript driver
/// hands it `performance.now()` and `Date.now()` with every input, so a deadline follows the time
/// JavaScript sees (Vitest's fake timers included) and timestamps follow `Date.now()`.
#[derive(Clone, Copy, Debug)]
pub struct Now {
    /// Time since the monotonic clock's origin (`performance.now()`'s time origin).
    pub monotonic: Duration,
    /// Milliseconds since the Unix epoch, for timestamps.
    pub epoch_ms: u64,
}

impl Now {
    /// The moment `monotonic_ms` on the monotonic clock and `epoch_ms` on the wall clock, both in
    /// milliseconds as JavaScript reads them. A reading that is not a finite number, or is below
    /// zero (a wall clock set before 1970), counts as 0: both clocks are only ever compared and
    /// subtracted with saturation, so such a reading can delay or hasten a deadline, never break
    /// the dispatcher. A wall reading is taken to the millisecond below.
    pub fn from_millis(monotonic_ms: f64, epoch_ms: f64) -> Self {
        Now {
            monotonic: Duration::try_from_secs_f64(reading_ms(monotonic_ms) / 1000.0)
                .unwrap_or(Duration::MAX),
            epoch_ms: Self::epoch_ms_of(epoch_ms),
        }
    }

    /// A `Date.now()` reading as whole milliseconds since 1970, read as [`Now::from_millis`]
    /// reads it.
    pub fn epoch_ms_of(reading: f64) -> u64 {
        // `as` saturates: a reading past u64::MAX milliseconds stays at the top.
        reading_ms(reading).floor() as u64
    }

    /// This moment plus `ms` milliseconds on both clocks.
    pub fn plus_ms(self, ms: u64) -> Self {
        Now {
            monotonic: self.monotonic.saturating_add(Duration::from_millis(ms)),
            epoch_ms: self.epoch_ms.saturating_add(ms),
        }
    }

    /// The moment the monotonic reading `monotonic_ms` (a `performance.now()` taken no later
    /// than this moment's) stands for, on both clocks: the wall clock goes back as far as the
    /// monotonic one. `None` when the reading is no time or later than this moment.
    pub fn back_to(self, monotonic_ms: f64) -> Option<Self> {
        let at = Duration::try_from_secs_f64(monotonic_ms / 1000.0).ok()?;
        let back = self.monotonic.checked_sub(at)?;
        Some(Now {
            monotonic: at,
            // (whole milliseconds back: two readings keep their order on the wall clock)
            epoch_ms: self
                .epoch_ms
                .saturating_sub(u64::try_from(back.as_millis()).unwrap_or(u64::MAX)),
        })
    }
}

/// A clock reading in milliseconds, or 0 when it is no time (not finite, or below zero).
fn reading_ms(ms: f64) -> f64 {
    if ms.is_finite() && ms > 0.0 {
        ms
    } else {
        0.0
    }
}

/// The runtime-wide limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DispatchConfig {
    /// The most tools running at once, across all batches.
    pub concurrency: usize,
    /// The default deadline of each stage of a call, in milliseconds.
    pub timeout_ms: u64,
}

impl Default for DispatchConfig {
    fn default() -> Self {
        DispatchConfig {
            concurrency: 16,
            timeout_ms: 120_000,
        }
    }
}

/// Where a call is in its walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Not begun (a sequential batch waits for the call before it).
    Waiting,
    /// Its `beforeToolCall` hook is running.
    Before,
    /// Waiting for `onApproval` to answer.
    Approval,
    /// Its `concurrencyKey` is being computed.
    Key,
    /// Keyed, waiting for the earlier keyed calls of its batch to be admitted.
    Admit,
    /// Waiting for its key to be free.
    KeyWait,
    /// Ready, waiting for a free slot.
    Runnable,
    /// The tool is running.
    Running,
    /// The tool ended; hooks may follow.
    Settled,
    /// Its `afterToolCall` hook is running.
    After,
    /// Its `onPersist` hook is running.
    Persist,
    /// Its result was delivered.
    Done,
}

struct Call {
    request: CallRequest,
    spec: Option<Arc<ToolSpec>>,
    args: CallArgs,
    /// The flat check found the argument text valid as it is (see [`crate::flat_args`]).
    flat_checked: bool,
    /// Parsing and validation done ahead, on several threads, for a big batch.
    prechecked: Option<Prechecked>,
    /// The slot of an earlier call of the batch with the same id: this one is refused.
    repeats: Option<u32>,
    /// The arguments are exactly the call's own, so the driver already has them.
    args_own: bool,
    stage: Stage,
    /// Changes on every stage with a pending answer; stale answers and deadlines carry an old one.
    token: u32,
    announced: bool,
    key: Option<String>,
    holds_key: bool,
    timeout_ms: u64,
    started: Option<Now>,
    pending: Option<ToolResult>,
    /// What parameter normalization changed, when it changed anything.
    normalization: Option<Normalization>,
    /// The input limits in force.
    limits: Limits,
    /// The pending result's content was sanitized (a hook's new content is not).
    sanitized: bool,
    /// The result's text, kept for the batch's budget once the call ended.
    texts: BatchText,
    /// While `onApproval` decides: what the answer applies to.
    approval: Option<Box<approval::Waiting>>,
}

/// A successful value that passed sanitization unchanged, on its way to the driver.
struct Returned {
    shape: OutputShape,
    outcome: ToolOutcome,
    /// The value's JSON text, for [`OutputShape::Json`].
    text: Option<String>,
    /// Its text's length in UTF-16 units.
    units: u64,
}

/// A result's text as the batch budget needs it.
#[derive(Debug)]
enum BatchText {
    /// At most [`MIN_SHARE`] units: never cut, so only its size is kept.
    Small(u64),
    /// The text blocks: `(block index, text with its cut found again)`.
    Blocks(Vec<(usize, Kept)>),
}

impl Default for BatchText {
    fn default() -> Self {
        BatchText::Small(0)
    }
}

impl BatchText {
    /// The text of `content`, copied only when it could be cut.
    fn of(content: &[ContentBlock]) -> BatchText {
        let units: u64 = content
            .iter()
            .map(|block| match block {
                ContentBlock::Text { text } => utf16_len(text),
                ContentBlock::Image { .. } => 0,
            })
            .sum();
        if units <= MIN_SHARE {
            return BatchText::Small(units);
        }
        let blocks = content
            .iter()
            .enumerate()
            .filter_map(|(index, block)| match block {
                ContentBlock::Text { text } => Some((index, kept_again(text.clone()))),
                ContentBlock::Image { .. } => None,
            })
            .collect();
        BatchText::Blocks(blocks)
    }

    /// Its size in budget units.
    fn size(&self) -> u64 {
        match self {
            BatchText::Small(units) => *units,
            BatchText::Blocks(blocks) => blocks.iter().map(|(_, kept)| kept.size()).sum(),
        }
    }
}

/// How a tool's value reached the engine, which decides whether the driver can rebuild its
/// result from the value it holds.
enum Settled {
    /// Exactly as the driver holds it.
    AsHeld,
    /// With lone surrogates replaced (U+FFFD) on the way in.
    Repaired,
    /// Already sanitized by the engine (big text, bytes, images), with this report.
    Presanitized(SanitizeReport),
}

/// What the precheck found: whether the arguments parsed, and whether they are valid.
struct Prechecked {
    parsed: std::result::Result<(), ToolError>,
    /// The outcome of [`Call::prepare`].
    valid: Option<std::result::Result<(), ToolError>>,
}

impl Call {
    /// Parses the arguments as sent (once); they become `args`.
    fn parse_arguments(&mut self) -> std::result::Result<(), ToolError> {
        let raw = std::mem::replace(
            &mut self.request.arguments,
            RawArguments::Text(String::new()),
        );
        let tool = &self.request.name;
        self.check_limits(&raw)?;
        // Text a flat tool's schema accepts as it is stays text (see crate::flat_args).
        let flat = self
            .spec
            .as_deref()
            .filter(|spec| !spec.strict_sent())
            .and_then(ToolSpec::flat);
        let raw = match raw {
            RawArguments::Text(text) | RawArguments::Object(text)
                if flat.is_some_and(|flat| flat.accepts(&text)) =>
            {
                self.args = CallArgs::checked_text(text);
                self.args_own = true;
                self.flat_checked = true;
                return Ok(());
            }
            raw => raw,
        };
        // Arguments whose text had lone surrogates replaced differ from what the driver holds,
        // so they are never the call's own.
        let (parsed, own) = match raw {
            RawArguments::Text(text) => match parse_arguments(tool, &text) {
                Ok(parsed) => (
                    Ok(parsed.value),
                    !parsed.repaired && !text.trim().is_empty(),
                ),
                Err(error) => (Err(error), false),
            },
            RawArguments::Object(text) => match parse_arguments(tool, &text) {
                Ok(parsed) if parsed.value.is_null() => (Ok(json!({})), false),
                Ok(parsed) => (Ok(parsed.value), !parsed.repaired),
                Err(error) => (Err(error), false),
            },
            RawArguments::Unserializable(why) => (
                Err(ToolError::new(
                    ErrorCode::InvalidJson,
                    format!(
                        "The arguments for tool \"{tool}\" could not be serialized to JSON: {why}"
                    ),
                )),
                false,
            ),
            RawArguments::NotFinite(pointer, number) => (
                Err(crate::args::non_finite_error(tool, &pointer, &number)),
                false,
            ),
            RawArguments::Incomplete => (
                Err(ToolError::new(
                    ErrorCode::IncompleteArguments,
                    format!(
                        "The arguments for tool \"{tool}\" were cut off before they were \
                         complete (the response stopped mid-call), so the call was not run. \
                         Call the tool again with complete arguments."
                    ),
                )),
                false,
            ),
        };
        self.args_own = own && parsed.is_ok();
        parsed.map(|args| self.args.set(args))
    }

    /// Refuses an id already used in the batch, and an id or arguments over the limits, naming
    /// the limit and the size.
    fn check_limits(&self, raw: &RawArguments) -> std::result::Result<(), ToolError> {
        if let Some(first) = self.repeats {
            return Err(ToolError::new(
                ErrorCode::ValidationError,
                format!(
                    "The tool call id {} is already the id of call {first} of this batch, so this \
                     call was not run: ids must be unique within a batch (results and the audit \
                     log are matched to calls by id). Give each call its own id.",
                    crate::quote::quoted(&self.request.id)
                ),
            )
            .with_details(json!({ "duplicateOf": first })));
        }
        let limits = self.limits;
        let id_chars = self.request.id.chars().count() as u64;
        if id_chars > limits.max_id_chars {
            return Err(limit_error(
                format!(
                    "The tool call id is {id_chars} characters long, over the limit of {} \
                     characters (limits.maxIdChars), so the call was not run.",
                    limits.max_id_chars
                ),
                limits.max_id_chars,
                id_chars,
            ));
        }
        let bytes = match raw {
            RawArguments::Text(text) | RawArguments::Object(text) => text.len() as u64,
            _ => 0,
        };
        if bytes > limits.max_arguments_bytes {
            return Err(limit_error(
                format!(
                    "The arguments for tool \"{}\" are {bytes} bytes, over the limit of {} bytes \
                     (limits.maxArgumentsBytes), so the call was not run. Send smaller arguments.",
                    self.request.name, limits.max_arguments_bytes
                ),
                limits.max_arguments_bytes,
                bytes,
            ));
        }
        Ok(())
    }

    /// Normalizes the parsed arguments for the tool and validates them (see
    /// [`prepare_arguments`]), keeping what normalization changed for the result.
    /// Calls without a tool never get here (they end `NOT_FOUND` first). The tool is borrowed,
    /// not cloned: big batches are prechecked on several threads, and cloning the `Arc` of a
    /// tool many calls share would make them contend for its count.
    fn prepare(&mut self) -> std::result::Result<(), ToolError> {
        let spec = self
            .spec
            .as_deref()
            .expect("only calls of a known tool are prepared");
        if self.flat_checked {
            // valid as sent, and normalization leaves it so
            return Ok(());
        }
        let prepared = prepare_arguments(spec, self.args.get_mut())?;
        if prepared.changed {
            self.args_own = false;
        }
        self.normalization = (!prepared.normalization.is_empty()).then_some(prepared.normalization);
        Ok(())
    }

    /// Parses and validates ahead of the call's turn; pure, so it may run on any thread.
    fn precheck(&mut self) {
        let parsed = self.parse_arguments();
        let valid = match (&parsed, &self.spec) {
            (Ok(()), Some(_)) => Some(self.prepare()),
            _ => None,
        };
        self.prechecked = Some(Prechecked { parsed, valid });
    }

    fn keyed(&self) -> bool {
        self.spec.as_ref().is_some_and(|s| s.has_concurrency_key)
    }

    /// Moves to a stage that waits for an answer, returning the token that answer must carry.
    fn await_answer(&mut self, stage: Stage) -> u32 {
        self.stage = stage;
        self.token = self.token.wrapping_add(1);
        self.token
    }
}

struct Batch {
    calls: Vec<Call>,
    options: BatchOptions,
    /// The runtime's result rules, or this dispatch's overrides of them.
    rules: Arc<ResultRules>,
    sequential: bool,
    /// Keyed calls are admitted to their key queues in source order; this is the next slot.
    admitted: usize,
    remaining: usize,
    /// The text of the results so far, in budget units (for `maxBatchChars`).
    text_units: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Deadline {
    /// On the driver's monotonic clock.
    at: Duration,
    call: CallRef,
    token: u32,
}

/// The scheduler of every batch of one runtime. See the module documentation.
pub struct Dispatcher {
    config: DispatchConfig,
    rules: Arc<ResultRules>,
    /// The runtime's policy.
    gate: Arc<PolicyGate>,
    /// Identical calls per run.
    loops: LoopDetector,
    /// `allow-always` grants.
    store: ApprovalStore,
    /// Calls waiting for `resolveApproval`, by approval id.
    deferred: HashMap<String, approval::Deferred>,
    /// Numbers approval ids.
    next_approval: u64,
    batches: IdMap<u32, Batch>,
    in_flight: usize,
    to_begin: VecDeque<CallRef>,
    runnable: VecDeque<CallRef>,
    keys: KeyLocks,
    /// Lazily deleted: an entry whose call moved on is stale and skipped (see `arm_timer`).
    deadlines: BinaryHeap<Reverse<Deadline>>,
    /// Calls in open batches; each has at most one live deadline.
    open_calls: usize,
    armed: Option<Duration>,
    actions: Vec<Action>,
}

impl Dispatcher {
    /// A dispatcher with these limits, result rules, policy and approval grants.
    pub fn new(
        config: DispatchConfig,
        rules: ResultRules,
        gate: Arc<PolicyGate>,
        store: ApprovalStore,
    ) -> Self {
        Dispatcher {
            config,
            rules: Arc::new(rules),
            loops: LoopDetector::new(gate.loop_options()),
            store,
            deferred: HashMap::new(),
            next_approval: 0,
            gate,
            batches: IdMap::default(),
            in_flight: 0,
            to_begin: VecDeque::new(),
            runnable: VecDeque::new(),
            keys: KeyLocks::default(),
            deadlines: BinaryHeap::new(),
            open_calls: 0,
            armed: None,
            actions: Vec::new(),
        }
    }

    /// The limits in force.
    pub fn config(&self) -> DispatchConfig {
        self.config
    }

    /// The result rules of an open batch (the runtime's, or the dispatch's overrides).
    pub fn batch_rules(&self, batch_id: u32) -> Option<Arc<ResultRules>> {
        self.batches.get(&batch_id).map(|b| b.rules.clone())
    }

    /// The runtime's result rules.
    pub fn runtime_rules(&self) -> &Arc<ResultRules> {
        &self.rules
    }

    /// Forgets run `run_id`'s loop counts: the run ended.
    pub fn end_run(&mut self, run_id: &str) {
        self.loops.end_run(run_id);
    }

    /// How many batches have calls that have not ended.
    pub fn open_batches(&self) -> usize {
        self.batches.len()
    }

    /// Opens a batch under the driver's id and returns the first actions.
    pub fn open(
        &mut self,
        registry: &Registry,
        batch_id: u32,
        requests: Vec<CallRequest>,
        options: BatchOptions,
        now: Now,
    ) -> Result<Vec<Action>> {
        if self.batches.contains_key(&batch_id) {
            return Err(Error::internal(format!(
                "batch id {batch_id} is already open"
            )));
        }
        let rules = if options.overrides.is_empty() {
            self.rules.clone()
        } else {
            Arc::new(self.rules.with(&options.overrides, "dispatch: options.")?)
        };
        if let Some(tools) = &options.tools {
            tools.check(registry)?;
        }
        let limits = rules.limits;
        let default_timeout = options.timeout_ms.unwrap_or(self.config.timeout_ms);
        let calls: Vec<Call> = requests
            .into_iter()
            .map(|request| {
                // A tool this dispatch may not run is, to its calls, not there.
                let spec = registry
                    .get(&request.name)
                    .filter(|spec| options.tools.as_ref().is_none_or(|t| t.allows(&spec.name)))
                    .cloned();
                let timeout_ms = spec
                    .as_ref()
                    .and_then(|s| s.timeout_ms)
                    .unwrap_or(default_timeout);
                Call {
                    request,
                    spec,
                    args: CallArgs::default(),
                    flat_checked: false,
                    prechecked: None,
                    repeats: None,
                    args_own: false,
                    stage: Stage::Waiting,
                    token: 0,
                    announced: false,
                    key: None,
                    holds_key: false,
                    timeout_ms,
                    started: None,
                    pending: None,
                    normalization: None,
                    limits,
                    sanitized: false,
                    texts: BatchText::default(),
                    approval: None,
                }
            })
            .collect();
        let sequential = calls.iter().any(|c| {
            c.spec
                .as_ref()
                .is_some_and(|s| s.execution_mode == ExecutionMode::Sequential)
        });
        let mut calls = calls;
        mark_repeated_ids(&mut calls);
        let cancelled = options.cancelled;
        if !cancelled {
            precheck(&mut calls);
        }
        let count = calls.len();
        self.open_calls += count;
        self.batches.insert(
            batch_id,
            Batch {
                calls,
                options,
                rules,
                sequential,
                admitted: 0,
                remaining: count,
                text_units: 0,
            },
        );
        if count == 0 {
            self.batches.remove(&batch_id);
            self.actions.push(Action::BatchDone { batch: batch_id });
        } else if cancelled {
            self.cancel_batch(batch_id, now);
        } else if sequential {
            self.to_begin.push_back(CallRef {
                batch: batch_id,
                slot: 0,
            });
        } else {
            self.to_begin.extend((0..count as u32).map(|slot| CallRef {
                batch: batch_id,
                slot,
            }));
        }
        self.drive(registry, now, false);
        Ok(self.take_actions())
    }

    /// Feeds back what the driver observed, in order, and returns the next actions. Answers for
    /// calls that already ended (a tool settling after its timeout) are ignored.
    pub fn complete(
        &mut self,
        registry: &Registry,
        completions: Vec<Completion>,
        now: Now,
    ) -> Vec<Action> {
        for completion in completions {
            self.apply_completion(completion, now);
        }
        self.drive(registry, now, false);
        self.take_actions()
    }

    /// Expires the deadlines that have passed; the driver calls this when its timer fires.
    pub fn tick(&mut self, registry: &Registry, now: Now) -> Vec<Action> {
        while let Some(Reverse(deadline)) = self.deadlines.peek().copied() {
            if deadline.at > now.monotonic {
                break;
            }
            self.deadlines.pop();
            let live = self
                .call(deadline.call)
                .is_some_and(|c| c.token == deadline.token);
            if live {
                self.expire(deadline.call, now);
            }
        }
        self.drive(registry, now, true);
        self.take_actions()
    }

    /// Cancels a batch: running tools get their signal aborted, and every call that has not
    /// ended ends `cancelled` now. A batch that already ended is left alone.
    pub fn cancel(&mut self, registry: &Registry, batch_id: u32, now: Now) -> Vec<Action> {
        if self.batches.contains_key(&batch_id) {
            self.cancel_batch(batch_id, now);
            self.drive(registry, now, false);
        }
        self.take_actions()
    }

    fn take_actions(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.actions)
    }

    fn call(&self, call: CallRef) -> Option<&Call> {
        self.batches.get(&call.batch)?.calls.get(call.slot as usize)
    }

    fn call_mut(&mut self, call: CallRef) -> Option<&mut Call> {
        self.batches
            .get_mut(&call.batch)?
            .calls
            .get_mut(call.slot as usize)
    }

    fn options(&self, call: CallRef) -> &BatchOptions {
        &self.batches[&call.batch].options
    }

    fn rules(&self, call: CallRef) -> Arc<ResultRules> {
        self.batches[&call.batch].rules.clone()
    }

    /// Begins and starts what can be, then re-arms the timer.
    fn drive(&mut self, registry: &Registry, now: Now, force_timer: bool) {
        loop {
            while let Some(call) = self.to_begin.pop_front() {
                self.begin(registry, call, now);
            }
            self.start_runnable(registry, now);
            if self.to_begin.is_empty() {
                break;
            }
        }
        self.arm_timer(now, force_timer);
    }

    fn begin(&mut self, registry: &Registry, call: CallRef, now: Now) {
        if self.call(call).map(|c| c.stage) != Some(Stage::Waiting) {
            return;
        }
        let parsed = self.announce(call);
        let c = self.call(call).expect("call exists");
        // A repeated id is refused before anything else is looked at (an unknown tool, a
        // policy): the refusal is what marks the call as a repeat, whatever else it holds.
        if let (Some(_), Err(error)) = (c.repeats, &parsed) {
            let error = error.clone();
            return self.fail(call, ToolStatus::Error, error, now);
        }
        let spec = match c.spec.clone() {
            Some(spec) => spec,
            None => {
                let error = not_found(registry, self.options(call).tools.as_ref(), &c.request.name);
                return self.fail(call, ToolStatus::Error, error, now);
            }
        };
        if let Err(error) = self
            .gate
            .admit(&spec, &self.options(call).context, registry)
        {
            return self.fail(call, ToolStatus::Blocked, error, now);
        }
        let c = self.call_mut(call).expect("call exists");
        let valid = c.prechecked.take().and_then(|p| p.valid);
        if let Err(error) = parsed.and_then(|()| valid.unwrap_or_else(|| c.prepare())) {
            return self.fail(call, ToolStatus::Error, error, now);
        }
        if self.options(call).hooks.before {
            let envelope = self.envelope(call, &spec, now);
            let c = self.call_mut(call).expect("call exists");
            let token = c.await_answer(Stage::Before);
            let args = c.args.get().clone();
            self.set_deadline(call, now);
            self.actions.push(Action::BeforeHook {
                call,
                token,
                args,
                envelope: Box::new(envelope),
            });
        } else {
            self.guarded(call, now);
        }
    }

    /// The arguments are final: check their paths and whether the run loops, then go on.
    fn guarded(&mut self, call: CallRef, now: Now) {
        let batch = &self.batches[&call.batch];
        let c = &batch.calls[call.slot as usize];
        let spec = c.spec.clone().expect("guarded calls have a tool");
        if let Err(error) = self.gate.check_paths(&spec, || c.args.get()) {
            return self.fail(call, ToolStatus::Blocked, error, now);
        }
        let options = &batch.options;
        if let Some(resumed) = options.resumed.clone() {
            return self.resumed(call, *resumed, now);
        }
        if let (Some(run), Some(_)) = (&options.run_id, self.gate.loop_options()) {
            let events = options.events;
            match self.loops.record(run, &spec.name, c.args.get()) {
                LoopVerdict::Ok => {}
                LoopVerdict::Warn { count } => {
                    if events {
                        self.actions.push(Action::LoopWarning { call, count });
                    }
                }
                LoopVerdict::Block { count } => {
                    let error = ToolError::new(
                        ErrorCode::Blocked,
                        format!(
                            "Tool \"{}\" was called with the same arguments {count} times in this \
                             run, so the call was blocked. Stop repeating it: change the \
                             arguments or try another approach.",
                            spec.name
                        ),
                    );
                    return self.fail(call, ToolStatus::Blocked, error, now);
                }
            }
        }
        self.approve(call, now);
    }

    /// Parses the call's arguments and emits its start event (once); returns the parse outcome.
    fn announce(&mut self, call: CallRef) -> std::result::Result<(), ToolError> {
        let events = self.options(call).events;
        let c = self.call_mut(call).expect("call exists");
        if c.announced {
            return Ok(());
        }
        c.announced = true;
        let outcome = match &mut c.prechecked {
            Some(prechecked) => std::mem::replace(&mut prechecked.parsed, Ok(())),
            None => c.parse_arguments(),
        };
        if events {
            let args = (!c.args_own).then(|| c.args.get().clone());
            let rules = self.rules(call);
            let c = self.call(call).expect("call exists");
            let args = finalize::scrubbed_args(&rules, c.args.get()).or(args);
            let ids = finalize::scrubbed_ids(&rules, &c.request, &c.request.name);
            // The scrubbed ids follow the arguments, which must then be there.
            let args = match (&ids, args) {
                (Some(_), None) => Some(c.args.get().clone()),
                (_, args) => args,
            };
            self.actions.push(Action::StartEvent {
                call,
                args,
                ids: ids.map(Box::new),
                repeats: c.repeats,
            });
        }
        outcome
    }

    fn envelope(&self, call: CallRef, spec: &ToolSpec, now: Now) -> ToolCall {
        let c = self.call(call).expect("call exists");
        let stamp = c.request.stamp.as_deref().cloned().unwrap_or_default();
        ToolCall {
            call_id: c.request.id.clone(),
            run_id: self.options(call).run_id.clone(),
            step_id: stamp.step_id,
            loop_id: stamp.loop_id,
            confirmation_id: stamp.confirmation_id,
            tool: spec.name.clone(),
            attempt: stamp.attempt.unwrap_or(1),
            args: c.args.get().clone(),
            args_hash: args_hash(c.args.get()),
            timeout_ms: c.timeout_ms,
            cancellable: spec.takes_signal,
            created_at: now.epoch_ms,
            risk_level: spec.risk_level,
            category: spec.category.clone(),
        }
    }

    /// The arguments are final: compute the key, or queue the call.
    fn prepared(&mut self, call: CallRef) {
        let c = self.call_mut(call).expect("call exists");
        if c.keyed() {
            let token = c.await_answer(Stage::Key);
            let args = c.args.get().clone();
            self.actions
                .push(Action::ConcurrencyKey { call, token, args });
        } else {
            c.stage = Stage::Runnable;
            self.runnable.push_back(call);
        }
    }

    /// Admits keyed calls to their key queues in source order.
    fn admit_in_order(&mut self, batch_id: u32) {
        loop {
            let Some(batch) = self.batches.get_mut(&batch_id) else {
                return;
            };
            let Some(c) = batch.calls.get(batch.admitted) else {
                return;
            };
            let call = CallRef {
                batch: batch_id,
                slot: batch.admitted as u32,
            };
            match c.stage {
                Stage::Admit => {
                    batch.admitted += 1;
                    self.admit(call);
                }
                Stage::Done => batch.admitted += 1,
                _ if !c.keyed() => batch.admitted += 1,
                _ => return,
            }
        }
    }

    fn admit(&mut self, call: CallRef) {
        let c = self.call_mut(call).expect("call exists");
        let holds = match c.key.clone() {
            None => true,
            Some(key) => {
                let holds = self.keys.acquire(&key, call);
                self.call_mut(call).expect("call exists").holds_key = holds;
                holds
            }
        };
        let c = self.call_mut(call).expect("call exists");
        if holds {
            c.stage = Stage::Runnable;
            self.runnable.push_back(call);
        } else {
            c.stage = Stage::KeyWait;
        }
    }

    /// Starts queued calls while there are free slots.
    fn start_runnable(&mut self, registry: &Registry, now: Now) {
        while self.in_flight < self.config.concurrency {
            let Some(call) = self.runnable.pop_front() else {
                return;
            };
            let Some(c) = self.call_mut(call) else {
                continue;
            };
            if c.stage != Stage::Runnable {
                continue;
            }
            let spec = c.spec.clone().expect("runnable calls have a tool");
            if !registry.is_current(&spec) {
                self.settle(call, ToolOutcome::Missing, Settled::AsHeld, now, now);
                continue;
            }
            let token = c.await_answer(Stage::Running);
            c.started = Some(now);
            let args = (!c.args_own).then(|| c.args.get().clone());
            let timeout_ms = c.timeout_ms;
            self.in_flight += 1;
            self.set_deadline(call, now);
            self.actions.push(Action::Start {
                call,
                token,
                tool_id: spec.id,
                timeout_ms,
                args,
            });
        }
    }

    fn apply_completion(&mut self, completion: Completion, now: Now) {
        let call = completion.call;
        let Some(c) = self.call(call) else {
            return;
        };
        if c.token != completion.token {
            return;
        }
        let tool = c.request.name.clone();
        match (c.stage, completion.kind) {
            (Stage::Before, CompletionKind::BeforeAnswered(answer)) => {
                self.before_answered(call, before_decision(answer), now)
            }
            (Stage::Before, CompletionKind::BeforeParamsNotFinite(pointer, number)) => {
                let error = crate::args::non_finite_error(&tool, &pointer, &number);
                self.fail(call, ToolStatus::Error, error, now)
            }
            (Stage::Before, CompletionKind::BeforeFailed(message)) => {
                let error = ToolError::new(
                    ErrorCode::Blocked,
                    format!("The beforeToolCall hook failed, so the call was blocked: {message}"),
                );
                self.fail(call, ToolStatus::Blocked, error, now)
            }
            (Stage::Approval, CompletionKind::ApprovalAnswered(answer)) => {
                self.approval_answered(call, Ok(answer), now)
            }
            (Stage::Approval, CompletionKind::ApprovalFailed(message)) => {
                self.approval_answered(call, Err(message), now)
            }
            (Stage::Key, CompletionKind::Key(key)) => {
                let c = self.call_mut(call).expect("call exists");
                c.key = key;
                c.stage = Stage::Admit;
                self.admit_in_order(call.batch);
            }
            (Stage::Key, CompletionKind::KeyFailed(message)) => {
                let error = ToolError::new(
                    ErrorCode::ExecutionError,
                    format!("concurrencyKey of tool \"{tool}\" threw: {message}"),
                );
                self.fail(call, ToolStatus::Error, error, now);
                self.admit_in_order(call.batch);
            }
            (Stage::Running, CompletionKind::Tool(outcome)) => {
                let ended = self.ran(call, completion.ran, now);
                self.settle(call, outcome, Settled::AsHeld, ended, now)
            }
            (Stage::Running, CompletionKind::ToolRepaired(outcome)) => {
                let ended = self.ran(call, completion.ran, now);
                self.settle(call, outcome, Settled::Repaired, ended, now)
            }
            (Stage::Running, CompletionKind::ToolSanitized(value, report)) => {
                let ended = self.ran(call, completion.ran, now);
                let value = ToolOutcome::Returned(value);
                self.settle(call, value, Settled::Presanitized(*report), ended, now)
            }
            (Stage::After, CompletionKind::AfterAnswered(answer)) => {
                self.mark_replaced(call, &answer);
                let mut result = self.take_pending(call);
                if let Err(error) = apply_after_answer(&mut result, &tool, answer) {
                    withhold(&mut result, ToolStatus::Error, error);
                }
                self.persist_or_finish(call, result, now)
            }
            (Stage::After, CompletionKind::AfterFailed(message)) => {
                let mut result = self.take_pending(call);
                let error = ToolError::new(
                    ErrorCode::ExecutionError,
                    format!("The afterToolCall hook failed, so the tool's output was withheld: {message}"),
                );
                withhold(&mut result, ToolStatus::Error, error);
                self.persist_or_finish(call, result, now)
            }
            (Stage::Persist, CompletionKind::PersistAnswered(answer)) => {
                self.mark_replaced(call, &answer);
                let mut result = self.take_pending(call);
                if let Err(error) = apply_persist_answer(&mut result, &tool, answer) {
                    withhold(&mut result, ToolStatus::Error, error);
                }
                self.finish(call, result)
            }
            (Stage::Persist, CompletionKind::PersistFailed(message)) => {
                let mut result = self.take_pending(call);
                let error = ToolError::new(
                    ErrorCode::ExecutionError,
                    format!(
                        "The onPersist hook failed, so the tool's output was withheld: {message}"
                    ),
                );
                withhold(&mut result, ToolStatus::Error, error);
                self.finish(call, result)
            }
            _ => {}
        }
    }

    fn before_answered(&mut self, call: CallRef, decision: BeforeDecision, now: Now) {
        match decision {
            BeforeDecision::Proceed => self.guarded(call, now),
            BeforeDecision::Block(reason) => {
                let error =
                    ToolError::new(ErrorCode::Blocked, format!("Tool call blocked: {reason}"));
                self.fail(call, ToolStatus::Blocked, error, now)
            }
            BeforeDecision::Replace(params) => {
                let c = self.call_mut(call).expect("call exists");
                c.args.set(params);
                c.args_own = false;
                // what the flat check found holds for the model's text, not for these
                c.flat_checked = false;
                let spec = c.spec.clone().expect("hooked calls have a tool");
                match validate_arguments(&spec, c.args.get()) {
                    Err(error) => self.fail(call, ToolStatus::Error, error, now),
                    Ok(()) => self.guarded(call, now),
                }
            }
        }
    }

    /// When the call's tool ended, from the driver's readings `ran` (see [`Ran`]): the moment it
    /// settled, and the moment it started kept as the call's start. The crossing that carries a
    /// completion comes when JavaScript is free, which may be long after the tool settled (another
    /// tool's synchronous work in between), and a tool starts after the tools started before it
    /// in the same answer: the result's times are the tool's own. `now` without readings.
    fn ran(&mut self, call: CallRef, ran: Option<Ran>, now: Now) -> Now {
        let Some(ran) = ran else {
            return now;
        };
        let ended = now.back_to(ran.settled_ms).unwrap_or(now);
        let c = self.call_mut(call).expect("call exists");
        let issued = c.started.unwrap_or(now);
        // never before the answer that started it, never after its end
        let started = match now.back_to(ran.started_ms) {
            Some(started) if started.monotonic > issued.monotonic => started,
            _ => issued,
        };
        c.started = Some(if started.monotonic > ended.monotonic {
            ended
        } else {
            started
        });
        ended
    }

    /// The tool ended (or was found missing): build its result, sanitize it and run the hooks
    /// after it. `presanitized`: the driver already sanitized the value's content (big text,
    /// bytes, images), with this report.
    fn settle(
        &mut self,
        call: CallRef,
        outcome: ToolOutcome,
        settled: Settled,
        ended: Now,
        now: Now,
    ) {
        let held = matches!(settled, Settled::AsHeld);
        let presanitized = match settled {
            Settled::Presanitized(report) => Some(report),
            _ => None,
        };
        self.leave_running(call);
        let ran = outcome != ToolOutcome::Missing;
        let spec = self
            .call(call)
            .and_then(|c| c.spec.clone())
            .expect("settled calls have a tool");
        let hooks = self.options(call).hooks;
        let rules = self.rules(call);
        let verdict = check_outcome(&spec, &outcome);
        if let Ok(checked) = verdict {
            let normalized = self.call(call).is_some_and(|c| c.normalization.is_some());
            let plain = !checked.reports_error && !hooks.after && !hooks.persist && !normalized;
            // A presanitized value was rebuilt by the engine's sanitizer, and a repaired one
            // had lone surrogates replaced: the driver does not hold either, so it cannot end
            // as returned.
            if plain && held {
                let json_text = match (checked.shape, &outcome) {
                    (OutputShape::Json, ToolOutcome::Returned(value)) => Some(value.to_string()),
                    _ => None,
                };
                if let Some(units) = finalize::passes_unchanged(
                    &rules,
                    &outcome,
                    checked.shape,
                    json_text.as_deref(),
                ) {
                    let returned = Returned {
                        shape: checked.shape,
                        outcome,
                        text: json_text,
                        units,
                    };
                    return self.finish_as_returned(call, &spec, returned, ended);
                }
            }
        }
        let mut result = self.result_for(call, ended);
        let content_done = presanitized.is_some();
        result.sanitization = presanitized.filter(|report| !report.is_empty());
        apply_verdict(&mut result, &spec, outcome, verdict);
        finalize::sanitize_result(&rules, &mut result, content_done);
        self.call_mut(call).expect("call exists").sanitized = true;
        if ran && hooks.after {
            let c = self.call_mut(call).expect("call exists");
            let token = c.await_answer(Stage::After);
            c.pending = Some(result.clone());
            self.set_deadline(call, now);
            self.actions.push(Action::AfterHook {
                call,
                token,
                result: Box::new(result),
            });
        } else {
            self.persist_or_finish(call, result, now);
        }
    }

    /// A hook's answer that replaces output must be sanitized again.
    fn mark_replaced(&mut self, call: CallRef, answer: &Value) {
        let replaces = ["content", "details", "data"]
            .iter()
            .any(|key| answer.get(key).is_some());
        if replaces {
            if let Some(c) = self.call_mut(call) {
                c.sanitized = false;
            }
        }
    }

    fn persist_or_finish(&mut self, call: CallRef, result: ToolResult, now: Now) {
        if self.options(call).hooks.persist {
            let c = self.call_mut(call).expect("call exists");
            let token = c.await_answer(Stage::Persist);
            c.pending = Some(result.clone());
            self.set_deadline(call, now);
            self.actions.push(Action::Persist {
                call,
                token,
                result: Box::new(result),
            });
        } else {
            self.finish(call, result);
        }
    }

    fn take_pending(&mut self, call: CallRef) -> ToolResult {
        self.call_mut(call)
            .and_then(|c| c.pending.take())
            .expect("a hook stage keeps its pending result")
    }

    /// A deadline passed for the call's current stage.
    fn expire(&mut self, call: CallRef, now: Now) {
        let c = self.call(call).expect("call exists");
        let ms = c.timeout_ms;
        let tool = c.request.name.clone();
        match c.stage {
            Stage::Approval => self.approval_expired(call, now),
            Stage::Before => {
                let error = ToolError::new(
                    ErrorCode::Blocked,
                    format!("The beforeToolCall hook did not answer within {ms} ms, so the call was blocked."),
                );
                self.fail(call, ToolStatus::Blocked, error, now)
            }
            Stage::Running => {
                let heard = still_running(c.spec.as_deref());
                self.leave_running(call);
                self.actions.push(Action::Abort {
                    call,
                    reason: AbortReason::Timeout,
                });
                let mut result = self.result_for(call, now);
                result.fail(
                    ToolStatus::Timeout,
                    ToolError::new(
                        ErrorCode::Timeout,
                        format!("Tool \"{tool}\" did not finish within {ms} ms. {heard}"),
                    ),
                );
                self.persist_or_finish(call, result, now)
            }
            Stage::After | Stage::Persist => {
                let hook = if c.stage == Stage::After {
                    "afterToolCall"
                } else {
                    "onPersist"
                };
                let persisting = c.stage == Stage::Persist;
                let mut result = self.take_pending(call);
                let error = ToolError::new(
                    ErrorCode::ExecutionError,
                    format!("The {hook} hook did not answer within {ms} ms, so the tool's output was withheld."),
                );
                withhold(&mut result, ToolStatus::Error, error);
                if persisting {
                    self.finish(call, result)
                } else {
                    self.persist_or_finish(call, result, now)
                }
            }
            _ => {}
        }
    }

    fn cancel_batch(&mut self, batch_id: u32, now: Now) {
        let count = self.batches.get(&batch_id).map_or(0, |b| b.calls.len());
        for slot in 0..count as u32 {
            let call = CallRef {
                batch: batch_id,
                slot,
            };
            let Some(c) = self.call(call) else {
                return;
            };
            let message = match c.stage {
                Stage::Done => continue,
                Stage::Running => {
                    let heard = still_running(c.spec.as_deref());
                    self.leave_running(call);
                    self.actions.push(Action::Abort {
                        call,
                        reason: AbortReason::Cancelled,
                    });
                    format!("The call was cancelled while the tool was running. {heard}")
                }
                Stage::Settled | Stage::After | Stage::Persist => {
                    "The call was cancelled before its result was finalized.".to_owned()
                }
                _ => "The call was cancelled before it started.".to_owned(),
            };
            let parsed = self.announce(call);
            let mut result = self.result_for(call, now);
            if parsed.is_err() {
                result.args = Value::Null;
            }
            result.details = None;
            result.data = None;
            result.fail(
                ToolStatus::Cancelled,
                ToolError::new(ErrorCode::Cancelled, message),
            );
            self.finish(call, result);
        }
    }

    /// Ends a call that failed before or around running.
    fn fail(&mut self, call: CallRef, status: ToolStatus, error: ToolError, now: Now) {
        let mut result = self.result_for(call, now);
        result.fail(status, error);
        self.persist_or_finish(call, result, now)
    }

    /// The tool stopped running (settled, timed out or cancelled): free its slot and its key.
    fn leave_running(&mut self, call: CallRef) {
        let Some(c) = self.call_mut(call) else {
            return;
        };
        if c.stage == Stage::Running {
            c.stage = Stage::Settled;
            self.in_flight -= 1;
        }
        self.release_key(call);
    }

    fn release_key(&mut self, call: CallRef) {
        let Some(c) = self.call_mut(call) else {
            return;
        };
        if !c.holds_key {
            return;
        }
        c.holds_key = false;
        let key = c.key.clone().expect("a held key");
        let batches = &self.batches;
        let next = self.keys.release(&key, call, |waiter| {
            batches
                .get(&waiter.batch)
                .and_then(|b| b.calls.get(waiter.slot as usize))
                .is_some_and(|w| w.stage == Stage::KeyWait)
        });
        if let Some(next) = next {
            let n = self.call_mut(next).expect("waiter exists");
            n.holds_key = true;
            n.stage = Stage::Runnable;
            self.runnable.push_back(next);
        }
    }

    /// A fresh result for the call, taking its arguments.
    fn result_for(&mut self, call: CallRef, now: Now) -> ToolResult {
        let run_id = self.options(call).run_id.clone();
        let c = self.call_mut(call).expect("call exists");
        let started = c.started.unwrap_or(now);
        let stamp = c.request.stamp.as_deref().cloned().unwrap_or_default();
        ToolResult {
            run_id,
            step_id: stamp.step_id,
            loop_id: stamp.loop_id,
            confirmation_id: stamp.confirmation_id,
            attempt: stamp.attempt.unwrap_or(1),
            normalization: c.normalization.take(),
            started_at: started.epoch_ms,
            ended_at: now.epoch_ms,
            duration_ms: duration_ms(now.monotonic.saturating_sub(started.monotonic)),
            ..ToolResult::ok(c.request.id.clone(), c.request.name.clone(), c.args.take())
        }
    }

    /// Delivers the call's one result (sanitized, if it was not yet) and moves its batch on.
    fn finish(&mut self, call: CallRef, mut result: ToolResult) {
        let rules = self.rules(call);
        let c = self.call_mut(call).expect("call exists");
        if !c.sanitized {
            finalize::sanitize_result(&rules, &mut result, false);
        } else {
            finalize::sanitize_error(&rules, &mut result);
        }
        let spec = c.spec.clone();
        if rules.sanitizer.options.max_batch_chars.is_some() {
            let text = BatchText::of(&result.content);
            self.keep_batch_text(call, text);
        }
        let view = if self.options(call).events {
            // A pending result's details are the engine's own (the approval id), not the
            // tool's: events show them as they are.
            let engine_details = if result.status == ToolStatus::Pending {
                result.details.take()
            } else {
                None
            };
            let (view, failed) = finalize::end_view(&rules, spec.as_deref(), &result);
            if engine_details.is_some() {
                result.details = engine_details;
            }
            if failed {
                self.actions.push(Action::RedactionFailed { call });
            }
            view
        } else {
            None
        };
        let result = Box::new(result);
        let repeats = self.call(call).and_then(|c| c.repeats);
        let end = Action::End {
            call,
            result,
            view,
            repeats,
        };
        self.conclude(call, end);
    }

    /// Delivers a successful result that is the tool's value as returned (it passed
    /// sanitization unchanged): the driver builds it from the value it holds, so nothing of it
    /// is built here.
    fn finish_as_returned(&mut self, call: CallRef, spec: &ToolSpec, returned: Returned, now: Now) {
        let Returned {
            shape,
            outcome,
            text,
            units,
        } = returned;
        let rules = self.rules(call);
        let events = self.options(call).events;
        let c = self.call(call).expect("call exists");
        let started = c.started.unwrap_or(now);
        let content = || {
            let mut result = ToolResult::ok(String::new(), String::new(), Value::Null);
            let verdict = Ok(crate::output::Verdict {
                shape,
                reports_error: false,
            });
            let outcome = match (&text, shape) {
                (Some(text), OutputShape::Json) => {
                    ToolOutcome::Returned(Value::String(text.clone()))
                }
                _ => outcome.clone(),
            };
            apply_verdict(&mut result, spec, outcome, verdict);
            result.content
        };
        let batch_text = rules.sanitizer.options.max_batch_chars.map(|_| {
            if units <= MIN_SHARE {
                BatchText::Small(units)
            } else {
                BatchText::of(&content())
            }
        });
        let (view, failed) = if events {
            finalize::returned_view(
                &rules,
                spec,
                &outcome,
                text.as_deref(),
                c.args.get(),
                content,
            )
        } else {
            (None, false)
        };
        if failed {
            self.actions.push(Action::RedactionFailed { call });
        }
        if let Some(batch_text) = batch_text {
            self.keep_batch_text(call, batch_text);
        }
        let action = Action::EndAsReturned {
            call,
            started_at: started.epoch_ms,
            ended_at: now.epoch_ms,
            duration_ms: duration_ms(now.monotonic.saturating_sub(started.monotonic)),
            shape,
            text,
            view,
        };
        self.conclude(call, action);
    }

    /// The call ended with `end`: mark it done, emit `end`, and move its batch on.
    fn conclude(&mut self, call: CallRef, end: Action) {
        self.leave_running(call);
        let batch = self.batches.get_mut(&call.batch).expect("batch exists");
        let c = &mut batch.calls[call.slot as usize];
        debug_assert!(c.announced || !batch.options.events);
        c.stage = Stage::Done;
        c.token = c.token.wrapping_add(1);
        c.pending = None;
        c.args = CallArgs::default();
        batch.remaining -= 1;
        let next = call.slot + 1;
        if batch.sequential && (next as usize) < batch.calls.len() {
            self.to_begin.push_back(CallRef {
                batch: call.batch,
                slot: next,
            });
        }
        let done = batch.remaining == 0;
        self.actions.push(end);
        if done {
            if let Some(batch) = self.batches.remove(&call.batch) {
                self.open_calls -= batch.calls.len();
                self.trim_batch(call.batch, batch);
            }
            self.actions.push(Action::BatchDone { batch: call.batch });
        }
    }

    /// Keeps a finished call's text for the batch budget, adding up the batch's total.
    fn keep_batch_text(&mut self, call: CallRef, text: BatchText) {
        let batch = self.batches.get_mut(&call.batch).expect("batch exists");
        batch.text_units += text.size();
        batch.calls[call.slot as usize].texts = text;
    }

    /// The batch's results together over `maxBatchChars`: cut the largest further.
    fn trim_batch(&mut self, batch_id: u32, batch: Batch) {
        let options = &batch.rules.sanitizer.options;
        let Some(budget) = options.max_batch_chars else {
            return;
        };
        if batch.text_units <= budget {
            return;
        }
        let head_ratio = options.head_ratio;
        let texts = batch.calls.into_iter().map(|c| c.texts).collect();
        for (slot, blocks, truncations) in finalize::trim_batch(texts, budget, head_ratio) {
            self.actions.push(Action::Trim {
                call: CallRef {
                    batch: batch_id,
                    slot: slot as u32,
                },
                blocks,
                truncations,
            });
        }
    }

    fn set_deadline(&mut self, call: CallRef, now: Now) {
        let c = self.call(call).expect("call exists");
        self.set_deadline_in(call, c.timeout_ms, now);
    }

    /// Arms a deadline `ms` from now for the call's current stage.
    fn set_deadline_in(&mut self, call: CallRef, ms: u64, now: Now) {
        let c = self.call(call).expect("call exists");
        self.deadlines.push(Reverse(Deadline {
            at: now.monotonic.saturating_add(Duration::from_millis(ms)),
            call,
            token: c.token,
        }));
    }

    /// Tells the driver when to tick next, if that changed (or always, after a tick).
    fn arm_timer(&mut self, now: Now, force: bool) {
        // Stale entries behind a long live deadline would pile up: when they outnumber the live
        // calls, drop them all (amortized O(1) per entry).
        if self.deadlines.len() > 2 * self.open_calls + 64 {
            let batches = &self.batches;
            self.deadlines.retain(|Reverse(d)| {
                batches
                    .get(&d.call.batch)
                    .and_then(|b| b.calls.get(d.call.slot as usize))
                    .is_some_and(|c| c.token == d.token)
            });
        }
        while let Some(Reverse(deadline)) = self.deadlines.peek() {
            let live = self
                .call(deadline.call)
                .is_some_and(|c| c.token == deadline.token);
            if live {
                break;
            }
            self.deadlines.pop();
        }
        let next = self.deadlines.peek().map(|Reverse(d)| d.at);
        if next != self.armed || (force && next.is_some()) {
            self.armed = next;
            let delay_ms = next.map(|at| {
                let wait = at.saturating_sub(now.monotonic);
                wait.as_nanos().div_ceil(1_000_000) as u64
            });
            self.actions.push(Action::Timer { delay_ms });
        }
    }
}

/// Batches at least this big have their arguments parsed and validated on several threads.
const PARALLEL_PRECHECK: usize = 256;

/// Parses and validates the arguments of a big batch on every core; a small batch is checked
/// call by call as each call begins.
fn precheck(calls: &mut [Call]) {
    // Asking for the core count reads cgroup files on Linux: ask once, and only for big batches.
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    if calls.len() < PARALLEL_PRECHECK {
        return;
    }
    let threads =
        *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(8)));
    if threads < 2 {
        return;
    }
    let chunk = calls.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let mut parts = calls.chunks_mut(chunk);
        let own = parts.next();
        for part in parts {
            scope.spawn(move || part.iter_mut().for_each(Call::precheck));
        }
        own.into_iter().flatten().for_each(Call::precheck);
    });
}

/// Marks every call whose id an earlier call of the batch already has (the first keeps it and
/// runs; the others are refused before they run). Ids are compared as the caller wrote them,
/// before lone surrogates became U+FFFD: `a\ud800` and `a\ufffd` are two ids. Linear: one map
/// of the ids seen.
fn mark_repeated_ids(calls: &mut [Call]) {
    let mut first: HashMap<(bool, &str), u32> = HashMap::with_capacity(calls.len());
    let mut repeats = Vec::new();
    for (slot, call) in calls.iter().enumerate() {
        let slot = slot as u32;
        let key = match &call.request.exact_id {
            Some(literal) => (true, literal.as_str()),
            None => (false, call.request.id.as_str()),
        };
        let seen = *first.entry(key).or_insert(slot);
        if seen != slot {
            repeats.push((slot, seen));
        }
    }
    for (slot, seen) in repeats {
        calls[slot as usize].repeats = Some(seen);
    }
}

/// Replaces a result's output with an error: details and data are withheld too (fail closed).
fn withhold(result: &mut ToolResult, status: ToolStatus, error: ToolError) {
    result.details = None;
    result.data = None;
    result.fail(status, error);
}

/// A `LIMIT_EXCEEDED` error with the limit and the actual size in its details.
fn limit_error(message: String, limit: u64, actual: u64) -> ToolError {
    ToolError::new(ErrorCode::LimitExceeded, message)
        .with_details(json!({ "limit": limit, "actual": actual }))
}

/// What became of a tool still running when its call timed out or was cancelled. It never claims
/// the tool stopped: an aborted signal is a request the tool may ignore, and a tool declared
/// `signal: false` was given none.
fn still_running(spec: Option<&ToolSpec>) -> &'static str {
    if spec.is_some_and(|spec| !spec.takes_signal) {
        "The tool takes no AbortSignal (it was registered with signal: false), so it may still be \
         running; whatever it returns later is ignored."
    } else {
        "Its AbortSignal was aborted; the tool may still be running if it does not heed the \
         signal, and whatever it returns later is ignored."
    }
}

/// The error for an unknown tool, naming the closest registered names: of the `allowed` ones
/// only, when the dispatch limits its tools (the others are never named).
fn not_found(registry: &Registry, allowed: Option<&AllowedTools>, name: &str) -> ToolError {
    const LISTED: usize = 20;
    let names: Vec<&str> = registry
        .iter()
        .map(|s| s.name.as_str())
        .filter(|name| allowed.is_none_or(|a| a.allows(name)))
        .collect();
    let suggestions = crate::suggest::closest_names(name, names.iter().copied(), 3);
    let mut message = format!("Tool {} not found.", crate::quote::quoted(name));
    if !suggestions.is_empty() {
        let quoted: Vec<String> = suggestions.iter().map(|s| format!("\"{s}\"")).collect();
        message.push_str(&format!(" Did you mean {}?", quoted.join(" or ")));
    }
    if names.is_empty() {
        message.push_str(if allowed.is_some() {
            " No tools are available."
        } else {
            " No tools are registered."
        });
    } else {
        let shown = names[..names.len().min(LISTED)].join(", ");
        message.push_str(&format!(" Available tools: {shown}"));
        if names.len() > LISTED {
            message.push_str(&format!(", and {} more", names.len() - LISTED));
        }
        message.push('.');
    }
    ToolError::new(ErrorCode::NotFound, message).with_details(json!({ "suggestions": suggestions }))
}

#[cfg(test)]
mod policy_tests;
#[cfg(test)]
mod tests;
