// A park in the real window: two async questions parked with `inbox park create --webhook`,
// resuming to a real HTTP receiver on loopback started here. The window shows them as one
// group; answering both in the window makes the server POST exactly one signed resume that
// carries both answers.

import assert from "node:assert/strict";
import crypto from "node:crypto";
import http from "node:http";
import { once } from "node:events";
import { after, before, test } from "node:test";
import { windowOnServer } from "./fixture.mjs";
import { saveScreenshot } from "./harness.mjs";
import { literal, sleep } from "./webdriver.mjs";

const PANE = "//main[@aria-label='Open question']";
const LIST = "//*[@role='listbox'][@aria-label='Questions']";
const row = (prompt) => `//*[@role='option'][contains(., ${literal(prompt)})]`;
const paneButton = (label) => `${PANE}//button[starts-with(normalize-space(.), ${literal(label)})]`;
const BANNER = `${PANE}//section[@aria-label='Park']`;

// The signing key is ours, so the test checks the signature by its own HMAC computation.
const KEY = crypto.randomBytes(32);
const SECRET = `whsec_${KEY.toString("base64")}`;

/** A webhook receiver on loopback: records every request, answers 204. */
class Receiver {
  constructor() {
    this.hits = [];
    this.server = http.createServer((req, res) => {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        this.hits.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
        res.writeHead(204).end();
      });
    });
  }
  async start() {
    this.server.listen(0, "127.0.0.1");
    await once(this.server, "listening");
    this.url = `http://127.0.0.1:${this.server.address().port}/resume`;
  }
  async stop() {
    this.server.close();
  }
}

const receiver = new Receiver();
before(() => receiver.start());
after(() => receiver.stop());

const e2e = windowOnServer("park", { serverOptions: { extraArgs: ["--webhook-secret", SECRET] } });

test("a park of two shows as one group; answering both resumes the run once, with both", async () => {
  const expiry = new Date(Date.now() + 3600_000).toISOString();
  const ask = (prompt) => ({ prompt, answer_format: "confirm", mode: "async", expiry_at: expiry });
  const request = {
    asks: [ask("Park e2e: migrate the orders table?"), ask("Park e2e: drop the legacy index?")],
    metadata: { run_id: "r-e2e" },
  };
  const created = await e2e.server.asker("park", "create", "--asks", JSON.stringify(request), "--webhook", receiver.url);
  assert.equal(created.code, 13, `inbox park create: ${created.stderr}`);
  const park = JSON.parse(created.stdout).park;
  assert.equal(park.interactions.length, 2);

  // One group in the list: a header naming the asker and the run, then its two questions.
  const header = `${LIST}//*[contains(@class, 'park-row')]`;
  await e2e.app.waitForElement(`${header}[contains(., '2 from e2e-bot · run r-e2e')]`, 30000);
  await e2e.app.waitForElement(row("Park e2e: drop the legacy index?"));
  assert.equal((await e2e.app.findAll(header)).length, 1, "one group header for the park");

  await e2e.app.clickOn(row("Park e2e: migrate the orders table?"));
  await e2e.app.waitForElement(`${BANNER}[contains(., '0 of 2 answered')]`);
  saveScreenshot("park", await e2e.app.screenshot());
  await e2e.app.clickOn(paneButton("Yes"));

  // Answering one opens the other of the group, which now says one of two is answered.
  await e2e.app.waitForElement(`${PANE}[contains(., 'Park e2e: drop the legacy index?')]`);
  await e2e.app.waitForElement(`${BANNER}[contains(., '1 of 2 answered')]`);
  assert.equal(receiver.hits.length, 0, "no resume on a partial set");
  await e2e.app.clickOn(paneButton("No"));

  const deadline = Date.now() + 20000;
  while (receiver.hits.length === 0 && Date.now() < deadline) await sleep(100);
  assert.equal(receiver.hits.length, 1, "the receiver got the resume");
  // Give a wrong second delivery time to show itself.
  await sleep(3000);
  assert.equal(receiver.hits.length, 1, "exactly one resume");

  const [hit] = receiver.hits;
  const id = hit.headers["webhook-id"];
  const timestamp = hit.headers["webhook-timestamp"];
  const expected = crypto.createHmac("sha256", KEY).update(`${id}.${timestamp}.${hit.body}`).digest("base64");
  const signatures = String(hit.headers["webhook-signature"]).split(" ");
  assert.ok(signatures.includes(`v1,${expected}`), `signature ${hit.headers["webhook-signature"]}`);

  const body = JSON.parse(hit.body);
  assert.equal(body.type, "park.resolved");
  assert.equal(body.park.id, park.id);
  assert.equal(body.park.asker, "e2e-bot");
  assert.deepEqual(
    body.park.resolutions.map((r) => [r.interaction_id, r.status, r.value, r.answered_by]),
    [
      [park.interactions[0], "answered", true, "reviewer-e2e"],
      [park.interactions[1], "answered", false, "reviewer-e2e"],
    ],
  );

  // The server agrees: resumed once, by one attempt.
  const shown = await e2e.server.asker("park", "show", park.id);
  assert.equal(shown.code, 0, shown.stderr);
  const after = JSON.parse(shown.stdout).park;
  assert.equal(after.status, "resumed");
  assert.equal(after.attempts, 1);
});
