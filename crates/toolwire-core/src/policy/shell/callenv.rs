//! The environment an exec-like tool call sets for its command (its `env` argument and the other
//! usual names for it) and the `NAME=value` words before a command: a variable there is set for
//! the program, so only variables that cannot change which program runs or what it loads are
//! accepted ([`SAFE_NAMES`], the one table both read), with values that name no file.

use serde_json::Value;

use crate::quote::quote_arguments as quoted;

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

/// Whether `value` names no file: letters, digits and `_ . - @ : + , = %` (`en_US.UTF-8`,
/// `info,x=debug`), and for `TZ` a relative zone name (`America/New_York`; `TZ=/tmp/x`,
/// `TZ=:/tmp/x` and `..` read another file). A locale with a `/` is a path to locale data.
fn is_safe_value(name: &str, value: &str) -> bool {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_.-@:+,=%".contains(c);
    if name == "TZ" {
        let zone = value.strip_prefix(':').unwrap_or(value);
        return !zone.starts_with('/')
            && !zone.contains("..")
            && zone.chars().all(|c| plain(c) || c == '/');
    }
    value.chars().all(plain)
}

/// Why setting the variable `name` to `value` for a command keeps the analysis from vouching
/// for what runs (`name` is not [safe](SAFE_NAMES), or the value may name a file), as the end of
/// a sentence naming the variable.
pub fn unsafe_assignment(name: &str, value: &str) -> Option<&'static str> {
    if !is_safe(name) {
        return Some("which can change what the command runs");
    }
    (!is_safe_value(name, value)).then_some("whose value may name a file")
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
        for (name, value) in vars {
            let text = match value {
                Value::String(text) => text.clone(),
                Value::Null | Value::Bool(_) | Value::Number(_) => value.to_string(),
                Value::Array(_) | Value::Object(_) => {
                    return Some(format!(
                        "the call sets the environment variable {} (in \"{key}\") to a value that is not text: {}",
                        quoted(&Value::String(name.clone())),
                        quoted(value)
                    ))
                }
            };
            if let Some(why) = unsafe_assignment(name, &text) {
                return Some(format!(
                    "the call sets the environment variable {} (in \"{key}\"), {why}",
                    quoted(&Value::String(name.clone()))
                ));
            }
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
        // Issue 19 attack 8: variables naming a client's configuration, which can run code
        // (credential helpers, exec plugins, credential_process, includes, pip's interpreter).
        for name in [
            "DOCKER_CONFIG",
            "DOCKER_HOST",
            "DOCKER_CONTEXT",
            "KUBECONFIG",
            "HELM_PLUGINS",
            "HELM_POST_RENDERER",
            "AWS_CONFIG_FILE",
            "AWS_SHARED_CREDENTIALS_FILE",
            "AWS_PROFILE",
            "CLOUDSDK_CONFIG",
            "GH_CONFIG_DIR",
            "GH_EDITOR",
            "GIT_CONFIG_GLOBAL",
            "GIT_CONFIG_SYSTEM",
            "XDG_CONFIG_HOME",
            "PIP_CONFIG_FILE",
            "PIP_PYTHON",
            "NPM_CONFIG_USERCONFIG",
            "YARN_RC_FILENAME",
            "TF_CLI_CONFIG_FILE",
            "TF_CLI_ARGS",
            "TF_PLUGIN_CACHE_DIR",
            "CONTAINERS_CONF",
        ] {
            for key in ENV_KEYS {
                let args = json!({ *key: { name: "x" } });
                let why = unsafe_call_env(&args).unwrap_or_default();
                assert!(why.contains(&format!("\"{name}\"")), "{args}: {why}");
                assert_eq!(
                    unsafe_assignment(name, "x"),
                    Some("which can change what the command runs")
                );
            }
        }
        let long = json!({ "env": { "X".repeat(100_000): "1" } });
        assert!(unsafe_call_env(&long).unwrap().len() < 1500);
    }
}
