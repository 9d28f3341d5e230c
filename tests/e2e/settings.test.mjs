// Settings in the real window: changes made in the Settings view survive a restart of the app
// (they are kept by Rust in settings.json of the app's config dir), and "Start at login"
// writes and removes the XDG autostart entry. HOME and the XDG dirs point into a scratch dir.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { freshUserApp, saveScreenshot, startDriver } from "./harness.mjs";
import { sleep } from "./webdriver.mjs";

const { home, env } = freshUserApp("settings");
const autostartEntry = path.join(home, ".config/autostart/inbox-desktop.desktop");
const settingsFile = path.join(home, ".config/dev.interactions.inbox/settings.json");
const VIEW = "//section[@aria-label='Settings']";
let driver;
let app;

before(async () => {
  driver = await startDriver(env);
  app = await driver.session();
});

after(async () => {
  await app?.quit().catch(() => {});
  await driver?.stop();
});

const box = (label) => `${VIEW}//label[contains(., ${JSON.stringify(label)})]/input`;
// The box is looked up in the page by the same XPath (element references passed as script
// arguments came back as plain objects here, so `.checked` read as null). A missing box is an
// error, never a false.
const checked = async (xpath) => {
  await app.waitForElement(xpath);
  return app.execute(
    "const box = document.evaluate(arguments[0], document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue; if (!box) throw new Error('no such box'); return box.checked;",
    [xpath],
  );
};

async function openSettings() {
  await app.clickOn("//button[normalize-space(.)='Settings']", 30000);
  await app.waitForElement(VIEW);
}

async function waitUntil(what, probe, ms = 10000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await sleep(100);
  }
  throw new Error(`timed out: ${what}`);
}

test("settings made in the window survive a restart; start at login writes and removes the autostart entry", async () => {
  await openSettings();
  assert.equal(await checked(box("Play a sound")), true);
  await app.clickOn(box("Play a sound"));
  await app.clickOn(`${VIEW}//label[contains(., 'Dark')]/input`);
  await waitUntil("the sound setting to be saved", () => fs.existsSync(settingsFile) && JSON.parse(fs.readFileSync(settingsFile, "utf8")).notifications?.sound === false);
  assert.equal(fs.statSync(settingsFile).mode & 0o777, 0o600);

  assert.ok(!fs.existsSync(autostartEntry));
  await app.clickOn(box("Start Interactions Inbox at login"));
  await waitUntil("the autostart entry", () => fs.existsSync(autostartEntry));
  const entry = fs.readFileSync(autostartEntry, "utf8");
  assert.match(entry, /^Exec=.*inbox-desktop/m);
  saveScreenshot("settings", await app.screenshot());

  // Restart the app: the view shows what was saved.
  await app.quit().catch(() => {});
  await sleep(1000);
  app = await driver.session();
  await openSettings();
  await waitUntil("the saved settings to show", async () => (await checked(box("Play a sound"))) === false);
  assert.equal(await checked(`${VIEW}//label[contains(., 'Dark')]/input`), true);
  assert.equal(await app.execute("return document.documentElement.dataset.theme"), "dark");
  // And the window is drawn dark (the palette's dark half, whatever the system prefers).
  assert.equal(await app.execute("return getComputedStyle(document.body).backgroundColor"), "rgb(23, 25, 29)");
  assert.equal(await checked(box("Start Interactions Inbox at login")), true);

  await app.clickOn(box("Start Interactions Inbox at login"));
  await waitUntil("the autostart entry to go", () => !fs.existsSync(autostartEntry));
});
