//! Core errors and panics, as JavaScript errors whose `code` is the engine's error code.
//!
//! napi-rs creates a thrown error with `code` set to its status's text; a [`Code`] status is the
//! engine's [`ErrorCode`], so the code crosses as data and the message is the engine's own
//! (`index.js` wraps it in a `ToolwireError` by its code, reading no text).

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::Env;
use toolwire_core::{Error, ErrorCode};

/// The status of an error the binding throws: the engine's [`ErrorCode`], which napi-rs sets
/// as the JavaScript error's `code`. (A value napi-rs itself cannot convert is refused before the
/// binding runs, with napi's own status as the code, such as `InvalidArg`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code(pub ErrorCode);

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.0.as_str()
    }
}

/// What a binding function returns: its value, or an error thrown with its [`Code`].
pub type Result<T> = napi::Result<T, Code>;

/// The JavaScript error for a core error: `code` is its code, the message its message.
pub fn to_js(error: Error) -> napi::Error<Code> {
    napi::Error::new(Code(error.code), error.message)
}

/// A core error as a promise's rejection, built on the JavaScript thread (`env`): an Error
/// whose `code` is the engine's. For work on the libuv pool, whose results napi-rs types with
/// its own statuses.
pub fn rejection(env: &Env, error: Error) -> napi::Error {
    let value = napi::JsError::from(to_js(error)).into_unknown(*env);
    napi::Error::from(value)
}

/// Runs `f`, turning a panic into an `INTERNAL_ERROR` core error, so that no panic ever unwinds
/// into Node.
pub fn caught<T>(f: impl FnOnce() -> toolwire_core::Result<T>) -> toolwire_core::Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            Err(Error::internal(format!(
                "toolwire internal error (a bug; please report it): {what}"
            )))
        }
    }
}

/// Runs `f`, turning a core error into a thrown JavaScript error with its code and a panic into
/// one with code `INTERNAL_ERROR`.
pub fn guard<T>(f: impl FnOnce() -> toolwire_core::Result<T>) -> Result<T> {
    caught(f).map_err(to_js)
}
