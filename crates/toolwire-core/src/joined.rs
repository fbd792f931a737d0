//! Many texts crossing as one: the driver joins them with [`SEPARATOR`] and sends each one's
//! length in UTF-16 code units (JavaScript's `string.length`, known without a pass over the
//! text). One string and one `Uint32Array` cross instead of an array of strings, whose elements
//! N-API fetches and converts one call at a time.
//!
//! The text arrives as UTF-8, each lone surrogate replaced by U+FFFD (one unit, as the surrogate
//! was). The separator keeps a high surrogate ending one text and a low one starting the next
//! from reading as a pair across the boundary: each stays alone, and becomes U+FFFD as it would
//! have crossing on its own.

/// What joins the texts: one UTF-16 unit, found again after each text.
pub const SEPARATOR: &str = "\u{0}";

/// The texts joined in `joined`, with `units[i]` UTF-16 units each, or why the lengths do not
/// fit the text (only a driver's bug does that). Linear in the text; an ASCII text is split
/// without reading its characters one by one.
pub fn split<'a>(joined: &'a str, units: &[u32]) -> Result<Vec<&'a str>, String> {
    let mut parts = Vec::with_capacity(units.len());
    let mut rest = joined;
    for (index, &count) in units.iter().enumerate() {
        if index > 0 {
            rest = rest.strip_prefix(SEPARATOR).ok_or_else(|| {
                format!(
                    "joined texts: no separator before text {index} of {}",
                    units.len()
                )
            })?;
        }
        let end = byte_end(rest, count as usize).ok_or_else(|| {
            format!(
                "joined texts: text {index} of {} is said to be {count} units long, past the end",
                units.len()
            )
        })?;
        let (part, after) = rest.split_at(end);
        parts.push(part);
        rest = after;
    }
    if !rest.is_empty() {
        return Err(format!(
            "joined texts: {} bytes left after the last of {} texts",
            rest.len(),
            units.len()
        ));
    }
    Ok(parts)
}

/// The byte offset in `text` after its first `units` UTF-16 units, if that is a character
/// boundary within it.
fn byte_end(text: &str, units: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if units <= bytes.len() && bytes[..units].is_ascii() {
        return Some(units);
    }
    let mut counted = 0;
    for (offset, c) in text.char_indices() {
        if counted == units {
            return Some(offset);
        }
        counted += c.len_utf16();
        if counted > units {
            return None;
        }
    }
    (counted == units).then_some(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts as the driver joins them, with their lengths as JavaScript counts them.
    fn joined(texts: &[&str]) -> (String, Vec<u32>) {
        let units = texts
            .iter()
            .map(|t| t.encode_utf16().count() as u32)
            .collect();
        (texts.join(SEPARATOR), units)
    }

    #[test]
    fn splits_texts_of_every_width_back_as_they_were() {
        let texts = [
            "",
            "{\"a\":1}",
            "é",
            "日本語",
            "😀 and 𝄞",
            "\u{0}inside\u{0}",
            "",
            "last",
        ];
        let (text, units) = joined(&texts);
        assert_eq!(split(&text, &units).unwrap(), texts);
        assert_eq!(split("", &[]).unwrap(), Vec::<&str>::new());
        assert_eq!(split("", &[0]).unwrap(), vec![""]);
    }

    #[test]
    fn lone_surrogates_split_as_the_replacement_they_became() {
        // a text ending in a high surrogate and the next starting with a low one: JavaScript
        // counts one unit each, and each reaches us as its own U+FFFD
        assert_eq!(
            split("a\u{FFFD}\u{0}\u{FFFD}b", &[2, 2]).unwrap(),
            vec!["a\u{FFFD}", "\u{FFFD}b"]
        );
    }

    #[test]
    fn lengths_that_do_not_fit_are_refused() {
        // past the end, in the middle of a character, no separator, text left over
        assert!(split("abc", &[4]).unwrap_err().contains("past the end"));
        assert!(split("😀", &[1]).is_err());
        assert!(split("ab", &[1, 0]).unwrap_err().contains("no separator"));
        assert!(split("abc", &[2]).unwrap_err().contains("1 bytes left"));
    }

    #[test]
    fn every_split_of_a_mixed_text_is_found() {
        let alphabet = ["a", "é", "日", "😀", "\u{0}"];
        for n in 0..200usize {
            let texts: Vec<String> = (0..n % 5)
                .map(|i| {
                    (0..(n * 7 + i) % 9)
                        .map(|j| alphabet[(n + i + j) % 5])
                        .collect()
                })
                .collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let (text, units) = joined(&refs);
            assert_eq!(split(&text, &units).unwrap(), refs, "case {n}");
        }
    }
}
