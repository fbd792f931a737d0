//! `NativeDecoder`: the engine's `StreamDecoder`, wrapped by `StreamDecoder` in `index.js`.
//!
//! Bytes cross as a `Uint8Array` (borrowed, no copy), chunk objects as JSON text; events and the
//! assembled turn come back as JSON text that JavaScript parses once.

use napi::bindgen_prelude::Uint8Array;
use napi_derive::napi;
use toolwire_core::provider::{Provider, Wire};
use toolwire_core::wire::decoder::{parse_decoder_options, StreamDecoder};
use toolwire_core::wire::scrubbed::EventScrubber;

use crate::error::guard;
use crate::sanitize::sanitizer_for;

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
    /// Scrubs the events handed out of secrets (the agent loop's decoder), when asked to.
    scrubber: Option<EventScrubber>,
}

#[napi]
impl NativeDecoder {
    /// `wire`: a wire name; `options`: the decoder options as JSON text (empty for defaults).
    /// `scrub`: when given, the events are scrubbed of secrets with these `sanitize` settings
    /// (JSON text, empty for the defaults; see `toolwire_core::wire::scrubbed`), the assembled
    /// turn left as the model wrote it.
    #[napi(constructor)]
    pub fn new(wire: String, options: String, scrub: Option<String>) -> crate::error::Result<Self> {
        guard(|| {
            let scrubber = match scrub {
                Some(sanitize) => EventScrubber::new(sanitizer_for(&sanitize)?),
                None => None,
            };
            Ok(NativeDecoder {
                inner: Provider::of(Wire::parse(&wire)?)
                    .stream_decoder(parse_decoder_options(&options)?),
                scrubber,
            })
        })
    }

    /// Raw body bytes; returns the events as a JSON array.
    #[napi]
    pub fn push_bytes(&mut self, chunk: Uint8Array) -> crate::error::Result<String> {
        guard(|| {
            let events = self.inner.push(&chunk);
            Ok(self.scrubbed(events))
        })
    }

    /// Raw body text; returns the events as a JSON array.
    #[napi]
    pub fn push_text(&mut self, chunk: String) -> crate::error::Result<String> {
        guard(|| {
            let events = self.inner.push(chunk.as_bytes());
            Ok(self.scrubbed(events))
        })
    }

    /// One parsed provider chunk as JSON text; returns the events as a JSON array.
    #[napi]
    pub fn push_event(&mut self, event: String) -> crate::error::Result<String> {
        guard(|| {
            let events = self.inner.push_event(&event);
            Ok(self.scrubbed(events))
        })
    }

    /// Ends the body; returns `[events, turn]` JSON texts joined as one JSON array.
    #[napi]
    pub fn finish(&mut self) -> crate::error::Result<String> {
        guard(|| {
            let turn = self.inner.finish();
            let events = self.inner.take_events();
            let events = match &mut self.scrubber {
                Some(scrubber) => scrubber.last_events(&events),
                None => events,
            };
            Ok(format!("[{events},{turn}]"))
        })
    }
}

impl NativeDecoder {
    /// `events` as they are handed out: scrubbed when asked to.
    fn scrubbed(&mut self, events: String) -> String {
        match &mut self.scrubber {
            Some(scrubber) => scrubber.events(&events),
            None => events,
        }
    }
}
