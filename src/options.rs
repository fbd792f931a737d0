//! `checkOptionKeys`: the engine's words for an unknown key of an options object.

use napi_derive::napi;

use crate::error::guard;

/// Refuses `key`, an unknown key of the options object `place` (`"ToolRuntime: options"`):
/// throws a VALIDATION_ERROR naming it, the keys there are (`known`) and the closest of them.
/// JavaScript calls this only for a key it found unknown; a known key returns nothing.
#[napi(js_name = "checkOptionKeys")]
pub fn check_option_keys_js(
    place: String,
    key: String,
    known: Vec<String>,
) -> crate::error::Result<()> {
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    guard(|| toolwire_core::options::check_option_keys(&place, [key.as_str()], &known))
}

/// The most of a value a message quotes: the engine's bound
/// (`toolwire_core::quote::MAX_QUOTED_BYTES`), which the JavaScript layer's own messages use too.
#[napi]
pub const MAX_QUOTED_BYTES: u32 = toolwire_core::quote::MAX_QUOTED_BYTES as u32;
