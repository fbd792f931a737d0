//! Suggestions for misspelled names: the closest registered tools, wires, targets or options to an
//! unknown one, and the "did you mean" every unknown-name error ends with.

/// The "did you mean" of an unknown name: `; did you mean "x"?` with the closest of
/// `candidates` (see [`closest_names`]), or nothing when none is close.
pub fn did_you_mean<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> String {
    match closest_names(name, candidates, 1).first() {
        Some(near) => format!("; did you mean {}?", crate::json_text::json_string(near)),
        None => String::new(),
    }
}

/// Checks the message of an unknown-name error for each `(name, closest)`: it starts with
/// `prefix(name)` and ends with the "did you mean" of `closest`, or has none; a megabyte name
/// gives a short message.
#[cfg(test)]
pub(crate) fn assert_suggestions(
    message_of: impl Fn(&str) -> String,
    prefix: impl Fn(&str) -> String,
    cases: &[(&str, Option<&str>)],
) {
    for (name, near) in cases {
        let message = message_of(name);
        assert!(message.starts_with(&prefix(name)), "{message}");
        match near {
            Some(near) => assert!(
                message.ends_with(&format!("; did you mean \"{near}\"?")),
                "{message}"
            ),
            None => assert!(!message.contains("did you mean"), "{message}"),
        }
    }
    assert!(message_of(&"x".repeat(1 << 20)).len() < 400);
}

/// Up to `limit` of `candidates` closest to `name` (case-insensitive edit distance, a swap of
/// neighbours counting once, within a third of the longer name, at least 2, and at most half the
/// shorter one; or one containing the other),
/// closest first: the "did you mean" of an unknown tool, wire or target name.
pub fn closest_names<'c>(
    name: &str,
    candidates: impl IntoIterator<Item = &'c str>,
    limit: usize,
) -> Vec<&'c str> {
    let wanted = name.to_lowercase();
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|candidate| {
            let lower = candidate.to_lowercase();
            let (a, b) = (wanted.chars().count(), lower.chars().count());
            let threshold = (a.max(b) / 3).max(2);
            let contains = !wanted.is_empty()
                && lower.len() >= 3
                && wanted.len() >= 3
                && (lower.contains(&wanted) || wanted.contains(&lower));
            // One inside the other is exactly the length difference away; otherwise names that
            // differ in length by more than the threshold are never close (and a long name costs
            // no quadratic comparison).
            let distance = if contains {
                a.abs_diff(b)
            } else if a.abs_diff(b) <= threshold {
                swap_distance(&wanted, &lower)
            } else {
                return None;
            };
            // (and an edit of two in a three-letter name is another name: `gpt` is not `p0`)
            let near = distance <= threshold && 2 * distance <= a.min(b);
            (near || contains).then_some((distance, candidate))
        })
        .collect();
    scored.sort_by_key(|&(distance, candidate)| (distance, candidate));
    scored
        .into_iter()
        .take(limit)
        .map(|(_, candidate)| candidate)
        .collect()
}

/// [`edit_distance`] where swapping two neighbours is one edit, not two (optimal string
/// alignment): the commonest slip in a typed name (`dri` for `dir`).
fn swap_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // three rows: the one before the previous, the previous, and the one being filled
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let mut distance = (previous[j] + 1)
                .min(row[j - 1] + 1)
                .min(previous[j - 1] + usize::from(a[i - 1] != b[j - 1]));
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                distance = distance.min(before[j - 2] + 1);
            }
            row[j] = distance;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut row);
    }
    previous[b.len()]
}

/// Levenshtein distance over chars; names are short, so O(n*m) is fine.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_near_only_when_most_of_them_stays() {
        let targets = ["openai", "anthropic", "gemini", "xai", "p0", "llamacpp"];
        assert_eq!(closest_names("gpt", targets, 1), Vec::<&str>::new());
        assert_eq!(closest_names("gemni", targets, 1), vec!["gemini"]);
        assert_eq!(closest_names("raed", ["read", "write"], 1), vec!["read"]);
        assert_eq!(
            closest_names("dri", ["dir", "flushIntervalMs"], 1),
            vec!["dir"]
        );
        assert_eq!(closest_names("xia", targets, 1), vec!["xai"]);
    }

    #[test]
    fn swap_distance_counts_a_swap_of_neighbours_once() {
        assert_eq!(swap_distance("dri", "dir"), 1);
        assert_eq!(swap_distance("kitten", "sitting"), 3);
        assert_eq!(swap_distance("", "abc"), 3);
        assert_eq!(swap_distance("ca", "abc"), 3);
        assert_eq!(swap_distance("same", "same"), 0);
    }

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
