//! A check on the crate's shape, run as a test: its top-level modules form layers, so no module
//! reaches, through others, back to itself. Shared machinery (JSON text, canonical JSON and its
//! hashes, suggestions, quoting, the boundary enums, the message layouts) sits in leaf modules
//! that everything may use; the result's content and errors (`content`, `error`) below the
//! envelope that holds them with the normalization and sanitization reports; the per-wire pieces
//! (`wire`, `ids`, `schema`) below `provider`, the index that wires them per provider; the
//! scheduler, plans, the runtime and the generated contract on top.
//!
//! The check reads the sources from `lib.rs` down, following `mod` declarations, and builds the
//! graph of top-level modules: an edge for every path from the crate root (`crate::x`, each
//! member of `crate::{x, y::z}`, `$crate::x` in a macro, `super::` chains that reach the root)
//! and for every invocation of a macro the crate exports (`crate::codes!`), to the module that
//! defines it. Comments, string and character literals, and items under `#[cfg(test)]` (a test
//! of a lower module may drive it through the index above it) are not read. A cycle fails the
//! test, naming each module of it and where each edge is written.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// One token of Rust source, as far as the check needs: names, `::`, single punctuation, and
/// literals (their text is never read).
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Punct(char),
    Literal,
}

/// Tokens of `source`, each with its line; comments are dropped.
fn tokens(source: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        let start_line = line;
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(chars[i] == '\n');
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(&chars, i + 1, &mut line);
            out.push((Token::Literal, start_line));
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1F600}') or a lifetime ('a, 'static).
            if at(i + 1) == '\\' {
                i += 3;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push((Token::Literal, start_line));
            } else if at(i + 2) == '\'' {
                i += 3;
                out.push((Token::Literal, start_line));
            } else {
                i += 1;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' {
            let begin = i;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            let word: String = chars[begin..i].iter().collect();
            let prefix = matches!(word.as_str(), "b" | "r" | "br" | "c" | "cr");
            if prefix && (at(i) == '"' || (word.ends_with('r') && at(i) == '#')) {
                // A byte, raw or C string: r#"…"#, b"…".
                let mut hashes = 0;
                while at(i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                if at(i) != '"' {
                    // r#ident: a raw identifier.
                    let begin = i;
                    while at(i).is_alphanumeric() || at(i) == '_' {
                        i += 1;
                    }
                    let name: String = chars[begin..i].iter().collect();
                    out.push((Token::Ident(name), start_line));
                    continue;
                }
                i += 1;
                if word.ends_with('r') {
                    loop {
                        if i >= chars.len() {
                            break;
                        }
                        if chars[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                            i += 1 + hashes;
                            break;
                        }
                        line += usize::from(chars[i] == '\n');
                        i += 1;
                    }
                } else {
                    i = skip_string(&chars, i, &mut line);
                }
                out.push((Token::Literal, start_line));
            } else if word == "b" && at(i) == '\'' {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push((Token::Literal, start_line));
            } else {
                out.push((Token::Ident(word), start_line));
            }
        } else if c.is_ascii_digit() {
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            out.push((Token::Literal, start_line));
        } else if c == ':' && at(i + 1) == ':' {
            i += 2;
            out.push((Token::PathSep, start_line));
        } else {
            i += 1;
            out.push((Token::Punct(c), start_line));
        }
    }
    out
}

/// The index past the closing quote of a string whose text starts at `i`.
fn skip_string(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    while i < chars.len() && chars[i] != '"' {
        if chars[i] == '\\' {
            i += 1;
        }
        if chars.get(i) == Some(&'\n') {
            *line += 1;
        }
        i += 1;
    }
    i + 1
}

/// What one source file declares and names, read from its tokens.
#[derive(Debug, Default)]
struct FileScan {
    /// Modules declared `mod name;` outside test code: `(inline module path, name)`.
    child_files: Vec<(Vec<String>, String)>,
    /// Macros defined with `#[macro_export]`.
    exported_macros: Vec<String>,
    /// Outside test code: the first segment of each path from the crate root, with its line.
    root_paths: Vec<(String, usize)>,
    /// Outside test code: names invoked as macros (`name!`, `crate::name!`), with their line.
    macro_calls: Vec<(String, usize)>,
}

/// Reads the tokens of a file `depth` modules below the crate root (`lib.rs` is 0).
fn scan(tokens: &[(Token, usize)], depth: usize) -> FileScan {
    let ident = |i: usize| match tokens.get(i) {
        Some((Token::Ident(name), _)) => Some(name.as_str()),
        _ => None,
    };
    let is = |i: usize, token: &Token| tokens.get(i).map(|(t, _)| t) == Some(token);
    let mut scan = FileScan::default();
    // Open brackets; a `Some(name)` brace opened inline `mod name`.
    let mut open: Vec<Option<String>> = Vec::new();
    let mut attributes: Vec<Vec<Token>> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let (token, line) = &tokens[i];
        match token {
            Token::Punct('#') if is(i + 1, &Token::Punct('[')) => {
                let end = closing(tokens, i + 1);
                attributes.push(tokens[i + 2..end].iter().map(|(t, _)| t.clone()).collect());
                i = end + 1;
                continue;
            }
            _ => {}
        }
        let attrs = std::mem::take(&mut attributes);
        let test_only = attrs.iter().any(|a| {
            a == &[
                Token::Ident("cfg".into()),
                Token::Punct('('),
                Token::Ident("test".into()),
                Token::Punct(')'),
            ]
        });
        if test_only {
            i = item_end(tokens, i) + 1;
            continue;
        }
        match token {
            Token::Ident(word) if word == "mod" => {
                if let Some(name) = ident(i + 1) {
                    if is(i + 2, &Token::Punct(';')) {
                        let inline: Vec<String> = open.iter().flatten().cloned().collect();
                        scan.child_files.push((inline, name.to_owned()));
                    } else if is(i + 2, &Token::Punct('{')) {
                        open.push(Some(name.to_owned()));
                        i += 3;
                        continue;
                    }
                }
            }
            Token::Ident(word) if word == "macro_rules" && is(i + 1, &Token::Punct('!')) => {
                let exported = attrs
                    .iter()
                    .any(|a| a == &[Token::Ident("macro_export".into())]);
                if let (true, Some(name)) = (exported, ident(i + 2)) {
                    scan.exported_macros.push(name.to_owned());
                }
                i += 2;
                continue;
            }
            Token::Ident(word)
                if is(i + 1, &Token::Punct('!'))
                    && !is(i.wrapping_sub(1), &Token::PathSep)
                    && is_macro_body(tokens.get(i + 2)) =>
            {
                scan.macro_calls.push((word.clone(), *line));
            }
            Token::Ident(word) if word == "crate" && is(i + 1, &Token::PathSep) => {
                // `$crate::x` in a macro names the root of the crate defining it, as `crate::x`.
                let qualified = is(i.wrapping_sub(1), &Token::PathSep);
                if !qualified {
                    root_path(tokens, i + 2, *line, &mut scan);
                }
            }
            Token::Ident(word)
                if word == "super"
                    && is(i + 1, &Token::PathSep)
                    && !is(i.wrapping_sub(1), &Token::PathSep) =>
            {
                let mut k = i;
                let mut supers = 0;
                while ident(k) == Some("super") && is(k + 1, &Token::PathSep) {
                    supers += 1;
                    k += 2;
                }
                let inline = open.iter().flatten().count();
                if supers == depth + inline {
                    root_path(tokens, k, *line, &mut scan);
                }
                i = k;
                continue;
            }
            Token::Punct('{' | '(' | '[') => open.push(None),
            Token::Punct('}' | ')' | ']') => {
                open.pop();
            }
            _ => {}
        }
        i += 1;
    }
    scan
}

/// Whether `token` opens a macro's input: `name!(…)`, `name![…]`, `name! {…}` (not `x != y`).
fn is_macro_body(token: Option<&(Token, usize)>) -> bool {
    matches!(token, Some((Token::Punct('(' | '[' | '{'), _)))
}

/// Records the path from the crate root whose first segment starts at `i`: a name (a macro
/// invocation `name!` is recorded as one), or a `{…}` group whose members each start with one.
fn root_path(tokens: &[(Token, usize)], i: usize, line: usize, scan: &mut FileScan) {
    match tokens.get(i).map(|(t, _)| t) {
        Some(Token::Ident(name)) => {
            if tokens.get(i + 1).map(|(t, _)| t) == Some(&Token::Punct('!')) {
                scan.macro_calls.push((name.clone(), line));
            } else {
                scan.root_paths.push((name.clone(), line));
            }
        }
        Some(Token::Punct('{')) => {
            let end = closing(tokens, i);
            let mut depth = 0;
            let mut member_start = true;
            for (token, line) in &tokens[i + 1..end] {
                match token {
                    Token::Punct('{') => depth += 1,
                    Token::Punct('}') => depth -= 1,
                    Token::Punct(',') if depth == 0 => {
                        member_start = true;
                        continue;
                    }
                    Token::Ident(name) if depth == 0 && member_start => {
                        scan.root_paths.push((name.clone(), *line));
                    }
                    _ => {}
                }
                member_start = false;
            }
        }
        _ => {}
    }
}

/// The index of the bracket closing the one at `open`.
fn closing(tokens: &[(Token, usize)], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, (token, _)) in tokens.iter().enumerate().skip(open) {
        match token {
            Token::Punct('{' | '(' | '[') => depth += 1,
            Token::Punct('}' | ')' | ']') => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// The index of the last token of the item starting at `start`: its `;`, or the brace that
/// closes its body.
fn item_end(tokens: &[(Token, usize)], start: usize) -> usize {
    let mut i = start;
    while i < tokens.len() {
        match tokens[i].0 {
            Token::Punct(';') => return i,
            Token::Punct('{') => return closing(tokens, i),
            Token::Punct('(' | '[') => i = closing(tokens, i) + 1,
            _ => i += 1,
        }
    }
    tokens.len()
}

/// Edges between top-level modules: `from -> to -> where` (`path:line`, in order).
type Graph = BTreeMap<String, BTreeMap<String, Vec<String>>>;

/// The graph of the crate whose files `read` returns by path under `src/` (`None`: no such
/// file). Panics when a declared module has no file.
fn module_graph(read: &dyn Fn(&str) -> Option<String>) -> Graph {
    struct File {
        path: String,
        top: String,
        scan: FileScan,
    }
    let root = read("lib.rs").expect("lib.rs");
    let mut files = Vec::new();
    // (directory, module name, depth below the root, top-level module)
    let mut pending: Vec<(String, String, usize, String)> = scan(&tokens(&root), 0)
        .child_files
        .into_iter()
        .map(|(inline, name)| (inline.join("/"), name.clone(), 1 + inline.len(), name))
        .collect();
    while let Some((dir, name, depth, top)) = pending.pop() {
        let dir = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let (path, source) = [format!("{dir}{name}.rs"), format!("{dir}{name}/mod.rs")]
            .into_iter()
            .find_map(|path| read(&path).map(|source| (path, source)))
            .unwrap_or_else(|| panic!("module {dir}{name} has no file"));
        let scan = scan(&tokens(&source), depth);
        let own_dir = path.trim_end_matches("/mod.rs").trim_end_matches(".rs");
        for (inline, child) in &scan.child_files {
            let mut parts = vec![own_dir.to_owned()];
            parts.extend(inline.iter().cloned());
            let child_depth = depth + inline.len() + 1;
            pending.push((parts.join("/"), child.clone(), child_depth, top.clone()));
        }
        files.push(File { path, top, scan });
    }
    let modules: BTreeSet<&str> = files.iter().map(|f| f.top.as_str()).collect();
    let macros: BTreeMap<&str, &str> = files
        .iter()
        .flat_map(|f| {
            f.scan
                .exported_macros
                .iter()
                .map(|m| (m.as_str(), f.top.as_str()))
        })
        .collect();
    let mut graph = Graph::new();
    for file in &files {
        let named = file
            .scan
            .root_paths
            .iter()
            .map(|(name, line)| (name.as_str(), *line));
        let invoked = file
            .scan
            .macro_calls
            .iter()
            .filter_map(|(name, line)| macros.get(name.as_str()).map(|top| (*top, *line)));
        for (target, line) in named.chain(invoked) {
            if target != file.top && modules.contains(target) {
                graph
                    .entry(file.top.clone())
                    .or_default()
                    .entry(target.to_owned())
                    .or_default()
                    .push(format!("{}:{line}", file.path));
            }
        }
    }
    graph
}

/// One cycle per group of modules that reach each other, as `a -> b (where) -> … -> a (where)`.
fn cycles(graph: &Graph) -> Vec<String> {
    let reach = |from: &str, to: &str| -> Option<Vec<String>> {
        // The shortest path from `from` to `to`, both included.
        let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([from]);
        while let Some(module) = queue.pop_front() {
            if module == to {
                let mut path = vec![to.to_owned()];
                let mut at = to;
                while at != from {
                    at = came_from[at];
                    path.push(at.to_owned());
                }
                path.reverse();
                return Some(path);
            }
            for next in graph.get(module).into_iter().flat_map(|edges| edges.keys()) {
                if next != from && !came_from.contains_key(next.as_str()) {
                    came_from.insert(next, module);
                    queue.push_back(next);
                }
            }
        }
        None
    };
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut found = Vec::new();
    for (module, edges) in graph {
        for target in edges.keys() {
            if seen.contains(module) {
                break;
            }
            let Some(back) = reach(target, module) else {
                continue;
            };
            let mut text = module.clone();
            let mut from = module.as_str();
            for to in &back {
                let at = &graph[from][to][0];
                text.push_str(&format!(" -> {to} ({at})"));
                from = to;
            }
            seen.extend(back);
            found.push(text);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::Path;

    use super::*;

    fn crate_graph() -> Graph {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        module_graph(&|path| std::fs::read_to_string(root.join(path)).ok())
    }

    fn graph_of(files: &[(&str, &str)]) -> Graph {
        let files: HashMap<&str, &str> = files.iter().copied().collect();
        module_graph(&|path| files.get(path).map(|s| (*s).to_owned()))
    }

    #[test]
    fn top_level_modules_form_layers_without_cycles() {
        let graph = crate_graph();
        // The graph is read at all: edges of each kind the check follows are there.
        let has = |from: &str, to: &str| graph.get(from).is_some_and(|e| e.contains_key(to));
        assert!(has("definitions", "schema") && has("runtime", "dispatch"));
        assert!(has("provider", "wire") && has("provider", "ids") && has("provider", "schema"));
        assert!(has("dispatch", "boundary_enums"), "a macro's edge");
        let cycles = cycles(&graph);
        assert!(
            cycles.is_empty(),
            "import cycles among top-level modules:\n{}",
            cycles.join("\n")
        );
    }

    #[test]
    fn a_cycle_is_named_with_where_each_edge_is_written() {
        let graph = graph_of(&[
            (
                "lib.rs",
                "pub mod a;\npub mod b;\npub mod c;\npub mod leaf;",
            ),
            ("a.rs", "use crate::leaf::X;\nuse crate::{leaf, b::Y};"),
            ("b/mod.rs", "mod inner;"),
            ("b/inner.rs", "fn f() {\n    super::super::c::g();\n}"),
            ("c.rs", "crate::mark! { a }"),
            (
                "leaf.rs",
                "#[macro_export]\nmacro_rules! mark { ($x:ident) => { $crate::a::T } }",
            ),
        ]);
        assert_eq!(
            cycles(&graph),
            ["a -> b (a.rs:2) -> c (b/inner.rs:2) -> leaf (c.rs:1) -> a (leaf.rs:2)"]
        );
    }

    #[test]
    fn comments_literals_and_test_code_make_no_edge() {
        let graph = graph_of(&[
            ("lib.rs", "pub mod a;\npub mod b;\n#[cfg(test)]\nmod c;"),
            ("a.rs", "use crate::b::X;"),
            (
                "b.rs",
                concat!(
                    "// crate::a::X\n/* crate::a /* nested */ crate::a */\n",
                    "const S: &str = \"crate::a::X\";\nconst R: &str = r#\"crate::a\"#;\n",
                    "const C: char = '\"';\nfn f<'a>(x: &'a str) {}\n",
                    "#[cfg(test)]\nmod tests {\n    use crate::a::X;\n}\n",
                    "#[cfg(test)]\nmod more;\n",
                    "#[cfg(test)]\nfn helper() { crate::a::f() }\n",
                    "mod inner { fn g() { super::super::d::h() } }\n",
                ),
            ),
            ("c.rs", "use crate::a::X;"),
        ]);
        assert!(cycles(&graph).is_empty(), "{graph:?}");
        assert_eq!(graph.len(), 1, "{graph:?}");
        assert_eq!(graph["a"]["b"], ["a.rs:1"]);
    }
}
