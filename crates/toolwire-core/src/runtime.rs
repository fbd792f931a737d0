//! A runtime: the registered tools and the scheduler that runs their calls.

use serde::Deserialize;
use serde_json::Value;

use crate::definitions::{definitions, DefinitionOptions};
use crate::dispatch::{
    Action, AllowedTools, BatchOptions, CallRequest, Completion, DispatchConfig, Dispatcher, Now,
    ResumedCall,
};
use crate::error::{Error, ErrorCode, Result};
use crate::gate::PolicyGate;
use crate::policy::approvals::{ApprovalDecision, ApprovalStore};
use crate::policy::tools::{Decision, PolicyContext};
use crate::registry::{positive_millis, Registry, ToolDeclaration};
use crate::sanitize::{ResultRules, RuleOptions};
use std::sync::Arc;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawRuntimeOptions {
    #[serde(default)]
    concurrency: Option<f64>,
    #[serde(default)]
    timeout_ms: Option<f64>,
    #[serde(default)]
    coerce: Option<Value>,
    #[serde(default)]
    policy: Value,
    #[serde(default)]
    workspace_root: Value,
    #[serde(default)]
    loop_detection: Value,
    #[serde(default)]
    approvals: Value,
    #[serde(flatten)]
    rules: RuleOptions,
}

/// A runtime's settings: the scheduler's limits, the defaults of its tools, and how results are
/// sanitized.
#[derive(Debug, Default)]
pub struct RuntimeConfig {
    /// Concurrency and the default deadline.
    pub dispatch: DispatchConfig,
    /// Whether tools coerce scalar arguments unless they say otherwise (off by default).
    pub coerce: bool,
    /// `sanitize`, `limits` and `redaction`.
    pub rules: ResultRules,
    /// `policy`, `workspaceRoot`, `loopDetection` and `approvals`.
    pub gate: PolicyGate,
    /// The `allow-always` grants of `approvals.file`.
    pub store: ApprovalStore,
}

/// Parses `{ concurrency?, timeoutMs?, coerce?, sanitize?, limits?, redaction?, policy?,
/// workspaceRoot?, loopDetection?, approvals? }`; a bad value is the caller's error, naming it.
pub fn parse_runtime_options(text: &str) -> Result<RuntimeConfig> {
    let raw: RawRuntimeOptions = crate::options::from_json_text("ToolRuntime: options", text)?;
    let mut config = DispatchConfig::default();
    if let Some(n) = raw.concurrency {
        if !(n.is_finite() && n >= 1.0 && n.fract() == 0.0 && n <= 1.0e9) {
            return Err(Error::caller(
                ErrorCode::ValidationError,
                format!("runtime option concurrency must be a whole number of at least 1, got {n}"),
            ));
        }
        config.concurrency = n as usize;
    }
    if let Some(ms) = raw.timeout_ms {
        config.timeout_ms = positive_millis(ms).ok_or_else(|| {
            Error::caller(
                ErrorCode::ValidationError,
                format!(
                    "runtime option timeoutMs must be a positive number of milliseconds, got {ms}"
                ),
            )
        })?;
    }
    let coerce = match raw.coerce {
        None | Some(Value::Null) => false,
        Some(Value::Bool(coerce)) => coerce,
        Some(other) => {
            return Err(Error::caller(
                ErrorCode::ValidationError,
                format!(
                    "runtime option coerce must be true or false, got {}",
                    crate::quote::quoted_json(&other)
                ),
            ))
        }
    };
    let rules = ResultRules::default().with(&raw.rules, "runtime option ")?;
    let gate = PolicyGate::from_options(
        &raw.policy,
        &raw.workspace_root,
        &raw.loop_detection,
        &raw.approvals,
    )?;
    let store = match &gate.approvals().file {
        Some(file) => ApprovalStore::load(file)?,
        None => ApprovalStore::in_memory(),
    };
    Ok(RuntimeConfig {
        dispatch: config,
        coerce,
        rules,
        gate,
        store,
    })
}

/// The tools of one runtime and the scheduler of their calls.
pub struct Runtime {
    registry: Registry,
    dispatcher: Dispatcher,
    gate: Arc<PolicyGate>,
}

impl Runtime {
    /// A runtime with these settings and no tools.
    pub fn new(config: RuntimeConfig) -> Self {
        let gate = Arc::new(config.gate);
        Runtime {
            registry: Registry::with_default_coerce(config.coerce),
            dispatcher: Dispatcher::new(
                config.dispatch,
                config.rules,
                Arc::clone(&gate),
                config.store,
            ),
            gate,
        }
    }

    /// The registered tools.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Registers a tool; returns its registration id.
    pub fn register(&mut self, declaration: ToolDeclaration) -> Result<u64> {
        self.gate.check_declaration(&declaration)?;
        Ok(self.registry.register(declaration)?.id)
    }

    /// Registers the tools of plugin `id`, all or none; returns their registration ids. See
    /// [`Registry::register_plugin`].
    pub fn register_plugin(
        &mut self,
        id: &str,
        declarations: Vec<ToolDeclaration>,
    ) -> Result<Vec<u64>> {
        for declaration in &declarations {
            self.gate.check_declaration(declaration)?;
        }
        let specs = self.registry.register_plugin(id, declarations)?;
        Ok(specs.iter().map(|spec| spec.id).collect())
    }

    /// Whether `tool` may be called in `ctx`, and the layer and rule that decided.
    pub fn explain_policy(&self, tool: &str, ctx: &PolicyContext) -> Decision {
        self.gate.explain(tool, ctx, &self.registry)
    }

    /// Unregisters a tool; its calls in flight finish, its queued calls end `NOT_FOUND`.
    pub fn unregister(&mut self, name: &str) -> bool {
        self.registry.unregister(name)
    }

    /// What `list()` returns: one object per tool, in registration order.
    pub fn list(&self) -> Value {
        Value::Array(self.registry.iter().map(|spec| spec.info()).collect())
    }

    /// The registered tools `ctx` may call, in `target`'s definition format, with the
    /// normalization reports. See [`definitions`].
    pub fn definitions(
        &self,
        target: &str,
        options: &DefinitionOptions,
        ctx: &PolicyContext,
    ) -> Result<Value> {
        let registry = &self.registry;
        let only = options.tools.clone().map(AllowedTools::new);
        if let Some(only) = &only {
            only.check_option("definitions: options.tools", registry)?;
        }
        let allowed = self
            .registry
            .iter()
            .filter(|spec| only.as_ref().is_none_or(|only| only.allows(&spec.name)))
            .filter(|spec| self.gate.admit(spec, ctx, registry).is_ok())
            .map(|spec| spec.as_ref());
        definitions(allowed, target, options)
    }

    /// The result rules of an open batch, or the runtime's when it is not open.
    pub fn rules_for(&self, batch_id: u32) -> std::sync::Arc<ResultRules> {
        self.dispatcher
            .batch_rules(batch_id)
            .unwrap_or_else(|| self.dispatcher.runtime_rules().clone())
    }

    /// A tool's partial result as its update event carries it. See
    /// [`crate::dispatch::partial_view`].
    pub fn update_view(&self, batch_id: u32, tool: &str, value: Value) -> Value {
        let rules = self.rules_for(batch_id);
        let spec = self.registry.get(tool);
        crate::dispatch::partial_view(&rules, spec.map(|s| s.as_ref()), value)
    }

    /// Opens a batch of calls. See [`Dispatcher::open`].
    pub fn open(
        &mut self,
        batch_id: u32,
        calls: Vec<CallRequest>,
        options: BatchOptions,
        now: Now,
    ) -> Result<Vec<Action>> {
        self.dispatcher
            .open(&self.registry, batch_id, calls, options, now)
    }

    /// Feeds back completions. See [`Dispatcher::complete`].
    pub fn complete(&mut self, completions: Vec<Completion>, now: Now) -> Vec<Action> {
        self.dispatcher.complete(&self.registry, completions, now)
    }

    /// Expires passed deadlines. See [`Dispatcher::tick`].
    pub fn tick(&mut self, now: Now) -> Vec<Action> {
        self.dispatcher.tick(&self.registry, now)
    }

    /// Runs or refuses a call left `pending` for approval, as batch `batch_id`. See
    /// [`Dispatcher::resume`].
    pub fn resume(
        &mut self,
        batch_id: u32,
        approval_id: &str,
        decision: ApprovalDecision,
        events: bool,
        now: Now,
    ) -> Result<(ResumedCall, Vec<Action>)> {
        self.dispatcher
            .resume(&self.registry, batch_id, approval_id, decision, events, now)
    }

    /// The run `run_id` ended (a `run()` or `executePlan()`): its loop counts are forgotten.
    pub fn end_run(&mut self, run_id: &str) {
        self.dispatcher.end_run(run_id);
    }

    /// Cancels a batch. See [`Dispatcher::cancel`].
    pub fn cancel(&mut self, batch_id: u32, now: Now) -> Vec<Action> {
        self.dispatcher.cancel(&self.registry, batch_id, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_default_to_sixteen_and_two_minutes() {
        let config = parse_runtime_options("{}").unwrap();
        assert_eq!(
            config.dispatch,
            DispatchConfig {
                concurrency: 16,
                timeout_ms: 120_000
            }
        );
        assert!(!config.coerce);
        let config =
            parse_runtime_options(r#"{"concurrency":3,"timeoutMs":50,"coerce":true}"#).unwrap();
        assert_eq!(
            config.dispatch,
            DispatchConfig {
                concurrency: 3,
                timeout_ms: 50
            }
        );
        assert!(config.coerce);
    }

    #[test]
    fn bad_options_name_the_value() {
        for (text, expected) in [
            (r#"{"concurrency":0}"#, "got 0"),
            (r#"{"concurrency":1.5}"#, "got 1.5"),
            (r#"{"timeoutMs":-3}"#, "got -3"),
            (
                r#"{"coerce":"yes"}"#,
                "coerce must be true or false, got \"yes\"",
            ),
        ] {
            let error = parse_runtime_options(text).unwrap_err();
            assert!(error.message.contains(expected), "{}", error.message);
        }
    }
}
