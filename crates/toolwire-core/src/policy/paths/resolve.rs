//! Resolving a path the way the kernel would open it, in time linear in the path.
//!
//! Components are walked from the root (or `/`) in one growing buffer: a symlink that exists is
//! followed (at most [`MAX_SYMLINKS`] of them), `..` is applied to the directory reached so far.
//! Once a component does not exist, the components after it cannot exist either, so they are
//! taken as written without asking the disk, until a `..` climbs back above the missing one.
//! `..` is therefore applied after the symlinks before it are followed: `link/../x` with
//! `link -> /etc/ssh` is `/etc/x`, as the tool would see it, not `<root>/x`.
//!
//! Every path is bounded by [`PATH_MAX`] (the text given and what it resolves to), so one path
//! costs at most a fixed amount of work whatever its text. The kernel walks the whole path on
//! each lookup, so a path deep inside an existing tree costs up to `PATH_MAX^2 / 2` bytes of
//! walking (about 0.4 s at 1,900 levels): the lookups of one call share a [`LookupBudget`] of
//! [`MAX_LOOKUP_BYTES`], past which its paths are refused rather than let a call of many deep
//! paths hold the thread.

use std::ffi::OsString;
use std::fs;
use std::path::{Component, Path, PathBuf};

/// The longest path accepted, in bytes, with its terminating NUL (as Linux's `PATH_MAX`).
pub const PATH_MAX: usize = 4096;

/// The most symlinks followed while resolving one path (as Linux's `MAXSYMLINKS`).
pub const MAX_SYMLINKS: usize = 40;

/// The most path bytes handed to `lstat` while checking the paths of one call (4 MiB): hundreds
/// of ordinary paths use a few percent of it.
pub const MAX_LOOKUP_BYTES: usize = 4 << 20;

/// What is left of a call's [`MAX_LOOKUP_BYTES`].
#[derive(Debug)]
pub struct LookupBudget(usize);

impl Default for LookupBudget {
    fn default() -> Self {
        LookupBudget(MAX_LOOKUP_BYTES)
    }
}

impl LookupBudget {
    /// Takes `bytes` from the budget, or says why it cannot.
    fn spend(&mut self, bytes: usize) -> Result<(), String> {
        self.0 = self.0.checked_sub(bytes).ok_or_else(|| {
            format!(
                "checking this call's paths would look up more than {MAX_LOOKUP_BYTES} bytes of \
                 path on disk; send fewer or shallower paths"
            )
        })?;
        Ok(())
    }
}

/// Refuses a path of `len` bytes that is over [`PATH_MAX`], naming the limit.
pub fn check_length(len: usize) -> Result<(), String> {
    if len < PATH_MAX {
        Ok(())
    } else {
        Err(format!(
            "the path is {len} bytes long, over PATH_MAX ({PATH_MAX} bytes with its final NUL)"
        ))
    }
}

/// Whether `text` is a `file:` URL as the WHATWG URL parser (Node's `new URL`) reads it: after
/// trimming leading C0 controls and spaces and removing ASCII tabs and newlines anywhere, its
/// scheme is `file` in any case (`" file:///x"`, `"fi\tle:///x"` and `"FILE:/x"` are). Reads at
/// most the leading controls and five more characters' worth of text.
pub fn is_file_url(text: &str) -> bool {
    let scheme = text
        .bytes()
        .skip_while(|&byte| byte <= b' ')
        .filter(|byte| !matches!(byte, b'\t' | b'\n' | b'\r'))
        .take(5)
        .map(|byte| byte.to_ascii_lowercase());
    scheme.eq(*b"file:")
}

/// The path a `file:` URL names, as Node's `fileURLToPath(new URL(text))` finds it: parsed by the
/// WHATWG rules (the `url` crate: backslashes are slashes, `.`/`..` segments and their
/// percent-encoded forms are collapsed, `file:x` is `/x`), its path percent-decoded, without
/// query and fragment. `None` when `text` is not a `file:` URL ([`is_file_url`]), an error when
/// it does not parse, names another host than `localhost`, or its escapes do not decode to UTF-8.
pub fn file_url_path(text: &str) -> Option<Result<String, String>> {
    if !is_file_url(text) {
        return None;
    }
    let url = match url::Url::parse(text) {
        Ok(url) => url,
        Err(error) => return Some(Err(format!("the file URL does not parse: {error}"))),
    };
    if let Some(host) = url.host_str().filter(|host| !host.is_empty()) {
        return Some(Err(format!(
            "a file URL on host {:?} is not a path on this machine",
            super::shown(host)
        )));
    }
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(url.path()).collect();
    Some(
        String::from_utf8(bytes)
            .map_err(|_| "the file URL's percent-escapes do not decode to UTF-8 text".to_string()),
    )
}

/// `path` with `.` and `..` collapsed as text, as `path.resolve` (Node) or `os.path.abspath`
/// (Python) do before the kernel sees it: `a/link/../b` is `a/b` whatever `link` is. `..` at
/// the root stays at the root. Linear in the path.
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                if !matches!(
                    out.components().next_back(),
                    None | Some(Component::RootDir | Component::Prefix(_))
                ) {
                    out.pop();
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Resolves an absolute path as the kernel would (see the module comment), its lookups taken
/// from `budget`.
pub fn resolve(path: &Path, budget: &mut LookupBudget) -> Result<PathBuf, String> {
    let mut resolved = PathBuf::new();
    // Components still to walk, last first (so pushing a symlink's target is cheap).
    let mut pending: Vec<OsString> = Vec::new();
    push_components(&mut pending, path, &mut resolved);
    let mut followed = 0usize;
    // The length of `resolved` under the first component found missing: while set, components
    // are not looked up.
    let mut missing_under: Option<usize> = None;
    while let Some(part) = pending.pop() {
        if part == ".." {
            resolved.pop();
            if missing_under.is_some_and(|len| resolved.as_os_str().len() <= len) {
                missing_under = None;
            }
            continue;
        }
        let parent_len = resolved.as_os_str().len();
        resolved.push(&part);
        check_length(resolved.as_os_str().len())
            .map_err(|_| format!("it resolves to a path over PATH_MAX ({PATH_MAX} bytes)"))?;
        if missing_under.is_some() {
            continue;
        }
        budget.spend(resolved.as_os_str().len())?;
        match fs::symlink_metadata(&resolved) {
            Ok(meta) if meta.file_type().is_symlink() => {
                followed += 1;
                if followed > MAX_SYMLINKS {
                    return Err(format!(
                        "more than {MAX_SYMLINKS} symlinks followed at {} (a loop?)",
                        super::shown(&resolved.to_string_lossy())
                    ));
                }
                let target = fs::read_link(&resolved).map_err(|error| {
                    format!(
                        "cannot read the link {}: {error}",
                        super::shown(&resolved.to_string_lossy())
                    )
                })?;
                resolved.pop();
                push_components(&mut pending, &target, &mut resolved);
            }
            Ok(_) => {}
            Err(_) => missing_under = Some(parent_len),
        }
    }
    Ok(resolved)
}

/// Queues the components of `path` in front of `pending`; a root or prefix resets `resolved`.
fn push_components(pending: &mut Vec<OsString>, path: &Path, resolved: &mut PathBuf) {
    let start = pending.len();
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => {
                *resolved = PathBuf::from(prefix.as_os_str());
                pending.truncate(start);
            }
            Component::RootDir => {
                let prefix: PathBuf = resolved
                    .components()
                    .take_while(|part| matches!(part, Component::Prefix(_)))
                    .collect();
                *resolved = prefix;
                resolved.push(std::path::MAIN_SEPARATOR_STR);
                pending.truncate(start);
            }
            Component::CurDir => {}
            Component::ParentDir => pending.push(OsString::from("..")),
            Component::Normal(name) => pending.push(name.to_os_string()),
        }
    }
    pending[start..].reverse();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_decode_to_their_path() {
        let rows: &[(&str, Option<Result<&str, &str>>)] = &[
            ("file:///etc/passwd", Some(Ok("/etc/passwd"))),
            ("FILE:///etc/passwd", Some(Ok("/etc/passwd"))),
            ("file://localhost/etc/passwd", Some(Ok("/etc/passwd"))),
            ("file://LOCALHOST/a%20b", Some(Ok("/a b"))),
            ("file:///%2e%2e/x", Some(Ok("/x"))),
            ("file:/etc/hosts", Some(Ok("/etc/hosts"))),
            // Node: `fileURLToPath(new URL("file:rel/x"))` is `/rel/x`, not a relative path.
            ("file:rel/x", Some(Ok("/rel/x"))),
            // WHATWG preprocessing, each seen read by Node as /etc/hostname (attack review, 24).
            (" file:///etc/hostname", Some(Ok("/etc/hostname"))),
            (
                "\u{1}\u{1f} file:///etc/hostname",
                Some(Ok("/etc/hostname")),
            ),
            ("fi\tle:///etc/hostname", Some(Ok("/etc/hostname"))),
            ("f\ni\rle:///etc/host\tname", Some(Ok("/etc/hostname"))),
            (
                "file:\\\\localhost\\etc\\hostname",
                Some(Ok("/etc/hostname")),
            ),
            // `/\` starts a host, as in Node (whose fileURLToPath refuses it).
            (
                "file:/\\etc/hostname",
                Some(Err(
                    "a file URL on host \"etc\" is not a path on this machine",
                )),
            ),
            ("file:///etc/hostname \n", Some(Ok("/etc/hostname"))),
            ("file:///a/b/../../../etc/x", Some(Ok("/etc/x"))),
            ("file:///a/%2E./x", Some(Ok("/x"))),
            (
                "file://exa mple/x",
                Some(Err(
                    "the file URL does not parse: invalid international domain name",
                )),
            ),
            ("file:///a?x=1#frag", Some(Ok("/a"))),
            ("file:///a%00b", Some(Ok("/a\0b"))),
            (
                "file://evil.example/share",
                Some(Err(
                    "a file URL on host \"evil.example\" is not a path on this machine",
                )),
            ),
            (
                "file:///%ff",
                Some(Err(
                    "the file URL's percent-escapes do not decode to UTF-8 text",
                )),
            ),
            ("files/a.txt", None),
            ("fil", None),
            ("https://x/y", None),
            ("/file:///x", None),
            ("xfile:///x", None),
            ("file", None),
            ("fi le:///x", None),
            ("http://localhost/etc/passwd", None),
        ];
        for (text, expected) in rows {
            let got = file_url_path(text);
            let got = got.as_ref().map(|r| r.as_deref().map_err(String::as_str));
            assert_eq!(got, *expected, "{text}");
        }
    }

    #[test]
    fn lengths_over_path_max_are_refused_naming_the_limit() {
        assert_eq!(check_length(0), Ok(()));
        assert_eq!(check_length(PATH_MAX - 1), Ok(()));
        assert_eq!(
            check_length(PATH_MAX),
            Err(
                "the path is 4096 bytes long, over PATH_MAX (4096 bytes with its final NUL)".into()
            )
        );
    }

    #[test]
    fn missing_components_are_lexical_until_dotdot_climbs_back() {
        let root = std::env::temp_dir();
        let root = fs::canonicalize(root).unwrap();
        for (rel, expected) in [
            ("no-such-dir-xyz/a/b/c", "no-such-dir-xyz/a/b/c"),
            ("no-such-dir-xyz/a/../b", "no-such-dir-xyz/b"),
            ("no-such-dir-xyz/../x", "x"),
            ("no-such-dir-xyz/a/../../x", "x"),
        ] {
            let resolved = resolve(&root.join(rel), &mut LookupBudget::default());
            assert_eq!(resolved, Ok(root.join(expected)), "{rel}");
        }
    }

    /// The resolution with every component looked up on disk (no lexical shortcut): the
    /// reference the linear resolver must agree with.
    #[cfg(unix)]
    fn looked_up_everywhere(path: &Path, hops: usize) -> Option<PathBuf> {
        let mut resolved = PathBuf::from("/");
        for component in path.components() {
            match component {
                Component::ParentDir => {
                    resolved.pop();
                }
                Component::Normal(name) => {
                    let next = resolved.join(name);
                    resolved = match fs::read_link(&next) {
                        Ok(_) if hops >= MAX_SYMLINKS => return None,
                        Ok(target) => looked_up_everywhere(&resolved.join(target), hops + 1)?,
                        Err(_) => next,
                    };
                }
                _ => {}
            }
        }
        Some(resolved)
    }

    #[cfg(unix)]
    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        #[test]
        fn the_lexical_shortcut_resolves_as_looking_everything_up(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "a", "b", "file.txt", "missing", "..", ".", "escape", "inside", "up", "loop",
                ]),
                0..14,
            )
        ) {
            let (base, ws) = fixture();
            let path = ws.join(parts.join("/"));
            let linear = resolve(&path, &mut LookupBudget::default()).ok();
            let reference = looked_up_everywhere(&path, 0);
            let _ = fs::remove_dir_all(base);
            proptest::prop_assert_eq!(linear, reference, "{}", parts.join("/"));
        }
    }

    /// A fresh `<base>/ws` with `a/b/`, `a/file.txt` and links `escape -> ../outside`,
    /// `inside -> a`, `a/up -> ..`, `loop -> loop`: (base, ws).
    #[cfg(unix)]
    fn fixture() -> (PathBuf, PathBuf) {
        use std::os::unix::fs::symlink;
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let base = fs::canonicalize(std::env::temp_dir())
            .unwrap()
            .join(format!(
                "toolwire-resolve-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
        let ws = base.join("ws");
        fs::create_dir_all(ws.join("a/b")).unwrap();
        fs::create_dir_all(base.join("outside/b")).unwrap();
        fs::write(ws.join("a/file.txt"), "x").unwrap();
        symlink("../outside", ws.join("escape")).unwrap();
        symlink("a", ws.join("inside")).unwrap();
        symlink("..", ws.join("a/up")).unwrap();
        symlink("loop", ws.join("loop")).unwrap();
        (base, ws)
    }

    #[test]
    fn a_resolution_over_path_max_is_refused() {
        // Under the limit as text, over it once joined to a deep root.
        let root = PathBuf::from("/").join("r".repeat(3000));
        let error =
            resolve(&root.join("x".repeat(2000)), &mut LookupBudget::default()).unwrap_err();
        assert_eq!(error, "it resolves to a path over PATH_MAX (4096 bytes)");
    }
}
