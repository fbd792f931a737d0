//! [`RapHub`]: toolsets, the client and the lazily started callback server, tied together.
//!
//! Designed to be driven from a binding: the hub is cheap to clone and every method works
//! from any task of a tokio multi-thread runtime, so each call can be spawned and its
//! [`RapOutcome`] pushed into a channel that the binding drains in batches.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use serde_json::value::RawValue;
use tokio::sync::{mpsc, OnceCell};

use crate::callback::ToolResult;
use crate::client::{check_headers, Invocation, NotifyTarget, RapClient, MAX_MANIFEST_BYTES};
use crate::error::RapError;
use crate::event::RapEvent;
use crate::manifest::{
    manifest_url, parse_manifest, LoadedToolset, RemoteTool, ToolsetOptions, Toolsets,
};
use crate::server::{CallbackServer, ServerOptions};

/// Options of a [`RapHub`].
#[derive(Debug, Clone)]
pub struct HubOptions {
    /// The callback server's options (`bind`, `publicUrl`, `maxCallbackBytes`, ...).
    pub server: ServerOptions,
    /// Per-request timeout of outgoing HTTP requests (one attempt).
    pub request_timeout: Duration,
    /// Capacity of the event channel; a full channel makes the sending tool wait.
    pub event_capacity: usize,
}

impl Default for HubOptions {
    fn default() -> Self {
        HubOptions {
            server: ServerOptions::default(),
            request_timeout: Duration::from_secs(30),
            event_capacity: 1024,
        }
    }
}

/// One remote tool call.
#[derive(Debug, Clone)]
pub struct RapCall {
    /// The exposed tool name.
    pub tool: String,
    /// The arguments as JSON text.
    pub arguments: Box<RawValue>,
    /// The call's id (the invocation's `id`).
    pub id: String,
    /// The provider's companion id.
    pub call_id: Option<String>,
    /// The thread (`groupId`, by default the run's id).
    pub group_id: String,
    /// Ancestor threads, root first.
    pub thread_ancestors: Vec<String>,
    /// The user, if known.
    pub user_id: Option<String>,
    /// The dispatch's deadline for this call; the toolset's `timeoutMs`, if any, also applies
    /// (the shorter wins).
    pub timeout: Option<Duration>,
}

/// How a remote call ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RapOutcome {
    /// The tool's result.
    Ok(ToolResult),
    /// The tool's result, which reports an error (its text starts with `Error:`).
    ToolError(ToolResult),
    /// The call could not be made: unknown tool, rejected invocation, unreachable server.
    Failed(RapError),
    /// No result by the deadline; a cancel was sent.
    Timeout,
    /// Aborted by the caller; a cancel was sent.
    Cancelled,
}

struct HubInner {
    options: HubOptions,
    client: RapClient,
    server: OnceCell<CallbackServer>,
    toolsets: RwLock<Toolsets>,
    events_tx: mpsc::Sender<RapEvent>,
    events_rx: Mutex<Option<mpsc::Receiver<RapEvent>>>,
}

/// The RAP transport of one runtime. Clones share everything.
#[derive(Clone)]
pub struct RapHub {
    inner: Arc<HubInner>,
}

impl std::fmt::Debug for RapHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RapHub")
            .field("tools", &self.tool_names())
            .finish_non_exhaustive()
    }
}

impl RapHub {
    /// A hub; nothing is started until it is used.
    pub fn new(options: HubOptions) -> Result<Self, RapError> {
        let client = RapClient::new(options.request_timeout)?;
        let (events_tx, events_rx) = mpsc::channel(options.event_capacity.max(1));
        Ok(RapHub {
            inner: Arc::new(HubInner {
                options,
                client,
                server: OnceCell::new(),
                toolsets: RwLock::new(Toolsets::new()),
                events_tx,
                events_rx: Mutex::new(Some(events_rx)),
            }),
        })
    }

    /// The receiver of events (subscription events, oauth, user choices, view updates).
    /// Given once; later calls return `None`.
    pub fn take_events(&self) -> Option<mpsc::Receiver<RapEvent>> {
        self.inner.events_rx.lock().take()
    }

    /// The callback server, started on first use.
    pub async fn server(&self) -> Result<&CallbackServer, RapError> {
        self.inner
            .server
            .get_or_try_init(|| {
                CallbackServer::start(
                    self.inner.options.server.clone(),
                    self.inner.events_tx.clone(),
                )
            })
            .await
    }

    /// Fetches `{base_url}/.well-known/rap-toolset`, validates it whole and registers its
    /// tools; returns their exposed names. A name already loaded refuses the whole toolset.
    pub async fn load_toolset(
        &self,
        base_url: &str,
        options: ToolsetOptions,
    ) -> Result<Vec<String>, RapError> {
        check_headers(&options.headers)?;
        let url = manifest_url(base_url);
        let body = self
            .inner
            .client
            .get_limited(&url, &options.headers, MAX_MANIFEST_BYTES)
            .await?;
        let manifest = parse_manifest(&url, &body)?;
        let toolset = LoadedToolset::new(base_url, manifest, options)?;
        self.inner.toolsets.write().add(toolset)
    }

    /// Forgets the toolset that exposes `tool`, whole; returns whether one did. Calls in flight
    /// finish; new calls of its tools fail as unknown.
    pub fn unload_toolset(&self, tool: &str) -> bool {
        self.inner.toolsets.write().remove_toolset(tool)
    }

    /// Forgets one exposed tool (its name is free again); the toolset goes with its last tool.
    /// Returns whether it was exposed.
    pub fn unload_tool(&self, name: &str) -> bool {
        self.inner.toolsets.write().remove_tool(name)
    }

    /// The tool exposed under `name`.
    pub fn tool(&self, name: &str) -> Option<Arc<RemoteTool>> {
        self.inner.toolsets.read().get(name)
    }

    /// Every exposed tool name, sorted.
    pub fn tool_names(&self) -> Vec<String> {
        self.inner.toolsets.read().names()
    }

    /// Where cancels and close_thread go: every loaded toolset's base URL, with its headers.
    pub fn notify_targets(&self) -> Vec<NotifyTarget> {
        self.inner.toolsets.read().notify_targets()
    }

    /// Invokes a remote tool and waits for its result or its deadline.
    pub async fn invoke(&self, call: RapCall) -> RapOutcome {
        self.invoke_until(call, std::future::pending()).await
    }

    /// Like [`Self::invoke`], and aborted when `abort` completes: the outcome is then
    /// [`RapOutcome::Cancelled`] (unless the result was already in) and a cancel is sent.
    pub async fn invoke_until(
        &self,
        call: RapCall,
        abort: impl Future<Output = ()> + Send,
    ) -> RapOutcome {
        let Some(tool) = self.tool(&call.tool) else {
            return RapOutcome::Failed(RapError::UnknownTool { tool: call.tool });
        };
        let server = match self.server().await {
            Ok(server) => server,
            Err(e) => return RapOutcome::Failed(e),
        };
        let mut registration = match server.register(&call.group_id, &call.id) {
            Ok(registration) => registration,
            Err(e) => return RapOutcome::Failed(e),
        };
        let toolset = &tool.toolset;
        let timeout = match (call.timeout, toolset.options.timeout) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let deadline = async {
            match timeout {
                Some(t) => tokio::time::sleep(t).await,
                None => std::future::pending().await,
            }
        };
        let callback_url = registration.callback_url().to_owned();
        let invocation = Invocation {
            operation: &tool.operation,
            arguments: &call.arguments,
            id: &call.id,
            call_id: call.call_id.as_deref(),
            callback_url: &callback_url,
            group_id: &call.group_id,
            thread_ancestors: &call.thread_ancestors,
            user_id: call.user_id.as_deref(),
        };
        let post = self.inner.client.invoke(
            &toolset.endpoint,
            &invocation,
            &toolset.options.headers,
            &toolset.options.retry,
        );
        tokio::pin!(post, deadline, abort);
        let mut accepted = false;
        let ended = loop {
            tokio::select! {
                biased;
                result = registration.result() => {
                    return match result {
                        Some(result) => outcome_of(result),
                        None => RapOutcome::Failed(RapError::Internal {
                            message: "callback server stopped".to_owned(),
                        }),
                    };
                }
                posted = &mut post, if !accepted => match posted {
                    Ok(()) => accepted = true,
                    Err(e) => break RapOutcome::Failed(e),
                },
                () = &mut deadline => break RapOutcome::Timeout,
                () = &mut abort => break RapOutcome::Cancelled,
            }
        };
        // The token expires now; a result accepted in the meantime wins.
        if let Some(result) = registration.end() {
            return outcome_of(result);
        }
        if matches!(ended, RapOutcome::Timeout | RapOutcome::Cancelled) {
            self.send_cancel(&call.group_id, &call.id);
        }
        ended
    }

    /// Sends `cancel_tool_call` to every configured server, in the background.
    fn send_cancel(&self, group_id: &str, id: &str) {
        let client = self.inner.client.clone();
        let servers = self.notify_targets();
        let (group_id, id) = (group_id.to_owned(), id.to_owned());
        tokio::spawn(async move {
            client.cancel_tool_call(&servers, &group_id, &id).await;
        });
    }

    /// Closes a thread: `POST /close_thread { thread_id }` to every configured server (best
    /// effort), and forgets the thread's subscriptions, results and pending choices.
    pub async fn close_thread(&self, group_id: &str) {
        if let Some(server) = self.inner.server.get() {
            server.close_group(group_id);
        }
        let servers = self.notify_targets();
        self.inner.client.close_thread(&servers, group_id).await;
    }

    /// Ends the subscription started by call `id` of `group_id` (its later events are
    /// refused) and sends `cancel_tool_call` for it. Returns whether one was open.
    pub fn cancel_subscription(&self, group_id: &str, id: &str) -> bool {
        let open = self
            .inner
            .server
            .get()
            .is_some_and(|server| server.end_subscription(group_id, id));
        if open {
            self.send_cancel(group_id, id);
        }
        open
    }

    /// Answers pending user choice `id` of thread `group_id` (without a thread: the one
    /// pending choice with that id; an id pending in several threads is refused, naming them):
    /// POSTs `{ id, selected }` to its `response_url`.
    pub async fn answer_user_choice(
        &self,
        group_id: Option<&str>,
        id: &str,
        selected: usize,
    ) -> Result<(), RapError> {
        let server = self
            .inner
            .server
            .get()
            .ok_or_else(|| RapError::UnknownChoice {
                id: id.to_owned(),
                group_id: group_id.map(str::to_owned),
            })?;
        let choice = server.take_choice(group_id, id)?;
        if selected >= choice.choices {
            let error = RapError::InvalidChoice {
                id: id.to_owned(),
                selected,
                choices: choice.choices,
            };
            server.restore_choice(id, choice);
            return Err(error);
        }
        let sent = self
            .inner
            .client
            .answer_user_choice(&choice.response_url, id, selected)
            .await;
        if sent.is_err() {
            server.restore_choice(id, choice);
        }
        sent
    }
}

fn outcome_of(result: ToolResult) -> RapOutcome {
    if result.is_error() {
        RapOutcome::ToolError(result)
    } else {
        RapOutcome::Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::callback::ContentItem;
    use crate::client::RetryPolicy;
    use crate::event::RapEventKind;
    use crate::test_support::{manifest, post, ToolServer, DEADLINE};
    use serde_json::{json, Value};

    fn fast_retry(max_attempts: u32) -> RetryPolicy {
        RetryPolicy {
            max_attempts,
            base_delay: Duration::from_millis(1),
        }
    }

    async fn hub_with(server: &ToolServer, options: ToolsetOptions) -> RapHub {
        let hub = RapHub::new(HubOptions::default()).unwrap();
        hub.load_toolset(&server.base_url, options).await.unwrap();
        hub
    }

    fn call(tool: &str, id: &str, arguments: Value) -> RapCall {
        RapCall {
            tool: tool.to_owned(),
            arguments: RawValue::from_string(arguments.to_string()).unwrap(),
            id: id.to_owned(),
            call_id: Some(format!("prov-{id}")),
            group_id: "run-1".to_owned(),
            thread_ancestors: vec!["root".to_owned()],
            user_id: Some("u1".to_owned()),
            timeout: Some(DEADLINE),
        }
    }

    async fn run(hub: &RapHub, call: RapCall) -> RapOutcome {
        tokio::time::timeout(DEADLINE * 2, hub.invoke(call))
            .await
            .expect("invoke never resolved")
    }

    #[test]
    fn hub_futures_can_be_spawned() {
        fn assert_send<T: Send + 'static>(_: &T) {}
        let hub = RapHub::new(HubOptions::default()).unwrap();
        let owned = hub.clone();
        let invoke = async move { owned.invoke(call("echo", "x", json!({}))).await };
        assert_send(&invoke);
        let owned = hub.clone();
        let close = async move { owned.close_thread("g").await };
        assert_send(&close);
        let owned = hub.clone();
        let load = async move {
            owned
                .load_toolset("http://h", ToolsetOptions::default())
                .await
        };
        assert_send(&load);
        let owned = hub;
        let answer = async move { owned.answer_user_choice(None, "c", 0).await };
        assert_send(&answer);
    }

    #[tokio::test]
    async fn loads_a_toolset_and_refuses_bad_ones() {
        let server = ToolServer::start(manifest("scripted")).await;
        let hub = RapHub::new(HubOptions::default()).unwrap();
        let names = hub
            .load_toolset(&server.base_url, ToolsetOptions::default())
            .await
            .unwrap();
        assert_eq!(names[0], "echo");
        assert!(server
            .seen()
            .iter()
            .any(|s| s.method == "GET" && s.path == "/.well-known/rap-toolset"));
        // Loading it again duplicates every name: refused, naming the first.
        let err = hub
            .load_toolset(&server.base_url, ToolsetOptions::default())
            .await
            .unwrap_err();
        assert_eq!(
            err,
            RapError::DuplicateTool {
                tool: "echo".into(),
                toolset: "scripted".into()
            }
        );
        let prefixed = ToolsetOptions {
            prefix: Some("b_".into()),
            ..ToolsetOptions::default()
        };
        let names = hub.load_toolset(&server.base_url, prefixed).await.unwrap();
        assert_eq!(names[0], "b_echo");
        assert_eq!(hub.tool("b_echo").unwrap().operation, "echo");

        let mut bad = manifest("bad");
        bad["tools"][1]["inputSchema"] = json!({"type": 12});
        let bad_server = ToolServer::start(bad).await;
        let err = hub
            .load_toolset(&bad_server.base_url, ToolsetOptions::default())
            .await
            .unwrap_err();
        assert!(err.to_string().contains("\"image\""), "{err}");
        assert_eq!(err.fault(), crate::error::Fault::Remote);

        let missing = hub
            .load_toolset(
                &format!("{}/nothing-here", server.base_url),
                ToolsetOptions::default(),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(missing, RapError::ManifestStatus { status: 404, .. }),
            "{missing:?}"
        );
    }

    #[tokio::test]
    async fn text_image_and_error_results() {
        let server = ToolServer::start(manifest("s")).await;
        let hub = hub_with(&server, ToolsetOptions::default()).await;

        let RapOutcome::Ok(result) = run(&hub, call("echo", "c1", json!({"x": 1}))).await else {
            panic!("echo failed")
        };
        assert_eq!(result.text.as_deref(), Some(r#"echo {"x":1}"#));
        assert_eq!(result.call_id.as_deref(), Some("prov-c1"));
        let invocation = server.wait_for(|s| s.body["id"] == "c1").await.body;
        assert_eq!(invocation["operation"], "echo");
        assert_eq!(invocation["group_id"], "run-1");
        assert_eq!(invocation["thread_ancestors"], json!(["root"]));
        assert_eq!(invocation["user_id"], "u1");
        assert_eq!(invocation["call_id"], "prov-c1");

        let RapOutcome::Ok(result) = run(&hub, call("image", "c2", json!({}))).await else {
            panic!("image failed")
        };
        let content = result.content.unwrap();
        assert!(
            matches!(&content[1], ContentItem::Image { media_type, .. } if media_type == "image/png")
        );
        assert_eq!(result.display_as.unwrap()[0]["content"], "pixel");

        let outcome = run(&hub, call("fail", "c3", json!({}))).await;
        let RapOutcome::ToolError(result) = outcome else {
            panic!("not a tool error: {outcome:?}")
        };
        assert_eq!(result.text.as_deref(), Some("Error: the tool failed"));

        let RapOutcome::Ok(result) = run(&hub, call("early", "c4", json!({}))).await else {
            panic!("early failed")
        };
        assert_eq!(result.text.as_deref(), Some("early"));

        let outcome = run(&hub, call("nope", "c5", json!({}))).await;
        assert_eq!(
            outcome,
            RapOutcome::Failed(RapError::UnknownTool {
                tool: "nope".into()
            })
        );
    }

    #[tokio::test]
    async fn timeout_and_abort_send_cancel() {
        let server = ToolServer::start(manifest("s")).await;
        let hub = hub_with(&server, ToolsetOptions::default()).await;
        let mut slow = call("slow", "slow-1", json!({}));
        slow.timeout = Some(Duration::from_millis(200));
        assert_eq!(run(&hub, slow).await, RapOutcome::Timeout);
        let cancel = server.wait_for(|s| s.path == "/cancel_tool_call").await;
        assert_eq!(
            cancel.body,
            json!({"thread_id": "run-1", "tool_call_id": "slow-1"})
        );

        // The toolset's own timeout applies when the call has none.
        let server2 = ToolServer::start(manifest("s")).await;
        let hub2 = hub_with(
            &server2,
            ToolsetOptions {
                timeout: Some(Duration::from_millis(100)),
                ..ToolsetOptions::default()
            },
        )
        .await;
        let mut slow = call("slow", "slow-2", json!({}));
        slow.timeout = None;
        assert_eq!(run(&hub2, slow).await, RapOutcome::Timeout);

        // Abort once the tool server has the invocation.
        let (fire, fired) = tokio::sync::oneshot::channel::<()>();
        let watch = async {
            server.wait_for(|s| s.body["id"] == "slow-3").await;
            let _ = fire.send(());
        };
        let abort = async {
            let _ = fired.await;
        };
        let (outcome, ()) = tokio::join!(
            hub.invoke_until(call("slow", "slow-3", json!({})), abort),
            watch
        );
        assert_eq!(outcome, RapOutcome::Cancelled);
        server
            .wait_for(|s| s.path == "/cancel_tool_call" && s.body["tool_call_id"] == "slow-3")
            .await;
    }

    #[tokio::test]
    async fn retries_5xx_and_connection_failures_but_never_4xx() {
        let server = ToolServer::start(manifest("s")).await;
        let hub = hub_with(
            &server,
            ToolsetOptions {
                retry: fast_retry(3),
                ..ToolsetOptions::default()
            },
        )
        .await;
        let count = |id: &str| {
            server
                .seen()
                .iter()
                .filter(|s| s.path == "/invoke" && s.body["id"] == id)
                .count()
        };
        let outcome = run(&hub, call("flaky", "f1", json!({"fail_times": 2}))).await;
        let RapOutcome::Ok(result) = outcome else {
            panic!("not retried to success: {outcome:?}")
        };
        assert_eq!(result.text.as_deref(), Some("ok after 3"));
        assert_eq!(count("f1"), 3);

        let outcome = run(&hub, call("flaky", "f2", json!({"fail_times": 9}))).await;
        let RapOutcome::Failed(err) = outcome else {
            panic!("not a failure: {outcome:?}")
        };
        assert!(
            matches!(
                err,
                RapError::Rejected {
                    status: 503,
                    attempts: 3,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("503"), "{err}");
        assert_eq!(count("f2"), 3);

        let outcome = run(&hub, call("reject", "r1", json!({}))).await;
        assert!(
            matches!(
                outcome,
                RapOutcome::Failed(RapError::Rejected {
                    status: 400,
                    attempts: 1,
                    ..
                })
            ),
            "{outcome:?}"
        );
        assert_eq!(count("r1"), 1);

        let outcome = run(&hub, call("moved", "m1", json!({}))).await;
        assert!(
            matches!(
                outcome,
                RapOutcome::Failed(RapError::Rejected {
                    status: 307,
                    attempts: 1,
                    ..
                })
            ),
            "a redirect is not followed: {outcome:?}"
        );
    }

    #[tokio::test]
    async fn unreachable_endpoint_is_retried_bounded() {
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let dead = format!("http://{}/invoke", closed.local_addr().unwrap());
        drop(closed);
        let mut m = manifest("s");
        m["endpoint"] = json!(dead);
        let server = ToolServer::start(m).await;
        let hub = hub_with(
            &server,
            ToolsetOptions {
                retry: fast_retry(4),
                ..ToolsetOptions::default()
            },
        )
        .await;
        let outcome = run(&hub, call("echo", "u1", json!({}))).await;
        let RapOutcome::Failed(RapError::Unreachable { attempts, url, .. }) = outcome else {
            panic!("not unreachable: {outcome:?}")
        };
        assert_eq!((attempts, url), (4, dead));
        // A failed invocation is not a timeout: no cancel.
        assert_eq!(server.count("/cancel_tool_call"), 0);
    }

    /// Waits for the next event that is a user choice, checking the others on the way.
    async fn next_choice(events: &mut mpsc::Receiver<RapEvent>) -> RapEvent {
        loop {
            let event = tokio::time::timeout(DEADLINE, events.recv())
                .await
                .unwrap()
                .unwrap();
            if matches!(event.kind, RapEventKind::UserChoice(_)) {
                return event;
            }
        }
    }

    #[tokio::test]
    async fn events_are_delivered_and_user_choices_answered() {
        let server = ToolServer::start(manifest("s")).await;
        let hub = hub_with(&server, ToolsetOptions::default()).await;
        let mut events = hub.take_events().unwrap();
        assert!(hub.take_events().is_none());
        let owned = hub.clone();
        let call = tokio::spawn(async move { run(&owned, call("events", "e1", json!({}))).await });
        let mut names = Vec::new();
        for _ in 0..4 {
            let event = tokio::time::timeout(DEADLINE, events.recv())
                .await
                .unwrap()
                .unwrap();
            assert_eq!(
                (event.call_id.as_str(), event.group_id.as_str()),
                ("e1", "run-1")
            );
            names.push(event.name());
            if let RapEventKind::UserChoice(choice) = &event.kind {
                assert_eq!(choice.choices, vec!["a", "b"]);
                assert_eq!(choice.default, 1);
            }
            let json: Value = serde_json::from_str(&event.to_json()).unwrap();
            assert_eq!(json["type"], event.name());
        }
        assert_eq!(
            names,
            [
                "rap_subscription_event",
                "rap_oauth",
                "rap_user_choice",
                "rap_view_update"
            ]
        );
        let err = hub.answer_user_choice(None, "e1", 2).await.unwrap_err();
        assert!(
            matches!(err, RapError::InvalidChoice { choices: 2, .. }),
            "{err:?}"
        );
        hub.answer_user_choice(None, "e1", 1).await.unwrap();
        let answer = server.wait_for(|s| s.path == "/choice").await;
        assert_eq!(answer.body, json!({"id": "e1", "selected": 1}));
        let RapOutcome::Ok(result) = call.await.unwrap() else {
            panic!("events call failed")
        };
        assert_eq!(result.text.as_deref(), Some("picked 1"));
        let again = hub.answer_user_choice(None, "e1", 0).await.unwrap_err();
        assert_eq!(
            again,
            RapError::UnknownChoice {
                id: "e1".into(),
                group_id: None
            }
        );
    }

    #[tokio::test]
    async fn user_choices_are_told_apart_by_thread() {
        let server = ToolServer::start(manifest("s")).await;
        let hub = hub_with(&server, ToolsetOptions::default()).await;
        let mut events = hub.take_events().unwrap();
        // Two threads, each with its own call_0 asking for a choice.
        let mut calls = Vec::new();
        for group in ["g1", "g2"] {
            let owned = hub.clone();
            let mut c = call("events", "call_0", json!({}));
            c.group_id = group.to_owned();
            calls.push(tokio::spawn(async move { run(&owned, c).await }));
            next_choice(&mut events).await;
        }
        let server_side = hub.server().await.unwrap();
        assert_eq!(server_side.pending_choices(), 2);
        // Without a thread the id is ambiguous: refused, naming both.
        let err = hub.answer_user_choice(None, "call_0", 0).await.unwrap_err();
        assert_eq!(
            err,
            RapError::AmbiguousChoice {
                id: "call_0".into(),
                groups: vec!["g1".into(), "g2".into()]
            }
        );
        assert!(err.to_string().contains(r#""g1", "g2""#), "{err}");
        assert_eq!(server_side.pending_choices(), 2, "nothing was taken");
        // With its thread, each goes to its own call.
        hub.answer_user_choice(Some("g2"), "call_0", 1)
            .await
            .unwrap();
        let answer = server.wait_for(|s| s.path == "/choice").await;
        assert_eq!(answer.body, json!({"id": "call_0", "selected": 1}));
        let RapOutcome::Ok(second) = calls.pop().unwrap().await.unwrap() else {
            panic!("the g2 call failed")
        };
        assert_eq!(second.text.as_deref(), Some("picked 1"));
        let unknown = hub
            .answer_user_choice(Some("g2"), "call_0", 0)
            .await
            .unwrap_err();
        assert_eq!(
            unknown,
            RapError::UnknownChoice {
                id: "call_0".into(),
                group_id: Some("g2".into())
            }
        );
        // Now unambiguous: the pinned two-argument form works.
        hub.answer_user_choice(None, "call_0", 0).await.unwrap();
        let RapOutcome::Ok(first) = calls.pop().unwrap().await.unwrap() else {
            panic!("the g1 call failed")
        };
        assert_eq!(first.text.as_deref(), Some("picked 0"));
    }

    #[tokio::test]
    async fn a_calls_pending_choices_go_when_it_ends() {
        let server = ToolServer::start(manifest("s")).await;
        let hub = hub_with(&server, ToolsetOptions::default()).await;
        let mut events = hub.take_events().unwrap();
        let (fire, fired) = tokio::sync::oneshot::channel::<()>();
        let owned = hub.clone();
        let call = tokio::spawn(async move {
            let abort = async {
                let _ = fired.await;
            };
            owned
                .invoke_until(call("events", "c1", json!({})), abort)
                .await
        });
        next_choice(&mut events).await;
        assert_eq!(hub.server().await.unwrap().pending_choices(), 1);
        let _ = fire.send(());
        assert_eq!(call.await.unwrap(), RapOutcome::Cancelled);
        assert_eq!(hub.server().await.unwrap().pending_choices(), 0);
        let err = hub.answer_user_choice(None, "c1", 0).await.unwrap_err();
        assert!(matches!(err, RapError::UnknownChoice { .. }), "{err:?}");
        assert_eq!(server.count("/choice"), 0);
    }

    #[tokio::test]
    async fn cancels_and_close_thread_carry_the_toolsets_headers() {
        let server = ToolServer::start(manifest("s")).await;
        let headers = vec![("x-api-key".to_owned(), "k-1".to_owned())];
        let hub = hub_with(
            &server,
            ToolsetOptions {
                headers: headers.clone(),
                ..ToolsetOptions::default()
            },
        )
        .await;
        let mut slow = call("slow", "h-1", json!({}));
        slow.timeout = Some(Duration::from_millis(100));
        assert_eq!(run(&hub, slow).await, RapOutcome::Timeout);
        hub.close_thread("run-1").await;
        for path in [
            "/.well-known/rap-toolset",
            "/invoke",
            "/cancel_tool_call",
            "/close_thread",
        ] {
            let seen = server.wait_for(|s| s.path == path).await;
            assert_eq!(
                seen.headers.get("x-api-key").map(String::as_str),
                Some("k-1"),
                "{path}"
            );
        }
    }

    #[tokio::test]
    async fn subscriptions_stay_open_until_final_and_threads_close() {
        let server = ToolServer::start(manifest("s")).await;
        let hub = hub_with(&server, ToolsetOptions::default()).await;
        let mut events = hub.take_events().unwrap();
        let RapOutcome::Ok(result) = run(&hub, call("subscribe", "s1", json!({}))).await else {
            panic!("subscribe failed")
        };
        assert!(result.is_subscription());
        let mut texts = Vec::new();
        for _ in 0..2 {
            let event = tokio::time::timeout(DEADLINE, events.recv())
                .await
                .unwrap()
                .unwrap();
            let RapEventKind::Subscription(e) = event.kind else {
                panic!("not a subscription event")
            };
            texts.push(e.text);
        }
        assert_eq!(texts, ["first", "last"]);
        // After the final event the token is closed.
        let url = server.wait_for(|s| s.body["id"] == "s1").await.body["callback_url"]
            .as_str()
            .unwrap()
            .to_owned();
        let late = json!({"type": "subscription_event", "group_id": "run-1",
                          "tool_call_id": "s1", "text": "late"});
        assert_eq!(post(&url, &late).await, 404);
        assert!(!hub.cancel_subscription("run-1", "s1"));

        hub.close_thread("run-1").await;
        let close = server.wait_for(|s| s.path == "/close_thread").await;
        assert_eq!(close.body, json!({"thread_id": "run-1"}));
    }
}
