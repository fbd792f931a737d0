//! Tool-name rules per target (WIRE.md §4 and §6).

use super::SchemaTarget;
use crate::json_text::json_string;

/// One naming rule.
struct Rule {
    /// As shown in messages.
    pattern: &'static str,
    /// Allowed as the first character (beyond `rest`'s check).
    first: fn(char) -> bool,
    /// Allowed anywhere.
    rest: fn(char) -> bool,
}

fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn gemini_char(c: char) -> bool {
    word_char(c) || c == '.' || c == ':'
}

fn letter_or_underscore(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

const PLAIN: Rule = Rule {
    pattern: "^[a-zA-Z0-9_-]{1,64}$",
    first: word_char,
    rest: word_char,
};

const GEMINI: Rule = Rule {
    pattern: "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$",
    first: letter_or_underscore,
    rest: gemini_char,
};

const PORTABLE: Rule = Rule {
    pattern: "^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$",
    first: letter_or_underscore,
    rest: word_char,
};

/// The longest name any target allows.
const MAX_CHARS: usize = 64;

/// `Ok(())` when `name` is a valid tool name for the dialect `target`, else the reason, naming
/// the name, the target as the caller named it (`shown_as`: a wire such as `"openai-chat"`, or
/// the target's own name) and its rule. A wire's dialect is its provider's
/// ([`crate::provider::DefinitionTarget`] resolves either kind of name).
pub fn validate_tool_name(
    name: &str,
    target: SchemaTarget,
    shown_as: &str,
) -> std::result::Result<(), String> {
    let rule = match target {
        SchemaTarget::Openai
        | SchemaTarget::OpenaiStrict
        | SchemaTarget::Anthropic
        | SchemaTarget::Xai
        | SchemaTarget::Mistral
        | SchemaTarget::Llamacpp => PLAIN,
        SchemaTarget::Gemini => GEMINI,
        SchemaTarget::P0 => PORTABLE,
    };
    let why = if name.is_empty() {
        Some("it is empty".to_owned())
    } else if let Some(bad) = name.chars().find(|c| !(rule.rest)(*c)) {
        Some(format!("it contains {}", json_string(&bad.to_string())))
    } else if let Some(first) = name.chars().next().filter(|c| !(rule.first)(*c)) {
        Some(format!(
            "it starts with {}",
            json_string(&first.to_string())
        ))
    } else if name.chars().count() > MAX_CHARS {
        Some(format!("it is {} characters long", name.chars().count()))
    } else {
        None
    };
    match why {
        None => Ok(()),
        Some(why) => Err(format!(
            "{} breaks {shown_as}'s rule {} ({why})",
            json_string(name),
            rule.pattern
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_each_targets_rule() {
        let long = "a".repeat(64);
        let too_long = "a".repeat(65);
        // (name, target, Ok or a fragment of the reason)
        let cases: &[(&str, &str, Result<(), &str>)] = &[
            ("get_weather", "openai", Ok(())),
            ("get-weather-2", "anthropic", Ok(())),
            ("2fa", "openai", Ok(())),
            (&long, "mistral", Ok(())),
            (&too_long, "xai", Err("it is 65 characters long")),
            (
                "get.weather",
                "anthropic",
                Err(
                    r#""get.weather" breaks anthropic's rule ^[a-zA-Z0-9_-]{1,64}$ (it contains ".")"#,
                ),
            ),
            ("", "openai", Err("(it is empty)")),
            ("a b", "llamacpp", Err("it contains \" \"")),
            ("é", "openai-strict", Err("it contains \"é\"")),
            ("ns.get:weather", "gemini", Ok(())),
            ("_x", "gemini", Ok(())),
            (
                "2fa",
                "gemini",
                Err("gemini's rule ^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$ (it starts with \"2\")"),
            ),
            (".x", "gemini", Err("it starts with \".\"")),
            ("a/b", "gemini", Err("it contains \"/\"")),
            (&too_long, "gemini", Err("it is 65 characters long")),
            ("get_weather", "p0", Ok(())),
            (
                "2fa",
                "p0",
                Err("p0's rule ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$ (it starts with \"2\")"),
            ),
            ("a.b", "p0", Err("it contains \".\"")),
        ];
        for (name, target, expected) in cases {
            let got = validate_tool_name(name, SchemaTarget::parse(target).unwrap(), target);
            match (got, expected) {
                (Ok(()), Ok(())) => {}
                (Err(reason), Err(fragment)) => {
                    assert!(reason.contains(fragment), "{name} {target}: {reason}")
                }
                (got, _) => panic!("{name} {target}: unexpected {got:?}"),
            }
        }
    }
}
