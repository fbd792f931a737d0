use super::*;
use proptest::prelude::*;

const TOKEN: &str = "ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNbVc";

fn rules(scanner: Option<&SecretScanner>) -> TextRules<'_> {
    TextRules {
        head_ratio: 0.5,
        strip_ansi: false,
        scanner,
    }
}

fn keep(source: TextSource<'_>, budget: u64) -> (Kept, BTreeMap<String, u64>) {
    let scanner = SecretScanner::new(&[]).unwrap();
    let mut scrubbed = BTreeMap::new();
    let kept = keep_text(source, budget, &rules(Some(&scanner)), &mut scrubbed);
    (kept, scrubbed)
}

/// The two ends of a JavaScript string, as the driver slices them (`slice(0, n)`,
/// `slice(length - n)`), in UTF-16 code units.
fn ends(text: &str, n: usize) -> (String, String, u64) {
    let units: Vec<u16> = text.encode_utf16().collect();
    let n = n.min(units.len());
    let head = String::from_utf16_lossy(&units[..n]);
    let tail = String::from_utf16_lossy(&units[units.len() - n..]);
    (head, tail, units.len() as u64)
}

#[test]
fn text_within_the_budget_is_kept_whole() {
    let (kept, scrubbed) = keep(TextSource::Whole("short output"), 100);
    assert_eq!(kept.text, "short output");
    assert_eq!(kept.cut, None);
    assert!(scrubbed.is_empty());
}

#[test]
fn labels_longer_than_their_secrets_may_exceed_the_budget() {
    // The budget is checked before labels are put in: a text of exactly the budget is kept whole,
    // and the label (23 characters for a 2-character password) makes it longer.
    let text = format!("{}postgres://u:p9@db", "x".repeat(82));
    assert_eq!(text.len(), 100);
    let (kept, scrubbed) = keep(TextSource::Whole(&text), 100);
    assert_eq!(kept.cut, None);
    assert!(kept
        .text
        .ends_with("postgres://u:[redacted:url-password]@db"));
    assert_eq!(kept.text.len(), 100 - 2 + "[redacted:url-password]".len());
    assert_eq!(scrubbed.get("url-password"), Some(&1));
    // A cut text keeps its head and tail by the budget, then its labels are put in.
    let long = format!("{}{}", "postgres://u:p9@db ".repeat(40), "y".repeat(1000));
    let (kept, _) = keep(TextSource::Whole(&long), 200);
    let labels = kept.text.matches("[redacted:url-password]").count() as u64;
    assert!(labels > 0);
    assert!(utf16_len(&kept.text) <= 200 + labels * (23 - 2));
    assert!(utf16_len(&kept.text) > 200);
}

#[test]
fn long_text_keeps_head_and_tail_within_the_budget() {
    let text: String = (0..5000).map(|i| format!("line {i}\n")).collect();
    let (kept, _) = keep(TextSource::Whole(&text), 1000);
    assert!(utf16_len(&kept.text) <= 1000, "{}", utf16_len(&kept.text));
    assert!(kept.text.starts_with("line 0\nline 1\n"));
    assert!(kept.text.ends_with("line 4999\n"));
    let cut = kept.cut.clone().unwrap();
    assert_eq!(cut.unit, CutUnit::Characters);
    let kept_units = utf16_len(&kept.text) - utf16_len(&marker(cut.count, cut.unit));
    assert_eq!(cut.count, utf16_len(&text) - kept_units);
    assert!(kept
        .text
        .contains(&format!("[... {} characters cut ...]", cut.count)));
    assert_eq!(
        &kept.text[cut.marker_start..cut.marker_end],
        marker(cut.count, cut.unit)
    );
}

#[test]
fn the_head_ratio_shares_the_budget() {
    let text = "h".repeat(5000) + &"t".repeat(5000);
    let scanner = SecretScanner::new(&[]).unwrap();
    let mut scrubbed = BTreeMap::new();
    let rules = TextRules {
        head_ratio: 0.8,
        strip_ansi: false,
        scanner: Some(&scanner),
    };
    let kept = keep_text(TextSource::Whole(&text), 1000, &rules, &mut scrubbed);
    let heads = kept.text.matches('h').count();
    let tails = kept.text.matches('t').count();
    assert!(heads > 3 * tails, "{heads} vs {tails}");
}

#[test]
fn surrogate_pairs_are_never_split() {
    let text = "😀".repeat(30_000);
    for budget in [101, 102, 999, 1000] {
        let (kept, _) = keep(TextSource::Whole(&text), budget);
        assert!(utf16_len(&kept.text) <= budget);
        assert!(!kept.text.contains('\u{FFFD}'));
        let (head, tail, length) = ends(&text, budget as usize + SECRET_WINDOW + 1);
        let (from_ends, _) = keep(
            TextSource::Ends {
                head: &head,
                tail: &tail,
                length,
            },
            budget,
        );
        assert!(!from_ends.text.contains('\u{FFFD}'), "budget {budget}");
        assert_eq!(from_ends.text, kept.text);
    }
}

#[test]
fn lone_surrogates_from_javascript_become_replacement_characters() {
    // napi hands Rust a lone surrogate as U+FFFD; it counts one code unit, as in JavaScript.
    let text = format!("a{}b", '\u{FFFD}');
    assert_eq!(utf16_len(&text), 3);
}

#[test]
fn a_secret_straddling_the_head_cut_leaves_no_fragment() {
    let budget = 1000u64;
    let keep_n = (budget - marker(20_000, CutUnit::Characters).len() as u64) / 2;
    for offset in [5usize, 10, 20, 39] {
        let text = ".".repeat(keep_n as usize - offset) + TOKEN + &" .".repeat(10_000);
        let (kept, scrubbed) = keep(TextSource::Whole(&text), budget);
        assert!(!kept.text.contains("ghp_"), "offset {offset}");
        assert!(!kept.text.contains(&TOKEN[..offset.min(TOKEN.len())]));
        assert!(kept.text.contains("[redacted:github-token]"));
        assert_eq!(scrubbed.get("github-token"), Some(&1));
    }
}

#[test]
fn a_secret_straddling_the_tail_cut_leaves_no_fragment() {
    let budget = 1000u64;
    let keep_n = (budget - marker(20_000, CutUnit::Characters).len() as u64) / 2;
    for offset in [5usize, 10, 30] {
        let text = ". ".repeat(10_000) + TOKEN + &".".repeat(keep_n as usize - offset);
        let (kept, scrubbed) = keep(TextSource::Whole(&text), budget);
        let tail = &kept.text[kept.cut.as_ref().unwrap().marker_end..];
        assert!(tail.starts_with("[redacted:github-token]"), "{tail:.40}");
        assert!(!kept.text.contains(&TOKEN[TOKEN.len() - offset..]));
        assert_eq!(scrubbed.get("github-token"), Some(&1));
    }
}

#[test]
fn secrets_in_the_cut_middle_are_not_counted() {
    let text = ".".repeat(5000) + TOKEN + &".".repeat(5000);
    let (kept, scrubbed) = keep(TextSource::Whole(&text), 1000);
    assert!(!kept.text.contains("redacted"));
    assert!(scrubbed.is_empty());
}

#[test]
fn bytes_are_cut_at_character_boundaries_and_counted_in_bytes() {
    let text = "é".repeat(100_000) + "END";
    let (kept, _) = keep(TextSource::Bytes(text.as_bytes()), 1000);
    assert!(!kept.text.contains('\u{FFFD}'));
    assert!(kept.text.chars().count() <= 1000);
    assert!(kept.text.ends_with("END"));
    let cut = kept.cut.unwrap();
    assert_eq!(cut.unit, CutUnit::Bytes);
    let kept_bytes = kept.text.len() - marker(cut.count, cut.unit).len();
    assert_eq!(cut.count as usize, text.len() - kept_bytes);
}

#[test]
fn short_bytes_are_decoded_whole_and_invalid_sequences_replaced() {
    let (kept, _) = keep(TextSource::Bytes(b"ok \xff\xfe done"), 100);
    assert_eq!(kept.text, "ok \u{FFFD}\u{FFFD} done");
    assert_eq!(kept.cut, None);
}

#[test]
fn a_secret_straddling_a_cut_in_bytes_leaves_no_fragment() {
    let text = ".".repeat(470) + TOKEN + &".".repeat(200_000);
    let (kept, scrubbed) = keep(TextSource::Bytes(text.as_bytes()), 1000);
    assert!(!kept.text.contains("ghp_"));
    assert_eq!(scrubbed.get("github-token"), Some(&1));
}

#[test]
fn ansi_escapes_are_removed_before_counting() {
    let text = "\u{1b}[32mok\u{1b}[0m ".repeat(100);
    let scanner = SecretScanner::new(&[]).unwrap();
    let mut scrubbed = BTreeMap::new();
    let rules = TextRules {
        head_ratio: 0.5,
        strip_ansi: true,
        scanner: Some(&scanner),
    };
    let kept = keep_text(TextSource::Whole(&text), 400, &rules, &mut scrubbed);
    assert_eq!(kept.text, "ok ".repeat(100));
    assert_eq!(kept.ansi, 200);
    let kept = keep_text(
        TextSource::Bytes(text.as_bytes()),
        400,
        &rules,
        &mut scrubbed,
    );
    assert_eq!(kept.text, "ok ".repeat(100));
}

#[test]
fn recutting_shrinks_head_and_tail_and_adds_to_the_count() {
    let text: String = (0..20_000).map(|i| format!("{i:05}\n")).collect();
    let (kept, _) = keep(TextSource::Whole(&text), 4000);
    let first = kept.cut.clone().unwrap();
    let smaller = recut(&kept, 1000, 0.5);
    assert!(smaller.size() <= 1000);
    let cut = smaller.cut.clone().unwrap();
    assert!(cut.count > first.count);
    assert_eq!(smaller.text.matches("characters cut").count(), 1);
    assert!(smaller.text.starts_with("00000\n"));
    assert!(smaller.text.ends_with("19999\n"));
    let kept_units = utf16_len(&smaller.text) - marker(cut.count, cut.unit).len() as u64;
    assert_eq!(cut.count, utf16_len(&text) - kept_units);
    // Text that was never cut is cut the first time.
    let (whole, _) = keep(TextSource::Whole(&text[..3000]), 4000);
    let cut_once = recut(&whole, 500, 0.5);
    assert!(cut_once.size() <= 500);
    let cut = cut_once.cut.clone().unwrap();
    let kept_units = utf16_len(&cut_once.text) - marker(cut.count, cut.unit).len() as u64;
    assert_eq!(cut.count, 3000 - kept_units);
}

#[test]
fn a_hundred_megabytes_of_bytes_are_cut_without_decoding_the_middle() {
    let mut bytes = vec![b'.'; 100 << 20];
    bytes[..5].copy_from_slice(b"start");
    let len = bytes.len();
    bytes[len - 3..].copy_from_slice(b"end");
    let (kept, _) = keep(TextSource::Bytes(&bytes), 32_768);
    assert!(kept.text.starts_with("start") && kept.text.ends_with("end"));
    assert!(kept.text.chars().count() <= 32_768);
}

proptest! {
    #[test]
    fn ends_and_whole_strings_keep_the_same_text(
        text in "[a-z😀é \n]{0,3000}",
        budget in 100u64..2000,
        ratio in 0.0f64..1.0,
    ) {
        let scanner = SecretScanner::new(&[]).unwrap();
        let rules = TextRules { head_ratio: ratio, strip_ansi: false, scanner: Some(&scanner) };
        let mut scrubbed = BTreeMap::new();
        let whole = keep_text(TextSource::Whole(&text), budget, &rules, &mut scrubbed);
        prop_assert!(utf16_len(&whole.text) <= budget.max(utf16_len(&text).min(budget)));
        let n = budget as usize + SECRET_WINDOW;
        let units = text.encode_utf16().count();
        if units > 2 * n {
            let (head, tail, length) = ends(&text, n);
            let from_ends = keep_text(TextSource::Ends { head: &head, tail: &tail, length }, budget, &rules, &mut scrubbed);
            prop_assert_eq!(from_ends.text, whole.text.clone());
        }
        let from_bytes = keep_text(TextSource::Bytes(text.as_bytes()), budget, &rules, &mut scrubbed);
        prop_assert!(from_bytes.text.chars().count() as u64 <= budget);
        prop_assert!(!from_bytes.text.contains(char::REPLACEMENT_CHARACTER));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Long bytes are decoded only near their ends, on character boundaries: the kept text is the
    /// one the whole decoded text gives.
    #[test]
    fn long_bytes_keep_what_their_whole_text_keeps(
        pieces in proptest::collection::vec(prop_oneof![Just("a"), Just("é"), Just("€"), Just("😀"), Just("\n")], 25_000..30_000),
        budget in 100u64..2000,
        ratio in 0.0f64..1.0,
    ) {
        let text: String = pieces.concat();
        // Longer than the two decoded spans, so the bytes are cut without being decoded whole.
        prop_assert!(text.len() > 2 * (budget as usize + SECRET_WINDOW) * 4);
        let scanner = SecretScanner::new(&[]).unwrap();
        let rules = TextRules { head_ratio: ratio, strip_ansi: false, scanner: Some(&scanner) };
        let mut scrubbed = BTreeMap::new();
        let from_bytes = keep_text(TextSource::Bytes(text.as_bytes()), budget, &rules, &mut scrubbed);
        let whole = keep_whole(&text, BudgetUnit::Chars, budget, &rules, &mut scrubbed);
        prop_assert_eq!(from_bytes, whole);
    }
}

#[test]
fn a_marker_is_found_again() {
    let text: String = (0..5000).map(|i| format!("line {i}\n")).collect();
    let (kept, _) = keep(TextSource::Whole(&text), 1000);
    let again = kept_again(kept.text.clone());
    assert_eq!(again.cut, kept.cut);
    assert_eq!(
        again,
        Kept {
            ansi: 0,
            ..kept.clone()
        }
    );
    assert_eq!(find_marker("no marker"), None);
    let twice = format!("{0}{0}", marker(5, CutUnit::Bytes));
    assert_eq!(find_marker(&twice), None);
    assert_eq!(
        kept_again(marker(5, CutUnit::Bytes)).unit,
        BudgetUnit::Chars
    );
}
