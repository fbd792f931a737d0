//! The compiled policy and its layered decision.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use super::config::{PolicyConfig, PolicyContext, Rules};
use super::names::{
    builtin_group, builtin_profile, canonical_tool_name, Glob, GROUP_PREFIX, PLUGINS_GROUP,
};

/// How many allow patterns a `not in allow: ...` rule lists before it is cut.
const LISTED_PATTERNS: usize = 5;
/// How many characters of allow patterns such a rule lists before it is cut.
const LISTED_CHARS: usize = 100;

/// The answer of [`ToolPolicy::decide`], which `explainPolicy` returns as is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// Whether the tool may run.
    pub allowed: bool,
    /// The layer that refused it, or the last layer that allowed it by an explicit pattern;
    /// one of `profile`, `providerProfile`, `global`, `provider`, `agent`, `agentProvider`,
    /// `sender`. `None` when no layer listed the tool.
    pub layer: Option<&'static str>,
    /// The rule of that layer, e.g. `deny: group:runtime`, `not in profile coding`,
    /// `allow: exec*`.
    pub rule: Option<String>,
}

/// One written pattern, compiled: the names and globs it stands for after expanding groups.
#[derive(Clone, Debug)]
struct Matcher {
    /// The pattern as written (normalized), named in rules.
    source: String,
    /// Exact canonical names.
    names: HashSet<String>,
    /// Globs, matched against the canonical name.
    globs: Vec<Glob>,
    /// Whether the pattern includes `group:plugins`.
    plugins: bool,
}

impl Matcher {
    /// Expands `source` through built-in and user groups (each group once, with an explicit
    /// stack, so cycles between user groups are harmless).
    fn compile(source: &str, groups: &BTreeMap<String, Vec<String>>) -> Matcher {
        let mut matcher = Matcher {
            source: source.to_string(),
            names: HashSet::new(),
            globs: Vec::new(),
            plugins: false,
        };
        let mut seen: HashSet<&str> = HashSet::new();
        let mut stack: Vec<&str> = vec![source];
        while let Some(pattern) = stack.pop() {
            if let Some(group) = pattern.strip_prefix(GROUP_PREFIX) {
                if !seen.insert(group) {
                    continue;
                }
                if group == PLUGINS_GROUP {
                    matcher.plugins = true;
                } else if let Some(members) = builtin_group(group) {
                    matcher
                        .names
                        .extend(members.iter().map(|member| member.to_string()));
                } else if let Some(members) = groups.get(group) {
                    stack.extend(members.iter().map(String::as_str));
                }
            } else if pattern.contains('*') {
                matcher.globs.push(Glob::new(pattern));
            } else {
                matcher.names.insert(pattern.to_string());
            }
        }
        matcher
    }

    fn matches(&self, canonical: &str, tool: &str, plugin_tools: &dyn Fn(&str) -> bool) -> bool {
        self.names.contains(canonical)
            || self.globs.iter().any(|glob| glob.matches(canonical))
            || (self.plugins && plugin_tools(tool))
    }
}

/// What one layer says about a tool.
enum Verdict {
    /// Refused, with the rule.
    Refused(String),
    /// Allowed, with the explicit allow rule if a pattern listed the tool.
    Allowed(Option<String>),
}

/// The tool being decided, in both spellings, and the plugin predicate.
struct Query<'a> {
    canonical: &'a str,
    tool: &'a str,
    plugin_tools: &'a dyn Fn(&str) -> bool,
}

impl Query<'_> {
    fn first<'m>(&self, matchers: &'m [Matcher]) -> Option<&'m Matcher> {
        matchers
            .iter()
            .find(|matcher| matcher.matches(self.canonical, self.tool, self.plugin_tools))
    }
}

/// A compiled allow/deny layer.
#[derive(Clone, Debug, Default)]
struct RuleLayer {
    allow: Vec<Matcher>,
    deny: Vec<Matcher>,
}

impl RuleLayer {
    fn compile(rules: &Rules, groups: &BTreeMap<String, Vec<String>>) -> RuleLayer {
        RuleLayer {
            allow: compile_all(rules.allow.as_deref().unwrap_or_default(), groups),
            deny: compile_all(&rules.deny, groups),
        }
    }

    fn judge(&self, query: &Query<'_>) -> Verdict {
        if let Some(deny) = query.first(&self.deny) {
            return Verdict::Refused(format!("deny: {}", deny.source));
        }
        if self.allow.is_empty() {
            return Verdict::Allowed(None);
        }
        match query.first(&self.allow) {
            Some(allow) => Verdict::Allowed(Some(format!("allow: {}", allow.source))),
            None => Verdict::Refused(format!("not in allow: {}", list_sources(&self.allow))),
        }
    }
}

/// A compiled profile layer.
#[derive(Clone, Debug)]
struct ProfileLayer {
    name: String,
    /// What the profile lists; `None` allows everything (`full`, or a user profile whose
    /// `allow` is absent or empty: an empty allow list allows all, as in every layer).
    allow: Option<Vec<Matcher>>,
    /// Extra allows (`alsoAllow`, global profile only).
    also_allow: Vec<Matcher>,
    deny: Vec<Matcher>,
}

impl ProfileLayer {
    /// Compiles a profile by name; `None` for an unknown name, which
    /// [`PolicyConfig::from_json`] has refused already.
    fn compile(name: &str, also_allow: &[String], config: &PolicyConfig) -> Option<ProfileLayer> {
        let (allow, deny) = match builtin_profile(name) {
            Some(list) => (
                list.map(|patterns| {
                    patterns
                        .iter()
                        .map(|pattern| Matcher::compile(pattern, &config.groups))
                        .collect()
                }),
                Vec::new(),
            ),
            None => {
                let rules = config.profiles.get(name)?;
                (
                    rules
                        .allow
                        .as_ref()
                        .filter(|allow| !allow.is_empty())
                        .map(|allow| compile_all(allow, &config.groups)),
                    compile_all(&rules.deny, &config.groups),
                )
            }
        };
        Some(ProfileLayer {
            name: name.to_string(),
            allow,
            also_allow: compile_all(also_allow, &config.groups),
            deny,
        })
    }

    fn judge(&self, query: &Query<'_>) -> Verdict {
        if let Some(deny) = query.first(&self.deny) {
            return Verdict::Refused(format!("deny: {}", deny.source));
        }
        let Some(allow) = &self.allow else {
            return Verdict::Allowed(Some(format!("profile {}", self.name)));
        };
        if let Some(matcher) = query.first(allow) {
            return Verdict::Allowed(Some(format!("profile {}: {}", self.name, matcher.source)));
        }
        if let Some(matcher) = query.first(&self.also_allow) {
            return Verdict::Allowed(Some(format!("alsoAllow: {}", matcher.source)));
        }
        Verdict::Refused(format!("not in profile {}", self.name))
    }
}

/// A layer configured for the context of one decision.
enum Layer<'a> {
    Profile(&'a ProfileLayer),
    Rules(&'a RuleLayer),
}

impl Layer<'_> {
    fn judge(&self, query: &Query<'_>) -> Verdict {
        match self {
            Layer::Profile(profile) => profile.judge(query),
            Layer::Rules(rules) => rules.judge(query),
        }
    }
}

/// A compiled agent entry.
#[derive(Clone, Debug)]
struct AgentLayer {
    rules: RuleLayer,
    by_provider: BTreeMap<String, RuleLayer>,
}

/// A compiled provider entry.
#[derive(Clone, Debug)]
struct ProviderLayer {
    profile: Option<ProfileLayer>,
    rules: RuleLayer,
}

/// The tool policy, compiled once from a [`PolicyConfig`]: groups expanded, names normalized.
#[derive(Clone, Debug)]
pub struct ToolPolicy {
    profile: Option<ProfileLayer>,
    global: RuleLayer,
    by_provider: BTreeMap<String, ProviderLayer>,
    agents: BTreeMap<String, AgentLayer>,
    senders: BTreeMap<String, RuleLayer>,
}

impl ToolPolicy {
    /// Compiles a validated configuration.
    pub fn new(config: PolicyConfig) -> ToolPolicy {
        let groups = &config.groups;
        ToolPolicy {
            profile: config
                .profile
                .as_deref()
                .and_then(|name| ProfileLayer::compile(name, &config.also_allow, &config)),
            global: RuleLayer::compile(&config.global, groups),
            by_provider: config
                .by_provider
                .iter()
                .map(|(provider, entry)| {
                    let layer = ProviderLayer {
                        profile: entry
                            .profile
                            .as_deref()
                            .and_then(|name| ProfileLayer::compile(name, &[], &config)),
                        rules: RuleLayer::compile(&entry.rules, groups),
                    };
                    (provider.clone(), layer)
                })
                .collect(),
            agents: config
                .agents
                .iter()
                .map(|(agent, entry)| {
                    let layer = AgentLayer {
                        rules: RuleLayer::compile(&entry.rules, groups),
                        by_provider: entry
                            .by_provider
                            .iter()
                            .map(|(provider, rules)| {
                                (provider.clone(), RuleLayer::compile(rules, groups))
                            })
                            .collect(),
                    };
                    (agent.clone(), layer)
                })
                .collect(),
            senders: config
                .senders
                .iter()
                .map(|(sender, rules)| (sender.clone(), RuleLayer::compile(rules, groups)))
                .collect(),
        }
    }

    /// Decides whether `tool` may run in `ctx`. The layers `profile`, `providerProfile`,
    /// `global`, `provider`, `agent`, `agentProvider` and `sender` are asked in this order; a
    /// layer that is not configured (or whose context key is absent) allows, and the first
    /// that refuses decides. `plugin_tools` tells whether a tool (by the name given here) was
    /// registered by a plugin, for `group:plugins`.
    pub fn decide(
        &self,
        tool: &str,
        ctx: &PolicyContext,
        plugin_tools: &dyn Fn(&str) -> bool,
    ) -> Decision {
        let canonical = canonical_tool_name(tool);
        let query = Query {
            canonical: &canonical,
            tool,
            plugin_tools,
        };
        let provider = ctx
            .provider
            .as_deref()
            .and_then(|provider| self.by_provider.get(provider));
        let agent = ctx
            .agent_id
            .as_deref()
            .and_then(|agent| self.agents.get(agent));
        let agent_provider = agent.and_then(|agent| {
            ctx.provider
                .as_deref()
                .and_then(|provider| agent.by_provider.get(provider))
        });
        let sender = ctx
            .sender
            .as_ref()
            .and_then(|sender| sender.id.as_deref())
            .and_then(|id| self.senders.get(id));

        // The layers in order; only those configured for this context are judged, lazily.
        let layers: [(&'static str, Option<Layer<'_>>); 7] = [
            ("profile", self.profile.as_ref().map(Layer::Profile)),
            (
                "providerProfile",
                provider
                    .and_then(|p| p.profile.as_ref())
                    .map(Layer::Profile),
            ),
            ("global", Some(Layer::Rules(&self.global))),
            ("provider", provider.map(|p| Layer::Rules(&p.rules))),
            ("agent", agent.map(|a| Layer::Rules(&a.rules))),
            ("agentProvider", agent_provider.map(Layer::Rules)),
            ("sender", sender.map(Layer::Rules)),
        ];
        let mut decision = Decision {
            allowed: true,
            layer: None,
            rule: None,
        };
        for (name, layer) in layers {
            let Some(layer) = layer else {
                continue;
            };
            match layer.judge(&query) {
                Verdict::Refused(rule) => {
                    return Decision {
                        allowed: false,
                        layer: Some(name),
                        rule: Some(rule),
                    }
                }
                Verdict::Allowed(Some(rule)) => {
                    decision.layer = Some(name);
                    decision.rule = Some(rule);
                }
                Verdict::Allowed(None) => {}
            }
        }
        decision
    }
}

fn compile_all(patterns: &[String], groups: &BTreeMap<String, Vec<String>>) -> Vec<Matcher> {
    patterns
        .iter()
        .map(|pattern| Matcher::compile(pattern, groups))
        .collect()
}

/// The allow patterns of a layer for a `not in allow` rule, cut to a readable length.
fn list_sources(matchers: &[Matcher]) -> String {
    let mut out = String::new();
    for (index, matcher) in matchers.iter().enumerate() {
        if index == LISTED_PATTERNS
            || (index > 0 && out.len() + matcher.source.len() > LISTED_CHARS)
        {
            out.push_str(&format!(", ... ({} more)", matchers.len() - index));
            break;
        }
        if index > 0 {
            out.push_str(", ");
        }
        out.push_str(&matcher.source);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn plugin(tool: &str) -> bool {
        tool.starts_with("plugin_")
    }

    /// (what the row shows, policy, context, tool, allowed, layer, rule)
    type Row<'a> = (
        &'a str,
        Value,
        &'a Value,
        &'a str,
        bool,
        Option<&'static str>,
        Option<&'a str>,
    );

    fn decide(policy: &Value, ctx: &Value, tool: &str) -> Decision {
        let config = PolicyConfig::from_json(policy, "policy").expect("valid policy");
        let ctx = PolicyContext::from_json(ctx).expect("valid context");
        ToolPolicy::new(config).decide(tool, &ctx, &plugin)
    }

    #[test]
    fn decisions() {
        let none = json!({});
        let openai = json!({ "provider": "openai" });
        let a1 = json!({ "agentId": "a1" });
        let a1_openai = json!({ "agentId": "a1", "provider": "OpenAI" });
        let u1 = json!({ "sender": { "id": "u1", "isOwner": false } });
        let long_allow = json!({ "allow": ["a", "b", "c", "d", "e", "f", "g", "h"] });
        let rows: Vec<Row> = vec![
            (
                "empty policy allows all",
                json!({}),
                &none,
                "exec",
                true,
                None,
                None,
            ),
            (
                "null policy allows all",
                Value::Null,
                &none,
                "exec",
                true,
                None,
                None,
            ),
            (
                "deny wins over allow",
                json!({ "allow": ["exec"], "deny": ["exec"] }),
                &none,
                "exec",
                false,
                Some("global"),
                Some("deny: exec"),
            ),
            (
                "empty allow allows all but deny",
                json!({ "allow": [], "deny": ["write"] }),
                &none,
                "read",
                true,
                None,
                None,
            ),
            (
                "empty allow still denies",
                json!({ "allow": [], "deny": ["write"] }),
                &none,
                "write",
                false,
                Some("global"),
                Some("deny: write"),
            ),
            (
                "glob allows",
                json!({ "allow": ["web_*"] }),
                &none,
                "web_fetch",
                true,
                Some("global"),
                Some("allow: web_*"),
            ),
            (
                "glob does not list",
                json!({ "allow": ["web_*"] }),
                &none,
                "read",
                false,
                Some("global"),
                Some("not in allow: web_*"),
            ),
            (
                "glob is case-insensitive",
                json!({ "deny": ["MEMORY_*"] }),
                &none,
                "Memory_Get",
                false,
                Some("global"),
                Some("deny: memory_*"),
            ),
            (
                "alias in the pattern",
                json!({ "deny": ["bash"] }),
                &none,
                "exec",
                false,
                Some("global"),
                Some("deny: exec"),
            ),
            (
                "alias in the tool name",
                json!({ "deny": ["exec"] }),
                &none,
                "Bash",
                false,
                Some("global"),
                Some("deny: exec"),
            ),
            (
                "apply-patch alias",
                json!({ "allow": ["apply-patch"] }),
                &none,
                "apply_patch",
                true,
                Some("global"),
                Some("allow: apply_patch"),
            ),
            (
                "case of names",
                json!({ "deny": ["READ"] }),
                &none,
                "Read",
                false,
                Some("global"),
                Some("deny: read"),
            ),
            (
                "not in allow, listed",
                json!({ "allow": ["read", "write"] }),
                &none,
                "exec",
                false,
                Some("global"),
                Some("not in allow: read, write"),
            ),
            (
                "not in allow, cut",
                long_allow,
                &none,
                "exec",
                false,
                Some("global"),
                Some("not in allow: a, b, c, d, e, ... (3 more)"),
            ),
            (
                "profile lists the tool",
                json!({ "profile": "coding" }),
                &none,
                "exec",
                true,
                Some("profile"),
                Some("profile coding: group:runtime"),
            ),
            (
                "profile refuses",
                json!({ "profile": "coding" }),
                &none,
                "browser",
                false,
                Some("profile"),
                Some("not in profile coding"),
            ),
            (
                "profile minimal",
                json!({ "profile": "minimal" }),
                &none,
                "read",
                false,
                Some("profile"),
                Some("not in profile minimal"),
            ),
            (
                "profile messaging",
                json!({ "profile": "messaging" }),
                &none,
                "message",
                true,
                Some("profile"),
                Some("profile messaging: group:messaging"),
            ),
            (
                "profile full",
                json!({ "profile": "full" }),
                &none,
                "anything",
                true,
                Some("profile"),
                Some("profile full"),
            ),
            (
                "alsoAllow extends the profile",
                json!({ "profile": "coding", "alsoAllow": ["browser"] }),
                &none,
                "browser",
                true,
                Some("profile"),
                Some("alsoAllow: browser"),
            ),
            (
                "alsoAllow does not beat a later deny",
                json!({ "profile": "coding", "alsoAllow": ["browser"], "deny": ["browser"] }),
                &none,
                "browser",
                false,
                Some("global"),
                Some("deny: browser"),
            ),
            (
                "provider profile refuses",
                json!({ "byProvider": { "openai": { "profile": "minimal" } } }),
                &openai,
                "exec",
                false,
                Some("providerProfile"),
                Some("not in profile minimal"),
            ),
            (
                "provider profile of another provider",
                json!({ "byProvider": { "anthropic": { "profile": "minimal" } } }),
                &openai,
                "exec",
                true,
                None,
                None,
            ),
            (
                "provider profile without a provider in the context",
                json!({ "byProvider": { "openai": { "profile": "minimal" } } }),
                &none,
                "exec",
                true,
                None,
                None,
            ),
            (
                "provider deny",
                json!({ "byProvider": { "OpenAI": { "deny": ["group:web"] } } }),
                &openai,
                "web_search",
                false,
                Some("provider"),
                Some("deny: group:web"),
            ),
            (
                "agent allow glob",
                json!({ "agents": { "a1": { "allow": ["exec*"] } } }),
                &a1,
                "exec",
                true,
                Some("agent"),
                Some("allow: exec*"),
            ),
            (
                "agent refuses",
                json!({ "agents": { "a1": { "allow": ["exec*"] } } }),
                &a1,
                "read",
                false,
                Some("agent"),
                Some("not in allow: exec*"),
            ),
            (
                "agent by provider",
                json!({ "agents": { "a1": { "byProvider": { "openai": { "deny": ["write"] } } } } }),
                &a1_openai,
                "write",
                false,
                Some("agentProvider"),
                Some("deny: write"),
            ),
            (
                "agent by provider needs the provider",
                json!({ "agents": { "a1": { "byProvider": { "openai": { "deny": ["write"] } } } } }),
                &a1,
                "write",
                true,
                None,
                None,
            ),
            (
                "sender deny",
                json!({ "senders": { "u1": { "deny": ["group:runtime"] } } }),
                &u1,
                "process",
                false,
                Some("sender"),
                Some("deny: group:runtime"),
            ),
            (
                "sender of someone else",
                json!({ "senders": { "u2": { "deny": ["group:runtime"] } } }),
                &u1,
                "process",
                true,
                None,
                None,
            ),
            (
                "the first refusing layer decides",
                json!({ "deny": ["exec"], "agents": { "a1": { "deny": ["exec"] } } }),
                &a1,
                "exec",
                false,
                Some("global"),
                Some("deny: exec"),
            ),
            (
                "a later layer refuses what an earlier allowed",
                json!({ "allow": ["exec"], "agents": { "a1": { "deny": ["group:runtime"] } } }),
                &a1,
                "exec",
                false,
                Some("agent"),
                Some("deny: group:runtime"),
            ),
            (
                "the last explicit allow is named",
                json!({ "allow": ["exec"], "agents": { "a1": { "allow": ["group:runtime"] } } }),
                &a1,
                "exec",
                true,
                Some("agent"),
                Some("allow: group:runtime"),
            ),
            (
                "an open later layer keeps the earlier allow",
                json!({ "allow": ["exec"], "agents": { "a1": { "deny": ["read"] } } }),
                &a1,
                "exec",
                true,
                Some("global"),
                Some("allow: exec"),
            ),
            (
                "user group with prefix",
                json!({ "groups": { "group:mine": ["read", "exec*"] }, "deny": ["group:mine"] }),
                &none,
                "executor",
                false,
                Some("global"),
                Some("deny: group:mine"),
            ),
            (
                "user group by bare name",
                json!({ "groups": { "Mine": ["read"] }, "allow": ["group:mine"] }),
                &none,
                "read",
                true,
                Some("global"),
                Some("allow: group:mine"),
            ),
            (
                "user groups nest, cycles are harmless",
                json!({ "groups": { "a": ["group:b"], "b": ["group:a", "read"] },
                        "deny": ["group:a"] }),
                &none,
                "read",
                false,
                Some("global"),
                Some("deny: group:a"),
            ),
            (
                "user profile lists",
                json!({ "profiles": { "safe": { "allow": ["read"] } }, "profile": "safe" }),
                &none,
                "read",
                true,
                Some("profile"),
                Some("profile safe: read"),
            ),
            (
                "user profile refuses",
                json!({ "profiles": { "safe": { "allow": ["read"] } }, "profile": "safe" }),
                &none,
                "write",
                false,
                Some("profile"),
                Some("not in profile safe"),
            ),
            (
                "user profile deny",
                json!({ "profiles": { "nox": { "deny": ["exec"] } }, "profile": "nox" }),
                &none,
                "exec",
                false,
                Some("profile"),
                Some("deny: exec"),
            ),
            (
                "user profile without allow allows the rest",
                json!({ "profiles": { "nox": { "deny": ["exec"] } }, "profile": "nox" }),
                &none,
                "read",
                true,
                Some("profile"),
                Some("profile nox"),
            ),
            (
                "user profile with an empty allow allows all",
                json!({ "profiles": { "open": { "allow": [] } }, "profile": "open" }),
                &none,
                "read",
                true,
                Some("profile"),
                Some("profile open"),
            ),
            (
                "user profile with an empty allow still denies",
                json!({ "profiles": { "open": { "allow": [], "deny": ["exec"] } },
                        "profile": "open" }),
                &none,
                "exec",
                false,
                Some("profile"),
                Some("deny: exec"),
            ),
            (
                "provider profile with an empty allow allows all",
                json!({ "profiles": { "open": { "allow": [] } },
                        "byProvider": { "openai": { "profile": "open" } } }),
                &openai,
                "read",
                true,
                Some("providerProfile"),
                Some("profile open"),
            ),
            (
                "provider empty allow allows all but deny",
                json!({ "byProvider": { "openai": { "allow": [], "deny": ["write"] } } }),
                &openai,
                "read",
                true,
                None,
                None,
            ),
            (
                "provider empty allow still denies",
                json!({ "byProvider": { "openai": { "allow": [], "deny": ["write"] } } }),
                &openai,
                "write",
                false,
                Some("provider"),
                Some("deny: write"),
            ),
            (
                "agent empty allow allows all",
                json!({ "agents": { "a1": { "allow": [] } } }),
                &a1,
                "read",
                true,
                None,
                None,
            ),
            (
                "agent by provider empty allow allows all",
                json!({ "agents": { "a1": { "byProvider": { "openai": { "allow": [] } } } } }),
                &a1_openai,
                "read",
                true,
                None,
                None,
            ),
            (
                "sender empty allow allows all",
                json!({ "senders": { "u1": { "allow": [] } } }),
                &u1,
                "read",
                true,
                None,
                None,
            ),
            (
                "group:plugins by the predicate",
                json!({ "deny": ["group:plugins"] }),
                &none,
                "plugin_x",
                false,
                Some("global"),
                Some("deny: group:plugins"),
            ),
            (
                "group:plugins leaves other tools",
                json!({ "deny": ["group:plugins"] }),
                &none,
                "read",
                true,
                None,
                None,
            ),
            (
                "group:plugins in a user group",
                json!({ "groups": { "extra": ["group:plugins"] }, "allow": ["group:extra"] }),
                &none,
                "plugin_y",
                true,
                Some("global"),
                Some("allow: group:extra"),
            ),
        ];
        for (what, policy, ctx, tool, allowed, layer, rule) in rows {
            let decision = decide(&policy, ctx, tool);
            assert_eq!(
                decision,
                Decision {
                    allowed,
                    layer,
                    rule: rule.map(str::to_string),
                },
                "{what}"
            );
        }
    }

    #[test]
    fn explain_output() {
        for (policy, ctx, tool, expected) in [
            (
                json!({ "deny": ["group:runtime"] }),
                json!({}),
                "exec",
                json!({ "allowed": false, "layer": "global", "rule": "deny: group:runtime" }),
            ),
            (
                json!({ "agents": { "a": { "allow": ["exec*"] } } }),
                json!({ "agentId": "a" }),
                "exec",
                json!({ "allowed": true, "layer": "agent", "rule": "allow: exec*" }),
            ),
            (
                json!({}),
                json!({}),
                "exec",
                json!({ "allowed": true, "layer": null, "rule": null }),
            ),
        ] {
            let decision = decide(&policy, &ctx, tool);
            assert_eq!(serde_json::to_value(&decision).unwrap(), expected);
        }
    }

    #[test]
    fn long_single_pattern_is_listed() {
        let long = "x".repeat(150);
        let decision = decide(&json!({ "allow": [long.clone(), "y"] }), &json!({}), "z");
        assert_eq!(
            decision.rule,
            Some(format!("not in allow: {long}, ... (1 more)"))
        );
    }
}
