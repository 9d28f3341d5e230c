// Local mode, end to end: with no account configured the app runs its own server in-process,
// and the empty state shows a command line that asks it a question. That command line, copied
// from the window and run in a shell, must work — and the question it asks must show up.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { after, before, test } from "node:test";
import { INBOX_BIN, saveScreenshot, scratch, startDriver } from "./harness.mjs";
import { sleep } from "./webdriver.mjs";

const PANE = "//main[@aria-label='Open question']";
let driver;
let app;
let dataDir;

before(async () => {
  dataDir = scratch("inbox-e2e-local-");
  // No INBOX_URL/INBOX_TOKEN: nothing is configured, so the app starts in local mode.
  const env = { INBOX_DESKTOP_DATA_DIR: dataDir, INBOX_URL: null, INBOX_TOKEN: null };
  driver = await startDriver(env);
  app = await driver.session();
});

after(async () => {
  await app?.quit().catch(() => {});
  await driver?.stop();
});

test("local mode: the empty state's command line asks the in-process server, and the window answers it", async () => {
  const hintElement = await app.waitForElement(`${PANE}//pre[contains(@class, 'hint')]`, 30000);
  const hint = await app.text(hintElement);
  assert.match(hint, /INBOX_DATA_DIR=/);
  assert.ok(hint.includes(path.join(dataDir, "local-server")), hint);
  assert.doesNotMatch(hint, /"secret"|reviewer/, "the hint carries no token and never the reviewer's");
  saveScreenshot("local-empty", await app.screenshot());

  // Run exactly what the window shows, with `inbox` on the PATH.
  const shell = spawn("bash", ["-c", hint], {
    env: { ...process.env, PATH: `${path.dirname(INBOX_BIN)}:${process.env.PATH}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  shell.stdout.on("data", (d) => (stdout += d));
  shell.stderr.on("data", (d) => (stderr += d));
  const done = once(shell, "exit");

  await app.clickOn("//*[@role='option'][contains(., 'Deploy build 42 to production?')]");
  await app.clickOn(`${PANE}//button[starts-with(normalize-space(.), 'Yes')]`);
  const [code] = await Promise.race([done, sleep(20000).then(() => ["timeout"])]);
  assert.equal(code, 0, `the hint's command failed: ${stderr}`);
  assert.equal(JSON.parse(stdout), true);
});
