//! SSH2 private keys in the RFC 4716 armour that ssh.com's and Tectia's tools and PuTTYgen's
//! "export ssh.com key" write: `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----`, header lines
//! (`Comment: "rsa-key-20240101"`, `Subject: me`; a line ending in `\` continues on the next),
//! the base64 body and `---- END SSH2 ENCRYPTED PRIVATE KEY ----` (the attack review 2's 10).
//!
//! The BEGIN line is found by the search (see `builtin.rs`); the block is walked here line by
//! line, each line once, at most [`MAX_HEADER_LINES`] header lines before the body: linear.

use super::pem_lines::{is_base64, is_header, line_end, next_line};

/// How an SSH2 private key's BEGIN line starts (then `ENCRYPTED PRIVATE KEY ----`, or
/// `PRIVATE KEY ----`).
pub(super) const BEGIN: &str = "---- BEGIN SSH2 ";

/// How its END line starts.
const END: &[u8] = b"---- END SSH2 ";

/// The most header lines (continuations included) between the BEGIN line and the body.
const MAX_HEADER_LINES: usize = 16;

/// `row` without the blanks around it, and how many it had before.
fn trim_blanks(row: &[u8]) -> (usize, &[u8]) {
    let blank = |byte: &&u8| matches!(byte, b' ' | b'\t');
    let lead = row.iter().take_while(blank).count();
    let trail = row[lead..].iter().rev().take_while(blank).count();
    (lead, &row[lead..row.len() - trail])
}

/// The end of the SSH2 private key whose BEGIN line starts at `begin`: after its END line, or,
/// without one, after the last body line; `None` when no body line follows the headers.
pub(super) fn block_end(text: &str, begin: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let (mut at, mut body_end, mut headers, mut continued) =
        (line_end(bytes, begin), None, 0, false);
    while let Some(row_start) = next_line(bytes, at) {
        at = line_end(bytes, row_start);
        let (lead, row) = trim_blanks(&bytes[row_start..at]);
        let row_end = row_start + lead + row.len();
        if row.starts_with(END) {
            // After the dashes that close the END line (what follows on its line stays).
            let closing = row[END.len()..]
                .windows(4)
                .position(|dashes| dashes == b"----");
            return body_end.and(closing.map(|at| row_start + lead + END.len() + at + 4));
        }
        let body = !continued
            && !row.is_empty()
            && row.iter().all(is_base64)
            && row.iter().any(u8::is_ascii_alphanumeric);
        if body {
            body_end = Some(row_end);
        } else if body_end.is_none() && headers < MAX_HEADER_LINES && (continued || is_header(row))
        {
            headers += 1;
            continued = row.ends_with(b"\\");
        } else {
            break;
        }
    }
    body_end
}

#[cfg(test)]
mod tests {
    use super::super::SecretScanner;

    const BODY: [&str; 2] = [
        "P2/56wAAAi4AAAA3aWYtbW9kbntzaWdue3JzYS1wa2NzMS1zaGExfSxlbmNyeXB0",
        "e3JzYS1wa2NzMXYyLW9hZXB9fQAAAARub25lAAAB3wAAAdsAAAARAQABAAAH/2v3",
    ];

    /// Each SSH2 key's text and what must be left of it.
    #[test]
    fn an_ssh2_private_key_is_found_whole() {
        let scanner = SecretScanner::new(&[]).unwrap();
        let key = |begin: &str, headers: &[&str], end: Option<&str>| {
            let mut lines = vec![format!("---- BEGIN SSH2 {begin} ----")];
            lines.extend(headers.iter().map(|h| h.to_string()));
            lines.extend(BODY.iter().map(|b| b.to_string()));
            lines.extend(end.map(|e| format!("---- END SSH2 {e} ----")));
            lines
        };
        let cases: Vec<(&str, String, &str)> = vec![
            (
                "encrypted, quoted comment",
                key(
                    "ENCRYPTED PRIVATE KEY",
                    &["Comment: \"rsa-key-20240101\""],
                    Some("ENCRYPTED PRIVATE KEY"),
                )
                .join("\n"),
                "[redacted:private-key]",
            ),
            (
                "continued header, CRLF",
                key(
                    "PRIVATE KEY",
                    &["Subject: me", "Comment: \"a long \\", "comment\""],
                    Some("PRIVATE KEY"),
                )
                .join("\r\n"),
                "[redacted:private-key]",
            ),
            (
                "no header",
                key("ENCRYPTED PRIVATE KEY", &[], Some("ENCRYPTED PRIVATE KEY")).join("\n"),
                "[redacted:private-key]",
            ),
            (
                "cut after the body",
                format!(
                    "{}\nnext line",
                    key("ENCRYPTED PRIVATE KEY", &["Comment: x"], None).join("\n")
                ),
                "[redacted:private-key]\nnext line",
            ),
            (
                "cut before the BEGIN line",
                key("ENCRYPTED PRIVATE KEY", &[], Some("ENCRYPTED PRIVATE KEY"))[1..].join("\n"),
                "[redacted:private-key]",
            ),
            (
                "in JSON text",
                serde_json::json!({
                    "key": key("ENCRYPTED PRIVATE KEY", &["Comment: \"k\""],
                        Some("ENCRYPTED PRIVATE KEY")).join("\n")
                })
                .to_string(),
                "{\"key\":\"[redacted:private-key]\"}",
            ),
            // Public keys and armour lines with no body are no secret.
            (
                "public key",
                "---- BEGIN SSH2 PUBLIC KEY ----\nComment: \"me\"\nAAAAB3NzaC1yc2EAAAADAQABAAAB\n\
                 ---- END SSH2 PUBLIC KEY ----"
                    .to_owned(),
                "---- BEGIN SSH2 PUBLIC KEY ----\nComment: \"me\"\nAAAAB3NzaC1yc2EAAAADAQABAAAB\n\
                 ---- END SSH2 PUBLIC KEY ----",
            ),
            (
                "armour lines only",
                "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"me\"\n\
                 ---- END SSH2 ENCRYPTED PRIVATE KEY ----"
                    .to_owned(),
                "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"me\"\n\
                 ---- END SSH2 ENCRYPTED PRIVATE KEY ----",
            ),
        ];
        for (name, text, expected) in cases {
            let mut counts = Default::default();
            assert_eq!(scanner.scrub(&text, &mut counts), expected, "{name}");
        }
    }

    /// PuTTY's `.ppk` private lines as the attack review 2's 10 printed them (v3, two private
    /// lines of 51 and 50 characters, a public line after `Public-Lines: 1`): the private lines
    /// are replaced, the public line and the headers kept; in JSON text too.
    #[test]
    fn putty_private_lines_are_found() {
        let scanner = SecretScanner::new(&[]).unwrap();
        let private = [
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
            "xyzABCdefGHIjklMNOpqrSTUvwxYZ0123456789abcdefghijkl",
        ];
        let head = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me\n\
                    Public-Lines: 1\nAAAAC3NzaC1lZDI1NTE5AAAAIExample\nPrivate-Lines: 2\n";
        let mac = "Private-MAC: 0123456789abcdef0123456789abcdef";
        for newline in ["\n", "\r\n"] {
            let text = format!("{head}{}\n{mac}", private.join("\n")).replace('\n', newline);
            for shape in [text.clone(), serde_json::json!({ "ppk": text }).to_string()] {
                let mut counts = Default::default();
                let scrubbed = scanner.scrub(&shape, &mut counts);
                assert!(
                    private.iter().all(|line| !scrubbed.contains(&line[4..40])),
                    "{scrubbed}"
                );
                assert!(
                    scrubbed.contains("AAAAC3NzaC1lZDI1NTE5AAAAIExample"),
                    "{scrubbed}"
                );
                assert!(scrubbed.contains(mac), "{scrubbed}");
            }
        }
    }

    /// A megabyte of BEGIN lines and header lines: one look at each line.
    #[test]
    fn chains_of_armour_lines_stay_linear() {
        let scanner = SecretScanner::new(&[]).unwrap();
        for unit in [
            "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n",
            "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \\\n",
            "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nA: b\nA: b\nA: b\n",
            "---- END SSH2 ENCRYPTED PRIVATE KEY ----\n",
        ] {
            let text = unit.repeat((1 << 20) / unit.len() + 1);
            assert!(scanner.find(&text).is_empty(), "unit {unit:?}");
        }
        let unit = "---- BEGIN SSH2 PRIVATE KEY ----\nMIIB\n";
        let text = unit.repeat((1 << 20) / unit.len() + 1);
        assert_eq!(scanner.find(&text).len(), text.len() / unit.len());
    }
}
