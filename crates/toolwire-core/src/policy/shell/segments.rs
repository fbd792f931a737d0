//! The splitter: groups tokens into simple commands separated by `&&`, `||`, `;` and `|`.

use super::lex::{Operator, Token, Word};

/// One simple command of a chain or pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Its words, in order.
    pub words: Vec<Word>,
    /// The operator that follows it, if any.
    pub followed_by: Option<Operator>,
}

/// Splits `tokens` into segments; refuses an empty command anywhere (a leading or trailing
/// operator, two operators in a row, or nothing at all).
pub fn split(tokens: Vec<Token>) -> Result<Vec<Segment>, String> {
    let mut segments = Vec::new();
    let mut words = Vec::new();
    let mut last_op: Option<(Operator, usize)> = None;
    for token in tokens {
        match token {
            Token::Word(word) => words.push(word),
            Token::Op(op, offset) => {
                if words.is_empty() {
                    return Err(format!(
                        "empty command before `{}` at byte {offset}",
                        op.as_str()
                    ));
                }
                segments.push(Segment {
                    words: std::mem::take(&mut words),
                    followed_by: Some(op),
                });
                last_op = Some((op, offset));
            }
        }
    }
    if words.is_empty() {
        return Err(match last_op {
            Some((op, offset)) => format!(
                "empty command after trailing `{}` at byte {offset}",
                op.as_str()
            ),
            None => "empty command".to_string(),
        });
    }
    segments.push(Segment {
        words,
        followed_by: None,
    });
    Ok(segments)
}
