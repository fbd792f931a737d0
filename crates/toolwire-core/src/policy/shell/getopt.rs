//! An argument list read as GNU `getopt_long` reads it, permuting (options after operands
//! too, until `--`): each word an operand, a long option with its value, or the letters of a
//! short-option cluster, the valued one taking the rest of the cluster or the next word. One
//! reader for the checks that must tell options, their values and operands apart (`sed`,
//! `sysctl`, the file writers, the extractors), instead of a loop each.

/// Which options take a value.
pub struct Valued<'s> {
    /// Short letters taking a value: the rest of their cluster, or the next word.
    pub short: &'s str,
    /// Long options taking a value: `--name=value`, or the next word.
    pub long: &'s [&'s str],
    /// Whether an abbreviation of a [long](Self::long) one takes the next word too (as
    /// `getopt_long` does); without, only the full name does, so the next word is read as an
    /// operand (a check that counts operands errs towards refusing).
    pub abbreviations: bool,
}

/// One item of an argument list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item<'a> {
    /// An operand (every word after `--`, and `-`).
    Operand(&'a str),
    /// A long option `--name` or `--name=value` (`word` as written), with its value.
    Long {
        word: &'a str,
        name: &'a str,
        value: Option<&'a str>,
    },
    /// One letter of the short-option cluster `word`, with its value when it takes one (`None`
    /// when the list ends first).
    Short {
        word: &'a str,
        letter: char,
        value: Option<&'a str>,
    },
}

/// `args` read as items ([`Item`]), in order. Linear in the arguments' length.
pub fn read<'a>(args: &'a [String], valued: &Valued) -> Vec<Item<'a>> {
    let mut items = Vec::new();
    let mut options_done = false;
    let mut words = args.iter().map(String::as_str);
    while let Some(word) = words.next() {
        if options_done || word.len() < 2 || !word.starts_with('-') {
            items.push(Item::Operand(word));
        } else if word == "--" {
            options_done = true;
        } else if let Some(long) = word.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => {
                    let takes = valued.long.iter().any(|full| {
                        *full == long || (valued.abbreviations && full.starts_with(long))
                    });
                    (long, if takes { words.next() } else { None })
                }
            };
            items.push(Item::Long { word, name, value });
        } else {
            for (at, letter) in word[1..].char_indices() {
                if !valued.short.contains(letter) {
                    items.push(Item::Short {
                        word,
                        letter,
                        value: None,
                    });
                    continue;
                }
                let rest = &word[1 + at + letter.len_utf8()..];
                let value = if rest.is_empty() {
                    words.next()
                } else {
                    Some(rest)
                };
                items.push(Item::Short {
                    word,
                    letter,
                    value,
                });
                break;
            }
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::argv;

    #[test]
    fn reads_as_getopt_long() {
        let valued = Valued {
            short: "of",
            long: &["output", "file"],
            abbreviations: false,
        };
        let args = argv("-ab -oout in --output x --out y --file=z -fw - -- -c");
        let items = read(&args, &valued);
        let shown: Vec<String> = items
            .iter()
            .map(|item| match item {
                Item::Operand(word) => format!("({word})"),
                Item::Long { name, value, .. } => format!("--{name}:{value:?}"),
                Item::Short { letter, value, .. } => format!("-{letter}:{value:?}"),
            })
            .collect();
        assert_eq!(
            shown,
            [
                "-a:None",
                "-b:None",
                "-o:Some(\"out\")",
                "(in)",
                "--output:Some(\"x\")",
                "--out:None",
                "(y)",
                "--file:Some(\"z\")",
                "-f:Some(\"w\")",
                "(-)",
                "(-c)",
            ]
        );
        let abbreviating = Valued {
            abbreviations: true,
            ..valued
        };
        assert_eq!(
            read(&argv("--out y -o"), &abbreviating),
            [
                Item::Long {
                    word: "--out",
                    name: "out",
                    value: Some("y")
                },
                Item::Short {
                    word: "-o",
                    letter: 'o',
                    value: None
                },
            ]
        );
    }
}
