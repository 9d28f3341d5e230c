//! The real processes under test: `inbox serve` workers (one on SQLite, or two on Redis) and,
//! in Redis mode, a `redis-server` with AOF on and `appendfsync always`, so a write Redis
//! acknowledged survives its `kill -9`. Every process is killed with SIGKILL, never asked to
//! stop: a crash is what the campaign is about.

use std::fs::File;
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

pub const ADMIN: &str = "chaos-admin-secret-3f9a0c";
pub const ASKER: &str = "chaos-asker-secret-8d21b7";
/// Same secret on every worker, so a webhook signed by one verifies against another.
const WEBHOOK_SECRET: &str = "whsec_Y2hhb3MtY2FtcGFpZ24td2ViaG9vay1zZWNyZXQ=";

pub fn reviewer_token(i: usize) -> String {
    format!("chaos-reviewer-{i}-secret-5e6b1d")
}

pub fn reviewer_name(i: usize) -> String {
    format!("reviewer{i}")
}

fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn log_file(path: &Path) -> anyhow::Result<File> {
    Ok(File::options().create(true).append(true).open(path)?)
}

pub struct Redis {
    port: u16,
    dir: PathBuf,
    /// Off only to show the campaign catches what a store that forgets loses.
    durable: bool,
    child: Option<Child>,
}

impl Redis {
    pub fn start(dir: &Path, durable: bool) -> anyhow::Result<Redis> {
        let mut redis = Redis {
            port: free_port()?,
            dir: dir.to_owned(),
            durable,
            child: None,
        };
        std::fs::create_dir_all(dir)?;
        redis.spawn()?;
        Ok(redis)
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    fn spawn(&mut self) -> anyhow::Result<()> {
        let port = self.port.to_string();
        let aof = if self.durable { "yes" } else { "no" };
        let child = Command::new("redis-server")
            .args(["--port", &port, "--bind", "127.0.0.1", "--save", ""])
            .args(["--appendonly", aof, "--appendfsync", "always"])
            .arg("--dir")
            .arg(&self.dir)
            .stdout(log_file(&self.dir.join("redis.log"))?)
            .stderr(Stdio::null())
            .spawn()
            .context("redis-server is on PATH")?;
        self.child = Some(child);
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if started.elapsed() > Duration::from_secs(10) {
                bail!("redis-server did not listen on {}", self.port);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn restart(&mut self) -> anyhow::Result<()> {
        self.kill();
        self.spawn()
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}

pub struct Worker {
    pub addr: SocketAddr,
    child: Option<Child>,
}

pub struct Cluster {
    inbox_bin: PathBuf,
    run_dir: PathBuf,
    reviewers: usize,
    pub redis: Option<Redis>,
    pub workers: Vec<Worker>,
}

impl Cluster {
    /// Two workers on Redis when `redis` is `Some(durable)`, else one on SQLite.
    pub async fn start(
        inbox_bin: &Path,
        run_dir: &Path,
        reviewers: usize,
        redis: Option<bool>,
    ) -> anyhow::Result<Cluster> {
        let redis = if let Some(durable) = redis {
            Some(Redis::start(&run_dir.join("redis"), durable)?)
        } else {
            None
        };
        let count = if redis.is_some() { 2 } else { 1 };
        let mut cluster = Cluster {
            inbox_bin: inbox_bin.to_owned(),
            run_dir: run_dir.to_owned(),
            reviewers,
            redis,
            workers: Vec::new(),
        };
        for _ in 0..count {
            let addr = SocketAddr::from(([127, 0, 0, 1], free_port()?));
            cluster.workers.push(Worker { addr, child: None });
        }
        for i in 0..count {
            cluster.spawn(i)?;
        }
        for i in 0..count {
            cluster.wait_ready(i).await?;
        }
        Ok(cluster)
    }

    pub fn addrs(&self) -> Vec<SocketAddr> {
        self.workers.iter().map(|w| w.addr).collect()
    }

    /// Every server log written so far (for the secrets scan).
    pub fn logs(&self) -> Vec<PathBuf> {
        (0..self.workers.len())
            .map(|i| self.run_dir.join(format!("worker{i}.log")))
            .collect()
    }

    fn spawn(&mut self, i: usize) -> anyhow::Result<()> {
        let mut cmd = Command::new(&self.inbox_bin);
        cmd.arg("serve")
            .arg("--bind")
            .arg(self.workers[i].addr.to_string())
            .arg("--data-dir")
            .arg(self.run_dir.join("data"))
            .args(["--allowed-host", "127.0.0.1"])
            .args(["--webhook-secret", WEBHOOK_SECRET])
            .arg("--token")
            .arg(format!("chaos-admin:admin:{ADMIN}"))
            .arg("--token")
            .arg(format!("chaos-bot:asker:{ASKER}"));
        for r in 0..self.reviewers {
            cmd.arg("--token").arg(format!(
                "{}:reviewer:{}",
                reviewer_name(r),
                reviewer_token(r)
            ));
        }
        if let Some(redis) = &self.redis {
            cmd.arg("--redis").arg(redis.url());
        }
        let log = log_file(&self.run_dir.join(format!("worker{i}.log")))?;
        cmd.env("INBOX_LOG", "debug")
            .stdout(log.try_clone()?)
            .stderr(log);
        self.workers[i].child = Some(cmd.spawn().context("starting inbox serve")?);
        Ok(())
    }

    /// `/readyz` answers 200 (the store is reachable), within 30 s.
    pub async fn wait_ready(&self, i: usize) -> anyhow::Result<()> {
        let url = format!("http://{}/readyz", self.workers[i].addr);
        let http = reqwest::Client::new();
        let started = Instant::now();
        loop {
            if let Ok(resp) = http.get(&url).timeout(Duration::from_secs(1)).send().await
                && resp.status().is_success()
            {
                return Ok(());
            }
            if started.elapsed() > Duration::from_secs(30) {
                bail!("worker {i} not ready after 30 s");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// `kill -9` worker `i`.
    pub fn kill(&mut self, i: usize) {
        if let Some(mut child) = self.workers[i].child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub async fn restart(&mut self, i: usize) -> anyhow::Result<()> {
        self.kill(i);
        // The port is ours; a restart right after a kill can race its release.
        let started = Instant::now();
        loop {
            self.spawn(i)?;
            match self.wait_ready(i).await {
                Ok(()) => return Ok(()),
                Err(e) if started.elapsed() < Duration::from_secs(60) => {
                    eprintln!("worker {i} restart retry: {e}");
                    self.kill(i);
                }
                Err(e) => return Err(e),
            }
        }
    }

    pub async fn wait_all_ready(&self) -> anyhow::Result<()> {
        for i in 0..self.workers.len() {
            self.wait_ready(i).await?;
        }
        Ok(())
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for i in 0..self.workers.len() {
            self.kill(i);
        }
    }
}
