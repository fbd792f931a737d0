//! Remote tool calls in flight at once (issue 8, "Performance"): toolwire's [`RapHub`] against
//! the reference client crate `rap-client`, both driving the same local tool server.
//!
//! ```sh
//! cargo run --release -p toolwire-rap --example rap_bench -- \
//!     [--calls 1000] [--rounds 5] [--warmup 1] [--delay-ms 5] \
//!     [--client-threads 2] [--server-threads 1] [--only toolwire|rap-client]
//! ```
//!
//! `--only` runs one contender (for profiling) and prints its rounds only.
//!
//! The tool server (hyper, on a runtime of its own) serves `/.well-known/rap-toolset` with one
//! tool; its endpoint answers 200 at once and, `--delay-ms` later, POSTs a `tool_result` to the
//! invocation's `callback_url` with `rap_protocol::send_tool_result` over one shared
//! `PlainCallbackClient`: the reference's own sending path, the same for both contenders.
//!
//! - A, toolwire: `RapHub::load_toolset`, then `--calls` spawned `RapHub::invoke`s at once.
//! - B, reference: `rap_client::toolset_loader::ToolsetLoader` loads the toolset,
//!   `rap_client::callback_server::start_callback_server` receives the callbacks and
//!   `rap_client::http::SimpleHttpClient` POSTs the invocations. The reference hands every
//!   callback to one handler and has no per-call correlation, so the benchmark adds the minimum:
//!   a map from `(group_id, id)` to a oneshot sender, filled before the POST and emptied by the
//!   handler.
//!
//! A call's latency runs from the moment its task calls invoke (A) or registers and POSTs (B)
//! until its result is in the caller's hands. A round's throughput is the calls divided by the
//! wall time from the first spawn to the last result. Rounds alternate A, B then B, A; the
//! warm-up rounds are dropped and the medians of the measured rounds are reported.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rap_client::callback_server::start_callback_server;
use rap_client::http::{HttpClient, InMemoryToolsetCache, SimpleHttpClient};
use rap_client::toolset_loader::ToolsetLoader;
use rap_protocol::{
    send_tool_result, PlainCallbackClient, RapCallback, RapInvocation, RapToolResult, ThreadId,
    ToolCallId, ToolDef, ToolsetManifest,
};
use serde_json::value::RawValue;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinSet;
use toolwire_rap::{HubOptions, RapCall, RapHub, RapOutcome, ToolsetOptions};

/// The result text every call must come back with.
const RESULT_TEXT: &str = "done";
/// The arguments of every call.
const ARGUMENTS: &str = r#"{"q":"hello"}"#;
/// The thread every call belongs to (one dispatch's calls share their run's group).
const GROUP: &str = "bench-run";
/// No call may take longer than this; a call that does fails the round.
const CALL_DEADLINE: Duration = Duration::from_secs(60);

type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, Clone)]
struct Config {
    calls: usize,
    rounds: usize,
    warmup: usize,
    delay: Duration,
    client_threads: usize,
    server_threads: usize,
    /// Runs one contender only (for profiling): "toolwire" or "rap-client".
    only: Option<String>,
}

impl Config {
    fn from_args() -> Result<Self, String> {
        let mut config = Config {
            calls: 1000,
            rounds: 5,
            warmup: 1,
            delay: Duration::from_millis(5),
            client_threads: 2,
            server_threads: 1,
            only: None,
        };
        let mut args = std::env::args().skip(1);
        while let Some(flag) = args.next() {
            let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
            if flag == "--only" {
                if !matches!(value.as_str(), "toolwire" | "rap-client") {
                    return Err(format!("--only: toolwire or rap-client, not {value}"));
                }
                config.only = Some(value);
                continue;
            }
            let number = value
                .parse::<u64>()
                .map_err(|_| format!("{flag}: not a number: {value}"))?;
            let count = usize::try_from(number).map_err(|_| format!("{flag}: too large"))?;
            match flag.as_str() {
                "--calls" => config.calls = count.max(1),
                "--rounds" => config.rounds = count.max(1),
                "--warmup" => config.warmup = count,
                "--delay-ms" => config.delay = Duration::from_millis(number),
                "--client-threads" => config.client_threads = count.max(1),
                "--server-threads" => config.server_threads = count.max(1),
                _ => return Err(format!("unknown option {flag}")),
            }
        }
        Ok(config)
    }
}

// ── The tool server ──

struct ToolServerState {
    manifest: String,
    delay: Duration,
    callbacks: PlainCallbackClient,
}

fn manifest() -> ToolsetManifest {
    ToolsetManifest {
        name: "bench".to_owned(),
        description: Some("one tool that answers after a delay".to_owned()),
        endpoint: "/invoke".to_owned(),
        tools: vec![ToolDef {
            name: "delayed_echo".to_owned(),
            description: "answers after the configured delay".to_owned(),
            input_schema: serde_json::json!({
                "type": "object",
                "properties": {"q": {"type": "string"}}
            }),
            annotations: None,
            display_script: None,
        }],
        needs_migration: false,
    }
}

fn respond(status: StatusCode, text: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(text)));
    *response.status_mut() = status;
    response
}

async fn tool_server_handle(
    state: Arc<ToolServerState>,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, hyper::Error> {
    let path = req.uri().path().to_owned();
    let is_get = req.method() == hyper::Method::GET;
    let body = req.into_body().collect().await?.to_bytes();
    Ok(match (is_get, path.as_str()) {
        (true, "/.well-known/rap-toolset") => respond(StatusCode::OK, state.manifest.clone()),
        (false, "/invoke") => match serde_json::from_slice::<RapInvocation>(&body) {
            Ok(invocation) => {
                let state = Arc::clone(&state);
                tokio::spawn(async move {
                    tokio::time::sleep(state.delay).await;
                    send_tool_result(&state.callbacks, &invocation, RESULT_TEXT, None, false).await;
                });
                respond(StatusCode::OK, String::new())
            }
            Err(e) => respond(StatusCode::BAD_REQUEST, e.to_string()),
        },
        // cancel_tool_call, close_thread: acknowledged.
        (false, _) => respond(StatusCode::OK, String::new()),
        (true, _) => respond(StatusCode::NOT_FOUND, String::new()),
    })
}

/// Starts the tool server on `runtime`; returns its base URL.
fn start_tool_server(runtime: &tokio::runtime::Runtime, delay: Duration) -> String {
    let listener = runtime
        .block_on(TcpListener::bind("127.0.0.1:0"))
        .expect("cannot bind the tool server");
    let base = format!("http://{}", listener.local_addr().expect("local address"));
    let state = Arc::new(ToolServerState {
        manifest: serde_json::to_string(&manifest()).expect("manifest serializes"),
        delay,
        callbacks: PlainCallbackClient::new(),
    });
    runtime.spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            };
            let _ = stream.set_nodelay(true);
            let state = Arc::clone(&state);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req| {
                    tool_server_handle(Arc::clone(&state), req)
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    base
}

// ── One round's figures ──

#[derive(Debug, Clone, Copy)]
struct Round {
    calls_per_s: f64,
    p50_ms: f64,
    p99_ms: f64,
    max_ms: f64,
    /// CPU time of the contenders' threads (runtime workers and the driving thread), per call.
    client_cpu_us: f64,
    /// CPU time of the tool server's threads, per call.
    server_cpu_us: f64,
}

/// CPU time so far of this process's threads: (all but the tool server's, the tool server's),
/// in ns, from `/proc/self/task/*/schedstat`. Zeros where that is not available.
fn cpu_ns() -> (u64, u64) {
    let (mut client, mut server) = (0, 0);
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return (0, 0);
    };
    for task in tasks.flatten() {
        let path = task.path();
        let on_cpu = std::fs::read_to_string(path.join("schedstat"))
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
            .unwrap_or(0);
        let name = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
        if name.trim_end() == "tool-server" {
            server += on_cpu;
        } else {
            client += on_cpu;
        }
    }
    (client, server)
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn figures(wall: Duration, mut latencies: Vec<Duration>, cpu: (u64, u64)) -> Round {
    latencies.sort_unstable();
    let per_call = |ns: u64| ns as f64 / 1e3 / latencies.len() as f64;
    Round {
        client_cpu_us: per_call(cpu.0),
        server_cpu_us: per_call(cpu.1),
        calls_per_s: latencies.len() as f64 / wall.as_secs_f64(),
        p50_ms: ms(percentile(&latencies, 50.0)),
        p99_ms: ms(percentile(&latencies, 99.0)),
        max_ms: ms(*latencies.last().expect("at least one call")),
    }
}

/// Spawns `calls` tasks at once, each timing `call(i)`, which reports whether the call came
/// back with the expected result. Panics if any did not.
async fn burst<F, Fut>(name: &str, calls: usize, call: F) -> Round
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = Result<(), String>> + Send + 'static,
{
    let cpu_before = cpu_ns();
    let start = Instant::now();
    let mut tasks = JoinSet::new();
    for i in 0..calls {
        let call = call(i);
        tasks.spawn(async move {
            let begun = Instant::now();
            let outcome = tokio::time::timeout(CALL_DEADLINE, call).await;
            (begun.elapsed(), outcome)
        });
    }
    let mut latencies = Vec::with_capacity(calls);
    let mut failures = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        let (latency, outcome) = joined.expect("a call task panicked");
        latencies.push(latency);
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failures.push(e),
            Err(_) => failures.push("no result within the deadline".to_owned()),
        }
    }
    let wall = start.elapsed();
    let cpu_after = cpu_ns();
    assert!(
        failures.is_empty(),
        "{name}: {} of {calls} calls failed, first: {}",
        failures.len(),
        failures[0]
    );
    let cpu = (
        cpu_after.0.saturating_sub(cpu_before.0),
        cpu_after.1.saturating_sub(cpu_before.1),
    );
    figures(wall, latencies, cpu)
}

// ── Contender A: toolwire ──

async fn toolwire_round(hub: &RapHub, tool: &str, round: usize, calls: usize) -> Round {
    let arguments = RawValue::from_string(ARGUMENTS.to_owned()).expect("valid JSON");
    burst("toolwire", calls, |i| {
        let hub = hub.clone();
        let call = RapCall {
            tool: tool.to_owned(),
            arguments: arguments.clone(),
            id: format!("a-{round}-{i}"),
            call_id: None,
            group_id: GROUP.to_owned(),
            thread_ancestors: Vec::new(),
            user_id: None,
            timeout: Some(CALL_DEADLINE),
        };
        async move {
            match hub.invoke(call).await {
                RapOutcome::Ok(result) if result.text.as_deref() == Some(RESULT_TEXT) => Ok(()),
                other => Err(format!("{other:?}")),
            }
        }
    })
    .await
}

// ── Contender B: the reference client ──

type Pending = Arc<Mutex<HashMap<(String, String), oneshot::Sender<RapToolResult>>>>;

struct Reference {
    http: SimpleHttpClient,
    endpoint: String,
    operation: String,
    callback_url: String,
    pending: Pending,
}

impl Reference {
    async fn start(base: &str) -> Result<Self, BoxError> {
        let loader = ToolsetLoader::new(SimpleHttpClient::new(), InMemoryToolsetCache::new());
        let loaded = loader
            .load_toolsets(&[base.to_owned()], ThreadId::from_ref(GROUP))
            .await?;
        let manifest = &loaded[0].manifest;
        // The reference leaves resolving a relative endpoint to its caller.
        let endpoint = if manifest.endpoint.starts_with('/') {
            format!("{base}{}", manifest.endpoint)
        } else {
            manifest.endpoint.clone()
        };
        let pending: Pending = Arc::default();
        let delivered = Arc::clone(&pending);
        let callback_base = start_callback_server(move |callback| {
            let delivered = Arc::clone(&delivered);
            async move {
                if let RapCallback::ToolResult(result) = callback {
                    let key = (
                        result.group_id.as_str().to_owned(),
                        result.id.as_str().to_owned(),
                    );
                    let sender = delivered.lock().expect("not poisoned").remove(&key);
                    if let Some(sender) = sender {
                        let _ = sender.send(result);
                    }
                }
            }
        })
        .await?;
        Ok(Reference {
            http: SimpleHttpClient::new(),
            endpoint,
            operation: manifest.tools[0].name.clone(),
            callback_url: format!("{callback_base}/rap/callback"),
            pending,
        })
    }

    async fn round(&self, round: usize, calls: usize) -> Round {
        let arguments: serde_json::Value = serde_json::from_str(ARGUMENTS).expect("valid JSON");
        burst("rap-client", calls, |i| {
            let http = self.http.clone();
            let endpoint = self.endpoint.clone();
            let pending = Arc::clone(&self.pending);
            let invocation = RapInvocation {
                operation: self.operation.clone(),
                arguments: arguments.clone(),
                id: ToolCallId::from(format!("b-{round}-{i}")),
                call_id: None,
                callback_url: self.callback_url.clone(),
                group_id: ThreadId::from(GROUP),
                user_id: None,
                thread_ancestors: Some(Vec::new()),
            };
            async move {
                let key = (GROUP.to_owned(), invocation.id.as_str().to_owned());
                let (tx, rx) = oneshot::channel();
                pending
                    .lock()
                    .expect("not poisoned")
                    .insert(key.clone(), tx);
                let body = serde_json::to_string(&invocation).map_err(|e| e.to_string())?;
                let status = http.post(&endpoint, &body).await;
                if !matches!(status, Ok(200)) {
                    pending.lock().expect("not poisoned").remove(&key);
                    return Err(format!("invocation answered {status:?}"));
                }
                match rx.await {
                    Ok(result) if result.text.as_deref() == Some(RESULT_TEXT) => Ok(()),
                    Ok(result) => Err(format!("{result:?}")),
                    Err(_) => Err("callback sender dropped".to_owned()),
                }
            }
        })
        .await
    }
}

// ── Report ──

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

struct Summary {
    calls_per_s: f64,
    calls_per_s_range: (f64, f64),
    p50_ms: f64,
    p99_ms: f64,
    p99_range: (f64, f64),
    max_ms: f64,
    client_cpu_us: f64,
    server_cpu_us: f64,
}

fn summarize(rounds: &[Round]) -> Summary {
    let pick = |f: fn(&Round) -> f64| rounds.iter().map(f).collect::<Vec<_>>();
    let range = |v: Vec<f64>| {
        (
            v.iter().copied().fold(f64::INFINITY, f64::min),
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    };
    Summary {
        calls_per_s: median(pick(|r| r.calls_per_s)),
        calls_per_s_range: range(pick(|r| r.calls_per_s)),
        p50_ms: median(pick(|r| r.p50_ms)),
        p99_ms: median(pick(|r| r.p99_ms)),
        p99_range: range(pick(|r| r.p99_ms)),
        max_ms: median(pick(|r| r.max_ms)),
        client_cpu_us: median(pick(|r| r.client_cpu_us)),
        server_cpu_us: median(pick(|r| r.server_cpu_us)),
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, model)| model.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Versions of the crates that matter, as resolved in the workspace's Cargo.lock.
fn locked_versions(names: &[&str]) -> Vec<(String, String)> {
    let lock = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock");
    let text = std::fs::read_to_string(lock).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    names
        .iter()
        .map(|name| {
            let wanted = format!("name = \"{name}\"");
            let versions: Vec<&str> = lines
                .windows(2)
                .filter(|w| w[0] == wanted)
                .filter_map(|w| w[1].strip_prefix("version = "))
                .map(|v| v.trim_matches('"'))
                .collect();
            let shown = if versions.is_empty() {
                "?".to_owned()
            } else {
                versions.join(", ")
            };
            ((*name).to_owned(), shown)
        })
        .collect()
}

fn main() -> Result<(), BoxError> {
    let config = Config::from_args().map_err(|e| -> BoxError {
        format!("{e}\nusage: rap_bench [--calls N] [--rounds N] [--warmup N] [--delay-ms N] [--client-threads N] [--server-threads N] [--only toolwire|rap-client]").into()
    })?;
    let server_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.server_threads)
        .thread_name("tool-server")
        .enable_all()
        .build()?;
    let client_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.client_threads)
        .thread_name("contenders")
        .enable_all()
        .build()?;
    let base = start_tool_server(&server_runtime, config.delay);

    let (toolwire, reference) = client_runtime.block_on(async {
        let hub = RapHub::new(HubOptions::default())?;
        let names = hub.load_toolset(&base, ToolsetOptions::default()).await?;
        let reference = Reference::start(&base).await?;
        let tool = names[0].clone();
        let mut toolwire = Vec::new();
        let mut reference_rounds = Vec::new();
        let total = config.warmup + config.rounds;
        let run_a = config.only.as_deref() != Some("rap-client");
        let run_b = config.only.as_deref() != Some("toolwire");
        for round in 0..total {
            let measured = round >= config.warmup;
            // A, B on even rounds and B, A on odd ones, so neither always runs second.
            let (mut a, mut b) = (None, None);
            for turn in 0..2 {
                if (turn + round) % 2 == 0 {
                    if run_a {
                        a = Some(toolwire_round(&hub, &tool, round, config.calls).await);
                    }
                } else if run_b {
                    b = Some(reference.round(round, config.calls).await);
                }
                settle().await;
            }
            let show = |name: &str, r: Option<Round>| {
                r.map(|r| {
                    format!(
                        " | {name} {:.0} calls/s p50 {:.2} ms p99 {:.2} ms cpu {:.0}+{:.0} us/call",
                        r.calls_per_s, r.p50_ms, r.p99_ms, r.client_cpu_us, r.server_cpu_us
                    )
                })
                .unwrap_or_default()
            };
            eprintln!(
                "round {round}{}{}{}",
                if measured { "" } else { " (warm-up)" },
                show("toolwire", a),
                show("rap-client", b)
            );
            if measured {
                toolwire.extend(a);
                reference_rounds.extend(b);
            }
        }
        Ok::<_, BoxError>((toolwire, reference_rounds))
    })?;

    if toolwire.is_empty() || reference.is_empty() {
        return Ok(());
    }
    let a = summarize(&toolwire);
    let b = summarize(&reference);
    println!();
    println!(
        "{} calls in flight at once, tool delay {} ms, {} measured rounds (+{} warm-up), medians",
        config.calls,
        config.delay.as_millis(),
        config.rounds,
        config.warmup
    );
    println!(
        "machine: {} logical CPUs, {}; contenders on {} worker threads, tool server on {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model(),
        config.client_threads,
        config.server_threads
    );
    let versions = locked_versions(&["rap-client", "rap-protocol", "reqwest", "hyper", "tokio"]);
    println!(
        "versions: toolwire-rap {}, {}",
        env!("CARGO_PKG_VERSION"),
        versions
            .iter()
            .map(|(name, version)| format!("{name} {version}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!();
    println!(
        "| contender | calls/s | calls/s min-max | p50 ms | p99 ms | p99 min-max | max ms | client CPU us/call | tool server CPU us/call |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, s) in [("toolwire RapHub", &a), ("rap-client (reference)", &b)] {
        println!(
            "| {name} | {:.0} | {:.0}-{:.0} | {:.2} | {:.2} | {:.2}-{:.2} | {:.2} | {:.1} | {:.1} |",
            s.calls_per_s,
            s.calls_per_s_range.0,
            s.calls_per_s_range.1,
            s.p50_ms,
            s.p99_ms,
            s.p99_range.0,
            s.p99_range.1,
            s.max_ms,
            s.client_cpu_us,
            s.server_cpu_us
        );
    }
    println!(
        "| toolwire / reference | {:.2}x | | {:.2}x | {:.2}x | | {:.2}x | {:.2}x | {:.2}x |",
        a.calls_per_s / b.calls_per_s,
        a.p50_ms / b.p50_ms,
        a.p99_ms / b.p99_ms,
        a.max_ms / b.max_ms,
        a.client_cpu_us / b.client_cpu_us,
        a.server_cpu_us / b.server_cpu_us
    );
    drop(client_runtime);
    drop(server_runtime);
    Ok(())
}

/// A pause between bursts so one contender's stragglers (connection teardown, retained
/// results) do not run inside the other's clock.
async fn settle() {
    tokio::time::sleep(Duration::from_millis(200)).await;
}
