// The app as installed and started with nothing set: no data dir, no URL, no token — only the
// XDG dirs pointed into a scratch dir so the test owns them. Local mode then writes the
// discovery file, and a bare `inbox ask … --format confirm` (no INBOX_* at all) reaches the
// window; answered there, it exits 0 with `true`. A restart keeps the same URL (external links
// name it).

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { runInbox, saveScreenshot, scratch, startDriver } from "./harness.mjs";
import { sleep } from "./webdriver.mjs";

const PANE = "//main[@aria-label='Open question']";
const home = scratch("inbox-e2e-discovery-");
const xdg = {
  XDG_DATA_HOME: path.join(home, "share"),
  XDG_CONFIG_HOME: path.join(home, "config"),
  XDG_CACHE_HOME: path.join(home, "cache"),
  XDG_STATE_HOME: path.join(home, "state"),
};
const unset = { INBOX_URL: null, INBOX_TOKEN: null, INBOX_DATA_DIR: null, INBOX_DESKTOP_DATA_DIR: null, INBOX_DESKTOP_LOCAL_PORT: null };
const discoveryFile = path.join(xdg.XDG_DATA_HOME, "interactions-inbox", "desktop-server.json");
let driver;
let app;

before(async () => {
  driver = await startDriver({ ...xdg, ...unset });
  app = await driver.session();
});

after(async () => {
  await app?.quit().catch(() => {});
  await driver?.stop();
});

/** `inbox …` with only the XDG dirs: no URL, token or data dir. */
const bareInbox = (...args) => runInbox(args, { ...xdg, ...unset });

/** Wait until the old app is gone (its port refuses), or the new one would find it taken. */
async function portClosed(url) {
  const deadline = Date.now() + 15000;
  while (Date.now() < deadline) {
    try {
      await fetch(`${url}/healthz`);
    } catch {
      return;
    }
    await sleep(100);
  }
  throw new Error(`${url} still answers after the app quit`);
}

async function discovered() {
  const deadline = Date.now() + 30000;
  while (Date.now() < deadline) {
    try {
      return JSON.parse(fs.readFileSync(discoveryFile, "utf8"));
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`no discovery file at ${discoveryFile}`);
}

test("started with nothing set, the app is found by a bare `inbox ask`, answered in the window, and keeps its URL across a restart", async () => {
  const found = await discovered();
  assert.match(found.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(fs.statSync(discoveryFile).mode & 0o777, 0o600);
  assert.ok(!JSON.stringify(found).includes("secret"), "the discovery file names the tokens file, holds no token");

  const hint = await app.text(await app.waitForElement(`${PANE}//pre[contains(@class, 'hint')]`, 30000));
  assert.equal(hint.trim(), 'inbox ask --format confirm "Deploy build 42 to production?"', "the empty state shows the bare command");
  saveScreenshot("discovery-empty", await app.screenshot());

  const asker = bareInbox("ask", "Deploy build 43?", "--format", "confirm");
  await app.clickOn("//*[@role='option'][contains(., 'Deploy build 43?')]", 20000);
  await app.clickOn(`${PANE}//button[starts-with(normalize-space(.), 'Yes')]`);
  const result = await Promise.race([asker.done, sleep(20000).then(() => ({ code: "timeout", stderr: asker.stderr() }))]);
  assert.equal(result.code, 0, `bare inbox ask failed: ${result.stderr}`);
  assert.equal(JSON.parse(result.stdout), true);

  // Restart: the same URL, so links the server handed out before still point at it.
  await app.quit().catch(() => {});
  await portClosed(found.url);
  fs.rmSync(discoveryFile, { force: true });
  app = await driver.session();
  const again = await discovered();
  assert.equal(again.url, found.url);
});
