//! Archive extractors write where the line says and, under it, wherever the archive's members
//! say: `dpkg -x pkg.deb /` puts the package's files (a `/etc/cron.d` entry among them) in
//! place like `tar -x -C /`. An extraction approved without asking stays in the workspace:
//! each directory (or file) it writes must lie there and out of any `.git`
//! ([`write_paths::leaving`](super::write_paths::leaving)), and `tar -P` (members written at
//! their absolute names) is refused. Extracting into the working directory passes.

use super::getopt::{self, Item, Valued};
use super::injection::Place;
use super::write_paths;

/// dpkg's and dpkg-deb's actions whose operands after the first are paths they write
/// (`-x ARCHIVE DIR`, `-e ARCHIVE [DIR]`, `-b DIR [ARCHIVE]`), as (letter, long name). dpkg
/// hands these to dpkg-deb; dpkg-deb's `-R` is `--raw-extract` (dpkg's `-R` is refused as
/// `--recursive`).
const DPKG_ACTIONS: &[(char, &str)] = &[
    ('x', "extract"),
    ('X', "vextract"),
    ('e', "control"),
    (DPKG_BUILD, "build"),
];

/// dpkg's action that builds an archive (from a directory: it extracts nothing).
const DPKG_BUILD: char = 'b';

/// dpkg-deb's raw extraction, on top of [`DPKG_ACTIONS`].
const DPKG_DEB_ACTIONS: &[(char, &str)] = &[('R', "raw-extract")];

/// dpkg-deb's options taking a value (`-Z xz`, `-z9`, `-S extreme`, `--threads-max N`), and
/// dpkg's (the rest are refused by the option table or take it after `=`).
const DPKG_VALUED: Valued = Valued {
    short: "ZzS",
    long: &[
        "threads-max",
        "status-fd",
        "abort-after",
        "path-exclude",
        "path-include",
    ],
    abbreviations: false,
};

/// GNU tar's options taking a value (tar 1.34; only `-C`'s matters, the rest keep a value
/// from being read as an option).
const TAR_VALUED: Valued = Valued {
    short: "bCfFgHIKLNTVX",
    long: &[
        "directory",
        "file",
        "files-from",
        "exclude-from",
        "exclude",
        "transform",
        "xform",
        "owner",
        "group",
        "mode",
        "mtime",
        "newer",
        "format",
        "label",
        "listed-incremental",
        "strip-components",
        "blocking-factor",
    ],
    abbreviations: true,
};

/// Refuses an extraction of `name` (dpkg, dpkg-deb, tar) that writes outside the workspace or
/// into a `.git` of it, and `tar -P`; `place` says where it runs. Other programs pass.
pub fn check_extract(name: &str, args: &[String], place: Place) -> Result<(), String> {
    // `builds`: the line builds an archive (`dpkg -b`) rather than extracting one.
    let (shown, builds, written): (_, _, Vec<String>) = match name {
        "dpkg" | "dpkg-deb" => {
            let actions: Vec<(char, &str)> = match name {
                "dpkg" => DPKG_ACTIONS.to_vec(),
                _ => DPKG_ACTIONS
                    .iter()
                    .chain(DPKG_DEB_ACTIONS)
                    .copied()
                    .collect(),
            };
            let (action, written) = dpkg_written(args, &actions, &DPKG_VALUED);
            let builds = action
                .as_ref()
                .is_some_and(|(_, letter)| *letter == DPKG_BUILD);
            let shown = action.map(|(shown, _)| shown);
            (
                shown,
                builds,
                written.into_iter().map(str::to_string).collect(),
            )
        }
        "tar" | "gtar" | "bsdtar" => {
            let (shown, written) = tar_written(args)?;
            (shown, false, written)
        }
        _ => return Ok(()),
    };
    let Some(shown) = shown else {
        return Ok(());
    };
    let who = format!("{name} {shown}");
    let root = place
        .trusted_root()
        .and_then(|root| std::fs::canonicalize(root).ok());
    if let Some(why) = written
        .iter()
        .find_map(|path| write_paths::leaving(&who, path, place.cwd, root.as_deref()))
    {
        return Err(format!(
            "{why}: it writes the files the archive holds there"
        ));
    }
    // The members are not known before they are written: one named `.git/hooks/...` or
    // `.git/config` extracted at a repository's root becomes that repository's hooks and
    // configuration, run by the user's own git (attack review 4's 7: `dpkg -x x.deb .`). Only
    // the extraction into a directory with no `.git` passes; `dpkg -b` builds an archive.
    let Some(cwd) = place.cwd.filter(|_| !builds) else {
        return Ok(());
    };
    let here = [".".to_string()];
    // tar without `-C` extracts into the working directory; dpkg without a directory writes
    // none but `-e`'s `DEBIAN`.
    let tar = matches!(name, "tar" | "gtar" | "bsdtar");
    let targets = if written.is_empty() && tar {
        &here[..]
    } else {
        &written[..]
    };
    match targets
        .iter()
        .map(|path| write_paths::resolved(cwd, path))
        .find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
    {
        Some(dir) => Err(format!(
            "`{who}` would extract into `{}`, a repository's root: a member named `.git/...` in the archive would become its configuration or hooks, which git runs; extract into a directory without a `.git` (`-C dir`)",
            super::git::keys::bounded(&dir.display().to_string())
        )),
        None => Ok(()),
    }
}

/// The action of a dpkg line among `actions` (as shown, and its letter) and the paths it
/// writes: its operands after the first. dpkg-deb reads its value options by `valued`.
fn dpkg_written<'a>(
    args: &'a [String],
    actions: &[(char, &str)],
    valued: &Valued,
) -> (Option<(String, char)>, Vec<&'a str>) {
    let mut action = None;
    let mut operands: Vec<&str> = Vec::new();
    for item in getopt::read(args, valued) {
        match item {
            Item::Operand(word) => operands.push(word),
            Item::Long { word, name, value } => {
                let Some((letter, _)) = actions.iter().find(|(_, full)| *full == name) else {
                    continue;
                };
                action.get_or_insert_with(|| (word.to_string(), *letter));
                // `--build=DIR` is no form dpkg reads; a value given so is an operand.
                operands.extend(value);
            }
            Item::Short { word, letter, .. }
                if actions.iter().any(|(short, _)| *short == letter) =>
            {
                action.get_or_insert_with(|| (word.to_string(), letter));
            }
            _ => {}
        }
    }
    let written = operands.get(1..).unwrap_or_default().to_vec();
    (action, written)
}

/// `args` of tar with an old-style first word (`xzfC a.tgz dir`: no dash, each valued letter
/// taking the next words in order) spelled as dashed options (`-x -z -f a.tgz -C dir`).
fn tar_dashed(args: &[String]) -> Vec<String> {
    let Some(first) = args.first().filter(|first| !first.starts_with('-')) else {
        return args.to_vec();
    };
    let mut out = Vec::with_capacity(args.len() + first.len());
    let mut rest = args[1..].iter();
    for letter in first.chars() {
        out.push(format!("-{letter}"));
        if TAR_VALUED.short.contains(letter) {
            out.extend(rest.next().cloned());
        }
    }
    out.extend(rest.cloned());
    out
}

/// GNU tar's and bsdtar's options that choose where the members land other than `-C` and
/// `--one-top-level`, refused on extraction as (long name, shortest accepted abbreviation,
/// why): a renamed member (`--transform 's,^,.git/hooks/,'`) lands wherever the expression
/// says, and a kept directory symlink leads its members out of the workspace.
const TAR_PLACING: &[(&str, usize, &str)] = &[
    (
        "absolute-names",
        2,
        "extracts members at their absolute names (and `..`), wherever the archive says",
    ),
    (
        "absolute-paths",
        4,
        "(bsdtar) extracts members at their absolute names (and `..`), wherever the archive says",
    ),
    (
        "insecure",
        3,
        "(bsdtar) extracts members at their absolute names (and `..`), wherever the archive says",
    ),
    (
        "transform",
        2,
        "renames the members by the expression given, so they land wherever it says (a `.git/hooks/...` among them)",
    ),
    (
        "xform",
        2,
        "renames the members by the expression given, so they land wherever it says (a `.git/hooks/...` among them)",
    ),
    (
        "keep-directory-symlink",
        6,
        "follows the symlinks to directories it finds, so members land wherever they point",
    ),
];

/// The short letters of [`TAR_PLACING`]: GNU tar's `-P` (`--absolute-names`) and bsdtar's
/// `-s` (a member renaming expression; GNU tar's `-s` is `--same-order`, refused alike).
const TAR_PLACING_SHORT: &[(char, &str)] = &[
    (
        'P',
        "extracts members at their absolute names (and `..`), wherever the archive says",
    ),
    (
        's',
        "(bsdtar) renames the members by the expression given, so they land wherever it says (a `.git/hooks/...` among them)",
    ),
];

/// The suffixes GNU tar strips from the archive's name to name the directory of a bare
/// `--one-top-level` (its `compression_suffixes`), longest first.
const TAR_SUFFIXES: &[&str] = &[
    ".tar.gz",
    ".tar.bz2",
    ".tar.xz",
    ".tar.zst",
    ".tar.lzma",
    ".tar.lz",
    ".tar.lzo",
    ".tar.Z",
    ".tgz",
    ".taz",
    ".tbz2",
    ".tbz",
    ".tz2",
    ".txz",
    ".tlz",
    ".tzst",
    ".tzo",
    ".gz",
    ".bz2",
    ".xz",
    ".zst",
    ".lzma",
    ".lz",
    ".lzo",
    ".Z",
    ".tar",
];

/// The directory a bare `--one-top-level` extracts into: the archive's base name without its
/// compression and `.tar` suffixes (`.git.tar` -> `.git`), or the whole base name when it has
/// none (GNU tar refuses such a line itself).
fn one_top_level_default(archive: &str) -> String {
    let base = archive.rsplit('/').next().unwrap_or(archive);
    let stem = TAR_SUFFIXES
        .iter()
        .find_map(|suffix| base.strip_suffix(suffix).filter(|stem| !stem.is_empty()))
        .unwrap_or(base);
    stem.to_string()
}

/// The extraction of a tar line (as shown) and the directories it writes (every `-C` value,
/// else the working directory; with `--one-top-level[=DIR]`, that directory under each), or a
/// refusal of an option that places members elsewhere ([`TAR_PLACING`]).
fn tar_written(args: &[String]) -> Result<(Option<String>, Vec<String>), String> {
    let dashed = tar_dashed(args);
    // A letter of the old-style first word is shown as that word (`xfC`).
    let old_style = args.first().filter(|first| !first.starts_with('-'));
    let shown = |word: &str, letter: char| match old_style {
        Some(first) if first.contains(letter) => first.clone(),
        _ => word.to_string(),
    };
    let mut extract = None;
    let mut placing: Option<(String, &str)> = None;
    let mut directories: Vec<String> = Vec::new();
    let mut archive: Option<String> = None;
    // `--one-top-level` with its value, when given (the last one counts).
    let mut top_level: Option<(String, Option<String>)> = None;
    for item in getopt::read(&dashed, &TAR_VALUED) {
        match item {
            Item::Long { word, name, value } => {
                let is = |full: &str, least: usize| name.len() >= least && full.starts_with(name);
                if is("extract", 3) || is("get", 2) {
                    extract = Some(word.to_string());
                } else if let Some((_, _, why)) =
                    TAR_PLACING.iter().find(|(full, least, _)| is(full, *least))
                {
                    placing.get_or_insert((word.to_string(), why));
                } else if is("one-top-level", 5) {
                    top_level = Some((word.to_string(), value.map(str::to_string)));
                } else if is("directory", 2) {
                    directories.extend(value.map(str::to_string));
                } else if is("file", 2) && archive.is_none() {
                    archive = value.map(str::to_string);
                }
            }
            Item::Short {
                word,
                letter,
                value,
            } => match letter {
                'x' => extract = Some(shown(word, 'x')),
                'C' => directories.extend(value.map(str::to_string)),
                'f' if archive.is_none() => archive = value.map(str::to_string),
                _ => {
                    if let Some((_, why)) = TAR_PLACING_SHORT.iter().find(|(l, _)| *l == letter) {
                        placing.get_or_insert((shown(word, letter), why));
                    }
                }
            },
            Item::Operand(_) => {}
        }
    }
    let Some(extract) = extract else {
        return Ok((None, Vec::new()));
    };
    if let Some((option, why)) = placing {
        return Err(format!("argument injection: `tar {option}` {why}"));
    }
    let Some((option, value)) = top_level else {
        return Ok((Some(extract), directories));
    };
    // Members land in DIR, itself relative to where `-C` went.
    let top = match value {
        Some(dir) => dir,
        None => match archive.as_deref() {
            Some(archive) if archive != "-" => one_top_level_default(archive),
            _ => {
                return Err(format!(
                    "`tar {option}` extracts into a directory named after the archive, which this line does not name (give `--one-top-level=DIR`)"
                ))
            }
        },
    };
    if directories.is_empty() {
        directories.push(".".to_string());
    }
    let written = directories
        .iter()
        .map(|dir| match top.starts_with('/') || top.starts_with('~') {
            true => top.clone(),
            false => format!("{}/{top}", dir.trim_end_matches('/')),
        })
        .collect();
    Ok((Some(extract), written))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::{argv, Sandbox};

    #[test]
    fn extractions_stay_in_the_workspace() {
        let sandbox = Sandbox::new("extract-paths");
        let ws = sandbox.dir("ws");
        sandbox.dir("ws/.git/hooks");
        sandbox.dir("ws/sub");
        sandbox.dir("ws/sub/nested/.git");
        sandbox.dir("elsewhere");
        std::os::unix::fs::symlink(sandbox.root.join("elsewhere"), ws.join("out")).unwrap();
        // (program, arguments, whether approved, what the refusal names)
        let cases: &[(&str, &str, bool, &str)] = &[
            ("dpkg", "-x pkg.deb /", false, "dpkg -x"),
            (
                "dpkg",
                "-x pkg.deb /etc/cron.d",
                false,
                "outside the workspace",
            ),
            ("dpkg", "--extract pkg.deb ../x", false, "dpkg --extract"),
            ("dpkg", "-X pkg.deb ~/x", false, "dpkg -X"),
            ("dpkg", "--vextract pkg.deb out/x", false, "resolves to"),
            ("dpkg", "-x pkg.deb .git/hooks", false, ".git"),
            ("dpkg", "-b dir /tmp/x.deb", false, "dpkg -b"),
            ("dpkg-deb", "-x pkg.deb /", false, "dpkg-deb -x"),
            ("dpkg-deb", "-R pkg.deb /tmp/r", false, "dpkg-deb -R"),
            (
                "dpkg-deb",
                "--raw-extract pkg.deb ../r",
                false,
                "--raw-extract",
            ),
            ("dpkg-deb", "-e pkg.deb /tmp/c", false, "dpkg-deb -e"),
            ("dpkg-deb", "-Z xz -b dir /tmp/x.deb", false, "dpkg-deb -b"),
            ("dpkg-deb", "-v -X pkg.deb /srv", false, "-X"),
            ("tar", "-xf a.tar -C /", false, "tar -xf"),
            ("tar", "-x -f a.tar --directory=/etc", false, "/etc"),
            (
                "tar",
                "--extract --file a.tar --dir ../up",
                false,
                "--extract",
            ),
            ("tar", "xfC a.tar /etc", false, "tar xfC"),
            ("tar", "-xC/etc -f a.tar", false, "/etc"),
            ("tar", "-xPf a.tar", false, "-xPf"),
            ("tar", "xPf a.tar", false, "tar xPf"),
            ("tar", "--get --absolute-names -f a.tar", false, "absolute"),
            ("tar", "-xf a.tar -C .git", false, ".git"),
            // In the workspace, or no extraction at all.
            ("dpkg", "-x pkg.deb sub/x", true, ""),
            ("dpkg", "-x pkg.deb unpacked", true, ""),
            // Attack review 4's 7: at a repository's root, a member `.git/config` or
            // `.git/hooks/x` becomes the repository's own.
            ("dpkg", "-X pkg.deb .", false, "a repository's root"),
            ("dpkg", "-x pkg.deb sub/..", false, "a repository's root"),
            ("tar", "-xzf a.tgz", false, "a repository's root"),
            ("tar", "xzf a.tgz", false, "`tar xzf` would extract into"),
            ("tar", "-xf a.tar -C .", false, "a repository's root"),
            ("tar", "-xf a.tar -- -C", false, "a repository's root"),
            // Attack review 5's 3: `--one-top-level[=DIR]` is where the members land (under
            // `-C`); a bare one names the directory after the archive (`.git.tar` -> `.git`).
            (
                "tar",
                "-xf a.tar --one-top-level=sub/nested/.git",
                false,
                "inside a `.git`",
            ),
            (
                "tar",
                "-xf a.tar --one-top-level=sub/nested",
                false,
                "a repository's root",
            ),
            (
                "tar",
                "-xf a.tar -C sub --one-top-level=nested",
                false,
                "a repository's root",
            ),
            (
                "tar",
                "-xf a.tar --one-top-level=/tmp/x",
                false,
                "outside the workspace",
            ),
            ("tar", "-xf a.tar --one-top=../x", false, "outside"),
            ("tar", "xf a.tar --one-top-level=/etc", false, "/etc"),
            (
                "tar",
                "-xf .git.tar --one-top-level",
                false,
                "inside a `.git`",
            ),
            (
                "tar",
                "-xf dl/.git.tar.gz -C sub --one-top-level",
                false,
                "inside a `.git`",
            ),
            ("tar", "-xf nested.tgz -C sub --one-top", false, "root"),
            ("tar", "-x --one-top-level", false, "does not name"),
            ("tar", "-xf - --one-top-level", false, "does not name"),
            // Options renaming members or following directory symlinks place them anywhere.
            (
                "tar",
                "-xf a.tar -C sub --transform s,^,.git/hooks/,",
                false,
                "--transform",
            ),
            ("tar", "-x --xform=s,a,b, -f a.tar -C sub", false, "--xform"),
            ("tar", "-xf a.tar -C sub --tr s,a,b,", false, "renames"),
            ("bsdtar", "-xf a.tar -s ,^,.git/, -C sub", false, "-s"),
            (
                "tar",
                "-xf a.tar -C sub --keep-directory-symlink",
                false,
                "symlinks",
            ),
            ("bsdtar", "-x --insecure -f a.tar -C sub", false, "absolute"),
            (
                "bsdtar",
                "-x --absolute-paths -f a.tar -C sub",
                false,
                "absolute",
            ),
            ("tar", "-xf a.tar --one-top-level=unpacked", true, ""),
            ("tar", "-xzf a.tar.gz --one-top-level", true, ""),
            ("tar", "-xf a.tar -C sub --one-top-level=x", true, ""),
            ("tar", "-cf x.tar --transform s,a,b, sub", true, ""),
            ("dpkg", "-c pkg.deb", true, ""),
            ("dpkg", "-I pkg.deb", true, ""),
            ("dpkg", "-L coreutils", true, ""),
            ("dpkg-deb", "-x pkg.deb sub", true, ""),
            ("dpkg-deb", "-e pkg.deb", true, ""),
            ("dpkg-deb", "-c pkg.deb", true, ""),
            ("dpkg-deb", "--fsys-tarfile pkg.deb", true, ""),
            ("dpkg-deb", "-b dir", true, ""),
            ("dpkg-deb", "-b dir out.deb", true, ""),
            ("tar", "-xf a.tar -C sub", true, ""),
            ("tar", "-cf /tmp/a.tar -C /etc .", true, ""),
            ("tar", "-tf a.tar -P", true, ""),
        ];
        for (program, args, want, names) in cases {
            let got = check_extract(program, &argv(args), Place::at(&ws));
            assert_eq!(got.is_ok(), *want, "{program} {args}: {got:?}");
            if let Err(why) = got {
                assert!(
                    why.contains(names),
                    "{program} {args}: {why} (want {names})"
                );
            }
        }
        // Below the repository's root, with no `.git` there, an extraction passes.
        let sub = ws.join("sub");
        assert!(check_extract("tar", &argv("-xzf a.tgz"), Place::at(&sub)).is_ok());
        assert!(check_extract("dpkg", &argv("-x p.deb ."), Place::at(&sub)).is_ok());
        // Without a working directory, only paths that may lead anywhere are refused.
        assert!(check_extract("dpkg", &argv("-x p.deb /"), Place::default()).is_err());
        assert!(check_extract("dpkg", &argv("-x p.deb x"), Place::default()).is_ok());
    }
}
