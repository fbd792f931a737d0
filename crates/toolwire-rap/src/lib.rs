//! The Reactive Agent Protocol (RAP) transport of toolwire: remote tools invoked over HTTP,
//! their results received on a callback server, entirely in Rust. No N-API in here.
//!
//! - [`manifest`]: toolset manifests (`/.well-known/rap-toolset`), validation, the registry.
//! - [`client`]: invocations with bounded retry, cancel and close_thread notifications.
//! - [`callback`]: the callback messages and [`parse_callback`].
//! - [`server`]: the callback server (tokens, limits, idempotent results, per-group order).
//! - [`event`]: non-result callbacks delivered to the owner.
//! - [`hub`]: [`RapHub`], tying them together.
//! - [`outbox`]: batches of messages for a binding to send across, of bounded size.
//! - [`error`]: [`RapError`], classified by [`Fault`].

#![warn(missing_docs)]

pub mod callback;
pub mod client;
pub mod error;
pub mod event;
pub mod hub;
pub mod manifest;
pub mod outbox;
mod read_deadline;
pub mod server;
pub mod token;

pub use callback::{parse_callback, Callback, CallbackError, ContentItem, ToolResult};
pub use client::{RapClient, RetryPolicy};
pub use error::{Fault, RapError};
pub use event::{EventError, RapEvent, RapEventKind};
pub use hub::{HubOptions, RapCall, RapHub, RapOutcome};
pub use manifest::{ToolsetManifest, ToolsetOptions, Toolsets};
pub use server::{CallbackServer, ServerOptions};

#[cfg(test)]
mod test_support;
