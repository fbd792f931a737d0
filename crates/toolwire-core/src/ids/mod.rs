//! Tool-call ids and history repair.
//!
//! Providers disagree on what a tool-call id may look like, and a history moved between them (or
//! assembled by hand) can carry ids one provider rejects, the same id twice, calls without a
//! result or results without a call. [`normalize_tool_call_id`] rewrites one id for an
//! [`IdTarget`] (valid ids unchanged, others made valid with a hash of the original so distinct
//! ids stay distinct); [`repair_history`] fixes a whole history in one [`HistoryFormat`] and
//! reports what it changed ([`RepairReport`]).
//!
//! This module knows id rules and message formats, not wires: which rule and which format a
//! wire uses is said by its provider ([`crate::provider`]), the entry point for a wire
//! (`Provider::of(wire).repair_history(messages)`).
//!
//! Layout: `normalize` holds the id rules; the repair is split into a wire-independent
//! pairing (`pairing`) over the calls and results each format's adapter finds (`chat` for OpenAI
//! Chat and Mistral, `responses`, `anthropic`, `gemini`), written back through the flat
//! (`flat`) or block (`blocks`) message layout.

mod anthropic;
mod blocks;
mod chat;
mod flat;
mod gemini;
mod history;
mod normalize;
mod pairing;
mod repair;
mod responses;
#[cfg(test)]
mod test_support;

pub use normalize::{is_valid_tool_call_id, normalize_item_id, normalize_tool_call_id, IdTarget};
pub use repair::{repair_history, HistoryFormat, IdRename, RepairReport};
