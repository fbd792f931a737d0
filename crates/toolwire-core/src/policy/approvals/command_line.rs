//! The command line an exec-like call's command parameter stands for.
//!
//! A command given as one string is that line. A command given as an argument vector
//! (`{ "command": ["git", "status"] }`, as Codex sends it) runs without a shell, each element
//! one argument: it is the line whose words are exactly those elements, each quoted for the
//! shell ([`quote`]: single quotes, `'\''` for a quote inside, which the analysis reads back
//! byte for byte), so the one analysis of command lines decides it. A NUL, which no argument of
//! a program can hold, and an empty vector are refused.
//!
//! The approval cannot see how the tool runs the vector: a tool that joins the words with spaces
//! into a shell line (`exec(command.join(" "))`) runs `["ls", "; touch x"]` as two commands. So
//! a vector is also read as that unquoted line ([`CommandLine::unquoted`]), and it is approved
//! only when both lines are: words that need no quoting (`["git", "status"]`) read the same
//! either way, and a word that makes an operator, an expansion or an unbalanced quote when
//! unquoted is refused.

use serde_json::Value;

use crate::policy::shell::lex::quote;
use crate::quote::quoted_json;

/// The command line(s) an exec call's command stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine {
    /// The line: the string given, or the vector's words each quoted.
    pub line: String,
    /// For a vector, its words joined by spaces without quotes: what a tool that builds a shell
    /// line by joining them runs. Both lines must be approved.
    pub unquoted: Option<String>,
}

/// The command line of the call's `param` argument (`value`, absent when the call has none),
/// or why there is none, naming the parameter and the value (bounded).
pub fn command_line(param: &str, value: Option<&Value>) -> Result<CommandLine, String> {
    let refuse = |why: &str| Err(format!("the command parameter \"{param}\" {why}"));
    match value {
        Some(Value::String(line)) => Ok(CommandLine {
            line: line.clone(),
            unquoted: None,
        }),
        Some(Value::Array(words)) if words.is_empty() => {
            refuse("is an empty argument array: it names no program")
        }
        Some(Value::Array(words)) => {
            let mut line = String::new();
            let mut unquoted = String::new();
            for (i, word) in words.iter().enumerate() {
                let Some(word) = word.as_str() else {
                    return refuse(&format!(
                        "is an argument array whose element {i} is not a string: {}",
                        quoted_json(word)
                    ));
                };
                if word.contains('\0') {
                    return refuse(&format!(
                        "is an argument array whose element {i} holds a NUL, which no program argument can"
                    ));
                }
                if i > 0 {
                    line.push(' ');
                    unquoted.push(' ');
                }
                line.push_str(&quote(word));
                unquoted.push_str(word);
            }
            Ok(CommandLine {
                line,
                unquoted: Some(unquoted),
            })
        }
        None | Some(Value::Null) => refuse(
            "is missing (a command line as a string, or an argument array of strings, is analyzed)",
        ),
        Some(other) => refuse(&format!(
            "is neither a string nor an argument array of strings: {}",
            quoted_json(other)
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::policy::shell::lex::{tokenize, Token};

    /// The words the analysis reads in `line`; an assignment word would be no argument.
    fn words(line: &str) -> Vec<String> {
        tokenize(line)
            .expect("a quoted line tokenizes")
            .into_iter()
            .map(|token| match token {
                Token::Word(word) if !word.assignment => word.text,
                other => panic!("{line}: not a plain word: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn an_argument_array_reads_back_as_exactly_its_elements() {
        let cases: &[&[&str]] = &[
            &["git", "status"],
            &["echo", "two words", ""],
            &["printf", "it's", "'", "''", "a'b'c"],
            &["echo", "$HOME", "$(id)", "`id`", "${x}", "\\n", "\\"],
            &["echo", ";", "&&", "|", "||", ">", "<", "&", "(", ")", "#c"],
            &["echo", "*", "?", "[a]", "~", "~root", "{a,b}", "!x"],
            &["echo", "\"", "\"'\"", " leading", "trailing ", "\ttab"],
            &["FOO=1", "git"],
            &["echo", "é ü 日本 \u{1F600}", "\u{7f}", "\u{1b}[31m"],
        ];
        for case in cases {
            let value = json!(case);
            let line = command_line("command", Some(&value)).unwrap().line;
            let want: Vec<String> = case.iter().map(|w| w.to_string()).collect();
            assert_eq!(words(&line), want, "{line}");
        }
    }

    #[test]
    fn an_element_with_a_line_break_stays_one_word_the_analysis_refuses() {
        // The tokenizer refuses a line break even quoted: the call is refused, never split.
        for word in ["a\nb", "a\rb", "\n"] {
            let line = command_line("command", Some(&json!(["echo", word])))
                .unwrap()
                .line;
            assert!(tokenize(&line).is_err(), "{line:?}");
        }
    }

    #[test]
    fn a_vector_is_also_read_as_its_words_joined_unquoted() {
        let cases: &[(&[&str], &str)] = &[
            (&["git", "status"], "git status"),
            (&["ls", "; touch x"], "ls ; touch x"),
            (&["echo", "", "a b"], "echo  a b"),
        ];
        for (words, want) in cases {
            let got = command_line("command", Some(&json!(words))).unwrap();
            assert_eq!(got.unquoted.as_deref(), Some(*want));
        }
        let given = command_line("command", Some(&json!("ls ; id"))).unwrap();
        assert_eq!(given.unquoted, None);
    }

    #[test]
    fn what_is_no_command_line_is_named() {
        let cases = [
            (None, "is missing"),
            (Some(json!(null)), "is missing"),
            (Some(json!([])), "empty argument array"),
            (Some(json!(["git", 5])), "element 1 is not a string: 5"),
            (Some(json!(["git", "a\u{0}b"])), "element 1 holds a NUL"),
            (
                Some(json!(5)),
                "neither a string nor an argument array of strings: 5",
            ),
            (Some(json!({ "argv": ["ls"] })), "neither a string"),
        ];
        for (value, want) in cases {
            let why = command_line("cmd", value.as_ref()).unwrap_err();
            assert!(why.starts_with("the command parameter \"cmd\" "), "{why}");
            assert!(why.contains(want), "{why}");
        }
    }
}
