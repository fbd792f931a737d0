//! Cookies printed as objects, as browser tools return them: Playwright's `context.cookies()`
//! and `storageState()`, Puppeteer's `page.cookies()`, the Chrome DevTools Protocol's
//! `Network.getCookies`, browser extensions' `chrome.cookies.getAll` (`{"name": "sid", "value":
//! "...", "domain": ..., "path": "/", "httpOnly": true, ...}`), a HAR's `cookies` arrays in its
//! requests and responses, whose objects may hold a name and a value only (the attack review 2's
//! 9), Selenium's `get_cookies()` printed by Python (`{'name': 'sid', 'value': '...', 'httpOnly':
//! True}`), Node's `console.log` of them (`{ name: 'sid', value: '...' }`), tough-cookie's `toJSON()` of got and jsdom (`key` names the cookie) and WebDriver
//! BiDi's `storage.getCookies` (the value an object: `{"type": "string", "value": "..."}`, or
//! `base64`; the attack review 3's 6).
//!
//! The search finds each `"value": "..."` pair (or `'value': '...'`, `value: '...'`; see
//! `builtin.rs`); here its
//! object is read: it is a cookie when it has a name (`name` or `key`) and a cookie attribute,
//! or a name alone beside the value and it stands in an array under a `cookies` key. Its value is
//! then a secret by the cookie's name or its shape (`cookie_value.rs`). Every read is bounded
//! ([`MAX_OBJECT`] bytes on each side of the value, [`MAX_ARRAY_WALK`] bytes back to the array's
//! key, [`MAX_NAME`] bytes back over a `cookies.txt` line's name), so the search stays linear.

use super::cookie_value::is_cookie_secret;

/// The most bytes read from a value back to its object's `{` and on to its `}`.
const MAX_OBJECT: usize = 512;

/// The most bytes read back from an object to the `[` of the array it is listed in.
const MAX_ARRAY_WALK: usize = 2048;

/// The longest cookie name read back from a `cookies.txt` line's value.
const MAX_NAME: usize = 256;

/// The keys that name a cookie in its object: `name` (browsers, HAR, Selenium, BiDi) or `key`
/// (tough-cookie).
const NAME_KEYS: &[&str] = &["name", "key"];

/// The keys only a cookie's object has besides its name and value (Playwright, Puppeteer and
/// CDP, HAR, `chrome.cookies`, Selenium, BiDi, tough-cookie), compared without case.
const COOKIE_ATTRIBUTES: &[&str] = &[
    "domain",
    "path",
    "expires",
    "expiry",
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
    "creation",
    "lastaccessed",
];

/// The end of the cookie value `text[start..end]` (a `value` key's string) when it is a secret:
/// its object is a cookie's ([`cookie_name`]) and the value is one by the cookie's name or its
/// shape.
pub(super) fn cookie_value_end(text: &str, start: usize, end: usize) -> Option<usize> {
    let name = cookie_name(text, start, end)?;
    is_cookie_secret(name, &text[start..end]).then_some(end)
}

/// The cookie's name (empty when its object holds none) when the string `text[start..end]` is
/// the value of a cookie's object, or of the value object of one (BiDi's `{"type": "string",
/// "value": ...}`).
fn cookie_name(text: &str, start: usize, end: usize) -> Option<&str> {
    let bytes = text.as_bytes();
    let (open, close) = object_around(bytes, start, end)?;
    let mut fields = fields(text, open, close);
    let mut object_open = open;
    if is_typed_value(&fields) {
        // BiDi: the object is the value of the cookie's object around it.
        let (outer_open, outer_close) = object_around(bytes, open, close + 1)?;
        let before = fields_of(text, outer_open, open);
        if !before
            .last()
            .is_some_and(|(key, value)| key.eq_ignore_ascii_case("value") && value.is_none())
        {
            return None;
        }
        fields = before;
        fields.extend(fields_of(text, close + 1, outer_close));
        object_open = outer_open;
    }
    let name = fields.iter().find_map(|(key, value)| {
        NAME_KEYS
            .iter()
            .any(|name| key.eq_ignore_ascii_case(name))
            .then_some(value.unwrap_or_default())
    })?;
    let attribute = fields.iter().any(|(key, _)| {
        COOKIE_ATTRIBUTES
            .iter()
            .any(|attribute| key.eq_ignore_ascii_case(attribute))
    });
    (attribute || (fields.len() == 2 && listed_under_cookies(bytes, object_open))).then_some(name)
}

/// The `{` and `}` of the flat object around `text[start..end]`: the nearest brace before it
/// (within [`MAX_OBJECT`] bytes) is a `{`, the nearest after it a `}`.
fn object_around(bytes: &[u8], start: usize, end: usize) -> Option<(usize, usize)> {
    let floor = start.saturating_sub(MAX_OBJECT);
    let open = bytes[floor..start]
        .iter()
        .rposition(|byte| matches!(byte, b'{' | b'}'))
        .map(|offset| floor + offset)
        .filter(|&open| bytes[open] == b'{')?;
    let limit = bytes.len().min(end + MAX_OBJECT);
    let close = bytes[end..limit]
        .iter()
        .position(|byte| matches!(byte, b'{' | b'}'))
        .map(|offset| end + offset)
        .filter(|&close| bytes[close] == b'}')?;
    Some((open, close))
}

/// Whether an object's fields are exactly a `type` of `string` or `base64` and a `value`: a
/// WebDriver BiDi BytesValue.
fn is_typed_value(fields: &[(&str, Option<&str>)]) -> bool {
    let field = |name: &str| {
        fields
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| *value)
    };
    fields.len() == 2
        && field("value").is_some()
        && matches!(field("type"), Some(Some("string" | "base64")))
}

/// The fields of the object `text[open..=close]`.
fn fields(text: &str, open: usize, close: usize) -> Vec<(&str, Option<&str>)> {
    fields_of(text, open, close + 1)
}

/// The fields written in `text[from..to]`: each key (quoted with `"` or `'`, or bare as Node's
/// `console.log` prints it) followed by a `:`, with its value when that is a quoted string.
/// Every string is read whole, so a word inside a value is no key.
fn fields_of(text: &str, from: usize, to: usize) -> Vec<(&str, Option<&str>)> {
    let bytes = text.as_bytes();
    let string_at = |at: usize| -> Option<(usize, usize)> {
        let quote = bytes[at];
        let length = bytes[at + 1..to].iter().position(|&byte| byte == quote)?;
        Some((at + 1, at + 1 + length))
    };
    let is_word = |byte: u8| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$');
    let skip_blanks = |mut at: usize| {
        while at < to && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        at
    };
    let mut fields = Vec::new();
    let mut at = from;
    while at < to {
        let (key_start, key_end) = match bytes[at] {
            b'"' | b'\'' => {
                let Some(string) = string_at(at) else { break };
                at = string.1 + 1;
                string
            }
            byte if is_word(byte) => {
                let start = at;
                while at < to && is_word(bytes[at]) {
                    at += 1;
                }
                (start, at)
            }
            _ => {
                at += 1;
                continue;
            }
        };
        let colon = skip_blanks(at);
        if colon >= to || bytes[colon] != b':' {
            continue;
        }
        at = skip_blanks(colon + 1);
        let mut value = None;
        if at < to && matches!(bytes[at], b'"' | b'\'') {
            if let Some((value_start, value_end)) = string_at(at) {
                value = Some(&text[value_start..value_end]);
                at = value_end + 1;
            }
        }
        fields.push((&text[key_start..key_end], value));
    }
    fields
}

/// The field before the value at `start` of a `cookies.txt` line: the cookie's name, between the
/// two tabs before the value (read back at most [`MAX_NAME`] bytes; empty when longer).
pub(super) fn field_before(text: &str, start: usize) -> &str {
    let bytes = text.as_bytes();
    let name_end = start.saturating_sub(1);
    let floor = name_end.saturating_sub(MAX_NAME);
    bytes[floor..name_end]
        .iter()
        .rposition(|&byte| byte == b'\t')
        .map_or("", |offset| &text[floor + offset + 1..name_end])
}

/// Whether the object whose `{` is at `open` is an item of an array under a `cookies` key: back
/// over the items before it (objects with no object inside, commas, blanks) to the array's `[`,
/// then `"cookies":` (or `'cookies':`).
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

/// Whether `before` (the text before an array's `[`) ends with the key `"cookies":` (or
/// `'cookies':`).
fn under_cookies_key(before: &[u8]) -> bool {
    let trimmed = before.trim_ascii_end();
    let Some(key) = trimmed.strip_suffix(b":") else {
        return false;
    };
    let key = key.trim_ascii_end();
    let Some((&quote, name)) = key.split_last() else {
        return false;
    };
    matches!(quote, b'"' | b'\'')
        && name.len() >= 8
        && name[name.len() - 8] == quote
        && name[name.len() - 7..].eq_ignore_ascii_case(b"cookies")
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

    /// The attack review 3's 6: the cookie records other tools print, whatever their name key,
    /// quoting or nested value; and a `cookies.txt` file. Each session value is replaced, the
    /// rest of the record stays.
    #[test]
    fn a_cookie_record_is_found_whatever_its_name_key_quoting_or_nested_value() {
        let bidi = |kind: &str, value: &str| {
            serde_json::json!({ "cookies": [{ "name": "sid", "value": { "type": kind, "value": value },
                "domain": "x.io", "path": "/", "httpOnly": true, "secure": false, "size": 27,
                "sameSite": "lax" }], "partitionKey": {} })
            .to_string()
        };
        let cases: Vec<(&str, String, &str)> = vec![
            // Selenium's driver.get_cookies() printed by Python (single quotes, True/False).
            (
                "Selenium, Python",
                format!("[{{'domain': 'app.example.com', 'httpOnly': True, 'name': 'sid', 'path': '/', 'secure': True, 'value': '{SID}'}}]"),
                SID,
            ),
            (
                "Selenium, Python, value first, expiry",
                format!("[{{'value': '{SID}', 'expiry': 1767225600, 'name': 'pref', 'sameSite': 'Lax'}}]"),
                SID,
            ),
            (
                "Python dict inside a JSON string",
                serde_json::json!({ "stdout": format!("[{{'name': 'sessionid', 'value': '{SID}', 'path': '/'}}]\n") }).to_string(),
                SID,
            ),
            // Node's console.log of Puppeteer's page.cookies(): bare keys, single quotes.
            (
                "Node console.log",
                format!("[\n  {{\n    name: 'sid',\n    value: '{SID}',\n    domain: 'x.io',\n    path: '/',\n    expires: -1,\n    httpOnly: true\n  }}\n]"),
                SID,
            ),
            // WebDriver BiDi storage.getCookies: the value is a BytesValue object.
            ("BiDi, string value", bidi("string", SID), SID),
            ("BiDi, base64 value", bidi("base64", "WngxUXc4RXI3VHk2VWk1T3A0"), "WngxUXc4RXI3VHk2VWk1T3A0"),
            // tough-cookie's toJSON() (got, jsdom): `key` names the cookie.
            (
                "tough-cookie toJSON",
                serde_json::json!({ "version": "tough-cookie@4.1.3", "storeType": "MemoryCookieStore",
                    "cookies": [{ "key": "sid", "value": SID, "domain": "app.example.com", "path": "/",
                    "httpOnly": true, "hostOnly": true, "creation": "2026-01-01T00:00:00.000Z",
                    "lastAccessed": "2026-01-01T00:00:01.000Z" }] })
                .to_string(),
                SID,
            ),
            // A Netscape cookies.txt (curl -c), an #HttpOnly_ line and a plain one.
            (
                "cookies.txt",
                format!("# Netscape HTTP Cookie File\n#HttpOnly_.example.com\tTRUE\t/\tTRUE\t1767225600\tsid\t{SID}\napp.example.com\tFALSE\t/\tFALSE\t0\ttheme\tdark\n"),
                SID,
            ),
            (
                "cookies.txt in a JSON string, CRLF",
                serde_json::json!({ "jar": format!("example.com\tFALSE\t/app\tFALSE\t0\tPHPSESSID\tb8f3k2l9m1n4p6q7\r\n") }).to_string(),
                "b8f3k2l9m1n4p6q7",
            ),
        ];
        for (name, text, secret) in cases {
            let out = scrubbed(&text);
            assert!(!out.contains(secret), "{name}: {out}");
            // The JSON-escaped cookies.txt line is taken first by its session cookie's name
            // (`PHPSESSID` names a credential parameter wherever its pair is printed).
            let label = if name.ends_with("CRLF") {
                "[redacted:credential-parameter]"
            } else {
                "[redacted:credential-header]"
            };
            assert!(out.contains(label), "{name}: {out}");
            let names = ["sid", "pref", "sessionid", "PHPSESSID"];
            assert!(
                names.iter().any(|cookie| out.contains(cookie)),
                "{name}: {out}"
            );
        }
    }

    /// The attack review 3's 9: cookies whose values are preferences or analytics ids keep them
    /// in every record shape; a session cookie beside them is still replaced.
    #[test]
    fn ordinary_cookie_values_pass_in_every_record_shape() {
        let ordinary = [
            ("theme", "solarized-dark-2"),
            ("_ga", "GA1.1.1234567890.1700000000"),
            ("_fbp", "fb.1.1700000000000.1234567890"),
            ("theme", "dark"),
        ];
        for (name, value) in ordinary {
            for text in [
                serde_json::json!([{ "name": name, "value": value, "domain": "docs.example.com", "path": "/" }]).to_string(),
                format!("[{{'name': '{name}', 'value': '{value}', 'path': '/', 'secure': False}}]"),
                serde_json::json!({ "cookies": [{ "key": name, "value": value, "domain": "x.io", "hostOnly": true }] }).to_string(),
                serde_json::json!({ "cookies": [{ "name": name, "value": { "type": "string", "value": value }, "domain": "x.io" }] }).to_string(),
                format!(".x.io\tTRUE\t/\tFALSE\t1767225600\t{name}\t{value}\n"),
                format!("Cookie: {name}={value}"),
                format!("Set-Cookie: {name}={value}; Path=/; Max-Age=3600"),
            ] {
                assert_eq!(scrubbed(&text), text, "{text}");
            }
        }
        let both = serde_json::json!([
            { "name": "theme", "value": "solarized-dark-2", "path": "/" },
            { "name": "session", "value": "b8f3k2l9m1n4p6q7", "path": "/" },
        ])
        .to_string();
        let out = scrubbed(&both);
        assert!(
            out.contains("solarized-dark-2") && !out.contains("b8f3k2l9m1n4p6q7"),
            "{out}"
        );
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
