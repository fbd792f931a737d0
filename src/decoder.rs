//! `NativeDecoder`: the engine's `StreamDecoder`, wrapped by `StreamDecoder` in `index.js`.
//!
//! Bytes cross as a `Uint8Array` (borrowed, no copy), chunk objects as JSON text; events and the
//! assembled turn come back as JSON text that JavaScript parses once.

use napi::bindgen_prelude::Uint8Array;
use napi_derive::napi;
use toolwire_core::provider::{Provider, Wire};
use toolwire_core::wire::decoder::{parse_decoder_options, StreamDecoder};

use crate::error::guard;

/// Checks a wire name: an unknown one is refused naming it, the wires there are and the closest
/// of them (`unknown wire "openai": ...; did you mean "openai-chat"?`).
#[napi(js_name = "checkWire")]
pub fn check_wire_js(name: String) -> crate::error::Result<()> {
    guard(|| Wire::parse(&name).map(|_| ()))
}

/// Decodes one streamed provider response.
#[napi]
pub struct NativeDecoder {
    inner: StreamDecoder,
}

#[napi]
impl NativeDecoder {
    /// `wire`: a wire name; `options`: the decoder options as JSON text (empty for defaults).
    #[napi(constructor)]
    pub fn new(wire: String, options: String) -> crate::error::Result<Self> {
        guard(|| {
            Ok(NativeDecoder {
                inner: Provider::of(Wire::parse(&wire)?)
                    .stream_decoder(parse_decoder_options(&options)?),
            })
        })
    }

    /// Raw body bytes; returns the events as a JSON array.
    #[napi]
    pub fn push_bytes(&mut self, chunk: Uint8Array) -> crate::error::Result<String> {
        guard(|| Ok(self.inner.push(&chunk)))
    }

    /// Raw body text; returns the events as a JSON array.
    #[napi]
    pub fn push_text(&mut self, chunk: String) -> crate::error::Result<String> {
        guard(|| Ok(self.inner.push(chunk.as_bytes())))
    }

    /// One parsed provider chunk as JSON text; returns the events as a JSON array.
    #[napi]
    pub fn push_event(&mut self, event: String) -> crate::error::Result<String> {
        guard(|| Ok(self.inner.push_event(&event)))
    }

    /// Ends the body; returns `[events, turn]` JSON texts joined as one JSON array.
    #[napi]
    pub fn finish(&mut self) -> crate::error::Result<String> {
        guard(|| {
            let turn = self.inner.finish();
            let events = self.inner.take_events();
            Ok(format!("[{events},{turn}]"))
        })
    }
}
