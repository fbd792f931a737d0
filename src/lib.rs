//! The Node.js binding of toolwire: a thin layer over `toolwire-core`.
//!
//! Everything crosses the boundary as JSON text, in batches (see
//! `toolwire_core::dispatch::protocol`); the JavaScript layer in `index.js` keeps the functions
//! (tools, hooks) and drives the engine's dispatcher. No logic lives here that could live in the
//! core.

mod decoder;
mod error;
mod runtime;

pub use decoder::NativeDecoder;
pub use runtime::NativeRuntime;
