//! Interop with the reference implementation: a tool server written with the published
//! `rap-protocol` crate (its `ToolsetManifest`, `RapInvocation` and `send_tool_result` over
//! `PlainCallbackClient`) must accept toolwire's invocations, and toolwire must receive its
//! results: text, content with an image, an error, a slow tool and a subscription.

use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rap_protocol::{
    send_subscription_event, send_tool_result, CallbackClient, PlainCallbackClient, RapCallback,
    RapInvocation, RapToolResult, RapToolResultContent, ToolDef, ToolsetManifest,
};
use serde_json::{json, value::RawValue};
use tokio::net::TcpListener;
use toolwire_rap::{
    ContentItem, HubOptions, RapCall, RapEventKind, RapHub, RapOutcome, ToolsetOptions,
};

const DEADLINE: Duration = Duration::from_secs(20);

fn manifest() -> ToolsetManifest {
    let tool = |name: &str| ToolDef {
        name: name.to_owned(),
        description: format!("the {name} tool"),
        input_schema: json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        annotations: None,
        display_script: None,
    };
    ToolsetManifest {
        name: "reference".to_owned(),
        description: Some("tools served with rap-protocol".to_owned()),
        endpoint: "/invoke".to_owned(),
        tools: ["echo", "picture", "broken", "slow", "ticker"]
            .into_iter()
            .map(tool)
            .collect(),
        needs_migration: false,
    }
}

/// Runs one invocation the way a reference tool server would.
async fn run_tool(invocation: RapInvocation) {
    let client = PlainCallbackClient::new();
    match invocation.operation.as_str() {
        "echo" => {
            let text = format!("you said {}", invocation.arguments["q"]);
            send_tool_result(&client, &invocation, &text, None, false).await;
        }
        "picture" => {
            let message = RapCallback::ToolResult(RapToolResult {
                group_id: invocation.group_id.clone(),
                id: invocation.id.clone(),
                call_id: invocation.call_id.clone(),
                text: None,
                content: Some(vec![
                    RapToolResultContent::Text {
                        text: "one pixel".to_owned(),
                    },
                    RapToolResultContent::Image {
                        data: "iVBORw0KGgo=".to_owned(),
                        media_type: "image/png".to_owned(),
                    },
                ]),
                display_as: None,
                subscription: None,
            });
            let body = serde_json::to_string(&message).unwrap();
            client
                .post_json(&invocation.callback_url, &body)
                .await
                .unwrap();
        }
        "broken" => {
            send_tool_result(&client, &invocation, "Error: disk on fire", None, false).await;
        }
        "slow" => {
            tokio::time::sleep(Duration::from_millis(300)).await;
            send_tool_result(&client, &invocation, "finally", None, false).await;
        }
        "ticker" => {
            send_tool_result(&client, &invocation, "subscribed", None, true).await;
            send_subscription_event(
                &client,
                &invocation.callback_url,
                invocation.group_id.clone(),
                invocation.id.clone(),
                "tick 1",
                false,
                true,
            )
            .await;
        }
        other => panic!("unknown operation {other}"),
    }
}

async fn handle(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, hyper::Error> {
    let path = req.uri().path().to_owned();
    let body = req.into_body().collect().await?.to_bytes();
    let (status, text) = match path.as_str() {
        "/.well-known/rap-toolset" => (200, serde_json::to_string(&manifest()).unwrap()),
        "/invoke" => match serde_json::from_slice::<RapInvocation>(&body) {
            Ok(invocation) => {
                tokio::spawn(run_tool(invocation));
                (200, String::new())
            }
            Err(e) => (400, e.to_string()),
        },
        _ => (200, String::new()),
    };
    let mut response = Response::new(Full::new(Bytes::from(text)));
    *response.status_mut() = StatusCode::from_u16(status).unwrap();
    Ok(response)
}

async fn start_reference_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), hyper::service::service_fn(handle))
                    .await;
            });
        }
    });
    base
}

fn call(tool: &str, id: &str) -> RapCall {
    RapCall {
        tool: tool.to_owned(),
        arguments: RawValue::from_string(r#"{"q":"hello"}"#.to_owned()).unwrap(),
        id: id.to_owned(),
        call_id: Some(format!("provider-{id}")),
        group_id: "thread-1".to_owned(),
        thread_ancestors: vec![],
        user_id: None,
        timeout: Some(DEADLINE),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn toolwire_talks_to_a_reference_tool_server() {
    let base = start_reference_server().await;
    let hub = Arc::new(RapHub::new(HubOptions::default()).unwrap());
    let names = hub
        .load_toolset(&base, ToolsetOptions::default())
        .await
        .unwrap();
    assert_eq!(names, ["echo", "picture", "broken", "slow", "ticker"]);
    let mut events = hub.take_events().unwrap();

    let invoke = |tool: &'static str, id: &'static str| {
        let hub = Arc::clone(&hub);
        async move {
            tokio::time::timeout(DEADLINE * 2, hub.invoke(call(tool, id)))
                .await
                .expect("no outcome")
        }
    };
    // All at once: the slow tool must not hold up the others.
    let (echo, picture, broken, slow, ticker) = tokio::join!(
        invoke("echo", "c1"),
        invoke("picture", "c2"),
        invoke("broken", "c3"),
        invoke("slow", "c4"),
        invoke("ticker", "c5"),
    );

    let RapOutcome::Ok(echo) = echo else {
        panic!("echo: {echo:?}")
    };
    assert_eq!(echo.text.as_deref(), Some(r#"you said "hello""#));
    assert_eq!(echo.call_id.as_deref(), Some("provider-c1"));
    assert_eq!(
        (echo.group_id.as_str(), echo.id.as_str()),
        ("thread-1", "c1")
    );

    let RapOutcome::Ok(picture) = picture else {
        panic!("picture: {picture:?}")
    };
    let content = picture.content.unwrap();
    assert_eq!(
        content,
        vec![
            ContentItem::Text {
                text: "one pixel".into()
            },
            ContentItem::Image {
                data: "iVBORw0KGgo=".into(),
                media_type: "image/png".into()
            }
        ]
    );

    let RapOutcome::ToolError(broken) = broken else {
        panic!("broken: {broken:?}")
    };
    assert_eq!(broken.text.as_deref(), Some("Error: disk on fire"));

    let RapOutcome::Ok(slow) = slow else {
        panic!("slow: {slow:?}")
    };
    assert_eq!(slow.text.as_deref(), Some("finally"));

    let RapOutcome::Ok(ticker) = ticker else {
        panic!("ticker: {ticker:?}")
    };
    assert!(ticker.is_subscription());
    let event = tokio::time::timeout(DEADLINE, events.recv())
        .await
        .expect("no subscription event")
        .unwrap();
    assert_eq!(
        (event.call_id.as_str(), event.group_id.as_str()),
        ("c5", "thread-1")
    );
    let RapEventKind::Subscription(tick) = event.kind else {
        panic!("not a subscription event: {event:?}")
    };
    assert_eq!(tick.text, "tick 1");
    assert_eq!(tick.r#final, Some(true));
}

#[tokio::test]
async fn reference_callbacks_parse_as_toolwire_callbacks() {
    // Every message type the reference serializes is one toolwire parses.
    let messages = [
        json!({"type": "tool_result", "group_id": "g", "id": "i", "text": "t",
               "display_as": [{"type": "diff", "content": {"path": "a", "patch": "p"}}]}),
        json!({"type": "subscription_event", "group_id": "g", "tool_call_id": "i", "text": "t",
               "associative": true}),
        json!({"type": "oauth", "group_id": "g", "id": "i", "auth_url": "https://a"}),
        json!({"type": "user_choice", "group_id": "g", "id": "i", "prompt": "p",
               "choices": ["x"], "default": 0, "response_url": "http://r"}),
        json!({"type": "view_update", "group_id": "g", "view_type": "diff", "content": [1]}),
    ];
    for message in messages {
        let reference: RapCallback = serde_json::from_value(message).unwrap();
        let text = serde_json::to_string(&reference).unwrap();
        let ours = toolwire_rap::parse_callback(text.as_bytes()).unwrap();
        // And back: toolwire's serialization is the reference's.
        let again: RapCallback =
            serde_json::from_str(&serde_json::to_string(&ours).unwrap()).unwrap();
        assert_eq!(
            serde_json::to_value(&again).unwrap(),
            serde_json::to_value(&reference).unwrap()
        );
    }
}
