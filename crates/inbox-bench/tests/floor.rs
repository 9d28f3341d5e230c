//! The floor server and the load generator's subscriber against each other, for real on
//! loopback: frames published reach every subscriber once, in order, with their ids, and a
//! cut-and-reconnect of the whole fan-out works.

use std::net::TcpListener;
use std::process::{Child, Command};
use std::time::Duration;

use inbox_bench::fanout::Fanout;
use inbox_bench::publisher::{PublishDoor, Publisher};
use inbox_bench::sse::{SubscribeSpec, Subscription};

struct Floor(Child);

impl Drop for Floor {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A floor on a free port. The port is found by binding and letting go, so another test of
/// this binary can be handed the same one at the same moment: a floor that exits (it could not
/// bind) is started again on another port, and readiness is only believed while our own child
/// is still running — otherwise the probe may have reached the other test's floor.
fn start_floor() -> (Floor, std::net::SocketAddr) {
    for _ in 0..5 {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
        let child = Command::new(env!("CARGO_BIN_EXE_bench-floor"))
            .arg("--bind")
            .arg(addr.to_string())
            .spawn()
            .unwrap();
        let mut floor = Floor(child);
        for _ in 0..200 {
            if floor.0.try_wait().unwrap().is_some() {
                break; // ours could not bind: try another port
            }
            if std::net::TcpStream::connect(addr).is_ok() {
                std::thread::sleep(Duration::from_millis(50));
                if floor.0.try_wait().unwrap().is_none() {
                    return (floor, addr);
                }
                break;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }
    panic!("bench-floor did not listen");
}

fn spec(addr: std::net::SocketAddr) -> SubscribeSpec {
    SubscribeSpec {
        addr,
        path: "/sub".into(),
        headers: vec![],
    }
}

#[tokio::test]
async fn every_subscriber_gets_every_frame_once() {
    let (_floor, addr) = start_floor();
    let mut one = Subscription::open(&spec(addr), None).await.unwrap();
    let mut fanout = Fanout::new(spec(addr));
    fanout.grow_to(300).await.unwrap();
    let mut publisher = Publisher::new(
        PublishDoor::Raw {
            url: format!("http://{addr}/pub"),
        },
        50,
    );
    let range = publisher.run(50, 10).await.unwrap();
    assert_eq!(range, 0..10);

    for seq in 0..10 {
        let frame = tokio::time::timeout(Duration::from_secs(5), one.next_frame())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        assert_eq!(frame.seq, Some(seq));
        assert_eq!(frame.id.as_deref(), Some(seq.to_string().as_str()));
        assert!(frame.data_len > 50);
    }
    fanout
        .settle(300 * 10, Duration::from_secs(10))
        .await
        .unwrap();
    let reports = fanout.collect().await.unwrap();
    assert_eq!(reports.len(), 300);
    for r in &reports {
        let seqs: Vec<u32> = r.arrivals.iter().map(|(s, _)| *s).collect();
        assert_eq!(seqs, (0..10).collect::<Vec<_>>());
        assert!(!r.ended);
    }

    // Cut everything: all reconnect (the floor keeps nothing, so only new frames arrive).
    for done in fanout.cut().await.unwrap() {
        done.await.unwrap().unwrap();
    }
    publisher.run(50, 2).await.unwrap();
    fanout
        .settle(300 * 2, Duration::from_secs(10))
        .await
        .unwrap();
    let reports = fanout.collect().await.unwrap();
    assert!(reports.iter().all(|r| r.reconnected_at.is_some()));
    assert!(
        reports
            .iter()
            .all(|r| r.arrivals.iter().map(|(s, _)| *s).eq(10..12))
    );
}

#[tokio::test]
async fn a_refused_subscription_is_an_error() {
    let (_floor, addr) = start_floor();
    let wrong = SubscribeSpec {
        addr,
        path: "/nowhere".into(),
        headers: vec![],
    };
    let err = Subscription::open(&wrong, None).await.err().unwrap();
    assert!(err.to_string().contains("404"), "{err}");
}
