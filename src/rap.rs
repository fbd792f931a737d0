//! `NativeRap`: remote tools over the Reactive Agent Protocol, driven by `ts/rap.ts`.
//!
//! The transport (`toolwire-rap`) runs on a small tokio runtime owned by this object, off the
//! JavaScript thread. Methods are synchronous: each starts its work on that runtime under a
//! ticket chosen by JavaScript and returns at once. Every asynchronous outcome (a toolset
//! loaded, a call's result, a thread closed, a choice answered) and every RAP event crosses
//! back through ONE weak threadsafe function, as one JSON text array of messages per crossing:
//! whatever is ready when the pump runs is drained into the same call, up to 4 MiB per
//! crossing (the rest goes in the next one). Events wait for JavaScript within a bounded room
//! (16 MiB), given back as JavaScript takes them: beyond it they back up to the callback server,
//! which answers 503. Results and answers are never held back.
//!
//! Messages (`toolwire_core::rap_message`, where their codes and layouts are declared once and
//! generated for `ts/rap.ts`): each a JSON array, its code first.
//! - `Loaded`: `[0, ticket, toolset, tools: [{ name, description, parameters }]]`
//! - `Result`: `[1, ticket, error, result, refused?]`: the tool's `tool_result` as received;
//!   `error` when its text starts with `Error:`; `refused` (`LIMIT_EXCEEDED` or
//!   `EXECUTION_ERROR`) when it stands for a callback the server refused.
//! - `Failed`: `[2, ticket, errorCode, message, status?]`: a load, call or request that failed
//!   (`status`: the HTTP status that rejected an invocation or a manifest).
//! - `Timeout`, `Cancelled`: `[3, ticket]`, `[4, ticket]`: a call that ended without a result (a
//!   cancel was sent).
//! - `Done`: `[5, ticket]`: a `closeThread` or `answerUserChoice` finished.
//! - `Event`: `[6, event]`: a RAP event (see `toolwire_rap::RapEvent::to_json`), written by
//!   `toolwire_rap::outbox::forward_events`.
//!
//! Nothing here can throw into Rust (JavaScript is only ever called through the threadsafe
//! function, whose receiver catches everything) and no panic crosses the boundary: synchronous
//! methods run under `guard`, and a task that panics is reported as an `INTERNAL_ERROR` message
//! for its ticket (see `Answer`).

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use parking_lot::Mutex;
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use toolwire_core::rap_message::{RapMessage, RemoteTool};
use toolwire_core::{Error, ErrorCode};
use toolwire_rap::outbox::{
    forward_events, join_batch, EventRoom, Parcel, BATCH_BYTES, EVENT_ROOM_BYTES,
};
use toolwire_rap::{
    HubOptions, RapCall, RapError, RapHub, RapOutcome, RetryPolicy, ServerOptions, ToolsetOptions,
};

use crate::convert::parse_json;
use crate::error::guard;

/// The one callback outcomes and events cross through: called with a JSON text array.
type Deliver = ThreadsafeFunction<String, (), String, Status, false, true>;

/// Worker threads of the runtime: the work is I/O-bound and light.
const WORKER_THREADS: usize = 2;

/// The RAP transport of one `ToolRuntime`: a hub (toolsets, client, callback server) on a
/// runtime of its own.
#[napi]
pub struct NativeRap {
    runtime: Option<tokio::runtime::Runtime>,
    hub: RapHub,
    outbox: mpsc::UnboundedSender<Parcel>,
    /// Calls in flight: their abort switches, by ticket.
    aborts: Arc<Mutex<HashMap<u32, oneshot::Sender<()>>>>,
}

impl Drop for NativeRap {
    fn drop(&mut self) {
        // Dropped on the JavaScript thread (the finalizer): never wait for worker threads
        // (a DNS lookup may be blocking one).
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[napi]
impl NativeRap {
    /// `options`: `{ bind?, publicUrl?, maxCallbackBytes? }` as JSON text (the callback
    /// server's, fixed for this object's life); `deliver` receives every outcome and event.
    #[napi(constructor)]
    pub fn new(
        options: String,
        #[napi(ts_arg_type = "(messages: string) => void")] deliver: Deliver,
    ) -> crate::error::Result<Self> {
        guard(|| {
            let server = server_options(&options)?;
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(WORKER_THREADS)
                .thread_name("toolwire-rap")
                .enable_all()
                .build()
                .map_err(|e| Error::internal(format!("cannot start the RAP runtime: {e}")))?;
            let hub = RapHub::new(HubOptions {
                server,
                ..HubOptions::default()
            })
            .map_err(rap_error)?;
            let (outbox, inbox) = mpsc::unbounded_channel();
            // Events wait for JavaScript within this room; beyond it they back up to the
            // callback server, which answers 503 when the hub's channel stays full.
            let room = EventRoom::new(EVENT_ROOM_BYTES);
            runtime.spawn(pump(inbox, deliver, room.clone()));
            if let Some(events) = hub.take_events() {
                runtime.spawn(forward_events(events, room, outbox.clone()));
            }
            Ok(NativeRap {
                runtime: Some(runtime),
                hub,
                outbox,
                aborts: Arc::default(),
            })
        })
    }

    /// Loads the toolset at `base_url` (`options`: `{ prefix?, retry?: { maxAttempts,
    /// baseDelayMs }, headers? }` as JSON text); answers `loaded` or `failed` under `ticket`.
    #[napi]
    pub fn load(&self, ticket: u32, base_url: String, options: String) -> crate::error::Result<()> {
        guard(|| {
            let options = toolset_options(&options)?;
            let hub = self.hub.clone();
            self.spawn(ticket, async move {
                match hub.load_toolset(&base_url, options).await {
                    Ok(names) => loaded(ticket, &hub, &names),
                    Err(e) => failed(ticket, &e),
                }
            })
        })
    }

    /// Forgets the toolset exposing `tool` (used when the runtime cannot register its tools,
    /// so the load is undone whole); returns whether one was loaded.
    #[napi]
    pub fn unload(&self, tool: String) -> bool {
        guard(|| Ok(self.hub.unload_toolset(&tool))).unwrap_or(false)
    }

    /// Forgets one remote tool (unregistered from the runtime): its name is free again.
    /// Returns whether it was loaded.
    #[napi]
    pub fn unload_tool(&self, tool: String) -> bool {
        guard(|| Ok(self.hub.unload_tool(&tool))).unwrap_or(false)
    }

    /// Invokes a remote tool under `ticket`. `call`: `{ tool, id, groupId, callId?,
    /// threadAncestors?, userId? }` as JSON text; `arguments`: the arguments' JSON text. Answers
    /// `result`, `failed`, `timeout` or `cancelled`.
    #[napi]
    pub fn invoke(&self, ticket: u32, call: String, arguments: String) -> crate::error::Result<()> {
        guard(|| {
            let call = rap_call(&call, arguments)?;
            let (abort, aborted) = oneshot::channel::<()>();
            self.aborts.lock().insert(ticket, abort);
            let hub = self.hub.clone();
            let aborts = Arc::clone(&self.aborts);
            let spawned = self.spawn(ticket, async move {
                let abort = async move {
                    // A dropped switch (the call ended) never aborts.
                    if aborted.await.is_err() {
                        std::future::pending::<()>().await;
                    }
                };
                let outcome = hub.invoke_until(call, abort).await;
                aborts.lock().remove(&ticket);
                outcome_message(ticket, outcome)
            });
            if spawned.is_err() {
                self.aborts.lock().remove(&ticket);
            }
            spawned
        })
    }

    /// Aborts the call under `ticket` (its signal aborted: timeout or cancel); it answers
    /// `cancelled` (unless its result was already in) and a cancel is sent. Returns whether the
    /// call was still in flight.
    #[napi]
    pub fn abort(&self, ticket: u32) -> bool {
        guard(|| {
            Ok(self
                .aborts
                .lock()
                .remove(&ticket)
                .map(|a| a.send(()))
                .is_some())
        })
        .unwrap_or(false)
    }

    /// Closes thread `group_id`: `POST /close_thread` to every server; answers `done`.
    #[napi]
    pub fn close_thread(&self, ticket: u32, group_id: String) -> crate::error::Result<()> {
        guard(|| {
            let hub = self.hub.clone();
            self.spawn(ticket, async move {
                hub.close_thread(&group_id).await;
                done(ticket)
            })
        })
    }

    /// Answers user choice `id` of thread `group_id` (without one: the only pending choice
    /// with that id) with option `selected` (POSTs `{ id, selected }` to its `response_url`);
    /// answers `done` or `failed`.
    #[napi]
    pub fn answer_user_choice(
        &self,
        ticket: u32,
        id: String,
        selected: u32,
        group_id: Option<String>,
    ) -> crate::error::Result<()> {
        guard(|| {
            let hub = self.hub.clone();
            let selected = usize::try_from(selected)
                .map_err(|_| Error::internal("a u32 does not fit a usize"))?;
            self.spawn(ticket, async move {
                match hub
                    .answer_user_choice(group_id.as_deref(), &id, selected)
                    .await
                {
                    Ok(()) => done(ticket),
                    Err(e) => failed(ticket, &e),
                }
            })
        })
    }

    /// Ends the subscription started by call `id` of thread `group_id` (a cancel is sent);
    /// returns whether one was open.
    #[napi]
    pub fn cancel_subscription(&self, group_id: String, id: String) -> crate::error::Result<bool> {
        guard(|| {
            // The cancel POST is spawned: it needs the runtime's context.
            let _entered = self.runtime()?.enter();
            Ok(self.hub.cancel_subscription(&group_id, &id))
        })
    }
}

impl NativeRap {
    fn runtime(&self) -> toolwire_core::Result<&tokio::runtime::Runtime> {
        self.runtime
            .as_ref()
            .ok_or_else(|| Error::internal("the RAP runtime was shut down"))
    }

    /// Runs `work` on the runtime; its message (or an `INTERNAL_ERROR` one if it panicked)
    /// goes to JavaScript under `ticket`.
    fn spawn(
        &self,
        ticket: u32,
        work: impl Future<Output = String> + Send + 'static,
    ) -> toolwire_core::Result<()> {
        let answer = Answer {
            ticket,
            outbox: Some(self.outbox.clone()),
        };
        self.runtime()?.spawn(async move {
            let message = work.await;
            answer.send(message);
        });
        Ok(())
    }
}

/// The answer a ticket is owed. Dropped unsent (its task panicked, or the runtime is shutting
/// down), it answers `INTERNAL_ERROR`: no promise in JavaScript waits forever.
struct Answer {
    ticket: u32,
    outbox: Option<mpsc::UnboundedSender<Parcel>>,
}

impl Answer {
    fn send(mut self, message: String) {
        if let Some(outbox) = self.outbox.take() {
            let _ = outbox.send(Parcel::answer(message));
        }
    }
}

impl Drop for Answer {
    fn drop(&mut self) {
        if let Some(outbox) = self.outbox.take() {
            let message = failure(
                self.ticket,
                ErrorCode::InternalError,
                "toolwire internal error (a bug; please report it): a RAP task ended without \
                 its answer"
                    .to_owned(),
                None,
            );
            let _ = outbox.send(Parcel::answer(message));
        }
    }
}

/// Sends every ready message to JavaScript, as many as are queued in one crossing, up to
/// `BATCH_BYTES` per crossing (a larger single message goes alone): what does not fit opens
/// the next crossing. The event room a crossing's events hold is given back once JavaScript
/// has run its callback on it.
async fn pump(mut inbox: mpsc::UnboundedReceiver<Parcel>, deliver: Deliver, room: EventRoom) {
    let mut carried: Option<Parcel> = None;
    loop {
        let first = match carried.take() {
            Some(message) => message,
            None => match inbox.recv().await {
                Some(message) => message,
                None => return,
            },
        };
        let (batch, rest) = join_batch(first, BATCH_BYTES, || inbox.try_recv().ok());
        carried = rest;
        let held = batch.room;
        let taken = room.clone();
        let status = deliver.call_with_return_value(
            batch.text,
            ThreadsafeFunctionCallMode::NonBlocking,
            move |_, _| {
                taken.give_back(held);
                Ok(())
            },
        );
        if status != Status::Ok {
            // Closing: the environment is going away; nothing is waiting any more.
            room.give_back(held);
        }
    }
}

fn loaded(ticket: u32, hub: &RapHub, names: &[String]) -> String {
    let mut toolset = String::new();
    let tools: Vec<RemoteTool> = names
        .iter()
        .filter_map(|name| hub.tool(name))
        .map(|tool| {
            toolset.clone_from(&tool.toolset.manifest.name);
            let def = tool.def();
            RemoteTool {
                name: tool.name.clone(),
                description: def.description.clone(),
                parameters: def.input_schema.clone(),
            }
        })
        .collect();
    RapMessage::Loaded {
        ticket,
        toolset,
        tools,
    }
    .into_json()
}

fn done(ticket: u32) -> String {
    RapMessage::Done { ticket }.into_json()
}

fn failure(ticket: u32, code: ErrorCode, message: String, status: Option<u16>) -> String {
    RapMessage::Failed {
        ticket,
        code,
        message,
        status,
    }
    .into_json()
}

fn failed(ticket: u32, error: &RapError) -> String {
    let status = match error {
        RapError::Rejected { status, .. } | RapError::ManifestStatus { status, .. } => {
            Some(*status)
        }
        _ => None,
    };
    failure(ticket, code_of(error), error.to_string(), status)
}

fn outcome_message(ticket: u32, outcome: RapOutcome) -> String {
    match outcome {
        RapOutcome::Ok(result) | RapOutcome::ToolError(result) => {
            let error = result.is_error();
            // A result standing for a callback the server refused: why, typed.
            let refused = result.refused;
            match serde_json::to_value(&result) {
                Ok(result) => RapMessage::Result {
                    ticket,
                    error,
                    result,
                    refused,
                }
                .into_json(),
                Err(e) => failure(
                    ticket,
                    ErrorCode::InternalError,
                    format!("toolwire internal error (a bug; please report it): a RAP result could not be serialized: {e}"),
                    None,
                ),
            }
        }
        RapOutcome::Failed(e) => failed(ticket, &e),
        RapOutcome::Timeout => RapMessage::Timeout { ticket }.into_json(),
        RapOutcome::Cancelled => RapMessage::Cancelled { ticket }.into_json(),
    }
}

/// The engine's error code for a transport error.
fn code_of(error: &RapError) -> ErrorCode {
    match error {
        RapError::DuplicateTool { .. } => ErrorCode::Conflict,
        RapError::InvalidToolset { .. }
        | RapError::ManifestParse { .. }
        | RapError::InvalidConfig { .. }
        | RapError::InvalidChoice { .. }
        | RapError::AmbiguousChoice { .. } => ErrorCode::ValidationError,
        RapError::UnknownTool { .. } | RapError::UnknownChoice { .. } => ErrorCode::NotFound,
        RapError::Bind { .. } => ErrorCode::PreconditionFailed,
        RapError::ManifestStatus { .. }
        | RapError::Rejected { .. }
        | RapError::Unreachable { .. } => ErrorCode::ExecutionError,
        RapError::Internal { .. } => ErrorCode::InternalError,
    }
}

fn rap_error(error: RapError) -> Error {
    Error::caller(code_of(&error), error.to_string())
}

fn invalid(message: String) -> Error {
    Error::caller(ErrorCode::ValidationError, message)
}

fn object<'a>(
    at: &str,
    value: &'a Value,
) -> toolwire_core::Result<&'a serde_json::Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| invalid(format!("{at} must be an object, got {value}")))
}

fn optional_string(
    at: &str,
    map: &serde_json::Map<String, Value>,
    key: &str,
) -> toolwire_core::Result<Option<String>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(invalid(format!("{at}.{key} must be a string, got {other}"))),
    }
}

fn whole_number(at: &str, value: &Value, min: u64, max: u64) -> toolwire_core::Result<u64> {
    value
        .as_u64()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| {
            invalid(format!(
                "{at} must be a whole number from {min} to {max}, got {value}"
            ))
        })
}

/// The callback server's options from `{ bind?, publicUrl?, maxCallbackBytes? }`.
fn server_options(text: &str) -> toolwire_core::Result<ServerOptions> {
    const AT: &str = "addRapToolset: options";
    let value = parse_json(AT, text)?;
    let map = object(AT, &value)?;
    let mut server = ServerOptions::default();
    if let Some(bind) = optional_string(AT, map, "bind")? {
        server.bind = bind.parse::<SocketAddr>().map_err(|e| {
            invalid(format!(
                "{AT}.bind {bind:?} is not an address with a port (like \"127.0.0.1:0\"): {e}"
            ))
        })?;
    }
    if let Some(url) = optional_string(AT, map, "publicUrl")? {
        // Checked now, not when the callback server starts with the first call.
        toolwire_rap::server::public_base_url(&url).map_err(rap_error)?;
        server.public_url = Some(url);
    }
    if let Some(max) = map.get("maxCallbackBytes").filter(|v| !v.is_null()) {
        let max = whole_number(&format!("{AT}.maxCallbackBytes"), max, 1, 1 << 30)?;
        server.max_callback_bytes = usize::try_from(max).unwrap_or(usize::MAX);
    }
    Ok(server)
}

/// A toolset's options from `{ prefix?, retry?: { maxAttempts, baseDelayMs }, headers? }`. The
/// tools' deadline (`timeoutMs`) is the dispatcher's, so it is not the transport's concern.
fn toolset_options(text: &str) -> toolwire_core::Result<ToolsetOptions> {
    const AT: &str = "addRapToolset: options";
    let value = parse_json(AT, text)?;
    let map = object(AT, &value)?;
    let mut options = ToolsetOptions {
        prefix: optional_string(AT, map, "prefix")?,
        ..ToolsetOptions::default()
    };
    if let Some(retry) = map.get("retry").filter(|v| !v.is_null()) {
        let at = format!("{AT}.retry");
        let retry_map = object(&at, retry)?;
        let mut policy = RetryPolicy::default();
        if let Some(n) = retry_map.get("maxAttempts").filter(|v| !v.is_null()) {
            let max = u64::from(toolwire_rap::client::MAX_ATTEMPTS);
            let n = whole_number(&format!("{at}.maxAttempts"), n, 1, max)?;
            policy.max_attempts = u32::try_from(n).unwrap_or(u32::MAX);
        }
        if let Some(ms) = retry_map.get("baseDelayMs").filter(|v| !v.is_null()) {
            let max =
                u64::try_from(toolwire_rap::client::MAX_DELAY.as_millis()).unwrap_or(u64::MAX);
            let ms = whole_number(&format!("{at}.baseDelayMs"), ms, 0, max)?;
            policy.base_delay = Duration::from_millis(ms);
        }
        options.retry = policy;
    }
    if let Some(headers) = map.get("headers").filter(|v| !v.is_null()) {
        let at = format!("{AT}.headers");
        for (name, value) in object(&at, headers)? {
            let Value::String(value) = value else {
                return Err(invalid(format!(
                    "{at}.{name} must be a string, got {value}"
                )));
            };
            options.headers.push((name.clone(), value.clone()));
        }
        toolwire_rap::client::check_headers(&options.headers).map_err(rap_error)?;
    }
    Ok(options)
}

/// A call from `{ tool, id, groupId, callId?, threadAncestors?, userId? }` and its arguments.
fn rap_call(text: &str, arguments: String) -> toolwire_core::Result<RapCall> {
    const AT: &str = "RAP call";
    let value = parse_json(AT, text)?;
    let map = object(AT, &value)?;
    let required = |key: &str| {
        optional_string(AT, map, key)?
            .ok_or_else(|| Error::internal(format!("{AT}: {key} is missing")))
    };
    let thread_ancestors = match map.get("threadAncestors") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str().map(str::to_owned).ok_or_else(|| {
                    invalid(format!(
                        "{AT}.threadAncestors must hold strings, got {item}"
                    ))
                })
            })
            .collect::<toolwire_core::Result<_>>()?,
        Some(other) => {
            return Err(invalid(format!(
                "{AT}.threadAncestors must be an array, got {other}"
            )))
        }
    };
    let arguments = RawValue::from_string(arguments)
        .map_err(|e| invalid(format!("{AT}: the arguments are not JSON: {e}")))?;
    Ok(RapCall {
        tool: required("tool")?,
        arguments,
        id: required("id")?,
        call_id: optional_string(AT, map, "callId")?,
        group_id: required("groupId")?,
        thread_ancestors,
        user_id: optional_string(AT, map, "userId")?,
        timeout: None,
    })
}
