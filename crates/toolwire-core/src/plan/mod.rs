//! Action plans: a list of tool calls run as a dependency graph, with references between steps,
//! `foreach` expansion, retries and per-step error handling.
//!
//! [`Plan::from_json`] validates a plan completely before anything runs (errors have code
//! `PLAN_INVALID` and name the path, the step and the reference). [`PlanRun`] then schedules it
//! as a state machine without clock or I/O, like the [`Dispatcher`](crate::dispatch::Dispatcher):
//! its driver performs the returned [`PlanAction`]s (dispatch a call through the dispatcher, sleep
//! before a retry, emit `step.*` events) and feeds back results.
//!
//! # References
//!
//! Only string *values* in a step's `args` (never object keys) and the step's `foreach` are read
//! for references:
//!
//! ```text
//! whole      := "$steps." STEP_ID path?          the referenced JSON value, of any type
//!             | "$vars." NAME path?
//!             | "{item}" | "{item." path "}" | "{index}"
//! embedded   := any text holding "{item}", "{item." path "}" or "{index}"
//!                                                a string; each reference stringified (a string
//!                                                as is, anything else as compact JSON)
//! escaped    := "$$steps" ... | "$$vars" ...     the same string without its first "$"
//! path       := SEGMENT ("." SEGMENT)*           SEGMENT: one or more characters other than "."
//!                                                (and "}" inside braces); a number indexes an
//!                                                array, anything else is an object key
//! STEP_ID    := [A-Za-z0-9_.-]{1,128}            the longest dotted prefix that is a step id
//! NAME       := a plan var, or a step's captureAs ([A-Za-z0-9_-]{1,128})
//! ```
//!
//! - A string that is `$steps`, `$vars`, or starts with `$steps.` or `$vars.` must be one whole,
//!   well-formed reference; `$steps...`/`$vars...` inside a longer string are plain text.
//! - `$steps.<id>.<path>` reads the step's data (`$steps.parse.items`): the result's `data`, or
//!   its `details` when it has no data; `$steps.<id>` alone is the whole data. The explicit form
//!   `$steps.<id>.data.<path>` reads the same value (so a key of the data named `data` is
//!   `$steps.<id>.data.data`), and `$steps.<id>.$content` the result's content blocks (a tool
//!   that returns only text has no data). A step's status and error are not reachable: a step
//!   that can be referred to succeeded, and one that failed under `onError: continue` is `null`.
//!   A `foreach` step is the list of its iterations' data, in index order; after the iteration's
//!   index the path reads that iteration the same way (`$steps.each.0.name`,
//!   `$steps.each.0.data.name`).
//! - Referring to a step makes the step depend on it (an implicit `dependsOn`); so does referring
//!   to `$vars.<name>` where `<name>` is a step's `captureAs` (its data, or the list of its
//!   iterations' data).
//! - A reference to a step that failed under `onError: continue` resolves to `null` as a whole.
//! - Plan vars are known at validation, so their paths are checked then; a path into a step's
//!   data that does not exist fails that step at run time (`REFERENCE_ERROR`), and its
//!   `onError` applies.
//! - `{item...}` and `{index}` are allowed only in a step with a `foreach`; there is no escape
//!   for them. A literal `foreach` list is taken as is (its items are not templates).

mod actions;
mod graph;
pub mod layout;
mod parse;
mod refs;
mod scheduler;

#[cfg(test)]
mod parse_tests;
#[cfg(test)]
mod refs_tests;
#[cfg(test)]
mod scheduler_tests;

pub use actions::{
    actions_json, PlanAction, PlanActionCode, PlanOutcomeSummary, PlanStatus, StepEventKind,
    StepOutcome, StepProblem, StepStatus,
};
pub use graph::find_cycle;
pub use parse::{
    Foreach, OnError, Plan, RetryPolicy, Step, MAX_FOREACH_ITEMS, MAX_RETRIES, MAX_STEPS,
};
pub use refs::{Piece, Reference, Target, Template};
pub use scheduler::{
    PlanRun, PlanRunOptions, DEFAULT_MAX_CONCURRENCY, DEFAULT_MAX_RETRIES, MAX_DELAY_MS,
};
