// The real app, end to end: a window driven through tauri-driver + WebKitWebDriver under Xvfb,
// following a real `inbox serve` on loopback. Questions are asked with `inbox ask`, which blocks
// until answered and prints the answer — so each answer given in the window is checked where it
// matters: at the asker.

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { ONLINE, STATUS_BAR, windowOnServer } from "./fixture.mjs";
import { saveScreenshot, secret } from "./harness.mjs";
import { literal, sleep } from "./webdriver.mjs";

const REPO = path.resolve(import.meta.dirname, "../..");
const CHART_PNG = path.join(REPO, "crates/inbox-client/assets/build-times.png");

const PANE = "//main[@aria-label='Open question']";
const row = (prompt) => `//*[@role='option'][contains(., ${literal(prompt)})]`;
const paneButton = (label) => `${PANE}//button[starts-with(normalize-space(.), ${literal(label)})]`;

const e2e = windowOnServer("app");

/** Wait for the question's row, open it, and wait for the open pane to show it. */
async function open(prompt) {
  await e2e.app.clickOn(row(prompt));
  await e2e.app.waitForElement(`${PANE}[contains(., ${literal(prompt)})]`);
}

async function answeredWith(asked) {
  const result = await Promise.race([
    asked.done,
    sleep(20000).then(() => ({ code: "timeout", stdout: "", stderr: "" })),
  ]);
  assert.equal(result.code, 0, `inbox ask exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

test("a question asked with `inbox ask` appears in the window", async () => {
  const asked = await e2e.server.ask("Is the e2e window alive?", "--format", "confirm");
  await e2e.app.waitForElement(row("Is the e2e window alive?"));
  await open("Is the e2e window alive?");
  await e2e.app.clickOn(paneButton("Yes"));
  assert.equal(await answeredWith(asked), true);
});

test("confirm: No from the window reaches the asker", async () => {
  const asked = await e2e.server.ask("Deploy build 42 to production?", "--format", "confirm");
  await open("Deploy build 42 to production?");
  await e2e.app.clickOn(paneButton("No"));
  assert.equal(await answeredWith(asked), false);
});

test("select: the chosen option's value reaches the asker", async () => {
  const asked = await e2e.server.ask(
    "Which region for the new database?",
    "--format", "select",
    "-o", "eu-west-1=Europe (Ireland)",
    "-o", "us-east-1=US East (Virginia)",
  );
  await open("Which region for the new database?");
  await e2e.app.clickOn(`${PANE}//*[@aria-label='Choose one']//button[contains(., 'Europe (Ireland)')]`);
  assert.equal(await answeredWith(asked), "eu-west-1");
});

test("text: typed text reaches the asker", async () => {
  const asked = await e2e.server.ask("What should the headline say?", "--format", "text", "-o", "Faster builds");
  await open("What should the headline say?");
  const box = await e2e.app.find(`${PANE}//textarea`);
  await e2e.app.type(box, secret("Shipped from the e2e window"));
  await e2e.app.clickOn(paneButton("Send"));
  assert.equal(await answeredWith(asked), "Shipped from the e2e window");
});

test("text: a tap on a suggested reply sends its text, which the asker prints", async () => {
  const asked = await e2e.server.ask(
    "The nightly failed on step 3. What now?",
    "--format", "text",
    "--option", "Retry once, then file an issue.",
    "--option", "Skip tonight.",
  );
  await open("The nightly failed on step 3. What now?");
  const chip = `${PANE}//*[@aria-label='Suggested replies']//button[@class='chip'][contains(., 'Skip tonight.')]`;
  await e2e.app.waitForElement(chip);
  saveScreenshot("text-suggested-replies", await e2e.app.screenshot());
  // One tap: no box to fill, no Send to press.
  await e2e.app.clickOn(chip);
  assert.equal(await answeredWith(asked), "Skip tonight.");
  // The window shows the card answered with that text.
  await e2e.app.clickOn("//nav[@aria-label='Views and accounts']//button[normalize-space(.)='Answered']");
  await open("The nightly failed on step 3. What now?");
  await e2e.app.waitForElement(`${PANE}//section[contains(@class, 'resolution')][contains(., 'Skip tonight.')]`);
  await e2e.app.clickOn("//nav[@aria-label='Views and accounts']//button[normalize-space(.)='Inbox']");
});

test("text: the ✎ of a suggested reply fills the box to edit, then Send delivers the edit", async () => {
  const asked = await e2e.server.ask(
    "Which headline for the release notes?",
    "--format", "text",
    "--option", "Faster builds",
  );
  await open("Which headline for the release notes?");
  await e2e.app.clickOn(`${PANE}//button[@aria-label='Edit “Faster builds” before sending']`);
  const box = await e2e.app.find(`${PANE}//textarea`);
  await e2e.app.type(box, " everywhere");
  await e2e.app.clickOn(paneButton("Send"));
  assert.equal(await answeredWith(asked), "Faster builds everywhere");
});

test("form: two steps, review, submit — the typed object reaches the asker", async () => {
  const schema = {
    type: "object",
    required: ["name", "count"],
    properties: {
      name: { type: "string", title: "Release name", minLength: 1 },
      count: { type: "integer", title: "Instances", minimum: 1 },
      notify: { type: "boolean", title: "Notify customers" },
    },
  };
  const pages = [
    { title: "Basics", fields: ["name", "count"] },
    { title: "Announce", fields: ["notify"] },
  ];
  const asked = await e2e.server.ask(
    "Fill in the release form for build 43.",
    "--format", "form",
    "--schema", JSON.stringify(schema),
    "--values", JSON.stringify({ count: 3 }),
    "--pages", JSON.stringify(pages),
  );
  await open("Fill in the release form for build 43.");
  await e2e.app.waitForElement(`${PANE}//*[contains(., 'Step 1 of 2')]`);
  saveScreenshot("form", await e2e.app.screenshot());
  const name = await e2e.app.find(`${PANE}//input[@id=${PANE}//label[contains(., 'Release name')]/@for]`);
  await e2e.app.type(name, "Build 43");
  await e2e.app.clickOn(`${PANE}//button[normalize-space(.)='Next']`);
  await e2e.app.waitForElement(`${PANE}//*[contains(., 'Step 2 of 2')]`);
  await e2e.app.clickOn(`${PANE}//button[normalize-space(.)='Review']`);
  await e2e.app.waitForElement(`${PANE}//*[contains(., 'Review your answer')]`);
  await e2e.app.clickOn(`${PANE}//button[normalize-space(.)='Submit']`);
  const value = await answeredWith(asked);
  assert.equal(value.name, "Build 43");
  assert.equal(value.count, 3, "the prefilled value is kept");
});

test("external: Open in browser waits, and the callback's payload reaches the asker", async () => {
  const asked = await e2e.server.ask(
    "Sign the change request.",
    "--format", "external",
    "--link", "https://sign.example.com/envelope?cb={callback_url}",
  );
  await open("Sign the change request.");
  await e2e.app.clickOn(paneButton("Open in browser"));
  await e2e.app.waitForElement(`${PANE}//*[@role='status'][contains(., 'Waiting for')]`);
  // The outside system delivers the answer through the public callback door.
  const { link } = await e2e.server.get(asked.id);
  const callback = new URL(link).searchParams.get("cb");
  assert.match(callback, /\/api\/interactions\/callback\//);
  const resp = await fetch(callback, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ signed: true, envelope: "e2e-1" }),
  });
  assert.ok(resp.ok, `callback answered ${resp.status}`);
  assert.deepEqual(await answeredWith(asked), { signed: true, envelope: "e2e-1" });
});

test("decline: from the window, with a reason, the blocked `inbox ask` exits 10 and prints who and why", async () => {
  const asked = await e2e.server.ask("Rotate the signing key tonight?", "--format", "confirm");
  await open("Rotate the signing key tonight?");
  await e2e.app.clickOn(paneButton("Decline"));
  await e2e.app.type(await e2e.app.find(`${PANE}//input[@id=${PANE}//label[contains(., 'Reason')]/@for]`), "not during the freeze");
  await e2e.app.clickOn(paneButton("Decline question"));
  const result = await Promise.race([
    asked.done,
    sleep(20000).then(() => ({ code: "timeout", stdout: "", stderr: "" })),
  ]);
  assert.equal(result.code, 10, `inbox ask exited ${result.code}: ${result.stderr}`);
  assert.match(result.stderr, /reviewer-e2e/);
  assert.match(result.stderr, /not during the freeze/);
  const ia = await e2e.server.get(asked.id);
  assert.equal(ia.status, "declined");
  await e2e.app.waitFor("the row to leave the inbox", async () => (await e2e.app.findAll(row("Rotate the signing key tonight?"))).length === 0);
});

test("a question answered elsewhere converges in the window", async () => {
  const asked = await e2e.server.ask("Purge the CDN cache for /docs?", "--format", "confirm");
  await open("Purge the CDN cache for /docs?");
  await e2e.server.reviewer("answer", asked.id, "true");
  assert.equal(await answeredWith(asked), true);
  // It leaves the pending list, and the Answered view shows it with the answer's author.
  await e2e.app.waitFor("the row to leave the inbox", async () => (await e2e.app.findAll(row("Purge the CDN cache for /docs?"))).length === 0);
  await e2e.app.clickOn("//nav[@aria-label='Views and accounts']//button[normalize-space(.)='Answered']");
  await open("Purge the CDN cache for /docs?");
  await e2e.app.waitForElement(`${PANE}//section[contains(@class, 'resolution')][contains(., 'reviewer-e2e')]`);
  assert.equal((await e2e.app.findAll(paneButton("Yes"))).length, 0, "no answer controls on an answered question");
  await e2e.app.clickOn("//nav[@aria-label='Views and accounts']//button[normalize-space(.)='Inbox']");
});

test("media: an image question renders its picture (screenshots of the inbox and the media)", async () => {
  await e2e.server.ask("Does the build-time chart look right?", "--format", "confirm", "--image", CHART_PNG);
  await e2e.server.ask("Rotate the staging database password now?", "--format", "confirm", "--timeout", "300");
  await e2e.server.ask("Which instance size for the reporting DB?", "--format", "select", "-o", "small=Small", "-o", "large=Large");
  await e2e.server.ask("The nightly failed on step 3.\nRetry, or file an issue?", "--format", "text", "-o", "Retry once");
  await open("Does the build-time chart look right?");
  // Same-origin media is loaded by the app with the account token and handed over as data:.
  await e2e.app.waitForElement(`${PANE}//img[starts-with(@src, 'data:image/png')]`);
  saveScreenshot("media", await e2e.app.screenshot());
  await open("Which instance size for the reporting DB?");
  saveScreenshot("inbox", await e2e.app.screenshot());
});

test("the server stops and restarts: reconnecting, then caught up with nothing lost", async () => {
  const before = await e2e.server.ask("Answer me while the server is down?", "--format", "confirm");
  await open("Answer me while the server is down?");
  await e2e.server.stop();
  await e2e.app.waitForElement(`${STATUS_BAR}[contains(., 'Reconnecting')]`, 30000);
  saveScreenshot("reconnecting", await e2e.app.screenshot());
  // Answered while the server is away: kept in the outbox and shown as queued.
  await e2e.app.clickOn(paneButton("Yes"));
  await e2e.app.waitForElement(`${STATUS_BAR}[contains(., 'queued')]`);
  await e2e.server.start();
  const during = await e2e.server.ask("Asked right after the restart?", "--format", "confirm");
  await e2e.app.waitForElement(ONLINE, 60000);
  await e2e.app.waitForElement(row("Asked right after the restart?"), 30000);
  const delivered = await e2e.app.waitFor("the queued answer to reach the server", async () => {
    const ia = await e2e.server.get(before.id);
    return ia.status === "answered" ? ia : null;
  }, 30000);
  assert.equal(delivered.answer.value, true);
  during.child.kill("SIGKILL");
  before.child.kill("SIGKILL");
});

test("a decline given while the server is down is queued, then delivered after the restart", async () => {
  const asked = await e2e.server.ask("Decline me while the server is down?", "--format", "confirm");
  await open("Decline me while the server is down?");
  asked.child.kill("SIGKILL");
  await e2e.server.stop();
  await e2e.app.waitForElement(`${STATUS_BAR}[contains(., 'Reconnecting')]`, 30000);
  await e2e.app.clickOn(paneButton("Decline"));
  await e2e.app.clickOn(paneButton("Decline question"));
  await e2e.app.waitForElement(`${STATUS_BAR}[contains(., 'queued')]`);
  await e2e.server.start();
  await e2e.app.waitForElement(ONLINE, 60000);
  const declined = await e2e.app.waitFor("the queued decline to reach the server", async () => {
    const ia = await e2e.server.get(asked.id);
    return ia.status === "declined" ? ia : null;
  }, 30000);
  assert.equal(declined.answer.answered_by, "reviewer-e2e");
});
