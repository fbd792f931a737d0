//! The search stays linear on chains of a checked kind's own name: a value that runs on through
//! the names glued inside it (`x-api-key+x-api-key+...`: `+` is a gap and a value character)
//! was read and checked again from every name inside it, by the combined search and by the
//! kind's own regex, in the text and in every reader view. Each chain must complete (no time is
//! asserted: a quadratic search takes minutes in a debug test), and a secret of another kind or
//! of the same kind after the chain is still found.

use super::*;

/// The text and the views a chain is read in: as it is, percent-encoded once and twice (every
/// byte but letters and digits), and as JSON escapes (JSON.stringify's, and every byte but
/// letters and digits as `\u00XX`).
fn spellings(unit: &str) -> Vec<String> {
    let encode = |text: &str, escape: &dyn Fn(u8) -> String| -> String {
        text.bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() {
                    (b as char).to_string()
                } else {
                    escape(b)
                }
            })
            .collect()
    };
    let json = serde_json::to_string(unit).unwrap();
    vec![
        unit.to_string(),
        encode(unit, &|b| format!("%{b:02X}")),
        encode(unit, &|b| format!("%25{b:02X}")),
        json[1..json.len() - 1].to_string(),
        encode(unit, &|b| format!("\\u{b:04x}")),
    ]
}

/// A GitHub token of 40 characters, a secret no check rejects.
const GITHUB: &str = "ghp_q8Z2mX4vL9pR7tY1wK3nB5cD6fG7hJ8kL9mN";

/// About `size` bytes of `unit` repeated, then a blank and a GitHub token: the chain completes,
/// its secrets are sorted and disjoint, and the token is covered by a secret.
fn assert_chain_completes(scanner: &SecretScanner, unit: &str, size: usize) {
    let chain = unit.repeat(size / unit.len() + 1);
    let text = format!("{chain} {GITHUB}");
    let secrets = scanner.find(&text);
    assert!(
        secrets.windows(2).all(|pair| pair[0].end <= pair[1].start),
        "unit {unit:?}"
    );
    let token = text.len() - GITHUB.len()..text.len();
    assert!(
        secrets
            .iter()
            .any(|secret| secret.start <= token.start && secret.end >= token.end),
        "unit {unit:?}: the token after the chain is not found"
    );
}

/// The size of a chain: on the old search 16 KB of `x-api-key+` took minutes in a debug test
/// (each start re-read the run); the linear one reads each byte a bounded number of times, and
/// a debug build's capture engines make that bound costly enough to keep the table at 32 KB.
const CHAIN_SIZE: usize = 1 << 15;

/// Chains of every checked kind's name and the gaps a value may follow.
const CHAINS: &[&str] = &[
    // API-key headers (KeyValue): the gap `+` is a value character too.
    "x-api-key+",
    "X-API-KEY+",
    "api_key+",
    "x-api-keyvalue",
    "X-Acme-Token+",
    // Cookies (CookieValue): a value never comes (`|` is a gap and a name character).
    "Cookie: a=b;",
    "Cookie|",
    "Cookie+",
    "Set-Cookie: a=b; ",
    // Credential parameters and options (Checked(Named), values of at most 256 bytes).
    "access_token=",
    "access_token+",
    "access_token:",
    "password: ",
    "password+",
    "client_secret+",
    "&key=",
    "--password=",
    " -u a:",
    "aws_secret_access_key+",
    "AccountKey+",
    // Scheme words (Checked(Named), Checked(Basic)) and Authorization headers (Checked(Header)).
    "Bearer ",
    "Bearer+",
    "Basic ",
    "Basic+",
    "token+",
    "Token ",
    "Authorization: Bearer+",
    "Authorization+Bearer+",
    "Authorization: Basic+",
    "Authorization: Bearer\n",
    // URL passwords, Docker's auth, PuTTY's private lines, a header's value before its name.
    "://u:p@",
    "://u:p@x",
    "\"auth\": \"",
    "Private-Lines: 1\n",
    "{\"value\":\"",
    // Private keys without a body.
    "-----BEGIN PRIVATE KEY-----",
    "-----END PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----\n",
    "-----END PRIVATE KEY-----\n",
];

#[test]
fn chains_of_checked_kinds_names_stay_linear_in_every_spelling() {
    let scanner = scanner();
    for unit in CHAINS {
        for spelled in spellings(unit) {
            assert_chain_completes(&scanner, &spelled, CHAIN_SIZE);
        }
    }
}

/// Header names glued by each separator of the printed header shapes (`leak_tests.rs`): the
/// text of a shape before its value, repeated.
#[test]
fn header_names_glued_by_every_printed_separator_stay_linear() {
    let scanner = scanner();
    for shape in super::leak_tests::HEADER_SHAPES {
        let before_value = &shape[..shape.find("{v}").unwrap()];
        for name in ["X-Api-Key", "Authorization: Bearer", "Cookie"] {
            let unit = before_value.replace("{n}", name);
            for spelled in spellings(&unit) {
                assert_chain_completes(&scanner, &spelled, CHAIN_SIZE);
            }
        }
    }
}

/// A long run a kind rejects, then a secret of the same kind: the tail is checked as its own
/// value and found (a rejected run is not skipped as a whole).
#[test]
fn a_same_kind_secret_after_a_long_rejected_run_is_found() {
    let scanner = scanner();
    let run = |unit: &str| unit.repeat(4096 / unit.len() + 1);
    // (text, the secret that must be replaced)
    let cases: Vec<(String, &str)> = vec![
        (
            format!("Basic+{}+Basic+dXNlcjpwYXNz", "A".repeat(300)),
            "dXNlcjpwYXNz",
        ),
        (
            format!("Basic+{}+Basic+dXNlcjpwYXNz", "A".repeat(40)),
            "dXNlcjpwYXNz",
        ),
        (
            format!("{}x-api-key: q8Z2mX4vL9pR7tY1wK3n", run("x-api-key+")),
            "q8Z2mX4vL9pR7tY1wK3n",
        ),
        (
            format!("{}access_token=q8Z2mX4vL9pR7tY1wK3n", run("access_token+")),
            "q8Z2mX4vL9pR7tY1wK3n",
        ),
        (
            format!("{}Bearer q8Z2mX4vL9pR7tY1wK3n", run("Bearer+")),
            "q8Z2mX4vL9pR7tY1wK3n",
        ),
        (
            format!("{}Cookie: session=q8Z2mX4vL9pR7tY1wK3n", run("Cookie|")),
            "q8Z2mX4vL9pR7tY1wK3n",
        ),
        (
            format!("{}password: q8Z2mX4vL9pR7tY1wK3n", run("password+")),
            "q8Z2mX4vL9pR7tY1wK3n",
        ),
    ];
    for (text, secret) in &cases {
        let at = text.rfind(secret).unwrap();
        assert!(
            scanner
                .find(text)
                .iter()
                .any(|found| found.start <= at && found.end >= at + secret.len()),
            "{secret:?} after {:?}",
            &text[..40]
        );
    }
}

/// A value cut at its bound (a credential parameter's 256 bytes) or at a character its kind
/// does not take ends inside a token of another kind that starts in it: the token is replaced
/// whole with it, its rest does not leak.
#[test]
fn a_token_reaching_past_a_cut_value_is_replaced_whole() {
    let scanner = scanner();
    let cases = [
        format!("password={}{GITHUB} tail", "a1".repeat(125)),
        format!("access_token={}{GITHUB}", "Z9".repeat(120)),
        format!("api_key: {}{GITHUB}", "b".repeat(252)),
        format!("curl -u me:{}{GITHUB}", "c3".repeat(127)),
    ];
    for text in &cases {
        let at = text.find(GITHUB).unwrap();
        let secrets = scanner.find(text);
        assert!(
            secrets
                .iter()
                .any(|found| found.start <= at && found.end >= at + GITHUB.len()),
            "{text:?}: {secrets:?}"
        );
    }
}

/// The attack review 3's 6 and 9: a megabyte of each new shape's trigger (cookie records in
/// Python and BiDi, `cookies.txt` lines, PuTTY lines and PEM lines as list items with line
/// breaks, prefixes and pairs), rejected or taken, completes with a token after it found, and
/// each taken unit is one secret.
#[test]
fn megabyte_chains_of_this_rounds_shapes_stay_linear() {
    let scanner = scanner();
    let sid = "Zx9Qw8Er7Ty6Ui5Op4As3Df2";
    let rejected = [
        "'value': '".to_owned(),
        "'value': 'solarized-dark-2', 'name': 'theme', 'path': '/'}, {".to_owned(),
        "{\"name\":\"sid\",\"value\":{\"type\":\"string\",\"value\":\"".to_owned(),
        "{\"type\":\"string\",\"value\":\"x\"},".to_owned(),
        "\tTRUE\t/\tFALSE\t0\tsid\t".to_owned(),
        "\tTRUE\t/\tFALSE\t0\ttheme\tsolarized-dark-2\t".to_owned(),
        "Private-Lines: 1\",\"".to_owned(),
        "\"+-----BEGIN PRIVATE KEY-----\\r\",".to_owned(),
        "[1,\"-----BEGIN PRIVATE KEY-----\"],".to_owned(),
        "(1, '-----BEGIN PRIVATE KEY-----\\n'), ".to_owned(),
        "\"],[".to_owned(),
        "-----BEGIN PRIVATE KEY-----\u{85}".to_owned(),
    ];
    for unit in &rejected {
        assert_chain_completes(&scanner, unit, 1 << 20);
    }
    let taken = [
        format!("[{{'name': 'sid', 'value': '{sid}', 'path': '/'}}], "),
        format!("{{\"name\":\"sid\",\"value\":{{\"type\":\"string\",\"value\":\"{sid}\"}},\"path\":\"/\"}},"),
        format!("{{\"key\":\"sid\",\"value\":\"{sid}\",\"hostOnly\":true}},"),
        format!("x.io\tTRUE\t/\tFALSE\t0\tsid\t{sid}\n"),
        "[\"+-----BEGIN PRIVATE KEY-----\\r\",\"+MIIB\\r\"],".to_owned(),
        "[[1,\"-----BEGIN PRIVATE KEY-----\"],[2,\"MIIB\"]],".to_owned(),
        "-----BEGIN PRIVATE KEY-----\u{85}MIIB\u{85}-----END PRIVATE KEY-----\n".to_owned(),
    ];
    for unit in &taken {
        let text = unit.repeat((1 << 20) / unit.len() + 1);
        assert_eq!(
            scanner.find(&text).len(),
            text.len() / unit.len(),
            "unit {unit:?}"
        );
    }
}

/// Every built-in kind whose value is checked joins the combined search by its trigger only.
#[test]
fn every_checked_builtin_kind_has_a_trigger() {
    for kind in &scanner().kinds {
        if super::pattern::is_checked(kind.extent) {
            assert!(kind.has_trigger(), "{}: {}", kind.name, kind.search_source);
        }
    }
}

fn scanner() -> SecretScanner {
    SecretScanner::new(&[]).unwrap()
}
