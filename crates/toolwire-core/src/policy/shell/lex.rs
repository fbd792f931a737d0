//! The tokenizer: turns a command line into literal words and control operators, refusing every
//! construct whose meaning is not literal text (expansions, redirections, substitutions, ...).
//!
//! It works on bytes: every construct it recognises is ASCII, and the bytes of a multi-byte
//! character are copied through unchanged, so words stay valid UTF-8.

/// A control operator that separates commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    /// `&&`
    And,
    /// `||`
    Or,
    /// `;`
    Semi,
    /// `|`
    Pipe,
}

impl Operator {
    /// The operator as typed.
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::And => "&&",
            Operator::Or => "||",
            Operator::Semi => ";",
            Operator::Pipe => "|",
        }
    }
}

/// One word after quote removal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// The literal text of the word (quotes and escapes removed).
    pub text: String,
    /// The byte offset where the word starts in the command.
    pub offset: usize,
    /// Whether the word is a `NAME=value` assignment (an unquoted name before the first `=`).
    pub assignment: bool,
}

/// A token of the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// A literal word.
    Word(Word),
    /// A control operator and its byte offset.
    Op(Operator, usize),
}

/// The word being built.
#[derive(Default)]
struct WordBuilder {
    bytes: Vec<u8>,
    started: bool,
    offset: usize,
    /// Every byte so far was unquoted and unescaped.
    plain: bool,
    assignment: bool,
}

impl WordBuilder {
    fn start(&mut self, offset: usize) {
        if !self.started {
            self.started = true;
            self.offset = offset;
            self.plain = true;
        }
    }

    fn finish(&mut self, tokens: &mut Vec<Token>) {
        if self.started {
            let bytes = std::mem::take(&mut self.bytes);
            tokens.push(Token::Word(Word {
                text: String::from_utf8_lossy(&bytes).into_owned(),
                offset: self.offset,
                assignment: self.assignment,
            }));
        }
        *self = WordBuilder::default();
    }
}

/// Whether `bytes` is a shell variable name (`[A-Za-z_][A-Za-z0-9_]*`).
fn is_name(bytes: &[u8]) -> bool {
    match bytes.split_first() {
        Some((first, rest)) => {
            (first.is_ascii_alphabetic() || *first == b'_')
                && rest.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
        }
        None => false,
    }
}

fn at(what: &str, offset: usize) -> String {
    format!("{what} at byte {offset}")
}

/// The refusal for a `$` at `i` (unquoted or inside double quotes).
fn dollar(b: &[u8], i: usize) -> String {
    let what = match b.get(i + 1) {
        Some(b'(') => "command substitution `$(`",
        Some(b'{') => "parameter expansion `${`",
        Some(b'\'') => "ANSI-C quoting `$'`",
        Some(b'"') => "locale quoting `$\"`",
        _ => "parameter expansion `$`",
    };
    at(what, i)
}

/// The refusal for a `<` or `>` at `i`.
fn redirection(b: &[u8], i: usize) -> String {
    let next = b.get(i + 1).copied();
    let what = match (b[i], next) {
        (b'<', Some(b'(')) => "process substitution `<(`",
        (b'>', Some(b'(')) => "process substitution `>(`",
        (b'<', Some(b'<')) if b.get(i + 2) == Some(&b'<') => "herestring `<<<`",
        (b'<', Some(b'<')) => "heredoc `<<`",
        (b'<', Some(b'&')) => "fd duplication redirection `<&`",
        (b'>', Some(b'&')) => "fd duplication redirection `>&`",
        (b'<', Some(b'>')) => "redirection `<>`",
        (b'>', Some(b'>')) => "redirection `>>`",
        (b'>', Some(b'|')) => "redirection `>|`",
        (b'<', _) => "redirection `<`",
        _ => "redirection `>`",
    };
    at(what, i)
}

/// Splits `command` into words and operators, or says which construct it refuses and where.
///
/// Single quotes keep everything literal; inside double quotes a backslash escapes only
/// `$`, `` ` ``, `"` and `\` (POSIX), and `$`, backticks and `!` are refused; outside quotes a
/// backslash makes the next character literal.
pub fn tokenize(command: &str) -> Result<Vec<Token>, String> {
    let b = command.as_bytes();
    let mut tokens = Vec::new();
    let mut word = WordBuilder::default();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' => {
                word.finish(&mut tokens);
                i += 1;
            }
            b'\n' | b'\r' => return Err(at("newline", i)),
            b'\'' => {
                word.start(i);
                word.plain = false;
                let mut j = i + 1;
                loop {
                    match b.get(j) {
                        None => return Err(at("unterminated single quote", i)),
                        Some(b'\'') => break,
                        Some(b'\n' | b'\r') => return Err(at("newline", j)),
                        Some(&other) => word.bytes.push(other),
                    }
                    j += 1;
                }
                i = j + 1;
            }
            b'"' => {
                word.start(i);
                word.plain = false;
                let mut j = i + 1;
                loop {
                    match b.get(j) {
                        None => return Err(at("unterminated double quote", i)),
                        Some(b'"') => break,
                        Some(b'\\') => match b.get(j + 1) {
                            Some(&e @ (b'$' | b'`' | b'"' | b'\\')) => {
                                word.bytes.push(e);
                                j += 1;
                            }
                            Some(b'\n' | b'\r') => return Err(at("escaped newline", j)),
                            _ => word.bytes.push(b'\\'),
                        },
                        Some(b'$') => return Err(dollar(b, j)),
                        Some(b'`') => return Err(at("command substitution (backtick)", j)),
                        Some(b'!') => return Err(at("history expansion `!` in double quotes", j)),
                        Some(b'\n' | b'\r') => return Err(at("newline", j)),
                        Some(&other) => word.bytes.push(other),
                    }
                    j += 1;
                }
                i = j + 1;
            }
            b'\\' => match b.get(i + 1) {
                None => return Err(at("trailing backslash", i)),
                Some(b'\n' | b'\r') => return Err(at("escaped newline", i)),
                Some(&e) => {
                    word.start(i);
                    word.plain = false;
                    word.bytes.push(e);
                    i += 2;
                }
            },
            b'$' => return Err(dollar(b, i)),
            b'`' => return Err(at("command substitution (backtick)", i)),
            b'<' | b'>' => return Err(redirection(b, i)),
            b'&' => match b.get(i + 1) {
                Some(b'&') => {
                    word.finish(&mut tokens);
                    tokens.push(Token::Op(Operator::And, i));
                    i += 2;
                }
                Some(b'>') => return Err(at("redirection `&>`", i)),
                _ => return Err(at("background `&`", i)),
            },
            b'|' => match b.get(i + 1) {
                Some(b'|') => {
                    word.finish(&mut tokens);
                    tokens.push(Token::Op(Operator::Or, i));
                    i += 2;
                }
                Some(b'&') => return Err(at("pipe with stderr `|&`", i)),
                _ => {
                    word.finish(&mut tokens);
                    tokens.push(Token::Op(Operator::Pipe, i));
                    i += 1;
                }
            },
            b';' => {
                word.finish(&mut tokens);
                tokens.push(Token::Op(Operator::Semi, i));
                i += 1;
            }
            b'(' | b')' => return Err(at("subshell or group parenthesis", i)),
            b'*' | b'?' | b'[' => return Err(at("glob character", i)),
            b'{' | b'}' => return Err(at("brace expansion or group brace", i)),
            b'!' => return Err(at("history expansion or negation `!`", i)),
            b'~' if !word.started || matches!(b[i - 1], b'=' | b':') => {
                return Err(at("tilde expansion `~`", i))
            }
            b'=' if !word.started => return Err(at("`=` at a word start (zsh expansion)", i)),
            b'#' if !word.started => return Err(at("comment `#`", i)),
            b'=' => {
                if word.started && word.plain && !word.assignment && is_name(&word.bytes) {
                    word.assignment = true;
                }
                word.start(i);
                word.bytes.push(c);
                i += 1;
            }
            c if c < 0x20 || c == 0x7f => return Err(at("control character", i)),
            _ => {
                word.start(i);
                word.bytes.push(c);
                i += 1;
            }
        }
    }
    word.finish(&mut tokens);
    Ok(tokens)
}

/// Quotes `word` so that [`tokenize`] reads it back as exactly that one word.
pub fn quote(word: &str) -> String {
    let mut out = String::with_capacity(word.len() + 2);
    out.push('\'');
    for ch in word.chars() {
        if ch == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(ch);
        }
    }
    out.push('\'');
    out
}
