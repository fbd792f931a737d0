//! Provider wire formats: framing (SSE, JSON sequences), the incremental JSON parser, and per
//! wire API a decoder that turns a streamed response into assembled tool calls.
//!
//! [`decoder::StreamDecoder`] is the entry point: it frames the body ([`sse`], [`json_seq`]),
//! hands each event to the wire's decoder ([`openai_chat`], [`openai_responses`], [`anthropic`],
//! [`gemini`]; Mistral uses the Chat Completions decoder), and each decoder drives the shared
//! [`turn::Turn`], which owns the rules common to every wire (completeness, stop reasons,
//! events) and feeds argument fragments to the incremental parser ([`partial_json`]).
//! [`scrubbed`] scrubs a decoder's events of secrets for the agent loop, deltas split anywhere;
//! [`sequence`] tells a repeated event by its sequence number (Responses).
//!
//! Which decoder and which encoders ([`encode`]) a wire uses is said by its provider
//! ([`crate::provider`]): a decoder for a wire is `Provider::of(wire).stream_decoder(options)`.
//! Nothing here matches on a wire. The framers, the parser and the HTML entity table are leaves
//! of this module that need nothing of the rest of it but the decode error kinds. What a decoder
//! repaired is said by a [`repair::RepairKind`], recorded on the turn where the repair is made.

pub mod anthropic;
pub mod decode_error;
pub mod decoder;
pub mod encode;
pub mod gemini;
mod gemini_args;
pub mod html_entities;
pub mod json_seq;
pub mod openai_chat;
pub mod openai_responses;
pub mod partial_json;
pub mod repair;
pub mod scrubbed;
pub mod sequence;
pub mod sse;
pub mod turn;

#[cfg(test)]
mod lost_input_tests;
#[cfg(test)]
mod quirk_tests;
#[cfg(test)]
mod repair_tests;
#[cfg(test)]
mod test_support;
