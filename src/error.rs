//! Core errors and panics, as JavaScript errors carrying the engine's error code.
//!
//! napi-derive throws only errors with napi's own status codes, so the engine's code travels as
//! a `[CODE] ` prefix of the message; `index.js` turns it into a `ToolwireError` with `.code`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use toolwire_core::{Error, ErrorCode};

/// The JavaScript error for a core error.
pub fn to_js(error: Error) -> napi::Error {
    coded(error.code, &error.message)
}

fn coded(code: ErrorCode, message: &str) -> napi::Error {
    napi::Error::new(napi::Status::GenericFailure, format!("[{code}] {message}"))
}

/// Runs `f`, turning a core error into a thrown JavaScript error and a panic into one with code
/// `INTERNAL_ERROR`, so that no panic ever unwinds into Node.
pub fn guard<T>(f: impl FnOnce() -> toolwire_core::Result<T>) -> napi::Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(to_js),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            Err(coded(
                ErrorCode::InternalError,
                &format!("toolwire internal error (a bug; please report it): {what}"),
            ))
        }
    }
}
