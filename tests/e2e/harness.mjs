// The world around the window: a real `inbox serve` on loopback, the `inbox` CLI as asker and
// as "another reviewer", and tauri-driver launching the real app.

import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Session, sleep } from "./webdriver.mjs";

export const INBOX_BIN = required("INBOX_BIN");
export const APP_BIN = required("APP_BIN");
export const TAURI_DRIVER = process.env.TAURI_DRIVER ?? "tauri-driver";
export const ARTIFACTS = path.join(process.env.ARTIFACTS_DIR ?? path.resolve(import.meta.dirname, "../../artifacts"), "e2e");
fs.mkdirSync(ARTIFACTS, { recursive: true });

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set (scripts/e2e.sh sets it)`);
  return value;
}

export async function freePort() {
  const server = net.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  server.close();
  await once(server, "close");
  return port;
}

// ---- no secret in any log -----------------------------------------------------------------
// Every token a test hands out and every answer payload it registers must never reach a log:
// the server's and tauri-driver's (which carries the app's stdout) in ARTIFACTS, and the app's
// own rolling log files in the scratch dirs. Checked when the test file's process exits —
// registered first, so it runs before the scratch dirs are removed — and a find fails the file.
const secrets = new Set();
const scratchDirs = [];

/** Register a value no log line may ever hold (a token, an answer payload). */
export function secret(value) {
  secrets.add(String(value));
  return value;
}

function logFiles() {
  const files = fs.readdirSync(ARTIFACTS).filter((f) => f.endsWith(".log")).map((f) => path.join(ARTIFACTS, f));
  for (const dir of scratchDirs) {
    if (!fs.existsSync(dir)) continue;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
      const parent = entry.parentPath ?? entry.path;
      if (entry.isFile() && (/\.log/.test(entry.name) || path.basename(parent) === "logs")) files.push(path.join(parent, entry.name));
    }
  }
  return files;
}

process.on("exit", () => {
  const found = [];
  for (const file of logFiles()) {
    let text;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const value of secrets) if (text.includes(value)) found.push(`${file} holds ${value.slice(0, 12)}…`);
  }
  if (found.length > 0) {
    console.error(`a secret reached a log:\n${found.join("\n")}`);
    process.exitCode = 1;
  }
});

/** A temporary directory removed at exit (its log files are scanned first). */
export function scratch(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratchDirs.push(dir);
  process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const children = new Set();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

export function track(child) {
  children.add(child);
  child.on("exit", () => children.delete(child));
  return child;
}

/** This process's environment with `env` laid over it; a `null` value unsets that name. */
function withEnv(env) {
  const merged = { ...process.env, ...env };
  for (const [key, value] of Object.entries(merged)) if (value === null) delete merged[key];
  return merged;
}

/** `inbox <args>` with `env` laid over this process's (a `null` value unsets), tracked so it dies
 *  with the run. `done` resolves with its exit code, its output and how long it took in ms;
 *  `stderr()` is what it has printed on stderr so far. */
export function runInbox(args, env) {
  const started = Date.now();
  const child = track(spawn(INBOX_BIN, args, { env: withEnv(env), stdio: ["ignore", "pipe", "pipe"] }));
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const done = once(child, "exit").then(([code]) => ({ code, stdout, stderr, ms: Date.now() - started }));
  return { child, done, stderr: () => stderr };
}

/** `inbox serve` with fixed tokens on a fixed port and data dir, so it can be restarted. */
export class InboxServer {
  /** `extraArgs`: more `inbox serve` flags (e.g. `--webhook-secret`). */
  constructor({ extraArgs = [] } = {}) {
    this.extraArgs = extraArgs;
    this.reviewerToken = secret(`e2e-reviewer-${process.pid}-${Date.now()}`);
    this.askerToken = secret(`e2e-asker-${process.pid}-${Date.now()}`);
    this.dataDir = scratch("inbox-e2e-server-");
    this.child = null;
  }

  async start(port) {
    this.port = port ?? this.port ?? (await freePort());
    this.url = `http://127.0.0.1:${this.port}`;
    this.log = fs.openSync(path.join(ARTIFACTS, "server.log"), "a");
    this.child = track(
      spawn(
        INBOX_BIN,
        [
          "serve",
          "--bind", `127.0.0.1:${this.port}`,
          "--data-dir", this.dataDir,
          "--token", `reviewer-e2e:reviewer:${this.reviewerToken}`,
          "--token", `e2e-bot:asker:${this.askerToken}`,
          ...this.extraArgs,
        ],
        { stdio: ["ignore", this.log, this.log] },
      ),
    );
    const deadline = Date.now() + 15000;
    while (Date.now() < deadline) {
      try {
        const resp = await fetch(`${this.url}/readyz`);
        if (resp.ok) return;
      } catch {
        // not up yet
      }
      await sleep(100);
    }
    throw new Error("inbox serve did not become ready");
  }

  async stop() {
    if (!this.child) return;
    const exited = once(this.child, "exit");
    this.child.kill("SIGTERM");
    await Promise.race([exited, sleep(5000).then(() => this.child?.kill("SIGKILL"))]);
    this.child = null;
  }

  /** The `inbox` CLI's environment as the principal holding `token`, on this server. */
  as(token) {
    return { INBOX_URL: this.url, INBOX_TOKEN: token };
  }

  /** Ask with `inbox ask …`; resolves once the question is stored, with its id, its exit and
   *  what it printed on stderr so far (`stderrSoFar()`). */
  async ask(prompt, ...flags) {
    const { child, done, stderr } = runInbox(["ask", prompt, ...flags], this.as(this.askerToken));
    const deadline = Date.now() + 15000;
    while (Date.now() < deadline) {
      const m = /asked (ia_[A-Za-z0-9_-]+)/.exec(stderr());
      if (m) return { id: m[1], done, child, stderrSoFar: stderr };
      if (child.exitCode !== null) throw new Error(`inbox ask failed: ${stderr()}`);
      await sleep(50);
    }
    throw new Error(`inbox ask did not report an id: ${stderr()}`);
  }

  /** Run another `inbox` subcommand as the reviewer (answering "elsewhere"). */
  async reviewer(...args) {
    const { code, stdout, stderr } = await runInbox(args, this.as(this.reviewerToken)).done;
    if (code !== 0) throw new Error(`inbox ${args.join(" ")} exited ${code}: ${stderr}`);
    return stdout;
  }

  /** Run an `inbox` subcommand as the asker (killed after 15 s); resolves with its exit code,
   *  its output and how long it took in ms. */
  async asker(...args) {
    const run = runInbox(args, this.as(this.askerToken));
    const timer = setTimeout(() => run.child.kill("SIGKILL"), 15000);
    const result = await run.done;
    clearTimeout(timer);
    return result;
  }

  /** The interaction as the server has it (reviewer door). */
  async get(id) {
    const resp = await fetch(`${this.url}/api/interactions/${id}`, {
      headers: { authorization: `Bearer ${this.reviewerToken}` },
    });
    if (!resp.ok) throw new Error(`GET ${id}: ${resp.status}`);
    return resp.json();
  }
}

/** The environment of an app that follows `server` as its reviewer, with a data dir of its own
 *  (`inbox-e2e-<name>-…`): what every window test starts the app with. */
export function reviewerApp(server, name) {
  return {
    INBOX_URL: server.url,
    INBOX_TOKEN: server.reviewerToken,
    INBOX_DESKTOP_DATA_DIR: scratch(`inbox-e2e-${name}-`),
    // "Open in browser" must not start a real browser on the test machine.
    BROWSER: "true",
    RUST_LOG: process.env.RUST_LOG ?? "info",
  };
}

/** The environment of an app run as a fresh user: HOME and the XDG data, config and cache dirs
 *  in a scratch home of its own (`inbox-e2e-<name>-…`, returned as `home`), no server, token or
 *  data dir from the environment, and local mode on a port of its own (so it never meets the
 *  discovery test's app). */
export function freshUserApp(name) {
  const home = scratch(`inbox-e2e-${name}-`);
  const env = {
    HOME: home,
    XDG_DATA_HOME: path.join(home, ".local/share"),
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    INBOX_URL: null,
    INBOX_TOKEN: null,
    INBOX_DESKTOP_DATA_DIR: null,
    INBOX_DESKTOP_LOCAL_PORT: "0",
    // "Open in browser" must not start a real browser on the test machine.
    BROWSER: "true",
  };
  return { home, env };
}

/** pid → parent pid, for every process now running. */
export function processParents() {
  const parent = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name is in parentheses and may contain spaces; the ppid follows it.
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  return parent;
}

/** The pids of the processes running `bin` below `root` (the apps a driver started). */
export function appsBelow(root, bin) {
  const want = fs.realpathSync(bin);
  const parent = processParents();
  const below = [];
  for (const pid of parent.keys()) {
    try {
      if (fs.readlinkSync(`/proc/${pid}/exe`) !== want) continue;
    } catch {
      continue;
    }
    for (let p = parent.get(pid); p && p > 1; p = parent.get(p)) {
      if (p === root) {
        below.push(pid);
        break;
      }
    }
  }
  return below;
}

/** SIGTERM, SIGKILL after 5 s; resolves once the process is gone (or a zombie). */
async function endProcess(pid) {
  const alive = () => {
    try {
      return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      return false;
    }
  };
  const signal = (name) => {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  };
  if (!alive()) return;
  signal("SIGTERM");
  for (let waited = 0; alive() && waited <= 8000; waited += 100) {
    if (waited === 5000) signal("SIGKILL");
    await sleep(100);
  }
}

/** tauri-driver on a free port; the app it launches inherits `env` (a `null` value unsets). */
export async function startDriver(env) {
  const merged = withEnv(env);
  const port = await freePort();
  const nativePort = await freePort();
  const log = fs.openSync(path.join(ARTIFACTS, "tauri-driver.log"), "a");
  const child = track(
    spawn(TAURI_DRIVER, ["--port", String(port), "--native-port", String(nativePort)], {
      env: merged,
      stdio: ["ignore", log, log],
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20000;
  while (Date.now() < deadline) {
    try {
      const resp = await fetch(`${base}/status`);
      if (resp.ok) break;
    } catch {
      // not up yet
    }
    if (child.exitCode !== null) throw new Error("tauri-driver exited; see tauri-driver.log");
    await sleep(100);
  }
  return {
    base,
    pid: child.pid,
    /** A session of the app (or of another Tauri binary: `application`). */
    async session(args = [], application = APP_BIN) {
      const session = await Session.start(base, {
        browserName: "wry",
        "tauri:options": { application, args },
      });
      // Ending a session only closes the window, and the inbox app closes to the tray: its
      // process lives on (and a later app would hand over to it, being a single instance).
      // So quitting a session also ends the app it started, and waits for it.
      const before = appsBelow(child.pid, application);
      const quit = session.quit.bind(session);
      session.quit = async () => {
        const result = await quit();
        await Promise.all(before.map(endProcess));
        return result;
      };
      return session;
    },
    async stop() {
      const left = appsBelow(child.pid, APP_BIN);
      child.kill("SIGTERM");
      await Promise.race([once(child, "exit"), sleep(3000)]);
      await Promise.all(left.map(endProcess));
    },
  };
}

export function saveScreenshot(name, png) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  fs.writeFileSync(file, png);
  return file;
}
