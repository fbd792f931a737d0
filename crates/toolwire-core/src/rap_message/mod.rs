//! The messages the RAP transport hands its JavaScript link (`ts/rap.ts`): the answers owed to
//! a ticket (a toolset loaded, a call's result, a failure, a call that ended without a result, a
//! request done) and the RAP events. Each crosses as a JSON array, its code first, as its layout
//! declares ([`layout`]); a crossing carries an array of them. The binding builds the answers
//! from the transport's outcomes (`src/rap.rs`); the transport's event forwarder
//! (`toolwire_rap::outbox`) writes the events. Nothing here knows the transport: the messages
//! hold plain values.

pub mod layout;

use serde_json::{json, Value};

use crate::error::ErrorCode;

crate::codes! {
    /// The code each [`RapMessage`] crosses as, its first element (layouts: [`layout`]).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum RapMessageCode {
        /// [`RapMessage::Loaded`].
        Loaded = 0,
        /// [`RapMessage::Result`].
        Result = 1,
        /// [`RapMessage::Failed`].
        Failed = 2,
        /// [`RapMessage::Timeout`].
        Timeout = 3,
        /// [`RapMessage::Cancelled`].
        Cancelled = 4,
        /// [`RapMessage::Done`].
        Done = 5,
        /// [`RapMessage::Event`].
        Event = 6,
    }
}

/// A tool of a loaded toolset, as the link registers it.
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteTool {
    /// Its name (the toolset's prefix included).
    pub name: String,
    /// Its description, for the model.
    pub description: String,
    /// The JSON Schema of its arguments.
    pub parameters: Value,
}

/// One message of a crossing.
#[derive(Clone, Debug, PartialEq)]
pub enum RapMessage {
    /// A toolset loaded: its name and its tools.
    Loaded {
        /// The load's ticket.
        ticket: u32,
        /// The toolset's name.
        toolset: String,
        /// Its tools.
        tools: Vec<RemoteTool>,
    },
    /// A call's `tool_result`, as received.
    Result {
        /// The call's ticket.
        ticket: u32,
        /// Whether it reports an error (its text starts with `Error:`).
        error: bool,
        /// The `tool_result` as the tool server sent it.
        result: Value,
        /// Set when the result stands for a callback the server refused: why
        /// (`LIMIT_EXCEEDED` or `EXECUTION_ERROR`).
        refused: Option<ErrorCode>,
    },
    /// A load, call or request that failed.
    Failed {
        /// Its ticket.
        ticket: u32,
        /// The engine's code for the failure.
        code: ErrorCode,
        /// What went wrong.
        message: String,
        /// The HTTP status that rejected an invocation or a manifest.
        status: Option<u16>,
    },
    /// A call that sent no result by its deadline (a cancel was sent).
    Timeout {
        /// The call's ticket.
        ticket: u32,
    },
    /// A call aborted before its result came (a cancel was sent).
    Cancelled {
        /// The call's ticket.
        ticket: u32,
    },
    /// A `closeThread` or `answerUserChoice` finished.
    Done {
        /// Its ticket.
        ticket: u32,
    },
    /// A RAP event: its JSON text (`toolwire_rap::RapEvent::to_json`), written as it is.
    Event(String),
}

impl RapMessage {
    /// The code it crosses as.
    pub fn code(&self) -> RapMessageCode {
        match self {
            RapMessage::Loaded { .. } => RapMessageCode::Loaded,
            RapMessage::Result { .. } => RapMessageCode::Result,
            RapMessage::Failed { .. } => RapMessageCode::Failed,
            RapMessage::Timeout { .. } => RapMessageCode::Timeout,
            RapMessage::Cancelled { .. } => RapMessageCode::Cancelled,
            RapMessage::Done { .. } => RapMessageCode::Done,
            RapMessage::Event(_) => RapMessageCode::Event,
        }
    }

    /// The message as it crosses: a JSON array, its code first, then its elements in the order
    /// [`layout`] declares (an absent optional tail left out). In this crate's tests every
    /// message written is checked against its layout.
    pub fn into_json(self) -> String {
        let code = self.code() as u8;
        let text = match self {
            RapMessage::Loaded {
                ticket,
                toolset,
                tools,
            } => {
                let tools: Vec<Value> = tools
                    .into_iter()
                    .map(|tool| {
                        json!({
                            "name": tool.name,
                            "description": tool.description,
                            "parameters": tool.parameters,
                        })
                    })
                    .collect();
                json!([code, ticket, toolset, tools]).to_string()
            }
            RapMessage::Result {
                ticket,
                error,
                result,
                refused,
            } => match refused {
                Some(refused) => json!([code, ticket, error, result, refused.as_str()]),
                None => json!([code, ticket, error, result]),
            }
            .to_string(),
            RapMessage::Failed {
                ticket,
                code: failure,
                message,
                status,
            } => match status {
                Some(status) => json!([code, ticket, failure.as_str(), message, status]),
                None => json!([code, ticket, failure.as_str(), message]),
            }
            .to_string(),
            RapMessage::Timeout { ticket }
            | RapMessage::Cancelled { ticket }
            | RapMessage::Done { ticket } => json!([code, ticket]).to_string(),
            // The event's text is JSON already: written as it is, not parsed again.
            RapMessage::Event(event) => format!("[{code},{event}]"),
        };
        #[cfg(test)]
        {
            let value: Value = serde_json::from_str(&text).expect("a RAP message is JSON");
            if let Some(why) = layout::misfit(&value) {
                panic!("a RAP message does not fit its layout: {why}");
            }
        }
        text
    }
}
