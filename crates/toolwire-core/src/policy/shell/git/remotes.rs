//! Where the URLs of a subcommand that talks to another repository lead, as git's `remote.c`
//! reads them: `url.<base>.insteadOf` and `pushInsteadOf` rewrite a URL's longest matching
//! prefix (the first configured on a tie), remotes come from the configuration and from the
//! legacy `<gitdir>/remotes/<name>` and `<gitdir>/branches/<name>` files, and a name that is no
//! configured remote is a URL or path itself.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::super::git_config::Entry;

/// Prefixes to rewrite, as a byte trie: the longest prefix of a URL is found in one walk of the
/// URL (linear), whatever the number of rewrites.
#[derive(Default)]
struct PrefixTrie {
    /// The base of the rewrite ending at each node (index into `bases`).
    ends: Vec<Option<usize>>,
    edges: HashMap<(usize, u8), usize>,
    bases: Vec<String>,
}

impl PrefixTrie {
    /// Builds the trie of `(base, prefix)` pairs in configuration order. Git tries the bases
    /// in the order they first appear and keeps the first of equally long prefixes.
    fn new(pairs: Vec<(&str, &str)>) -> PrefixTrie {
        let mut trie = PrefixTrie {
            ends: vec![None],
            ..PrefixTrie::default()
        };
        let mut order: HashMap<&str, usize> = HashMap::new();
        let mut ranked: Vec<(usize, usize, &str)> = Vec::new();
        for (at, (base, prefix)) in pairs.into_iter().enumerate() {
            let next = order.len();
            let rank = *order.entry(base).or_insert(next);
            if rank == trie.bases.len() {
                trie.bases.push(base.to_string());
            }
            ranked.push((rank, at, prefix));
        }
        ranked.sort_unstable();
        for (rank, _, prefix) in ranked {
            let mut node = 0;
            for &byte in prefix.as_bytes() {
                let fresh = trie.ends.len();
                node = *trie.edges.entry((node, byte)).or_insert(fresh);
                if node == fresh {
                    trie.ends.push(None);
                }
            }
            trie.ends[node].get_or_insert(rank);
        }
        trie
    }

    /// `url` with its longest configured prefix replaced by that rewrite's base (`None`: no
    /// prefix matches).
    fn rewrite(&self, url: &str) -> Option<String> {
        let mut node = 0;
        let mut best = self.ends[0].map(|base| (0, base));
        for (at, &byte) in url.as_bytes().iter().enumerate() {
            let Some(&next) = self.edges.get(&(node, byte)) else {
                break;
            };
            node = next;
            if let Some(base) = self.ends[node] {
                best = Some((at + 1, base));
            }
        }
        // A prefix may end inside a character only where the URL's next byte continues it, so
        // `at` is always a character boundary of `url` (the prefix itself is whole UTF-8).
        best.map(|(len, base)| format!("{}{}", self.bases[base], &url[len..]))
    }
}

/// The URL rewrites of a configuration (`url.<base>.insteadOf`, `url.<base>.pushInsteadOf`).
pub struct Rewrites {
    fetch: PrefixTrie,
    push: PrefixTrie,
}

impl Rewrites {
    /// The rewrites `entries` configure.
    pub fn new(entries: &[Entry]) -> Rewrites {
        let pairs = |key: &str| {
            entries
                .iter()
                .filter(|e| e.section == "url" && e.key == key)
                .filter_map(|e| Some((e.subsection.as_deref()?, e.value.as_deref()?)))
                .collect::<Vec<_>>()
        };
        Rewrites {
            fetch: PrefixTrie::new(pairs("insteadof")),
            push: PrefixTrie::new(pairs("pushinsteadof")),
        }
    }

    /// The URL git fetches from for `url`.
    pub fn fetch(&self, url: &str) -> String {
        self.fetch.rewrite(url).unwrap_or_else(|| url.to_string())
    }

    /// The URL git pushes to for `url` (not a configured `pushurl`): its `pushInsteadOf`
    /// rewrite, or else its `insteadOf` one.
    pub fn push(&self, url: &str) -> String {
        self.push.rewrite(url).unwrap_or_else(|| self.fetch(url))
    }
}

/// The remotes of a repository, as git finds them.
pub struct Remotes {
    /// How URLs are rewritten.
    pub rewrites: Rewrites,
    /// The names of the remotes that have a URL (configuration or legacy files).
    names: HashSet<String>,
    /// Every configured URL, as `(where, url)`: fetch URLs, push URLs, and the values of
    /// `branch.<name>.remote`, `pushRemote` and `remote.pushDefault` that name no remote.
    urls: Vec<(String, String)>,
}

/// Whether `name` is a remote name git would look up in the legacy files (`valid_remote_nick`).
fn remote_nick(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains('/')
}

/// The remotes of the legacy files in `gitdir`, as `(name, file, url)`: `remotes/<name>`
/// (`URL: <url>` lines) and `branches/<name>` (`<url>#<branch>`). A file over `limit` bytes or
/// not text is an error (git reads it whole).
fn legacy_remotes(gitdir: &Path, limit: u64) -> Result<Vec<(String, String, String)>, String> {
    let mut out = Vec::new();
    for dir in ["remotes", "branches"] {
        let Ok(files) = std::fs::read_dir(gitdir.join(dir)) else {
            continue;
        };
        for file in files.flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            let path = file.path();
            let shown = path.display().to_string();
            if std::fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
                continue;
            }
            let text = std::fs::metadata(&path)
                .is_ok_and(|m| m.len() <= limit)
                .then(|| std::fs::read_to_string(&path).ok())
                .flatten()
                .ok_or_else(|| format!("the remote file `{shown}` cannot be checked (over {limit} bytes, or not text)"))?;
            let urls: Vec<&str> = match dir {
                "remotes" => text
                    .lines()
                    .filter_map(|l| l.strip_prefix("URL:"))
                    .map(str::trim)
                    .collect(),
                _ => text
                    .lines()
                    .next()
                    .map(|l| l.trim().split('#').next().unwrap_or_default())
                    .into_iter()
                    .collect(),
            };
            for url in urls {
                out.push((name.clone(), shown.clone(), url.to_string()));
            }
        }
    }
    Ok(out)
}

impl Remotes {
    /// The remotes configured by `entries` and the legacy files of the git directory `gitdir`
    /// (none without one); an error when a legacy file cannot be read whole (over `limit`).
    pub fn new(entries: &[Entry], gitdir: Option<&Path>, limit: u64) -> Result<Remotes, String> {
        let rewrites = Rewrites::new(entries);
        let mut names = HashSet::new();
        let mut urls = Vec::new();
        let mut pointers = Vec::new();
        for e in entries {
            let (Some(value), sub) = (e.value.as_deref(), e.subsection.as_deref()) else {
                continue;
            };
            let label = || match sub {
                Some(sub) => keys_label(&e.section, sub, &e.key),
                None => format!("{}.{}", e.section, e.key),
            };
            match (e.section.as_str(), sub, e.key.as_str()) {
                ("remote", Some(name), "url") => {
                    names.insert(name.to_string());
                    urls.push((label(), rewrites.fetch(value)));
                    urls.push((label(), rewrites.push(value)));
                }
                ("remote", Some(_), "pushurl") => {
                    urls.push((label(), rewrites.fetch(value)));
                }
                ("branch", Some(_), "remote" | "pushremote") | ("remote", None, "pushdefault") => {
                    pointers.push((label(), value.to_string()));
                }
                _ => {}
            }
        }
        let legacy = match gitdir {
            Some(gitdir) => legacy_remotes(gitdir, limit)?,
            None => Vec::new(),
        };
        for (name, file, url) in legacy {
            names.insert(name);
            urls.push((file.clone(), rewrites.fetch(&url)));
            urls.push((file, rewrites.push(&url)));
        }
        // A value naming no remote is a URL or path itself.
        let named = |value: &str| remote_nick(value) && names.contains(value);
        let pointed: Vec<_> = pointers
            .into_iter()
            .filter(|(_, value)| !named(value))
            .flat_map(|(label, value)| {
                [
                    (label.clone(), rewrites.fetch(&value)),
                    (label, rewrites.push(&value)),
                ]
            })
            .collect();
        urls.extend(pointed);
        Ok(Remotes {
            rewrites,
            names,
            urls,
        })
    }

    /// No remotes and no rewrites (no repository was read).
    pub fn none() -> Remotes {
        Remotes {
            rewrites: Rewrites::new(&[]),
            names: HashSet::new(),
            urls: Vec::new(),
        }
    }

    /// Whether `name` names a remote with a URL (its URLs are among [`Remotes::configured`]).
    pub fn is_remote(&self, name: &str) -> bool {
        remote_nick(name) && self.names.contains(name)
    }

    /// Every configured URL, rewritten, as `(where it is set, url)`.
    pub fn configured(&self) -> &[(String, String)] {
        &self.urls
    }
}

/// `section.<sub>.key`, bounded.
fn keys_label(section: &str, sub: &str, key: &str) -> String {
    super::keys::bounded(&format!("{section}.{sub}.{key}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(section: &str, sub: &str, key: &str, value: &str) -> Entry {
        Entry {
            section: section.into(),
            subsection: Some(sub.into()),
            key: key.into(),
            value: Some(value.into()),
        }
    }

    /// Rewrites as git's `alias_url` makes them (checked against `git ls-remote --get-url` in
    /// the bypass tests): the longest prefix wins, the first configured base on a tie, an empty
    /// prefix matches every URL, `pushInsteadOf` only for pushes and before `insteadOf`.
    #[test]
    fn urls_are_rewritten_by_the_longest_prefix() {
        let entries = [
            entry("url", "/srv/a", "insteadof", "https://h/"),
            entry("url", "/srv/b", "insteadof", "https://h/x"),
            entry("url", "/srv/c", "insteadof", "https://h/x"),
            entry("url", "/srv/b", "insteadof", "git@h:"),
            entry("url", "/srv/p", "pushinsteadof", "https://h/x/y"),
            entry("url", "/srv/e", "insteadof", ""),
            entry("url", "/srv/é", "insteadof", "https://é/"),
        ];
        let rewrites = Rewrites::new(&entries);
        for (url, fetch, push) in [
            ("https://h/z.git", "/srv/az.git", "/srv/az.git"),
            ("https://h/x.git", "/srv/b.git", "/srv/b.git"),
            ("https://h/x/y.git", "/srv/b/y.git", "/srv/p.git"),
            ("git@h:r.git", "/srv/br.git", "/srv/br.git"),
            (
                "ssh://other/r",
                "/srv/essh://other/r",
                "/srv/essh://other/r",
            ),
            ("https://é/r", "/srv/ér", "/srv/ér"),
            ("https://é", "/srv/ehttps://é", "/srv/ehttps://é"),
        ] {
            assert_eq!(rewrites.fetch(url), fetch, "{url}");
            assert_eq!(rewrites.push(url), push, "{url}");
        }
        let none = Rewrites::new(&[]);
        assert_eq!(none.fetch("https://h/x"), "https://h/x");
    }

    /// Many rewrites and a long URL: one walk of the URL.
    #[test]
    fn rewriting_is_linear() {
        let bases: Vec<String> = (0..5_000).map(|i| format!("/srv/{i}")).collect();
        let prefixes: Vec<String> = (0..5_000).map(|i| "a".repeat(i % 500)).collect();
        let pairs = bases
            .iter()
            .zip(&prefixes)
            .map(|(b, p)| (b.as_str(), p.as_str()))
            .collect();
        let trie = PrefixTrie::new(pairs);
        let url = "a".repeat(1_000_000);
        let got = trie.rewrite(&url).unwrap();
        assert!(got.starts_with("/srv/499a"), "{}", &got[..20]);
    }
}
