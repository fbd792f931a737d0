//! `NativeRuntime`: the engine's runtime, driven by `ToolRuntime` in `index.js`.

use napi::bindgen_prelude::{Float64Array, Uint32Array, Uint8Array};
use napi_derive::napi;
use toolwire_core::definitions::parse_definition_options;
use toolwire_core::dispatch::protocol::{
    actions_to_json, parse_batch_options, parse_calls, parse_completions,
};
use toolwire_core::dispatch::{Action, Now};
use toolwire_core::json_input;
use toolwire_core::json_text::json_string;
use toolwire_core::policy::approvals::ApprovalDecision;
use toolwire_core::policy::tools::PolicyContext;
use toolwire_core::registry::ToolDeclaration;
use toolwire_core::{parse_runtime_options, Error, ErrorCode, Runtime};

use crate::error::guard;

/// The engine side of a `ToolRuntime`: the registry and the dispatcher. Every method takes and
/// returns JSON text; methods that advance dispatch return the next actions.
#[napi]
pub struct NativeRuntime {
    inner: Runtime,
    /// Set after an internal error: the dispatcher's state can no longer be trusted.
    broken: bool,
}

#[napi]
impl NativeRuntime {
    /// `options`: `{ concurrency?, timeoutMs?, coerce? }` as JSON.
    #[napi(constructor)]
    pub fn new(options: String) -> crate::error::Result<Self> {
        guard(|| {
            Ok(NativeRuntime {
                inner: Runtime::new(parse_runtime_options(&options)?),
                broken: false,
            })
        })
    }

    /// Registers a tool declaration (JSON); returns its registration id.
    #[napi]
    pub fn register(&mut self, declaration: String) -> crate::error::Result<u32> {
        self.run(|inner| {
            let declaration = json_input::repair_surrogates(&declaration);
            let declaration = ToolDeclaration::from_json("register", &declaration)?;
            let id = inner.register(declaration)?;
            u32::try_from(id).map_err(|_| Error::internal("registration ids exhausted"))
        })
    }

    /// Registers the tools of plugin `id` (`declarations`: a JSON array), all or none; returns
    /// their registration ids in order.
    #[napi]
    pub fn register_plugin(
        &mut self,
        id: String,
        declarations: String,
    ) -> crate::error::Result<Vec<u32>> {
        self.run(|inner| {
            let declarations = json_input::repair_surrogates(&declarations);
            let where_ = format!("registerPlugin({})", json_string(&id));
            let declarations: Vec<serde_json::Value> =
                toolwire_core::options::from_json_text(&where_, &declarations)?;
            let declarations = declarations
                .iter()
                .map(|value| ToolDeclaration::from_json(&where_, &value.to_string()))
                .collect::<Result<Vec<_>, _>>()?;
            let ids = inner.register_plugin(&id, declarations)?;
            ids.into_iter()
                .map(|id| {
                    u32::try_from(id).map_err(|_| Error::internal("registration ids exhausted"))
                })
                .collect()
        })
    }

    /// Whether `tool` may be called in `context` (JSON `{ provider, agentId, sender }`):
    /// `{ allowed, layer, rule }` as JSON.
    #[napi]
    pub fn explain_policy(
        &mut self,
        tool: String,
        context: String,
    ) -> crate::error::Result<String> {
        self.run(|inner| {
            let context = parse_context("explainPolicy: context", &context)?;
            let decision = inner.explain_policy(&tool, &context);
            Ok(serde_json::to_string(&decision).expect("a decision serializes"))
        })
    }

    /// Unregisters a tool by name; returns whether it was registered.
    #[napi]
    pub fn unregister(&mut self, name: String) -> crate::error::Result<bool> {
        self.run(|inner| Ok(inner.unregister(&name)))
    }

    /// The registered tools as a JSON array.
    #[napi]
    pub fn list(&mut self) -> crate::error::Result<String> {
        self.run(|inner| Ok(inner.list().to_string()))
    }

    /// The registered tools `context` may call (JSON `{ provider, agentId, sender }`, empty for
    /// none) in `target`'s definition format with the normalization reports: `{ tools,
    /// reports }` as JSON; `options` is JSON text (empty for defaults).
    #[napi]
    pub fn definitions(
        &mut self,
        target: String,
        options: String,
        context: String,
    ) -> crate::error::Result<String> {
        self.run(|inner| {
            let options = parse_definition_options(&options)?;
            let context = parse_context("definitions: options", &context)?;
            Ok(inner.definitions(&target, &options, &context)?.to_string())
        })
    }

    /// Opens batch `batch`: `calls` is `[[id, name, kind], ...]` (JSON), `arguments` the calls'
    /// arguments texts joined, each `argument_lengths[i]` UTF-16 units long (see
    /// `toolwire_core::joined`), `options` JSON. Returns the first actions.
    ///
    /// Every method that advances dispatch takes the driver's clock last: `monotonic_ms` from
    /// `performance.now()` and `epoch_ms` from `Date.now()` (see [`Now::from_millis`]).
    #[napi]
    // (one crossing: each argument is a string, a typed array or a number that N-API reads as it
    // is, cheaper than the fields of one object)
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        &mut self,
        batch: u32,
        calls: String,
        arguments: String,
        argument_lengths: Uint32Array,
        options: String,
        monotonic_ms: f64,
        epoch_ms: f64,
    ) -> crate::error::Result<String> {
        self.act(Now::from_millis(monotonic_ms, epoch_ms), |inner, now| {
            let arguments = toolwire_core::joined::split(&arguments, &argument_lengths)
                .map_err(|e| Error::internal(format!("malformed calls from the driver: {e}")))?
                .into_iter()
                .map(str::to_owned)
                .collect();
            let calls = parse_calls(&calls, arguments)?;
            let options = parse_batch_options(&options)?;
            inner.open(batch, calls, options, now)
        })
    }

    /// Feeds back completions: `heads` holds `[batch, slot, token, kind, payload length]` per
    /// completion, `readings` `[started, settled]` (`performance.now()` when a tool started and
    /// settled, `NaN` for anything but a tool) and `payloads` their payloads (JSON text) joined
    /// (see `toolwire_core::joined`), parsed one by one so that a payload that cannot be read
    /// fails its own call only. Returns the next actions.
    #[napi]
    pub fn complete(
        &mut self,
        heads: Uint32Array,
        readings: Float64Array,
        payloads: String,
        monotonic_ms: f64,
        epoch_ms: f64,
    ) -> crate::error::Result<String> {
        self.act(Now::from_millis(monotonic_ms, epoch_ms), |inner, now| {
            Ok(inner.complete(parse_completions(&heads, &readings, &payloads)?, now))
        })
    }

    /// The timer fired; returns the next actions.
    #[napi]
    pub fn tick(&mut self, monotonic_ms: f64, epoch_ms: f64) -> crate::error::Result<String> {
        self.act(Now::from_millis(monotonic_ms, epoch_ms), |inner, now| {
            Ok(inner.tick(now))
        })
    }

    /// Runs or refuses the call left `pending` under `approval_id` as batch `batch` (`decision`:
    /// `allow-once`, `allow-always` or `deny`); returns `[call, actions]` as JSON, `call` being
    /// `{ id, name, arguments, runId }`.
    #[napi]
    pub fn resume_approval(
        &mut self,
        batch: u32,
        approval_id: String,
        decision: String,
        events: bool,
        monotonic_ms: f64,
        epoch_ms: f64,
    ) -> crate::error::Result<String> {
        let now = Now::from_millis(monotonic_ms, epoch_ms);
        self.run(|inner| {
            let decision = ApprovalDecision::from_json(
                &serde_json::Value::String(decision),
                "resolveApproval: decision",
            )?;
            let (call, actions) = inner.resume(batch, &approval_id, decision, events, now)?;
            let mut call_json = serde_json::json!({
                "id": call.id,
                "name": call.name,
                "arguments": call.arguments,
                "runId": call.run_id,
            });
            if let Some(serde_json::Value::Object(stamp)) =
                call.stamp.map(|stamp| serde_json::json!(stamp))
            {
                call_json
                    .as_object_mut()
                    .expect("an object literal")
                    .extend(stamp);
            }
            let call = call_json;
            Ok(format!("[{call},{}]", actions_to_json(&actions)))
        })
    }

    /// The run `run_id` ended: its loop-detection counts are forgotten.
    #[napi]
    pub fn end_run(&mut self, run_id: String) -> crate::error::Result<()> {
        self.run(|inner| {
            inner.end_run(&run_id);
            Ok(())
        })
    }

    /// Cancels a batch; returns the next actions.
    #[napi]
    pub fn cancel(
        &mut self,
        batch: u32,
        monotonic_ms: f64,
        epoch_ms: f64,
    ) -> crate::error::Result<String> {
        self.act(Now::from_millis(monotonic_ms, epoch_ms), |inner, now| {
            Ok(inner.cancel(batch, now))
        })
    }

    /// The sanitizer of an open batch for one of its tool's outputs: big ones (long strings,
    /// bytes, images, media lines) are sanitized with it off the JavaScript thread.
    #[napi]
    pub fn output_sanitizer(
        &mut self,
        batch: u32,
        tool: String,
    ) -> crate::error::Result<crate::sanitize::NativeSanitizer> {
        self.run(|inner| {
            let trusted_media = inner
                .registry()
                .get(&tool)
                .is_some_and(|spec| spec.trusted_media);
            Ok(crate::sanitize::NativeSanitizer {
                sanitizer: inner.rules_for(batch).sanitizer.clone(),
                trusted_media,
            })
        })
    }

    /// Sanitizes a tool's described output now (long strings as their two ends, bytes read
    /// near their ends, so the work is bounded by the budget); returns the completion's JSON
    /// text `[value, report]` (see `toolwire_core::sanitize::blocks::sanitize_output`).
    #[napi]
    pub fn sanitize_output(
        &mut self,
        batch: u32,
        tool: String,
        description: String,
        texts: Vec<String>,
        buffers: Vec<Uint8Array>,
    ) -> crate::error::Result<String> {
        let buffers: Vec<&[u8]> = buffers.iter().map(|b| &b[..]).collect();
        self.run(|inner| {
            let trusted_media = inner
                .registry()
                .get(&tool)
                .is_some_and(|spec| spec.trusted_media);
            let rules = inner.rules_for(batch);
            let input = toolwire_core::sanitize::blocks::Described {
                description: &description,
                texts: &texts,
                buffers: &buffers,
            };
            toolwire_core::sanitize::blocks::sanitize_output(&rules.sanitizer, input, trusted_media)
        })
    }

    /// A tool's partial result (JSON text) as its `tool_execution_update` event carries it.
    #[napi]
    pub fn update_view(
        &mut self,
        batch: u32,
        tool: String,
        partial: String,
    ) -> crate::error::Result<String> {
        self.run(|inner| {
            let value = crate::convert::parse_value("onUpdate: partial result", &partial)?;
            Ok(inner.update_view(batch, &tool, value).to_string())
        })
    }

    /// Panics inside the engine on purpose, so tests can check that a panic becomes a thrown
    /// `INTERNAL_ERROR` and never a crash. Not part of the public API.
    #[napi(js_name = "__panicForTests")]
    pub fn panic_for_tests(&mut self) -> crate::error::Result<()> {
        self.run(|_| panic!("deliberate panic requested by a test"))
    }

    fn act(
        &mut self,
        now: Now,
        f: impl FnOnce(&mut Runtime, Now) -> toolwire_core::Result<Vec<Action>>,
    ) -> crate::error::Result<String> {
        self.run(|inner| Ok(actions_to_json(&f(inner, now)?)))
    }

    fn run<T>(
        &mut self,
        f: impl FnOnce(&mut Runtime) -> toolwire_core::Result<T>,
    ) -> crate::error::Result<T> {
        if self.broken {
            return guard(|| {
                Err(Error::internal(
                    "this runtime stopped after an earlier internal error; create a new ToolRuntime",
                ))
            });
        }
        let inner = &mut self.inner;
        let result = guard(|| f(inner));
        if matches!(&result, Err(e) if e.status.0 == ErrorCode::InternalError) {
            self.broken = true;
        }
        result
    }
}

/// A policy context from JSON text (empty: none); its errors name `at`.
fn parse_context(at: &str, text: &str) -> toolwire_core::Result<PolicyContext> {
    if text.is_empty() {
        return Ok(PolicyContext::default());
    }
    let value = crate::convert::parse_json(at, text)?;
    PolicyContext::from_json_at(&value, at)
}
