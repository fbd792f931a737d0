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
        ];
        let scanner = crate::sanitize::secrets::SecretScanner::new(&[]).unwrap();
        for line in corpus {
            let mut counts = Default::default();
            assert_eq!(scanner.scrub(line, &mut counts), line, "{line}");
        }
    }
}
