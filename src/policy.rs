//! Policy functions: `analyzeCommand`, the shell command analyzer of exec-like tools.

use napi_derive::napi;
use serde_json::Value;
use toolwire_core::policy::shell::{analyze_command, AnalyzeOptions};
use toolwire_core::Error;

use crate::convert::parse_json;
use crate::error::guard;

/// Analyzes the shell command line `command`; `options` is JSON text of `{ cwd, allowlist,
/// safeBins, trustedDirs, env }` (empty for defaults). Returns the `Analysis` as JSON text:
/// `{ approved, reason?, segments }`.
#[napi(js_name = "analyzeCommand")]
pub fn analyze_command_js(command: String, options: String) -> crate::error::Result<String> {
    guard(|| {
        let options = if options.trim().is_empty() {
            Value::Null
        } else {
            parse_json("analyzeCommand: options", &options)?
        };
        let options = AnalyzeOptions::from_json(&options)?;
        let analysis = analyze_command(&command, &options);
        serde_json::to_string(&analysis).map_err(|e| Error::internal(e.to_string()))
    })
}
