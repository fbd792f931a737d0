//! One named test per real-world provider quirk (fixtures/QUIRKS.md), each with a comment
//! saying where it was seen. The inputs are small hand-written chunks in the providers' shapes.

mod anthropic;
mod openai_chat;

pub use super::test_support::{decode_body, decode_events, Decoded};
