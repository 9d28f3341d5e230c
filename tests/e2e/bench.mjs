// Desktop benchmark: the app's idle memory (RSS of its whole process tree: the app and its
// WebKit processes) next to a minimal Tauri window built in the same run, and the time from
// `inbox ask` to the card being visible in the window. Prints a Markdown report.
//
// Run through scripts/e2e.sh --bench (it builds both and sets the paths), under Xvfb.

import { spawn } from "node:child_process";
import fs from "node:fs";
import { InboxServer, scratch, startDriver } from "./harness.mjs";
import { sleep } from "./webdriver.mjs";

const MINIMAL_BIN = process.env.MINIMAL_BIN;
const APP_BIN = process.env.APP_BIN;
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 15);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 15);

/** pid → parent pid for every process. */
function parents() {
  const map = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name is in parentheses and may contain spaces; the ppid follows it.
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      map.set(Number(entry), Number(rest[1]));
    } catch {
      // exited meanwhile
    }
  }
  return map;
}

function rssKiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Proportional set size: shared pages (WebKit's libraries) split between the processes. */
function pssKiB(pid) {
  try {
    const m = /Pss:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** RSS of `root` and all its descendants, and how many processes that is. */
function treeRss(root) {
  const ppid = parents();
  const tree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, parent] of ppid) {
      if (tree.has(parent) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  let rss = 0;
  let pss = 0;
  for (const pid of tree) {
    rss += rssKiB(pid);
    pss += pssKiB(pid);
  }
  return { kib: rss, pssKib: pss, processes: tree.size };
}

async function idleMemory(label, bin, args) {
  const child = spawn(bin, args, { stdio: ["ignore", "ignore", "ignore"], env: { ...process.env, RUST_LOG: "warn" } });
  await sleep(IDLE_SECONDS * 1000);
  const samples = [];
  for (let i = 0; i < 5; i++) {
    samples.push(treeRss(child.pid));
    await sleep(500);
  }
  child.kill("SIGTERM");
  await sleep(500);
  child.kill("SIGKILL");
  const mean = (key) => samples.reduce((a, s) => a + s[key], 0) / samples.length / 1024;
  return { label, mib: mean("kib"), pssMib: mean("pssKib"), processes: samples[samples.length - 1].processes };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function askToVisible() {
  const server = new InboxServer();
  await server.start();
  const driver = await startDriver({
    INBOX_URL: server.url,
    INBOX_TOKEN: server.reviewerToken,
    INBOX_DESKTOP_DATA_DIR: scratch("inbox-bench-app-"),
    RUST_LOG: "warn",
  });
  const app = await driver.session();
  await app.waitForElement("//footer[@role='contentinfo'][contains(., 'Online')]", 30000);
  const times = [];
  try {
    for (let i = 0; i < SAMPLES; i++) {
      const prompt = `Benchmark question ${i} ${Date.now()}`;
      // The window records the wall-clock moment the row appears (same clock as this process).
      await app.execute(
        `const prompt = arguments[0];
         window.__seenAt = null;
         const seen = () => [...document.querySelectorAll('[role=option]')].some((r) => r.textContent.includes(prompt));
         const observer = new MutationObserver(() => {
           if (window.__seenAt === null && seen()) { window.__seenAt = Date.now(); observer.disconnect(); }
         });
         observer.observe(document.body, { childList: true, subtree: true, characterData: true });`,
        [prompt],
      );
      const start = Date.now();
      const asked = await server.ask(prompt, "--format", "confirm");
      const seenAt = await app.waitFor("the card", () => app.execute("return window.__seenAt"), 20000);
      times.push(seenAt - start);
      asked.child.kill("SIGKILL");
      await sleep(300);
    }
  } finally {
    await app.quit().catch(() => {});
    await driver.stop();
    await server.stop();
  }
  times.sort((a, b) => a - b);
  return { samples: times.length, median: percentile(times, 50), p95: percentile(times, 95), max: times[times.length - 1] };
}

const memory = [
  await idleMemory("inbox-desktop (local mode, empty inbox)", APP_BIN, ["--data-dir", scratch("inbox-bench-idle-")]),
  await idleMemory("minimal Tauri window (same build)", MINIMAL_BIN, []),
];
const latency = await askToVisible();

const lines = [
  `Measured ${new Date().toISOString()} on ${fs.readFileSync("/proc/cpuinfo", "utf8").match(/model name\s*:\s*(.*)/)?.[1] ?? "this machine"} ` +
    `(${(await import("node:os")).cpus().length} cores), debug build, Xvfb, WebKitGTK ${process.env.WEBKIT_VERSION ?? ""}`.trim() + ".",
  "",
  `Idle memory after ${IDLE_SECONDS} s, summed over the process tree (the app and its WebKit processes), ` +
    "mean of 5 readings. RSS counts shared library pages once per process; PSS splits them:",
  "",
  "| app | RSS | PSS | processes |",
  "|---|---|---|---|",
  ...memory.map((m) => `| ${m.label} | ${m.mib.toFixed(1)} MiB | ${m.pssMib.toFixed(1)} MiB | ${m.processes} |`),
  "",
  `Time from \`inbox ask\` (process start) to the card visible in the window, ${latency.samples} questions, ` +
    "against `inbox serve` on loopback:",
  "",
  "| median | p95 | max |",
  "|---|---|---|",
  `| ${latency.median} ms | ${latency.p95} ms | ${latency.max} ms |`,
];
console.log(lines.join("\n"));
