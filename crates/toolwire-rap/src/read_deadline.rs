//! One deadline for reading a whole request, headers and body together.
//!
//! hyper's own `header_read_timeout` covers the headers only, and a timeout around the body
//! would open a second window: a client could take almost twice the limit. Instead the
//! connection's reads go through [`DeadlineIo`], which fails them once the [`ReadClock`]'s
//! deadline has passed. The clock is armed when the connection opens and again after each
//! response (the next request, or an idle keep-alive, gets the full limit), and disarmed by
//! the handler once the body is in (handling a message may wait for its group, which is not
//! the client's time).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// The read deadline of one connection, shared by its reader and its request handler.
#[derive(Debug)]
pub(crate) struct ReadClock {
    origin: Instant,
    limit: Duration,
    /// Nanoseconds from `origin` to the deadline; 0 when disarmed.
    deadline: AtomicU64,
}

impl ReadClock {
    /// A clock armed now: what is read must arrive within `limit`.
    pub(crate) fn new(limit: Duration) -> Self {
        let clock = ReadClock {
            origin: Instant::now(),
            limit,
            deadline: AtomicU64::new(0),
        };
        clock.arm();
        clock
    }

    /// Starts a new window of `limit` from now.
    pub(crate) fn arm(&self) {
        let at = self.origin.elapsed().saturating_add(self.limit);
        let nanos = u64::try_from(at.as_nanos()).unwrap_or(u64::MAX).max(1);
        self.deadline.store(nanos, Ordering::Release);
    }

    /// No deadline until the next [`Self::arm`].
    pub(crate) fn disarm(&self) {
        self.deadline.store(0, Ordering::Release);
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
                this.sleep.as_mut().reset(deadline.into());
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
        Pin::new(&mut this.inner).poll_read(cx, buf)
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

    #[tokio::test]
    async fn reads_fail_past_the_deadline_and_not_while_disarmed() {
        let (client, server) = tokio::io::duplex(64);
        let clock = Arc::new(ReadClock::new(Duration::from_millis(50)));
        let mut io = DeadlineIo::new(server, Arc::clone(&clock));
        let mut client = client;
        client.write_all(b"ab").await.unwrap();
        let mut buf = [0u8; 2];
        io.read_exact(&mut buf).await.unwrap();
        // Nothing more arrives: the pending read ends at the deadline.
        let err = io.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        // Disarmed, data that comes late is read.
        clock.disarm();
        tokio::time::sleep(Duration::from_millis(60)).await;
        client.write_all(b"cd").await.unwrap();
        io.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"cd");
        // Armed again: a fresh window.
        clock.arm();
        client.write_all(b"ef").await.unwrap();
        io.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ef");
    }
}
