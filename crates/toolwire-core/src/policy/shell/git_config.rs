//! Git configuration files read exactly as git's `config.c` (`git_parse_source`, git 2.47)
//! reads them, so the analysis sees every key git will: a UTF-8 byte-order mark at the start is
//! skipped, `\r\n` ends a line, `#` and `;` start comments, section headers are `[section]`,
//! `[section "subsection"]` (the subsection quoted, `\` escaping any character, `]` and spaces
//! allowed inside) or the old `[section.subsection]`, a key may follow its header on the same
//! line, and a value may be quoted, escaped (`\n`, `\t`, `\b`, `\\`, `\"`) and continued on the
//! next line by a `\` at the end. Whatever git would reject is an error here too (git refuses
//! to run with such a file). Linear in the file.

/// One `section[.subsection].key = value` entry as git reads it: the section and key in lower
/// case, the subsection as written (case kept), the value unquoted (`None`: a key without `=`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The section, in lower case.
    pub section: String,
    /// The subsection, if any (`[diff "x"]`, `[diff.x]`).
    pub subsection: Option<String>,
    /// The key, in lower case.
    pub key: String,
    /// The value as git reads it.
    pub value: Option<String>,
}

/// Git's `isspace` (`sane_ctype`): space, tab, newline and carriage return only.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// Git's `iskeychar`.
fn is_key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

/// The bytes of a file as git's `get_next_char` hands them: `\r\n` is one `\n`, and the end of
/// the file reads as a final `\n` (`eof` is then set).
struct Source<'a> {
    bytes: &'a [u8],
    at: usize,
    line: usize,
    eof: bool,
}

impl Source<'_> {
    fn next(&mut self) -> u8 {
        let Some(&c) = self.bytes.get(self.at) else {
            self.eof = true;
            return b'\n';
        };
        self.at += 1;
        if c == b'\r' && self.bytes.get(self.at) == Some(&b'\n') {
            self.at += 1;
            self.line += 1;
            return b'\n';
        }
        if c == b'\n' {
            self.line += 1;
        }
        c
    }

    /// An error naming the line git would stop at.
    fn error(&self, what: &str) -> String {
        format!("line {}: {what}", self.line + 1)
    }
}

/// A section header after its `[` (`get_base_var`): the name in lower case, then either `]` or
/// whitespace and a quoted subsection (`get_extended_base_var`). The name returned holds the
/// subsection after a `.`, as git's does.
fn section_header(source: &mut Source) -> Result<(String, Option<String>), String> {
    let mut name = Vec::new();
    loop {
        let c = source.next();
        if source.eof {
            return Err(source.error("a section header is not closed"));
        }
        if c == b']' {
            break;
        }
        if is_space(c) {
            let sub = quoted_subsection(source, c)?;
            return Ok((String::from_utf8_lossy(&name).into_owned(), Some(sub)));
        }
        if !is_key_char(c) && c != b'.' {
            return Err(source.error("a section name holds a character git refuses"));
        }
        name.push(c.to_ascii_lowercase());
    }
    let name = String::from_utf8_lossy(&name).into_owned();
    if name.is_empty() {
        return Err(source.error("an empty section name"));
    }
    Ok((name, None))
}

/// The quoted subsection of `[section "subsection"]`, after the whitespace `first`.
fn quoted_subsection(source: &mut Source, first: u8) -> Result<String, String> {
    let incomplete = |source: &Source| Err(source.error("a section header ends inside its line"));
    let mut c = first;
    loop {
        if c == b'\n' {
            return incomplete(source);
        }
        c = source.next();
        if !is_space(c) {
            break;
        }
    }
    if c != b'"' {
        return Err(source.error("a subsection is not quoted"));
    }
    let mut sub = Vec::new();
    loop {
        let mut c = source.next();
        if c == b'\n' {
            return incomplete(source);
        }
        if c == b'"' {
            break;
        }
        if c == b'\\' {
            c = source.next();
            if c == b'\n' {
                return incomplete(source);
            }
        }
        sub.push(c);
    }
    if source.next() != b']' {
        return Err(source.error("a quoted subsection is not followed by `]`"));
    }
    Ok(String::from_utf8_lossy(&sub).into_owned())
}

/// A value after its `=` (`parse_value`): quotes toggle, comments end it outside quotes,
/// trailing whitespace is cut, `\` at the end of a line continues it.
fn value(source: &mut Source) -> Result<String, String> {
    let (mut quote, mut comment) = (false, false);
    let mut out: Vec<u8> = Vec::new();
    let mut trim = 0;
    loop {
        let c = source.next();
        if c == b'\n' {
            if quote {
                return Err(source.error("a quoted value is not closed"));
            }
            if trim > 0 {
                out.truncate(trim);
            }
            return Ok(String::from_utf8_lossy(&out).into_owned());
        }
        if comment {
            continue;
        }
        if is_space(c) && !quote {
            if trim == 0 {
                trim = out.len();
            }
            if !out.is_empty() {
                out.push(c);
            }
            continue;
        }
        if !quote && (c == b';' || c == b'#') {
            comment = true;
            continue;
        }
        trim = 0;
        match c {
            b'\\' => match source.next() {
                b'\n' => {}
                b't' => out.push(b'\t'),
                b'b' => out.push(8),
                b'n' => out.push(b'\n'),
                e @ (b'\\' | b'"') => out.push(e),
                _ => return Err(source.error("a value holds an escape git refuses")),
            },
            b'"' => quote = !quote,
            c => out.push(c),
        }
    }
}

/// Every entry of the configuration text `bytes`, in order, as git reads it; an error (naming
/// the line) where git would refuse the file.
pub fn parse(bytes: &[u8]) -> Result<Vec<Entry>, String> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let mut source = Source {
        bytes,
        at: 0,
        line: 0,
        eof: false,
    };
    let mut entries = Vec::new();
    let mut section: Option<(String, Option<String>)> = None;
    let mut comment = false;
    loop {
        let c = source.next();
        if c == b'\n' {
            if source.eof {
                return Ok(entries);
            }
            comment = false;
            continue;
        }
        if comment || is_space(c) {
            continue;
        }
        if c == b'#' || c == b';' {
            comment = true;
            continue;
        }
        if c == b'[' {
            section = Some(section_header(&mut source)?);
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return Err(source.error("a line starts with a character git refuses"));
        }
        let mut key = vec![c.to_ascii_lowercase()];
        let mut c;
        loop {
            c = source.next();
            if source.eof || !is_key_char(c) {
                break;
            }
            key.push(c.to_ascii_lowercase());
        }
        while c == b' ' || c == b'\t' {
            c = source.next();
        }
        let value = match c {
            b'\n' => None,
            b'=' => Some(value(&mut source)?),
            _ => return Err(source.error("a key is followed by something other than `=`")),
        };
        let Some((name, quoted)) = &section else {
            return Err(source.error("a key comes before any section"));
        };
        // `[a.b]` and `[a.b "c"]`: the section is the name up to its first dot, the rest (and the
        // quoted part) the subsection, as git splits `a.b.c.key`.
        let (name, dotted) = match name.split_once('.') {
            Some((name, rest)) => (name, Some(rest.to_string())),
            None => (name.as_str(), None),
        };
        let subsection = match (dotted, quoted) {
            (Some(d), Some(q)) => Some(format!("{d}.{q}")),
            (d, q) => d.or_else(|| q.clone()),
        };
        entries.push(Entry {
            section: name.to_string(),
            subsection,
            key: String::from_utf8_lossy(&key).into_owned(),
            value,
        });
        if source.eof {
            return Ok(entries);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each syntax git accepts, with the entry it reads (checked against `git config --file f
    /// --list` in `bypass_tests_last`).
    #[test]
    fn entries_as_git_reads_them() {
        let entry = |section: &str, sub: Option<&str>, key: &str, value: Option<&str>| Entry {
            section: section.into(),
            subsection: sub.map(Into::into),
            key: key.into(),
            value: value.map(Into::into),
        };
        let cases: &[(&[u8], Entry)] = &[
            (
                b"[core]\n\tpager = less\n",
                entry("core", None, "pager", Some("less")),
            ),
            (
                b"\xef\xbb\xbf[Core]\nPager=x",
                entry("core", None, "pager", Some("x")),
            ),
            (
                b"[core]\r\npager = a\r\n",
                entry("core", None, "pager", Some("a")),
            ),
            (
                b"[diff \"x]y\"] textconv = e",
                entry("diff", Some("x]y"), "textconv", Some("e")),
            ),
            (
                b"[diff \"a\\\"b\\\\c\"]\nx=1",
                entry("diff", Some("a\"b\\c"), "x", Some("1")),
            ),
            (b"[diff.X]\nx=1", entry("diff", Some("x"), "x", Some("1"))),
            (b"[a.b \"C\"]\nx", entry("a", Some("b.C"), "x", None)),
            (
                b"# c\n; c\n[s] k = \"a;b\" ; c",
                entry("s", None, "k", Some("a;b")),
            ),
            (b"[s]\nk = a\\\nb", entry("s", None, "k", Some("ab"))),
            (b"[s]\nk = \"a \" b  ", entry("s", None, "k", Some("a  b"))),
            (b"[s]\n k\t=\tv", entry("s", None, "k", Some("v"))),
        ];
        for (text, want) in cases {
            let got =
                parse(text).unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(text)));
            assert_eq!(
                got.last(),
                Some(want),
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }

    /// What git refuses is an error, never a guess.
    #[test]
    fn what_git_refuses_is_an_error() {
        for text in [
            &b"[core"[..],
            b"[co re]\nx=1",
            b"[diff \"x]\nx=1",
            b"[diff \"x\" ]\nx=1",
            b"[s]\nk = \"a",
            b"[s]\nk = \\q",
            b"[s]\n1k = a",
            b"[s]\nk : a",
            b"k = a",
            b"\xef\xbb[s]\nk=1",
            b"[]\nk=1",
        ] {
            assert!(parse(text).is_err(), "{:?}", String::from_utf8_lossy(text));
        }
    }
}
