//! The built-in kinds: their public names and the patterns that find them.
//!
//! Each pattern is a literal (`sk-`, `AKIA`, `ghp_`, `eyJ`, `-----`, `://`, ...) and a body, and
//! realistic minimum lengths keep prose such as `sk-abc` from being a secret.
//!
//! A vendor prefix is distinctive (exact, case-sensitive, followed by the whole body of its
//! format), so a token is found wherever it starts: after a space, an escape (`\n`, `%3D`), an
//! `_`, a letter or a digit (`auth=Bearerghp_...`, `keyAKIA...`, `xx...xxsk-proj-...`). Only the
//! marker-less legacy OpenAI form (`sk-` and 40 or more letters and digits, no other sign of a
//! key) keeps a `left_edge!`: `task-` followed by a 40-character hash is an identifier, not a
//! key (real legacy keys hold the `T3BlbkFJ` marker and are found glued too).
//!
//! On the right, a fixed-length kind (an AWS key id: 20 characters, a Google API key: 39) ends
//! where its format ends: what follows stays (`AKIA...EXAMPLEsuffix` keeps `suffix`). A kind whose
//! body has no fixed length is replaced through the whole run of its body characters, so a token
//! glued to letters or digits is replaced with them.
//!
//! The patterns are part of one regex (the `regex` crate has no look-around): the combined search
//! runs as one automaton that reports only real matches, linear in the text, whatever it holds.
//!
//! The formats were learned from the public rule sets of secret scanners (gitleaks, trufflehog,
//! GitHub secret scanning) and the vendors' documented token prefixes.

use super::credential::ValueCheck;

/// How the match of a kind's pattern becomes the secret's byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Extent {
    /// The match, or its `secret` capture group when the pattern has one.
    Match,
    /// A PEM block or a BEGIN line with the body that follows it: the match, kept only when the
    /// body holds key material (a lone BEGIN line reveals nothing).
    PemBegin,
    /// The `secret` group of a header named by an API-key name, kept only when its value looks
    /// like a token, not code or a placeholder ([`super::credential::is_key_value`]).
    KeyValue,
    /// The `secret` group of a cookie header, kept only when one of its values looks like a token
    /// ([`super::credential::is_cookie_value`]).
    CookieValue,
    /// The `secret` group, kept only when the check says it is a credential (a value found by a
    /// credential parameter's name or a scheme word outside a header; see
    /// [`super::credential::ValueCheck`]).
    Checked(ValueCheck),
    /// A PEM END line whose BEGIN is not in the text: the match extended back over the body lines
    /// before it ([`super::pem::body_start`]), kept only when that body holds key material.
    PemEnd,
}

/// One built-in kind: its public name, its pattern and how a match becomes a secret.
pub(super) struct BuiltinKind {
    /// The public name (part of the contract: it appears in `[redacted:<kind>]`).
    pub name: &'static str,
    /// The pattern for the `regex` crate.
    pub pattern: &'static str,
    /// How a match becomes the secret's range.
    pub extent: Extent,
}

/// The character (or escape) a prefixed token may follow: the start of the text, anything but an
/// ASCII letter or digit, or the end of an escape whose last character is one: a backslash escape
/// of JSON, C or shell text (`\n`, `\t`, `\\n` when escaped twice, `\u003e`, `\x3d`), a
/// percent escape (`%3D`, `%253D` when encoded twice) or a JSON Pointer escape (`~1` is `/`, as
/// validation errors name a key). A kind's `secret` group follows it.
macro_rules! left_edge {
    () => {
        concat!(
            r"(?:\A|[^A-Za-z0-9]|\\+(?:u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|[A-Za-z])",
            r"|%(?:25)*[0-9A-Fa-f]{2}|~[01])"
        )
    };
}

/// OpenAI keys: project, service-account and admin keys (`sk-proj-`, `sk-svcacct-`, `sk-admin-` and
/// a long base64url body), and any `sk-` key with the `T3BlbkFJ` marker (base64 of "OpenAI") that
/// OpenAI embeds in its keys (legacy user keys hold it too). `sk-ant-` never matches: `ant` is
/// followed by `-`, which the marker-less forms do not accept. Found wherever they start.
const OPENAI_KEY: &str = concat!(
    r"sk-(?:",
    r"(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}",
    r"|[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}",
    r")"
);

/// Legacy OpenAI user keys without the marker: `sk-` and 40 or more letters and digits. Nothing
/// but the prefix marks them, so they must not start inside a word (`task-` and a SHA-1 is no key).
const OPENAI_LEGACY_KEY: &str = concat!(left_edge!(), r"(?P<secret>sk-[A-Za-z0-9]{40,})");

/// Anthropic keys: `sk-ant-` + a purpose and version (`api03`, `admin01`, `oat01`, ...) + a long
/// base64url body (93 characters and `AA` in current keys).
const ANTHROPIC_KEY: &str = r"sk-ant-[a-z]{2,12}[0-9]{2}-[A-Za-z0-9_-]{40,}";

/// AWS access key ids of long-term (`AKIA`), temporary (`ASIA`), STS bearer-token (`ABIA`)
/// and context-specific (`ACCA`) credentials, the prefixes of AWS's unique-id table that name
/// access keys: exactly 20 characters, what follows them is kept. The body is base32 (`A-Z`,
/// `2-7`), as AWS encodes the key's account and serial: base64 text holding `ABIA` and a `0`,
/// `1`, `8` or `9` is none (`...CwAAABIAAAAOAAAAEQAA...` of an inline wasm, the fifth user
/// review's 5).
const AWS_ACCESS_KEY: &str = r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}";

/// GitHub tokens: classic (`ghp_` personal, `gho_` OAuth, `ghu_` user-to-server, `ghs_`
/// server-to-server, `ghr_` refresh) with 36 or more alphanumerics, and fine-grained personal
/// access tokens (`github_pat_` + 82 word characters in current tokens).
const GITHUB_TOKEN: &str = r"gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{50,}";

/// Slack tokens: bot, user, app-level, refresh, legacy and configuration tokens (`xoxb-`, `xoxp-`,
/// `xoxa-`, `xoxr-`, `xoxs-`, `xoxe-`, `xoxe.xoxp-`) and app tokens (`xapp-1-...`).
const SLACK_TOKEN: &str = concat!(
    r"(?:xoxe\.)?xox[abeprs]-[0-9A-Za-z][0-9A-Za-z-]{14,}",
    r"|xapp-[0-9]+-[0-9A-Za-z-]{14,}"
);

/// Google API keys: `AIza` + exactly 35 base64url characters; what follows them is kept.
const GOOGLE_API_KEY: &str = r"AIza[0-9A-Za-z_-]{35}";

/// JSON Web Tokens: three base64url segments, header and payload both JSON objects (`eyJ` is
/// base64 of `{"`), and a signature of realistic length (unsigned `alg: none` tokens are not
/// matched).
const JWT: &str = r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{16,}";

/// A line break of a PEM block: LF, CR, VT, FF, the `\n`, `\r` escapes of JSON text (possibly
/// double-escaped), an HTML page's `<br>`, `<br/>`, `<br />` (any case) or the Unicode line
/// breaks NEL, U+2028, U+2029 (the attack review 2's 10 and 3's 6).
macro_rules! pem_break {
    () => {
        r"(?:[\r\n\x0B\x0C\x{85}\x{2028}\x{2029}]|\\+[rn]|(?i:<br[ \t]{0,4}/?>))"
    };
}

/// One element of a PEM body: a line break (see `pem_break`) with the blanks that end or indent
/// a line, a run of base64, or a blank followed by 16 or more base64 characters (keys pasted on
/// one line).
macro_rules! pem_body_element {
    () => {
        concat!(
            r"(?:[ \t]*",
            pem_break!(),
            r"[ \t]*",
            r"|[A-Za-z0-9+/=]+",
            r"|[ \t]+[A-Za-z0-9+/=]{16,})"
        )
    };
}

/// The RFC 1421 / OpenPGP header lines right after a BEGIN line (`Proc-Type: 4,ENCRYPTED`,
/// `DEK-Info: ...`, `Version: ...`), each after its line break, and the line break after the last
/// one; a value stops at a line break (see `pem_break`), a backslash, a quote or a `<`.
macro_rules! pem_headers {
    () => {
        concat!(
            r"(?:(?:[ \t]*(?:\r\n|\\+r\\+n|",
            pem_break!(),
            r#")[A-Za-z][A-Za-z0-9-]*:[^\r\n\x0B\x0C\x{85}\\"<\x{2028}\x{2029}]*)+"#,
            r"[ \t]*",
            pem_break!(),
            r")?"
        )
    };
}

/// A PEM private key (PKCS#8, RSA, EC, DSA, OpenSSH, encrypted, PGP armor): the BEGIN line through
/// the END line, or, when no END line follows, the BEGIN line and the body after it up to the
/// first character a PEM body cannot contain (see `pem_body_element`).
///
/// A header value can hold any text, so a line break must follow it: the combined search finds a
/// match's start by scanning back from its end, and a pattern whose body could continue straight
/// from a header value would make that scan run back through all the text before every secret.
const PRIVATE_KEY_BEGIN: &str = concat!(
    r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:",
    // The complete block (lazy: ends at the first END line).
    pem_headers!(),
    pem_body_element!(),
    r"*?[ \t]*-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----",
    // The fragment: the body as far as it goes.
    r"|(?:",
    pem_headers!(),
    pem_body_element!(),
    r"+)?)"
);

/// The BEGIN line of an SSH2 private key (RFC 4716); its block is walked in `ssh2_key.rs`.
const SSH2_PRIVATE_KEY_BEGIN: &str = r"---- BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY ----";

/// The END line of a PEM (or SSH2) private key; found alone (its BEGIN outside the text), the
/// body lines before it are part of the secret.
const PRIVATE_KEY_END: &str = concat!(
    r"-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----",
    r"|---- END SSH2 (?:ENCRYPTED )?PRIVATE KEY ----"
);

/// A blank between a scheme and its token: a space or tab as it is, escaped (`\t`), percent-
/// encoded once or more (`%20`, `%2520`), or a `+` (a space of form text, `%2B` encoded).
macro_rules! blank {
    () => {
        r"(?:[ \t+]|%(?:25)*(?:20|2[Bb])|\\+t|&nbsp;)"
    };
}

/// What may stand between a credential header's name and its value, whatever shape the headers
/// were printed in: `Authorization: Bearer t` (HTTP), `"Authorization": "Bearer t"` (JSON, also
/// with escaped quotes and pretty-printed over lines), `map[Authorization:[Bearer t]]` (Go),
/// `["Authorization", "Bearer t"]` (Node's rawHeaders, header arrays), `{"name":
/// "Authorization", "value": "Bearer t"}` (HAR, Postman), `"Authorization" => "Bearer t"` (Ruby,
/// PHP), `Authorization=Bearer+t` (form and query text), `Authorization%3A%20Bearer%20t` and
/// double-encoded `%253A`, `Authorization=[Bearer t]` (Java), `| Authorization | Bearer t |`
/// (a markdown table), `Map(Authorization -> Bearer t)` (Scala), `<name>Authorization</name>
/// <value>Bearer t</value>` and `<Authorization>Bearer t</Authorization>` (XML), `- name:
/// Authorization\n  value: t` (YAML), `authorization = "Bearer t"` (TOML, INI). One rule: at
/// most 16 separators (a run of blanks, quotes, line breaks, `:`, `=`, `>`, `|`, `->`, `,`,
/// brackets and braces; escaped with backslashes, percent-encoded or as HTML references; an XML
/// tag of up to 16 letters) and the word `value`. The bound keeps a match short, so the search
/// stays linear.
macro_rules! header_gap {
    () => {
        concat!(
            r"(?:[ \t]+",
            r#"|[\r\n"':=>,\[\]{}()+|]|->"#,
            r#"|\\+["'nrt]"#,
            r"|%(?:25)*(?:2[027BCbc]|3[AaDdEe]|5[BDbd]|0[AaDd]|7[BCDbcd])",
            r"|&(?:quot|apos|gt|colon|equals|nbsp|vert);",
            r"|</?[A-Za-z]{1,16}>",
            r"|(?i:value)){1,16}"
        )
    };
}

/// A token character of a header value: RFC 6750 b64token characters, or a percent escape
/// (`%2B`, `%252F`) standing for one.
macro_rules! token_char {
    () => {
        r"(?:[A-Za-z0-9._~+/-]|%(?:25)*[0-9A-Fa-f]{2})"
    };
}

/// The names of the headers that carry credentials with a scheme.
macro_rules! authorization {
    () => {
        r"(?i:(?:proxy[-_])?authorization)"
    };
}

/// The token of an `Authorization` header (or `Proxy-Authorization`) with the Bearer scheme,
/// however the header is printed (see `header_gap`). Header name and scheme are
/// case-insensitive; only the token (8 or more token characters, see `token_char`, with its `=`
/// padding) is the secret.
const BEARER_TOKEN: &str = concat!(
    authorization!(),
    header_gap!(),
    r"(?i:bearer)",
    blank!(),
    r"+(?P<secret>",
    token_char!(),
    r"{8,}(?:=|%(?:25)*3[Dd])*)"
);

/// The credentials of an `Authorization` header with another scheme (`Basic`, `Token` as
/// GitHub takes it, `Bot`, `ApiKey`, `Key`), printed in any shape (see `header_gap`).
const AUTHORIZATION_CREDENTIALS: &str = concat!(
    authorization!(),
    header_gap!(),
    r"(?i:basic|token|bot|apikey|api-key|key)",
    blank!(),
    r"+(?P<secret>",
    token_char!(),
    r"{8,}(?:=|%(?:25)*3[Dd])*)"
);

/// The token of an `Authorization` header with the Bearer scheme on the line after the scheme
/// word (`Authorization: Bearer` and a line break, as a wrapped log prints it), only when that
/// line holds nothing but the token (blanks around it); confirmed by [`ValueCheck::Header`].
const BEARER_NEXT_LINE: &str = concat!(
    authorization!(),
    header_gap!(),
    r"(?i:bearer)[ \t]*\r?\n[ \t]*(?P<secret>",
    token_char!(),
    r"{8,}=*)[ \t]*(?:\r?\n|\z)"
);

/// The break between two lines of a PuTTY key file: a line break, or the end of one quoted item
/// of a list of lines and the start of the next (`","`, `', '`, `\r",\n  "` of a JSON or Python
/// list; the item's own line break, CR or escaped, before its closing quote).
macro_rules! putty_break {
    () => {
        r#"(?:\r?\n|(?:\r|\\+r)?(?:\\+n)?\\*["'][ \t]*,[ \t\r\n]{0,64}\\*["'])"#
    };
}

/// The private lines of a PuTTY private key file (`.ppk`, versions 2 and 3): after
/// `Private-Lines: <n>`, the whole base64 lines up to the next header (`Private-MAC:`), its lines
/// as they are or the items of a list (see `putty_break`). The public lines and the headers
/// stay.
const PUTTY_PRIVATE_LINES: &str = concat!(
    r"Private-Lines:[ \t]*[0-9]{1,4}[ \t]*",
    putty_break!(),
    r"(?P<secret>[A-Za-z0-9+/=]{4,}(?:",
    putty_break!(),
    r#"[A-Za-z0-9+/=]{4,})*)[ \t]*(?:\r?\n|\z|(?:\r|\\+r)?(?:\\+n)?\\*["'])"#
);

/// The `auth` field of a Docker `config.json` (`"auths": {"host": {"auth": "<base64>"}}`):
/// base64 of `user:password`, confirmed by [`ValueCheck::Basic`]; quotes escaped or not.
const DOCKER_AUTH: &str = r#"\\*"(?i:auth)\\*"\s*:\s*\\*"(?P<secret>[A-Za-z0-9+/]{6,}={0,2})\\*""#;

/// The value of a vendor's API header of the `X-<Vendor>-Token` / `X-<Vendor>-Key` family
/// (`X-GitHub-Token`, `X-Figma-Token`, `X-Shopify-Access-Token`: one or two words between),
/// printed in any shape, checked as an API-key header's value ([`Extent::KeyValue`]).
const VENDOR_KEY_HEADER: &str = concat!(
    r"(?:\A|[^A-Za-z0-9_-])(?i:x-[A-Za-z0-9]{1,32}(?:-[A-Za-z0-9]{1,32})?-(?:token|key))",
    header_gap!(),
    r"(?P<secret>",
    token_char!(),
    r"{12,}(?:=|%(?:25)*3[Dd])*)"
);

/// The names of the headers (and form fields) that carry an API key without a scheme.
macro_rules! api_key_name {
    () => {
        concat!(
            r"(?i:(?:x[-_])?api[-_]?key|x[-_](?:auth|access)[-_]token|private[-_]token",
            r"|x[-_]goog[-_]api[-_]key|x[-_]amz[-_]security[-_]token",
            r"|ocp[-_]apim[-_]subscription[-_]key)"
        )
    };
}

/// The value of a header (or form field) that is an API key by its name (`X-Api-Key`, `api_key`,
/// `X-Auth-Token`, `Private-Token`, `X-Goog-Api-Key`, `X-Amz-Security-Token`,
/// `Ocp-Apim-Subscription-Key`), printed in any shape: 12 or more token characters.
const API_KEY_HEADER: &str = concat!(
    api_key_name!(),
    header_gap!(),
    r"(?P<secret>",
    token_char!(),
    r"{12,}(?:=|%(?:25)*3[Dd])*)"
);

/// The cookies of a `Cookie` or `Set-Cookie` header, printed in any shape: the `name=value`
/// pairs and the `; ` between them (a cookie is a session's credential).
const COOKIE_HEADER: &str = concat!(
    r"(?i:(?:set-)?cookie)",
    header_gap!(),
    r"(?P<secret>[A-Za-z0-9!#$%*.^_|~-]+=[A-Za-z0-9!#$%*+./:?@^_|~-]*",
    r"(?:;[ +]?[A-Za-z0-9!#$%*.^_|~-]+=[A-Za-z0-9!#$%*+./:?@^_|~-]*)*)"
);

/// The `"value"` of a JSON object, a secret when the object is a cookie's (Playwright,
/// Puppeteer, CDP, a HAR's `cookies` arrays; confirmed by [`ValueCheck::CookieObject`], see
/// `cookie_objects.rs`). The value stops at its closing quote (or an escape), so a match never
/// runs past the next quote.
const COOKIE_OBJECT_VALUE: &str = r#""(?i:value)"\s*:\s*"(?P<secret>[^"\\]+)""#;

/// The `'value'` of a Python dict or the `value` of an object as Node's `console.log` prints it
/// (`{ name: 'sid', value: '...' }`), a secret when the object is a cookie's (Selenium's
/// `driver.get_cookies()` printed by Python, Puppeteer's cookies logged; confirmed as
/// [`COOKIE_OBJECT_VALUE`] is).
const COOKIE_OBJECT_VALUE_QUOTED: &str = concat!(
    r#"(?:'(?i:value)'|(?:\A|[^A-Za-z0-9_$'"])(?i:value))"#,
    r"\s*:\s*'(?P<secret>[^'\\]+)'"
);

/// The value of a Netscape `cookies.txt` line (`curl -c`, `wget --save-cookies`, browser
/// exports; `#HttpOnly_` lines too): tab-separated domain, subdomain flag, path, secure flag,
/// expiry, name and value (printable ASCII, as a cookie's are). Found from the subdomain flag (a
/// tab, `TRUE` or `FALSE` and a tab: rare in other text), every field bounded; the value is a secret by the cookie's name or its
/// shape ([`ValueCheck::CookieLine`]).
const NETSCAPE_COOKIE_LINE: &str = concat!(
    r"\t(?:TRUE|FALSE)\t/[\x21-\x7E]{0,256}\t(?:TRUE|FALSE)\t-?[0-9]{1,20}\t[\x21-\x7E]{1,256}\t",
    r"(?P<secret>[\x21-\x7E]{1,4096})"
);

/// The `value` of a JSON header object written before its `name` (`{"value": "Bearer t",
/// "name": "Authorization"}`: HAR exports, headers listed by hand; the attack review's 15), one
/// other scalar field between them at most; the name under `name`, `key` or `header`, quotes
/// escaped or not. The whole value (at most 256 bytes) is the secret. Bounded, so linear.
const VALUE_BEFORE_NAME: &str = concat!(
    r#"(?i:\\*"value\\*")\s*:\s*\\*"(?P<secret>[^"\\]{8,256})\\*""#,
    r#"(?:\s*,\s*\\*"[A-Za-z0-9_-]{1,32}\\*"\s*:\s*(?:\\*"[^"\\]{0,64}\\*"|[A-Za-z0-9.-]{1,16}))?"#,
    r#"\s*,\s*\\*"(?i:name|key|header)\\*"\s*:\s*\\*""#,
    r"(?:",
    authorization!(),
    "|",
    api_key_name!(),
    r"|(?i:(?:set-)?cookie))",
    r#"\\*""#
);

/// The password of the userinfo in a URL (`scheme://user:password@host`): RFC 3986 userinfo
/// characters, the user up to the first `:`, the password up to the LAST `@` before the host (as
/// URL parsers split it, so a password holding a raw `@` is replaced whole). Only the password is
/// the secret. The match starts at `://` (or `:\/\/` of JSON text, `:~1~1` of a JSON Pointer, `:/`
/// of a URL a path resolver collapsed), not the scheme.
const URL_PASSWORD: &str = concat!(
    r":(?:\\*/|~1){1,2}[A-Za-z0-9._~%!$&'()*+,;=@-]*:",
    r"(?P<secret>[A-Za-z0-9._~%!$&'()*+,;=:@-]+)@"
);

/// Stripe secret and restricted keys (`sk_live_`, `sk_test_`, `rk_live_`, ... and a body of 20
/// or more letters and digits). `sk_` and `rk_` end ordinary words (`disk_test_`, `task_live_`),
/// so a key must not start inside a word (a left edge; `STRIPE_KEY_sk_live_...` is found).
const STRIPE_KEY: &str = concat!(
    left_edge!(),
    r"(?P<secret>[rs]k_(?:live|test|prod)_[A-Za-z0-9]{20,})"
);

/// Stripe webhook signing secrets: `whsec_` and 32 or more base64 characters.
const STRIPE_WEBHOOK_SECRET: &str = r"whsec_[A-Za-z0-9+/]{32,}";

/// GitLab tokens: personal, deploy, runner, pipeline-trigger, feed, incoming-mail, OAuth
/// application, SCIM, CI job, agent and feature-flag tokens (`glpat-`, `gldt-`, `glrt-`,
/// `glptt-`, ...) and runner registration tokens (`GR1348941`), 20 or more body characters.
const GITLAB_TOKEN: &str = concat!(
    r"gl(?:pat|dt|rt|ptt|ft|imt|oas|soat|cbt|agent|ffct)-[0-9A-Za-z_-]{20,}",
    r"|GR1348941[0-9A-Za-z_-]{20,}"
);

/// npm access tokens: `npm_` and 36 or more letters and digits.
const NPM_TOKEN: &str = r"npm_[A-Za-z0-9]{36,}";

/// Hugging Face user and organization tokens: `hf_` or `api_org_` and 34 or more letters and
/// digits; `hf_` ends ordinary words (`pdf_`, `self_hf_`), so a left edge.
const HUGGINGFACE_TOKEN: &str =
    concat!(left_edge!(), r"(?P<secret>(?:hf|api_org)_[A-Za-z0-9]{34,})");

/// SendGrid API keys: `SG.`, 22 base64url characters, `.`, 43 more (exactly).
const SENDGRID_KEY: &str = r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}";

/// Shopify access tokens and shared secrets: `shpat_`, `shpca_`, `shppa_`, `shpss_` and exactly
/// 32 hex digits.
const SHOPIFY_TOKEN: &str = r"shp(?:at|ca|pa|ss)_[0-9A-Fa-f]{32}";

/// Twilio API key SIDs: `SK` and exactly 32 lower-case hex digits; two letters mark little, so
/// a left edge (`TASK` and a hash is no key).
const TWILIO_KEY: &str = concat!(left_edge!(), r"(?P<secret>SK[0-9a-f]{32})");

/// DigitalOcean personal, OAuth and refresh tokens: `dop_v1_`, `doo_v1_`, `dor_v1_` and exactly
/// 64 hex digits.
const DIGITALOCEAN_TOKEN: &str = r"do[opr]_v1_[0-9a-f]{64}";

/// Doppler tokens: `dp.pt.` (personal), `dp.st.` (service, possibly with its config's name:
/// `dp.st.dev.`), `dp.ct.`, `dp.sa.`, `dp.scim.`, `dp.audit.` and 40 or more letters and digits.
const DOPPLER_TOKEN: &str =
    r"dp\.(?:pt|st|ct|sa|scim|audit)\.(?:[A-Za-z0-9_-]{1,64}\.)?[A-Za-z0-9]{40,}";

/// PyPI upload tokens: `pypi-` and the macaroon's base64 header naming pypi.org or
/// test.pypi.org (`AgEIcHlwaS5vcmc`, `AgENdGVzdC5weXBpLm9yZw`), then 50 or more characters.
const PYPI_TOKEN: &str = r"pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}";

/// Other vendors' tokens with a distinctive prefix (from the public rule sets of secret scanners):
/// Perplexity `pplx-`, HashiCorp Vault `hvs.`/`hvb.`, Grafana `glsa_`/`glc_`, Linear `lin_api_`,
/// Databricks `dapi`, Sentry `sntryu_`, Postman `PMAK-`, Pulumi `pul-`, RubyGems `rubygems_`,
/// Brevo `xkeysib-`, age `AGE-SECRET-KEY-1`, Heroku `HRKU-AA`, Notion `ntn_`, Dynatrace
/// `dt0c01.`, PlanetScale `pscale_tkn_`/`pscale_oauth_`/`pscale_pw_`.
const VENDOR_TOKEN: &str = concat!(
    r"pplx-[A-Za-z0-9]{48,}",
    r"|hv[sb]\.[A-Za-z0-9_-]{90,}",
    r"|glsa_[A-Za-z0-9]{32}_[0-9A-Fa-f]{8}",
    r"|glc_[A-Za-z0-9+/]{32,}",
    r"|lin_api_[A-Za-z0-9]{40,}",
    r"|dapi[0-9a-f]{32}",
    r"|sntryu_[0-9a-f]{64}",
    r"|PMAK-[0-9a-f]{24}-[0-9a-f]{34}",
    r"|pul-[0-9a-f]{40}",
    r"|rubygems_[0-9a-f]{48}",
    r"|xkeysib-[0-9a-f]{64}-[A-Za-z0-9]{16}",
    r"|AGE-SECRET-KEY-1[0-9A-Z]{58}",
    r"|HRKU-AA[0-9A-Za-z_-]{58}",
    r"|ntn_[0-9]{11}[A-Za-z0-9]{35}",
    r"|dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}",
    r"|pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_.=-]{32,}"
);

/// The AWS secret access key of a named line, as the CLI's files, environment variables, STS
/// JSON and SDK settings print it (`aws_secret_access_key = ...`, `AWS_SECRET_ACCESS_KEY=...`,
/// `"SecretAccessKey": "..."`), in any shape `header_gap` reads: 40 or more base64 characters.
const AWS_SECRET_KEY: &str = concat!(
    r"(?i:(?:aws[_-]?)?secret[_-]?access[_-]?key|aws[_-]?secret[_-]?key)",
    header_gap!(),
    r"(?P<secret>[A-Za-z0-9/+]{40,})"
);

/// Azure storage account and Service Bus keys: `AccountKey=` (the connection string
/// `DefaultEndpointsProtocol=https;AccountName=...;AccountKey=...`) and `SharedAccessKey=`,
/// 20 or more base64 characters with their padding.
const AZURE_KEY: &str = concat!(
    r"(?i:account[_-]?key|shared[_-]?access[_-]?key)",
    header_gap!(),
    r"(?P<secret>[A-Za-z0-9+/]{20,}={0,2})"
);

/// A character of a credential parameter's value: a token character or the punctuation of a
/// password (`!#$*@^`), or one of them percent-encoded (`%2B`, `%40`, `%253D`). Other escapes
/// (`%26`, `%20`, `%0A`) end the value, as the characters they stand for do.
macro_rules! parameter_char {
    () => {
        concat!(
            r"(?:[A-Za-z0-9._~+/!#$*@^-]",
            r"|%(?:25)*(?:2[134ABDEFabdef]|3[Dd]|40|5[EFef]|7[Ee]))"
        )
    };
}

/// The head of a credential parameter's value: 1 to 256 `parameter_char`s, which
/// [`super::named_value`] widens by its context (quotes, an environment assignment, symbols) and
/// [`super::credential::ValueCheck::Parameter`] checks (8 bytes or more). The bound keeps the search
/// linear: a value's characters include a name's letters and the `+` of form text, so without
/// it each name of `password+password+...` would start a value running to the end of the text.
macro_rules! parameter_value {
    () => {
        concat!(r"(?P<secret>", parameter_char!(), r"{1,256})")
    };
}

/// A credential named by its parameter, field, variable or option, in URLs, query strings, form
/// bodies, key=value text, JSON, YAML, XML and tables (any shape `header_gap` reads): OAuth's
/// `access_token`, `refresh_token`, `id_token`, `client_secret`, and `auth_token`,
/// `session_token`, `api_token`, `app_secret`, `secret_key`, `private_key`, `password` and
/// `passwd` (also inside an identifier: `DB_PASSWORD`, `accessToken`, npm's `_authToken` and
/// `_auth`), session cookies' names wherever their pairs are printed (`sessionid`, `session_id`,
/// `PHPSESSID`, `JSESSIONID`, `session_key`, `csrftoken`, `XSRF-TOKEN`, `connect.sid`:
/// `document.cookie` text, a cookie map, Python's `get_dict()`, Java's `HttpCookie`; a bare
/// `session` is a word of logs and prose), and a bare `token` or `secret` not ending another
/// word. Confirmed by [`ValueCheck::Parameter`] (a digit or a long non-word value; code and
/// placeholders pass).
const NAMED_CREDENTIAL: &str = concat!(
    r"(?:(?i:(?:access|refresh|id|auth|api|session|bearer|oauth)[_-]?token",
    r"|(?:client|app|api|consumer|webhook|signing)[_-]?secret",
    r"|secret[_-]?key|private[_-]?key|passw(?:or)?d|_auth",
    r"|sess(?:ion)?[_-]?id|session[_-]?key|[cx]srf[_-]?token|connect\.sid)",
    r"|(?:\A|[^A-Za-z0-9_.-])(?i:token|secret))",
    header_gap!(),
    parameter_value!()
);

/// A credential in a query string or form body under a short name that is one only there:
/// `?key=`, `&sig=` (Azure SAS), `&token=`, `&pass=`, `&pwd=` (the separator as it is,
/// percent-encoded or `&amp;`).
const QUERY_CREDENTIAL: &str = concat!(
    r"(?:[?&;]|%(?:25)*(?:3[Ff]|26)|&amp;)(?i:key|sig|token|secret|pass|pwd|password)",
    r"(?:=|%(?:25)*3[Dd])",
    parameter_value!()
);

/// The password of a command line's user option: `curl -u user:pw`, `--user user:pw`,
/// `--proxy-user`, `-U`, glued or after `=` or blanks, quoted or not. Only the password is the
/// secret; `"$USER:$PASS"` passes ([`ValueCheck::Named`]).
const USER_OPTION_PASSWORD: &str = concat!(
    r#"(?:\A|[\s"'])(?:-u|-U|--user|--proxy-user)(?:[ \t]+|=)?["']?"#,
    r#"[^\s:"'$]{1,128}:(?P<secret>[^\s"']{1,256})"#
);

/// The value of a command line's password option: wget's `--password=`, `--http-password`,
/// `--ftp-password`, `--proxy-password` (and any `--*-password`), after `=` or blanks, quoted
/// or not: `parameter_char`s, not starting with `-` (another option).
const PASSWORD_OPTION: &str = concat!(
    r#"--(?:[a-z]{1,16}-)?(?:password|passwd)(?:=|[ \t]+)["']?"#,
    r"(?P<secret>[A-Za-z0-9._~+/!#$*@^]",
    parameter_char!(),
    r"{0,255})"
);

/// A scheme word and its token outside an `Authorization` header (`AUTH_HEADER="Bearer t"`,
/// `"auth": "Bearer t"`, a log line): the word must not end another word, and the token (16 or
/// more token characters) is confirmed by [`ValueCheck::Named`].
macro_rules! scheme_token {
    ($scheme:literal) => {
        concat!(
            left_edge!(),
            $scheme,
            blank!(),
            r"+(?P<secret>",
            token_char!(),
            r"{16,}(?:=|%(?:25)*3[Dd])*)"
        )
    };
}

/// A `Bearer` token outside an `Authorization` header (see `scheme_token`).
const SCHEME_BEARER: &str = scheme_token!(r"(?i:bearer)");

/// A `Token` scheme's token outside an `Authorization` header (GitHub's `token t`; see
/// `scheme_token`).
const SCHEME_TOKEN: &str = scheme_token!(r"(?i:token)");

/// A `Basic` scheme and its credentials outside an `Authorization` header: base64 of
/// `user:password` ([`ValueCheck::Basic`]).
const SCHEME_BASIC: &str = concat!(
    left_edge!(),
    r"(?i:basic)",
    blank!(),
    r"+(?P<secret>[A-Za-z0-9+/]{6,}(?:=|%(?:25)*3[Dd]){0,2})"
);

/// The built-in kinds in priority order: when two kinds find the same range, the earlier one
/// names it (so a GitHub token sent as a bearer token is a `github-token`).
pub(super) const BUILTIN_KINDS: &[BuiltinKind] = &[
    BuiltinKind {
        name: "openai-key",
        pattern: OPENAI_KEY,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "openai-key",
        pattern: OPENAI_LEGACY_KEY,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "anthropic-key",
        pattern: ANTHROPIC_KEY,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "aws-access-key",
        pattern: AWS_ACCESS_KEY,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "github-token",
        pattern: GITHUB_TOKEN,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "slack-token",
        pattern: SLACK_TOKEN,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "google-api-key",
        pattern: GOOGLE_API_KEY,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "jwt",
        pattern: JWT,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "stripe-key",
        pattern: STRIPE_KEY,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "stripe-key",
        pattern: STRIPE_WEBHOOK_SECRET,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "gitlab-token",
        pattern: GITLAB_TOKEN,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "npm-token",
        pattern: NPM_TOKEN,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "huggingface-token",
        pattern: HUGGINGFACE_TOKEN,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "sendgrid-key",
        pattern: SENDGRID_KEY,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "shopify-token",
        pattern: SHOPIFY_TOKEN,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "twilio-key",
        pattern: TWILIO_KEY,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "digitalocean-token",
        pattern: DIGITALOCEAN_TOKEN,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "doppler-token",
        pattern: DOPPLER_TOKEN,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "pypi-token",
        pattern: PYPI_TOKEN,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "vendor-token",
        pattern: VENDOR_TOKEN,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "private-key",
        pattern: PRIVATE_KEY_BEGIN,
        extent: Extent::PemBegin,
    },
    BuiltinKind {
        name: "private-key",
        pattern: SSH2_PRIVATE_KEY_BEGIN,
        extent: Extent::PemBegin,
    },
    BuiltinKind {
        name: "private-key",
        pattern: PRIVATE_KEY_END,
        extent: Extent::PemEnd,
    },
    BuiltinKind {
        name: "private-key",
        pattern: PUTTY_PRIVATE_LINES,
        extent: Extent::Match,
    },
    BuiltinKind {
        name: "bearer-token",
        pattern: BEARER_TOKEN,
        extent: Extent::Checked(ValueCheck::Header),
    },
    BuiltinKind {
        name: "bearer-token",
        pattern: BEARER_NEXT_LINE,
        extent: Extent::Checked(ValueCheck::Header),
    },
    BuiltinKind {
        name: "url-password",
        pattern: URL_PASSWORD,
        extent: Extent::Checked(ValueCheck::UrlPassword),
    },
    BuiltinKind {
        name: "credential-header",
        pattern: AUTHORIZATION_CREDENTIALS,
        extent: Extent::Checked(ValueCheck::Header),
    },
    BuiltinKind {
        name: "credential-header",
        pattern: VENDOR_KEY_HEADER,
        extent: Extent::KeyValue,
    },
    BuiltinKind {
        name: "credential-header",
        pattern: API_KEY_HEADER,
        extent: Extent::KeyValue,
    },
    BuiltinKind {
        name: "credential-header",
        pattern: VALUE_BEFORE_NAME,
        extent: Extent::KeyValue,
    },
    BuiltinKind {
        name: "credential-header",
        pattern: COOKIE_HEADER,
        extent: Extent::CookieValue,
    },
    BuiltinKind {
        name: "credential-header",
        pattern: COOKIE_OBJECT_VALUE,
        extent: Extent::Checked(ValueCheck::CookieObject),
    },
    BuiltinKind {
        name: "credential-header",
        pattern: COOKIE_OBJECT_VALUE_QUOTED,
        extent: Extent::Checked(ValueCheck::CookieObject),
    },
    BuiltinKind {
        name: "credential-header",
        pattern: NETSCAPE_COOKIE_LINE,
        extent: Extent::Checked(ValueCheck::CookieLine),
    },
    BuiltinKind {
        name: "aws-secret-key",
        pattern: AWS_SECRET_KEY,
        extent: Extent::Checked(ValueCheck::Named),
    },
    BuiltinKind {
        name: "azure-key",
        pattern: AZURE_KEY,
        extent: Extent::Checked(ValueCheck::Named),
    },
    BuiltinKind {
        name: "bearer-token",
        pattern: SCHEME_BEARER,
        extent: Extent::Checked(ValueCheck::Named),
    },
    BuiltinKind {
        name: "credential-header",
        pattern: SCHEME_TOKEN,
        extent: Extent::Checked(ValueCheck::Named),
    },
    BuiltinKind {
        name: "credential-header",
        pattern: SCHEME_BASIC,
        extent: Extent::Checked(ValueCheck::Basic),
    },
    BuiltinKind {
        name: "credential-parameter",
        pattern: NAMED_CREDENTIAL,
        extent: Extent::Checked(ValueCheck::Parameter),
    },
    BuiltinKind {
        name: "credential-parameter",
        pattern: DOCKER_AUTH,
        extent: Extent::Checked(ValueCheck::Basic),
    },
    BuiltinKind {
        name: "credential-parameter",
        pattern: QUERY_CREDENTIAL,
        extent: Extent::Checked(ValueCheck::Parameter),
    },
    BuiltinKind {
        name: "credential-parameter",
        pattern: USER_OPTION_PASSWORD,
        extent: Extent::Checked(ValueCheck::Named),
    },
    BuiltinKind {
        name: "credential-parameter",
        pattern: PASSWORD_OPTION,
        extent: Extent::Checked(ValueCheck::Parameter),
    },
];
