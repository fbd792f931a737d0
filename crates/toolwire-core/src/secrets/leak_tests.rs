//! The leaks a second attacker review found, each as a corpus: credential headers in every
//! shape they are printed in, URLs whose password is percent- or entity-encoded, quoted-printable
//! mail text, ANSI colours inside a secret, and long adversarial inputs (the scan stays linear:
//! the decoded view and its map are bounded by the text's length by construction).

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::reader::ReaderView;
use super::*;

/// A made-up token: letters and digits, so every kind's body takes it.
const TOKEN: &str = "q8Z2mX4vL9pR7tY1wK3nB6cH0dF5gJ";

fn scanner() -> SecretScanner {
    SecretScanner::new(&[]).unwrap()
}

/// Asserts that `material` survives nowhere in `text` scrubbed, and that `kind` names it.
fn assert_scrubbed(text: &str, material: &str, kind: &str) {
    let mut counts = BTreeMap::new();
    let scrubbed = scanner().scrub(text, &mut counts);
    assert!(
        !scrubbed.contains(material),
        "a secret survived in {text:?}: {scrubbed:?}"
    );
    assert!(
        scrubbed.contains(&format!("[redacted:{kind}]")),
        "{kind} not named in {scrubbed:?} (from {text:?})"
    );
}

/// The shapes headers are printed in; `{n}` the name, `{v}` the value (scheme and token
/// separated by a space, written as the shape writes a space).
pub(super) const HEADER_SHAPES: &[&str] = &[
    // HTTP, curl -H.
    "{n}: {v}",
    // Go's http.Header printed with %v.
    "map[{n}:[{v}] Accept:[*/*]]",
    // A JSON array of pairs, Node's rawHeaders as JSON.
    r#"["Host","x","{n}","{v}"]"#,
    // Node's rawHeaders through util.inspect.
    "[ 'Host', 'x', '{n}', '{v}' ]",
    // HAR and Postman.
    r#"{"name":"{n}","value":"{v}"}"#,
    // Ruby and PHP hashes.
    r#"{"{n}" => "{v}"}"#,
    "['{n}' => '{v}']",
    // Java's Map<String, List<String>>.
    "{{n}=[{v}]}",
    // Python's dict.
    "{'{n}': '{v}'}",
    // JSON pretty-printed over lines, and JSON inside a JSON string.
    "{\n  \"{n}\": [\n    \"{v}\"\n  ]\n}",
    r#"{\"{n}\":\"{v}\"}"#,
    // HTML-escaped JSON.
    "{&quot;{n}&quot;:&quot;{v}&quot;}",
    // A markdown table, as tools format headers for a model (the attack review's 16), also
    // padded to align its columns.
    "| Header | Value |\n|---|---|\n| {n} | {v} |\n| Accept | */* |",
    "| {n}                        |   {v}   |",
    // Scala and other JVM Map toString.
    "Map({n} -> {v}, Accept -> */*)",
    // XML: name and value elements, and the header as the element.
    "<header><name>{n}</name><value>{v}</value></header>",
    "<headers><{n}>{v}</{n}></headers>",
    // YAML: a mapping, and a list of name/value entries (Kubernetes, OpenAPI examples).
    "headers:\n  {n}: {v}\n",
    "headers:\n- name: {n}\n  value: {v}\n",
    // TOML and INI.
    "[headers]\n{n} = \"{v}\"\n",
];

/// (the value's words separated by `{s}`, the separator spellings, the kind).
fn header_values() -> Vec<(&'static str, String, &'static str)> {
    vec![
        (
            "Authorization",
            format!("Bearer{{s}}{TOKEN}"),
            "bearer-token",
        ),
        (
            "authorization",
            format!("bearer{{s}}{TOKEN}"),
            "bearer-token",
        ),
        (
            "Proxy-Authorization",
            format!("Bearer{{s}}{TOKEN}"),
            "bearer-token",
        ),
        (
            "Authorization",
            format!("Basic{{s}}{TOKEN}=="),
            "credential-header",
        ),
        (
            "Authorization",
            format!("token{{s}}{TOKEN}"),
            "credential-header",
        ),
        ("X-Api-Key", TOKEN.to_string(), "credential-header"),
        ("x-auth-token", TOKEN.to_string(), "credential-header"),
        ("api_key", TOKEN.to_string(), "credential-header"),
        ("X-Goog-Api-Key", TOKEN.to_string(), "credential-header"),
        (
            "Cookie",
            format!("theme=dark;{{s}}session={TOKEN}"),
            "credential-header",
        ),
        (
            "Set-Cookie",
            format!("sid={TOKEN};{{s}}Path=/"),
            "credential-header",
        ),
    ]
}

#[test]
fn credential_headers_are_found_in_every_shape_they_are_printed_in() {
    for (name, value, kind) in header_values() {
        for shape in HEADER_SHAPES {
            let text = shape
                .replace("{n}", name)
                .replace("{v}", &value.replace("{s}", " "));
            assert_scrubbed(&text, TOKEN, kind);
        }
        // Form and query text: a space is `+`, `%20`, `%2B` or encoded twice, `%2520`.
        for (separator, space) in [("=", "+"), ("=", "%20"), ("=", "%2B"), ("%3D", "%2520")] {
            let text = format!("a=1&{name}{separator}{}&b=2", value.replace("{s}", space));
            assert_scrubbed(&text, TOKEN, kind);
        }
        // A header object with its value before its name (the attack review's 15), another field
        // between them, in JSON text and inside a JSON string: the whole value is replaced.
        let value = value.replace("{s}", " ");
        for shape in [
            r#"{"value":"{v}","name":"{n}"}"#,
            r#"{"value": "{v}", "type": "text", "key": "{n}"}"#,
            r#"[{\"value\":\"{v}\",\"header\":\"{n}\"}]"#,
        ] {
            let text = shape.replace("{n}", name).replace("{v}", &value);
            assert_scrubbed(&text, TOKEN, "credential-header");
        }
        let value = value.replace(' ', "{s}");
        // The whole header percent-encoded once and twice.
        for (colon, space) in [("%3A%20", "%20"), ("%253A%2520", "%2520")] {
            let text = format!("log?h={name}{colon}{}", value.replace("{s}", space));
            assert_scrubbed(&text, TOKEN, kind);
        }
    }
}

#[test]
fn a_token_written_with_percent_escapes_is_replaced_whole() {
    let cases = [
        "Authorization=Bearer%20ab%2Bcd%2Fef%3D%3D",
        "Authorization=Bearer%2520ab%252Bcd%252Fef12",
        "Authorization: Bearer ab+cd/ef34==",
    ];
    for text in cases {
        let mut counts = BTreeMap::new();
        let scrubbed = scanner().scrub(text, &mut counts);
        assert!(
            scrubbed.ends_with("[redacted:bearer-token]"),
            "{text:?} -> {scrubbed:?}"
        );
    }
}

#[test]
fn header_names_in_prose_and_schemas_are_no_secrets() {
    let scanner = scanner();
    for text in [
        "the Authorization header carries a Bearer token",
        "Authorization: Bearer",
        "authorization value: bearer",
        "x-api-key header is required",
        r#"{"apiKey":{"type":"string","description":"the key"}}"#,
        r#"{"api_key": "required"}"#,
        "Cookie: none",
        "cookie=yes&theme=dark",
        "set the API key below",
        "OPENAI_API_KEY_NAME=something_long_here",
        "100% = 3D, a=3D, b=41",
        "&amp; &lt; &#64; \\u0040 %40 =40",
    ] {
        assert!(
            scanner.find(text).is_empty(),
            "{text:?}: {:?}",
            scanner.find(text)
        );
    }
}

#[test]
fn url_passwords_are_found_however_the_url_is_escaped() {
    let password = "Pw0rd-Tr0ub4dor";
    let cases = [
        // Percent-encoded characters in the password, and the whole URL percent-encoded (a URL
        // in a query parameter), once and twice.
        format!("https://u:{password}%40x@h.example/"),
        format!("next=https%3A%2F%2Fu%3A{password}%40h.example%2F"),
        format!("next=https%253A%252F%252Fu%253A{password}%2540h.example"),
        // HTML: numeric and named references, `&amp;`-escaped URLs in attributes.
        format!("<a href=\"https://u:{password}&#64;x@h.example\">"),
        format!("<a href=\"https://u:{password}&amp;x@h.example\">"),
        format!("https:&#x2F;&#x2F;u&#58;{password}&commat;h.example"),
        format!("https&colon;&sol;&sol;u:{password}&#x40;h.example"),
        // JSON: escaped slashes, escaped characters.
        format!(r#"{{"url":"https:\/\/u:{password}@h.example\/x"}}"#),
        format!(r#"{{"url":"https:\\\/\\\/u:{password}@h.example"}}"#),
        format!(r#"{{"url":"https:\u002f\u002fu:{password}\u0040h.example"}}"#),
    ];
    for text in cases {
        assert_scrubbed(&text, password, "url-password");
    }
}

#[test]
fn quoted_printable_soft_breaks_and_escapes_hide_no_secret() {
    let github = format!("ghp_{TOKEN}abcdef");
    let cases = [
        // Soft line breaks inside a token (76-character mail lines), CRLF and LF.
        (
            format!("token: {}=\r\n{}", &github[..20], &github[20..]),
            &github[20..],
            "github-token",
        ),
        (
            format!("token: {}=\n{}", &github[..9], &github[9..]),
            &github[9..],
            "github-token",
        ),
        (
            format!(
                "Authorization: Bearer {}= \r\n{}",
                &TOKEN[..10],
                &TOKEN[10..]
            ),
            &TOKEN[10..],
            "bearer-token",
        ),
        // `=XX` escapes: `=3D` is `=`, `=40` is `@`, `=20` a space.
        (
            format!("Authorization:=20Bearer=20{TOKEN}=3D"),
            TOKEN,
            "bearer-token",
        ),
        (
            format!("https://u:{TOKEN}=40x@h.example"),
            TOKEN,
            "url-password",
        ),
        (format!("X-Api-Key=3A {TOKEN}"), TOKEN, "credential-header"),
    ];
    for (text, material, kind) in cases {
        assert_scrubbed(&text, material, kind);
    }
}

#[test]
fn ansi_colours_inside_a_secret_hide_nothing() {
    let github = format!("ghp_{TOKEN}abcdef");
    let red = "\u{1b}[31m";
    let reset = "\u{1b}[0m";
    let cases = [
        (
            format!("{red}Authorization{reset}: {red}Bearer{reset} {TOKEN}"),
            TOKEN,
            "bearer-token",
        ),
        (
            format!("Authorization: Be{red}arer {TOKEN}{reset}"),
            TOKEN,
            "bearer-token",
        ),
        (
            format!("Authorization: Bearer {}{red}{}", &TOKEN[..6], &TOKEN[6..]),
            &TOKEN[6..],
            "bearer-token",
        ),
        (
            format!("postgres://app:{red}{TOKEN}{reset}@db/app"),
            TOKEN,
            "url-password",
        ),
        (
            format!(
                "postgres://app:{}\u{9b}1m{}@db/app",
                &TOKEN[..5],
                &TOKEN[5..]
            ),
            &TOKEN[5..],
            "url-password",
        ),
        (
            format!("{red}api_key{reset}={red}{TOKEN}{reset}"),
            TOKEN,
            "credential-header",
        ),
        (
            format!("{}{red}{}", &github[..14], &github[14..]),
            &github[14..],
            "github-token",
        ),
        // Colours written as escapes of JSON text (a command's output returned as an object).
        (
            format!(r"Authorization: \u001b[1mBearer\u001b[0m {TOKEN}"),
            TOKEN,
            "bearer-token",
        ),
        (
            format!(r"{}\u001b[32m{}", &github[..14], &github[14..]),
            &github[14..],
            "github-token",
        ),
        (
            format!(r"{}\x1b[32m{}", &github[..14], &github[14..]),
            &github[14..],
            "github-token",
        ),
    ];
    for (text, material, kind) in cases {
        assert_scrubbed(&text, material, kind);
    }
}

#[test]
fn what_only_the_view_finds_is_replaced_with_its_spelling_and_the_rest_stays() {
    let red = "\u{1b}[31m";
    // `#` is no password character: only the decoded view sees `pw@...@h`.
    let text = format!("before {red}ok{red} https://u:pw&#64;{TOKEN}@h after");
    let mut counts = BTreeMap::new();
    let scrubbed = scanner().scrub(&text, &mut counts);
    assert_eq!(
        scrubbed,
        format!("before {red}ok{red} https://u:[redacted:url-password]@h after")
    );
    assert_eq!(counts["url-password"], 1);
}

/// The units adversarial inputs are made of: every spelling the view decodes, cut and whole,
/// and the parts of the header and URL rules.
const UNITS: &[&str] = &[
    "%",
    "%25",
    "%2",
    "%40",
    "&",
    "&amp;",
    "&#",
    "&#64;",
    "&#x",
    "\\",
    "\\/",
    "\\u00",
    "\\u001b[",
    "=",
    "=\r\n",
    "=\n",
    "=3D",
    "\u{1b}",
    "\u{1b}[",
    "\u{1b}]",
    "\u{9b}",
    "1;31m",
    "Authorization",
    ": ",
    "Bearer ",
    "value",
    "\"",
    "'",
    ",",
    "[",
    "Cookie",
    "a=b; ",
    "x-api-key",
    "://",
    "u:",
    "@",
    "abcdefgh",
    "é",
    "\\n",
    "\\r\\n",
    "=\\r\\n",
    "\\\\n",
    "\\ud83d",
    "\\u0026",
    "%0A",
    "&#10;",
    "&NewLine;",
    "> ",
    "$\n",
    "\",\"",
    "-----BEGIN PRIVATE KEY-----",
    "-----END PRIVATE KEY-----",
    "MIIB",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Long inputs of adversarial units: the view is never longer than the text and has at most
    /// one edit per byte (so building and mapping it is linear by construction), and what `find`
    /// returns is sorted, disjoint and on char boundaries.
    #[test]
    fn long_adversarial_inputs_keep_the_views_bounds(
        picks in proptest::collection::vec(0..UNITS.len(), 1..64),
        repeat in 1usize..2000,
    ) {
        let unit: String = picks.iter().map(|&i| UNITS[i]).collect();
        let text = unit.repeat(repeat);
        if let Some(view) = ReaderView::of(&text) {
            prop_assert!(view.text.len() <= text.len());
            // One edit per byte at most in each of the two layers.
            prop_assert!(view.edit_count() <= 2 * text.len());
        }
        let secrets = scanner().find(&text);
        let mut last_end = 0;
        for secret in &secrets {
            prop_assert!(secret.start < secret.end);
            prop_assert!(secret.start >= last_end);
            prop_assert!(text.is_char_boundary(secret.start) && text.is_char_boundary(secret.end));
            last_end = secret.end;
        }
    }
}

/// Credentials outside an `Authorization` header (the user review's 9): a scheme word and its
/// token anywhere, OAuth and credential parameters in URLs, forms and key=value text, the user
/// and password options of command lines, npm's configuration. (text, the material, the kind)
#[test]
fn credentials_outside_headers_are_found_by_their_class() {
    let basic = "YWRtaW46UzNjcjN0UGFzcw=="; // admin:S3cr3tPass
    let cases: Vec<(String, &str, &str)> = vec![
        // A scheme word and its token, not after a header name.
        (
            format!("AUTH_HEADER=\"Bearer {TOKEN}\""),
            TOKEN,
            "bearer-token",
        ),
        (
            format!(r#"{{"auth": "Bearer {TOKEN}"}}"#),
            TOKEN,
            "bearer-token",
        ),
        (
            format!("token_type=Bearer access_token={TOKEN}"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("2026-11-26 INFO sending bearer {TOKEN} to upstream"),
            TOKEN,
            "bearer-token",
        ),
        (
            format!("GITHUB_AUTH='token {TOKEN}'"),
            TOKEN,
            "credential-header",
        ),
        (
            format!("AUTH=\"Basic {basic}\""),
            "YWRtaW46UzNjcjN0",
            "credential-header",
        ),
        // OAuth and credential parameters in URLs, query strings and form bodies.
        (
            format!("GET https://api.example.com/v1/me?access_token={TOKEN} 200"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("grant_type=refresh_token&refresh_token={TOKEN}&client_id=app"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("https://x.example/cb#id_token={TOKEN}&state=1"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("client_id=app&client_secret={TOKEN}"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("https://maps.example.com/api?key={TOKEN}&q=1"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("https://acct.blob.core.windows.net/c?sv=2022&sig={TOKEN}%2Bab%3D"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("next=%2Fcb%3Faccess_token%3D{TOKEN}"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("https://x.example/?apikey={TOKEN}"),
            TOKEN,
            "credential-header",
        ),
        (format!("api_key={TOKEN}"), TOKEN, "credential-header"),
        // key=value text, JSON, YAML, .env.
        (
            format!(r#"{{"access_token":"{TOKEN}","token_type":"Bearer","expires_in":3600}}"#),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("DB_PASSWORD={TOKEN}"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("  password: \"{TOKEN}\""),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("accessToken: '{TOKEN}'"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("<password>{TOKEN}</password>"),
            TOKEN,
            "credential-parameter",
        ),
        // Command lines.
        (
            format!("curl -u admin:{TOKEN} https://example.com"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("curl --user 'admin:{TOKEN}' https://example.com"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("curl --user=admin:{TOKEN} https://example.com"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("curl -uadmin:{TOKEN} https://example.com"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("curl -x proxy:3128 -U me:{TOKEN} https://example.com"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("wget --password={TOKEN} https://example.com/f"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("wget --http-password {TOKEN} https://example.com/f"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("wget --proxy-password=\"{TOKEN}\" https://example.com/f"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("curl -H 'Authorization: Bearer {TOKEN}' https://example.com"),
            TOKEN,
            "bearer-token",
        ),
        // npm's configuration.
        (
            format!("//registry.npmjs.org/:_authToken={TOKEN}"),
            TOKEN,
            "credential-parameter",
        ),
        (
            format!("//npm.pkg.github.com/:_auth={basic}"),
            "YWRtaW46UzNjcjN0",
            "credential-parameter",
        ),
        (
            format!("//registry.example.com/:_password={basic}"),
            "YWRtaW46UzNjcjN0",
            "credential-parameter",
        ),
    ];
    for (text, material, kind) in cases {
        assert_scrubbed(&text, material, kind);
    }
}

/// A URL's user names a credential (`x-access-token`, GitHub's convention): the password after
/// it stays the URL's, and the host stays.
#[test]
fn a_credential_named_user_keeps_the_url_password_and_host() {
    let mut counts = BTreeMap::new();
    let text = format!("git clone https://x-access-token:{TOKEN}@github.com/org/repo.git");
    assert_eq!(
        scanner().scrub(&text, &mut counts),
        "git clone https://x-access-token:[redacted:url-password]@github.com/org/repo.git"
    );
}
