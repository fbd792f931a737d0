//! The outgoing side: invocations with bounded retry, best-effort cancel and close_thread
//! notifications, user choice answers, and size-capped GETs for manifests.

use std::time::Duration;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::error::RapError;
use crate::token::random_u64;

/// Extra request headers (name, value).
pub type Headers = Vec<(String, String)>;

/// A tool server that cancel and close_thread notifications go to: the base URL a toolset was
/// loaded from, with that toolset's headers (a server requiring them for invocations requires
/// them for cancels too).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NotifyTarget {
    /// The toolset's base URL.
    pub base_url: String,
    /// The toolset's extra headers.
    pub headers: Headers,
}

/// Most attempts a [`RetryPolicy`] may ask for.
pub const MAX_ATTEMPTS: u32 = 10;

/// Longest single backoff delay.
pub const MAX_DELAY: Duration = Duration::from_secs(10);

/// Retry of invocations on 5xx answers and connection failures (`retry: { maxAttempts,
/// baseDelayMs }`). 4xx is never retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included; clamped to `1..=MAX_ATTEMPTS`.
    pub max_attempts: u32,
    /// Delay before the first retry; doubled for each further one, capped at [`MAX_DELAY`].
    pub base_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(100),
        }
    }
}

impl RetryPolicy {
    /// Attempts actually made.
    pub fn attempts(&self) -> u32 {
        self.max_attempts.clamp(1, MAX_ATTEMPTS)
    }

    /// Delay after failed attempt `attempt` (1-based): exponential, capped, with equal
    /// jitter (half fixed, half random) so retries from many calls spread out.
    pub fn delay(&self, attempt: u32) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(20))
            .min(MAX_DELAY);
        let half = exp / 2;
        let nanos = u64::try_from(half.as_nanos()).unwrap_or(u64::MAX);
        let jitter = if nanos == 0 {
            0
        } else {
            random_u64() % (nanos + 1)
        };
        half + Duration::from_nanos(jitter)
    }
}

/// The body of an invocation, as `POST {endpoint}` sends it.
#[derive(Debug, Serialize)]
pub struct Invocation<'a> {
    /// The tool's name in its toolset.
    pub operation: &'a str,
    /// The arguments, as JSON text.
    pub arguments: &'a RawValue,
    /// The call's id.
    pub id: &'a str,
    /// The provider's companion id.
    pub call_id: Option<&'a str>,
    /// Where the tool posts its callbacks.
    pub callback_url: &'a str,
    /// The thread.
    pub group_id: &'a str,
    /// Ancestor threads, root first.
    pub thread_ancestors: &'a [String],
    /// The user, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_id: Option<&'a str>,
}

/// Checks that every extra header is a valid HTTP header name and value.
pub fn check_headers(headers: &Headers) -> Result<(), RapError> {
    for (name, value) in headers {
        if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
            return Err(RapError::InvalidConfig {
                value: name.clone(),
                message: "not a valid HTTP header name".to_owned(),
            });
        }
        if reqwest::header::HeaderValue::from_str(value).is_err() {
            return Err(RapError::InvalidConfig {
                value: name.clone(),
                message: "header value is not valid in HTTP".to_owned(),
            });
        }
    }
    Ok(())
}

/// Largest manifest body accepted.
pub const MAX_MANIFEST_BYTES: usize = 8 << 20;

/// Makes ring the crypto provider of this library's rustls (reqwest builds its TLS config from
/// the process default; it has none of its own with "rustls-no-provider"). Idempotent: a provider
/// already installed (by an earlier client, or a test build's aws-lc-rs) stays.
fn install_tls_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Err only when another thread installed one in between: that one serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

/// The HTTP client for everything this crate sends. Cheap to clone (a pooled client).
#[derive(Debug, Clone)]
pub struct RapClient {
    http: reqwest::Client,
}

impl RapClient {
    /// A client whose single requests give up after `request_timeout` (a server that
    /// accepts a connection and never answers cannot hold a call forever).
    pub fn new(request_timeout: Duration) -> Result<Self, RapError> {
        install_tls_provider();
        let http = reqwest::Client::builder()
            .timeout(request_timeout)
            // A redirect is an answer like any other non-200 status: following it would turn
            // an invocation into a GET, or send it somewhere the toolset did not name.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| RapError::Internal {
                message: format!("cannot build HTTP client: {e}"),
            })?;
        Ok(RapClient { http })
    }

    fn post(&self, url: &str, body: Vec<u8>, headers: &Headers) -> reqwest::RequestBuilder {
        let mut request = self
            .http
            .post(url)
            .header("content-type", "application/json")
            .body(body);
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        request
    }

    /// `GET url` with headers; the body is refused past `limit` bytes. Non-2xx is an error.
    pub async fn get_limited(
        &self,
        url: &str,
        headers: &Headers,
        limit: usize,
    ) -> Result<Vec<u8>, RapError> {
        let mut request = self.http.get(url).header("accept", "application/json");
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let unreachable = |e: reqwest::Error| RapError::Unreachable {
            url: url.to_owned(),
            attempts: 1,
            message: e.to_string(),
        };
        let mut response = request.send().await.map_err(unreachable)?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(RapError::ManifestStatus {
                url: url.to_owned(),
                status,
            });
        }
        let too_large = || RapError::ManifestParse {
            url: url.to_owned(),
            message: format!("larger than {limit} bytes"),
        };
        if response.content_length().is_some_and(|n| n > limit as u64) {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(unreachable)? {
            if body.len() + chunk.len() > limit {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// `POST {endpoint}` the invocation. HTTP 200 is accepted; 5xx and connection failures
    /// are retried per `retry`; any other status fails at once with [`RapError::Rejected`].
    pub async fn invoke(
        &self,
        endpoint: &str,
        invocation: &Invocation<'_>,
        headers: &Headers,
        retry: &RetryPolicy,
    ) -> Result<(), RapError> {
        let body = serde_json::to_vec(invocation).map_err(|e| RapError::Internal {
            message: format!("cannot serialize invocation: {e}"),
        })?;
        let attempts = retry.attempts();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let last = attempt >= attempts;
            match self.post(endpoint, body.clone(), headers).send().await {
                Ok(response) => {
                    let status = response.status().as_u16();
                    if status == 200 {
                        return Ok(());
                    }
                    if !(500..600).contains(&status) || last {
                        return Err(RapError::Rejected {
                            endpoint: endpoint.to_owned(),
                            status,
                            attempts: attempt,
                        });
                    }
                }
                // Only failures to connect are retried: the request never reached the
                // server, so a retry cannot run the tool twice.
                Err(e) if e.is_connect() && !last => {}
                Err(e) => {
                    return Err(RapError::Unreachable {
                        url: endpoint.to_owned(),
                        attempts: attempt,
                        message: error_chain(&e),
                    })
                }
            }
            tokio::time::sleep(retry.delay(attempt)).await;
        }
    }

    /// Best-effort `POST {server}/cancel_tool_call { thread_id, tool_call_id }` to every
    /// server, concurrently, each with its toolset's headers; failures are ignored.
    pub async fn cancel_tool_call(
        &self,
        servers: &[NotifyTarget],
        thread_id: &str,
        tool_call_id: &str,
    ) {
        let body = serde_json::json!({ "thread_id": thread_id, "tool_call_id": tool_call_id });
        self.notify_all(servers, "cancel_tool_call", &body).await;
    }

    /// Best-effort `POST {server}/close_thread { thread_id }` to every server, concurrently.
    pub async fn close_thread(&self, servers: &[NotifyTarget], thread_id: &str) {
        let body = serde_json::json!({ "thread_id": thread_id });
        self.notify_all(servers, "close_thread", &body).await;
    }

    async fn notify_all(&self, servers: &[NotifyTarget], path: &str, body: &serde_json::Value) {
        let body = body.to_string().into_bytes();
        let mut tasks = tokio::task::JoinSet::new();
        for server in servers {
            let url = format!("{}/{path}", server.base_url.trim_end_matches('/'));
            let request = self.post(&url, body.clone(), &server.headers);
            tasks.spawn(async move {
                let _ = request.send().await;
            });
        }
        while tasks.join_next().await.is_some() {}
    }

    /// POSTs a user's answer `{ id, selected }` to the choice's `response_url`; any 2xx is
    /// success.
    pub async fn answer_user_choice(
        &self,
        response_url: &str,
        id: &str,
        selected: usize,
    ) -> Result<(), RapError> {
        let body = serde_json::json!({ "id": id, "selected": selected }).to_string();
        let response = self
            .post(response_url, body.into_bytes(), &Vec::new())
            .send()
            .await
            .map_err(|e| RapError::Unreachable {
                url: response_url.to_owned(),
                attempts: 1,
                message: error_chain(&e),
            })?;
        let status = response.status().as_u16();
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(RapError::Rejected {
                endpoint: response_url.to_owned(),
                status,
                attempts: 1,
            })
        }
    }
}

/// An error with its sources, `a: b: c` (reqwest's own text hides the cause).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_checked() {
        let ok = vec![("x-api-key".to_owned(), "secret".to_owned())];
        assert!(check_headers(&ok).is_ok());
        for (name, value) in [("bad name", "v"), ("x-ok", "line\nbreak")] {
            let headers = vec![(name.to_owned(), value.to_owned())];
            let err = check_headers(&headers).unwrap_err();
            assert!(err.to_string().contains(name), "{err}");
        }
    }

    #[test]
    fn delays_grow_are_capped_and_jittered() {
        let retry = RetryPolicy {
            max_attempts: 50,
            base_delay: Duration::from_millis(100),
        };
        assert_eq!(retry.attempts(), MAX_ATTEMPTS);
        for attempt in 1..=40 {
            let exp = Duration::from_millis(100)
                .saturating_mul(1 << (attempt - 1).min(20))
                .min(MAX_DELAY);
            let d = retry.delay(attempt);
            assert!(d >= exp / 2 && d <= exp, "attempt {attempt}: {d:?}");
        }
        let zero = RetryPolicy {
            max_attempts: 0,
            base_delay: Duration::ZERO,
        };
        assert_eq!(zero.attempts(), 1);
        assert_eq!(zero.delay(3), Duration::ZERO);
    }
}
