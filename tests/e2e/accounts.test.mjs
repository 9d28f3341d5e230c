// "Add account" in the real window: the reviewer adds a second server with its token; the app
// keeps the token in the Secret Service (the throwaway gnome-keyring the suite unlocks on the
// session bus), never in its own files; after a restart of the app the account comes back
// online with that token and shows a question asked while the app was closed.
// HOME and the XDG dirs point into a scratch dir; the app runs in local mode on its own port.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { freshUserApp, InboxServer, saveScreenshot, startDriver } from "./harness.mjs";
import { literal, sleep } from "./webdriver.mjs";

const { home, env } = freshUserApp("accounts");
const NAV = "//nav[@aria-label='Views and accounts']";
const LABEL = "E2E remote";
const account = `${NAV}//li[.//span[contains(@class, 'account-label')][normalize-space(.)=${literal(LABEL)}]]`;
const row = (prompt) => `//*[@role='option'][contains(., ${literal(prompt)})]`;
// The URL field starts as "https://"; eight Backspaces empty it (a select-all chord typed
// through WebKitWebDriver swallowed the text that followed it).
const EMPTY_URL = "\uE003".repeat("https://".length);

let server;
let driver;
let app;

before(async () => {
  server = new InboxServer();
  await server.start();
  driver = await startDriver(env);
  app = await driver.session();
});

after(async () => {
  await app?.quit().catch(() => {});
  await driver?.stop();
  await server?.stop();
});

/** Every file under `dir` whose bytes contain `needle`. */
function filesHolding(dir, needle) {
  const found = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    try {
      if (fs.readFileSync(file).includes(needle)) found.push(file);
    } catch {
      // a socket or a file that went away
    }
  }
  return found;
}

test("an added account keeps its token in the keyring and comes back online after a restart", async () => {
  const form = "//form[contains(@class, 'add-account-form')]";
  // One click: the sidebar draws Add account only with the first snapshot, so nothing moves
  // under it as the window starts (a click once landed on the account list that pushed it down).
  await app.clickOn(`${NAV}//button[contains(., 'Add account')]`);
  await app.waitForElement(form);
  const input = (label) => `${form}//label[contains(., ${literal(label)})]//input`;
  await app.type(await app.waitForElement(input("Server URL")), EMPTY_URL + server.url);
  await app.type(await app.find(input("Name")), LABEL);
  await app.type(await app.find(input("Reviewer token")), server.reviewerToken);
  await app.clickOn(`${form}//button[@type='submit']`);
  await app.waitForElement(`${account}//span[@aria-label='Online']`, 30000);

  const first = await server.ask("Asked of the added account?", "--format", "confirm");
  await app.waitForElement(row("Asked of the added account?"), 30000);
  first.child.kill("SIGKILL");

  // Quit, ask while the app is closed, start again with nothing in the environment.
  await app.quit().catch(() => {});
  const whileClosed = await server.ask("Asked while the app was closed?", "--format", "confirm");
  await sleep(500);
  app = await driver.session();
  await app.waitForElement(`${account}//span[@aria-label='Online']`, 60000);
  await app.waitForElement(row("Asked while the app was closed?"), 30000);
  saveScreenshot("accounts", await app.screenshot());
  whileClosed.child.kill("SIGKILL");

  // The token lives in the Secret Service only: no file the app wrote holds it.
  assert.deepEqual(filesHolding(home, server.reviewerToken), []);
});
