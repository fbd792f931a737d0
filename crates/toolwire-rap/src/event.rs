//! Events the callback server delivers to its owner: every message that is not a tool
//! result.

use serde::Serialize;

use crate::callback::{OAuthRequest, SubscriptionEvent, UserChoice, ViewUpdate};

/// A callback other than a tool result, tied to the call whose token it arrived on.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RapEvent {
    /// The id of the call whose callback URL received it.
    pub call_id: String,
    /// That call's thread.
    pub group_id: String,
    /// The message.
    pub kind: RapEventKind,
    /// Set on the final event that ends a subscription because a callback on its URL was
    /// refused (see [`crate::callback::refused_event`]): why, typed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<EventError>,
}

/// Why a subscription ended early: its tool server's callback was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventError {
    /// The engine's code: `LIMIT_EXCEEDED` (a body over `maxCallbackBytes` or too deep) or
    /// `EXECUTION_ERROR` (a body the tool server got wrong).
    pub code: &'static str,
    /// What was refused and why, naming the limit when one was passed.
    pub message: String,
}

/// The message of a [`RapEvent`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum RapEventKind {
    /// `subscription_event`.
    Subscription(SubscriptionEvent),
    /// `oauth`.
    OAuth(OAuthRequest),
    /// `user_choice`; answer with `answer_user_choice`.
    UserChoice(UserChoice),
    /// `view_update`.
    ViewUpdate(ViewUpdate),
}

impl RapEvent {
    /// The runtime event name: `rap_subscription_event`, `rap_oauth`, `rap_user_choice` or
    /// `rap_view_update`.
    pub fn name(&self) -> &'static str {
        match self.kind {
            RapEventKind::Subscription(_) => "rap_subscription_event",
            RapEventKind::OAuth(_) => "rap_oauth",
            RapEventKind::UserChoice(_) => "rap_user_choice",
            RapEventKind::ViewUpdate(_) => "rap_view_update",
        }
    }

    /// JSON text for crossing into JavaScript: `{ "type": name, "callId", "groupId",
    /// "message": { ...the message as received }, "error"?: { code, message } }`.
    pub fn to_json(&self) -> String {
        let mut json = serde_json::json!({
            "type": self.name(),
            "callId": self.call_id,
            "groupId": self.group_id,
            "message": self.kind,
        });
        if let Some(error) = &self.error {
            json["error"] = serde_json::json!(error);
        }
        json.to_string()
    }
}
