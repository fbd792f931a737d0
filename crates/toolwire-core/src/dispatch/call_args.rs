//! A call's arguments as the dispatcher holds them: the parsed value, or the model's text that
//! [`crate::flat_args`] found valid as it is, parsed only if something asks for the value (a
//! hook, an event, a policy reading a path, a result built by the engine). A call of a flat
//! tool that runs and succeeds with no such reader never has its arguments parsed by the engine:
//! the driver parses its own copy for the tool.

use std::cell::OnceCell;

use serde_json::Value;

/// The arguments of one call (see the module documentation).
#[derive(Debug, Default)]
pub(super) struct CallArgs {
    /// Text found valid as it is, not parsed yet.
    text: Option<String>,
    /// The value, once there is one.
    value: OnceCell<Value>,
}

impl CallArgs {
    /// Arguments held as `text`, which [`crate::flat_args::FlatSchema::accepts`] accepted.
    pub(super) fn checked_text(text: String) -> Self {
        CallArgs {
            text: Some(text),
            value: OnceCell::new(),
        }
    }

    /// The value, parsed from the text on first use.
    pub(super) fn get(&self) -> &Value {
        self.value.get_or_init(|| match &self.text {
            // The flat check accepts only text the full parser reads without repair (its
            // property test holds that promise), so this parse cannot fail.
            Some(text) => crate::json_input::parse(text).map_or(Value::Null, |parsed| parsed.value),
            None => Value::Null,
        })
    }

    /// The value, to change in place.
    pub(super) fn get_mut(&mut self) -> &mut Value {
        self.get();
        self.text = None;
        self.value.get_mut().expect("set by get")
    }

    /// Replaces the arguments.
    pub(super) fn set(&mut self, value: Value) {
        self.text = None;
        self.value = OnceCell::from(value);
    }

    /// Takes the value out, leaving `null`.
    pub(super) fn take(&mut self) -> Value {
        std::mem::take(self.get_mut())
    }

    /// Whether the value was never needed (for tests).
    #[cfg(test)]
    pub(super) fn unparsed(&self) -> bool {
        self.value.get().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn checked_text_is_parsed_on_first_use_and_only_then() {
        let mut args = CallArgs::checked_text(r#"{"path":"a.txt","n":2}"#.to_owned());
        assert!(args.unparsed());
        assert_eq!(args.get(), &json!({"path": "a.txt", "n": 2}));
        assert!(!args.unparsed());
        args.get_mut()["n"] = json!(3);
        assert_eq!(args.take(), json!({"path": "a.txt", "n": 3}));
        assert_eq!(args.get(), &Value::Null);
    }

    #[test]
    fn set_replaces_text_not_yet_parsed() {
        let mut args = CallArgs::checked_text(r#"{"a":1}"#.to_owned());
        args.set(json!({"b": 2}));
        assert_eq!(args.get(), &json!({"b": 2}));
        assert_eq!(CallArgs::default().get(), &Value::Null);
    }
}
