//! Reading one JSONL file of the audit log line by line, telling a partial final line (a write
//! cut short by a crash) from a malformed line in the middle.

use std::io::{self, BufRead};

use serde_json::Value;

/// How a JSONL file ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tail {
    /// The file is empty or its last line ends with `\n`.
    Terminated,
    /// The last line has no `\n` but parses: a whole record, missing only its newline.
    UnterminatedRecord,
    /// The last line has no `\n` and does not parse: a write cut short. It starts at byte
    /// `offset` and is `len` bytes long; it is not passed to the line callback.
    Partial {
        /// Where the partial line starts.
        offset: u64,
        /// Its length in bytes.
        len: u64,
    },
}

/// Reads `input` line by line, calling `on_line(number, parsed)` for every non-blank line
/// (numbers from 1) except a partial final line, which is reported in the returned [`Tail`].
/// `parsed` is the value or serde_json's message for a line that does not parse.
///
/// Lines are read one at a time into one reused buffer, so memory follows the longest line, not
/// the file.
pub fn scan_jsonl<R: BufRead>(
    mut input: R,
    mut on_line: impl FnMut(usize, Result<Value, String>),
) -> io::Result<Tail> {
    let mut line = Vec::new();
    let mut number = 0;
    let mut offset: u64 = 0;
    loop {
        line.clear();
        let read = input.read_until(b'\n', &mut line)?;
        if read == 0 {
            return Ok(Tail::Terminated);
        }
        number += 1;
        let start = offset;
        offset += read as u64;
        let terminated = line.last() == Some(&b'\n');
        let text = if terminated {
            &line[..line.len() - 1]
        } else {
            &line[..]
        };
        if text.iter().all(u8::is_ascii_whitespace) && terminated {
            continue;
        }
        let parsed = serde_json::from_slice::<Value>(text).map_err(|e| e.to_string());
        if terminated {
            on_line(number, parsed);
            continue;
        }
        return Ok(match parsed {
            Ok(value) => {
                on_line(number, Ok(value));
                Tail::UnterminatedRecord
            }
            Err(_) => Tail::Partial {
                offset: start,
                len: read as u64,
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line numbers seen with whether each parsed, and the tail.
    type Scanned = (Vec<(usize, bool)>, Tail);

    fn scan(text: &[u8]) -> Scanned {
        let mut seen = Vec::new();
        let tail = scan_jsonl(text, |n, parsed| seen.push((n, parsed.is_ok()))).unwrap();
        (seen, tail)
    }

    #[test]
    fn tells_partial_tails_from_malformed_middles() {
        let cases: [(&[u8], Scanned); 7] = [
            (b"", (vec![], Tail::Terminated)),
            (
                b"{}\n{\"a\":1}\n",
                (vec![(1, true), (2, true)], Tail::Terminated),
            ),
            (
                b"{}\n{\"a\":",
                (vec![(1, true)], Tail::Partial { offset: 3, len: 5 }),
            ),
            (
                b"{}\n{\"a\":1}",
                (vec![(1, true), (2, true)], Tail::UnterminatedRecord),
            ),
            (
                b"{}\nnope\n{}\n",
                (vec![(1, true), (2, false), (3, true)], Tail::Terminated),
            ),
            (
                b"{}\n\n  \n{}\n",
                (vec![(1, true), (4, true)], Tail::Terminated),
            ),
            (
                b"{\"a\":\"\xc3",
                (vec![], Tail::Partial { offset: 0, len: 7 }),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(scan(text), expected, "{:?}", String::from_utf8_lossy(text));
        }
    }
}
