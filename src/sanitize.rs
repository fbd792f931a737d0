//! Sanitization across the boundary: `sanitizeResult` (synchronous, standalone) and the
//! runtime's off-thread sanitization of big outputs, bytes and images.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};

use napi::bindgen_prelude::{AsyncTask, Uint8Array};
use napi::{Env, Task};
use napi_derive::napi;
use toolwire_core::audit::RecordScrubber;
use toolwire_core::sanitize::blocks::{sanitize_described, sanitize_output, Described};
use toolwire_core::sanitize::{SanitizeOptions, Sanitizer};

use crate::convert::parse_json;
use crate::error::{caught, guard, rejection};

/// The sanitizer of the last options seen: compiling the secret patterns costs more than
/// sanitizing a small result, and callers reuse the same options.
static LAST: Mutex<Option<(String, Arc<Sanitizer>)>> = Mutex::new(None);

/// The sanitizer of the `sanitize` option given as JSON text (empty for the defaults).
pub(crate) fn sanitizer_for(options: &str) -> toolwire_core::Result<Arc<Sanitizer>> {
    let mut last = LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((text, sanitizer)) = last.as_ref() {
        if text == options {
            return Ok(sanitizer.clone());
        }
    }
    let value = if options.is_empty() {
        serde_json::json!({})
    } else {
        parse_json("sanitizeResult: options", options)?
    };
    let options_parsed = SanitizeOptions::default().with(&value, "sanitizeResult: options")?;
    let sanitizer = Arc::new(Sanitizer::new(options_parsed)?);
    *last = Some((options.to_owned(), sanitizer.clone()));
    Ok(sanitizer)
}

/// Sanitizes described content now: `description` is `{ blocks, details? }` (see
/// `toolwire_core::sanitize::blocks`), `texts` and `buffers` what it refers to, `options` the
/// `sanitize` object as JSON text. Returns `{ result, report }` as JSON text.
#[napi(js_name = "sanitizeResult")]
pub fn sanitize_result_js(
    description: String,
    texts: Vec<String>,
    buffers: Vec<Uint8Array>,
    options: String,
) -> crate::error::Result<String> {
    guard(|| {
        let sanitizer = sanitizer_for(&options)?;
        let buffers: Vec<&[u8]> = buffers.iter().map(|b| &b[..]).collect();
        let input = Described {
            description: &description,
            texts: &texts,
            buffers: &buffers,
        };
        sanitize_described(&sanitizer, input)
    })
}

/// The secrets of a JSON value (its strings and keys, at any depth) replaced: `value` is JSON
/// text, `options` the `sanitize` object as JSON text (empty: the built-in kinds); returns the
/// scrubbed JSON text, or an empty string when the value holds no secret. For projections that
/// stand alone (`toInvocationRecord`) and messages that reach events and the model without a
/// dispatch (RAP events).
#[napi(js_name = "scrubSecrets")]
pub fn scrub_secrets_js(value: String, options: String) -> crate::error::Result<String> {
    static DEFAULT: OnceLock<RecordScrubber> = OnceLock::new();
    guard(|| {
        let parsed = parse_json("scrubSecrets: value", &value)?;
        let custom;
        let scrubber = if options.is_empty() {
            DEFAULT.get_or_init(RecordScrubber::default)
        } else {
            custom = RecordScrubber::new(sanitizer_for(&options)?);
            &custom
        };
        Ok(match scrubber.scrub(&parsed) {
            Cow::Borrowed(_) => String::new(),
            Cow::Owned(scrubbed) => scrubbed.to_string(),
        })
    })
}

/// The same work for a running dispatch, on a worker thread.
pub struct SanitizeTask {
    pub(crate) sanitizer: Arc<Sanitizer>,
    pub(crate) description: String,
    pub(crate) texts: Vec<String>,
    pub(crate) buffers: Vec<Uint8Array>,
    pub(crate) trusted_media: bool,
}

impl Task for SanitizeTask {
    /// The engine's answer, or its error, which becomes the rejection on the JavaScript thread
    /// (with its code: see `error::rejection`).
    type Output = toolwire_core::Result<String>;
    type JsValue = String;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let buffers: Vec<&[u8]> = self.buffers.iter().map(|b| &b[..]).collect();
        let sanitizer = self.sanitizer.clone();
        let input = Described {
            description: &self.description,
            texts: &self.texts,
            buffers: &buffers,
        };
        Ok(caught(|| {
            sanitize_output(&sanitizer, input, self.trusted_media)
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<String> {
        output.map_err(|error| rejection(&env, error))
    }
}

/// A batch's sanitizer for one tool's output (see `NativeRuntime.outputSanitizer`). Its own
/// object, so the work it starts does not hold the runtime borrowed while it runs.
#[napi]
pub struct NativeSanitizer {
    pub(crate) sanitizer: Arc<Sanitizer>,
    pub(crate) trusted_media: bool,
}

#[napi]
impl NativeSanitizer {
    /// Sanitizes a tool's described output on a worker thread; resolves with the JSON text
    /// `[value, report]` that completes the call (see `sanitize_output`).
    #[napi(ts_return_type = "Promise<string>")]
    pub fn run(
        &self,
        description: String,
        texts: Vec<String>,
        buffers: Vec<Uint8Array>,
    ) -> AsyncTask<SanitizeTask> {
        AsyncTask::new(SanitizeTask {
            sanitizer: self.sanitizer.clone(),
            description,
            texts,
            buffers,
            trusted_media: self.trusted_media,
        })
    }
}
