// Notifications in the real window: `inbox notify` returns at once (nothing waits for it),
// the window shows the notification in its own view, and a form notification submitted from
// the window reaches its asker's submissions door.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { after, before, test } from "node:test";
import { INBOX_BIN, InboxServer, reviewerApp, saveScreenshot, startDriver } from "./harness.mjs";
import { literal } from "./webdriver.mjs";

const STATUS_BAR = "//footer[@role='contentinfo']";
const SIDEBAR_ENTRY = "//nav//button[starts-with(normalize-space(.), 'Notifications')]";
const LIST = "//*[@data-testid='notification-list']";
const PANE = "//main[@aria-label='Open notification']";
const paneButton = (label) => `${PANE}//button[normalize-space(.)=${literal(label)}]`;

let server;
let driver;
let app;

before(async () => {
  server = new InboxServer();
  await server.start();
  driver = await startDriver(reviewerApp(server, "notify"));
  app = await driver.session();
  await app.waitForElement(`${STATUS_BAR}[contains(., 'Online')]`, 30000);
});

after(async () => {
  await app?.quit().catch(() => {});
  await driver?.stop();
  await server?.stop();
});

/** `inbox notify …` as the asker: its exit, its output and how long it took. */
async function notify(...args) {
  const started = Date.now();
  const child = spawn(INBOX_BIN, ["notify", ...args], {
    env: { ...process.env, INBOX_URL: server.url, INBOX_TOKEN: server.askerToken },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const [code] = await once(child, "exit");
  return { code, stdout: stdout.trim(), stderr, ms: Date.now() - started };
}

test("`inbox notify` returns at once and the window shows the notification", async () => {
  const sent = await notify("Nightly backup finished", "--body", "All databases are backed up.");
  assert.equal(sent.code, 0, sent.stderr);
  assert.match(sent.stdout, /^nt_[a-z2-7]+$/);
  // Nobody has looked at it, and the command is already done.
  assert.ok(sent.ms < 5000, `took ${sent.ms} ms`);
  await app.clickOn(SIDEBAR_ENTRY);
  await app.waitForElement(`${LIST}//button[contains(., 'Nightly backup finished')]`);
  await app.waitForElement(`${PANE}[contains(., 'All databases are backed up.')]`);
  saveScreenshot("notification", await app.screenshot());
});

test("a form notification submitted from the window reaches the submissions door", async () => {
  const schema = JSON.stringify({
    type: "object",
    required: ["rating"],
    properties: { rating: { type: "integer", title: "Rating", minimum: 1, maximum: 5 } },
  });
  const sent = await notify("Rate the rollout", "--schema", schema, "--data", '{"rating": 4}');
  assert.equal(sent.code, 0, sent.stderr);
  const id = sent.stdout;
  await app.clickOn(SIDEBAR_ENTRY);
  await app.clickOn(`${LIST}//button[contains(., 'Rate the rollout')]`);
  await app.waitForElement(`${PANE}[contains(., 'Rate the rollout')]`);
  // A form without pages reviews first, then submits.
  await app.clickOn(paneButton("Review"));
  await app.clickOn(paneButton("Submit"));
  await app.waitForElement(`${PANE}//*[@role='status'][contains(., 'Sent')]`);
  const resp = await fetch(`${server.url}/api/notifications/${id}/submissions`, {
    headers: { authorization: `Bearer ${server.askerToken}` },
  });
  assert.equal(resp.status, 200);
  const { items } = await resp.json();
  assert.equal(items.length, 1);
  assert.deepEqual(items[0].value, { rating: 4 });
  assert.equal(items[0].submitted_by, "reviewer-e2e");
});
