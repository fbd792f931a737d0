//! The providers toolwire speaks to: each wire API's name and identity.

use crate::error::{Error, ErrorCode, Result};
use crate::json_text::{json_string, quoted_name};
use crate::suggest::did_you_mean;

/// The provider wire APIs toolwire decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI Chat Completions and compatible servers.
    OpenAiChat,
    /// OpenAI Responses.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini `streamGenerateContent`.
    Gemini,
    /// Mistral's chat API (Chat Completions shape, calls without `index`).
    Mistral,
}

impl Wire {
    /// Every wire.
    pub const ALL: [Wire; 5] = [
        Wire::OpenAiChat,
        Wire::OpenAiResponses,
        Wire::Anthropic,
        Wire::Gemini,
        Wire::Mistral,
    ];

    /// The wire's name as JavaScript writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Wire::OpenAiChat => "openai-chat",
            Wire::OpenAiResponses => "openai-responses",
            Wire::Anthropic => "anthropic",
            Wire::Gemini => "gemini",
            Wire::Mistral => "mistral",
        }
    }

    /// Parses a wire name as JavaScript passes it. An unknown name is refused naming it, the
    /// wires there are, and the closest of them (`"openai"`: did you mean `"openai-chat"`).
    pub fn parse(name: &str) -> Result<Wire> {
        if let Some(wire) = Wire::ALL.into_iter().find(|w| w.as_str() == name) {
            return Ok(wire);
        }
        let names = Wire::ALL.map(Wire::as_str);
        Err(Error::caller(
            ErrorCode::ValidationError,
            format!(
                "unknown wire {}: expected one of {}{}",
                quoted_name(name),
                names.map(json_string).join(", "),
                did_you_mean(name, names)
            ),
        ))
    }
}
