//! One deadline for reading a whole request, headers and body together.
//!
//! hyper's own `header_read_timeout` covers the headers only, and a timeout around the body
//! would open a second window: a client could take almost twice the limit. Instead the
//! connection's reads go through [`DeadlineIo`], which fails them once the [`ReadClock`]'s
//! deadline has passed. A connection waiting for a request (just opened, or idle after a
//! response) may wait the limit; the request's first byte starts a fresh window for the whole
//! request; the handler stops the clock once the body is in (handling a message may wait for
//! its group, which is not the client's time).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// The read deadline of one connection, shared by its reader and its request handler.
#[derive(Debug)]
pub(crate) struct ReadClock {
    origin: Instant,
    limit: Duration,
    /// Nanoseconds from `origin` to the deadline; 0 when stopped.
    deadline: AtomicU64,
    /// Waiting for a request: the next bytes read start its window.
    awaiting: AtomicBool,
}

impl ReadClock {
    /// A clock waiting for the connection's first request.
    pub(crate) fn new(limit: Duration) -> Self {
        let clock = ReadClock {
            origin: Instant::now(),
            limit,
            deadline: AtomicU64::new(0),
            awaiting: AtomicBool::new(false),
        };
        clock.await_request();
        clock
    }

    /// Waits for the next request: the connection may stay idle for the limit, and the
    /// request's first byte starts its own window.
    pub(crate) fn await_request(&self) {
        self.awaiting.store(true, Ordering::Release);
        self.arm();
    }

    /// Stops the clock until the next [`Self::await_request`].
    pub(crate) fn stop(&self) {
        self.awaiting.store(false, Ordering::Release);
        self.deadline.store(0, Ordering::Release);
    }

    /// A window of `limit` from now.
    fn arm(&self) {
        let at = self.origin.elapsed().saturating_add(self.limit);
        let nanos = u64::try_from(at.as_nanos()).unwrap_or(u64::MAX).max(1);
        self.deadline.store(nanos, Ordering::Release);
    }

    /// Bytes arrived: the first ones of a request start its window.
    fn bytes_read(&self) {
        if self.awaiting.swap(false, Ordering::AcqRel) {
            self.arm();
        }
    }

    fn deadline(&self) -> Option<Instant> {
        match self.deadline.load(Ordering::Acquire) {
            0 => None,
            nanos => self.origin.checked_add(Duration::from_nanos(nanos)),
        }
    }
}

/// An I/O stream whose reads fail with `TimedOut` once its clock's deadline has passed.
/// Writes are not limited.
pub(crate) struct DeadlineIo<S> {
    inner: S,
    clock: std::sync::Arc<ReadClock>,
    sleep: Pin<Box<Sleep>>,
    /// The deadline `sleep` is set for.
    sleeping_until: Option<Instant>,
}

impl<S> DeadlineIo<S> {
    pub(crate) fn new(inner: S, clock: std::sync::Arc<ReadClock>) -> Self {
        DeadlineIo {
            inner,
            clock,
            sleep: Box::pin(tokio::time::sleep(Duration::ZERO)),
            sleeping_until: None,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for DeadlineIo<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(deadline) = this.clock.deadline() {
            if this.sleeping_until != Some(deadline) {
                this.sleep.as_mut().reset(deadline);
                this.sleeping_until = Some(deadline);
            }
            // Polled first, so its waker is registered while the read is pending.
            if this.sleep.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the request did not arrive in time",
                )));
            }
        }
        let before = buf.filled().len();
        let read = Pin::new(&mut this.inner).poll_read(cx, buf);
        if matches!(read, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.clock.bytes_read();
        }
        read
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for DeadlineIo<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(start_paused = true)]
    async fn a_request_gets_its_window_from_its_first_byte() {
        let limit = Duration::from_millis(200);
        let (mut client, server) = tokio::io::duplex(64);
        let clock = Arc::new(ReadClock::new(limit));
        let mut io = DeadlineIo::new(server, Arc::clone(&clock));
        let mut buf = [0u8; 2];
        // Idle for most of the limit, then a request starts: it gets the whole limit.
        tokio::time::sleep(limit * 3 / 4).await;
        client.write_all(b"ab").await.unwrap();
        io.read_exact(&mut buf).await.unwrap();
        tokio::time::sleep(limit / 2).await;
        client.write_all(b"cd").await.unwrap();
        io.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"cd");
        // Nothing more arrives: the pending read ends at the deadline.
        let err = io.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
    }

    #[tokio::test(start_paused = true)]
    async fn a_stopped_clock_never_fails_a_read_and_an_idle_connection_is_cut() {
        let limit = Duration::from_millis(50);
        let (mut client, server) = tokio::io::duplex(64);
        let clock = Arc::new(ReadClock::new(limit));
        let mut io = DeadlineIo::new(server, Arc::clone(&clock));
        let mut buf = [0u8; 2];
        clock.stop();
        tokio::time::sleep(limit * 2).await;
        client.write_all(b"ab").await.unwrap();
        io.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ab");
        // Waiting for the next request, an idle connection gets the limit and no more.
        clock.await_request();
        let err = io.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
    }
}
