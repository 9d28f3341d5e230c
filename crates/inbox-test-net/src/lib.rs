//! TCP doubles for tests and the fault campaign, written once: the fault proxy
//! ([`fault_proxy`]: cut, refuse, stall, throttle), the proxy that records what a proxy on the
//! path would see ([`recording_proxy`]), and reading a request head off a socket
//! ([`read_head`]), for the scripted servers of the client's tests.

pub mod fault_proxy;
pub mod recording_proxy;

use tokio::io::{AsyncRead, AsyncReadExt};

/// Read from `socket` into `head` until the blank line that ends an HTTP request head.
/// `Err(UnexpectedEof)` when the peer stopped sending first; `head` holds what came anyway.
pub async fn read_head<S: AsyncRead + Unpin>(
    socket: &mut S,
    head: &mut Vec<u8>,
) -> std::io::Result<()> {
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match socket.read(&mut buf).await? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => head.extend_from_slice(&buf[..n]),
        }
    }
    Ok(())
}
