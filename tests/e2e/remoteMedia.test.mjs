// Remote media has one owner, the app's Rust side: "Always from <sender>" in the window is kept
// in settings.json by Rust and survives a restart of the app — after it the window loads the
// sender's remote media without asking again, Settings lists the sender, and revoking it there
// brings the question back to asking. The app runs on a data dir of its own, where it keeps
// settings.json then; HOME and the XDG dirs point into a scratch dir.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { InboxServer, reviewerApp, saveScreenshot, scratch, startDriver } from "./harness.mjs";
import { sleep } from "./webdriver.mjs";

const server = new InboxServer();
const home = scratch("inbox-e2e-remote-");
let settingsFile;
const ASKER = "e2e-bot";
const CHOICE = "//div[contains(@class,'remote-choice')]";
const ALWAYS = `${CHOICE}//button[normalize-space(.)='Always from ${ASKER}']`;
const SETTINGS = "//section[@aria-label='Settings']";
const ALLOWED_LIST = `${SETTINGS}//ul[@aria-label='Senders allowed to show remote media']`;
let driver;
let app;

before(async () => {
  await server.start();
  const appEnv = reviewerApp(server, "remote");
  settingsFile = path.join(appEnv.INBOX_DESKTOP_DATA_DIR, "settings.json");
  driver = await startDriver({
    ...appEnv,
    HOME: home,
    XDG_DATA_HOME: path.join(home, ".local/share"),
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
  });
  app = await driver.session();
  // An image on a public https host: nothing is fetched until the reviewer allows it (and this
  // machine has no route there, so the window shows the load failing — that is fine here).
  const media = JSON.stringify({ kind: "image", url: "https://images.example.com/diagram.png", caption: "the diagram" });
  await server.ask("Does the diagram match the plan?", "--format", "confirm", "--media", media);
});

after(async () => {
  await app?.quit().catch(() => {});
  await driver?.stop();
  await server.stop();
});

async function openQuestion() {
  await app.clickOn(`//*[@role='option'][contains(., 'Does the diagram match the plan?')]`, 30000);
  await app.waitForElement("//*[@aria-label='Attachments']", 15000);
}

async function waitUntil(what, probe, ms = 10000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await sleep(100);
  }
  throw new Error(`timed out: ${what}`);
}

const choiceShown = async () => (await app.findAll(CHOICE)).length > 0;

test("an allowance for a sender's remote media is kept by the app across a restart, and revoked from Settings", async () => {
  await openQuestion();
  await app.waitForElement(ALWAYS, 10000);
  await app.clickOn(ALWAYS);
  await waitUntil("the choice to go once allowed", async () => !(await choiceShown()));
  await waitUntil("the allowance in settings.json", () => {
    if (!fs.existsSync(settingsFile)) return false;
    const saved = JSON.parse(fs.readFileSync(settingsFile, "utf8"));
    return Object.values(saved.remote_image_senders ?? {}).some((senders) => senders.includes(ASKER));
  });

  // Restart the app on the same data: the question loads without asking again.
  await app.quit().catch(() => {});
  await sleep(1000);
  app = await driver.session();
  await openQuestion();
  // Give the window time to draw the choice if it were going to.
  await sleep(1500);
  assert.equal(await choiceShown(), false, "after a restart the window asked again for an allowed sender");
  saveScreenshot("remote-media-allowed", await app.screenshot());

  // Settings lists the sender; revoking there brings the choice back for the question.
  await app.clickOn("//button[normalize-space(.)='Settings']", 15000);
  await app.waitForElement(`${ALLOWED_LIST}//li[contains(., '${ASKER}')]`, 10000);
  await app.clickOn(`${SETTINGS}//button[@aria-label='Revoke ${ASKER}']`);
  await waitUntil("the sender to leave the list", async () => (await app.findAll(`${ALLOWED_LIST}//li[contains(., '${ASKER}')]`)).length === 0);
  const saved = JSON.parse(fs.readFileSync(settingsFile, "utf8"));
  assert.ok(!Object.values(saved.remote_image_senders ?? {}).some((senders) => senders.includes(ASKER)));
  await app.clickOn(`${SETTINGS}//button[normalize-space(.)='Close']`, 10000);
  await openQuestion();
  await app.waitForElement(ALWAYS, 10000);
});
