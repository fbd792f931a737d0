//! The callback server: a hyper HTTP/1 server that receives RAP callbacks on per-call URLs
//! `{base}/rap/callback/{token}`.
//!
//! Rules, in the order a request meets them: only `POST` (405); the token must name a live
//! call, its secret compared in constant time (404); a body over the limit, by its
//! `Content-Length` or as it streams, is never held past the limit: it is answered 413 (its
//! rest read and dropped, bounded, so a sender still writing reads the answer) and, like a body
//! that does not parse, ends the call or subscription of its token (see below); headers and
//! body together must arrive within the read timeout, counted from the request's first byte
//! (see `read_deadline.rs`), else the connection is cut; the body must parse
//! (400: the call the token names then ends with an error saying why, or its open subscription
//! with a final error event, unless the ids the body claims, read without parsing, name another
//! call); its `group_id` and call id must be the
//! token's (404). Then, one message of a group at
//! a time: a `tool_result` is accepted once and delivered once (a repeat answers 200 when
//! identical, 409 when not, and is never delivered); other messages become [`RapEvent`]s on
//! the owner's channel (503 if it stays full for the read timeout).
//!
//! A call's token lives until the call ends. After its result, the token answers only
//! repeats of that result, for [`ServerOptions::result_retention`]; a result with
//! `subscription: true` keeps it open for `subscription_event`s until a `final` one,
//! [`CallbackServer::end_subscription`] or [`CallbackServer::close_group`].

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, Hasher};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, ALLOW, CONNECTION, CONTENT_LENGTH};
use hyper::server::conn::http1;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use parking_lot::Mutex;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};

use crate::callback::{
    parse_callback, refused_event, refused_result, Callback, CallbackError, ClaimedIds, ToolResult,
};
use crate::error::RapError;
use crate::event::{EventError, RapEvent, RapEventKind};
use crate::read_deadline::{DeadlineIo, ReadClock};
use crate::token::{self, SECRET_BYTES};

/// Path prefix of callback URLs.
pub const CALLBACK_PATH: &str = "/rap/callback/";

/// Default `maxCallbackBytes`: 16 MiB.
pub const DEFAULT_MAX_CALLBACK_BYTES: usize = 16 << 20;

/// Default time for a request's headers and body, together, to arrive: 10 s.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Default [`ServerOptions::repeat_window`]: 2 s.
pub const DEFAULT_REPEAT_WINDOW: Duration = Duration::from_secs(2);

/// Options of the callback server.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Address to listen on (`bind`); default `127.0.0.1:0`, a free loopback port.
    pub bind: SocketAddr,
    /// Base URL tools are given instead of `http://{local address}` (`publicUrl`), e.g. behind
    /// a proxy.
    pub public_url: Option<String>,
    /// Largest callback body (`maxCallbackBytes`).
    pub max_callback_bytes: usize,
    /// Time for a request's headers and body, together, to arrive; also how long an idle
    /// connection stays open.
    pub read_timeout: Duration,
    /// How long a delivered result's token still answers repeats (200/409) before 404.
    pub result_retention: Duration,
    /// How long an event identical to the last one delivered on its URL counts as a repeated
    /// delivery of it (RAP messages carry no id of their own; a tool server retries at once, a
    /// subscription repeating itself does so later). A user choice is a repeat while the same
    /// choice is still pending, however late.
    pub repeat_window: Duration,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            public_url: None,
            max_callback_bytes: DEFAULT_MAX_CALLBACK_BYTES,
            read_timeout: DEFAULT_READ_TIMEOUT,
            result_retention: Duration::from_secs(60),
            repeat_window: DEFAULT_REPEAT_WINDOW,
        }
    }
}

/// Checks a `publicUrl` (an absolute http(s) URL) and returns it as the base of callback
/// URLs, without a trailing `/`.
pub fn public_base_url(url: &str) -> Result<String, RapError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| RapError::InvalidConfig {
        value: url.to_owned(),
        message: format!("publicUrl is not a URL: {e}"),
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(RapError::InvalidConfig {
            value: url.to_owned(),
            message: "publicUrl is not an http(s) URL".to_owned(),
        });
    }
    Ok(url.trim_end_matches('/').to_owned())
}

/// A user choice waiting for its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingChoice {
    /// The thread it belongs to.
    pub group_id: String,
    /// How many choices were offered.
    pub choices: usize,
    /// Where the answer goes.
    pub response_url: String,
    /// The fingerprint of its message: the same choice sent again while pending is a repeat.
    fingerprint: u64,
}

enum State {
    /// Waiting for the result; the sender delivers it.
    Pending(Option<oneshot::Sender<ToolResult>>),
    /// The result was delivered; repeats are compared with its fingerprint.
    Done { fingerprint: u64, subscribed: bool },
}

struct Entry {
    secret: [u8; SECRET_BYTES],
    group_id: String,
    id: String,
    state: State,
    /// Fingerprint of the last event delivered on this token, and when: the same message again
    /// within [`ServerOptions::repeat_window`] is a repeated delivery (a tool server retrying
    /// after a lost answer), answered 200 and not delivered twice.
    last_event: Option<(u64, Instant)>,
}

struct Shared {
    options: ServerOptions,
    entries: Mutex<HashMap<u64, Entry>>,
    /// Delivered, non-subscription results in delivery order, removed after retention.
    retained: Mutex<VecDeque<(Instant, u64)>>,
    groups: Mutex<HashMap<String, Weak<tokio::sync::Mutex<()>>>>,
    /// Pending user choices by (thread, call id): ids are unique only within a thread.
    choices: Mutex<HashMap<(String, String), PendingChoice>>,
    events: mpsc::Sender<RapEvent>,
    next_selector: AtomicU64,
    hasher: RandomState,
    #[cfg(test)]
    test_hooks: test_hooks::Hooks,
}

/// The running callback server. Dropping it stops accepting connections.
pub struct CallbackServer {
    shared: Arc<Shared>,
    local_addr: SocketAddr,
    base_url: String,
    accept: tokio::task::JoinHandle<()>,
}

impl Drop for CallbackServer {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

impl std::fmt::Debug for CallbackServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallbackServer")
            .field("local_addr", &self.local_addr)
            .field("base_url", &self.base_url)
            .finish()
    }
}

impl CallbackServer {
    /// Binds and starts serving on the current tokio runtime. Events go to `events`; when it
    /// is full, the sender of the event waits (backpressure on that group only).
    pub async fn start(
        options: ServerOptions,
        events: mpsc::Sender<RapEvent>,
    ) -> Result<Self, RapError> {
        let listener = TcpListener::bind(options.bind)
            .await
            .map_err(|e| RapError::Bind {
                addr: options.bind.to_string(),
                message: e.to_string(),
            })?;
        let local_addr = listener.local_addr().map_err(|e| RapError::Bind {
            addr: options.bind.to_string(),
            message: e.to_string(),
        })?;
        let base_url = match &options.public_url {
            Some(url) => public_base_url(url)?,
            None => format!("http://{local_addr}"),
        };
        let shared = Arc::new(Shared {
            options,
            entries: Mutex::new(HashMap::new()),
            retained: Mutex::new(VecDeque::new()),
            groups: Mutex::new(HashMap::new()),
            choices: Mutex::new(HashMap::new()),
            events,
            next_selector: AtomicU64::new(1),
            hasher: RandomState::new(),
            #[cfg(test)]
            test_hooks: test_hooks::Hooks::default(),
        });
        let accept = tokio::spawn(accept_loop(listener, Arc::clone(&shared)));
        Ok(CallbackServer {
            shared,
            local_addr,
            base_url,
            accept,
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The base of callback URLs (`publicUrl`, or `http://{local address}`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Registers a pending call and gives it a callback URL with a fresh token. The token
    /// expires when the [`Registration`] is dropped or ended without a result.
    pub fn register(&self, group_id: &str, id: &str) -> Result<Registration, RapError> {
        self.shared.sweep_retained();
        let secret = token::new_secret()?;
        let selector = self.shared.next_selector.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.shared.entries.lock().insert(
            selector,
            Entry {
                secret,
                group_id: group_id.to_owned(),
                id: id.to_owned(),
                state: State::Pending(Some(tx)),
                last_event: None,
            },
        );
        Ok(Registration {
            shared: Arc::clone(&self.shared),
            selector,
            url: format!(
                "{}{CALLBACK_PATH}{}",
                self.base_url,
                token::encode(selector, &secret)
            ),
            result: rx,
        })
    }

    /// Takes the pending user choice `id` of thread `group_id` (an answer is given once).
    /// Without a thread, the one pending choice with that id; several are ambiguous.
    pub fn take_choice(&self, group_id: Option<&str>, id: &str) -> Result<PendingChoice, RapError> {
        let mut choices = self.shared.choices.lock();
        let unknown = || RapError::UnknownChoice {
            id: id.to_owned(),
            group_id: group_id.map(str::to_owned),
        };
        if let Some(group) = group_id {
            return choices
                .remove(&(group.to_owned(), id.to_owned()))
                .ok_or_else(unknown);
        }
        let mut groups: Vec<String> = choices
            .keys()
            .filter(|(_, choice)| choice == id)
            .map(|(group, _)| group.clone())
            .collect();
        match groups.len() {
            0 => Err(unknown()),
            1 => {
                let key = (groups.remove(0), id.to_owned());
                choices.remove(&key).ok_or_else(unknown)
            }
            _ => {
                groups.sort();
                Err(RapError::AmbiguousChoice {
                    id: id.to_owned(),
                    groups,
                })
            }
        }
    }

    /// Puts back a choice taken by [`Self::take_choice`] whose answer could not be sent.
    pub fn restore_choice(&self, id: &str, choice: PendingChoice) {
        self.shared
            .choices
            .lock()
            .insert((choice.group_id.clone(), id.to_owned()), choice);
    }

    /// Number of pending user choices.
    pub fn pending_choices(&self) -> usize {
        self.shared.choices.lock().len()
    }

    /// Ends the subscription started by call `id` of `group_id`: its token stops answering.
    pub fn end_subscription(&self, group_id: &str, id: &str) -> bool {
        let mut entries = self.shared.entries.lock();
        let before = entries.len();
        entries.retain(|_, e| {
            !(e.group_id == group_id
                && e.id == id
                && matches!(
                    e.state,
                    State::Done {
                        subscribed: true,
                        ..
                    }
                ))
        });
        before != entries.len()
    }

    /// Forgets a thread: its subscriptions, retained results and pending choices. Calls still
    /// pending keep their tokens until they end.
    pub fn close_group(&self, group_id: &str) {
        self.shared
            .entries
            .lock()
            .retain(|_, e| !(e.group_id == group_id && matches!(e.state, State::Done { .. })));
        self.shared
            .choices
            .lock()
            .retain(|_, c| c.group_id != group_id);
    }

    /// Number of live tokens (pending calls, subscriptions, retained results).
    pub fn live_tokens(&self) -> usize {
        self.shared.entries.lock().len()
    }
}

/// A pending call's registration: its callback URL and where its result arrives.
pub struct Registration {
    shared: Arc<Shared>,
    selector: u64,
    url: String,
    result: oneshot::Receiver<ToolResult>,
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL holds the secret: never print it.
        f.debug_struct("Registration")
            .field("selector", &self.selector)
            .finish_non_exhaustive()
    }
}

impl Registration {
    /// The call's callback URL (holds the secret token).
    pub fn callback_url(&self) -> &str {
        &self.url
    }

    /// Waits for the result. `None` if the server went away.
    pub async fn result(&mut self) -> Option<ToolResult> {
        (&mut self.result).await.ok()
    }

    /// Ends the call now (timeout, abort, failed invocation): the token stops answering. A
    /// result accepted before this returns it, so an accepted result is never lost.
    pub fn end(mut self) -> Option<ToolResult> {
        self.expire();
        self.result.try_recv().ok()
    }

    /// Expires the token of a call still pending, and drops the call's pending user choices
    /// unless its result opened a subscription (whose token lives on).
    fn expire(&mut self) {
        let mut entries = self.shared.entries.lock();
        let Some(entry) = entries.get(&self.selector) else {
            return;
        };
        let subscribed = matches!(
            entry.state,
            State::Done {
                subscribed: true,
                ..
            }
        );
        if subscribed {
            return;
        }
        let key = (entry.group_id.clone(), entry.id.clone());
        if matches!(entry.state, State::Pending(_)) {
            entries.remove(&self.selector);
        }
        self.shared.choices.lock().remove(&key);
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.expire();
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of file descriptors and the like: wait a little instead of spinning.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let clock = Arc::new(ReadClock::new(shared.options.read_timeout));
            let io = TokioIo::new(DeadlineIo::new(stream, Arc::clone(&clock)));
            let service = hyper::service::service_fn(move |req| {
                let (shared, clock) = (Arc::clone(&shared), Arc::clone(&clock));
                async move {
                    let response = handle(&shared, req, &clock).await;
                    // The next request on this connection gets a window of its own.
                    clock.await_request();
                    response
                }
            });
            let _ = http1::Builder::new().serve_connection(io, service).await;
        });
    }
}

/// Why a connection is cut instead of answered.
#[derive(Debug)]
struct CutConnection;

impl std::fmt::Display for CutConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("request body did not arrive in time")
    }
}

impl std::error::Error for CutConnection {}

/// The answer to a repeated delivery of an event: 200, and not delivered again.
const ALREADY_DELIVERED: &str = "already delivered\n";

fn reply(status: StatusCode, text: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response
}

/// Marks a response as the connection's last.
fn closing(mut response: Response<Full<Bytes>>) -> Response<Full<Bytes>> {
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

async fn handle(
    shared: &Shared,
    req: Request<Incoming>,
    clock: &ReadClock,
) -> Result<Response<Full<Bytes>>, CutConnection> {
    if req.method() != Method::POST {
        let mut response = reply(StatusCode::METHOD_NOT_ALLOWED, "POST only\n");
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("POST"));
        return Ok(closing(response));
    }
    let unknown = || reply(StatusCode::NOT_FOUND, "unknown callback\n");
    // Answered before its body is read: the connection closes, so the rest of that body is
    // never taken for the next request.
    let not_found = || Ok(closing(unknown()));
    let Some((selector, secret)) = req
        .uri()
        .path()
        // The token is what follows the callback path, also behind a proxy that keeps a
        // prefix of its own (`publicUrl` with a path).
        .rsplit_once(CALLBACK_PATH)
        .and_then(|(_, token)| token::decode(token))
    else {
        return not_found();
    };
    if shared.lookup(selector, &secret).is_none() {
        return not_found();
    }
    let limit = shared.options.max_callback_bytes;
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    // The connection's read deadline, set when the request began, bounds the body too.
    let body = match read_body(req.into_body(), limit, declared).await? {
        Body::Whole(body) => body,
        // Over the limit (declared, or seen while it streams): refused without reading it
        // whole, and like any refused body it ends the call or subscription its token names,
        // so nothing is lost silently. The rest is read and dropped while the answer goes out,
        // so a sender still writing gets it instead of a reset connection.
        Body::TooLarge { head, rest } => {
            let error = CallbackError::too_large(limit);
            let response = shared
                .refused(
                    selector,
                    &secret,
                    &head,
                    &error,
                    StatusCode::PAYLOAD_TOO_LARGE,
                )
                .await;
            tokio::spawn(discard(rest, DISCARD_BYTES));
            return Ok(closing(response));
        }
    };
    clock.stop();
    let callback = match parse_callback(&body) {
        Ok(callback) => callback,
        // Refused (too deep, a number no double holds, not the protocol, not JSON): the call
        // the token names ends now with an error saying why, rather than waiting for its
        // deadline, unless the ids the body claims (read without parsing) name another call.
        // The server is told its callback was refused.
        Err(error) => {
            return Ok(shared
                .refused(selector, &secret, &body, &error, StatusCode::BAD_REQUEST)
                .await)
        }
    };
    // Check the claimed ids before taking the group's lock, so a forged group cannot make a
    // real one wait.
    let Some((group_id, id)) = shared.lookup(selector, &secret) else {
        return Ok(unknown());
    };
    if callback.group_id() != group_id || callback.call_id().is_some_and(|c| c != id) {
        return Ok(unknown());
    }
    let group = shared.group_lock(&group_id);
    let _serial = group.lock().await;
    #[cfg(test)]
    let _probe = shared.test_hooks.enter().await;
    Ok(shared.apply(selector, &secret, callback, None).await)
}

/// How much of a body over the limit is kept to read the ids it claims: its first 64 KiB.
const CLAIMS_PREFIX: usize = 64 << 10;

/// How much of the rest of a body over the limit is read and dropped after the answer, at most
/// (and within the connection's read deadline): 64 MiB.
const DISCARD_BYTES: usize = 64 << 20;

/// A callback's body as read.
enum Body {
    /// The whole body, within the limit.
    Whole(Bytes),
    /// Over the limit: its first bytes (at most [`CLAIMS_PREFIX`]) and the rest, unread.
    TooLarge { head: Vec<u8>, rest: Incoming },
}

/// Reads a body of at most `limit` bytes. One declared larger (`Content-Length`) is read no
/// further than [`CLAIMS_PREFIX`]; one that grows past the limit as it streams (chunked) stops
/// there: never more than `limit` bytes are held.
async fn read_body(
    mut body: Incoming,
    limit: usize,
    declared: Option<u64>,
) -> Result<Body, CutConnection> {
    let declared_over = declared.is_some_and(|n| n > limit as u64);
    let keep = if declared_over {
        CLAIMS_PREFIX.min(limit)
    } else {
        limit
    };
    let mut read = Vec::new();
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame.map_err(|_| CutConnection)?.into_data() else {
            continue; // trailers
        };
        if read.len() + data.len() > keep {
            let room = keep - read.len();
            read.extend_from_slice(&data[..room]);
            read.truncate(CLAIMS_PREFIX);
            return Ok(Body::TooLarge {
                head: read,
                rest: body,
            });
        }
        read.extend_from_slice(&data);
    }
    Ok(Body::Whole(Bytes::from(read)))
}

/// Reads and drops the rest of a refused body, up to `max` bytes: the sender, still writing,
/// then reads the answer instead of a connection reset under it.
async fn discard(mut body: Incoming, max: usize) {
    let mut seen = 0usize;
    while let Some(Ok(frame)) = body.frame().await {
        if let Ok(data) = frame.into_data() {
            seen = seen.saturating_add(data.len());
            if seen > max {
                return;
            }
        }
    }
}

/// Feeds what is written into a hasher.
struct HashWriter<H>(H);

impl<H: Hasher> std::io::Write for HashWriter<H> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.write(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    /// The live entry behind a token: its group and call id.
    fn lookup(&self, selector: u64, secret: &[u8; SECRET_BYTES]) -> Option<(String, String)> {
        let entries = self.entries.lock();
        let entry = entries.get(&selector)?;
        token::secrets_equal(&entry.secret, secret)
            .then(|| (entry.group_id.clone(), entry.id.clone()))
    }

    /// Refuses a callback body (`error`, answered `status`): the call the token names ends now
    /// with an error saying why, or its open subscription with a final error event, unless the
    /// ids `body` claims (read without parsing; it may be only the body's first bytes) name
    /// another call. The answer tells the tool server so.
    async fn refused(
        &self,
        selector: u64,
        secret: &[u8; SECRET_BYTES],
        body: &[u8],
        error: &CallbackError,
        status: StatusCode,
    ) -> Response<Full<Bytes>> {
        let unknown = || reply(StatusCode::NOT_FOUND, "unknown callback\n");
        let Some((group_id, id)) = self.lookup(selector, secret) else {
            return unknown();
        };
        if ClaimedIds::scan(&String::from_utf8_lossy(body)).contradicts(&group_id, &id) {
            return unknown();
        }
        let group = self.group_lock(&group_id);
        let _serial = group.lock().await;
        self.refuse(selector, secret, group_id, id, error).await;
        let mut response = Response::new(Full::new(Bytes::from(format!(
            "{error}; the call still waiting for its result, or the subscription still open, \
             on this URL ended with this error ({})\n",
            error.code().as_str()
        ))));
        *response.status_mut() = status;
        response
    }

    fn group_lock(&self, group_id: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut groups = self.groups.lock();
        if let Some(existing) = groups.get(group_id).and_then(Weak::upgrade) {
            return existing;
        }
        // Forget groups nobody holds before the map grows (amortized).
        if groups.len() >= 64 && groups.len().is_power_of_two() {
            groups.retain(|_, weak| weak.strong_count() > 0);
        }
        let fresh = Arc::new(tokio::sync::Mutex::new(()));
        groups.insert(group_id.to_owned(), Arc::downgrade(&fresh));
        fresh
    }

    fn fingerprint(&self, callback: &Callback) -> u64 {
        // Keyed SipHash of the parsed message, serialized straight into the hasher (no copy of
        // a result that can be megabytes): a collision could only turn a 409 into a 200 or
        // take an event for a repeat of the one before, never deliver twice.
        let mut hasher = HashWriter(self.hasher.build_hasher());
        // Writing into a hasher cannot fail, and these types always serialize.
        let _ = serde_json::to_writer(&mut hasher, callback);
        hasher.0.finish()
    }

    fn sweep_retained(&self) {
        let now = Instant::now();
        let mut expired = Vec::new();
        {
            let mut retained = self.retained.lock();
            while retained.front().is_some_and(|(at, _)| *at <= now) {
                if let Some((_, selector)) = retained.pop_front() {
                    expired.push(selector);
                }
            }
        }
        if expired.is_empty() {
            return;
        }
        let mut entries = self.entries.lock();
        for selector in expired {
            if matches!(
                entries.get(&selector).map(|e| &e.state),
                Some(State::Done {
                    subscribed: false,
                    ..
                })
            ) {
                entries.remove(&selector);
            }
        }
    }

    /// Applies a checked message under its group's lock; `error` types an event that ends a
    /// subscription because a callback was refused.
    async fn apply(
        &self,
        selector: u64,
        secret: &[u8; SECRET_BYTES],
        callback: Callback,
        error: Option<EventError>,
    ) -> Response<Full<Bytes>> {
        self.sweep_retained();
        // Computed outside the lock: a result can be megabytes.
        let fingerprint = self.fingerprint(&callback);
        let (event, choice) = {
            let mut entries = self.entries.lock();
            // The call may have ended while the body was read.
            let Some(entry) = entries
                .get_mut(&selector)
                .filter(|e| token::secrets_equal(&e.secret, secret))
            else {
                return reply(StatusCode::NOT_FOUND, "unknown callback\n");
            };
            let kind = match callback {
                Callback::ToolResult(result) => {
                    return self.accept_result(selector, entry, result, fingerprint)
                }
                Callback::SubscriptionEvent(m) => RapEventKind::Subscription(m),
                Callback::OAuth(m) => RapEventKind::OAuth(m),
                Callback::UserChoice(m) => RapEventKind::UserChoice(m),
                Callback::ViewUpdate(m) => RapEventKind::ViewUpdate(m),
            };
            if matches!(
                entry.state,
                State::Done {
                    subscribed: false,
                    ..
                }
            ) {
                return reply(StatusCode::NOT_FOUND, "call has ended\n");
            }
            // Pending before the event leaves, so an answer given as soon as it is seen finds
            // it; put back as it was below if the event cannot be delivered.
            let choice = match &kind {
                RapEventKind::UserChoice(choice) => {
                    let key = (entry.group_id.clone(), choice.id.clone());
                    let mut choices = self.choices.lock();
                    if choices
                        .get(&key)
                        .is_some_and(|c| c.fingerprint == fingerprint)
                    {
                        return reply(StatusCode::OK, ALREADY_DELIVERED);
                    }
                    let fresh = PendingChoice {
                        group_id: entry.group_id.clone(),
                        choices: choice.choices.len(),
                        response_url: choice.response_url.clone(),
                        fingerprint,
                    };
                    let replaced = choices.insert(key.clone(), fresh);
                    Some((key, replaced))
                }
                _ => {
                    let repeat = entry.last_event.is_some_and(|(seen, at)| {
                        seen == fingerprint && at.elapsed() < self.options.repeat_window
                    });
                    if repeat {
                        return reply(StatusCode::OK, ALREADY_DELIVERED);
                    }
                    None
                }
            };
            let event = RapEvent {
                call_id: entry.id.clone(),
                group_id: entry.group_id.clone(),
                kind,
                error,
            };
            (event, choice)
        };
        let ends_subscription =
            matches!(&event.kind, RapEventKind::Subscription(e) if e.r#final == Some(true));
        // Waits while the owner's channel is full (backpressure on this group only), but not
        // forever: an owner that stopped draining must not hold the group's results back.
        let delivery = tokio::time::timeout(self.options.read_timeout, self.events.send(event));
        if delivery.await.is_err() {
            if let Some((key, replaced)) = choice {
                let mut choices = self.choices.lock();
                match replaced {
                    Some(earlier) => choices.insert(key, earlier),
                    None => choices.remove(&key),
                };
            }
            return reply(StatusCode::SERVICE_UNAVAILABLE, "event queue full\n");
        }
        let mut entries = self.entries.lock();
        if let Some(entry) = entries.get_mut(&selector) {
            entry.last_event = Some((fingerprint, Instant::now()));
            let subscribed = matches!(
                entry.state,
                State::Done {
                    subscribed: true,
                    ..
                }
            );
            if ends_subscription && subscribed {
                entries.remove(&selector);
            }
        }
        reply(StatusCode::OK, "ok\n")
    }

    /// Ends what the token's entry waits for because a callback for it was refused (`error`):
    /// a call still waiting gets an error result, an open subscription a final error event
    /// (see [`refused_event`]); a call already over takes nothing more. Run under the group's
    /// lock, so the state seen here is the one the message is applied to.
    async fn refuse(
        &self,
        selector: u64,
        secret: &[u8; SECRET_BYTES],
        group_id: String,
        id: String,
        error: &CallbackError,
    ) {
        let subscribed = matches!(
            self.entries.lock().get(&selector).map(|e| &e.state),
            Some(State::Done {
                subscribed: true,
                ..
            })
        );
        let (callback, typed) = if subscribed {
            let typed = EventError {
                code: error.code().as_str(),
                message: error.to_string(),
            };
            let event = refused_event(group_id, id, error);
            (Callback::SubscriptionEvent(event), Some(typed))
        } else {
            (
                Callback::ToolResult(refused_result(group_id, id, error)),
                None,
            )
        };
        self.apply(selector, secret, callback, typed).await;
    }

    /// A `tool_result` for the entry: delivered the first time, compared afterwards.
    fn accept_result(
        &self,
        selector: u64,
        entry: &mut Entry,
        result: ToolResult,
        fingerprint: u64,
    ) -> Response<Full<Bytes>> {
        match &mut entry.state {
            State::Pending(sender) => {
                let sender = sender.take();
                let subscribed = result.is_subscription();
                entry.state = State::Done {
                    fingerprint,
                    subscribed,
                };
                // A retention too long to represent keeps the result until its thread closes.
                let until = Instant::now().checked_add(self.options.result_retention);
                if let (false, Some(until)) = (subscribed, until) {
                    self.retained.lock().push_back((until, selector));
                }
                if let Some(sender) = sender {
                    let _ = sender.send(result);
                }
                reply(StatusCode::OK, "accepted\n")
            }
            State::Done {
                fingerprint: seen, ..
            } if *seen == fingerprint => reply(StatusCode::OK, "already accepted\n"),
            State::Done { .. } => reply(
                StatusCode::CONFLICT,
                "a different result was already accepted\n",
            ),
        }
    }
}

#[cfg(test)]
pub(crate) mod test_hooks {
    //! Instrumentation for tests: how many messages of one group are being applied at once.
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    /// Counts concurrent appliers; `hold` keeps each one inside for a while.
    #[derive(Default)]
    pub struct Hooks {
        pub inside: AtomicUsize,
        pub max_inside: AtomicUsize,
        pub hold_ms: std::sync::atomic::AtomicU64,
    }

    /// Leaves the critical section on drop.
    pub struct Probe<'a>(&'a Hooks);

    impl Hooks {
        pub async fn enter(&self) -> Probe<'_> {
            let now = self.inside.fetch_add(1, Ordering::SeqCst) + 1;
            self.max_inside.fetch_max(now, Ordering::SeqCst);
            let hold = self.hold_ms.load(Ordering::SeqCst);
            if hold > 0 {
                tokio::time::sleep(Duration::from_millis(hold)).await;
            }
            Probe(self)
        }
    }

    impl Drop for Probe<'_> {
        fn drop(&mut self) {
            self.0.inside.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
impl CallbackServer {
    pub(crate) fn hooks(&self) -> &test_hooks::Hooks {
        &self.shared.test_hooks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{post, DEADLINE};
    use serde_json::{json, Value};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    async fn start(options: ServerOptions) -> (CallbackServer, mpsc::Receiver<RapEvent>) {
        let (tx, rx) = mpsc::channel(64);
        (CallbackServer::start(options, tx).await.unwrap(), rx)
    }

    fn result(group: &str, id: &str, text: &str) -> Value {
        json!({"type": "tool_result", "group_id": group, "id": id, "text": text})
    }

    /// Sends raw bytes, then reads until the server closes (or the deadline).
    async fn raw(addr: SocketAddr, bytes: &[u8]) -> String {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(bytes).await.unwrap();
        let mut out = Vec::new();
        let read = tokio::time::timeout(DEADLINE, stream.read_to_end(&mut out)).await;
        assert!(read.is_ok(), "the server did not close the connection");
        String::from_utf8_lossy(&out).into_owned()
    }

    /// A remote server's result nested past the engine's depth limit (a `display_as` about 127
    /// deep used to stop the client's runtime): refused before parsing with 400, and its call
    /// ends now with an error naming the limit instead of waiting for its deadline.
    #[tokio::test]
    async fn a_callback_too_deep_ends_its_call_with_an_error() {
        let limit = toolwire_core::json_input::MAX_VALUE_DEPTH;
        let (server, mut events) = start(ServerOptions::default()).await;
        let mut reg = server.register("g1", "c1").unwrap();
        let url = reg.callback_url().to_owned();
        let mut body = result("g1", "c1", "fine");
        let mut deep = json!(1);
        for _ in 0..limit {
            deep = json!([deep]);
        }
        body["display_as"] = json!([deep]);
        assert_eq!(post(&url, &body).await, 400);
        let delivered = reg.result().await.unwrap();
        assert!(delivered.is_error(), "{:?}", delivered.text);
        let text = delivered.text.unwrap_or_default();
        assert!(text.contains(&limit.to_string()), "{text}");
        // the call is over: a retry of the same body cannot deliver twice
        assert_ne!(post(&url, &result("g1", "c1", "late")).await, 200);
        assert!(reg.result.try_recv().is_err(), "delivered once");
        assert!(events.try_recv().is_err());
    }

    /// Posts raw bytes; the status and the answer's text.
    async fn post_bytes(url: &str, body: &[u8]) -> (u16, String) {
        let response = reqwest::Client::new()
            .post(url)
            .header("content-type", "application/json")
            .body(body.to_vec())
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.text().await.unwrap_or_default())
    }

    /// The limit of the servers in the tables of refused callbacks below: 64 KiB.
    const SMALL_LIMIT: usize = 64 << 10;

    /// A body over [`SMALL_LIMIT`]: `head` (which claims the ids), then `a`s.
    fn oversized(head: &str) -> Vec<u8> {
        let mut body = head.as_bytes().to_vec();
        body.resize(SMALL_LIMIT + 4096, b'a');
        body
    }

    /// POSTs a body of `total` bytes, `head` then `a`s, as a chunked body (no Content-Length,
    /// never built whole), writing until done or the server stops reading, while reading the
    /// answer. Returns the status (0 for none), the answer and the body bytes written.
    async fn post_chunked(url: &str, head: &[u8], total: usize) -> (u16, String, usize) {
        let url = reqwest::Url::parse(url).unwrap();
        let addr = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap());
        let (mut reader, mut writer) = tokio::net::TcpStream::connect(addr)
            .await
            .unwrap()
            .into_split();
        let request = format!(
            "POST {} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
             transfer-encoding: chunked\r\n\r\n",
            url.path()
        );
        let write = async move {
            let filler = vec![b'a'; 64 << 10];
            let mut sent = 0usize;
            let chunk = |data: &[u8]| {
                let mut framed = format!("{:x}\r\n", data.len()).into_bytes();
                framed.extend_from_slice(data);
                framed.extend_from_slice(b"\r\n");
                framed
            };
            let mut next = chunk(head);
            if writer.write_all(request.as_bytes()).await.is_err() {
                return 0;
            }
            loop {
                if writer.write_all(&next).await.is_err() {
                    return sent;
                }
                sent += next.len();
                if sent >= total {
                    let _ = writer.write_all(b"0\r\n\r\n").await;
                    return sent;
                }
                next = chunk(&filler[..filler.len().min(total - sent)]);
            }
        };
        let read = async move {
            let mut out = Vec::new();
            // A reset after the answer keeps what was read before it.
            let _ = reader.read_to_end(&mut out).await;
            String::from_utf8_lossy(&out).into_owned()
        };
        let (sent, answer) = tokio::time::timeout(DEADLINE, async { tokio::join!(write, read) })
            .await
            .expect("the server answered and closed");
        let status = answer
            .strip_prefix("HTTP/1.1 ")
            .and_then(|rest| rest.get(..3))
            .and_then(|code| code.parse().ok())
            .unwrap_or(0);
        (status, answer, sent)
    }

    /// Sends a refused body as a table case says: whole with its length, or chunked.
    async fn send(url: &str, body: &[u8], chunked: bool) -> (u16, String) {
        if chunked {
            let (status, answer, _) = post_chunked(url, body, body.len()).await;
            (status, answer)
        } else {
            post_bytes(url, body).await
        }
    }

    /// Every callback the server refuses for a call it can attribute (the token names it and the
    /// ids the body claims, read without parsing, do not contradict it) ends that call now with
    /// an error naming why; the server is answered 400. Seen in the attack review: a number
    /// out of range or a duplicate key left the call waiting out its whole deadline.
    #[tokio::test]
    async fn every_refused_callback_ends_its_call_with_an_error_naming_why() {
        let options = ServerOptions {
            max_callback_bytes: SMALL_LIMIT,
            ..ServerOptions::default()
        };
        let (server, mut events) = start(options).await;
        let limit = format!("maxCallbackBytes ({SMALL_LIMIT} bytes)");
        let huge_variant = format!(
            r#"{{"type":"{}","group_id":"g","id":"c"}}"#,
            "v".repeat(20_000)
        );
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            (
                "number out of range",
                br#"{"type":"tool_result","group_id":"g","id":"c","text":"a","display_as":[1e400]}"#.to_vec(),
                r#"the number 1e400 at "/display_as/0" is out of range"#,
            ),
            (
                "negative number out of range in an event",
                br#"{"type":"view_update","group_id":"g","view_type":"d","content":{"n":-1e999}}"#.to_vec(),
                r#"-1e999 at "/content/n""#,
            ),
            ("not JSON", b"{nope".to_vec(), "not valid JSON"),
            (
                "cut off",
                br#"{"type":"tool_result","group_id":"g","id":"c","text":"a"#.to_vec(),
                "EOF",
            ),
            (
                "a string, not a message",
                br#""not a callback""#.to_vec(),
                "does not fit the protocol",
            ),
            (
                "wrong type",
                br#"{"type":"tool_result","group_id":"g","id":"c","text":1}"#.to_vec(),
                "invalid type",
            ),
            (
                "unknown message type",
                br#"{"type":"nope","group_id":"g","id":"c"}"#.to_vec(),
                "unknown variant",
            ),
            ("huge unknown message type", huge_variant.into_bytes(), "unknown variant"),
            (
                "neither text nor content",
                br#"{"type":"tool_result","group_id":"g","id":"c"}"#.to_vec(),
                "neither text nor content",
            ),
            (
                "too deep",
                format!(r#"{{"group_id":"g","display_as":{}"#, "[".repeat(200)).into_bytes(),
                "MAX_VALUE_DEPTH",
            ),
        ];
        // Seen in the issue 19 round 9 attack review (10.mjs): a body over maxCallbackBytes was
        // answered 413 (or its connection cut) and its call waited out its deadline. Every
        // message type, declared too large or growing past the limit as it streams.
        let over: Vec<(&str, Vec<u8>, bool)> = vec![
            (
                "a tool_result over the limit",
                oversized(r#"{"type":"tool_result","group_id":"g","id":"c","text":""#),
                false,
            ),
            (
                "a tool_result over the limit, streamed",
                oversized(r#"{"type":"tool_result","group_id":"g","id":"c","text":""#),
                true,
            ),
            (
                "an oauth over the limit",
                oversized(r#"{"type":"oauth","group_id":"g","id":"c","auth_url":""#),
                true,
            ),
            (
                "a user_choice over the limit",
                oversized(r#"{"type":"user_choice","group_id":"g","id":"c","prompt":""#),
                false,
            ),
            (
                "a view_update over the limit",
                oversized(r#"{"type":"view_update","group_id":"g","content":""#),
                true,
            ),
        ];
        let cases = cases
            .into_iter()
            .map(|(name, body, says)| (name, body, says, 400, false))
            .chain(
                over.into_iter()
                    .map(|(name, body, chunked)| (name, body, limit.as_str(), 413, chunked)),
            );
        for (name, body, says, want, chunked) in cases {
            let mut reg = server.register("g", "c").unwrap();
            let url = reg.callback_url().to_owned();
            let (status, answer) = send(&url, &body, chunked).await;
            assert_eq!(status, want, "{name}: {answer}");
            assert!(answer.contains(says), "{name}: {answer}");
            assert!(answer.len() < 2048, "{name}: the answer is bounded");
            let ended = tokio::time::timeout(DEADLINE, reg.result())
                .await
                .expect("the call ended before its deadline")
                .unwrap();
            assert!(ended.is_error(), "{name}: {:?}", ended.text);
            let text = ended.text.unwrap_or_default();
            assert!(text.contains(says), "{name}: {text}");
            assert!(text.len() < 2048, "{name}: the message is bounded");
            // the call is over: nothing more is delivered for it
            let late = result("g", "c", "late");
            assert_eq!(post(&url, &late).await, 409, "{name}");
            assert!(events.try_recv().is_err(), "{name}: no event");
            server.close_group("g");
        }
    }

    /// A subscription whose server posts an event the parser refuses (a field of the wrong type,
    /// a number `JSON.parse` reads as Infinity, a missing field, too deep, not JSON) ends at once
    /// with a final error event naming what was wrong: it stayed open, silent, until its thread
    /// closed, as a refused `tool_result` once left its call waiting for its deadline.
    #[tokio::test]
    async fn a_refused_subscription_event_ends_its_subscription_with_an_error() {
        let limit = toolwire_core::json_input::MAX_VALUE_DEPTH;
        let deep = format!(
            r#"{{"type":"subscription_event","group_id":"g","tool_call_id":"c","text":"t","x":{}1{}}}"#,
            "[".repeat(limit + 1),
            "]".repeat(limit + 1)
        );
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            (
                "text of the wrong type",
                br#"{"type":"subscription_event","group_id":"g","tool_call_id":"c","text":7}"#.to_vec(),
                "invalid type",
            ),
            (
                "final of the wrong type",
                br#"{"type":"subscription_event","group_id":"g","tool_call_id":"c","text":"t","final":"yes"}"#.to_vec(),
                "invalid type",
            ),
            (
                "a number JSON.parse reads as Infinity",
                br#"{"type":"subscription_event","group_id":"g","tool_call_id":"c","text":"t","n":1e400}"#.to_vec(),
                "1e400",
            ),
            (
                "no text",
                br#"{"type":"subscription_event","group_id":"g","tool_call_id":"c"}"#.to_vec(),
                "text",
            ),
            ("too deep", deep.into_bytes(), "deeper"),
            ("not JSON", b"{\"type\":\"subscription_event\",".to_vec(), "JSON"),
        ];
        let options = ServerOptions {
            max_callback_bytes: SMALL_LIMIT,
            ..ServerOptions::default()
        };
        let (server, mut events) = start(options).await;
        // Seen in the issue 19 round 9 attack review (10.mjs): an event over maxCallbackBytes
        // was cut off (413 or a reset connection), lost, and the subscription stayed open.
        let limit = format!("maxCallbackBytes ({SMALL_LIMIT} bytes)");
        let head = r#"{"type":"subscription_event","group_id":"g","tool_call_id":"c","text":""#;
        let over: Vec<(&str, Vec<u8>, bool)> = vec![
            ("over the limit", oversized(head), false),
            ("over the limit, streamed", oversized(head), true),
        ];
        let cases = cases
            .into_iter()
            .map(|(name, body, says)| {
                let code = if name == "too deep" {
                    "LIMIT_EXCEEDED"
                } else {
                    "EXECUTION_ERROR"
                };
                (name, body, says, 400, false, code)
            })
            .chain(over.into_iter().map(|(name, body, chunked)| {
                (name, body, limit.as_str(), 413, chunked, "LIMIT_EXCEEDED")
            }));
        for (name, body, says, want, chunked, code) in cases {
            let mut reg = server.register("g", "c").unwrap();
            let url = reg.callback_url().to_owned();
            let mut subscribed = result("g", "c", "on");
            subscribed["subscription"] = json!(true);
            assert_eq!(post(&url, &subscribed).await, 200, "{name}");
            assert!(reg.result().await.unwrap().is_subscription(), "{name}");
            let ok = json!({"type": "subscription_event", "group_id": "g", "tool_call_id": "c",
                            "text": "tick"});
            assert_eq!(post(&url, &ok).await, 200, "{name}");
            let (status, answer) = send(&url, &body, chunked).await;
            assert_eq!(status, want, "{name}: {answer}");
            assert!(answer.contains(says), "{name}: {answer}");
            assert!(answer.contains(code), "{name}: {answer}");
            let mut texts = Vec::new();
            for _ in 0..2 {
                let event = tokio::time::timeout(DEADLINE, events.recv())
                    .await
                    .expect("the subscription ended before its thread closed")
                    .unwrap();
                let typed = event.error.clone();
                let RapEventKind::Subscription(e) = event.kind else {
                    panic!("{name}: not a subscription event")
                };
                texts.push((e.text, e.r#final));
                if let Some(error) = typed {
                    assert_eq!(error.code, code, "{name}");
                    assert!(error.message.contains(says), "{name}: {}", error.message);
                }
            }
            assert_eq!(texts[0], ("tick".to_owned(), None), "{name}");
            let (text, last) = &texts[1];
            assert_eq!(*last, Some(true), "{name}: the error event is the last");
            assert!(text.starts_with("Error: "), "{name}: {text}");
            assert!(text.contains(says), "{name}: {text}");
            assert!(text.len() < 2048, "{name}: the message is bounded");
            // the subscription is over: its URL takes no more events
            assert_eq!(post(&url, &ok).await, 404, "{name}");
            assert!(!server.end_subscription("g", "c"), "{name}");
            assert!(events.try_recv().is_err(), "{name}: nothing more");
            server.close_group("g");
        }
    }

    /// A body that never ends (a gigabyte, chunked, so no length warns of it) is refused once
    /// past the limit: the server holds at most the limit, answers 413 while the body still
    /// streams, reads and drops a bounded rest, then closes; the sender is stopped long before
    /// its gigabyte, and the call its URL names ends with the error.
    #[tokio::test]
    async fn a_gigabyte_streamed_is_refused_past_the_limit_not_read_whole() {
        let options = ServerOptions {
            max_callback_bytes: SMALL_LIMIT,
            ..ServerOptions::default()
        };
        let (server, _events) = start(options).await;
        let mut reg = server.register("g", "c").unwrap();
        let url = reg.callback_url().to_owned();
        let head = br#"{"type":"tool_result","group_id":"g","id":"c","text":""#;
        let (status, answer, sent) = post_chunked(&url, head, 1 << 30).await;
        assert_eq!(status, 413, "{answer}");
        assert!(answer.contains("LIMIT_EXCEEDED"), "{answer}");
        assert!(
            sent <= SMALL_LIMIT + DISCARD_BYTES + (16 << 20),
            "the sender wrote {sent} bytes before the server stopped reading"
        );
        let ended = reg.result().await.unwrap();
        assert!(ended.is_error(), "{:?}", ended.text);
        assert!(ended.text.unwrap().contains("maxCallbackBytes"));
    }

    /// A refused body that claims another call's ids (readable though the body is not JSON)
    /// ends nothing: the call the token names still takes its real result.
    #[tokio::test]
    async fn a_refused_callback_claiming_another_call_ends_nothing() {
        let (server, _events) = start(ServerOptions::default()).await;
        let mut reg = server.register("g", "c").unwrap();
        let url = reg.callback_url().to_owned();
        let bodies: &[&[u8]] = &[
            br#"{"type":"tool_result","group_id":"g","id":"other","text":1e400}"#,
            br#"{"group_id":"other","id":"c","text":"a","display_as":[1e400"#,
            br#"{"type":"subscription_event","group_id":"g","tool_call_id":"x","text":1}"#,
            br#"{"id":"c","text":{"id":"c"},"id":"x", nope"#,
        ];
        for body in bodies {
            let (status, _) = post_bytes(&url, body).await;
            assert_eq!(status, 404, "{}", String::from_utf8_lossy(body));
        }
        assert!(reg.result.try_recv().is_err(), "nothing ended");
        assert_eq!(post(&url, &result("g", "c", "real")).await, 200);
        assert_eq!(reg.result().await.unwrap().text.as_deref(), Some("real"));
    }

    /// What `JSON.parse` and `response.json()` accept is accepted: a duplicate key keeps its
    /// last value (the attack review saw one refused and its call time out), a leading byte
    /// order mark is dropped, a number that underflows is 0.
    #[tokio::test]
    async fn callbacks_json_parse_accepts_are_accepted() {
        let (server, _events) = start(ServerOptions::default()).await;
        let cases: &[(&[u8], &str)] = &[
            (br#"{"type":"tool_result","group_id":"g","id":"c","text":"a","text":"b"}"#, "b"),
            (b"\xEF\xBB\xBF{\"type\":\"tool_result\",\"group_id\":\"g\",\"id\":\"c\",\"text\":\"bom\"}", "bom"),
            (br#"{"type":"tool_result","group_id":"g","id":"c","text":"u","display_as":[1e-400]}"#, "u"),
        ];
        for (body, text) in cases {
            let mut reg = server.register("g", "c").unwrap();
            let url = reg.callback_url().to_owned();
            let (status, answer) = post_bytes(&url, body).await;
            assert_eq!(status, 200, "{text}: {answer}");
            assert_eq!(reg.result().await.unwrap().text.as_deref(), Some(*text));
            server.close_group("g");
        }
    }

    #[test]
    fn pinned_limits() {
        assert_eq!(DEFAULT_MAX_CALLBACK_BYTES, 16 * 1024 * 1024);
        assert_eq!(DEFAULT_READ_TIMEOUT, Duration::from_secs(10));
        assert_eq!(SECRET_BYTES * 8, 128);
    }

    #[tokio::test]
    async fn attacks_are_refused_and_the_real_result_is_intact() {
        let (server, mut events) = start(ServerOptions {
            max_callback_bytes: 1024,
            ..ServerOptions::default()
        })
        .await;
        let mut reg = server.register("g1", "c1").unwrap();
        let url = reg.callback_url().to_owned();
        let token = url.rsplit('/').next().unwrap().to_owned();
        let base = format!("{}{CALLBACK_PATH}", server.base_url());
        // A forged token: right selector, wrong secret (last digit flipped).
        let mut forged = token.clone();
        let last = if forged.ends_with('0') { "1" } else { "0" };
        forged.replace_range(forged.len() - 1.., last);
        let fake = result("g1", "c1", "forged");
        assert_eq!(
            post(&format!("{base}{forged}"), &fake).await,
            404,
            "forged secret"
        );
        let other_selector = format!("{:016x}{}", u64::MAX - 1, &token[16..]);
        assert_eq!(post(&format!("{base}{other_selector}"), &fake).await, 404);
        assert_eq!(post(&format!("{base}short"), &fake).await, 404);
        assert_eq!(
            post(&format!("{}/other", server.base_url()), &fake).await,
            404
        );
        // A result for another group or another call.
        assert_eq!(
            post(&url, &result("g2", "c1", "x")).await,
            404,
            "other group"
        );
        assert_eq!(post(&url, &result("g1", "c2", "x")).await, 404, "other id");
        // Oversized, declared and (chunked, no length) while streaming, claiming another call:
        // refused, and the call of this URL goes on (one over the limit claiming this call, or
        // nothing, ends it: see every_refused_callback_ends_its_call_with_an_error_naming_why).
        let big = result("g1", "c2", &"x".repeat(2000));
        assert_eq!(post(&url, &big).await, 404, "declared length");
        let path = &url[url.find(CALLBACK_PATH).unwrap()..];
        let chunk = format!(r#"{{"group_id":"g1","id":"c2","text":"{}"#, "y".repeat(565));
        let chunked = format!(
            "POST {path} HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n\
             258\r\n{chunk}\r\n258\r\n{chunk}\r\n0\r\n\r\n"
        );
        let answer = raw(server.local_addr(), chunked.as_bytes()).await;
        assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
        // A refused body claiming another call's ids ends nothing.
        let other = br#"{"type":"tool_result","group_id":"g1","id":"c2","text":1e400}"#;
        assert_eq!(post_bytes(&url, other).await.0, 404);
        let client = reqwest::Client::new();
        // Wrong method.
        let response = client.get(&url).send().await.unwrap();
        assert_eq!(response.status(), 405);
        assert_eq!(response.headers()["allow"], "POST");
        // Nothing was delivered so far.
        assert!(reg.result.try_recv().is_err());
        assert!(events.try_recv().is_err());
        // The real result, then replays.
        let real = result("g1", "c1", "real");
        assert_eq!(post(&url, &real).await, 200);
        assert_eq!(
            post(&url, &real).await,
            200,
            "identical replay is idempotent"
        );
        assert_eq!(post(&url, &result("g1", "c1", "other")).await, 409);
        let delivered = reg.result().await.unwrap();
        assert_eq!(delivered.text.as_deref(), Some("real"));
        assert!(reg.result.try_recv().is_err(), "delivered once");
        assert!(events.try_recv().is_err());
        // An event on a finished call's token is refused.
        let event =
            json!({"type": "view_update", "group_id": "g1", "view_type": "d", "content": 1});
        assert_eq!(post(&url, &event).await, 404);
    }

    #[tokio::test]
    async fn callbacks_after_the_call_ended_are_refused() {
        let (server, mut events) = start(ServerOptions::default()).await;
        let reg = server.register("g", "c").unwrap();
        let url = reg.callback_url().to_owned();
        assert_eq!(reg.end(), None);
        assert_eq!(post(&url, &result("g", "c", "late")).await, 404);
        let event = json!({"type": "oauth", "group_id": "g", "id": "c", "auth_url": "u"});
        assert_eq!(post(&url, &event).await, 404);
        assert!(events.try_recv().is_err());
        // Dropping a registration expires it too.
        let reg = server.register("g", "d").unwrap();
        let url = reg.callback_url().to_owned();
        drop(reg);
        assert_eq!(post(&url, &result("g", "d", "late")).await, 404);
        assert_eq!(server.live_tokens(), 0);
    }

    #[tokio::test]
    async fn a_result_accepted_before_end_is_returned_by_end() {
        let (server, _events) = start(ServerOptions::default()).await;
        let reg = server.register("g", "c").unwrap();
        assert_eq!(
            post(reg.callback_url(), &result("g", "c", "just in time")).await,
            200
        );
        assert_eq!(reg.end().unwrap().text.as_deref(), Some("just in time"));
    }

    #[tokio::test]
    async fn retained_results_expire() {
        let (server, _events) = start(ServerOptions {
            result_retention: Duration::ZERO,
            ..ServerOptions::default()
        })
        .await;
        let reg = server.register("g", "c").unwrap();
        let url = reg.callback_url().to_owned();
        assert_eq!(post(&url, &result("g", "c", "r")).await, 200);
        drop(reg);
        server.shared.sweep_retained();
        assert_eq!(post(&url, &result("g", "c", "r")).await, 404);
    }

    #[tokio::test]
    async fn slow_clients_are_cut_off() {
        let (server, _events) = start(ServerOptions {
            read_timeout: Duration::from_millis(200),
            ..ServerOptions::default()
        })
        .await;
        let mut reg = server.register("g", "c").unwrap();
        let url = reg.callback_url().to_owned();
        let path = &url[url.find(CALLBACK_PATH).unwrap()..];
        // Headers, then a body that stalls after two bytes.
        let stalled_body =
            format!("POST {path} HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{{\"");
        let answer = raw(server.local_addr(), stalled_body.as_bytes()).await;
        assert!(!answer.contains(" 200 "), "{answer}");
        // Headers that never finish.
        let stalled_headers = format!("POST {path} HTTP/1.1\r\nhost: x\r\n");
        let answer = raw(server.local_addr(), stalled_headers.as_bytes()).await;
        assert!(!answer.contains(" 200 "), "{answer}");
        // A connection that never sends anything.
        assert_eq!(raw(server.local_addr(), b"").await, "");
        // A keep-alive connection idle after its first request (a refused body, on another
        // call's token: a refused callback ends the call it names).
        let other = server.register("g", "other").unwrap();
        let other_url = other.callback_url();
        let other_path = &other_url[other_url.find(CALLBACK_PATH).unwrap()..];
        let idle =
            format!("POST {other_path} HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{{}}");
        let answer = raw(server.local_addr(), idle.as_bytes()).await;
        assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
        // The call is intact.
        assert_eq!(post(&url, &result("g", "c", "fine")).await, 200);
        assert_eq!(reg.result().await.unwrap().text.as_deref(), Some("fine"));
    }

    #[tokio::test]
    async fn headers_and_body_share_one_deadline() {
        let limit = Duration::from_millis(1000);
        let (server, mut events) = start(ServerOptions {
            read_timeout: limit,
            ..ServerOptions::default()
        })
        .await;
        let mut reg = server.register("g", "c").unwrap();
        let url = reg.callback_url().to_owned();
        let path = &url[url.find(CALLBACK_PATH).unwrap()..];
        let body = result("g", "c", "slow").to_string();
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        // The headers take 70% of the limit and the body as much again: each part alone
        // would fit the limit, the whole request does not.
        let pause = limit * 7 / 10;
        let mut stream = tokio::net::TcpStream::connect(server.local_addr())
            .await
            .unwrap();
        stream.write_all(&head.as_bytes()[..10]).await.unwrap();
        tokio::time::sleep(pause).await;
        stream.write_all(&head.as_bytes()[10..]).await.unwrap();
        stream.write_all(&body.as_bytes()[..5]).await.unwrap();
        tokio::time::sleep(pause).await;
        // The server may already have closed: the rest is best effort.
        let _ = stream.write_all(&body.as_bytes()[5..]).await;
        let mut answer = Vec::new();
        let read = tokio::time::timeout(DEADLINE, stream.read_to_end(&mut answer)).await;
        assert!(read.is_ok(), "the server did not close the connection");
        let answer = String::from_utf8_lossy(&answer);
        assert!(!answer.contains(" 200 "), "{answer}");
        assert!(reg.result.try_recv().is_err(), "nothing was delivered");
        assert!(events.try_recv().is_err());
        // The call is intact: the same callback sent at once is accepted.
        assert_eq!(post(&url, &result("g", "c", "prompt")).await, 200);
        assert_eq!(reg.result().await.unwrap().text.as_deref(), Some("prompt"));
    }

    #[tokio::test]
    async fn messages_of_one_group_are_processed_one_at_a_time() {
        let (server, mut events) = start(ServerOptions::default()).await;
        server.hooks().hold_ms.store(20, Ordering::SeqCst);
        let reg = server.register("g", "c").unwrap();
        let url = reg.callback_url().to_owned();
        let mut sends = tokio::task::JoinSet::new();
        for i in 0..8 {
            let url = url.clone();
            sends.spawn(async move {
                let event = json!({"type": "subscription_event", "group_id": "g",
                                   "tool_call_id": "c", "text": format!("e{i}")});
                post(&url, &event).await
            });
        }
        while let Some(status) = sends.join_next().await {
            assert_eq!(status.unwrap(), 200);
        }
        assert_eq!(server.hooks().max_inside.load(Ordering::SeqCst), 1);
        let mut texts = Vec::new();
        while let Ok(event) = events.try_recv() {
            assert_eq!(event.name(), "rap_subscription_event");
            assert_eq!(
                (event.call_id.as_str(), event.group_id.as_str()),
                ("c", "g")
            );
            let RapEventKind::Subscription(e) = event.kind else {
                panic!("not a subscription event")
            };
            texts.push(e.text);
        }
        texts.sort();
        assert_eq!(texts, (0..8).map(|i| format!("e{i}")).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn a_full_event_queue_answers_503_and_results_still_flow() {
        let (tx, mut events) = mpsc::channel(1);
        let options = ServerOptions {
            read_timeout: Duration::from_millis(100),
            ..ServerOptions::default()
        };
        let server = CallbackServer::start(options, tx).await.unwrap();
        let mut reg = server.register("g", "c").unwrap();
        let url = reg.callback_url().to_owned();
        let event = |text: &str| {
            json!({"type": "subscription_event", "group_id": "g", "tool_call_id": "c",
                   "text": text})
        };
        assert_eq!(post(&url, &event("queued")).await, 200);
        assert_eq!(post(&url, &event("dropped")).await, 503);
        assert_eq!(post(&url, &result("g", "c", "r")).await, 200);
        assert_eq!(reg.result().await.unwrap().text.as_deref(), Some("r"));
        let RapEventKind::Subscription(first) = events.recv().await.unwrap().kind else {
            panic!("not a subscription event")
        };
        assert_eq!(first.text, "queued");
        assert!(events.try_recv().is_err());
    }

    #[tokio::test]
    async fn a_repeated_event_is_answered_200_and_delivered_once() {
        let (server, mut events) = start(ServerOptions::default()).await;
        let reg = server.register("g", "c").unwrap();
        let url = reg.callback_url().to_owned();
        let mut subscribed = result("g", "c", "on");
        subscribed["subscription"] = json!(true);
        assert_eq!(post(&url, &subscribed).await, 200);
        let event = |text: &str| {
            json!({"type": "subscription_event", "group_id": "g", "tool_call_id": "c",
                   "text": text})
        };
        // A retry of the same message (its 200 was lost) is not a second event; the same
        // text after another one is.
        for (text, want) in [("42", 200), ("42", 200), ("43", 200), ("42", 200)] {
            assert_eq!(post(&url, &event(text)).await, want, "{text}");
        }
        let mut texts = Vec::new();
        while let Ok(event) = events.try_recv() {
            let RapEventKind::Subscription(e) = event.kind else {
                panic!("not a subscription event")
            };
            texts.push(e.text);
        }
        assert_eq!(texts, ["42", "43", "42"]);
    }

    #[tokio::test]
    async fn the_same_event_after_the_repeat_window_is_a_new_one() {
        let (server, mut events) = start(ServerOptions {
            repeat_window: Duration::from_millis(50),
            ..ServerOptions::default()
        })
        .await;
        let reg = server.register("g", "c").unwrap();
        let url = reg.callback_url().to_owned();
        let view = json!({"type": "view_update", "group_id": "g", "view_type": "d", "content": 1});
        assert_eq!(post(&url, &view).await, 200);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(post(&url, &view).await, 200);
        for _ in 0..2 {
            assert_eq!(events.recv().await.unwrap().name(), "rap_view_update");
        }
    }

    #[tokio::test]
    async fn an_error_result_opens_no_subscription() {
        let (server, mut events) = start(ServerOptions::default()).await;
        let mut reg = server.register("g", "c").unwrap();
        let url = reg.callback_url().to_owned();
        let failed = json!({"type": "tool_result", "group_id": "g", "id": "c",
                            "text": "Error: no such feed", "subscription": true});
        assert_eq!(post(&url, &failed).await, 200);
        assert!(reg.result().await.unwrap().is_error());
        drop(reg);
        let event = json!({"type": "subscription_event", "group_id": "g", "tool_call_id": "c",
                           "text": "tick"});
        assert_eq!(post(&url, &event).await, 404);
        assert!(events.try_recv().is_err());
        assert!(!server.end_subscription("g", "c"));
    }

    #[tokio::test]
    async fn a_user_choice_is_pending_before_its_event_is_seen() {
        let (tx, mut events) = mpsc::channel(1);
        let options = ServerOptions {
            read_timeout: Duration::from_millis(300),
            ..ServerOptions::default()
        };
        let server = CallbackServer::start(options, tx).await.unwrap();
        let reg = server.register("g", "c").unwrap();
        let url = reg.callback_url().to_owned();
        let choice = |prompt: &str| {
            json!({"type": "user_choice", "group_id": "g", "id": "c", "prompt": prompt,
                   "choices": ["a", "b"], "response_url": "http://127.0.0.1:9/answer"})
        };
        let view = json!({"type": "view_update", "group_id": "g", "view_type": "d", "content": 1});
        // The queue is full: the choice waits to be delivered, and is already answerable.
        assert_eq!(post(&url, &view).await, 200);
        let sending = tokio::spawn({
            let url = url.clone();
            let message = choice("which?");
            async move { post(&url, &message).await }
        });
        let waited = tokio::time::timeout(DEADLINE, async {
            while server.pending_choices() == 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        });
        assert!(waited.await.is_ok(), "the choice never became pending");
        assert_eq!(events.recv().await.unwrap().name(), "rap_view_update");
        assert_eq!(sending.await.unwrap(), 200);
        assert_eq!(events.recv().await.unwrap().name(), "rap_user_choice");
        assert_eq!(server.pending_choices(), 1);
        // Sent again while pending: a repeat, not a second question.
        assert_eq!(post(&url, &choice("which?")).await, 200);
        assert!(events.try_recv().is_err());
        // Answered, the same question again is a new one.
        assert_eq!(server.take_choice(Some("g"), "c").unwrap().choices, 2);
        assert_eq!(post(&url, &choice("which?")).await, 200);
        assert_eq!(events.recv().await.unwrap().name(), "rap_user_choice");
        assert_eq!(server.pending_choices(), 1);
        // One that cannot be delivered (503) leaves the choice as it was: the pending one.
        assert_eq!(post(&url, &view).await, 200);
        assert_eq!(post(&url, &choice("again?")).await, 503);
        let pending = server.take_choice(Some("g"), "c").unwrap();
        assert_eq!(pending.response_url, "http://127.0.0.1:9/answer");
        assert_eq!(events.recv().await.unwrap().name(), "rap_view_update");
        // And none at all when there was none. (Another view: the same one again would be a
        // repeat.)
        let other_view =
            json!({"type": "view_update", "group_id": "g", "view_type": "d", "content": 2});
        assert_eq!(post(&url, &other_view).await, 200);
        assert_eq!(post(&url, &choice("again?")).await, 503);
        assert_eq!(server.pending_choices(), 0);
    }

    #[tokio::test]
    async fn public_url_and_bind_are_used() {
        let (server, _events) = start(ServerOptions {
            public_url: Some("https://agent.example/hooks/".to_owned()),
            ..ServerOptions::default()
        })
        .await;
        let reg = server.register("g", "c").unwrap();
        assert!(reg
            .callback_url()
            .starts_with("https://agent.example/hooks/rap/callback/"));
        assert!(server.local_addr().ip().is_loopback());
        // A proxy that keeps its path prefix reaches the call too.
        let behind_proxy = reg.callback_url().replace(
            "https://agent.example",
            &format!("http://{}", server.local_addr()),
        );
        assert_eq!(
            post(&behind_proxy, &result("g", "c", "via proxy")).await,
            200
        );
        let (tx, _rx) = mpsc::channel(1);
        let bad = ServerOptions {
            public_url: Some("ftp://x".to_owned()),
            ..ServerOptions::default()
        };
        assert!(matches!(
            CallbackServer::start(bad, tx).await,
            Err(RapError::InvalidConfig { .. })
        ));
    }
}
