// Screenshots of the hardest forms of the schema corpus (src/test/schemas/corpus/), drawn in the
// built UI over the fake backend under the window's Content-Security-Policy, written to
// ../artifacts/screenshots/forms-*.png. The corpus questions are added through the fake backend
// the page exposes (`window.__fakeInbox`), as the measurement script does, so no demo data changes.
import { readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, CONTENT_SECURITY_POLICY, serveDist } from "./serveDist.mjs";

const OUT = fileURLToPath(new URL("../../artifacts/screenshots/", import.meta.url));
const CORPUS = fileURLToPath(new URL("../src/test/schemas/corpus/", import.meta.url));
await mkdir(OUT, { recursive: true });

/** Corpus entries shown, and whether to show them refused (their invalid answer after Review). */
const SHOTS = [
  ["ci-workflow", false],
  ["deploy-request", false],
  ["hook-config", false],
  ["compose-file", false],
  ["database-connection", false],
  ["event-booking", false],
  ["pod-spec", true],
  ["incident-report", true],
];

const server = await serveDist({ headers: { "content-security-policy": CONTENT_SECURITY_POLICY } });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
const failures = [];
try {
  for (const [name, refused] of SHOTS) {
    const entry = JSON.parse(readFileSync(`${CORPUS}${name}.json`, "utf8"));
    const context = await browser.newContext({ viewport: { width: 1360, height: 1000 }, colorScheme: "light", deviceScaleFactor: 1 });
    const p = await context.newPage();
    p.on("pageerror", (e) => failures.push(`${name}: page error: ${e.message}`));
    p.on("console", (m) => {
      if (m.type() === "error" && /Content Security Policy|Refused/.test(m.text())) failures.push(`${name}: ${m.text()}`);
    });
    await p.goto(`${server.url}?fake&scenario=empty`);
    await p.waitForSelector(".app .statusbar");
    const id = `ia_corpus_${name.replace(/-/g, "_")}`;
    await p.evaluate(
      ({ id, entry, refused }) => {
        const now = new Date().toISOString();
        const interaction = {
          id, kind: "question", prompt: entry.title, answer_format: "form", options: [], schema: entry.schema,
          data: { values: refused ? entry.invalid.answer : entry.valid, options: {} }, pages: null, link: null, media: [],
          mode: "sync", expires_at: null, status: "pending", asker: "config-bot", created_at: now, answer: null, metadata: {}, park_id: null,
        };
        const fake = window.__fakeInbox;
        fake.upsert({ account: "local", interaction, unread: true, delivery: null, outgoing: null, expired_locally: false });
        fake.open({ account: "local", id });
      },
      { id, entry, refused },
    );
    await p.waitForSelector(".form-answer form");
    if (refused) {
      await p.getByRole("button", { name: "Review" }).click();
      await p.waitForSelector(".error-summary");
    }
    await p.waitForTimeout(300);
    const file = `${OUT}forms-${name}${refused ? "-refused" : ""}.png`;
    await p.screenshot({ path: file, fullPage: false });
    console.log(`wrote ${file}`);
    if (refused) {
      // The same refusal from the step's top: the summary, each line a link to its field.
      await p.locator(".error-summary").scrollIntoViewIfNeeded();
      await p.waitForTimeout(200);
      const summary = `${OUT}forms-${name}-summary.png`;
      await p.screenshot({ path: summary, fullPage: false });
      console.log(`wrote ${summary}`);
    }
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}
if (failures.length > 0) {
  console.error(failures.join("\n"));
  process.exit(1);
}
