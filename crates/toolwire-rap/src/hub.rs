//! [`RapHub`]: toolsets, the client and the lazily started callback server, tied together.
//!
//! Designed to be driven from a binding: the hub is cheap to clone and every method works
//! from any task of a tokio multi-thread runtime, so each call can be spawned and its
//! [`RapOutcome`] pushed into a channel that the binding drains in batches.

use std::future::Future;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use serde_json::value::RawValue;
use tokio::sync::{mpsc, OnceCell};

use crate::callback::ToolResult;
use crate::client::{Invocation, RapClient, MAX_MANIFEST_BYTES};
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

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|e| e.into_inner())
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
        self.inner
            .events_rx
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
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
        let url = manifest_url(base_url);
        let body = self
            .inner
            .client
            .get_limited(&url, &options.headers, MAX_MANIFEST_BYTES)
            .await?;
        let manifest = parse_manifest(&url, &body)?;
        let toolset = LoadedToolset::new(base_url, manifest, options)?;
        self.inner
            .toolsets
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .add(toolset)
    }

    /// The tool exposed under `name`.
    pub fn tool(&self, name: &str) -> Option<Arc<RemoteTool>> {
        read(&self.inner.toolsets).get(name)
    }

    /// Every exposed tool name, sorted.
    pub fn tool_names(&self) -> Vec<String> {
        read(&self.inner.toolsets).names()
    }

    /// The base URL of every loaded toolset: where cancels and close_thread go.
    pub fn server_urls(&self) -> Vec<String> {
        read(&self.inner.toolsets).server_urls()
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
        let servers = self.server_urls();
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
        let servers = self.server_urls();
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

    /// Answers a pending user choice: POSTs `{ id, selected }` to its `response_url`.
    pub async fn answer_user_choice(&self, id: &str, selected: usize) -> Result<(), RapError> {
        let server = self
            .inner
            .server
            .get()
            .ok_or_else(|| RapError::UnknownChoice { id: id.to_owned() })?;
        let choice = server
            .take_choice(id)
            .ok_or_else(|| RapError::UnknownChoice { id: id.to_owned() })?;
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
