//! A tiny scripted RAP tool server on 127.0.0.1 for the tests: serves a manifest, accepts
//! invocations by operation, posts callbacks back, and records every request it sees.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::server::conn::http1;
use hyper::{Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::Notify;

/// Deadline for anything a test waits for (a deadline, not a timing assertion).
pub const DEADLINE: Duration = Duration::from_secs(20);

/// One request the tool server received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    /// Header names lowercase; a header sent twice keeps its last value.
    pub headers: HashMap<String, String>,
    pub body: Value,
}

/// The scripted tool server.
pub struct ToolServer {
    pub base_url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    changed: Arc<Notify>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ToolServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The manifest of the scripted server: one tool per behaviour.
pub fn manifest(name: &str) -> Value {
    let tools: Vec<Value> = [
        "echo",
        "image",
        "fail",
        "slow",
        "flaky",
        "reject",
        "events",
        "subscribe",
        "early",
        "moved",
    ]
    .iter()
    .map(|op| json!({"name": op, "description": op, "inputSchema": {"type": "object"}}))
    .collect();
    json!({"name": name, "endpoint": "/invoke", "tools": tools})
}

/// POSTs JSON to a URL and returns the status.
pub async fn post(url: &str, body: &Value) -> u16 {
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .map(|r| r.status().as_u16())
        .unwrap_or(0)
}

impl ToolServer {
    /// Starts the server with `manifest` at `/.well-known/rap-toolset`.
    pub async fn start(manifest: Value) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let changed = Arc::new(Notify::new());
        let state = (Arc::clone(&seen), Arc::clone(&changed), base_url.clone());
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let (seen, changed, base) = state.clone();
                let manifest = manifest.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(
                        move |req: hyper::Request<hyper::body::Incoming>| {
                            let (seen, changed, base) =
                                (seen.clone(), changed.clone(), base.clone());
                            let manifest = manifest.clone();
                            async move {
                                let method = req.method().to_string();
                                let path = req.uri().path().to_owned();
                                let query = req.uri().query().unwrap_or("").to_owned();
                                let headers = req
                                    .headers()
                                    .iter()
                                    .map(|(name, value)| {
                                        let value = String::from_utf8_lossy(value.as_bytes());
                                        (name.as_str().to_owned(), value.into_owned())
                                    })
                                    .collect();
                                let bytes = req.into_body().collect().await?.to_bytes();
                                let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                                let seen_now = {
                                    let mut seen = seen.lock().unwrap();
                                    seen.push(Seen {
                                        method: method.clone(),
                                        path: path.clone(),
                                        headers,
                                        body: body.clone(),
                                    });
                                    seen.clone()
                                };
                                changed.notify_waiters();
                                let (status, text) = match (method.as_str(), path.as_str()) {
                                    ("GET", "/.well-known/rap-toolset") => {
                                        (200, manifest.to_string())
                                    }
                                    ("POST", "/invoke") => script(&base, &body, &seen_now),
                                    ("POST", "/choice") => answered(&query, &body, &seen_now),
                                    ("POST", _) => (200, "ok".to_owned()),
                                    _ => (404, String::new()),
                                };
                                let mut response = Response::new(Full::new(Bytes::from(text)));
                                *response.status_mut() = StatusCode::from_u16(status).unwrap();
                                Ok::<_, hyper::Error>(response)
                            }
                        },
                    );
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        ToolServer {
            base_url,
            seen,
            changed,
            task,
        }
    }

    /// Every request seen so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// Requests to `path` seen so far.
    pub fn count(&self, path: &str) -> usize {
        self.seen().iter().filter(|s| s.path == path).count()
    }

    /// Waits (up to [`DEADLINE`]) for a request matching `pred`.
    pub async fn wait_for(&self, pred: impl Fn(&Seen) -> bool) -> Seen {
        let wait = async {
            loop {
                let notified = self.changed.notified();
                if let Some(hit) = self.seen().into_iter().find(|s| pred(s)) {
                    return hit;
                }
                notified.await;
            }
        };
        tokio::time::timeout(DEADLINE, wait)
            .await
            .expect("tool server never saw the expected request")
    }
}

/// A user choice answered (`{ id, selected }`, its thread in the query `group=`): the `events`
/// call it belongs to sends its result, naming the answer.
fn answered(query: &str, answer: &Value, seen: &[Seen]) -> (u16, String) {
    let group = query.strip_prefix("group=").unwrap_or("");
    let invocation = seen.iter().rev().find(|s| {
        s.path == "/invoke" && s.body["id"] == answer["id"] && s.body["group_id"] == group
    });
    if let Some(invocation) = invocation {
        let url = invocation.body["callback_url"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        let result = json!({"type": "tool_result", "group_id": invocation.body["group_id"],
                            "id": answer["id"], "text": format!("picked {}", answer["selected"])});
        tokio::spawn(async move {
            post(&url, &result).await;
        });
    }
    (200, "ok".to_owned())
}

/// The behaviour of each operation: the invocation's HTTP answer, and callbacks sent after.
fn script(base: &str, invocation: &Value, seen: &[Seen]) -> (u16, String) {
    let op = invocation["operation"].as_str().unwrap_or("").to_owned();
    let url = invocation["callback_url"].as_str().unwrap_or("").to_owned();
    let group = invocation["group_id"].clone();
    let id = invocation["id"].clone();
    let result = |fields: Value| {
        let mut message = json!({"type": "tool_result", "group_id": group, "id": id});
        for (k, v) in fields.as_object().unwrap() {
            message[k] = v.clone();
        }
        message
    };
    let mut callbacks = Vec::new();
    let status = match op.as_str() {
        "echo" => {
            let text = format!("echo {}", invocation["arguments"]);
            callbacks.push(result(
                json!({"text": text, "call_id": invocation["call_id"]}),
            ));
            200
        }
        "image" => {
            callbacks.push(result(json!({"content": [
                {"type": "text", "text": "a red pixel"},
                {"type": "image", "data": "iVBORw0KGgo=", "mediaType": "image/png"}
            ], "display_as": [{"type": "text", "content": "pixel"}]})));
            200
        }
        "fail" => {
            callbacks.push(result(json!({"text": "Error: the tool failed"})));
            200
        }
        "slow" => 200,
        "flaky" => {
            let fail_times = invocation["arguments"]["fail_times"].as_u64().unwrap_or(0);
            let tries = seen
                .iter()
                .filter(|s| s.path == "/invoke" && s.body["id"] == id)
                .count() as u64;
            if tries <= fail_times {
                503
            } else {
                callbacks.push(result(json!({"text": format!("ok after {tries}")})));
                200
            }
        }
        "reject" => 400,
        "moved" => 307,
        "early" => {
            // Answers before accepting: the result may arrive before the 200.
            callbacks.push(result(json!({"text": "early"})));
            200
        }
        "events" => {
            callbacks.push(json!({"type": "subscription_event", "group_id": group,
                                  "tool_call_id": id, "text": "tick"}));
            callbacks.push(json!({"type": "oauth", "group_id": group, "id": id,
                                  "auth_url": "https://auth.example/x"}));
            callbacks.push(json!({"type": "user_choice", "group_id": group, "id": id,
                                  "prompt": "which?", "choices": ["a", "b"], "default": 1,
                                  "response_url": format!("{base}/choice?group={}",
                                                          group.as_str().unwrap_or(""))}));
            callbacks.push(json!({"type": "view_update", "group_id": group,
                                  "view_type": "diff", "content": {"patch": "+x"}}));
            // The result follows the choice's answer (see `answered`).
            200
        }
        "subscribe" => {
            callbacks.push(result(json!({"text": "subscribed", "subscription": true})));
            callbacks.push(json!({"type": "subscription_event", "group_id": group,
                                  "tool_call_id": id, "text": "first"}));
            callbacks.push(json!({"type": "subscription_event", "group_id": group,
                                  "tool_call_id": id, "text": "last", "final": true}));
            200
        }
        _ => 404,
    };
    if !callbacks.is_empty() {
        tokio::spawn(async move {
            for callback in callbacks {
                post(&url, &callback).await;
            }
        });
    }
    (status, String::new())
}
