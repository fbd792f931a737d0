//! The callback body: RAP's messages from a tool server to the runtime, and
//! [`parse_callback`], which never panics on any input.
//!
//! The types are this crate's own, wire-compatible with the reference `rap-protocol` crate's
//! `RapCallback` (tagged by `type`).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolwire_core::json_input::{self, InputError};
use toolwire_core::quote::bounded;
use toolwire_core::ErrorCode;

/// One callback message, tagged by `type` on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Callback {
    /// The result of a tool call (`"tool_result"`).
    #[serde(rename = "tool_result")]
    ToolResult(ToolResult),
    /// An event of a subscription the call started (`"subscription_event"`).
    #[serde(rename = "subscription_event")]
    SubscriptionEvent(SubscriptionEvent),
    /// The tool needs the user to authorize at `auth_url` (`"oauth"`).
    #[serde(rename = "oauth")]
    OAuth(OAuthRequest),
    /// The tool asks the user to pick one of `choices` (`"user_choice"`).
    #[serde(rename = "user_choice")]
    UserChoice(UserChoice),
    /// A view (e.g. a diff) changed; passed through to the UI (`"view_update"`).
    #[serde(rename = "view_update")]
    ViewUpdate(ViewUpdate),
}

impl Callback {
    /// The `group_id` (thread) the message claims to belong to.
    pub fn group_id(&self) -> &str {
        match self {
            Callback::ToolResult(m) => &m.group_id,
            Callback::SubscriptionEvent(m) => &m.group_id,
            Callback::OAuth(m) => &m.group_id,
            Callback::UserChoice(m) => &m.group_id,
            Callback::ViewUpdate(m) => &m.group_id,
        }
    }

    /// The tool call id the message claims to answer (`tool_call_id` for subscription events);
    /// `None` for view updates, which carry only a group.
    pub fn call_id(&self) -> Option<&str> {
        match self {
            Callback::ToolResult(m) => Some(&m.id),
            Callback::SubscriptionEvent(m) => Some(&m.tool_call_id),
            Callback::OAuth(m) => Some(&m.id),
            Callback::UserChoice(m) => Some(&m.id),
            Callback::ViewUpdate(_) => None,
        }
    }
}

/// A tool call's result. Carries `text`, `content`, or both (`content` then supersedes `text`
/// for the model).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The thread of the call.
    pub group_id: String,
    /// The call's id (the invocation's `id`).
    pub id: String,
    /// The provider's companion id, echoed back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Plain-text result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Structured result: text and image items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<ContentItem>>,
    /// Display segments for a human-facing UI, kept as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_as: Option<Vec<Value>>,
    /// `true` when the call started a subscription: its callback URL then stays open for
    /// `subscription_event`s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscription: Option<bool>,
    /// Not on the wire: set on the error result a call gets when its tool server's callback was
    /// refused ([`refused_result`]), the engine's code for why (see [`CallbackError::code`]).
    #[serde(skip)]
    pub refused: Option<ErrorCode>,
}

impl ToolResult {
    /// The protocol's error convention: the result's text (or, without `text`, its first text
    /// item) starts with `Error:`.
    pub fn is_error(&self) -> bool {
        let first_text = match (&self.text, &self.content) {
            (Some(text), _) => Some(text.as_str()),
            (None, Some(items)) => items.iter().find_map(|item| match item {
                ContentItem::Text { text } => Some(text.as_str()),
                ContentItem::Image { .. } => None,
            }),
            (None, None) => None,
        };
        first_text.is_some_and(|t| t.starts_with("Error:"))
    }

    /// Whether this result opens a subscription: it says `subscription: true` and is not an
    /// error (an error ends its call whatever it claims).
    pub fn is_subscription(&self) -> bool {
        self.subscription == Some(true) && !self.is_error()
    }
}

/// One item of a structured tool result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ContentItem {
    /// Text.
    #[serde(rename = "text")]
    Text {
        /// The text.
        text: String,
    },
    /// A base64-encoded image.
    #[serde(rename = "image")]
    Image {
        /// Base64 of the image bytes.
        data: String,
        /// MIME type, e.g. `image/png`.
        #[serde(rename = "mediaType")]
        media_type: String,
    },
}

/// An event of a subscription, delivered to the model later.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionEvent {
    /// The thread of the subscribing call.
    pub group_id: String,
    /// The id of the call that started the subscription.
    pub tool_call_id: String,
    /// The event text.
    pub text: String,
    /// Whether the event is associative (the reference passes it through).
    #[serde(default)]
    pub associative: bool,
    /// `true` on the subscription's last event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#final: Option<bool>,
}

/// A request for the user to authorize the tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OAuthRequest {
    /// The thread of the call.
    pub group_id: String,
    /// The call's id.
    pub id: String,
    /// The provider's companion id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Where the user authorizes.
    pub auth_url: String,
}

/// A question for the user; the answer is POSTed to `response_url`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserChoice {
    /// The thread of the call.
    pub group_id: String,
    /// The choice id (the call's id).
    pub id: String,
    /// The provider's companion id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The question.
    pub prompt: String,
    /// The options offered.
    pub choices: Vec<String>,
    /// The index of the default option.
    #[serde(default)]
    pub default: usize,
    /// Where `{ id, selected }` is POSTed.
    pub response_url: String,
}

/// A view update, passed through to clients without interpretation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewUpdate {
    /// The thread.
    pub group_id: String,
    /// The kind of view (e.g. `diff`).
    pub view_type: String,
    /// View-specific payload.
    pub content: Value,
}

/// Why a callback body was refused (answered 400, or 413 when it is over the size limit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallbackError {
    /// What was wrong.
    pub message: String,
    /// The body nests deeper than `toolwire_core::json_input::MAX_VALUE_DEPTH`: refused before
    /// parsing, so the call its token names ends with an error.
    pub too_deep: bool,
    /// The body is larger than `maxCallbackBytes` (this limit, in bytes): refused unread past
    /// the limit (413), so the call its token names ends with an error.
    pub too_large: Option<usize>,
}

impl CallbackError {
    /// A body over `limit` bytes (`maxCallbackBytes`).
    pub fn too_large(limit: usize) -> CallbackError {
        CallbackError {
            message: format!(
                "its body is larger than maxCallbackBytes ({limit} bytes), so it was not read"
            ),
            too_deep: false,
            too_large: Some(limit),
        }
    }

    /// The engine's code for the refusal: `LIMIT_EXCEEDED` for a body over a limit (too large,
    /// too deep), `EXECUTION_ERROR` for one the tool server got wrong.
    pub fn code(&self) -> ErrorCode {
        if self.too_deep || self.too_large.is_some() {
            ErrorCode::LimitExceeded
        } else {
            ErrorCode::ExecutionError
        }
    }
}

impl fmt::Display for CallbackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.too_large {
            Some(_) => write!(f, "RAP callback too large: {}", self.message),
            None => write!(f, "malformed RAP callback: {}", self.message),
        }
    }
}

impl std::error::Error for CallbackError {}

/// Parses and checks one callback body. Never panics: any bytes give a message or an error.
/// The body is read as `response.json()` reads it: a leading UTF-8 byte order mark is dropped
/// (Fetch's UTF-8 decode does), bytes that are not UTF-8 and escaped lone surrogates (what a
/// server's `JSON.stringify` writes for half an emoji) become U+FFFD, a duplicate key keeps its
/// last value; then [`toolwire_core::json_input`] refuses a body nesting deeper than
/// [`json_input::MAX_VALUE_DEPTH`] before parsing (`too_deep`) and names a number no double
/// holds and its pointer.
///
/// Beyond the shape, a `tool_result` must carry `text` or `content`.
pub fn parse_callback(body: &[u8]) -> Result<Callback, CallbackError> {
    let refused = |message: String| CallbackError {
        message,
        too_deep: false,
        too_large: None,
    };
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    // Bytes that are not UTF-8 become U+FFFD, as lone surrogates do.
    let text = String::from_utf8_lossy(body);
    // Through a `Value`, so a duplicate key keeps its last value as `JSON.parse` does (a
    // derived struct would refuse it).
    let value = json_input::parse(&text).map_err(|e| CallbackError {
        message: bounded(&e.to_string()),
        too_deep: matches!(e, InputError::TooDeep),
        too_large: None,
    })?;
    let callback = Callback::deserialize(value.value).map_err(|e| {
        refused(bounded(&format!(
            "its message does not fit the protocol: {e}"
        )))
    })?;
    if let Callback::ToolResult(result) = &callback {
        if result.text.is_none() && result.content.is_none() {
            return Err(refused(
                "tool_result has neither text nor content".to_owned(),
            ));
        }
    }
    Ok(callback)
}

/// The ids a body claims (its top-level `group_id`, and `id` or `tool_call_id`), read by a
/// tolerant linear scan that needs no valid JSON: a refused body still says which call it
/// meant. `None` where a claim cannot be read; a repeated key keeps its last value.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ClaimedIds {
    /// The `group_id` claimed.
    pub group_id: Option<String>,
    /// The `id` (or a subscription event's `tool_call_id`) claimed.
    pub call_id: Option<String>,
}

impl ClaimedIds {
    /// Reads the claims of `body`.
    pub fn scan(body: &str) -> ClaimedIds {
        let bytes = body.as_bytes();
        let mut claimed = ClaimedIds::default();
        let mut depth = 0usize;
        let mut expect_key = false;
        let mut key: Option<(usize, usize)> = None;
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'"' => {
                    let end = json_input::string_end(bytes, i);
                    if depth == 1 && expect_key {
                        key = Some((i, end));
                        expect_key = false;
                    } else if depth == 1 {
                        let value = decode(&body[i..end]);
                        match key.and_then(|(a, b)| decode(&body[a..b])).as_deref() {
                            Some("group_id") => claimed.group_id = value,
                            Some("id" | "tool_call_id") => claimed.call_id = value,
                            _ => {}
                        }
                    }
                    i = end;
                    continue;
                }
                b'{' | b'[' => {
                    depth += 1;
                    expect_key = depth == 1;
                }
                b'}' | b']' => depth = depth.saturating_sub(1),
                b',' if depth == 1 => {
                    expect_key = true;
                    key = None;
                }
                _ => {}
            }
            i += 1;
        }
        claimed
    }

    /// Whether a readable claim names another call than `group_id`/`call_id`.
    pub fn contradicts(&self, group_id: &str, call_id: &str) -> bool {
        self.group_id.as_deref().is_some_and(|g| g != group_id)
            || self.call_id.as_deref().is_some_and(|c| c != call_id)
    }
}

/// A JSON string literal's text, if it is one.
fn decode(literal: &str) -> Option<String> {
    serde_json::from_str(&json_input::repair_surrogates(literal)).ok()
}

/// The error result a call gets when its server's callback cannot be used: the protocol's
/// `Error:` convention, saying why.
pub fn refused_result(group_id: String, id: String, error: &CallbackError) -> ToolResult {
    ToolResult {
        group_id,
        id,
        call_id: None,
        text: Some(format!(
            "Error: the tool server's callback was refused: {}",
            error.message
        )),
        content: None,
        display_as: None,
        subscription: None,
        refused: Some(error.code()),
    }
}

/// The last event an open subscription gets when its server's callback cannot be used: final,
/// in the protocol's `Error:` convention, saying why (a refused event must not leave the
/// subscription open, silent, until its thread closes).
pub fn refused_event(group_id: String, id: String, error: &CallbackError) -> SubscriptionEvent {
    SubscriptionEvent {
        group_id,
        tool_call_id: id,
        text: format!(
            "Error: the tool server's callback was refused, so its subscription ended: {}",
            error.message
        ),
        associative: false,
        r#final: Some(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolwire_core::json_input::MAX_VALUE_DEPTH;

    #[test]
    fn parses_every_message_type() {
        let cases: &[(&str, &str)] = &[
            (
                r#"{"type":"tool_result","group_id":"g","id":"c","text":"hi"}"#,
                "tool_result",
            ),
            (
                r#"{"type":"tool_result","group_id":"g","id":"c","content":[{"type":"text","text":"a"},{"type":"image","data":"AA==","mediaType":"image/png"}],"display_as":[{"type":"text","content":"x"}]}"#,
                "tool_result",
            ),
            (
                r#"{"type":"subscription_event","group_id":"g","tool_call_id":"c","text":"e","final":true}"#,
                "subscription_event",
            ),
            (
                r#"{"type":"oauth","group_id":"g","id":"c","auth_url":"https://a"}"#,
                "oauth",
            ),
            (
                r#"{"type":"user_choice","group_id":"g","id":"c","prompt":"p","choices":["a","b"],"response_url":"http://r"}"#,
                "user_choice",
            ),
            (
                r#"{"type":"view_update","group_id":"g","view_type":"diff","content":{"a":[1]}}"#,
                "view_update",
            ),
        ];
        for (body, kind) in cases {
            let parsed = parse_callback(body.as_bytes()).unwrap_or_else(|e| panic!("{kind}: {e}"));
            let value = serde_json::to_value(&parsed).unwrap();
            assert_eq!(value["type"], *kind);
            assert_eq!(parsed.group_id(), "g");
        }
    }

    #[test]
    fn display_as_is_kept() {
        let body = br#"{"type":"tool_result","group_id":"g","id":"c","text":"t","display_as":[{"type":"diff","content":{"path":"a","patch":"p"}}]}"#;
        let Callback::ToolResult(r) = parse_callback(body).unwrap() else {
            panic!("not a tool_result")
        };
        assert_eq!(r.display_as.unwrap()[0]["content"]["path"], "a");
    }

    #[test]
    fn refuses_malformed_bodies() {
        let cases: &[(&[u8], &str)] = &[
            (b"", "EOF"),
            (b"{", "EOF"),
            (b"\xff\xfe", "expected value"),
            (br#"{"type":"nope","group_id":"g"}"#, "unknown variant"),
            (
                br#"{"group_id":"g","id":"c","text":"t"}"#,
                "missing field `type`",
            ),
            (
                br#"{"type":"tool_result","group_id":"g","id":"c"}"#,
                "neither text nor content",
            ),
            (
                br#"{"type":"tool_result","group_id":"g","text":"t"}"#,
                "missing field `id`",
            ),
            (
                br#"{"type":"tool_result","group_id":"g","id":"c","content":[{"type":"video"}]}"#,
                "unknown variant",
            ),
            (
                br#"{"type":"tool_result","group_id":1,"id":"c","text":"t"}"#,
                "invalid type",
            ),
        ];
        for (body, want) in cases {
            let err = parse_callback(body).expect_err(want);
            assert!(err.message.contains(want), "{want}: got {}", err.message);
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let mut body =
            String::from(r#"{"type":"view_update","group_id":"g","view_type":"d","content":"#);
        body.push_str(&"[".repeat(100_000));
        let error = parse_callback(body.as_bytes()).unwrap_err();
        assert!(error.too_deep);
        assert!(error.message.contains(&MAX_VALUE_DEPTH.to_string()));
    }

    /// A `display_as` nested past the limit (about 127 deep was enough to stop a client's
    /// runtime) is refused before parsing, naming the limit; at the limit it is accepted.
    #[test]
    fn depth_is_refused_past_the_limit_only() {
        let body = |depth: usize| {
            // the message itself is depth 1, display_as 2
            let inner = depth - 2;
            format!(
                r#"{{"type":"tool_result","group_id":"g","id":"c","text":"t","display_as":[{}1{}]}}"#,
                "[".repeat(inner),
                "]".repeat(inner)
            )
        };
        assert!(parse_callback(body(MAX_VALUE_DEPTH).as_bytes()).is_ok());
        let error = parse_callback(body(MAX_VALUE_DEPTH + 1).as_bytes()).unwrap_err();
        assert!(error.too_deep, "{}", error.message);
    }

    /// A server's `JSON.stringify` writes half an emoji as an escaped lone surrogate, which
    /// `JSON.parse` accepts: it becomes U+FFFD instead of a refused callback.
    #[test]
    fn escaped_lone_surrogates_become_replacement_characters() {
        let body = br#"{"type":"tool_result","group_id":"g","id":"c","text":"cut \ud83d","display_as":[{"\udc00":"\ud83d\ude00"}]}"#;
        let Callback::ToolResult(result) = parse_callback(body).unwrap() else {
            panic!("a tool result")
        };
        assert_eq!(result.text.as_deref(), Some("cut \u{FFFD}"));
        assert_eq!(
            result.display_as,
            Some(vec![serde_json::json!({"\u{FFFD}": "😀"})])
        );
    }

    /// The ids a refused body claims are read without parsing it: top level only, escapes
    /// decoded, the last of a repeated key, nothing from nested values or non-strings.
    #[test]
    fn claimed_ids_are_read_from_any_body() {
        let claims = |g: Option<&str>, c: Option<&str>| ClaimedIds {
            group_id: g.map(str::to_owned),
            call_id: c.map(str::to_owned),
        };
        let cases: &[(&str, ClaimedIds)] = &[
            (
                r#"{"group_id":"g","id":"c","n":1e400}"#,
                claims(Some("g"), Some("c")),
            ),
            (
                r#"{"tool_call_id":"t","group_id":"g""#,
                claims(Some("g"), Some("t")),
            ),
            (r#"{"id":"a","id":"b"}"#, claims(None, Some("b"))),
            (
                r#"{"x":{"id":"inner"},"y":["group_id","z"]}"#,
                claims(None, None),
            ),
            (
                r#"{"group_id":"\u0067\"","id":1}"#,
                claims(Some("g\""), None),
            ),
            (
                r#"{"text":"\",\"id\":\"fake","id":"real"}"#,
                claims(None, Some("real")),
            ),
            (r#"["group_id","g"]"#, claims(None, None)),
            (r#"{"id":"c"#, claims(None, None)),
            ("", claims(None, None)),
        ];
        for (body, want) in cases {
            assert_eq!(&ClaimedIds::scan(body), want, "{body}");
        }
        assert!(claims(Some("g"), Some("x")).contradicts("g", "c"));
        assert!(claims(Some("h"), None).contradicts("g", "c"));
        assert!(!claims(None, None).contradicts("g", "c"));
        assert!(!claims(Some("g"), Some("c")).contradicts("g", "c"));
    }

    /// `JSON.parse` parity: a duplicate key keeps its last value, a leading byte order mark is
    /// dropped (as `response.json()` does), an underflowing number is 0; a number no double
    /// holds is refused naming it and its pointer.
    #[test]
    fn bodies_read_as_json_parse_reads_them() {
        let Callback::ToolResult(r) = parse_callback(
            br#"{"type":"tool_result","group_id":"g","id":"c","text":"a","text":"b"}"#,
        )
        .unwrap() else {
            panic!("a tool result")
        };
        assert_eq!(r.text.as_deref(), Some("b"));
        let bom = b"\xEF\xBB\xBF{\"type\":\"view_update\",\"group_id\":\"g\",\"view_type\":\"d\",\"content\":1e-400}";
        assert!(parse_callback(bom).is_ok());
        let error = parse_callback(
            br#"{"type":"view_update","group_id":"g","view_type":"d","content":[0,1e400]}"#,
        )
        .unwrap_err();
        assert!(!error.too_deep);
        assert!(
            error.message.contains(r#"1e400 at "/content/1""#),
            "{}",
            error.message
        );
    }

    #[test]
    fn error_convention() {
        let mut r = ToolResult {
            group_id: "g".into(),
            id: "c".into(),
            call_id: None,
            text: Some("Error: boom".into()),
            content: None,
            display_as: None,
            subscription: None,
            refused: None,
        };
        assert!(r.is_error());
        r.text = Some("fine. Error: not at start".into());
        assert!(!r.is_error());
        r.text = None;
        r.content = Some(vec![
            ContentItem::Image {
                data: String::new(),
                media_type: "image/png".into(),
            },
            ContentItem::Text {
                text: "Error: in content".into(),
            },
        ]);
        assert!(r.is_error());
    }
}
