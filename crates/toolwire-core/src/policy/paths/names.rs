//! The naming rule: which argument keys hold paths, whatever the schema says.
//!
//! A key is split into words at `_`, `-`, `.`, spaces and camelCase humps (`outputPath` is
//! `output path`, `XMLFile` is `xml file`), case-insensitively. It names a path when its last word
//! is one of [`PATH_ENDINGS`] (`path`, `paths`, `file`, `files`, `filename`, `dir`, `directory`,
//! `folder`), alone or glued onto another word (`filepath`, `outdir`, `workdir`, `infile`), or
//! one of [`PATH_WORDS`] (`cwd`, `src`, `dest`, `target`, `output`, `out`, `root`, `location`,
//! `to`, `from`, ...), or the
//! key is a `file name` (`fileName`, `dir_name`); except the words of [`NOT_PATHS`] (`profile`,
//! `xpath`, `jsonpath`) and a `path` that follows one of [`NOT_FILESYSTEM`] (`urlPath`,
//! `json_path`, `xPath`: not filesystem paths).

/// Last words that make a key a path on their own (besides the [`PATH_ENDINGS`]).
pub const PATH_WORDS: &[&str] = &[
    "pathname",
    "pathnames",
    "dirname",
    "directories",
    "cwd",
    "pwd",
    "src",
    "source",
    "sources",
    "dest",
    "destination",
    "dst",
    "target",
    "output",
    "outputs",
    "out",
    "root",
    "location",
    // A free-text or e-mail value under these (`to: "bob@example.com"`, `from: "en"`) is a
    // relative name inside the workspace, so only values that escape it are refused.
    "to",
    "from",
];

/// Last words that make a key a path, alone or glued onto another word (`filepath`, `outdir`).
pub const PATH_ENDINGS: &[&str] = &[
    "path",
    "paths",
    "file",
    "files",
    "filename",
    "filenames",
    "dir",
    "dirs",
    "directory",
    "folder",
    "folders",
];

/// Words that end like a path word but are not paths.
pub const NOT_PATHS: &[&str] = &["profile", "profiles", "xpath", "jsonpath", "nadir"];

/// Words after which `path` is not a filesystem path (`urlPath`, `json_path`).
pub const NOT_FILESYSTEM: &[&str] = &["url", "uri", "http", "api", "route", "json", "x"];

/// Whether argument key `key` names a path (see the module comment).
pub fn is_path_name(key: &str) -> bool {
    let mut words = last_two_words(key);
    let Some(last) = words.pop() else {
        return false;
    };
    if NOT_PATHS.contains(&last.as_str()) {
        return false;
    }
    let before = words.pop();
    let before = before.as_deref();
    if matches!(last.as_str(), "path" | "paths")
        && before.is_some_and(|b| NOT_FILESYSTEM.contains(&b))
    {
        return false;
    }
    if matches!(last.as_str(), "name" | "names")
        && matches!(before, Some("file" | "dir" | "folder" | "path"))
    {
        return true;
    }
    PATH_WORDS.contains(&last.as_str()) || PATH_ENDINGS.iter().any(|ending| last.ends_with(ending))
}

/// The last two words of `key`, lowercased, in order (fewer when the key has fewer). Linear in
/// the key, whatever its length.
fn last_two_words(key: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::with_capacity(2);
    let mut current = String::new();
    let chars: Vec<char> = key.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut words, &mut current);
            continue;
        }
        // A hump: `aB`, or the last capital of a run before a lowercase (`XMLFile`: `XML|File`).
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1);
        let hump = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_numeric()
                    || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
            });
        if hump {
            flush(&mut words, &mut current);
        }
        current.extend(c.to_lowercase());
    }
    flush(&mut words, &mut current);
    words
}

/// Ends the word being built, keeping only the last two.
fn flush(words: &mut Vec<String>, current: &mut String) {
    if current.is_empty() {
        return;
    }
    if words.len() == 2 {
        words.remove(0);
    }
    words.push(std::mem::take(current));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_names_in_every_spelling() {
        for key in [
            "path",
            "PATH",
            "Path",
            "paths",
            "file",
            "files",
            "dir",
            "directory",
            "cwd",
            "file_path",
            "filePath",
            "FilePath",
            "FILE_PATH",
            "file-path",
            "source_path",
            "sourcePath",
            "outputPath",
            "output_file",
            "outFile",
            "input_files",
            "work_dir",
            "workingDirectory",
            "working_directory",
            "rootDir",
            "target_dir",
            "XMLFile",
            "config.file",
            "filepath",
            "filename",
            "fileName",
            "dir_name",
            "outdir",
            "workdir",
            "tmpdir",
            "infile",
            "logfiles",
            "src",
            "dest",
            "destination",
            "source",
            "target",
            "parent_folder",
            "v2Path",
        ] {
            assert!(is_path_name(key), "{key}");
        }
    }

    #[test]
    fn other_names_are_not_paths() {
        for key in [
            "",
            "_",
            "name",
            "content",
            "text",
            "command",
            "query",
            "url",
            "pattern",
            "mode",
            "pathology",
            "filesystem",
            "file_count",
            "dirty",
            "profile",
            "user_profile",
            "xpath",
            "xPath",
            "jsonPath",
            "json_path",
            "urlPath",
            "url_path",
            "api_path",
            "routePath",
            "path_mode",
            "files_changed",
            "user_name",
            "names",
        ] {
            assert!(!is_path_name(key), "{key}");
        }
    }

    /// `words` written in one of the usual spellings (0: snake, 1: camel, 2: kebab,
    /// 3: SCREAMING_SNAKE, 4: Pascal, 5: dotted).
    fn spelled(words: &[&str], style: u8) -> String {
        let capital = |word: &str| {
            let mut chars = word.chars();
            chars.next().map_or(String::new(), |first| {
                first.to_uppercase().chain(chars).collect()
            })
        };
        match style {
            0 => words.join("_"),
            1 => std::iter::once(words[0].to_string())
                .chain(words[1..].iter().map(|w| capital(w)))
                .collect(),
            2 => words.join("-"),
            3 => words.join("_").to_uppercase(),
            4 => words.iter().map(|w| capital(w)).collect(),
            _ => words.join("."),
        }
    }

    proptest::proptest! {
        #[test]
        fn every_spelling_of_a_path_name_is_one(
            first in proptest::sample::select(vec!["source", "output", "log", "work", "base", "my", "v2"]),
            last in proptest::sample::select(vec!["path", "paths", "file", "files", "dir", "directory", "folder", "cwd"]),
            other in proptest::sample::select(vec!["name", "count", "mode", "type", "text", "content"]),
            style in 0u8..6,
        ) {
            proptest::prop_assert!(is_path_name(&spelled(&[first, last], style)));
            proptest::prop_assert!(is_path_name(&spelled(&[last], style)));
            proptest::prop_assert!(!is_path_name(&spelled(&[first, other], style)));
            proptest::prop_assert!(!is_path_name(&spelled(&[last, other], style)) || other == "name");
        }
    }

    #[test]
    fn a_huge_key_is_read_once() {
        let key = format!("{}Path", "a".repeat(1 << 20));
        assert!(is_path_name(&key));
        assert!(!is_path_name(&"aB".repeat(1 << 19)));
    }
}
