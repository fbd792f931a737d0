//! sysctl(8) writes a kernel setting given as an operand `key=value` (`kernel.core_pattern=|prog`
//! runs a program as root at the next crash); its writing options (`-w`, `-p`/`-f FILE`,
//! `--system`) are in [`injection`](super::injection)'s table. Reading passes: `sysctl -n
//! kernel.ostype`, `sysctl -a`, and a pattern holding `=` (`-r 'a=b'`), which is no operand.

use super::getopt::{self, Item, Valued};

/// The options taking a value: `-r`/`--pattern REGEX` (procps-ng 4), as any abbreviation.
const VALUED: Valued = Valued {
    short: "r",
    long: &["pattern"],
    abbreviations: true,
};

/// Refuses an operand of sysctl that writes a setting (`key=value`), read as procps-ng's
/// getopt_long reads the line.
pub fn check_sysctl(args: &[String]) -> Result<(), String> {
    for item in getopt::read(args, &VALUED) {
        if let Item::Operand(arg) = item {
            if arg.contains('=') {
                return Err(format!(
                    "argument injection: `sysctl` `{}` writes a kernel setting (key=value; kernel.core_pattern=|prog runs a program as root)",
                    arg.chars().take(64).collect::<String>()
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::argv;

    #[test]
    fn sysctl_reads_and_never_writes() {
        let cases: &[(&str, bool)] = &[
            ("-n kernel.ostype", true),
            ("net.ipv4.ip_forward", true),
            ("-a", true),
            ("-a -r a=b", true),
            ("-ar a=b", true),
            ("--pattern a=b -a", true),
            ("--pat a=b -a", true),
            ("--pattern=a=b -a", true),
            ("-ra=b", true),
            ("kernel.core_pattern=x", false),
            ("-q kernel.core_pattern=|/tmp/x", false),
            ("-n a b=c", false),
            ("-- a=b", false),
            ("-r x a=b", false),
        ];
        for (args, want) in cases {
            let got = check_sysctl(&argv(args));
            assert_eq!(got.is_ok(), *want, "sysctl {args}: {got:?}");
        }
    }
}
