//! `analyze_command` on any bytes (as lossy UTF-8) with a fixed options set:
//! - no panic;
//! - when approved, quoting each segment's argv and tokenizing it again gives the same argv;
//! - when approved, the command holds no unquoted `$`, backtick, `(`, `)`, `<`, `>`, lone `&`
//!   or newline, and no `$`/backtick inside double quotes (checked by an independent scanner).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::policy::shell::lex::{quote, tokenize, Token};
use toolwire_core::policy::shell::{analyze_command, AnalyzeOptions};

fn options() -> AnalyzeOptions {
    AnalyzeOptions {
        cwd: Some("/tmp".into()),
        allowlist: [
            "ls", "cat", "echo", "git", "find", "tar", "sed", "grep", "true", "printf",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        path: Some("/usr/bin:/bin".to_string()),
        ..AnalyzeOptions::default()
    }
}

/// Whether `command` holds a character the shell would treat specially, outside single quotes.
fn has_unquoted_specials(command: &str) -> bool {
    let b = command.as_bytes();
    let mut i = 0;
    let (mut single, mut double) = (false, false);
    while i < b.len() {
        let c = b[i];
        if c == b'\n' || c == b'\r' {
            return true;
        }
        if single {
            single = c != b'\'';
        } else if double {
            match c {
                b'\\' => i += 1,
                b'"' => double = false,
                b'$' | b'`' => return true,
                _ => {}
            }
        } else {
            match c {
                b'\\' => i += 1,
                b'\'' => single = true,
                b'"' => double = true,
                b'$' | b'`' | b'(' | b')' | b'<' | b'>' => return true,
                b'&' if b.get(i + 1) == Some(&b'&') => i += 1,
                b'&' => return true,
                _ => {}
            }
        }
        i += 1;
    }
    false
}

fuzz_target!(|data: &[u8]| {
    let command = String::from_utf8_lossy(data);
    let analysis = analyze_command(&command, &options());
    if !analysis.approved {
        assert!(analysis.reason.is_some());
        return;
    }
    assert!(!has_unquoted_specials(&command), "approved {command:?}");
    for segment in &analysis.segments {
        assert!(segment.approved && !segment.wrapper);
        let line: Vec<String> = segment.argv.iter().map(|w| quote(w)).collect();
        let again: Vec<String> = tokenize(&line.join(" "))
            .expect("quoted argv tokenizes")
            .into_iter()
            .map(|t| match t {
                Token::Word(w) => w.text,
                Token::Op(..) => panic!("operator in quoted argv {line:?}"),
            })
            .collect();
        assert_eq!(again, segment.argv);
    }
});
