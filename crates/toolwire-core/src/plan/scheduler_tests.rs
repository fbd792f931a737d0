//! Tests of the plan scheduler, driven the way the JavaScript driver does: perform the actions,
//! feed back results.

use std::collections::HashMap;

use proptest::prelude::*;
use serde_json::{json, Value};

use super::{
    Plan, PlanAction, PlanOutcomeSummary, PlanRun, PlanRunOptions, PlanStatus, StepEventKind,
    StepStatus,
};
use crate::error::ErrorCode;

/// A dispatched call as the tests look at it.
#[derive(Clone, Debug, PartialEq)]
struct Sent {
    step: String,
    call_id: String,
    args: Value,
    attempt: u32,
    index: Option<usize>,
    loop_id: Option<String>,
}

/// Everything the run asked for, in order.
#[derive(Default)]
struct Driver {
    sent: Vec<Sent>,
    /// Calls dispatched and not yet completed, by call id.
    open: Vec<String>,
    events: Vec<(StepEventKind, String)>,
    waits: Vec<(String, Option<usize>, u32, u64)>,
    finished: Option<PlanOutcomeSummary>,
    most_open: usize,
}

impl Driver {
    fn take(&mut self, actions: Vec<PlanAction>) {
        for action in actions {
            assert!(
                self.finished.is_none(),
                "an action after Finished: {action:?}"
            );
            match action {
                PlanAction::Dispatch {
                    step_id,
                    call_id,
                    args,
                    attempt,
                    index,
                    loop_id,
                    ..
                } => {
                    self.open.push(call_id.clone());
                    self.most_open = self.most_open.max(self.open.len());
                    self.sent.push(Sent {
                        step: step_id,
                        call_id,
                        args,
                        attempt,
                        index,
                        loop_id,
                    });
                }
                PlanAction::Wait {
                    step_id,
                    index,
                    attempt,
                    delay_ms,
                } => self.waits.push((step_id, index, attempt, delay_ms)),
                PlanAction::StepEvent { kind, step_id, .. } => self.events.push((kind, step_id)),
                PlanAction::Finished(summary) => self.finished = Some(summary),
            }
        }
    }

    fn complete(&mut self, run: &mut PlanRun, call_id: &str, result: Value) {
        self.open.retain(|id| id != call_id);
        let actions = run.completed(call_id, &result).expect("a known call");
        self.take(actions);
    }

    fn events_of(&self, step: &str) -> Vec<StepEventKind> {
        self.events
            .iter()
            .filter(|(_, id)| id == step)
            .map(|(kind, _)| *kind)
            .collect()
    }

    fn status(&self, step: &str) -> StepStatus {
        self.finished
            .as_ref()
            .expect("finished")
            .step(step)
            .expect("the step")
            .status
    }
}

fn start(plan: Value, max_concurrency: usize) -> (PlanRun, Driver) {
    let plan = Plan::from_json(&plan).expect("a valid plan");
    let mut run = PlanRun::new(
        plan,
        PlanRunOptions {
            max_concurrency,
            run_id: Some("r".into()),
        },
    )
    .unwrap();
    let mut driver = Driver::default();
    driver.take(run.next());
    (run, driver)
}

fn ok(data: Value) -> Value {
    json!({ "status": "ok", "ok": true, "content": [{ "type": "text", "text": "done" }], "data": data })
}

fn failure(retryable: Option<bool>) -> Value {
    let mut error = json!({ "code": "EXECUTION_ERROR", "message": "boom" });
    if let Some(retryable) = retryable {
        error["retryable"] = json!(retryable);
    }
    json!({ "status": "error", "ok": false, "content": [], "error": error })
}

#[test]
fn a_diamond_honours_max_concurrency_and_passes_data_along() {
    let plan = json!({ "steps": [
        { "id": "a", "tool": "t" },
        { "id": "b", "tool": "t", "args": { "from": "$steps.a.data.n" } },
        { "id": "c", "tool": "t", "args": { "from": "$steps.a.$content.0.text" } },
        { "id": "d", "tool": "t", "args": { "b": "$steps.b.data", "c": "$steps.c" } },
    ]});
    for (max, together) in [(1, 1), (2, 2), (4, 2)] {
        let (mut run, mut d) = start(plan.clone(), max);
        assert_eq!(d.open, vec!["r:a"]);
        d.complete(&mut run, "r:a", ok(json!({ "n": 7 })));
        assert_eq!(d.open.len(), together, "max {max}");
        assert_eq!(d.sent[1].args, json!({ "from": 7 }));
        if max == 1 {
            assert_eq!(d.open, vec!["r:b"]);
            d.complete(&mut run, "r:b", ok(json!("B")));
            assert_eq!(d.open, vec!["r:c"]);
            assert_eq!(d.sent[2].args, json!({ "from": "done" }));
            d.complete(&mut run, "r:c", ok(json!("C")));
        } else {
            d.complete(&mut run, "r:c", ok(json!("C")));
            assert_eq!(d.open, vec!["r:b"], "d waits for b");
            d.complete(&mut run, "r:b", ok(json!("B")));
        }
        assert_eq!(d.open, vec!["r:d"]);
        assert_eq!(d.sent[3].args, json!({ "b": "B", "c": "C" }));
        d.complete(&mut run, "r:d", ok(json!(null)));
        assert!(d.most_open <= max);
        let outcome = d.finished.as_ref().expect("finished");
        assert_eq!(outcome.status, PlanStatus::Ok);
        assert_eq!(outcome.results.len(), 4);
        assert_eq!(
            d.events_of("a"),
            [
                StepEventKind::Scheduled,
                StepEventKind::Started,
                StepEventKind::Finished
            ]
        );
        let json = outcome.to_json();
        assert_eq!(json["runId"], "r");
        assert_eq!(json["status"], "ok");
        assert_eq!(json["steps"]["d"]["status"], "ok");
        assert_eq!(json["steps"]["b"]["results"][0]["data"], "B");
        assert_eq!(serde_json::to_value(outcome).unwrap(), json);
    }
}

#[test]
fn foreach_over_a_literal_list_runs_each_item_within_the_limit() {
    let plan = json!({ "steps": [
        { "id": "each", "tool": "t", "foreach": [{ "n": "x" }, { "n": "y" }, { "n": "z" }],
          "args": { "name": "{item.n}", "label": "{item.n}-{index}", "i": "{index}" } },
        { "id": "after", "tool": "t", "args": { "last": "$steps.each.2.data" } },
    ]});
    let (mut run, mut d) = start(plan, 2);
    assert_eq!(d.open, vec!["r:each:0", "r:each:1"]);
    assert_eq!(
        d.sent[0].args,
        json!({ "name": "x", "label": "x-0", "i": 0 })
    );
    assert_eq!(d.sent[1].index, Some(1));
    assert_eq!(d.sent[1].loop_id.as_deref(), Some("r:each"));
    d.complete(&mut run, "r:each:1", ok(json!("Y")));
    assert_eq!(d.open, vec!["r:each:0", "r:each:2"]);
    assert_eq!(
        d.sent[2].args,
        json!({ "name": "z", "label": "z-2", "i": 2 })
    );
    d.complete(&mut run, "r:each:2", ok(json!("Z")));
    d.complete(&mut run, "r:each:0", ok(json!("X")));
    assert_eq!(d.open, vec!["r:after"]);
    assert_eq!(d.sent[3].args, json!({ "last": "Z" }));
    assert_eq!(d.sent[3].loop_id, None);
    d.complete(&mut run, "r:after", ok(json!(null)));
    assert_eq!(d.finished.unwrap().status, PlanStatus::Ok);
}

#[test]
fn foreach_over_a_reference_resolves_when_the_step_is_ready() {
    let plan = json!({ "steps": [
        { "id": "list", "tool": "ls", "captureAs": "listing" },
        { "id": "read", "tool": "cat", "foreach": "$steps.list.data.files",
          "args": { "path": "{item.name}", "all": "$vars.listing.files.0.name" }, "captureAs": "bodies" },
        { "id": "sum", "tool": "t", "args": { "bodies": "$vars.bodies" } },
        { "id": "none", "tool": "t", "foreach": "$steps.list.data.empty" },
    ]});
    let (mut run, mut d) = start(plan, 4);
    d.complete(
        &mut run,
        "r:list",
        ok(json!({ "files": [{ "name": "a" }, { "name": "b" }], "empty": [] })),
    );
    // `none` iterates over nothing: it finishes at once.
    assert_eq!(
        d.events_of("none"),
        [
            StepEventKind::Scheduled,
            StepEventKind::Started,
            StepEventKind::Finished
        ]
    );
    assert_eq!(d.open, vec!["r:read:0", "r:read:1"]);
    assert_eq!(d.sent[1].args, json!({ "path": "a", "all": "a" }));
    d.complete(&mut run, "r:read:0", ok(json!("A")));
    d.complete(&mut run, "r:read:1", ok(json!("B")));
    assert_eq!(d.sent[3].args, json!({ "bodies": ["A", "B"] }));
    d.complete(&mut run, "r:sum", ok(json!(null)));
    assert_eq!(d.finished.unwrap().status, PlanStatus::Ok);
}

#[test]
fn a_foreach_reference_that_is_no_list_fails_the_step() {
    let plan = json!({ "steps": [
        { "id": "list", "tool": "ls" },
        { "id": "read", "tool": "cat", "foreach": "$steps.list.data" },
    ]});
    let (mut run, mut d) = start(plan, 4);
    d.complete(&mut run, "r:list", ok(json!({ "files": 3 })));
    let outcome = d.finished.as_ref().unwrap();
    assert_eq!(outcome.status, PlanStatus::Failed);
    let problem = outcome.step("read").unwrap().problem.clone().unwrap();
    assert_eq!(problem.code, "REFERENCE_ERROR");
    assert_eq!(
        problem.message,
        "step \"read\": foreach $steps.list.data is an object, not a list"
    );
    assert_eq!(
        d.events_of("read"),
        [StepEventKind::Scheduled, StepEventKind::Failed]
    );
}

#[test]
fn a_missing_path_at_run_time_fails_the_step_without_a_call() {
    let plan = json!({ "steps": [
        { "id": "a", "tool": "t" },
        { "id": "b", "tool": "t", "args": { "x": "$steps.a.data.files.3" }, "onError": "continue" },
        { "id": "c", "tool": "t", "args": { "b": "$steps.b.data" } },
    ]});
    let (mut run, mut d) = start(plan, 4);
    d.complete(&mut run, "r:a", ok(json!({ "files": [1] })));
    // b never reached the dispatcher; under `continue`, c runs with b's reference as null.
    assert_eq!(d.open, vec!["r:c"]);
    assert_eq!(d.sent.last().unwrap().args, json!({ "b": null }));
    d.complete(&mut run, "r:c", ok(json!(null)));
    let outcome = d.finished.unwrap();
    assert_eq!(outcome.status, PlanStatus::Ok);
    let b = outcome.step("b").unwrap();
    assert_eq!(b.status, StepStatus::Failed);
    assert!(b.results.is_empty());
    assert_eq!(
        b.problem.as_ref().unwrap().message,
        "step \"b\": reference $steps.a.data.files.3 does not resolve: \"data.files\" has 1 \
         elements, no element 3"
    );
}

#[test]
fn retries_count_attempts_double_their_backoff_and_respect_retryable_false() {
    // (results of each attempt, retry.max, expected status, expected attempts, expected delays)
    type Case = (Vec<Value>, u32, StepStatus, u32, Vec<u64>);
    let cases: Vec<Case> = vec![
        (
            vec![failure(None), failure(Some(true)), ok(json!(1))],
            3,
            StepStatus::Ok,
            3,
            vec![100, 200],
        ),
        (vec![failure(Some(false))], 3, StepStatus::Failed, 1, vec![]),
        (
            vec![failure(None), failure(None), failure(None)],
            2,
            StepStatus::Failed,
            3,
            vec![100, 200],
        ),
        (
            vec![json!({ "status": "cancelled", "content": [] })],
            2,
            StepStatus::Failed,
            1,
            vec![],
        ),
        (
            vec![json!({ "status": "timeout", "retryable": false, "content": [] })],
            2,
            StepStatus::Failed,
            1,
            vec![],
        ),
        (
            vec![failure(None), ok(json!(1))],
            0,
            StepStatus::Failed,
            1,
            vec![],
        ),
    ];
    for (results, max, status, attempts, delays) in cases {
        let plan = json!({ "steps": [
            { "id": "a", "tool": "t", "retry": { "max": max, "backoffMs": 100 } },
        ]});
        let (mut run, mut d) = start(plan, 4);
        for result in results {
            let Some(call_id) = d.open.first().cloned() else {
                break;
            };
            d.complete(&mut run, &call_id, result);
            if let Some((step, index, attempt, _)) = d.waits.last().cloned() {
                if d.open.is_empty() && d.finished.is_none() {
                    assert_eq!(attempt as usize, d.sent.len() + 1);
                    d.take(run.retry_due(&step, index).unwrap());
                }
            }
        }
        let calls: Vec<(u32, &str)> = d
            .sent
            .iter()
            .map(|s| (s.attempt, s.call_id.as_str()))
            .collect();
        let expected: Vec<(u32, String)> = (1..=attempts).map(|n| (n, "r:a".to_string())).collect();
        assert_eq!(
            calls,
            expected
                .iter()
                .map(|(n, id)| (*n, id.as_str()))
                .collect::<Vec<_>>()
        );
        let got: Vec<u64> = d.waits.iter().map(|w| w.3).collect();
        assert_eq!(got, delays);
        assert_eq!(d.status("a"), status);
        assert_eq!(
            d.finished.as_ref().unwrap().results.len(),
            attempts as usize
        );
    }
}

#[test]
fn a_zero_backoff_retries_at_once_and_long_backoffs_are_capped() {
    let plan = json!({ "steps": [
        { "id": "now", "tool": "t", "retry": { "max": 1 } },
        { "id": "late", "tool": "t", "retry": { "max": 100, "backoffMs": 1_000_000 } },
    ]});
    let (mut run, mut d) = start(plan, 4);
    d.complete(&mut run, "r:now", failure(None));
    assert!(d.waits.is_empty());
    assert_eq!(d.open, vec!["r:late", "r:now"]);
    for _ in 1..=13u32 {
        d.complete(&mut run, "r:late", failure(None));
        d.take(run.retry_due("late", None).unwrap());
    }
    let delays: Vec<u64> = d.waits.iter().map(|w| w.3).collect();
    assert_eq!(delays[..3], [1_000_000, 2_000_000, 4_000_000]);
    assert_eq!(*delays.last().unwrap(), super::MAX_DELAY_MS);
}

/// a -> b -> c, with x independent and running alongside a, and y waiting for a slot.
fn on_error_plan(mode: &str) -> Value {
    json!({ "steps": [
        { "id": "a", "tool": "t", "onError": mode },
        { "id": "x", "tool": "t" },
        { "id": "y", "tool": "t" },
        { "id": "b", "tool": "t", "args": { "a": "$steps.a.data" } },
        { "id": "c", "tool": "t", "dependsOn": ["b"] },
    ]})
}

#[test]
fn on_error_fail_skips_dependents_lets_steps_in_flight_finish_and_starts_nothing() {
    let (mut run, mut d) = start(on_error_plan("fail"), 2);
    assert_eq!(d.open, vec!["r:a", "r:x"]);
    d.complete(&mut run, "r:a", failure(None));
    assert_eq!(d.open, vec!["r:x"], "y does not start");
    assert!(d.finished.is_none(), "x is still in flight");
    d.complete(&mut run, "r:x", ok(json!(1)));
    let outcome = d.finished.as_ref().unwrap();
    assert_eq!(outcome.status, PlanStatus::Failed);
    let statuses: Vec<(&str, StepStatus)> = outcome
        .steps
        .iter()
        .map(|s| (s.id.as_str(), s.status))
        .collect();
    assert_eq!(
        statuses,
        [
            ("a", StepStatus::Failed),
            ("x", StepStatus::Ok),
            ("y", StepStatus::Skipped),
            ("b", StepStatus::Skipped),
            ("c", StepStatus::Skipped),
        ]
    );
    assert_eq!(
        outcome.step("a").unwrap().problem.as_ref().unwrap().message,
        "step \"a\" failed on attempt 1: boom"
    );
    assert_eq!(
        outcome.to_json()["steps"]["a"]["error"]["code"],
        "EXECUTION_ERROR"
    );
}

#[test]
fn on_error_continue_runs_dependents_with_null_references() {
    let (mut run, mut d) = start(on_error_plan("continue"), 2);
    d.complete(&mut run, "r:a", failure(None));
    assert_eq!(d.open, vec!["r:x", "r:y"]);
    d.complete(&mut run, "r:x", ok(json!(1)));
    assert_eq!(d.open, vec!["r:y", "r:b"]);
    assert_eq!(d.sent.last().unwrap().args, json!({ "a": null }));
    d.complete(&mut run, "r:b", ok(json!(2)));
    d.complete(&mut run, "r:y", ok(json!(3)));
    d.complete(&mut run, "r:c", ok(json!(4)));
    assert_eq!(d.finished.as_ref().unwrap().status, PlanStatus::Ok);
    assert_eq!(d.status("a"), StepStatus::Failed);
    assert_eq!(d.status("c"), StepStatus::Ok);
}

#[test]
fn on_error_skip_skips_the_step_and_its_dependents_and_goes_on() {
    let (mut run, mut d) = start(on_error_plan("skip"), 2);
    d.complete(&mut run, "r:a", failure(None));
    assert_eq!(d.open, vec!["r:x", "r:y"]);
    d.complete(&mut run, "r:x", ok(json!(1)));
    d.complete(&mut run, "r:y", ok(json!(1)));
    let outcome = d.finished.as_ref().unwrap();
    assert_eq!(outcome.status, PlanStatus::Ok);
    for (step, status) in [
        ("a", StepStatus::Skipped),
        ("b", StepStatus::Skipped),
        ("c", StepStatus::Skipped),
        ("x", StepStatus::Ok),
    ] {
        assert_eq!(d.status(step), status, "{step}");
    }
    assert_eq!(
        outcome.step("c").unwrap().problem.as_ref().unwrap().message,
        "step \"c\" is skipped: its dependency \"b\" was skipped"
    );
    assert_eq!(d.events_of("b"), [StepEventKind::Skipped]);
}

#[test]
fn a_failed_foreach_iteration_stops_new_iterations() {
    let plan = json!({ "steps": [
        { "id": "each", "tool": "t", "foreach": [1, 2, 3, 4], "onError": "skip" },
    ]});
    let (mut run, mut d) = start(plan, 2);
    d.complete(&mut run, "r:each:0", failure(Some(false)));
    assert_eq!(d.open, vec!["r:each:1"], "iteration 2 never starts");
    d.complete(&mut run, "r:each:1", ok(json!(1)));
    assert_eq!(d.status("each"), StepStatus::Skipped);
    assert_eq!(d.finished.unwrap().status, PlanStatus::Ok);
}

#[test]
fn cancel_mid_run_finishes_cancelled_once_calls_in_flight_complete() {
    let plan = json!({ "steps": [
        { "id": "a", "tool": "t" },
        { "id": "b", "tool": "t", "retry": { "max": 3, "backoffMs": 50 } },
        { "id": "c", "tool": "t", "dependsOn": ["a"] },
        { "id": "e", "tool": "t" },
    ]});
    let (mut run, mut d) = start(plan, 2);
    d.complete(&mut run, "r:b", failure(None));
    assert_eq!(d.waits.len(), 1);
    assert_eq!(d.open, vec!["r:a", "r:e"]);
    d.take(run.cancel());
    assert!(d.finished.is_none(), "a and e are in flight");
    // The wait was dropped: its retry never runs.
    d.take(run.retry_due("b", None).unwrap());
    d.complete(&mut run, "r:a", ok(json!(1)));
    d.complete(
        &mut run,
        "r:e",
        json!({ "status": "cancelled", "content": [] }),
    );
    assert_eq!(d.sent.len(), 3, "nothing dispatched after the cancel");
    let outcome = d.finished.as_ref().unwrap();
    assert_eq!(outcome.status, PlanStatus::Cancelled);
    for (step, status) in [
        ("a", StepStatus::Ok),
        ("b", StepStatus::Cancelled),
        ("c", StepStatus::Cancelled),
        ("e", StepStatus::Cancelled),
    ] {
        assert_eq!(d.status(step), status, "{step}");
    }
    assert!(run.cancel().is_empty());
}

#[test]
fn cancel_before_the_start_cancels_every_step() {
    let plan = Plan::from_json(&json!({ "steps": [
        { "id": "a", "tool": "t" }, { "id": "b", "tool": "t", "dependsOn": ["a"] },
    ]}))
    .unwrap();
    let mut run = PlanRun::new(plan, PlanRunOptions::default()).unwrap();
    let mut d = Driver::default();
    d.take(run.cancel());
    assert!(d.sent.is_empty());
    assert_eq!(d.status("a"), StepStatus::Cancelled);
    assert_eq!(d.status("b"), StepStatus::Cancelled);
}

#[test]
fn misuse_is_refused_with_clear_errors() {
    let (mut run, _) = start(json!({ "steps": [{ "id": "a", "tool": "t" }] }), 1);
    let error = run.completed("r:zz", &ok(json!(1))).unwrap_err();
    assert_eq!(error.code, ErrorCode::NotFound);
    assert_eq!(
        error.message,
        "no call \"r:zz\" of plan run \"r\" is in flight"
    );
    let error = run.completed("r:a", &json!("done")).unwrap_err();
    assert_eq!(error.code, ErrorCode::ValidationError);
    assert!(error.message.contains("got a string"), "{}", error.message);
    // The call is still in flight after a refused result.
    assert_eq!(run.in_flight(), 1);
    assert!(run.retry_due("nope", None).is_err());
    let plan = Plan::from_json(&json!({ "steps": [] })).unwrap();
    let zero = PlanRunOptions {
        max_concurrency: 0,
        run_id: None,
    };
    assert!(PlanRun::new(plan.clone(), zero).is_err());
    let mut empty = PlanRun::new(plan, PlanRunOptions::default()).unwrap();
    assert_eq!(empty.run_id(), "plan");
    let actions = empty.next();
    assert!(matches!(actions.as_slice(), [PlanAction::Finished(s)] if s.status == PlanStatus::Ok));
    assert!(empty.is_finished());
    assert!(empty.next().is_empty());
}

#[test]
fn actions_serialize_in_camel_case_with_a_type_tag() {
    let (_, d) = start(
        json!({ "steps": [{ "id": "a", "tool": "t", "timeoutMs": 5, "foreach": [1] }] }),
        1,
    );
    let sent = &d.sent[0];
    let action = PlanAction::Dispatch {
        step_id: sent.step.clone(),
        call_id: sent.call_id.clone(),
        tool: "t".into(),
        args: sent.args.clone(),
        attempt: 1,
        loop_id: sent.loop_id.clone(),
        index: sent.index,
        timeout_ms: Some(5),
        preview: false,
        confirmation_required: false,
    };
    assert_eq!(
        serde_json::to_value(action).unwrap(),
        json!([0, "a", "r:a:0", "t", {}, 1, "r:a", 0, 5, false, false])
    );
}

/// One random plan and one random way of driving it.
#[derive(Debug, Clone)]
struct Scenario {
    /// Per step: dependencies (earlier steps), onError, retries, foreach size.
    steps: Vec<(Vec<usize>, u8, u32, Option<usize>)>,
    max_concurrency: usize,
    /// Choices the driver makes, consumed in turn.
    choices: Vec<u32>,
    cancel_at: Option<usize>,
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (1usize..14, 1usize..5).prop_flat_map(|(count, max_concurrency)| {
        let step = (
            proptest::collection::vec(0usize..count, 0..3),
            0u8..3,
            0u32..3,
            proptest::option::of(0usize..4),
        );
        (
            proptest::collection::vec(step, count),
            Just(max_concurrency),
            proptest::collection::vec(any::<u32>(), 200),
            proptest::option::of(0usize..40),
        )
            .prop_map(|(steps, max_concurrency, choices, cancel_at)| Scenario {
                steps,
                max_concurrency,
                choices,
                cancel_at,
            })
    })
}

fn plan_of(scenario: &Scenario) -> Value {
    let steps: Vec<Value> = scenario
        .steps
        .iter()
        .enumerate()
        .map(|(i, (deps, mode, retries, foreach))| {
            let deps: Vec<String> = deps
                .iter()
                .filter(|&&d| d < i)
                .map(|d| format!("s{d}"))
                .collect();
            let on_error = ["fail", "continue", "skip"][*mode as usize];
            let mut step = json!({
                "id": format!("s{i}"), "tool": "t", "dependsOn": deps,
                "onError": on_error,
                "retry": { "max": retries, "backoffMs": 10 },
            });
            if let Some(n) = foreach {
                step["foreach"] = json!((0..*n).collect::<Vec<_>>());
            }
            step
        })
        .collect();
    json!({ "steps": steps })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_plans_always_finish_with_every_step_ended_within_the_limit(s in scenario()) {
        let plan = Plan::from_json(&plan_of(&s)).unwrap();
        let count = plan.steps().len();
        let mut run = PlanRun::new(plan, PlanRunOptions { max_concurrency: s.max_concurrency, run_id: None }).unwrap();
        let mut d = Driver::default();
        d.take(run.next());
        let mut choices = s.choices.iter().copied().cycle();
        let mut waits: Vec<(String, Option<usize>)> = Vec::new();
        let mut seen_waits = 0;
        let mut turn = 0;
        while d.finished.is_none() {
            turn += 1;
            prop_assert!(turn < 10_000, "the run never finished");
            prop_assert!(run.in_flight() <= s.max_concurrency);
            waits.extend(d.waits[seen_waits..].iter().map(|w| (w.0.clone(), w.1)));
            seen_waits = d.waits.len();
            if Some(turn) == s.cancel_at {
                d.take(run.cancel());
                continue;
            }
            let choice = choices.next().unwrap_or(0) as usize;
            let total = d.open.len() + waits.len();
            prop_assert!(total > 0, "stalled: nothing in flight, nothing waiting");
            let pick = choice % total;
            if pick < d.open.len() {
                let call_id = d.open[pick].clone();
                let result = match choice % 5 {
                    0 => failure(None),
                    1 => failure(Some(false)),
                    _ => ok(json!(choice)),
                };
                d.complete(&mut run, &call_id, result);
            } else {
                let (step, index) = waits.remove(pick - d.open.len());
                d.take(run.retry_due(&step, index).unwrap());
            }
        }
        prop_assert!(d.most_open <= s.max_concurrency);
        prop_assert!(d.open.is_empty(), "Finished with calls in flight");
        let outcome = d.finished.as_ref().unwrap();
        prop_assert_eq!(outcome.steps.len(), count);
        let terminal = [StepEventKind::Finished, StepEventKind::Failed, StepEventKind::Skipped, StepEventKind::Cancelled];
        let mut ends: HashMap<&str, usize> = HashMap::new();
        for (kind, step) in &d.events {
            if terminal.contains(kind) {
                *ends.entry(step.as_str()).or_default() += 1;
            }
        }
        for step in &outcome.steps {
            prop_assert_eq!(ends.get(step.id.as_str()).copied(), Some(1), "step {} ends once", step.id);
        }
        if outcome.status == PlanStatus::Ok {
            prop_assert!(outcome.steps.iter().all(|s| s.status != StepStatus::Cancelled));
        }
    }
}

#[test]
fn step_events_carry_the_tool_the_loop_id_and_the_confirmation_mark() {
    let plan = Plan::from_json(&json!({ "confirmationsRequired": ["each"], "steps": [
        { "id": "one", "tool": "t" },
        { "id": "each", "tool": "u", "dependsOn": ["one"], "foreach": [1, 2] },
    ]}))
    .unwrap();
    let options = PlanRunOptions {
        max_concurrency: 4,
        run_id: Some("r".into()),
    };
    let mut run = PlanRun::new(plan, options).unwrap();
    let mut events = Vec::new();
    let mut open = Vec::new();
    let mut actions = run.next();
    loop {
        for action in actions.drain(..) {
            match action {
                PlanAction::StepEvent {
                    kind,
                    step_id,
                    tool,
                    loop_id,
                    confirmation_required,
                    ..
                } => events.push((step_id, kind, tool, loop_id, confirmation_required)),
                PlanAction::Dispatch { call_id, .. } => open.push(call_id),
                _ => {}
            }
        }
        let Some(call) = open.pop() else { break };
        actions = run.completed(&call, &ok(json!(null))).unwrap();
    }
    let each = |kind| {
        (
            "each".to_string(),
            kind,
            "u".to_string(),
            Some("r:each".to_string()),
            true,
        )
    };
    let one = |kind| ("one".to_string(), kind, "t".to_string(), None, false);
    assert_eq!(
        events,
        [
            one(StepEventKind::Scheduled),
            one(StepEventKind::Started),
            one(StepEventKind::Finished),
            each(StepEventKind::Scheduled),
            each(StepEventKind::Started),
            each(StepEventKind::Finished),
        ]
    );
}
