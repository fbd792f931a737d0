//! Tests of plan validation: every refusal names its path, step and reference.

use serde_json::{json, Value};

use super::{Foreach, OnError, Plan, RetryPolicy};
use crate::error::{ErrorCode, Fault};

fn refusal(plan: Value) -> (ErrorCode, String) {
    let error = Plan::from_json(&plan).expect_err("the plan should be refused");
    assert_eq!(error.fault, Fault::Caller);
    (error.code, error.message)
}

#[test]
fn invalid_plans_are_refused_naming_what_is_wrong() {
    let cases: Vec<(Value, &str)> = vec![
        (json!([]), "plan must be an object, got []"),
        (json!({}), "plan.steps is missing"),
        (
            json!({ "steps": {} }),
            "plan.steps must be an array, got {}",
        ),
        (
            json!({ "steps": [], "extra": 1 }),
            "plan has unknown key \"extra\" (expected one of: runId, vars, steps, \
             confirmationsRequired)",
        ),
        (
            json!({ "runId": 3, "steps": [] }),
            "plan.runId must be a string, got 3",
        ),
        (
            json!({ "vars": [], "steps": [] }),
            "plan.vars must be an object, got []",
        ),
        (
            json!({ "steps": [1] }),
            "plan.steps[0] must be an object, got 1",
        ),
        (
            json!({ "steps": [{ "tool": "t" }] }),
            "plan.steps[0].id is missing",
        ),
        (
            json!({ "steps": [{ "id": "a b", "tool": "t" }] }),
            "plan.steps[0].id must match [A-Za-z0-9_.-]{1,128}, got \"a b\"",
        ),
        (
            json!({ "steps": [{ "id": "", "tool": "t" }] }),
            "plan.steps[0].id must match [A-Za-z0-9_.-]{1,128}, got \"\"",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t" }, { "id": "a", "tool": "t" }] }),
            "plan.steps[1].id \"a\" repeats the id of plan.steps[0]",
        ),
        (
            json!({ "steps": [{ "id": "a" }] }),
            "plan.steps[0].tool is missing",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "" }] }),
            "plan.steps[0].tool must not be empty",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "args": [1] }] }),
            "plan.steps[0].args must be an object, got [1]",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "dependOn": ["b"] }] }),
            "plan.steps[0] has unknown key \"dependOn\" (expected one of: id, tool, args, \
             dependsOn, foreach, retry, onError, captureAs, preview, timeoutMs); did you mean \
             \"dependsOn\"?",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "dependsOn": ["x"] }] }),
            "plan.steps[0].dependsOn[0]: step \"a\" depends on an unknown step \"x\"",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "dependsOn": ["a"] }] }),
            "plan.steps[0].dependsOn[0]: step \"a\" depends on itself",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t" },
                              { "id": "b", "tool": "t", "args": { "x": "$steps.x.data" } }] }),
            "step \"b\": reference $steps.x.data is to an unknown step \"x\"",
        ),
        (
            json!({ "steps": [{ "id": "b", "tool": "t", "args": { "x": ["$steps.b.data"] } }] }),
            "step \"b\": reference $steps.b.data is to the step itself",
        ),
        (
            json!({ "vars": { "dir": "/tmp" },
                    "steps": [{ "id": "b", "tool": "t", "args": { "x": "$vars.home" } }] }),
            "step \"b\": reference $vars.home is to an unknown var \"home\"",
        ),
        (
            json!({ "vars": { "dir": "/tmp" },
                    "steps": [{ "id": "b", "tool": "t", "args": { "x": "$vars.dir.name" } }] }),
            "step \"b\": reference $vars.dir.name does not resolve: the value is a string, \
             which has no \"name\"",
        ),
        (
            json!({ "steps": [{ "id": "b", "tool": "t", "args": { "x": "file {item.name}" } }] }),
            "step \"b\": reference {item.name} is outside a foreach (the step has no foreach)",
        ),
        (
            json!({ "steps": [{ "id": "b", "tool": "t", "args": { "n": "{index}" } }] }),
            "step \"b\": reference {index} is outside a foreach (the step has no foreach)",
        ),
        (
            json!({ "steps": [{ "id": "b", "tool": "t", "foreach": "{item}" }] }),
            "step \"b\": foreach must be a list or one $steps/$vars reference, got \"{item}\"",
        ),
        (
            json!({ "steps": [{ "id": "b", "tool": "t", "foreach": "$steps.zz" }] }),
            "step \"b\": reference $steps.zz is to an unknown step \"zz\"",
        ),
        (
            json!({ "steps": [{ "id": "b", "tool": "t", "foreach": 3 }] }),
            "plan.steps[0].foreach must be a list or a reference string, got 3",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t" }, { "id": "b", "tool": "t" },
                              { "id": "c", "tool": "t", "retry": { "max": -1 } }] }),
            "plan.steps[2].retry.max must be a whole number >= 0, got -1",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "retry": { "max": 1.5 } }] }),
            "plan.steps[0].retry.max must be a whole number >= 0, got 1.5",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "retry": { "backoffMs": 5 } }] }),
            "plan.steps[0].retry.max is missing",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "retry": { "max": 101 } }] }),
            "plan.steps[0].retry.max must be at most 100, got 101",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "retry": { "max": 1, "backoffMs": "1s" } }] }),
            "plan.steps[0].retry.backoffMs must be a whole number >= 0, got \"1s\"",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "retry": 3 }] }),
            "plan.steps[0].retry must be an object { max, backoffMs }, got 3",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "onError": "ignore" }] }),
            "plan.steps[0].onError must be \"fail\", \"continue\" or \"skip\", got \"ignore\"",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "timeoutMs": 0 }] }),
            "plan.steps[0].timeoutMs must be a whole number >= 1, got 0",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "preview": "yes" }] }),
            "plan.steps[0].preview must be a boolean, got a string",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "captureAs": "a.b" }] }),
            "plan.steps[0].captureAs must match [A-Za-z0-9_-]{1,128}, got \"a.b\"",
        ),
        (
            json!({ "vars": { "x": 1 }, "steps": [{ "id": "a", "tool": "t", "captureAs": "x" }] }),
            "plan.steps[0].captureAs \"x\" is already a plan var",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "captureAs": "x" },
                              { "id": "b", "tool": "t", "captureAs": "x" }] }),
            "plan.steps[1].captureAs \"x\" is already captured by plan.steps[0]",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t", "captureAs": "x", "args": { "v": "$vars.x" } }] }),
            "step \"a\": reference $vars.x is to the step's own captureAs \"x\"",
        ),
        (
            json!({ "steps": [{ "id": "a", "tool": "t" }], "confirmationsRequired": ["b"] }),
            "plan.confirmationsRequired[0] names an unknown step \"b\"",
        ),
        (
            json!({ "steps": [], "confirmationsRequired": 2 }),
            "plan.confirmationsRequired must be a boolean or a list of step ids, got 2",
        ),
    ];
    for (plan, message) in cases {
        assert_eq!(
            refusal(plan.clone()),
            (ErrorCode::PlanInvalid, message.to_string()),
            "{plan}"
        );
    }
}

#[test]
fn a_cycle_is_named_in_order() {
    let plan = json!({ "steps": [
        { "id": "start", "tool": "t" },
        { "id": "a", "tool": "t", "dependsOn": ["b"] },
        { "id": "b", "tool": "t", "dependsOn": ["start", "c"] },
        // The reference adds the dependency that closes the cycle.
        { "id": "c", "tool": "t", "args": { "x": "$steps.a.data" } },
    ]});
    assert_eq!(
        refusal(plan),
        (
            ErrorCode::PlanInvalid,
            "plan.steps have a dependency cycle: \"a\" -> \"b\" -> \"c\" -> \"a\" (each depends \
             on the next)"
                .to_string()
        )
    );
}

#[test]
fn limits_are_limit_exceeded() {
    let steps: Vec<Value> = (0..10_001)
        .map(|i| json!({ "id": format!("s{i}"), "tool": "t" }))
        .collect();
    let (code, message) = refusal(json!({ "steps": steps }));
    assert_eq!(code, ErrorCode::LimitExceeded);
    assert_eq!(
        message,
        "plan.steps has 10001 steps, more than the limit of 10000"
    );
    let items: Vec<u32> = (0..10_001).collect();
    let (code, message) =
        refusal(json!({ "steps": [{ "id": "a", "tool": "t", "foreach": items }] }));
    assert_eq!(code, ErrorCode::LimitExceeded);
    assert!(
        message.contains("step \"a\" lists 10001 items"),
        "{message}"
    );
}

#[test]
fn a_valid_plan_reads_every_field_and_adds_implicit_dependencies() {
    let plan = Plan::from_json(&json!({
        "runId": "r1",
        "vars": { "dir": "/tmp" },
        "confirmationsRequired": ["write"],
        "steps": [
            { "id": "list", "tool": "ls", "args": { "path": "$vars.dir" }, "captureAs": "files" },
            { "id": "other.step", "tool": "noop" },
            {
                "id": "write", "tool": "write",
                "args": { "name": "{item.name}", "also": "$steps.other.step.data", "all": "$vars.files" },
                "foreach": "$steps.list.data.files",
                "retry": { "max": 2, "backoffMs": 100 },
                "onError": "continue", "preview": true, "timeoutMs": 500
            },
        ]
    }))
    .unwrap();
    assert_eq!(plan.run_id(), Some("r1"));
    assert_eq!(plan.vars()["dir"], json!("/tmp"));
    let [list, other, write] = plan.steps() else {
        panic!("three steps");
    };
    assert_eq!((list.id(), list.tool()), ("list", "ls"));
    assert_eq!(list.capture_as(), Some("files"));
    assert_eq!(list.depends_on(), &[] as &[usize]);
    assert_eq!(other.args(), &json!({}));
    assert_eq!(other.retry(), RetryPolicy::default());
    assert_eq!(other.on_error(), OnError::Fail);
    assert!(!other.needs_confirmation());
    // Explicitly nothing, implicitly `list` (foreach, captureAs) and `other.step`.
    assert_eq!(write.depends_on(), &[0, 1]);
    assert!(matches!(write.foreach(), Some(Foreach::Reference(_))));
    assert_eq!(
        write.retry(),
        RetryPolicy {
            max: 2,
            backoff_ms: 100
        }
    );
    assert_eq!(write.on_error(), OnError::Continue);
    assert!(write.preview());
    assert_eq!(write.timeout_ms(), Some(500));
    assert!(write.needs_confirmation());
}

#[test]
fn null_optional_fields_take_their_defaults() {
    let plan = Plan::from_json(&json!({
        "runId": null, "vars": null, "confirmationsRequired": true,
        "steps": [{ "id": "a", "tool": "t", "args": null, "dependsOn": null, "retry": null,
                    "onError": null, "captureAs": null, "preview": null, "timeoutMs": null,
                    "foreach": null }]
    }))
    .unwrap();
    assert_eq!(plan.run_id(), None);
    let step = &plan.steps()[0];
    assert!(step.foreach().is_none());
    assert!(step.needs_confirmation());
    assert_eq!(step.timeout_ms(), None);
}
