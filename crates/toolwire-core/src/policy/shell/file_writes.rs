//! Which programs write no file, with the arguments they are given: one table read by every
//! rule that needs a line's segments to write nothing (the configuration readers' rule and the
//! root rule of [`repo_writes`](super::repo_writes), the PATH rule of
//! [`line_writes`](super::line_writes)). A program outside the table may write anything.
//!
//! The table is of approved segments: options the argument checks refuse (`sed -i` and a `w`
//! command, `sort --compress-program`) never reach it.

use super::getopt::{self, Item, Valued};

/// Programs that write no file whatever their arguments (no output-file option or operand).
/// `sed` and `gsed` are here because their argument check ([`sed`](super::sed)) refuses
/// in-place editing and the `w`/`W`/`e` commands; `jq`'s `--rawfile`/`--slurpfile` read.
const READERS: &[&str] = &[
    "ls",
    "cat",
    "echo",
    "pwd",
    "true",
    "false",
    "wc",
    "head",
    "tail",
    "cut",
    "tr",
    "grep",
    "egrep",
    "fgrep",
    "date",
    "uname",
    "whoami",
    "id",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "stat",
    "du",
    "df",
    "which",
    "diff",
    "cmp",
    "nproc",
    "sleep",
    "seq",
    "test",
    "sed",
    "gsed",
    "jq",
    "gojq",
    "nl",
    "tac",
    "rev",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
    "base64",
    "base32",
    "basenc",
    "column",
    "paste",
    "comm",
    "join",
    "fold",
    "fmt",
    "expand",
    "unexpand",
    "od",
    "hexdump",
    "strings",
    "tsort",
    "numfmt",
    "printf",
    // Its writing forms (`-w`, `-p`, `--system`, `key=value`) are refused by its argument
    // check ([`sysctl`](super::sysctl)).
    "sysctl",
];

/// A program that writes a file only through some options or a surplus operand.
struct Writer {
    /// Program names (the real file's name).
    programs: &'static [&'static str],
    /// Short option letters that name a file to write (`sort -o FILE`).
    short: &'static str,
    /// Short option letters taking a value (attached or the next argument).
    valued: &'static str,
    /// Long options that name a file to write, also as any abbreviation (`--out=FILE`).
    long: &'static [&'static str],
    /// Long options taking a value (as `--name=value` or the next argument).
    long_valued: &'static [&'static str],
    /// How many operands it reads: one more is a file it writes (`uniq IN OUT`).
    operands: usize,
}

/// The programs that write only through [`Writer`]'s options or operands, from their manuals.
const WRITERS: &[Writer] = &[
    Writer {
        // coreutils sort(1): `-o FILE`/`--output=FILE`.
        programs: &["sort", "gsort"],
        short: "o",
        valued: "kotST",
        long: &["output"],
        long_valued: &[
            "key",
            "field-separator",
            "buffer-size",
            "temporary-directory",
            "batch-size",
            "parallel",
            "random-source",
            "files0-from",
            "sort",
            "compress-program",
        ],
        operands: usize::MAX,
    },
    Writer {
        // coreutils uniq(1): `uniq [INPUT [OUTPUT]]`.
        programs: &["uniq", "guniq"],
        short: "",
        valued: "fsw",
        long: &[],
        // `--group` and `--all-repeated` take their optional value attached only.
        long_valued: &["skip-fields", "skip-chars", "check-chars"],
        operands: 1,
    },
    Writer {
        // coreutils shuf(1): `-o FILE`/`--output=FILE`.
        programs: &["shuf", "gshuf"],
        short: "o",
        valued: "inoz",
        long: &["output"],
        long_valued: &["input-range", "head-count", "random-source"],
        operands: usize::MAX,
    },
];

/// Whether the long option `name` (without `--`) is, or abbreviates, one of `options`.
fn long_is(name: &str, options: &[&str]) -> bool {
    !name.is_empty() && options.iter().any(|o| o.starts_with(name))
}

/// Whether `args` make the program of `row` write a file. Reads options after operands too
/// (GNU programs do) until `--`. An option's value is no operand (`uniq --skip-fields 2 in`);
/// only exact long names take one: an abbreviation's value counts as an operand, which errs
/// towards writing. Linear in the arguments.
fn row_writes(row: &Writer, args: &[String]) -> bool {
    let valued = Valued {
        short: row.valued,
        long: row.long_valued,
        abbreviations: false,
    };
    let mut operands = 0;
    getopt::read(args, &valued)
        .into_iter()
        .any(|item| match item {
            Item::Operand(_) => {
                operands += 1;
                operands > row.operands
            }
            Item::Long { name, .. } => long_is(name, row.long),
            Item::Short { letter, .. } => row.short.contains(letter),
        })
}

/// Whether the program whose real file is named `name`, approved with the arguments `args`
/// (argv after the program), writes no file.
pub fn writes_no_file(name: &str, args: &[String]) -> bool {
    if READERS.contains(&name) {
        return true;
    }
    WRITERS
        .iter()
        .find(|row| row.programs.contains(&name))
        .is_some_and(|row| !row_writes(row, args))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::argv;

    /// Readers and the writing forms of the same programs (seen by a new user: `git log |
    /// sort`, `sed -n 1,5p`, `jq .name`, `sort | uniq -c | sort -rn` were refused as lines
    /// with a segment that "may write files").
    #[test]
    fn writes_no_file_per_program_and_arguments() {
        let cases: &[(&str, &str, bool)] = &[
            ("sort", "", true),
            ("sort", "-rn", true),
            ("sort", "-u -t , -k 2n in.txt", true),
            ("sort", "-to", true),
            ("sort", "-t o -k1", true),
            ("sort", "-o out", false),
            ("sort", "-uo out", false),
            ("sort", "-oout", false),
            ("sort", "--output=out", false),
            ("sort", "--out out", false),
            ("sort", "in.txt -o out", false),
            ("sort", "-- -o", true),
            ("uniq", "-c", true),
            ("uniq", "-c in", true),
            ("uniq", "-f 2 in", true),
            ("uniq", "--skip-fields 2 in", true),
            ("uniq", "in out", false),
            ("uniq", "-c in out", false),
            ("uniq", "-f2 in out", false),
            ("uniq", "-- in out", false),
            ("uniq", "--group in out", false),
            ("uniq", "--all-repeated in out", false),
            ("uniq", "--skip-f 2 in", false),
            ("shuf", "-n 3", true),
            ("shuf", "-n3 -o out", false),
            ("shuf", "--output=out", false),
            ("sed", "-n 1,5p", true),
            ("jq", ".name", true),
            ("jq", "--rawfile x f .", true),
            ("nl", "", true),
            ("tac", "", true),
            ("sha256sum", "-c sums", true),
            ("sysctl", "-a", true),
            ("base64", "-d", true),
            ("column", "-t", true),
            ("paste", "-sd,", true),
            ("comm", "-12 a b", true),
            ("tee", "out", false),
            ("awk", "{print}", false),
            ("cp", "a b", false),
            ("xxd", "in", false),
        ];
        for (program, args, want) in cases {
            assert_eq!(
                writes_no_file(program, &argv(args)),
                *want,
                "{program} {args}"
            );
        }
    }
}
