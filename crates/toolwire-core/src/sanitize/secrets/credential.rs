//! Whether the value after a credential header's name is a credential or code.
//!
//! `api_key = os.environ.get("OPENAI_API_KEY")`, `const apiKey = process.env.OPENAI_API_KEY`
//! and `document.cookie = "theme=dark"` are ordinary source lines a coding agent reads: their
//! values name where a key comes from, they are not one. A header found by its name only
//! (`X-Api-Key` and kin, `Cookie`) is a secret when its value looks like a token:
//!
//! - not code: not followed by `(` or `[` (a call, an index), and not a path of two or more
//!   identifiers joined by `.` without a digit (`settings.openai_api_key`, `process.env.X`);
//! - not a placeholder: mixed characters, at least two of lower-case letters, upper-case letters
//!   and digits (`YOUR_API_KEY_HERE`, `your-api-key`, `xxxxxxxxxxxx` are not), or 16 digits or
//!   more (a numeric session id).
//!
//! `$VAR`, `${VAR}`, `<token>` and `***` hold no token characters and never match. A cookie
//! header is a secret when one of its values is (`theme=dark; path=/` is not). A header with a
//! scheme (`Authorization: Bearer`, `Basic`, `Token`) is a credential by its scheme and is not
//! checked here.
//!
//! A value found by a weaker sign (a credential parameter's name, `access_token=`, `password:`,
//! `curl -u user:`, or a scheme word outside a header, `"Bearer t"`) must look like a
//! credential more strongly ([`ValueCheck`]): besides the above, not a file path, and a digit in
//! it, or 24 characters or more that are not words joined in camel case (`SecretStr`,
//! `AccessTokenProvider` and `Optional[str]` are type names; random tokens hold digits). Basic
//! credentials outside a header must decode from base64 to `user:password`.

use base64::Engine as _;

/// How a value found by a kind with [`super::builtin::Extent::Checked`] is confirmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ValueCheck {
    /// The value of a credential parameter or option (`client_secret=`, `--password=`): a
    /// credential value ([`is_credential_value`]).
    Named,
    /// The credentials after a `Basic` scheme word outside a header: base64 of `user:password`.
    Basic,
}

impl ValueCheck {
    /// The end of the credential that `text[start..end]` holds by this check, if it holds one.
    /// A named value ends before an `@` and a host (`user:token@github.com`: the value is a
    /// URL's password, which `url-password` names).
    pub(super) fn confirm(self, text: &str, start: usize, end: usize) -> Option<usize> {
        match self {
            ValueCheck::Named => {
                let end = before_host(text, start, end);
                is_credential_value(text, start, end).then_some(end)
            }
            ValueCheck::Basic => is_basic_credentials(&text[start..end]).then_some(end),
        }
    }
}

/// `end`, or the position of the first `@` in `text[start..end]` that a host follows (a name,
/// then `.`, `/` or `:`).
fn before_host(text: &str, start: usize, end: usize) -> usize {
    let value = &text[start..end];
    value
        .match_indices('@')
        .find(|&(at, _)| {
            let host = &value[at + 1..];
            let name = host
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-')
                .count();
            name > 0 && matches!(host.as_bytes().get(name), Some(b'.' | b'/' | b':'))
        })
        .map_or(end, |(at, _)| start + at)
}

/// Whether `text[start..end]`, found by a credential's name or scheme word only, is one: it looks
/// like a token ([`is_key_value`]), is no path, and holds a digit, or is 24 characters or more
/// and not camel-case words.
pub(super) fn is_credential_value(text: &str, start: usize, end: usize) -> bool {
    let value = &text[start..end];
    let digit = value.bytes().any(|b| b.is_ascii_digit());
    is_key_value(text, start, end)
        && !is_path(value)
        && (digit || (value.len() >= 24 && !is_camel_words(value)))
}

/// Whether `value` is base64 (padded or not, `=` possibly percent-encoded) of `user:password`:
/// printable text holding a `:`.
fn is_basic_credentials(value: &str) -> bool {
    let Ok(decoded) = base64::engine::general_purpose::STANDARD_NO_PAD.decode(unpadded(value))
    else {
        return false;
    };
    std::str::from_utf8(&decoded).is_ok_and(|plain| {
        plain.len() >= 3 && plain.contains(':') && !plain.chars().any(char::is_control)
    })
}

/// `value` without its base64 padding: trailing `=`, as it is or percent-encoded (`%3D`,
/// `%253D`).
fn unpadded(value: &str) -> &str {
    let mut rest = value;
    loop {
        if let Some(shorter) = rest.strip_suffix('=') {
            rest = shorter;
            continue;
        }
        let escaped = rest.len() >= 3 && rest[rest.len() - 2..].eq_ignore_ascii_case("3d");
        let Some(percent) = escaped.then(|| rest[..rest.len() - 2].trim_end_matches("25")) else {
            return rest;
        };
        match percent.strip_suffix('%') {
            Some(shorter) => rest = shorter,
            None => return rest,
        }
    }
}

/// Whether `value` names a file: it starts with `./`, `../`, `~/`, or `/` and a lower-case
/// directory (`/etc/`, `/home/`, `/run/secrets/`).
fn is_path(value: &str) -> bool {
    if ["./", "../", "~/"]
        .iter()
        .any(|head| value.starts_with(head))
    {
        return true;
    }
    value.strip_prefix('/').is_some_and(|rest| {
        rest.split_once('/').is_some_and(|(directory, _)| {
            directory.len() >= 2 && directory.bytes().all(|b| b.is_ascii_lowercase())
        })
    })
}

/// Whether `value` is words joined in camel or Pascal case, or by `-`, `_` or `.`, without
/// digits: every upper-case letter starts a word (it is followed by a lower-case letter, or
/// the word is all upper case: `X-Api-Key`, `SecretStr`, `ACCESS_TOKEN`, `myAccessToken`).
fn is_camel_words(value: &str) -> bool {
    value.split(['-', '_', '.']).all(|word| {
        let bytes = word.as_bytes();
        let all_upper = bytes.iter().all(|b| !b.is_ascii_lowercase());
        bytes.iter().all(u8::is_ascii_alphabetic)
            && (all_upper
                || bytes.iter().enumerate().all(|(at, b)| {
                    !b.is_ascii_uppercase() || bytes.get(at + 1).is_some_and(u8::is_ascii_lowercase)
                }))
    })
}

/// Whether the value `text[start..end]` of a header named by an API-key name is a credential.
pub(super) fn is_key_value(text: &str, start: usize, end: usize) -> bool {
    let value = &text[start..end];
    !is_code(text, value, end) && looks_like_token(value)
}

/// Whether the pairs `text[start..end]` of a cookie header hold a credential: some value (after
/// its `=`) is one.
pub(super) fn is_cookie_value(text: &str, start: usize, end: usize) -> bool {
    let pairs = &text[start..end];
    !is_code(text, pairs, end)
        && pairs
            .split(';')
            .filter_map(|pair| pair.split_once('=').map(|(_, value)| value))
            .any(|value| value.len() >= 12 && looks_like_token(value))
}

/// Whether `value` (ending at `end` of `text`) reads as code: a call or an index follows it, or
/// it is a dotted path of identifiers without a digit.
fn is_code(text: &str, value: &str, end: usize) -> bool {
    let called = matches!(text[end..].chars().next(), Some('(' | '['));
    let path = value.contains('.')
        && !value.bytes().any(|b| b.is_ascii_digit())
        && value.split('.').all(is_identifier);
    called || path
}

/// Whether `word` is an identifier: a letter, `_` or `$` and then letters, digits, `_`, `$`.
fn is_identifier(word: &str) -> bool {
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Whether `value` has a token's mixed characters (see the module's doc).
fn looks_like_token(value: &str) -> bool {
    let lower = value.bytes().any(|b| b.is_ascii_lowercase());
    let upper = value.bytes().any(|b| b.is_ascii_uppercase());
    let digits = value.bytes().filter(u8::is_ascii_digit).count();
    let classes = [lower, upper, digits > 0].iter().filter(|&&c| c).count();
    classes >= 2 || (digits >= 16 && !lower && !upper)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_told_apart_from_code_and_placeholders() {
        // (value, what follows it, is a credential)
        let cases = [
            ("q8Z2mX4vL9pR7tY1wK3n", "", true),
            ("a3f9c2e17b5d4f60", "\n", true),
            ("AB12CD34EF56GH78", "", true),
            ("1234567890123456", "", true),
            ("sk_live.a1b2c3d4e5f6", "", true),
            ("os.environ.get", "(", false),
            ("process.env.OPENAI_API_KEY", "", false),
            ("settings.openai_api_key", ")", false),
            ("gitlab_config.private_token_for", "(", false),
            ("YOUR_API_KEY_HERE", "", false),
            ("your-api-key-here", "", false),
            ("xxxxxxxxxxxxxxxx", "", false),
            ("123456789012", "", false),
            ("request_headers", "[", false),
        ];
        for (value, after, credential) in cases {
            let text = format!("{value}{after}");
            assert_eq!(
                is_key_value(&text, 0, value.len()),
                credential,
                "{value:?} before {after:?}"
            );
        }
        let cookies = [
            ("theme=dark; path=/", false),
            ("lang=en-US; Path=/; Max-Age=3600", false),
            ("session=9f8e7d6c5b4a3f2e1d0c; path=/", true),
            ("sid=Xy7Qp2Lm9Rt4Vw8Z", true),
        ];
        for (pairs, credential) in cookies {
            assert_eq!(
                is_cookie_value(pairs, 0, pairs.len()),
                credential,
                "{pairs}"
            );
        }
    }

    /// Ordinary source lines a coding agent reads (the attack review's 17 found the first four
    /// kinds mangled): Python, JavaScript and TypeScript, Go, shell, YAML, .env with placeholders,
    /// markdown. Each passes the scrub unchanged.
    #[test]
    fn ordinary_source_lines_pass_unchanged() {
        let corpus = [
            // Python.
            r#"api_key = os.environ.get("OPENAI_API_KEY")"#,
            r#"api_key = os.environ["OPENAI_API_KEY"]"#,
            "client = OpenAI(api_key=settings.openai_api_key)",
            r#"headers["X-Api-Key"] = self.config.api_key_value"#,
            "private_token = gitlab_config.private_token_for(user)",
            r#"API_KEY = os.getenv("API_KEY", "YOUR_API_KEY_HERE")"#,
            // JavaScript and TypeScript.
            "const apiKey = process.env.OPENAI_API_KEY",
            "this.apiKey = options.apiKey ?? defaults.apiKey",
            r#"if (!apiKey) throw new Error("missing")"#,
            r#"document.cookie = "theme=dark; path=/""#,
            r#"const token = req.headers.authorization?.split(" ")[1]"#,
            r#"apiKey: config.get<string>("openai.apiKey"),"#,
            "export function getApiKeyFromEnvironment(): string {",
            "headers: { 'x-api-key': apiKeyFromVault() },",
            "const apiKey = `${API_KEY}`",
            // Go.
            r#"apiKey := os.Getenv("API_KEY")"#,
            r#"req.Header.Set("X-Api-Key", cfg.ApiKey)"#,
            // Shell.
            r#"curl -H "Authorization: Bearer $TOKEN" https://api.example.com"#,
            r#"curl -H "X-Api-Key: ${API_KEY}" https://api.example.com"#,
            "export API_KEY=$(cat ~/.config/key)",
            // YAML and .env with placeholders.
            "api_key: ${OPENAI_API_KEY}",
            "api_key: <your-api-key>",
            "API_KEY=your-api-key-here",
            "API_KEY=xxxxxxxxxxxxxxxx",
            "API_KEY=****************",
            "X_API_KEY=REPLACE_WITH_YOUR_KEY",
            // Prose and markdown.
            "Authorization: Bearer <your-token-here>",
            "| `api_key` | string | Your OpenAI API key from the dashboard |",
            "x-api-key-header-name: X-Api-Key",
            "Set-Cookie: lang=en-US; Path=/; Max-Age=3600",
            // The words of credential parameters and schemes in code (issue 19's kinds), with
            // placeholders, variables and type names as their values.
            r#"token_type = response.json()["token_type"]"#,
            "access_token = get_access_token(client_id, client_secret)",
            "const accessToken = await auth.getAccessToken()",
            "self.refresh_token = refresh_token",
            "access_token: Optional[str] = None",
            "client_secret: SecretStr = Field(...)",
            "refreshToken: AccessTokenProvider,",
            r#"let password = prompt("Password: ")"#,
            "password = getpass.getpass()",
            r#"DB_PASSWORD = os.environ["DB_PASSWORD"]"#,
            "password: ${DB_PASSWORD}",
            "password: changeme",
            "PASSWORD=your-password-here",
            "private_key: ./keys/id_ed25519_2024",
            "secret_key_file = /run/secrets/secret_key_2024",
            r#"curl -u "$USER:$PASS" https://api.example.com"#,
            r#"curl -u "${GITHUB_USER}:${GITHUB_TOKEN}" https://api.github.com"#,
            "docker run -u 1000:1000 image",
            "wget --password=$WGET_PASSWORD https://example.com/f",
            "Use your secret key: sk_live_... (or sk_live_xxx in test mode).",
            "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
            "//registry.npmjs.org/:_authToken=$NPM_TOKEN",
            r#"headers["Authorization"] = f"Bearer {token}""#,
            r#"const auth = `Bearer ${accessToken}`"#,
            r#"headers: { Authorization: "Bearer " + token }"#,
            "Bearer tokens are sent in the Authorization header.",
            "Basic authentication is not supported; use a Bearer token.",
            "See the Token Authentication section for details.",
            "next_page_token = resp.get(\"nextPageToken\")",
            "| `access_token` | string | The token issued by the server |",
            "| Authorization | Bearer <token> |",
            "Map(Authorization -> Bearer ${token})",
            "<name>Authorization</name><value>Bearer ${TOKEN}</value>",
        ];
        let scanner = crate::sanitize::secrets::SecretScanner::new(&[]).unwrap();
        for line in corpus {
            let mut counts = Default::default();
            assert_eq!(scanner.scrub(line, &mut counts), line, "{line}");
        }
    }
}
