// Prints how the list behaves with 10,000 questions in headless Chromium: time to first render,
// scroll frame timings, and the cost of one arriving question. A measurement, not a test.
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, serveDist } from "./serveDist.mjs";

const ITEMS = Number(process.env.ITEMS ?? 10_000);
const FRAMES = 240;
const server = await serveDist();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return { mean: mean.toFixed(2), p50: at(0.5).toFixed(2), p95: at(0.95).toFixed(2), max: s[s.length - 1].toFixed(2) };
}

try {
  const context = await browser.newContext({ viewport: { width: 1360, height: 820 } });
  const page = await context.newPage();
  const t0 = Date.now();
  await page.goto(`${server.url}?items=${ITEMS}&view=all`);
  await page.waitForSelector("[data-testid=question-list] [role=option]");
  const wall = Date.now() - t0;
  const rendered = await page.evaluate(() => performance.getEntriesByName("inbox-rendered")[0]?.startTime ?? null);
  const drawn = await page.locator("[data-testid=question-list] [role=option]").count();

  // Scroll the list a little further every frame and record the time between frames.
  const frames = await page.evaluate(async (n) => {
    const list = document.querySelector("[data-testid=question-list]");
    const deltas = [];
    let last = performance.now();
    for (let i = 0; i < n; i++) {
      list.scrollTop += 180;
      await new Promise((r) => requestAnimationFrame(r));
      const t = performance.now();
      deltas.push(t - last);
      last = t;
    }
    return { deltas, scrollTop: list.scrollTop, rows: list.querySelectorAll("[role=option]").length };
  }, FRAMES);

  // Jump far and back (the page-down / end case).
  const jumps = await page.evaluate(async () => {
    const list = document.querySelector("[data-testid=question-list]");
    const out = [];
    for (const y of [list.scrollHeight, 0, list.scrollHeight / 2, list.scrollHeight / 4]) {
      const t = performance.now();
      list.scrollTop = y;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      out.push(performance.now() - t);
    }
    return out;
  });

  // One question arriving while scrolled into the middle.
  const arrival = await page.evaluate(async () => {
    const fake = window.__fakeInbox;
    const list = document.querySelector("[data-testid=question-list]");
    const times = [];
    for (let i = 0; i < 10; i++) {
      const first = fake.cards.values().next().value;
      const card = { ...first, interaction: { ...first.interaction, id: `ia_arrival_${i}`, created_at: new Date().toISOString(), status: "pending" } };
      const before = list.scrollTop;
      const t = performance.now();
      fake.upsert(card);
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      times.push({ ms: performance.now() - t, moved: list.scrollTop - before });
    }
    return times;
  });

  const slow = frames.deltas.filter((d) => d > 25).length;
  console.log(`items: ${ITEMS}`);
  console.log(`first render: ${rendered === null ? "n/a" : rendered.toFixed(1)} ms after navigation start (wall ${wall} ms incl. browser start-up of the page)`);
  console.log(`rows in the DOM: ${drawn} at rest, ${frames.rows} while scrolling`);
  console.log(`scroll (${FRAMES} frames, 180 px/frame): frame ms ${JSON.stringify(stats(frames.deltas))}, frames over 25 ms: ${slow}`);
  console.log(`jump to end/top/middle/quarter, to painted: ${jumps.map((j) => j.toFixed(1)).join(" / ")} ms`);
  console.log(
    `one question arriving (10 times), to painted: ms ${JSON.stringify(stats(arrival.map((a) => a.ms)))}; list moved by ${[...new Set(arrival.map((a) => a.moved))].join(",")} px each time (rows kept under the reader)`,
  );
} finally {
  await browser.close();
  await server.close();
}
