//! `sed`: refuses in-place editing, script files and any script that may use the `e`, `w`,
//! `W`, `r` or `R` commands (or the `e`/`w` flags of `s`).

use super::getopt::{self, Item, Valued};

/// sed's options taking a value: `-e SCRIPT`, `-l N`, `--expression=SCRIPT` (its full name
/// only: any other long option is refused).
const VALUED: Valued = Valued {
    short: "el",
    long: &["expression"],
    abbreviations: false,
};

/// Checks the arguments of `sed` (argv without argv[0]).
pub fn check_sed(args: &[String]) -> Result<(), String> {
    let mut scripts: Vec<&str> = Vec::new();
    let mut positionals: Vec<&str> = Vec::new();
    for item in getopt::read(args, &VALUED) {
        match item {
            Item::Operand(word) => positionals.push(word),
            Item::Long {
                name: "expression",
                value,
                ..
            } => match value {
                Some(script) => scripts.push(script),
                None => return Err("sed: `--expression` without a script".to_string()),
            },
            Item::Long {
                name:
                    "quiet" | "silent" | "regexp-extended" | "separate" | "unbuffered" | "null-data"
                    | "posix" | "debug" | "sandbox",
                value: None,
                ..
            } => {}
            Item::Long { word, .. } => return Err(format!("sed: option `{word}` is not allowed")),
            Item::Short {
                word,
                letter,
                value,
            } => match letter {
                'n' | 'E' | 'r' | 's' | 'u' | 'z' => {}
                'e' | 'l' => {
                    let Some(value) = value else {
                        return Err(format!("sed: `{word}` without a value"));
                    };
                    if letter == 'e' {
                        scripts.push(value);
                    } else if !value.bytes().all(|b| b.is_ascii_digit()) {
                        return Err(format!("sed: bad line length `{value}`"));
                    }
                }
                'i' | 'I' => return Err(format!("sed: in-place editing `{word}` is not allowed")),
                'f' => return Err(format!("sed: script file `{word}` is not allowed")),
                _ => return Err(format!("sed: option `{word}` is not allowed")),
            },
        }
    }
    if scripts.is_empty() {
        match positionals.first() {
            Some(script) => scripts.push(script),
            None => return Err("sed: no script".to_string()),
        }
    }
    scripts.into_iter().try_for_each(check_script)
}

/// Skips a delimited part starting after its opening delimiter; returns the index after the
/// closing delimiter.
fn skip_delimited(s: &[char], mut i: usize, delim: char) -> Result<usize, String> {
    while i < s.len() {
        if s[i] == '\\' {
            i += 2;
            continue;
        }
        if s[i] == delim {
            return Ok(i + 1);
        }
        i += 1;
    }
    Err("sed: unterminated regex or replacement".to_string())
}

/// Checks one sed script; refuses what it cannot read.
pub fn check_script(script: &str) -> Result<(), String> {
    let s: Vec<char> = script.chars().collect();
    let mut i = 0;
    while i < s.len() {
        // Addresses and separators.
        match s[i] {
            ' ' | '\t' | ';' | '{' | '}' | ',' | '!' | '$' | '~' | '+' => {
                i += 1;
                continue;
            }
            c if c.is_ascii_digit() => {
                i += 1;
                continue;
            }
            '/' => {
                i = skip_delimited(&s, i + 1, '/')?;
                while i < s.len() && matches!(s[i], 'I' | 'M') {
                    i += 1;
                }
                continue;
            }
            '\\' => {
                let delim = *s.get(i + 1).ok_or("sed: trailing backslash")?;
                i = skip_delimited(&s, i + 2, delim)?;
                while i < s.len() && matches!(s[i], 'I' | 'M') {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        let command = s[i];
        i += 1;
        match command {
            's' => {
                let delim = *s.get(i).ok_or("sed: `s` without a delimiter")?;
                if delim == '\\' || delim.is_whitespace() {
                    return Err(format!("sed: unreadable `s` delimiter `{delim}`"));
                }
                i = skip_delimited(&s, i + 1, delim)?;
                i = skip_delimited(&s, i, delim)?;
                while i < s.len() && !matches!(s[i], ';' | '}' | ' ' | '\t') {
                    match s[i] {
                        'e' | 'w' => {
                            return Err(format!("sed: `s` flag `{}` is not allowed", s[i]))
                        }
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' => {}
                        c if c.is_ascii_digit() => {}
                        c => return Err(format!("sed: unknown `s` flag `{c}`")),
                    }
                    i += 1;
                }
            }
            'y' => {
                let delim = *s.get(i).ok_or("sed: `y` without a delimiter")?;
                if delim == '\\' || delim.is_whitespace() {
                    return Err(format!("sed: unreadable `y` delimiter `{delim}`"));
                }
                i = skip_delimited(&s, i + 1, delim)?;
                i = skip_delimited(&s, i, delim)?;
            }
            // Text to the end of the script (no newlines reach here).
            'a' | 'i' | 'c' | '#' => return Ok(()),
            ':' | 'b' | 't' | 'T' => {
                while i < s.len() && !matches!(s[i], ';' | ' ' | '\t' | '}') {
                    i += 1;
                }
            }
            'q' | 'Q' | 'l' | 'L' => {
                while i < s.len() && (s[i].is_ascii_digit() || s[i] == ' ') {
                    i += 1;
                }
            }
            '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'x' | 'n' | 'N' | 'p' | 'P' | 'z' | 'F' => {}
            'e' | 'w' | 'W' | 'r' | 'R' => {
                return Err(format!("sed: command `{command}` is not allowed"))
            }
            c => return Err(format!("sed: cannot read command `{c}`")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn sed_table() {
        let cases: &[(&[&str], bool)] = &[
            (&["s/hello world/bye/g"], true),
            (&["-n", "/error/p", "log.txt"], true),
            (&["-e", "s/a/b/", "-e", "3d"], true),
            (&["-E", "s|x+|y|2"], true),
            (&["1,5p;10q"], true),
            (&["s/we/ew/", "wrote.txt"], true),
            (&["-n", "e sh"], false),
            (&["s/x/sh/e"], false),
            (&["s/x/y/w /tmp/out"], false),
            (&["w /etc/passwd"], false),
            (&["1r /etc/shadow"], false),
            (&["R x"], false),
            (&["W x"], false),
            (&["/a/e id"], false),
            (&["-i", "s/a/b/", "f"], false),
            (&["--in-place=.bak", "s/a/b/", "f"], false),
            (&["-f", "script.sed"], false),
            (&["-ne", "e id"], false),
            (&["--expression=e id"], false),
            (&["--expression", "1e id"], false),
            (&["s/a/b/;e id"], false),
            (&["b end;e id"], false),
            (&["y/abc/xyz/"], true),
            (&["s/a\\/b/c/"], true),
            (&["s/unterminated"], false),
            (&[], false),
        ];
        for (args, want) in cases {
            let got = check_sed(&argv(args));
            assert_eq!(got.is_ok(), *want, "{args:?}: {got:?}");
        }
    }
}
