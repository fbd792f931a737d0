//! The environment an exec-like tool call sets for its command (its `env` argument and the other
//! usual names for it): a variable there is an assignment before every program of the line, so
//! only variables that cannot change which program runs or what it loads are accepted.

use serde_json::Value;

use crate::args::quote_arguments as quoted;

/// The argument names exec-like tools give the command's environment.
pub const ENV_KEYS: &[&str] = &[
    "env",
    "environment",
    "envVars",
    "env_vars",
    "environmentVariables",
];

/// Variables a call may set: locale, time zone, terminal and colour settings, CI markers. Any
/// other (`PATH`, `LD_PRELOAD`, `BASH_ENV`, `GIT_CONFIG_*`, `PAGER`, `EDITOR`, `NODE_OPTIONS`,
/// `PYTHONPATH`, `HOME`, ...) can change which program runs or make it run other code.
const SAFE_NAMES: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "COLUMNS",
    "LINES",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "CI",
    "DEBIAN_FRONTEND",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONIOENCODING",
    "NODE_ENV",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "GIT_TERMINAL_PROMPT",
];

/// Whether a call may set the variable `name`.
fn is_safe(name: &str) -> bool {
    SAFE_NAMES.contains(&name)
        || name
            .strip_prefix("LC_")
            .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_uppercase()))
}

/// Why the environment the call's arguments `args` set for its command keeps the analysis from
/// vouching for what runs, or `None` when it sets nothing or only [safe](SAFE_NAMES) variables.
/// A `null` value counts as absent; a value that is not an object is refused (its meaning is
/// unknown).
pub fn unsafe_call_env(args: &Value) -> Option<String> {
    for key in ENV_KEYS {
        let vars = match args.get(key) {
            None | Some(Value::Null) => continue,
            Some(Value::Object(vars)) => vars,
            Some(other) => {
                return Some(format!(
                    "the environment argument \"{key}\" is not an object: {}",
                    quoted(other)
                ))
            }
        };
        if let Some(name) = vars.keys().find(|name| !is_safe(name)) {
            return Some(format!(
                "the call sets the environment variable {} (in \"{key}\"), which can change what the command runs",
                quoted(&Value::String(name.clone()))
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_safe_variables_pass() {
        let passing = [
            json!({}),
            json!({ "env": null }),
            json!({ "env": {} }),
            json!({ "env": { "LANG": "C", "LC_ALL": "C", "TZ": "UTC", "NO_COLOR": "1" } }),
            json!({ "environment": { "CI": "1" } }),
        ];
        for args in passing {
            assert_eq!(unsafe_call_env(&args), None, "{args}");
        }
        let refused = [
            (json!({ "env": { "PATH": "/tmp" } }), "\"PATH\""),
            (
                json!({ "env": { "LANG": "C", "LD_PRELOAD": "x.so" } }),
                "\"LD_PRELOAD\"",
            ),
            (
                json!({ "env": { "GIT_CONFIG_COUNT": "1" } }),
                "\"GIT_CONFIG_COUNT\"",
            ),
            (json!({ "env": { "BASH_ENV": "/tmp/x" } }), "\"BASH_ENV\""),
            (json!({ "env": { "PAGER": "sh" } }), "\"PAGER\""),
            (
                json!({ "envVars": { "NODE_OPTIONS": "-r x" } }),
                "\"NODE_OPTIONS\"",
            ),
            (json!({ "env_vars": { "LC_": "x" } }), "\"LC_\""),
            (json!({ "env": ["PATH=/tmp"] }), "is not an object"),
            (json!({ "env": "PATH=/tmp" }), "is not an object"),
        ];
        for (args, want) in refused {
            let why = unsafe_call_env(&args).unwrap_or_default();
            assert!(why.contains(want), "{args}: {why}");
        }
        let long = json!({ "env": { "X".repeat(100_000): "1" } });
        assert!(unsafe_call_env(&long).unwrap().len() < 1500);
    }
}
