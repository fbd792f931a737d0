//! The dispatcher consulting the policy: refused calls end `blocked` without running.

use serde_json::{json, Value};

use super::tests::{at, events, started, Harness};
use super::*;
use crate::output::ToolOutcome;
use crate::policy::approvals::{ApprovalDecision, ApprovalRequest};
use crate::policy::tools::PolicyContext;

fn gate(policy: Value, root: Value, loops: Value) -> PolicyGate {
    PolicyGate::from_options(&policy, &root, &loops, &Value::Null).unwrap()
}

fn context(value: Value) -> PolicyContext {
    PolicyContext::from_json(&value).unwrap()
}

fn with_context(value: Value) -> BatchOptions {
    BatchOptions {
        context: context(value),
        ..events()
    }
}

fn code(h: &Harness, call: CallRef) -> (ToolStatus, ErrorCode) {
    let result = h.result(call);
    (result.status, result.error.expect("an error").code)
}

#[test]
fn a_denied_call_is_blocked_before_anything_runs_even_with_bad_arguments() {
    let policy = json!({ "deny": ["exec"], "byProvider": { "openai": { "deny": ["read"] } } });
    let mut h = Harness::with_gate(16, gate(policy, Value::Null, Value::Null));
    h.tool("exec", json!({}));
    h.tool("read", json!({}));
    let options = BatchOptions {
        hooks: Hooks {
            before: true,
            ..Hooks::default()
        },
        ..with_context(json!({ "provider": "OpenAI" }))
    };
    let actions = h.open(
        1,
        &[("a", "exec", "{not json"), ("b", "read", "{}")],
        options,
    );
    assert!(started(&actions).is_empty());
    assert!(!actions
        .iter()
        .any(|a| matches!(a, Action::BeforeHook { .. })));
    for slot in 0..2 {
        assert_eq!(
            code(&h, at(1, slot)),
            (ToolStatus::Blocked, ErrorCode::PolicyDenied)
        );
    }
    let exec = h.result(at(1, 0)).error.unwrap();
    assert_eq!(
        exec.details,
        Some(json!({ "layer": "global", "rule": "deny: exec" }))
    );
    assert_eq!(
        h.result(at(1, 1)).error.unwrap().details,
        Some(json!({ "layer": "provider", "rule": "deny: read" }))
    );
    // Another provider may call read.
    let actions = h.open(2, &[("c", "read", "{}")], with_context(json!({})));
    assert_eq!(started(&actions), vec![at(2, 0)]);
}

#[test]
fn owner_only_tools_run_for_the_owner_alone() {
    let mut h = Harness::new(16);
    h.tool("admin", json!({ "ownerOnly": true }));
    let owner = json!({ "sender": { "id": "u1", "isOwner": true } });
    let actions = h.open(1, &[("a", "admin", "{}")], with_context(owner));
    assert_eq!(started(&actions), vec![at(1, 0)]);
    h.open(
        2,
        &[("b", "admin", "{}")],
        with_context(json!({ "sender": { "id": "u2" } })),
    );
    h.open(3, &[("c", "admin", "{}")], events());
    for batch in [2, 3] {
        assert_eq!(
            code(&h, at(batch, 0)),
            (ToolStatus::Blocked, ErrorCode::PolicyDenied)
        );
    }
    assert!(h
        .result(at(3, 0))
        .error
        .unwrap()
        .message
        .contains("no sender"));
}

#[test]
fn workspace_paths_are_checked_on_the_final_arguments() {
    let dir = std::env::temp_dir().join(format!("toolwire-dispatch-ws-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = json!(dir.to_str().unwrap());
    let mut h = Harness::with_gate(16, gate(Value::Null, root, Value::Null));
    h.tool("write", json!({ "workspaceOnly": true }));
    let actions = h.open(
        1,
        &[
            ("a", "write", r#"{"path": "notes.txt"}"#),
            ("b", "write", r#"{"path": "/etc/passwd"}"#),
        ],
        events(),
    );
    assert_eq!(started(&actions), vec![at(1, 0)]);
    assert_eq!(
        code(&h, at(1, 1)),
        (ToolStatus::Blocked, ErrorCode::PolicyDenied)
    );
    // A hook that rewrites the path outside is caught too.
    let options = BatchOptions {
        hooks: Hooks {
            before: true,
            ..Hooks::default()
        },
        ..events()
    };
    h.open(2, &[("c", "write", r#"{"path": "ok.txt"}"#)], options);
    let actions = h.answer(
        at(2, 0),
        CompletionKind::BeforeAnswered(json!({ "params": { "path": "../../x" } })),
    );
    assert!(started(&actions).is_empty());
    assert_eq!(
        code(&h, at(2, 0)),
        (ToolStatus::Blocked, ErrorCode::PolicyDenied)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_repeating_a_call_is_warned_then_blocked() {
    let loops = json!({ "warnAt": 2, "blockAt": 3 });
    let mut h = Harness::with_gate(16, gate(Value::Null, Value::Null, loops));
    h.tool("read", json!({}));
    let run = |batch_events: bool| BatchOptions {
        run_id: Some("run-1".into()),
        events: batch_events,
        ..BatchOptions::default()
    };
    let warnings = |actions: &[Action]| -> Vec<u32> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::LoopWarning { count, .. } => Some(*count),
                _ => None,
            })
            .collect()
    };
    // Keys are canonical: the same arguments in another key order are the same call.
    let first = h.open(1, &[("a", "read", r#"{"path": "x"}"#)], run(true));
    assert!(warnings(&first).is_empty());
    let second = h.open(2, &[("b", "read", r#"{ "path":"x" }"#)], run(true));
    assert_eq!(warnings(&second), vec![2]);
    assert_eq!(started(&second), vec![at(2, 0)]);
    let other = h.open(3, &[("c", "read", r#"{"path": "y"}"#)], run(false));
    assert_eq!(started(&other), vec![at(3, 0)]);
    let third = h.open(4, &[("d", "read", r#"{"path": "x"}"#)], run(false));
    assert!(started(&third).is_empty());
    assert_eq!(
        code(&h, at(4, 0)),
        (ToolStatus::Blocked, ErrorCode::Blocked)
    );
    assert!(h
        .result(at(4, 0))
        .error
        .unwrap()
        .message
        .contains("3 times"));
    // Without a run id nothing is counted; another run counts from zero.
    for batch in 5..9 {
        let actions = h.open(batch, &[("e", "read", r#"{"path": "x"}"#)], events());
        assert_eq!(started(&actions), vec![at(batch, 0)]);
    }
    let other_run = BatchOptions {
        run_id: Some("run-2".into()),
        ..events()
    };
    let actions = h.open(9, &[("f", "read", r#"{"path": "x"}"#)], other_run);
    assert_eq!(started(&actions), vec![at(9, 0)]);
    // The calls that ran still end normally.
    h.settle(at(1, 0), ToolOutcome::Returned(json!("done")));
    assert_eq!(h.result(at(1, 0)).status, ToolStatus::Ok);
}

#[test]
fn loop_detection_can_be_turned_off() {
    let mut h = Harness::with_gate(16, gate(Value::Null, Value::Null, json!(false)));
    h.tool("read", json!({}));
    for batch in 1..=12 {
        let options = BatchOptions {
            run_id: Some("run".into()),
            ..events()
        };
        let actions = h.open(batch, &[("a", "read", "{}")], options);
        assert_eq!(started(&actions), vec![at(batch, 0)]);
    }
}

fn approvals_gate(approvals: Value) -> PolicyGate {
    PolicyGate::from_options(&Value::Null, &Value::Null, &Value::Null, &approvals).unwrap()
}

fn approval_request(actions: &[Action]) -> (CallRef, u32, ApprovalRequest) {
    actions
        .iter()
        .find_map(|a| match a {
            Action::Approval {
                call,
                token,
                request,
            } => Some((*call, *token, (**request).clone())),
            _ => None,
        })
        .expect("an approval request")
}

#[test]
fn a_call_that_needs_approval_waits_for_the_answer_or_the_fallback() {
    let gate =
        approvals_gate(json!({ "hasCallback": true, "timeoutMs": 50, "allowTools": ["read"] }));
    let mut h = Harness::with_gate(16, gate);
    h.tool("read", json!({}));
    h.tool("write", json!({}));
    let actions = h.open(
        1,
        &[
            ("a", "read", "{}"),
            ("b", "write", "{}"),
            ("c", "write", "{}"),
        ],
        events(),
    );
    assert_eq!(started(&actions), vec![at(1, 0)]);
    let asked: Vec<_> = actions
        .iter()
        .filter(|a| matches!(a, Action::Approval { .. }))
        .collect();
    assert_eq!(asked.len(), 2);
    let (call, token, request) = approval_request(&actions);
    assert_eq!(call, at(1, 1));
    assert_eq!(request.tool_name, "write");
    assert_eq!(
        request.reason,
        "tool \"write\" is not in approvals.allowTools"
    );
    let answered = h.complete(vec![Completion {
        call,
        token,
        kind: CompletionKind::ApprovalAnswered(json!("allow-once")),
        ran: None,
    }]);
    assert_eq!(started(&answered), vec![at(1, 1)]);
    // The third call's answer never comes: askFallback (deny) refuses it at the deadline.
    h.advance(50);
    assert_eq!(
        code(&h, at(1, 2)),
        (ToolStatus::Blocked, ErrorCode::PolicyDenied)
    );
    // A late answer is ignored.
    let late = h.complete(vec![Completion {
        call: at(1, 2),
        token: token + 1,
        kind: CompletionKind::ApprovalAnswered(json!("allow-once")),
        ran: None,
    }]);
    assert!(started(&late).is_empty());
}

#[test]
fn without_a_callback_the_call_ends_pending_and_resumes_once() {
    let gate = approvals_gate(json!({ "ask": "always" }));
    let mut h = Harness::with_gate(16, gate);
    h.tool("write", json!({}));
    let options = BatchOptions {
        run_id: Some("r".into()),
        ..events()
    };
    let actions = h.open(1, &[("a", "write", r#"{"path": "x"}"#)], options);
    assert!(started(&actions).is_empty());
    let pending = h.result(at(1, 0));
    assert_eq!(pending.status, ToolStatus::Pending);
    assert_eq!(
        pending.error.as_ref().unwrap().code,
        ErrorCode::ApprovalRequired
    );
    let id = pending.details.unwrap()["approvalId"]
        .as_str()
        .unwrap()
        .to_string();
    let mut resume = |batch: u32| {
        let decision = ApprovalDecision::AllowOnce;
        h.dispatcher
            .resume(&h.registry, batch, &id, decision, true, h.now)
    };
    let (call, actions) = resume(2).unwrap();
    assert_eq!(
        (
            call.id.as_str(),
            call.arguments.clone(),
            call.run_id.as_deref()
        ),
        ("a", json!({ "path": "x" }), Some("r"))
    );
    assert_eq!(started(&actions), vec![at(2, 0)]);
    let again = resume(3).err().expect("resolved once");
    assert_eq!(again.code, ErrorCode::NotFound);
}
