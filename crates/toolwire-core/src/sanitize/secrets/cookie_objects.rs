//! Cookies printed as objects, as browser tools return them: Playwright's `context.cookies()`
//! and `storageState()`, Puppeteer's `page.cookies()`, the Chrome DevTools Protocol's
//! `Network.getCookies`, browser extensions' `chrome.cookies.getAll` (`{"name": "sid", "value":
//! "...", "domain": ..., "path": "/", "httpOnly": true, ...}`), and a HAR's `cookies` arrays in
//! its requests and responses, whose objects may hold a name and a value only (the attack review
//! 2's 9). A cookie's value is a session's credential, as it is in a `Cookie` header.
//!
//! The search finds each JSON `"value": "..."` pair (see `builtin.rs`); here its object is read:
//! it is a cookie when it has a `name` and a cookie attribute, or a `name` alone beside the value
//! and it stands in an array under a `cookies` key. The value must still look like a token (see
//! `credential.rs`). Every read is bounded ([`MAX_OBJECT`] bytes on each side of the value,
//! [`MAX_ARRAY_WALK`] bytes back to the array's key), so the search stays linear.

/// The most bytes read from a value back to its object's `{` and on to its `}`.
const MAX_OBJECT: usize = 512;

/// The most bytes read back from an object to the `[` of the array it is listed in.
const MAX_ARRAY_WALK: usize = 2048;

/// The keys only a cookie's object has besides `name` and `value` (Playwright, Puppeteer and
/// CDP, HAR, `chrome.cookies`, `tough-cookie`), compared without case.
const COOKIE_ATTRIBUTES: &[&str] = &[
    "domain",
    "path",
    "expires",
    "expirationdate",
    "httponly",
    "secure",
    "samesite",
    "hostonly",
    "session",
    "size",
    "priority",
    "sameparty",
    "sourcescheme",
    "sourceport",
    "partitionkey",
    "storeid",
    "maxage",
];

/// Whether the string `text[start..end]` (a `"value"`'s) is the value of a cookie's object.
pub(super) fn is_cookie_object_value(text: &str, start: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    let Some(open) = bytes[start.saturating_sub(MAX_OBJECT)..start]
        .iter()
        .rposition(|byte| matches!(byte, b'{' | b'}'))
        .map(|offset| start.saturating_sub(MAX_OBJECT) + offset)
        .filter(|&open| bytes[open] == b'{')
    else {
        return false;
    };
    let limit = bytes.len().min(end + MAX_OBJECT);
    let Some(close) = bytes[end..limit]
        .iter()
        .position(|byte| matches!(byte, b'{' | b'}'))
        .map(|offset| end + offset)
        .filter(|&close| bytes[close] == b'}')
    else {
        return false;
    };
    let keys = keys(&bytes[open..close]);
    let named = keys.iter().any(|key| key.eq_ignore_ascii_case(b"name"));
    let attribute = keys.iter().any(|key| {
        COOKIE_ATTRIBUTES
            .iter()
            .any(|attribute| key.eq_ignore_ascii_case(attribute.as_bytes()))
    });
    named && (attribute || (keys.len() == 2 && listed_under_cookies(bytes, open)))
}

/// The keys of a flat object's text: each quoted name followed by a `:`.
fn keys(object: &[u8]) -> Vec<&[u8]> {
    let mut keys = Vec::new();
    let mut at = 0;
    while let Some(offset) = object[at..].iter().position(|&byte| byte == b'"') {
        let open = at + offset + 1;
        let Some(length) = object[open..].iter().position(|&byte| byte == b'"') else {
            break;
        };
        let after = open + length + 1;
        let colon = object[after..]
            .iter()
            .find(|byte| !byte.is_ascii_whitespace())
            == Some(&b':');
        if colon {
            keys.push(&object[open..open + length]);
        }
        at = after;
    }
    keys
}

/// Whether the object whose `{` is at `open` is an item of an array under a `cookies` key: back
/// over the items before it (objects with no object inside, commas, blanks) to the array's `[`,
/// then `"cookies":`.
fn listed_under_cookies(bytes: &[u8], open: usize) -> bool {
    let floor = open.saturating_sub(MAX_ARRAY_WALK);
    let mut at = open;
    let mut depth = 0;
    while at > floor {
        at -= 1;
        match bytes[at] {
            b'}' if depth == 0 => depth = 1,
            b'{' if depth == 1 => depth = 0,
            b'{' | b'}' | b'[' | b']' if depth == 1 => return false,
            b'[' => return under_cookies_key(&bytes[floor..at]),
            byte if depth == 0 && !(byte.is_ascii_whitespace() || byte == b',') => return false,
            _ => {}
        }
    }
    false
}

/// Whether `before` (the text before an array's `[`) ends with the key `"cookies":`.
fn under_cookies_key(before: &[u8]) -> bool {
    let trimmed = before.trim_ascii_end();
    let Some(key) = trimmed.strip_suffix(b":") else {
        return false;
    };
    let key = key.trim_ascii_end();
    key.len() >= 9 && key[key.len() - 9..].eq_ignore_ascii_case(b"\"cookies\"")
}

#[cfg(test)]
mod tests {
    use super::super::SecretScanner;

    const SID: &str = "Zx9Qw8Er7Ty6Ui5Op4As3Df2";

    fn scrubbed(text: &str) -> String {
        let scanner = SecretScanner::new(&[]).unwrap();
        let mut counts = Default::default();
        scanner.scrub(text, &mut counts).into_owned()
    }

    /// Cookies as each browser tool prints them (the attack review 2's 9): the value is
    /// replaced, the name, domain and flags stay.
    #[test]
    fn a_cookie_object_value_is_found_in_every_tool_shape() {
        let cookie = serde_json::json!({ "name": "session", "value": SID, "domain": "app.example.com",
            "path": "/", "expires": -1, "httpOnly": true, "secure": true, "sameSite": "Lax" });
        let cases: Vec<(&str, String)> = vec![
            // Playwright's storageState() and context.cookies().
            (
                "Playwright storageState",
                serde_json::json!({ "cookies": [cookie.clone()], "origins": [] }).to_string(),
            ),
            (
                "Playwright context.cookies(), pretty",
                serde_json::to_string_pretty(&serde_json::json!([cookie.clone()])).unwrap(),
            ),
            // Puppeteer's page.cookies() and CDP's Network.getCookies.
            (
                "Puppeteer page.cookies()",
                serde_json::json!([{ "name": "sid", "value": SID, "domain": ".example.com",
                    "path": "/", "expires": 1767225600.5, "size": 27, "httpOnly": true,
                    "secure": true, "session": false, "priority": "Medium" }])
                .to_string(),
            ),
            (
                "CDP Network.getCookies",
                serde_json::json!({ "id": 7, "result": { "cookies": [{ "name": "sid",
                    "value": SID, "domain": "example.com", "path": "/", "sameParty": false,
                    "sourceScheme": "Secure", "sourcePort": 443 }] } })
                .to_string(),
            ),
            // HAR: request cookies of a name and a value only (Firefox), the third of its
            // array, and response cookies with attributes (Chrome).
            (
                "HAR request cookies, bare",
                serde_json::json!({ "request": { "cookies": [{ "name": "a", "value": "1" },
                    { "name": "theme", "value": "dark" }, { "name": "sid", "value": SID }],
                    "headers": [] } })
                .to_string(),
            ),
            (
                "HAR response cookies",
                serde_json::json!({ "response": { "cookies": [{ "name": "sid", "value": SID,
                    "path": "/", "domain": "example.com", "expires": "2026-01-01T00:00:00Z",
                    "httpOnly": true, "secure": true }] } })
                .to_string(),
            ),
            // The value before the name (Playwright's addCookies input, hand-written).
            (
                "value first",
                format!("{{\"value\": \"{SID}\", \"name\": \"sid\", \"url\": \"https://a.b\", \"path\": \"/\"}}"),
            ),
            (
                "in a JSON string",
                serde_json::json!({ "out": serde_json::json!([cookie.clone()]).to_string() })
                    .to_string(),
            ),
        ];
        for (name, text) in cases {
            let out = scrubbed(&text);
            assert!(!out.contains(SID), "{name}: {out}");
            assert!(
                out.contains("[redacted:credential-header]"),
                "{name}: {out}"
            );
            assert!(out.contains("name"), "{name}: {out}");
        }
    }

    /// Objects with a name and a value that are no cookies, and cookie values that are no
    /// tokens, stay as they are.
    #[test]
    fn other_name_value_objects_pass() {
        for text in [
            // HAR headers and query strings: name/value lists not under `cookies`.
            r#"{"queryString":[{"name":"page","value":"Zx9Qw8Er7Ty6Ui5Op4As3Df2"}]}"#,
            r#"{"headers":[{"name":"Accept","value":"text/html,application/xhtml+xml"}]}"#,
            // A form field, a select option, a setting.
            r#"{"name":"username","value":"alice.w2024@example.com","type":"text"}"#,
            r#"[{"name":"build","value":"a1b2c3d4e5f6a7b8c9d0"}]"#,
            // Cookies whose values are no tokens.
            r#"{"cookies":[{"name":"theme","value":"dark","path":"/"}]}"#,
            r#"[{"name":"lang","value":"en-US","domain":"example.com"}]"#,
            // Not under the `cookies` key.
            r#"{"notcookies":[{"name":"sid","value":"Zx9Qw8Er7Ty6Ui5Op4As3Df2"}]}"#,
        ] {
            assert_eq!(scrubbed(text), text, "{text}");
        }
    }

    /// A megabyte of cookie objects, of bare name/value objects under `cookies` and of `"value"`
    /// pairs: each value is read within bounded bytes.
    #[test]
    fn chains_of_cookie_objects_stay_linear() {
        let repeated = |unit: &str| unit.repeat((1 << 20) / unit.len() + 1);
        let unit = format!("{{\"name\":\"a\",\"value\":\"{SID}\",\"path\":\"/\"}},");
        let text = repeated(&unit);
        assert_eq!(
            SecretScanner::new(&[]).unwrap().find(&text).len(),
            text.len() / unit.len()
        );
        let text = format!(
            "{{\"cookies\":[{}]}}",
            repeated(&format!("{{\"name\":\"a\",\"value\":\"{SID}\"}},"))
        );
        assert!(!SecretScanner::new(&[]).unwrap().find(&text).is_empty());
        for unit in [
            format!("{{\"value\":\"{SID}\","),
            format!("{{\"name\":\"a\",\"value\":\"{SID}\"}},"),
            "\"value\":\"".to_owned(),
        ] {
            let text = repeated(&unit);
            assert!(
                SecretScanner::new(&[]).unwrap().find(&text).is_empty(),
                "{unit}"
            );
        }
    }
}
