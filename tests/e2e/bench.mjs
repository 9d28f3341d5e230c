// The desktop app's benchmark (issue #12), in the real window: idle memory of the process tree
// (PSS) with an empty inbox and with BENCH_PENDING questions waiting, next to a bare Tauri window
// built in the same run; cold start to first paint for both; and `inbox ask` → card visible
// p50 / p99 with the pending list full. Writes `{setup, measures}` as JSON to the file given
// with --json (scripts/bench.sh folds it into artifacts/bench/results.json, where the goals are
// applied and the table printed); prints what it measures as it goes.
//
// Run through scripts/bench.sh (it builds both apps and sets APP_BIN, MINIMAL_BIN, INBOX_BIN,
// TAURI_DRIVER), under Xvfb with a D-Bus session.
//
//   BENCH_PENDING       questions pending for the full-list figures      (10000)
//   BENCH_SAMPLES       questions asked for ask → visible                (100)
//   BENCH_LAUNCHES      launches of each app for first paint (median)    (3)
//   BENCH_IDLE_SECONDS  idle time before memory is read                  (15)
//   BENCH_PROFILE       the build profile, recorded in the setup         (release)

import fs from "node:fs";
import { APP_BIN, InboxServer, appsBelow, processParents, reviewerApp, secret, startDriver } from "./harness.mjs";
import { sleep } from "./webdriver.mjs";

const MINIMAL_BIN = process.env.MINIMAL_BIN;
const PENDING = Number(process.env.BENCH_PENDING ?? 10000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100);
const LAUNCHES = Number(process.env.BENCH_LAUNCHES ?? 3);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 15);
const PROFILE = process.env.BENCH_PROFILE ?? "release";
const jsonAt = process.argv.indexOf("--json");
const JSON_OUT = jsonAt > 0 ? process.argv[jsonAt + 1] : null;
if (!MINIMAL_BIN || !JSON_OUT) {
  console.error("usage: MINIMAL_BIN=… APP_BIN=… INBOX_BIN=… node bench.mjs --json FILE (see scripts/bench.sh)");
  process.exit(2);
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

/** The process running `bin` below `ancestor` (tauri-driver → WebKitWebDriver → the app). */
function processOf(bin, ancestor) {
  const [pid] = appsBelow(ancestor, bin);
  if (!pid) throw new Error(`no ${bin} process below ${ancestor}`);
  return pid;
}

/** PSS of `root` and every descendant (the app, its WebKit web and network processes), MiB. */
function treePssMiB(root) {
  const ppid = processParents();
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
  let kib = 0;
  const parts = {};
  for (const pid of tree) {
    const own = pssKiB(pid);
    kib += own;
    let name = String(pid);
    try {
      name = fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    } catch {
      // gone meanwhile
    }
    parts[name] = (parts[name] ?? 0) + own / 1024;
  }
  return { mib: kib / 1024, processes: tree.size, parts };
}

/** After IDLE_SECONDS, the mean of five readings half a second apart. */
async function idlePss(pid) {
  await sleep(IDLE_SECONDS * 1000);
  const readings = [];
  for (let i = 0; i < 5; i++) {
    readings.push(treePssMiB(pid));
    await sleep(500);
  }
  const last = readings.at(-1);
  // Where it goes, process by process (the last reading), for the log.
  const parts = Object.entries(last.parts).map(([name, mib]) => `${name} ${mib.toFixed(1)}`).join(", ");
  return { mib: readings.reduce((a, r) => a + r.mib, 0) / readings.length, processes: last.processes, parts };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const median = (xs) => percentile([...xs].sort((a, b) => a - b), 50);

/**
 * Launch `bin` through tauri-driver and wait for its first paint: the page's own paint timing
 * (`first-contentful-paint`, else `first-paint`) as a wall-clock moment, against the moment just
 * before the session was requested — the same clock (Date.now()) on both sides.
 */
async function launch(bin, env) {
  const driver = await startDriver(env);
  const requested = Date.now();
  const app = await driver.session([], bin);
  const painted = await app.waitFor(
    "the first paint",
    () =>
      app.execute(
        `const p = performance.getEntriesByType('paint');
         const e = p.find((x) => x.name === 'first-contentful-paint') ?? p.find((x) => x.name === 'first-paint');
         return e ? performance.timeOrigin + e.startTime : null;`,
      ),
    30000,
  );
  const pid = processOf(bin, driver.pid);
  const size = await app.execute("return `${window.innerWidth}x${window.innerHeight}`");
  return {
    app,
    pid,
    size,
    firstPaintMs: painted - requested,
    async close() {
      // Quitting also ends the app and waits for it (the harness: the inbox app would otherwise
      // live on in the tray and skew the next reading).
      await app.quit().catch(() => {});
      await driver.stop();
    },
  };
}

/** Seed `count` pending questions over HTTP, eight requests at a time. The server caps the
 *  questions one asker may have pending (`429 too_many_pending`); when the current asker is
 *  full, the next one takes over. */
async function seed(server, askers, count) {
  let next = 0;
  let asker = 0;
  const started = Date.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      for (;;) {
        if (asker >= askers.length) throw new Error(`seeding question ${i}: every asker is full`);
        const current = asker;
        const resp = await fetch(`${server.url}/api/interactions`, {
          method: "POST",
          headers: { authorization: `Bearer ${askers[current]}`, "content-type": "application/json" },
          body: JSON.stringify({ prompt: `Seeded question ${i}: deploy build ${i}?`, answer_format: "confirm" }),
        });
        if (resp.status === 201) break;
        const body = await resp.text();
        if (resp.status === 429 && body.includes("too_many_pending")) {
          if (asker === current) asker++;
          continue;
        }
        throw new Error(`seeding question ${i}: ${resp.status} ${body}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  console.error(`   seeded ${count} pending in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Until the sidebar shows `count` questions waiting (the engine's count, drawn by the window). */
async function waitForPending(app, count) {
  const started = Date.now();
  const sidebar = () =>
    app.execute(
      `const nav = document.querySelector('nav[aria-label="Views and accounts"]');
       return nav ? nav.textContent.replace(/[,\u202f\u00a0]/g, '') : '';`,
    );
  const shows = (text) => new RegExp(`(^|\\D)${count}(\\D|$)`).test(text);
  try {
    await app.waitFor(`${count} pending in the sidebar`, async () => shows(await sidebar()), 120000);
  } catch (e) {
    throw new Error(`${e.message}; the sidebar reads "${await sidebar().catch(() => "?")}"`);
  }
  return Date.now() - started;
}

/** From just before `inbox ask` is spawned to the row in the DOM (a MutationObserver in the page
 *  records Date.now(), the clock of this process). */
async function askToVisible(app, server, samples) {
  const times = [];
  for (let i = 0; i < samples; i++) {
    const prompt = `Benchmark question ${i} ${Date.now()}`;
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
    await sleep(150);
  }
  return times.sort((a, b) => a - b);
}

const log = (line) => console.error(`   ${line}`);
// One asker per 500 questions: comfortably more than the server's per-asker cap needs.
const askerCount = Math.ceil(PENDING / 500) + 1;
const askers = Array.from({ length: askerCount }, (_, i) => secret(`bench-asker-${i}-${process.pid}-${Date.now()}`));
const server = new InboxServer({ extraArgs: askers.flatMap((t, i) => ["--token", `bench-seed-${i}:asker:${t}`]) });
await server.start();
const result = { bare: { paints: [] }, app: { paints: [] } };
try {
  console.error(`== bare Tauri window (${MINIMAL_BIN})`);
  for (let i = 0; i < LAUNCHES; i++) {
    const w = await launch(MINIMAL_BIN, {});
    result.bare.paints.push(w.firstPaintMs);
    log(`launch ${i + 1}: first paint after ${w.firstPaintMs} ms`);
    result.bare.size = w.size;
    if (i === 0) {
      result.bare.idle = await idlePss(w.pid);
      log(`idle PSS ${result.bare.idle.mib.toFixed(1)} MiB over ${result.bare.idle.processes} processes (${result.bare.idle.parts})`);
    }
    await w.close();
  }

  console.error(`== inbox-desktop (${APP_BIN}), empty inbox`);
  for (let i = 0; i < LAUNCHES; i++) {
    const w = await launch(APP_BIN, reviewerApp(server, `bench-${i}`));
    result.app.paints.push(w.firstPaintMs);
    // The buffers a window draws into grow with it: memory is compared at one size.
    if (w.size !== result.bare.size) throw new Error(`the app's window is ${w.size}, the bare window's ${result.bare.size}: compare them at one size`);
    log(`launch ${i + 1}: first paint after ${w.firstPaintMs} ms`);
    if (i === 0) {
      await w.app.waitForElement("//footer[@role='contentinfo'][contains(., 'Online')]", 30000);
      result.app.idleEmpty = await idlePss(w.pid);
      log(`idle PSS ${result.app.idleEmpty.mib.toFixed(1)} MiB over ${result.app.idleEmpty.processes} processes (${result.app.idleEmpty.parts})`);
    }
    await w.close();
  }

  console.error(`== inbox-desktop with ${PENDING} pending`);
  await seed(server, askers, PENDING);
  const w = await launch(APP_BIN, reviewerApp(server, "bench-full"));
  try {
    const loadedMs = await waitForPending(w.app, PENDING);
    log(`all ${PENDING} in the sidebar ${loadedMs} ms after first paint`);
    result.app.idleFull = await idlePss(w.pid);
    log(`idle PSS ${result.app.idleFull.mib.toFixed(1)} MiB over ${result.app.idleFull.processes} processes (${result.app.idleFull.parts})`);
    result.app.visible = await askToVisible(w.app, server, SAMPLES);
    log(
      `ask → visible over ${SAMPLES}: p50 ${percentile(result.app.visible, 50)} ms, ` +
        `p99 ${percentile(result.app.visible, 99)} ms, max ${result.app.visible.at(-1)} ms`,
    );
  } finally {
    await w.close();
  }
} finally {
  await server.stop();
}

const webkit = process.env.WEBKIT_VERSION ?? "";
const measures = [
  { name: "desktop.idle_pss.empty", unit: "MiB", ours: result.app.idleEmpty.mib, peers: { tauri: result.bare.idle.mib } },
  { name: `desktop.idle_pss.${PENDING}`, unit: "MiB", ours: result.app.idleFull.mib, peers: { tauri: result.bare.idle.mib } },
  { name: "desktop.first_paint", unit: "ms", ours: median(result.app.paints), peers: { tauri: median(result.bare.paints) } },
  { name: `desktop.ask_to_visible.${PENDING}.p50`, unit: "ms", ours: percentile(result.app.visible, 50) },
  { name: `desktop.ask_to_visible.${PENDING}.p99`, unit: "ms", ours: percentile(result.app.visible, 99) },
];
const setup = { pending: PENDING, samples: SAMPLES, launches: LAUNCHES, idle_s: IDLE_SECONDS, profile: PROFILE, webkit, window: result.bare.size };
fs.writeFileSync(JSON_OUT, JSON.stringify({ setup, measures }, null, 2));
console.error(`wrote ${JSON_OUT}`);
// The harness ends what it started when the process exits.
process.exit(0);
