//! A check on the crate's shape, run as a test: its top-level modules form layers, so no module
//! reaches, through others, back to itself. Shared machinery (JSON text, canonical JSON and its
//! hashes, suggestions, quoting, the provider names) sits in leaf modules that everything may
//! use; the result's content and errors (`content`, `error`) below the envelope that holds them
//! with the normalization and sanitization reports; the scheduler, plans and the runtime on top.
//!
//! The check reads the sources: every `crate::<module>` path outside comments and test modules
//! is an edge from the module of the file it is in. A cycle among top-level modules fails the
//! test, naming the edges that close it.

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::Path;

    type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

    /// `crate::` paths of one source, each with the module it names, from code outside comments
    /// and `#[cfg(test)]` modules (a file's tests come last, as this crate writes them).
    fn references(source: &str) -> Vec<String> {
        let code = source.split("#[cfg(test)]").next().unwrap_or("");
        let mut found = Vec::new();
        for line in code.lines() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for (at, _) in line.match_indices("crate::") {
                let name: String = line[at + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    found.push(name);
                }
            }
        }
        found
    }

    fn walk(dir: &Path, root: &Path, graph: &mut Graph) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, graph);
                continue;
            }
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let file = path.file_name().unwrap().to_string_lossy();
            if !relative.ends_with(".rs") || file.contains("test") {
                continue;
            }
            let module = relative
                .split('/')
                .next()
                .unwrap()
                .trim_end_matches(".rs")
                .to_owned();
            let source = std::fs::read_to_string(&path).unwrap();
            for target in references(&source) {
                if target != module && target != "lib" {
                    graph
                        .entry(module.clone())
                        .or_default()
                        .entry(target)
                        .or_default()
                        .insert(relative.clone());
                }
            }
        }
    }

    /// The modules each module reaches, through any number of edges.
    fn reach(graph: &Graph, from: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_owned()];
        while let Some(module) = stack.pop() {
            for next in graph
                .get(&module)
                .into_iter()
                .flat_map(|edges| edges.keys())
            {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    }

    #[test]
    fn top_level_modules_form_layers_without_cycles() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut graph = Graph::new();
        walk(&root, &root, &mut graph);
        assert!(graph.contains_key("dispatch") && graph.contains_key("wire"));
        let mut problems = Vec::new();
        for (module, edges) in &graph {
            for (target, files) in edges {
                if reach(&graph, target).contains(module) {
                    problems.push(format!("{module} -> {target} (in {files:?})"));
                }
            }
        }
        assert!(
            problems.is_empty(),
            "these edges close a cycle among top-level modules:\n{}",
            problems.join("\n")
        );
    }
}
