//! Parsing and validation of the `policy` option and of the per-call [`PolicyContext`].

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::names::{builtin_group, builtin_profile, canonical_tool_name, GROUP_PREFIX};
use super::names::{BUILTIN_GROUPS, BUILTIN_PROFILES};
use crate::error::{Error, ErrorCode, Result};

/// The longest rendering of an offending value in an error message, in bytes (see
/// [`crate::quote::bounded_to`]).
const MAX_SHOWN: usize = 60;

/// One allow/deny pair of patterns (normalized: lowercase, aliases resolved).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Rules {
    /// The allow patterns; `None` when the key was absent.
    pub(super) allow: Option<Vec<String>>,
    /// The deny patterns.
    pub(super) deny: Vec<String>,
}

/// `byProvider[provider]` of the global policy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct ProviderRules {
    /// The provider's profile (lowercase), checked in the `providerProfile` layer.
    pub(super) profile: Option<String>,
    /// The provider's allow/deny lists, checked in the `provider` layer.
    pub(super) rules: Rules,
}

/// `agents[agentId]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct AgentRules {
    /// The agent's allow/deny lists (`agent` layer).
    pub(super) rules: Rules,
    /// The agent's lists per provider (`agentProvider` layer), keyed by lowercase provider.
    pub(super) by_provider: BTreeMap<String, Rules>,
}

/// The validated `policy` option. The default is an empty policy: every tool allowed.
///
/// Built only by [`PolicyConfig::from_json`], so every profile and group it references exists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PolicyConfig {
    pub(super) profile: Option<String>,
    pub(super) also_allow: Vec<String>,
    pub(super) global: Rules,
    pub(super) by_provider: BTreeMap<String, ProviderRules>,
    pub(super) agents: BTreeMap<String, AgentRules>,
    pub(super) senders: BTreeMap<String, Rules>,
    /// User groups by bare lowercase name, members normalized.
    pub(super) groups: BTreeMap<String, Vec<String>>,
    /// User profiles by lowercase name.
    pub(super) profiles: BTreeMap<String, Rules>,
}

impl PolicyConfig {
    /// Parses the `policy` option found at path `at` (e.g. `"policy"`). `null` is an empty
    /// policy; so is an absent or `null` key. Unknown keys, wrong types, empty patterns, unknown
    /// profiles and unknown `group:` references are refused with a `VALIDATION_ERROR` naming
    /// the path, e.g. `policy.byProvider.openai.allow[1] must be a string, got 3`.
    pub fn from_json(value: &Value, at: &str) -> Result<PolicyConfig> {
        if value.is_null() {
            return Ok(PolicyConfig::default());
        }
        let map = object(value, at)?;
        check_keys(
            map,
            at,
            &[
                "profile",
                "allow",
                "deny",
                "alsoAllow",
                "byProvider",
                "agents",
                "senders",
                "groups",
                "profiles",
            ],
        )?;
        let mut config = PolicyConfig {
            groups: parse_groups(field(map, "groups"), &format!("{at}.groups"))?,
            ..PolicyConfig::default()
        };
        config.profiles = parse_profiles(field(map, "profiles"), &format!("{at}.profiles"))?;
        config.profile = optional_name(field(map, "profile"), &format!("{at}.profile"))?;
        config.also_allow =
            patterns(field(map, "alsoAllow"), &format!("{at}.alsoAllow"))?.unwrap_or_default();
        config.global = rules(map, at)?;
        if let Some(providers) = field(map, "byProvider") {
            let at = format!("{at}.byProvider");
            for (provider, entry) in object(providers, &at)? {
                let at = format!("{at}.{provider}");
                let entry_map = object(entry, &at)?;
                check_keys(entry_map, &at, &["profile", "allow", "deny"])?;
                let parsed = ProviderRules {
                    profile: optional_name(field(entry_map, "profile"), &format!("{at}.profile"))?,
                    rules: rules(entry_map, &at)?,
                };
                insert_unique(&mut config.by_provider, provider, parsed, &at)?;
            }
        }
        if let Some(agents) = field(map, "agents") {
            let at = format!("{at}.agents");
            for (agent, entry) in object(agents, &at)? {
                let at = format!("{at}.{agent}");
                let entry_map = object(entry, &at)?;
                check_keys(entry_map, &at, &["allow", "deny", "byProvider"])?;
                let mut parsed = AgentRules {
                    rules: rules(entry_map, &at)?,
                    by_provider: BTreeMap::new(),
                };
                if let Some(providers) = field(entry_map, "byProvider") {
                    let at = format!("{at}.byProvider");
                    for (provider, rules_value) in object(providers, &at)? {
                        let at = format!("{at}.{provider}");
                        let rules_map = object(rules_value, &at)?;
                        check_keys(rules_map, &at, &["allow", "deny"])?;
                        let parsed_rules = rules(rules_map, &at)?;
                        insert_unique(&mut parsed.by_provider, provider, parsed_rules, &at)?;
                    }
                }
                config.agents.insert(agent.clone(), parsed);
            }
        }
        if let Some(senders) = field(map, "senders") {
            let at = format!("{at}.senders");
            for (sender, entry) in object(senders, &at)? {
                let at = format!("{at}.{sender}");
                let entry_map = object(entry, &at)?;
                check_keys(entry_map, &at, &["allow", "deny"])?;
                config
                    .senders
                    .insert(sender.clone(), rules(entry_map, &at)?);
            }
        }
        config.check_references(at)?;
        Ok(config)
    }

    /// Whether a profile of that (lowercase) name exists, built in or user-defined.
    fn has_profile(&self, name: &str) -> bool {
        builtin_profile(name).is_some() || self.profiles.contains_key(name)
    }

    /// Refuses unknown profile names and unknown `group:` references anywhere in the config.
    fn check_references(&self, at: &str) -> Result<()> {
        let mut profile_refs: Vec<(String, &String)> = Vec::new();
        if let Some(profile) = &self.profile {
            profile_refs.push((format!("{at}.profile"), profile));
        }
        for (provider, entry) in &self.by_provider {
            if let Some(profile) = &entry.profile {
                profile_refs.push((format!("{at}.byProvider.{provider}.profile"), profile));
            }
        }
        for (path, name) in profile_refs {
            if !self.has_profile(name) {
                let mut known: Vec<&str> = BUILTIN_PROFILES.iter().map(|(n, _)| *n).collect();
                known.extend(self.profiles.keys().map(String::as_str));
                return Err(validation(format!(
                    "{path} names unknown profile \"{name}\" (known: {})",
                    known.join(", ")
                )));
            }
        }
        let mut lists: Vec<(String, &[String])> = Vec::new();
        lists.push((format!("{at}.alsoAllow"), &self.also_allow));
        push_rules(&mut lists, at.to_string(), &self.global);
        for (provider, entry) in &self.by_provider {
            push_rules(
                &mut lists,
                format!("{at}.byProvider.{provider}"),
                &entry.rules,
            );
        }
        for (agent, entry) in &self.agents {
            push_rules(&mut lists, format!("{at}.agents.{agent}"), &entry.rules);
            for (provider, rules) in &entry.by_provider {
                let path = format!("{at}.agents.{agent}.byProvider.{provider}");
                push_rules(&mut lists, path, rules);
            }
        }
        for (sender, rules) in &self.senders {
            push_rules(&mut lists, format!("{at}.senders.{sender}"), rules);
        }
        for (name, rules) in &self.profiles {
            push_rules(&mut lists, format!("{at}.profiles.{name}"), rules);
        }
        for (name, members) in &self.groups {
            lists.push((format!("{at}.groups.{name}"), members));
        }
        for (path, list) in lists {
            for (index, pattern) in list.iter().enumerate() {
                if let Some(group) = pattern.strip_prefix(GROUP_PREFIX) {
                    if builtin_group(group).is_none() && !self.groups.contains_key(group) {
                        let mut known: Vec<&str> = BUILTIN_GROUPS.iter().map(|(n, _)| *n).collect();
                        known.extend(self.groups.keys().map(String::as_str));
                        return Err(validation(format!(
                            "{path}[{index}] names unknown group \"{pattern}\" (known: {})",
                            known.join(", ")
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The allow/deny lists of one rules entry, with their paths, for reference checks.
fn push_rules<'a>(lists: &mut Vec<(String, &'a [String])>, at: String, rules: &'a Rules) {
    if let Some(allow) = &rules.allow {
        lists.push((format!("{at}.allow"), allow));
    }
    lists.push((format!("{at}.deny"), &rules.deny));
}

/// The caller context of one dispatch: who calls, through which provider.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PolicyContext {
    /// The model provider (lowercase), e.g. `openai`.
    pub provider: Option<String>,
    /// The agent making the call.
    pub agent_id: Option<String>,
    /// The sender of the message that caused the call.
    pub sender: Option<SenderContext>,
}

/// The sender part of a [`PolicyContext`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderContext {
    /// The sender's id, the key into `policy.senders`.
    pub id: Option<String>,
    /// Whether the sender owns the agent (carried for the runtime; the tool policy itself
    /// looks only at `id`).
    pub is_owner: bool,
}

impl PolicyContext {
    /// Reads `provider`, `agentId` and `sender: { id, isOwner }` from the dispatch options
    /// (other keys of the options are ignored; `null` or absent means unset). Wrong types are
    /// refused with a `VALIDATION_ERROR` naming `options.<key>`.
    pub fn from_json(value: &Value) -> Result<PolicyContext> {
        Self::parse(value, "options", false)
    }

    /// A context object of its own, found at path `at` (e.g. `explainPolicy: context`), which
    /// its errors name: keys other than `provider`, `agentId` and `sender` are refused too.
    pub fn from_json_at(value: &Value, at: &str) -> Result<PolicyContext> {
        Self::parse(value, at, true)
    }

    fn parse(value: &Value, at: &str, own_object: bool) -> Result<PolicyContext> {
        if value.is_null() {
            return Ok(PolicyContext::default());
        }
        let map = object(value, at)?;
        if own_object {
            check_keys(map, at, &["provider", "agentId", "sender"])?;
        }
        let sender = match field(map, "sender") {
            None => None,
            Some(sender) => {
                let at = format!("{at}.sender");
                let sender_map = object(sender, &at)?;
                check_keys(sender_map, &at, &["id", "isOwner"])?;
                let is_owner = match field(sender_map, "isOwner") {
                    None => false,
                    Some(Value::Bool(flag)) => *flag,
                    Some(other) => {
                        return Err(validation(format!(
                            "{at}.isOwner must be a boolean, got {}",
                            describe(other)
                        )))
                    }
                };
                Some(SenderContext {
                    id: optional_string(field(sender_map, "id"), &format!("{at}.id"))?,
                    is_owner,
                })
            }
        };
        Ok(PolicyContext {
            provider: optional_string(field(map, "provider"), &format!("{at}.provider"))?
                .map(|provider| provider.to_lowercase()),
            agent_id: optional_string(field(map, "agentId"), &format!("{at}.agentId"))?,
            sender,
        })
    }
}

/// A `VALIDATION_ERROR` thrown to the caller.
pub(in crate::policy) fn validation(message: String) -> Error {
    Error::caller(ErrorCode::ValidationError, message)
}

/// A short rendering of an offending value: scalars as JSON (cut), containers by type.
pub(in crate::policy) fn describe(value: &Value) -> String {
    match value {
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
        scalar => crate::quote::bounded_to(&scalar.to_string(), MAX_SHOWN),
    }
}

/// A key's value, with `null` treated as absent.
fn field<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|value| !value.is_null())
}

pub(in crate::policy) fn object<'a>(value: &'a Value, at: &str) -> Result<&'a Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| validation(format!("{at} must be an object, got {}", describe(value))))
}

pub(in crate::policy) fn check_keys(
    map: &Map<String, Value>,
    at: &str,
    known: &[&str],
) -> Result<()> {
    crate::options::check_option_keys(at, map.keys().map(String::as_str), known)
}

fn optional_string(value: Option<&Value>, at: &str) -> Result<Option<String>> {
    match value {
        None => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(other) => Err(validation(format!(
            "{at} must be a string, got {}",
            describe(other)
        ))),
    }
}

/// A profile name: a non-empty string, lowercased.
fn optional_name(value: Option<&Value>, at: &str) -> Result<Option<String>> {
    match optional_string(value, at)? {
        None => Ok(None),
        Some(name) if name.trim().is_empty() => Err(validation(format!("{at} must not be empty"))),
        Some(name) => Ok(Some(name.trim().to_lowercase())),
    }
}

/// Normalizes one pattern: trimmed and lowercased; plain names also de-aliased.
fn normalize_pattern(pattern: &str) -> String {
    let lower = pattern.trim().to_lowercase();
    if lower.starts_with(GROUP_PREFIX) || lower.contains('*') {
        lower
    } else {
        canonical_tool_name(&lower)
    }
}

/// A list of patterns, or `None` when absent.
fn patterns(value: Option<&Value>, at: &str) -> Result<Option<Vec<String>>> {
    let Some(value) = value else {
        return Ok(None);
    };
    let items = value.as_array().ok_or_else(|| {
        validation(format!(
            "{at} must be an array of strings, got {}",
            describe(value)
        ))
    })?;
    let mut out = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let Value::String(text) = item else {
            return Err(validation(format!(
                "{at}[{index}] must be a string, got {}",
                describe(item)
            )));
        };
        if text.trim().is_empty() || text.trim() == GROUP_PREFIX {
            return Err(validation(format!(
                "{at}[{index}] must name a tool, a group or a glob, got {}",
                describe(item)
            )));
        }
        out.push(normalize_pattern(text));
    }
    Ok(Some(out))
}

/// The `allow` and `deny` keys of an entry.
fn rules(map: &Map<String, Value>, at: &str) -> Result<Rules> {
    Ok(Rules {
        allow: patterns(field(map, "allow"), &format!("{at}.allow"))?,
        deny: patterns(field(map, "deny"), &format!("{at}.deny"))?.unwrap_or_default(),
    })
}

/// Inserts under a lowercase key, refusing two keys that differ only in case.
fn insert_unique<T>(map: &mut BTreeMap<String, T>, key: &str, value: T, at: &str) -> Result<()> {
    if map.insert(key.to_lowercase(), value).is_some() {
        return Err(validation(format!(
            "{at} repeats a provider that is already configured (names are case-insensitive)"
        )));
    }
    Ok(())
}

/// `groups: { name | "group:name": [patterns] }`, keyed by bare lowercase name.
fn parse_groups(value: Option<&Value>, at: &str) -> Result<BTreeMap<String, Vec<String>>> {
    let mut groups = BTreeMap::new();
    let Some(value) = value else {
        return Ok(groups);
    };
    for (key, members) in object(value, at)? {
        let lower = key.trim().to_lowercase();
        let name = lower.strip_prefix(GROUP_PREFIX).unwrap_or(&lower).trim();
        let path = format!("{at}.{key}");
        if name.is_empty() {
            return Err(validation(format!("{path}: a group needs a name")));
        }
        if builtin_group(name).is_some() {
            return Err(validation(format!(
                "{path} shadows the built-in group \"group:{name}\""
            )));
        }
        let members = patterns(Some(members), &path)?.unwrap_or_default();
        if groups.insert(name.to_string(), members).is_some() {
            return Err(validation(format!(
                "{path} defines group \"group:{name}\" a second time"
            )));
        }
    }
    Ok(groups)
}

/// `profiles: { name: { allow, deny } }`, keyed by lowercase name.
fn parse_profiles(value: Option<&Value>, at: &str) -> Result<BTreeMap<String, Rules>> {
    let mut profiles = BTreeMap::new();
    let Some(value) = value else {
        return Ok(profiles);
    };
    for (key, entry) in object(value, at)? {
        let name = key.trim().to_lowercase();
        let path = format!("{at}.{key}");
        if name.is_empty() {
            return Err(validation(format!("{path}: a profile needs a name")));
        }
        if builtin_profile(&name).is_some() {
            return Err(validation(format!(
                "{path} shadows the built-in profile \"{name}\""
            )));
        }
        let entry_map = object(entry, &path)?;
        check_keys(entry_map, &path, &["allow", "deny"])?;
        if profiles
            .insert(name.clone(), rules(entry_map, &path)?)
            .is_some()
        {
            return Err(validation(format!(
                "{path} defines profile \"{name}\" a second time"
            )));
        }
    }
    Ok(profiles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refused_configs() {
        for (policy, message) in [
            (json!(3), "policy must be an object, got 3"),
            (
                json!({ "alow": [] }),
                "policy has unknown key \"alow\" (expected one of: profile, allow, deny, \
                 alsoAllow, byProvider, agents, senders, groups, profiles); did you mean \"allow\"?",
            ),
            (
                json!({ "byProvider": { "openai": { "allow": ["read", 3] } } }),
                "policy.byProvider.openai.allow[1] must be a string, got 3",
            ),
            (
                json!({ "allow": "read" }),
                "policy.allow must be an array of strings, got \"read\"",
            ),
            (
                json!({ "deny": [""] }),
                "policy.deny[0] must name a tool, a group or a glob, got \"\"",
            ),
            (
                json!({ "agents": { "a": { "byProvider": { "x": { "deny": [{}] } } } } }),
                "policy.agents.a.byProvider.x.deny[0] must be a string, got an object",
            ),
            (
                json!({ "agents": { "a": { "profile": "coding" } } }),
                "policy.agents.a has unknown key \"profile\" (expected one of: allow, deny, \
                 byProvider)",
            ),
            (
                json!({ "senders": { "u": { "allow": [true] } } }),
                "policy.senders.u.allow[0] must be a string, got true",
            ),
            (
                json!({ "profile": "codin" }),
                "policy.profile names unknown profile \"codin\" (known: minimal, coding, \
                 messaging, full)",
            ),
            (
                json!({ "byProvider": { "openai": { "profile": "mine" } } }),
                "policy.byProvider.openai.profile names unknown profile \"mine\" (known: \
                 minimal, coding, messaging, full)",
            ),
            (
                json!({ "profile": 5 }),
                "policy.profile must be a string, got 5",
            ),
            (
                json!({ "allow": ["group:nope"] }),
                "policy.allow[0] names unknown group \"group:nope\" (known: fs, runtime, web, \
                 memory, sessions, ui, automation, messaging, nodes, plugins)",
            ),
            (
                json!({ "groups": { "a": ["group:b"] } }),
                "policy.groups.a[0] names unknown group \"group:b\" (known: fs, runtime, web, \
                 memory, sessions, ui, automation, messaging, nodes, plugins, a)",
            ),
            (
                json!({ "groups": { "group:fs": ["read"] } }),
                "policy.groups.group:fs shadows the built-in group \"group:fs\"",
            ),
            (
                json!({ "groups": { "x": ["read"], "group:x": ["write"] } }),
                "policy.groups.group:x defines group \"group:x\" a second time",
            ),
            (
                json!({ "groups": { "x": "read" } }),
                "policy.groups.x must be an array of strings, got \"read\"",
            ),
            (
                json!({ "profiles": { "coding": { "allow": ["read"] } } }),
                "policy.profiles.coding shadows the built-in profile \"coding\"",
            ),
            (
                json!({ "profiles": { "p": { "allow": ["read"], "alsoAllow": [] } } }),
                "policy.profiles.p has unknown key \"alsoAllow\" (expected one of: allow, deny); \
                 did you mean \"allow\"?",
            ),
            (
                json!({ "profiles": { "p": { "deny": ["group:zz"] } } }),
                "policy.profiles.p.deny[0] names unknown group \"group:zz\" (known: fs, runtime, \
                 web, memory, sessions, ui, automation, messaging, nodes, plugins)",
            ),
            (
                json!({ "byProvider": { "openai": {}, "OpenAI": {} } }),
                "policy.byProvider.OpenAI repeats a provider that is already configured \
                 (names are case-insensitive)",
            ),
        ] {
            let error = PolicyConfig::from_json(&policy, "policy").expect_err(message);
            assert_eq!(error.code, ErrorCode::ValidationError, "{message}");
            assert_eq!(error.fault, crate::error::Fault::Caller, "{message}");
            assert_eq!(error.message, message);
        }
    }

    #[test]
    fn accepted_configs() {
        let config = PolicyConfig::from_json(
            &json!({
                "profile": "Coding",
                "alsoAllow": ["Browser"],
                "allow": null,
                "deny": ["BASH", "Web_*"],
                "byProvider": { "OpenAI": { "profile": "mine", "deny": ["group:mine"] } },
                "agents": { "a1": { "byProvider": { "Anthropic": { "allow": ["read"] } } } },
                "senders": { "u1": { "deny": [] } },
                "groups": { "group:Mine": ["apply-patch"] },
                "profiles": { "Mine": { "allow": ["group:mine"] } },
            }),
            "policy",
        )
        .expect("valid");
        assert_eq!(config.profile.as_deref(), Some("coding"));
        assert_eq!(config.also_allow, vec!["browser"]);
        assert_eq!(config.global.allow, None);
        assert_eq!(config.global.deny, vec!["exec", "web_*"]);
        assert_eq!(
            config.by_provider["openai"].profile.as_deref(),
            Some("mine")
        );
        assert!(config.agents["a1"].by_provider.contains_key("anthropic"));
        assert_eq!(config.groups["mine"], vec!["apply_patch"]);
        assert_eq!(
            config.profiles["mine"].allow,
            Some(vec!["group:mine".to_string()])
        );
        assert_eq!(
            PolicyConfig::from_json(&Value::Null, "policy").unwrap(),
            PolicyConfig::default()
        );
    }

    #[test]
    fn contexts() {
        let ctx = PolicyContext::from_json(&json!({
            "provider": "OpenAI",
            "agentId": "a1",
            "sender": { "id": "u1", "isOwner": true },
            "timeoutMs": 5,
        }))
        .unwrap();
        assert_eq!(
            ctx,
            PolicyContext {
                provider: Some("openai".into()),
                agent_id: Some("a1".into()),
                sender: Some(SenderContext {
                    id: Some("u1".into()),
                    is_owner: true,
                }),
            }
        );
        assert_eq!(
            PolicyContext::from_json(&Value::Null).unwrap(),
            PolicyContext::default()
        );
        assert_eq!(
            PolicyContext::from_json(&json!({ "sender": null, "provider": null })).unwrap(),
            PolicyContext::default()
        );
        for (value, message) in [
            (json!([]), "options must be an object, got an array"),
            (
                json!({ "provider": 3 }),
                "options.provider must be a string, got 3",
            ),
            (
                json!({ "agentId": false }),
                "options.agentId must be a string, got false",
            ),
            (
                json!({ "sender": "u1" }),
                "options.sender must be an object, got \"u1\"",
            ),
            (
                json!({ "sender": { "isOwner": "yes" } }),
                "options.sender.isOwner must be a boolean, got \"yes\"",
            ),
            (
                json!({ "sender": { "name": "x" } }),
                "options.sender has unknown key \"name\" (expected one of: id, isOwner)",
            ),
        ] {
            let error = PolicyContext::from_json(&value).expect_err(message);
            assert_eq!(error.code, ErrorCode::ValidationError);
            assert_eq!(error.message, message);
        }
    }
}
