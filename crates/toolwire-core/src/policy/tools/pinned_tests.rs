//! Tests that pin what issue 6 names: what each built-in group and profile lets through, and
//! the order of the layers (the earlier of two refusing layers is the one named).

use serde_json::{json, Value};

use super::{Decision, PolicyConfig, PolicyContext, ToolPolicy, BUILTIN_GROUPS};

/// Every name a built-in group or profile mentions, plus names none of them does.
const UNIVERSE: &[&str] = &[
    "read",
    "write",
    "edit",
    "apply_patch",
    "exec",
    "process",
    "web_search",
    "web_fetch",
    "memory_search",
    "memory_get",
    "sessions_list",
    "sessions_history",
    "sessions_send",
    "sessions_spawn",
    "session_status",
    "browser",
    "canvas",
    "cron",
    "gateway",
    "message",
    "nodes",
    "image",
    "plugin_tool",
    "anything_else",
];

fn decide(policy: &Value, ctx: &Value, tool: &str) -> Decision {
    let config = PolicyConfig::from_json(policy, "policy").expect("valid policy");
    let ctx = PolicyContext::from_json(ctx).expect("valid context");
    ToolPolicy::new(config).decide(tool, &ctx, &|name| name == "plugin_tool")
}

/// The names of [`UNIVERSE`] that `policy` allows with no context.
fn allowed(policy: &Value) -> Vec<&'static str> {
    UNIVERSE
        .iter()
        .copied()
        .filter(|tool| decide(policy, &json!({}), tool).allowed)
        .collect()
}

#[test]
fn each_builtin_group_lets_through_exactly_its_members() {
    let expected: &[(&str, &[&str])] = &[
        ("fs", &["read", "write", "edit", "apply_patch"]),
        ("runtime", &["exec", "process"]),
        ("web", &["web_search", "web_fetch"]),
        ("memory", &["memory_search", "memory_get"]),
        (
            "sessions",
            &[
                "sessions_list",
                "sessions_history",
                "sessions_send",
                "sessions_spawn",
                "session_status",
            ],
        ),
        ("ui", &["browser", "canvas"]),
        ("automation", &["cron", "gateway"]),
        ("messaging", &["message"]),
        ("nodes", &["nodes"]),
        ("plugins", &["plugin_tool"]),
    ];
    assert_eq!(expected.len(), BUILTIN_GROUPS.len());
    for (group, members) in expected {
        let policy = json!({ "allow": [format!("group:{group}")] });
        assert_eq!(allowed(&policy), *members, "group:{group}");
    }
}

#[test]
fn each_builtin_profile_lets_through_exactly_its_tools() {
    let expected: &[(&str, &[&str])] = &[
        ("minimal", &["session_status"]),
        (
            "coding",
            &[
                "read",
                "write",
                "edit",
                "apply_patch",
                "exec",
                "process",
                "memory_search",
                "memory_get",
                "sessions_list",
                "sessions_history",
                "sessions_send",
                "sessions_spawn",
                "session_status",
                "image",
            ],
        ),
        (
            "messaging",
            &["sessions_list", "sessions_history", "message"],
        ),
        ("full", UNIVERSE),
    ];
    for (profile, tools) in expected {
        let policy = json!({ "profile": profile });
        assert_eq!(allowed(&policy), *tools, "profile {profile}");
    }
}

/// The layers in their documented order, each with a policy fragment that refuses `exec` in the
/// context of [`context`], and the rule it names.
const LAYERS: &[(&str, &str, &str)] = &[
    (
        "profile",
        r#"{ "profile": "minimal" }"#,
        "not in profile minimal",
    ),
    (
        "providerProfile",
        r#"{ "byProvider": { "openai": { "profile": "messaging" } } }"#,
        "not in profile messaging",
    ),
    ("global", r#"{ "deny": ["exec"] }"#, "deny: exec"),
    (
        "provider",
        r#"{ "byProvider": { "openai": { "deny": ["group:runtime"] } } }"#,
        "deny: group:runtime",
    ),
    (
        "agent",
        r#"{ "agents": { "a1": { "deny": ["bash"] } } }"#,
        "deny: exec",
    ),
    (
        "agentProvider",
        r#"{ "agents": { "a1": { "byProvider": { "openai": { "deny": ["exec*"] } } } } }"#,
        "deny: exec*",
    ),
    (
        "sender",
        r#"{ "senders": { "u1": { "allow": ["read"] } } }"#,
        "not in allow: read",
    ),
];

/// A context every layer applies to.
fn context() -> Value {
    json!({ "provider": "openai", "agentId": "a1", "sender": { "id": "u1", "isOwner": true } })
}

/// `base` with `extra` merged in, objects merged key by key.
fn merged(mut base: Value, extra: &Value) -> Value {
    match (&mut base, extra) {
        (Value::Object(into), Value::Object(from)) => {
            for (key, value) in from {
                let slot = into.remove(key).unwrap_or(Value::Null);
                into.insert(key.clone(), merged(slot, value));
            }
            base
        }
        _ => extra.clone(),
    }
}

fn policy_of(layers: &[&(&str, &str, &str)]) -> Value {
    layers.iter().fold(json!({}), |policy, (_, fragment, _)| {
        merged(policy, &serde_json::from_str(fragment).unwrap())
    })
}

#[test]
fn each_layer_alone_refuses_with_its_own_name() {
    for layer @ (name, _, rule) in LAYERS {
        let decision = decide(&policy_of(&[layer]), &context(), "exec");
        let expected = Decision {
            allowed: false,
            layer: Some(name),
            rule: Some(rule.to_string()),
        };
        assert_eq!(decision, expected, "{name}");
    }
}

#[test]
fn of_two_adjacent_refusing_layers_the_earlier_is_named() {
    let expected_order = [
        "profile",
        "providerProfile",
        "global",
        "provider",
        "agent",
        "agentProvider",
        "sender",
    ];
    let names: Vec<&str> = LAYERS.iter().map(|(name, _, _)| *name).collect();
    assert_eq!(names, expected_order);
    for pair in LAYERS.windows(2) {
        let (earlier, later) = (&pair[0], &pair[1]);
        let decision = decide(&policy_of(&[earlier, later]), &context(), "exec");
        assert_eq!(
            decision,
            Decision {
                allowed: false,
                layer: Some(earlier.0),
                rule: Some(earlier.2.to_string()),
            },
            "{} before {}",
            earlier.0,
            later.0
        );
        // Written the other way round in the policy, the order is the same.
        let decision = decide(&policy_of(&[later, earlier]), &context(), "exec");
        assert_eq!(decision.layer, Some(earlier.0));
    }
}

#[test]
fn with_every_layer_refusing_each_in_turn_is_named_as_the_earlier_ones_go() {
    for first in 0..LAYERS.len() {
        let layers: Vec<_> = LAYERS[first..].iter().collect();
        let decision = decide(&policy_of(&layers), &context(), "exec");
        assert_eq!(decision.layer, Some(LAYERS[first].0));
        assert!(!decision.allowed);
    }
}
