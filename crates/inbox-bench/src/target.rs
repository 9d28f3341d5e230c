//! The servers measured, each started as its own process on a free loopback port so that its
//! memory can be read from `/proc`: `inbox serve` (SQLite or Redis), the broadcast floor
//! (`bench-floor`), and nginx with the nchan module.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::publisher::PublishDoor;
use crate::sse::SubscribeSpec;

pub const REVIEWER: &str = "bench-reviewer-secret-0123456789";
/// Several askers, so a long run stays under each asker's pending limit.
pub const ASKERS: [&str; 4] = [
    "bench-asker-0-secret-0123456789",
    "bench-asker-1-secret-0123456789",
    "bench-asker-2-secret-0123456789",
    "bench-asker-3-secret-0123456789",
];
/// Where Debian's libnginx-mod-nchan puts the module.
pub const NCHAN_MODULE: &str = "/usr/lib/nginx/modules/ngx_nchan_module.so";
/// Messages nchan keeps per channel for resuming subscribers (as `inbox serve` keeps 10,000).
const NCHAN_BUFFER: usize = 10_000;

/// Which server a run is against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    InboxSqlite,
    InboxRedis { url: String },
    Floor,
    Nchan,
}

impl Kind {
    /// The key used in measure names and in `peers`.
    pub fn key(&self) -> &'static str {
        match self {
            Kind::InboxSqlite => "sqlite",
            Kind::InboxRedis { .. } => "redis",
            Kind::Floor => "floor",
            Kind::Nchan => "nchan",
        }
    }

    pub fn label(&self) -> &'static str {
        match self {
            Kind::InboxSqlite => "inbox serve (SQLite)",
            Kind::InboxRedis { .. } => "inbox serve --redis (1 worker)",
            Kind::Floor => "bare axum broadcast (floor)",
            Kind::Nchan => "nginx + nchan",
        }
    }

    pub fn is_ours(&self) -> bool {
        matches!(self, Kind::InboxSqlite | Kind::InboxRedis { .. })
    }
}

/// Paths of the programs to start.
#[derive(Debug, Clone)]
pub struct Programs {
    pub inbox: PathBuf,
    pub floor: PathBuf,
    pub nginx: PathBuf,
}

/// A server process, stopped on drop.
pub struct Server {
    pub kind: Kind,
    pub addr: SocketAddr,
    child: Child,
    _dir: tempfile::TempDir,
}

impl Server {
    pub fn start(kind: Kind, programs: &Programs, logs: &Path) -> anyhow::Result<Server> {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        let dir = tempfile::tempdir()?;
        let log = std::fs::File::create(logs.join(format!("{}.log", kind.key())))?;
        let mut command = match &kind {
            Kind::InboxSqlite | Kind::InboxRedis { .. } => {
                let mut c = Command::new(&programs.inbox);
                c.arg("serve")
                    .arg("--bind")
                    .arg(addr.to_string())
                    .arg("--data-dir")
                    .arg(dir.path())
                    // Every subscriber is a connection; the default cap (512) would queue them.
                    .args(["--max-connections", "30000"])
                    .arg("--token")
                    .arg(format!("bench-reviewer:reviewer:{REVIEWER}"));
                for (i, asker) in ASKERS.iter().enumerate() {
                    c.arg("--token")
                        .arg(format!("bench-asker-{i}:asker:{asker}"));
                }
                if let Kind::InboxRedis { url } = &kind {
                    c.arg("--redis")
                        .arg(url)
                        .arg("--redis-prefix")
                        .arg(format!("bench:{}:{port}", std::process::id()));
                }
                c
            }
            Kind::Floor => {
                let mut c = Command::new(&programs.floor);
                c.arg("--bind").arg(addr.to_string());
                c
            }
            Kind::Nchan => {
                let conf = dir.path().join("nginx.conf");
                std::fs::write(&conf, nchan_conf(dir.path(), addr)?)?;
                let mut c = Command::new(&programs.nginx);
                c.arg("-p").arg(dir.path()).arg("-c").arg(&conf);
                c.arg("-e").arg(dir.path().join("error.log"));
                c
            }
        };
        let child = command
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .with_context(|| format!("starting {}", kind.label()))?;
        let mut server = Server {
            kind,
            addr,
            child,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(addr).is_err() {
            if let Some(status) = server.child.try_wait()? {
                bail!(
                    "{} exited at start ({status}); see {}",
                    server.kind.label(),
                    logs.display()
                );
            }
            if Instant::now() > deadline {
                bail!("{} did not listen on {addr}", server.kind.label());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(server)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn subscribe_spec(&self) -> SubscribeSpec {
        let (path, headers) = match self.kind {
            Kind::InboxSqlite | Kind::InboxRedis { .. } => (
                "/api/interactions/stream".to_owned(),
                vec![("Authorization".to_owned(), format!("Bearer {REVIEWER}"))],
            ),
            Kind::Floor | Kind::Nchan => ("/sub".to_owned(), Vec::new()),
        };
        SubscribeSpec {
            addr: self.addr,
            path,
            headers,
        }
    }

    pub fn publish_door(&self) -> PublishDoor {
        let base = format!("http://{}", self.addr);
        match self.kind {
            Kind::InboxSqlite | Kind::InboxRedis { .. } => PublishDoor::Inbox {
                base,
                askers: ASKERS.iter().map(|s| s.to_string()).collect(),
            },
            Kind::Floor | Kind::Nchan => PublishDoor::Raw {
                url: format!("{base}/pub"),
            },
        }
    }

    /// Resumable with `Last-Event-ID`? (The floor keeps nothing.)
    pub fn resumes(&self) -> bool {
        self.kind != Kind::Floor
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // TERM first, so nginx's master takes its workers down with it.
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A minimal nginx.conf: one channel, a publisher location and an EventSource subscriber
/// location with message buffering, everything written under `dir`.
fn nchan_conf(dir: &Path, addr: SocketAddr) -> anyhow::Result<String> {
    if !Path::new(NCHAN_MODULE).exists() {
        bail!("{NCHAN_MODULE} is missing: install nginx-light and libnginx-mod-nchan");
    }
    let d = dir.display();
    // As root, nginx would hand its workers to `nobody`, who cannot write here.
    let user = if running_as_root() {
        "user root;\n"
    } else {
        ""
    };
    Ok(format!(
        "{user}load_module {NCHAN_MODULE};
daemon off;
master_process on;
worker_processes 1;
worker_rlimit_nofile 40000;
pid {d}/nginx.pid;
events {{ worker_connections 30000; }}
http {{
  access_log off;
  client_body_temp_path {d}/body;
  proxy_temp_path {d}/proxy;
  fastcgi_temp_path {d}/fastcgi;
  uwsgi_temp_path {d}/uwsgi;
  scgi_temp_path {d}/scgi;
  server {{
    listen {addr};
    location = /pub {{
      nchan_publisher;
      nchan_channel_id bench;
      nchan_message_buffer_length {NCHAN_BUFFER};
      nchan_message_timeout 1h;
    }}
    location = /sub {{
      nchan_subscriber eventsource;
      nchan_channel_id bench;
    }}
  }}
}}
"
    ))
}

fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .map(|v| v.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}
