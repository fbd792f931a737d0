//! Incremental (streaming) JSON parser for tool-call arguments that arrive as text fragments.
//!
//! A [`PartialJson`] is fed the fragments of one JSON text in order ([`PartialJson::push`]) and
//! reports what each fragment changed in the value as [`PartialOp`]s. The work is linear in the
//! total text length: every byte is looked at once by a byte-level state machine, nothing is
//! re-scanned or re-parsed, string contents are copied in runs, and the current path is a stack
//! that is cloned only when an operation is emitted (so an operation costs its own size plus the
//! path depth).
//!
//! # Operations
//!
//! - **Strings (as values).** While a string value is being read, each `push` that adds
//!   characters to it emits one [`PartialOp::Append`] for it with the characters this fragment
//!   added, decoded (`\n`, `\"`, `\uXXXX` and surrogate pairs become the real characters). A
//!   string for which no `Append` has been emitted yet is reported, when it closes, by a single
//!   [`PartialOp::Value`] with its compact JSON text instead. That covers a string that starts and
//!   ends inside the same `push`, the empty string `""` (always `Value` with json `""`), and a
//!   string whose earlier fragments added no complete character (only its opening quote or part
//!   of an escape). A string that did grow by appends ends with the closing push's `Append` of
//!   the characters that push added (no op if it added none) and no `Value`. `Append` text is
//!   never empty.
//! - **Numbers, `true`, `false`, `null`.** A `Value` when complete, with the literal as written.
//!   A number is complete when a delimiter follows it (`,` `}` `]` or whitespace), so a bare
//!   top-level number stays [`ParseState::InProgress`] until whitespace follows it.
//! - **Objects and arrays.** No op when they open or close, except an empty container (`{}` or
//!   `[]`, whitespace allowed inside) which emits a `Value` with json `{}` or `[]` when it
//!   closes. Consumers create non-empty containers implicitly from the paths: a
//!   [`PathSegment::Key`] means an object, a [`PathSegment::Index`] an array (indices arrive in
//!   order, starting at 0).
//! - **Keys** are buffered until their closing quote (they may be split across fragments; their
//!   escapes are decoded) and become the last path segment of the value that follows. Keys are
//!   never reported as ops. A duplicated key reports both values at the same path.
//! - **Paths.** The root value has path `[]`; in `{"a":[1,{"b":"x"}]}` the ops are at `["a",0]`
//!   (`Value` `1`) and `["a",1,"b"]` (`Value` `"x"` if the string was whole in one push).
//!
//! Applying all the ops (an `Append` concatenates onto the string at its path, creating it if
//! absent; a `Value` sets; containers are implicit) builds the same value as parsing the whole
//! text at once, whatever the split points.
//!
//! # Escapes
//!
//! Escapes may be split anywhere across fragments: after the `\`, inside `\uXXXX`, or between
//! the two halves of a surrogate pair (a high surrogate is held back until the next escape shows
//! whether it is paired, so half a pair is never emitted). An unpaired surrogate decodes to
//! U+FFFD.
//!
//! # Errors
//!
//! Input that is not JSON (a missing value or `:`, a stray closer, a bad literal or number, a raw
//! control character in a string, a second top-level value, trailing garbage) turns the state
//! into [`ParseState::Invalid`] with the byte offset into the whole text and a short phrase
//! naming what was expected and what was found. Ops for the text before the error are still
//! emitted (including the characters of a string that the failing fragment added before the
//! error); from then on `push` emits nothing and does no work. Nesting deeper than
//! [`MAX_DEPTH`] levels is refused the same way, which bounds memory on hostile input. No input
//! makes the parser panic. Leading and trailing whitespace is allowed.

use crate::json_text::push_json_string;

/// Deepest nesting of objects and arrays accepted; one more level makes the parse invalid.
pub const MAX_DEPTH: usize = 512;

/// One step of a JSON path: an object key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathSegment {
    /// A member of an object, by its (decoded) key.
    Key(String),
    /// An element of an array, by its zero-based position.
    Index(usize),
}

/// What changed in the value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartialOp {
    /// The string at `path` grew by `text` (decoded text, escapes resolved).
    Append {
        /// Where the string is.
        path: Vec<PathSegment>,
        /// The characters added (never empty).
        text: String,
    },
    /// The value at `path` is now whole; `json` is its compact JSON text.
    Value {
        /// Where the value is.
        path: Vec<PathSegment>,
        /// The value as compact JSON (numbers and literals as written).
        json: String,
    },
}

/// Where the parse stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseState {
    /// The text so far is a valid prefix of a JSON text, but not yet a whole one.
    InProgress,
    /// The text so far is one complete JSON value, followed only by whitespace.
    Complete,
    /// The text is not JSON; nothing more will be parsed.
    Invalid {
        /// Byte offset, into the whole text fed so far, of the offending character.
        offset: usize,
        /// What was expected and what was found.
        reason: String,
    },
}

/// What the state machine expects next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// A value (top level, after `:`, or after `,` in an array).
    Value,
    /// Just after `[`: a value or `]`.
    ArrayFirst,
    /// Just after `{`: a key or `}`.
    ObjectFirst,
    /// After `,` in an object: a key.
    ObjectKey,
    /// After a key: `:`.
    Colon,
    /// After a value inside a container: `,` or the closer.
    AfterValue,
    /// Inside a string (a key when `in_key`).
    Str,
    /// Inside a number.
    Number,
    /// Inside `true`, `false` or `null`.
    Literal,
    /// After the complete top-level value: whitespace only.
    Done,
}

/// Escape decoding state inside a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Esc {
    /// Plain characters.
    None,
    /// After `\`.
    Backslash,
    /// Reading the four hex digits of `\u`; `high` is a pending high surrogate.
    Hex {
        high: Option<u16>,
        acc: u16,
        digits: u8,
    },
    /// A high surrogate was decoded; waiting for `\` of its low half.
    High(u16),
    /// A high surrogate and `\`; waiting for `u`.
    HighBackslash(u16),
}

/// Where in the number grammar `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?` we are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    Exp,
    ExpSign,
    ExpDigits,
}

/// One open object or array.
#[derive(Clone, Copy, Debug)]
struct Frame {
    is_object: bool,
    /// Members or elements completed so far.
    count: usize,
}

/// Error raised inside a step: byte offset into the current fragment and reason.
type StepError = (usize, String);

/// Bytes that end a run of plain string characters: `"`, `\` and control characters.
const STRING_STOP: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Incremental JSON parser: feed it fragments with [`PartialJson::push`], read the operations
/// each fragment causes, and ask [`PartialJson::state`] whether the text is complete.
#[derive(Clone, Debug)]
pub struct PartialJson {
    state: ParseState,
    mode: Mode,
    /// Open containers, innermost last.
    ctx: Vec<Frame>,
    /// Path of the value being read: one segment per container with a child in progress.
    path: Vec<PathSegment>,
    /// Bytes fed by earlier pushes (to turn fragment offsets into text offsets).
    base: usize,
    root_is_object: bool,
    /// Decoded string text: a key so far, or a string value's text added by this push.
    sbuf: String,
    in_key: bool,
    /// Whether an `Append` was already emitted for the string value being read.
    str_emitted: bool,
    esc: Esc,
    num: Num,
    num_buf: String,
    lit: &'static str,
    lit_pos: usize,
    /// Whether operations are produced; a validator only tracks where the parse stands.
    report: bool,
}

impl Default for PartialJson {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialJson {
    /// A parser that has seen no text yet.
    pub fn new() -> Self {
        PartialJson {
            state: ParseState::InProgress,
            mode: Mode::Value,
            ctx: Vec::new(),
            path: Vec::new(),
            base: 0,
            root_is_object: false,
            sbuf: String::new(),
            in_key: false,
            str_emitted: false,
            esc: Esc::None,
            num: Num::Int,
            num_buf: String::new(),
            lit: "",
            lit_pos: 0,
            report: true,
        }
    }

    /// A parser that only tracks [`state`](Self::state) and [`is_object`](Self::is_object):
    /// `push` produces no operations (and allocates none), so checking whether streamed
    /// arguments are whole costs one linear pass whatever the fragments.
    pub fn validator() -> Self {
        PartialJson {
            report: false,
            ..PartialJson::new()
        }
    }

    /// Feeds the next fragment; appends the operations it causes to `ops`.
    pub fn push(&mut self, fragment: &str, ops: &mut Vec<PartialOp>) {
        if matches!(self.state, ParseState::Invalid { .. }) {
            return;
        }
        let mut i = 0;
        while i < fragment.len() {
            match self.step(fragment, i, ops) {
                Ok(next) => i = next,
                Err((at, reason)) => {
                    self.fail(self.base + at, reason, ops);
                    return;
                }
            }
        }
        self.base += fragment.len();
        self.flush_append(ops);
    }

    /// Whether the text so far is one complete JSON value (followed only by whitespace), still
    /// in progress, or invalid (offset = byte offset into the whole text fed so far).
    pub fn state(&self) -> &ParseState {
        &self.state
    }

    /// True when the completed top-level value is an object.
    pub fn is_object(&self) -> bool {
        self.state == ParseState::Complete && self.root_is_object
    }

    /// Path serialization helper: writes `path` as a compact JSON array (`["content",0,"a"]`) into `out`.
    pub fn write_path_json(path: &[PathSegment], out: &mut String) {
        out.push('[');
        for (n, segment) in path.iter().enumerate() {
            if n > 0 {
                out.push(',');
            }
            match segment {
                PathSegment::Key(key) => push_json_string(out, key),
                PathSegment::Index(index) => out.push_str(&index.to_string()),
            }
        }
        out.push(']');
    }

    /// Consumes at least one byte of `text` from `i`; returns where to continue.
    fn step(&mut self, text: &str, i: usize, ops: &mut Vec<PartialOp>) -> Result<usize, StepError> {
        match self.mode {
            Mode::Str => self.string_step(text, i, ops),
            Mode::Number => self.number_step(text, i, ops),
            Mode::Literal => self.literal_step(text, i, ops),
            _ => self.structural_step(text, i, ops),
        }
    }

    /// Skips whitespace, then handles one structural byte.
    fn structural_step(
        &mut self,
        text: &str,
        mut i: usize,
        ops: &mut Vec<PartialOp>,
    ) -> Result<usize, StepError> {
        let bytes = text.as_bytes();
        while i < bytes.len() && is_ws(bytes[i]) {
            i += 1;
        }
        let Some(&b) = bytes.get(i) else {
            return Ok(i);
        };
        match self.mode {
            Mode::Value => self.start_value(text, i),
            Mode::ArrayFirst => {
                if b == b']' {
                    self.close_container(ops);
                    Ok(i + 1)
                } else {
                    self.path.push(PathSegment::Index(0));
                    self.start_value(text, i)
                }
            }
            Mode::ObjectFirst => match b {
                b'}' => {
                    self.close_container(ops);
                    Ok(i + 1)
                }
                b'"' => Ok(self.start_string(true, i)),
                _ => Err(expected("a key or '}'", text, i)),
            },
            Mode::ObjectKey => match b {
                b'"' => Ok(self.start_string(true, i)),
                _ => Err(expected("a key", text, i)),
            },
            Mode::Colon => match b {
                b':' => {
                    self.mode = Mode::Value;
                    Ok(i + 1)
                }
                _ => Err(expected("':' after the key", text, i)),
            },
            Mode::AfterValue => {
                let Some(frame) = self.ctx.last() else {
                    return Err((i, "internal: value inside no container".to_string()));
                };
                match (frame.is_object, b) {
                    (_, b',') => {
                        if frame.is_object {
                            self.mode = Mode::ObjectKey;
                        } else {
                            self.path.push(PathSegment::Index(frame.count));
                            self.mode = Mode::Value;
                        }
                        Ok(i + 1)
                    }
                    (true, b'}') | (false, b']') => {
                        self.close_container(ops);
                        Ok(i + 1)
                    }
                    (true, _) => Err(expected("',' or '}'", text, i)),
                    (false, _) => Err(expected("',' or ']'", text, i)),
                }
            }
            Mode::Done => Err(expected("only whitespace after the value", text, i)),
            Mode::Str | Mode::Number | Mode::Literal => {
                Err((i, "internal: token mode in structural step".to_string()))
            }
        }
    }

    /// Starts the value whose first (non-whitespace) byte is at `i`.
    fn start_value(&mut self, text: &str, i: usize) -> Result<usize, StepError> {
        let b = text.as_bytes()[i];
        if self.ctx.is_empty() {
            self.root_is_object = b == b'{';
        }
        match b {
            b'{' | b'[' => {
                if self.ctx.len() >= MAX_DEPTH {
                    return Err((i, format!("nesting deeper than {MAX_DEPTH} levels")));
                }
                let is_object = b == b'{';
                self.ctx.push(Frame {
                    is_object,
                    count: 0,
                });
                self.mode = if is_object {
                    Mode::ObjectFirst
                } else {
                    Mode::ArrayFirst
                };
                Ok(i + 1)
            }
            b'"' => Ok(self.start_string(false, i)),
            b'-' | b'0'..=b'9' => {
                self.mode = Mode::Number;
                self.num = match b {
                    b'-' => Num::Minus,
                    b'0' => Num::Zero,
                    _ => Num::Int,
                };
                self.num_buf.clear();
                self.num_buf.push(b as char);
                Ok(i + 1)
            }
            b't' | b'f' | b'n' => {
                self.mode = Mode::Literal;
                self.lit = match b {
                    b't' => "true",
                    b'f' => "false",
                    _ => "null",
                };
                self.lit_pos = 1;
                Ok(i + 1)
            }
            _ => Err(expected("a value", text, i)),
        }
    }

    /// Starts a string (key or value) at its opening quote `i`.
    fn start_string(&mut self, key: bool, i: usize) -> usize {
        self.mode = Mode::Str;
        self.in_key = key;
        self.str_emitted = false;
        self.esc = Esc::None;
        self.sbuf.clear();
        i + 1
    }

    /// Reads string contents from `i`: a run of plain characters, or one special byte.
    fn string_step(
        &mut self,
        text: &str,
        i: usize,
        ops: &mut Vec<PartialOp>,
    ) -> Result<usize, StepError> {
        let bytes = text.as_bytes();
        let b = bytes[i];
        match self.esc {
            Esc::None => {
                let end = bytes[i..]
                    .iter()
                    .position(|&c| STRING_STOP[c as usize])
                    .map_or(bytes.len(), |p| i + p);
                if end > i {
                    // `end` is at an ASCII byte or the end, so both ends are char boundaries.
                    self.sbuf.push_str(&text[i..end]);
                    return Ok(end);
                }
                match b {
                    b'"' => {
                        self.close_string(ops);
                        Ok(i + 1)
                    }
                    b'\\' => {
                        self.esc = Esc::Backslash;
                        Ok(i + 1)
                    }
                    _ => Err((
                        i,
                        format!("expected a string character, found control character U+{b:04X} (it must be escaped)"),
                    )),
                }
            }
            Esc::Backslash => {
                let c = match b {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => {
                        self.esc = Esc::Hex {
                            high: None,
                            acc: 0,
                            digits: 0,
                        };
                        return Ok(i + 1);
                    }
                    _ => return Err(expected("an escape character after '\\'", text, i)),
                };
                self.sbuf.push(c);
                self.esc = Esc::None;
                Ok(i + 1)
            }
            Esc::Hex { high, acc, digits } => {
                let Some(d) = (b as char).to_digit(16) else {
                    return Err(expected("a hex digit in a \\u escape", text, i));
                };
                let acc = (acc << 4) | d as u16;
                if digits < 3 {
                    self.esc = Esc::Hex {
                        high,
                        acc,
                        digits: digits + 1,
                    };
                } else {
                    self.code_unit(high, acc);
                }
                Ok(i + 1)
            }
            Esc::High(high) => {
                if b == b'\\' {
                    self.esc = Esc::HighBackslash(high);
                    Ok(i + 1)
                } else {
                    // Unpaired: replace it and read this byte as a plain string byte.
                    self.sbuf.push(char::REPLACEMENT_CHARACTER);
                    self.esc = Esc::None;
                    Ok(i)
                }
            }
            Esc::HighBackslash(high) => {
                if b == b'u' {
                    self.esc = Esc::Hex {
                        high: Some(high),
                        acc: 0,
                        digits: 0,
                    };
                    Ok(i + 1)
                } else {
                    // Another escape follows an unpaired high surrogate.
                    self.sbuf.push(char::REPLACEMENT_CHARACTER);
                    self.esc = Esc::Backslash;
                    Ok(i)
                }
            }
        }
    }

    /// Handles a decoded `\uXXXX` code unit, given a pending high surrogate.
    fn code_unit(&mut self, high: Option<u16>, unit: u16) {
        if let Some(high) = high {
            if (0xDC00..=0xDFFF).contains(&unit) {
                let code = 0x10000 + (((high as u32) - 0xD800) << 10) + ((unit as u32) - 0xDC00);
                self.sbuf
                    .push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
                self.esc = Esc::None;
                return;
            }
            self.sbuf.push(char::REPLACEMENT_CHARACTER);
        }
        if (0xD800..=0xDBFF).contains(&unit) {
            self.esc = Esc::High(unit);
        } else {
            self.sbuf
                .push(char::from_u32(unit as u32).unwrap_or(char::REPLACEMENT_CHARACTER));
            self.esc = Esc::None;
        }
    }

    /// The closing quote of a string.
    fn close_string(&mut self, ops: &mut Vec<PartialOp>) {
        if self.in_key {
            let key = std::mem::take(&mut self.sbuf);
            self.path.push(PathSegment::Key(key));
            self.mode = Mode::Colon;
            return;
        }
        if !self.report {
            self.sbuf.clear();
        } else if self.str_emitted {
            self.flush_append(ops);
        } else {
            let mut json = String::with_capacity(self.sbuf.len() + 2);
            push_json_string(&mut json, &self.sbuf);
            self.sbuf.clear();
            ops.push(PartialOp::Value {
                path: self.path.clone(),
                json,
            });
        }
        self.value_done();
    }

    /// Emits the characters a string value gained in this push, if any.
    fn flush_append(&mut self, ops: &mut Vec<PartialOp>) {
        if !self.report {
            if !self.in_key {
                self.sbuf.clear();
            }
            return;
        }
        if self.mode == Mode::Str && !self.in_key && !self.sbuf.is_empty() {
            ops.push(PartialOp::Append {
                path: self.path.clone(),
                text: std::mem::take(&mut self.sbuf),
            });
            self.str_emitted = true;
        }
    }

    /// Reads number characters from `i`, or completes the number at a delimiter.
    fn number_step(
        &mut self,
        text: &str,
        i: usize,
        ops: &mut Vec<PartialOp>,
    ) -> Result<usize, StepError> {
        let bytes = text.as_bytes();
        let mut j = i;
        while j < bytes.len() {
            let b = bytes[j];
            let next = match (self.num, b) {
                (Num::Minus, b'0') => Num::Zero,
                (Num::Minus, b'1'..=b'9') => Num::Int,
                (Num::Int, b'0'..=b'9') => Num::Int,
                (Num::Zero | Num::Int, b'.') => Num::Dot,
                (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
                (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::Exp,
                (Num::Exp, b'+' | b'-') => Num::ExpSign,
                (Num::Exp | Num::ExpSign | Num::ExpDigits, b'0'..=b'9') => Num::ExpDigits,
                _ => break,
            };
            self.num = next;
            j += 1;
        }
        self.num_buf.push_str(&text[i..j]);
        let Some(&b) = bytes.get(j) else {
            return Ok(j);
        };
        let complete = matches!(self.num, Num::Zero | Num::Int | Num::Frac | Num::ExpDigits);
        if complete && (is_ws(b) || matches!(b, b',' | b'}' | b']')) {
            if self.report {
                ops.push(PartialOp::Value {
                    path: self.path.clone(),
                    json: std::mem::take(&mut self.num_buf),
                });
            } else {
                self.num_buf.clear();
            }
            self.value_done();
            return Ok(j);
        }
        let wanted = match self.num {
            Num::Minus => "a digit after '-'",
            Num::Zero => "'.', 'e' or a delimiter after a leading '0'",
            Num::Int => "a digit, '.', 'e' or a delimiter in the number",
            Num::Dot => "a digit after '.'",
            Num::Frac => "a digit, 'e' or a delimiter in the number",
            Num::Exp => "a sign or a digit in the exponent",
            Num::ExpSign => "a digit in the exponent",
            Num::ExpDigits => "a digit or a delimiter in the number",
        };
        Err(expected(wanted, text, j))
    }

    /// Matches the rest of `true`, `false` or `null` from `i`.
    fn literal_step(
        &mut self,
        text: &str,
        mut i: usize,
        ops: &mut Vec<PartialOp>,
    ) -> Result<usize, StepError> {
        let bytes = text.as_bytes();
        let lit = self.lit.as_bytes();
        while i < bytes.len() && self.lit_pos < lit.len() {
            if bytes[i] != lit[self.lit_pos] {
                let wanted = format!("'{}' to continue '{}'", lit[self.lit_pos] as char, self.lit);
                return Err(expected(&wanted, text, i));
            }
            i += 1;
            self.lit_pos += 1;
        }
        if self.lit_pos == lit.len() {
            if self.report {
                ops.push(PartialOp::Value {
                    path: self.path.clone(),
                    json: self.lit.to_string(),
                });
            }
            self.value_done();
        }
        Ok(i)
    }

    /// Closes the innermost container (its closer was just read).
    fn close_container(&mut self, ops: &mut Vec<PartialOp>) {
        let Some(frame) = self.ctx.pop() else {
            return;
        };
        if frame.count == 0 && self.report {
            ops.push(PartialOp::Value {
                path: self.path.clone(),
                json: if frame.is_object { "{}" } else { "[]" }.to_string(),
            });
        }
        self.value_done();
    }

    /// A value just ended: step out of it into its container, or finish the text.
    fn value_done(&mut self) {
        match self.ctx.last_mut() {
            Some(frame) => {
                frame.count += 1;
                self.path.pop();
                self.mode = Mode::AfterValue;
            }
            None => {
                self.mode = Mode::Done;
                self.state = ParseState::Complete;
            }
        }
    }

    /// Makes the parse invalid for good and frees what it held.
    fn fail(&mut self, offset: usize, reason: String, ops: &mut Vec<PartialOp>) {
        self.flush_append(ops);
        self.state = ParseState::Invalid { offset, reason };
        self.ctx = Vec::new();
        self.path = Vec::new();
        self.sbuf = String::new();
        self.num_buf = String::new();
    }
}

/// JSON whitespace.
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The error "expected `wanted`, found <the character at `i`>".
fn expected(wanted: &str, text: &str, i: usize) -> StepError {
    let found = match text.get(i..).and_then(|rest| rest.chars().next()) {
        Some(c) if c.is_control() => format!("control character U+{:04X}", c as u32),
        Some(c) => format!("'{c}'"),
        None => match text.as_bytes().get(i) {
            Some(b) => format!("byte 0x{b:02X}"),
            None => "the end of the fragment".to_string(),
        },
    };
    (i, format!("expected {wanted}, found {found}"))
}

/// The value a stream of [`PartialOp`]s describes, kept up to date as they arrive: the Rust
/// side of a live partial object.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PartialValue {
    root: Option<serde_json::Value>,
}

impl PartialValue {
    /// Nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value so far (`None` before the first op).
    pub fn value(&self) -> Option<&serde_json::Value> {
        self.root.as_ref()
    }

    /// The value so far, taken.
    pub fn into_value(self) -> Option<serde_json::Value> {
        self.root
    }

    /// Applies one op. The ops of one [`PartialJson`] always fit; an op that does not (an
    /// index that skips ahead, an append onto a value that is not a string, JSON text that does
    /// not parse) is an error naming it, and the value is left as it was before the op's leaf.
    pub fn apply(&mut self, op: &PartialOp) -> std::result::Result<(), String> {
        use serde_json::Value;
        match op {
            PartialOp::Append { path, text } => {
                let slot = self.slot(path)?;
                match slot {
                    Value::String(s) => s.push_str(text),
                    Value::Null => *slot = Value::String(text.clone()),
                    other => return Err(format!("append at {path:?} onto {other}")),
                }
            }
            PartialOp::Value { path, json } => {
                let parsed: Value = serde_json::from_str(json)
                    .map_err(|e| format!("value at {path:?}: {json:?} does not parse: {e}"))?;
                *self.slot(path)? = parsed;
            }
        }
        Ok(())
    }

    /// The place `path` names, made (as objects, arrays and nulls) where it does not exist yet.
    fn slot(
        &mut self,
        path: &[PathSegment],
    ) -> std::result::Result<&mut serde_json::Value, String> {
        use serde_json::Value;
        let mut cur = self.root.get_or_insert(Value::Null);
        for segment in path {
            cur = match segment {
                PathSegment::Key(k) => {
                    if !cur.is_object() {
                        *cur = Value::Object(serde_json::Map::new());
                    }
                    let Value::Object(map) = cur else {
                        unreachable!("just made an object")
                    };
                    map.entry(k.clone()).or_insert(Value::Null)
                }
                PathSegment::Index(n) => {
                    if !cur.is_array() {
                        *cur = Value::Array(Vec::new());
                    }
                    let Value::Array(array) = cur else {
                        unreachable!("just made an array")
                    };
                    if *n > array.len() {
                        return Err(format!(
                            "index {n} in {path:?} skips ahead of {}",
                            array.len()
                        ));
                    }
                    if *n == array.len() {
                        array.push(Value::Null);
                    }
                    &mut array[*n]
                }
            };
        }
        Ok(cur)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Map, Number, Value};

    fn key(k: &str) -> PathSegment {
        PathSegment::Key(k.to_string())
    }

    fn idx(n: usize) -> PathSegment {
        PathSegment::Index(n)
    }

    fn value(path: Vec<PathSegment>, json: &str) -> PartialOp {
        PartialOp::Value {
            path,
            json: json.to_string(),
        }
    }

    fn append(path: Vec<PathSegment>, text: &str) -> PartialOp {
        PartialOp::Append {
            path,
            text: text.to_string(),
        }
    }

    /// Feeds `fragments` in order; returns the parser and the ops of each push.
    fn feed_each(fragments: &[&str]) -> (PartialJson, Vec<Vec<PartialOp>>) {
        let mut parser = PartialJson::new();
        let mut all = Vec::new();
        for fragment in fragments {
            let mut ops = Vec::new();
            parser.push(fragment, &mut ops);
            all.push(ops);
        }
        (parser, all)
    }

    /// Feeds `fragments` in order; returns the parser and all ops.
    fn feed(fragments: &[&str]) -> (PartialJson, Vec<PartialOp>) {
        let (parser, all) = feed_each(fragments);
        (parser, all.into_iter().flatten().collect())
    }

    /// The consumer side: builds a value from ops, checking they are well formed (no empty
    /// append, strings and empty objects in their compact form).
    #[derive(Default)]
    struct Builder {
        value: PartialValue,
    }

    impl Builder {
        fn apply(&mut self, op: &PartialOp) {
            match op {
                PartialOp::Append { path, text } => {
                    assert!(!text.is_empty(), "empty Append at {path:?}")
                }
                PartialOp::Value { json, .. } => {
                    let parsed: Value = serde_json::from_str(json).unwrap();
                    if parsed.is_string() || parsed == Value::Object(Map::new()) {
                        assert_eq!(&serde_json::to_string(&parsed).unwrap(), json);
                    }
                }
            }
            self.value.apply(op).unwrap_or_else(|e| panic!("{e}"));
        }
    }

    fn build(ops: &[PartialOp]) -> Option<Value> {
        let mut builder = Builder::default();
        for op in ops {
            builder.apply(op);
        }
        builder.value.into_value()
    }

    #[test]
    fn whole_object_reports_leaves_at_their_paths() {
        let (parser, ops) = feed(&[r#"{"a":[1,{"b":"x"}]}"#]);
        assert_eq!(
            ops,
            vec![
                value(vec![key("a"), idx(0)], "1"),
                value(vec![key("a"), idx(1), key("b")], "\"x\""),
            ]
        );
        assert_eq!(parser.state(), &ParseState::Complete);
        assert!(parser.is_object());
    }

    #[test]
    fn string_growing_over_pushes_emits_one_append_per_push() {
        let (parser, ops) = feed_each(&[r#"{"s":"hel"#, "lo wor", r#"ld"}"#]);
        let p = || vec![key("s")];
        assert_eq!(
            ops,
            vec![
                vec![append(p(), "hel")],
                vec![append(p(), "lo wor")],
                vec![append(p(), "ld")],
            ]
        );
        assert_eq!(parser.state(), &ParseState::Complete);
    }

    #[test]
    fn closing_push_without_new_characters_emits_nothing_for_the_string() {
        let (_, ops) = feed_each(&[r#"{"s":"ab"#, r#""}"#]);
        assert_eq!(ops, vec![vec![append(vec![key("s")], "ab")], vec![]]);
    }

    #[test]
    fn string_without_earlier_characters_closes_with_a_value() {
        // Only the opening quote in the first push.
        let (_, ops) = feed_each(&[r#"{"s":""#, r#"abc"}"#]);
        assert_eq!(ops, vec![vec![], vec![value(vec![key("s")], "\"abc\"")]]);
        // Only an incomplete escape in the first push.
        let (_, ops) = feed_each(&[r#"["\ud83d"#, r#"\ude00"]"#]);
        assert_eq!(ops, vec![vec![], vec![value(vec![idx(0)], "\"😀\"")]]);
    }

    #[test]
    fn empty_string_is_always_a_value() {
        let (parser, ops) = feed(&[r#""""#]);
        assert_eq!(ops, vec![value(vec![], "\"\"")]);
        assert_eq!(parser.state(), &ParseState::Complete);
        let (_, ops) = feed_each(&[r#"{"a":""#, r#""}"#]);
        assert_eq!(ops, vec![vec![], vec![value(vec![key("a")], "\"\"")]]);
    }

    #[test]
    fn empty_containers_are_values_and_full_ones_are_implicit() {
        let (parser, ops) = feed(&["{ }"]);
        assert_eq!(ops, vec![value(vec![], "{}")]);
        assert!(parser.is_object());
        let (parser, ops) = feed(&["[", "\n ", "]"]);
        assert_eq!(ops, vec![value(vec![], "[]")]);
        assert!(!parser.is_object());
        assert_eq!(parser.state(), &ParseState::Complete);
        let (_, ops) = feed(&[r#"{"a":{},"b":[[]],"c":[{}]}"#]);
        assert_eq!(
            ops,
            vec![
                value(vec![key("a")], "{}"),
                value(vec![key("b"), idx(0)], "[]"),
                value(vec![key("c"), idx(0)], "{}"),
            ]
        );
    }

    #[test]
    fn escapes_split_across_fragments_decode() {
        let (_, ops) = feed_each(&[r#"["a\"#, r#"nb\"#, r#"""#, r#"c\u00"#, "e9", r#"\/"]"#]);
        let p = || vec![idx(0)];
        assert_eq!(
            ops,
            vec![
                vec![append(p(), "a")],
                vec![append(p(), "\nb")],
                vec![append(p(), "\"")],
                vec![append(p(), "c")],
                vec![append(p(), "é")],
                vec![append(p(), "/")],
            ]
        );
        // The high surrogate is held back until its low half arrives.
        let (_, ops) = feed_each(&[r#"["x\ud83d"#, r#"\ude"#, r#"00y"]"#]);
        assert_eq!(
            ops,
            vec![vec![append(p(), "x")], vec![], vec![append(p(), "😀y")]]
        );
        let (_, ops) = feed(&[r#""\b\f\r\t\\\u0041""#]);
        assert_eq!(ops, vec![value(vec![], r#""\b\f\r\t\\A""#)]);
    }

    #[test]
    fn unpaired_surrogates_become_replacement_characters() {
        let cases = [
            (r#""\ud800x""#, "\u{fffd}x"),
            (r#""\udc00""#, "\u{fffd}"),
            (r#""\ud800""#, "\u{fffd}"),
            (r#""\ud800\u0041""#, "\u{fffd}A"),
            (r#""\ud800\n""#, "\u{fffd}\n"),
            (r#""\ud800\ud83d\ude00""#, "\u{fffd}😀"),
            (r#""\ud800\ud800""#, "\u{fffd}\u{fffd}"),
        ];
        for (text, decoded) in cases {
            for split in 0..=text.len() {
                let (parser, ops) = feed(&[&text[..split], &text[split..]]);
                assert_eq!(parser.state(), &ParseState::Complete, "{text}");
                assert_eq!(
                    build(&ops),
                    Some(Value::String(decoded.to_string())),
                    "{text} split at {split}"
                );
            }
        }
    }

    #[test]
    fn keys_are_buffered_and_decoded() {
        let (_, ops) = feed_each(&[r#"{"ke"#, r#"y\n\u00"#, r#"e9":1 "#, r#", "k2""#, ":true}"]);
        assert_eq!(
            ops,
            vec![
                vec![],
                vec![],
                vec![value(vec![key("key\né")], "1")],
                vec![],
                vec![value(vec![key("k2")], "true")],
            ]
        );
    }

    #[test]
    fn numbers_need_a_delimiter_and_keep_their_text() {
        let (parser, ops) = feed(&["12", "3"]);
        assert!(ops.is_empty());
        assert_eq!(parser.state(), &ParseState::InProgress);
        let (parser, ops) = feed(&["12", "3", " \n"]);
        assert_eq!(ops, vec![value(vec![], "123")]);
        assert_eq!(parser.state(), &ParseState::Complete);
        assert!(!parser.is_object());
        let (_, ops) = feed(&["[-0,1.5E+3,", "2e-0", "7, 0.25 ,-1]"]);
        let jsons: Vec<_> = ops
            .iter()
            .map(|op| match op {
                PartialOp::Value { json, .. } => json.as_str(),
                PartialOp::Append { .. } => panic!("append"),
            })
            .collect();
        assert_eq!(jsons, ["-0", "1.5E+3", "2e-07", "0.25", "-1"]);
    }

    #[test]
    fn literals_are_values() {
        let (parser, ops) = feed(&["[t", "ru", "e,fals", "e,n", "ull]"]);
        assert_eq!(
            ops,
            vec![
                value(vec![idx(0)], "true"),
                value(vec![idx(1)], "false"),
                value(vec![idx(2)], "null"),
            ]
        );
        assert_eq!(parser.state(), &ParseState::Complete);
        let (parser, ops) = feed(&["null"]);
        assert_eq!(ops, vec![value(vec![], "null")]);
        assert_eq!(parser.state(), &ParseState::Complete);
    }

    fn invalid(parser: &PartialJson) -> (usize, String) {
        match parser.state() {
            ParseState::Invalid { offset, reason } => (*offset, reason.clone()),
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[test]
    fn invalid_inputs_report_offset_and_reason() {
        let cases: &[(&[&str], usize, &str)] = &[
            (&[r#"{"a":}"#], 5, "expected a value, found '}'"),
            (&[r#"{"a" 1}"#], 5, "expected ':' after the key, found '1'"),
            (&["]"], 0, "expected a value, found ']'"),
            (
                &["  tru", "x"],
                5,
                "expected 'e' to continue 'true', found 'x'",
            ),
            (&["[\"a\nb\"]"], 3, "control character U+000A"),
            (
                &["{} {}"],
                3,
                "expected only whitespace after the value, found '{'",
            ),
            (
                &["[1]", "x"],
                3,
                "expected only whitespace after the value, found 'x'",
            ),
            (&["[1,]"], 3, "expected a value, found ']'"),
            (&[r#"{"a":1,}"#], 7, "expected a key, found '}'"),
            (&["{1:2}"], 1, "expected a key or '}', found '1'"),
            (&["[1}"], 2, "expected ',' or ']', found '}'"),
            (&[r#"{"a":1]"#], 6, "expected ',' or '}', found ']'"),
            (&["01"], 1, "after a leading '0', found '1'"),
            (&["[1.]"], 3, "expected a digit after '.', found ']'"),
            (&["[-", "x]"], 2, "expected a digit after '-', found 'x'"),
            (
                &["[1e]"],
                3,
                "expected a sign or a digit in the exponent, found ']'",
            ),
            (
                &["[1e+", "]"],
                4,
                "expected a digit in the exponent, found ']'",
            ),
            (&["[1x]"], 2, "found 'x'"),
            (&["+1"], 0, "expected a value, found '+'"),
            (&[".5"], 0, "expected a value, found '.'"),
            (
                &[r#""\x""#],
                2,
                "expected an escape character after '\\', found 'x'",
            ),
            (
                &[r#""\u12g4""#],
                5,
                "expected a hex digit in a \\u escape, found 'g'",
            ),
            (&["[é]"], 1, "expected a value, found 'é'"),
            (
                &["\u{0}"],
                0,
                "expected a value, found control character U+0000",
            ),
        ];
        for (fragments, offset, reason) in cases {
            let (parser, _) = feed(fragments);
            let (got_offset, got_reason) = invalid(&parser);
            assert_eq!(got_offset, *offset, "{fragments:?}: {got_reason}");
            assert!(
                got_reason.contains(reason),
                "{fragments:?}: {got_reason:?} lacks {reason:?}"
            );
            assert!(!parser.is_object());
        }
    }

    #[test]
    fn after_an_error_nothing_is_emitted() {
        let mut parser = PartialJson::new();
        let mut ops = Vec::new();
        parser.push(r#"{"a":1,"b":"xy"#, &mut ops);
        parser.push("z\u{1}", &mut ops);
        // The characters before the error are still reported.
        assert_eq!(
            ops,
            vec![
                value(vec![key("a")], "1"),
                append(vec![key("b")], "xy"),
                append(vec![key("b")], "z"),
            ]
        );
        let before = parser.state().clone();
        assert_eq!(invalid(&parser).0, 15);
        ops.clear();
        parser.push(r#"","c":[1,2,3]}"#, &mut ops);
        assert!(ops.is_empty());
        assert_eq!(parser.state(), &before);
    }

    #[test]
    fn nesting_is_limited_to_512_levels() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        let (parser, ops) = feed(&[&ok]);
        assert_eq!(parser.state(), &ParseState::Complete);
        assert_eq!(ops, vec![value(vec![idx(0); MAX_DEPTH - 1], "[]")]);

        let deep = r#"{"a":"#.repeat(MAX_DEPTH) + "[";
        let (parser, _) = feed(&[&deep]);
        let (offset, reason) = invalid(&parser);
        assert_eq!(offset, deep.len() - 1);
        assert_eq!(reason, "nesting deeper than 512 levels");

        // Hostile input stays bounded and fails fast.
        let (parser, _) = feed(&[&"[".repeat(100_000)]);
        assert_eq!(invalid(&parser).0, MAX_DEPTH);
    }

    #[test]
    fn whitespace_around_the_value_is_allowed() {
        let (parser, ops) = feed(&[" \n\t\r", r#" { "a" : [ 1 , "x" ] } "#, "\n "]);
        assert_eq!(parser.state(), &ParseState::Complete);
        assert!(parser.is_object());
        assert_eq!(build(&ops), Some(serde_json::json!({"a": [1, "x"]})));
        let (parser, _) = feed(&["   "]);
        assert_eq!(parser.state(), &ParseState::InProgress);
    }

    #[test]
    fn is_object_only_for_a_completed_object() {
        let (parser, _) = feed(&[r#"{"a":1"#]);
        assert!(!parser.is_object());
        let (parser, _) = feed(&[r#"{"a":1}"#]);
        assert!(parser.is_object());
        let (parser, _) = feed(&["[{}]"]);
        assert!(!parser.is_object());
        let (parser, _) = feed(&[r#""{}""#]);
        assert!(!parser.is_object());
    }

    #[test]
    fn write_path_json_is_compact_json() {
        let mut out = String::new();
        PartialJson::write_path_json(&[key("content"), idx(0), key("a")], &mut out);
        assert_eq!(out, r#"["content",0,"a"]"#);
        out.clear();
        PartialJson::write_path_json(&[], &mut out);
        assert_eq!(out, "[]");
        out.clear();
        PartialJson::write_path_json(&[key("q\"\\\n\u{1}é"), idx(12)], &mut out);
        let parsed: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(parsed, serde_json::json!(["q\"\\\n\u{1}é", 12]));
    }

    #[test]
    fn megabyte_string_in_ten_byte_fragments() {
        let unit = "Lorem ipsum \"dolor\" sit amet,\n\tconsectetur \\ é 😀 ∑ adipiscing.\u{1} ";
        let mut content = String::new();
        while content.len() < 1 << 20 {
            content.push_str(unit);
        }
        let text = serde_json::to_string(&serde_json::json!({ "content": content })).unwrap();
        let mut parser = PartialJson::new();
        let mut ops = Vec::new();
        let mut start = 0;
        while start < text.len() {
            let mut end = (start + 10).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            parser.push(&text[start..end], &mut ops);
            start = end;
        }
        assert_eq!(parser.state(), &ParseState::Complete);
        let mut got = String::new();
        for op in &ops {
            match op {
                PartialOp::Append { path, text } => {
                    assert_eq!(path, &[key("content")]);
                    got.push_str(text);
                }
                PartialOp::Value { .. } => panic!("unexpected {op:?}"),
            }
        }
        assert_eq!(got, content);
    }

    // ---- property tests ----

    fn arb_string() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z]{0,6}",
            prop::collection::vec(
                prop_oneof![
                    any::<char>(),
                    Just('"'),
                    Just('\\'),
                    Just('/'),
                    Just('\n'),
                    Just('\u{1}'),
                    Just('é'),
                    Just('😀'),
                    Just('\u{ffff}'),
                ],
                0..10,
            )
            .prop_map(|chars| chars.into_iter().collect()),
        ]
    }

    fn arb_number() -> impl Strategy<Value = Value> {
        prop_oneof![
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
            (-1000i32..1000, 0u32..4).prop_map(|(m, e)| {
                Number::from_f64(m as f64 / 10f64.powi(e as i32)).map_or(Value::Null, Value::Number)
            }),
        ]
    }

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            arb_number(),
            arb_string().prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((arb_string(), inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    /// Serializes with extra whitespace and every non-ASCII character (and `/`, and with
    /// `escape_all` every character) written as `\uXXXX` escapes, surrogate pairs included.
    fn write_escaped(v: &Value, escape_all: bool, out: &mut String) {
        fn string(s: &str, escape_all: bool, out: &mut String) {
            out.push('"');
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '/' => out.push_str("\\/"),
                    '\n' => out.push_str("\\n"),
                    c if escape_all || !(' '..='~').contains(&c) => {
                        let mut units = [0u16; 2];
                        for unit in c.encode_utf16(&mut units) {
                            out.push_str(&format!("\\u{unit:04X}"));
                        }
                    }
                    c => out.push(c),
                }
            }
            out.push('"');
        }
        match v {
            Value::String(s) => string(s, escape_all, out),
            Value::Array(items) => {
                out.push_str("[ ");
                for (n, item) in items.iter().enumerate() {
                    if n > 0 {
                        out.push_str(" ,\r\n");
                    }
                    write_escaped(item, escape_all, out);
                }
                out.push_str("\t]");
            }
            Value::Object(members) => {
                out.push_str("{\n");
                for (n, (k, item)) in members.iter().enumerate() {
                    if n > 0 {
                        out.push_str(", ");
                    }
                    string(k, escape_all, out);
                    out.push_str(" : ");
                    write_escaped(item, escape_all, out);
                }
                out.push_str(" }");
            }
            other => out.push_str(&other.to_string()),
        }
    }

    fn render(v: &Value, style: u8) -> String {
        match style {
            0 => serde_json::to_string(v).unwrap(),
            1 => serde_json::to_string_pretty(v).unwrap(),
            _ => {
                let mut out = String::from(" \n");
                write_escaped(v, style == 3, &mut out);
                out
            }
        }
    }

    /// Splits `text` at the given points, moved down to char boundaries (empty pieces kept).
    fn split(text: &str, points: &[prop::sample::Index]) -> Vec<String> {
        let mut cuts: Vec<usize> = points
            .iter()
            .map(|p| {
                let mut at = p.index(text.len() + 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                at
            })
            .collect();
        cuts.sort_unstable();
        let mut pieces = Vec::new();
        let mut start = 0;
        for cut in cuts {
            pieces.push(text[start..cut].to_string());
            start = cut;
        }
        pieces.push(text[start..].to_string());
        pieces
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn ops_rebuild_the_parsed_value_whatever_the_splits(
            v in arb_json(),
            style in 0u8..4,
            points in prop::collection::vec(any::<prop::sample::Index>(), 0..24),
        ) {
            let text = render(&v, style);
            let expected: Value = serde_json::from_str(&text).unwrap();
            let mut parser = PartialJson::new();
            let mut builder = Builder::default();
            for piece in split(&text, &points) {
                let mut ops = Vec::new();
                parser.push(&piece, &mut ops);
                let mut append_paths = Vec::new();
                for op in &ops {
                    if let PartialOp::Append { path, .. } = op {
                        prop_assert!(!append_paths.contains(path), "two appends for one string in a push");
                        append_paths.push(path.clone());
                    }
                    builder.apply(op);
                }
            }
            if expected.is_number() {
                prop_assert_eq!(parser.state(), &ParseState::InProgress);
            } else {
                prop_assert_eq!(parser.state(), &ParseState::Complete);
            }
            let mut ops = Vec::new();
            parser.push(" \n", &mut ops);
            for op in &ops {
                builder.apply(op);
            }
            prop_assert_eq!(parser.state(), &ParseState::Complete);
            prop_assert_eq!(parser.is_object(), expected.is_object());
            prop_assert_eq!(builder.value.into_value(), Some(expected));
        }

        #[test]
        fn a_validator_agrees_with_the_reporting_parser_and_reports_nothing(
            v in arb_json(),
            style in 0u8..4,
            cut in any::<prop::sample::Index>(),
            points in prop::collection::vec(any::<prop::sample::Index>(), 0..24),
        ) {
            // Valid text, and the same text cut short or with a byte dropped (often invalid).
            let text = render(&v, style);
            let chars: Vec<char> = text.chars().collect();
            let at = cut.index(chars.len().max(1));
            let shortened: String = chars[..at].iter().collect();
            let dropped: String = chars.iter().enumerate().filter(|(i, _)| *i != at).map(|(_, c)| c).collect();
            for text in [text, shortened, dropped] {
                let mut parser = PartialJson::new();
                let mut validator = PartialJson::validator();
                let mut none = Vec::new();
                for piece in split(&text, &points) {
                    parser.push(&piece, &mut Vec::new());
                    validator.push(&piece, &mut none);
                    prop_assert_eq!(validator.state(), parser.state());
                }
                validator.push(" ", &mut none);
                prop_assert!(none.is_empty(), "a validator produced {:?}", none);
                parser.push(" ", &mut Vec::new());
                prop_assert_eq!(validator.state(), parser.state());
                prop_assert_eq!(validator.is_object(), parser.is_object());
            }
        }

        #[test]
        fn char_by_char_feeding_rebuilds_the_value(v in arb_json(), style in 0u8..4) {
            let text = render(&v, style) + " ";
            let expected: Value = serde_json::from_str(&text).unwrap();
            let mut parser = PartialJson::new();
            let mut ops = Vec::new();
            let mut buf = [0u8; 4];
            for c in text.chars() {
                parser.push(c.encode_utf8(&mut buf), &mut ops);
            }
            prop_assert_eq!(parser.state(), &ParseState::Complete);
            prop_assert_eq!(build(&ops), Some(expected));
        }

        #[test]
        fn random_text_never_panics_and_agrees_with_serde_json(
            text in r#"[\[\]{}:,"\\ \n0-9eE.+\-truefalsnbu/é😀\x00-\x1f]{0,64}"#,
            points in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
        ) {
            let mut parser = PartialJson::new();
            let mut ops = Vec::new();
            for piece in split(&text, &points) {
                parser.push(&piece, &mut ops);
            }
            parser.push(" ", &mut ops);
            let serde: Result<Value, _> = serde_json::from_str(&text);
            if let Err(e) = &serde {
                prop_assume!(!e.to_string().contains("out of range"));
            }
            prop_assert_eq!(
                serde.is_ok(),
                parser.state() == &ParseState::Complete,
                "serde {:?} vs {:?}", serde, parser.state()
            );
            if let Ok(value) = serde {
                prop_assert_eq!(parser.is_object(), value.is_object());
            }
        }

        #[test]
        fn mutated_json_agrees_with_serde_json(
            v in arb_json(),
            style in 0u8..4,
            edits in prop::collection::vec(
                (any::<prop::sample::Index>(), prop::sample::select(vec![
                    "", "\"", "\\", ",", ":", "{", "}", "[", "]", "0", "-", ".", "e", "x", " ",
                    "\n", "\u{1}", "\\u", "\\ud83d", "t", "n", "1e999",
                ])),
                1..4,
            ),
            points in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
        ) {
            // Replace one character at each edit point (an empty replacement deletes it).
            let mut text = render(&v, style);
            for (at, with) in &edits {
                let mut start = at.index(text.len() + 1);
                while !text.is_char_boundary(start) {
                    start -= 1;
                }
                let end = text[start..].chars().next().map_or(start, |c| start + c.len_utf8());
                text.replace_range(start..end, with);
            }
            let serde: Result<Value, _> = serde_json::from_str(&text);
            if let Err(e) = &serde {
                let e = e.to_string();
                // Unpaired surrogates decode to U+FFFD here by design; serde_json refuses them.
                prop_assume!(
                    !e.contains("out of range")
                        && !e.contains("surrogate")
                        && !e.contains("end of hex escape")
                );
            }
            let mut parser = PartialJson::new();
            let mut ops = Vec::new();
            for piece in split(&text, &points) {
                parser.push(&piece, &mut ops);
            }
            parser.push(" ", &mut ops);
            prop_assert_eq!(
                serde.is_ok(),
                parser.state() == &ParseState::Complete,
                "{:?}: serde {:?} vs {:?}", text, serde, parser.state()
            );
            if let Ok(value) = serde {
                prop_assert_eq!(parser.is_object(), value.is_object());
            }
        }

        #[test]
        fn arbitrary_strings_never_panic(
            text in any::<String>(),
            points in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
        ) {
            let mut parser = PartialJson::new();
            let mut ops = Vec::new();
            for piece in split(&text, &points) {
                parser.push(&piece, &mut ops);
            }
            let _ = parser.state();
        }
    }
}
