// Notifications in the real window: `inbox notify` returns at once (nothing waits for it),
// the window shows the notification in its own view, and a form notification submitted from
// the window reaches its asker's submissions door.

import assert from "node:assert/strict";
import { test } from "node:test";
import { windowOnServer } from "./fixture.mjs";
import { saveScreenshot } from "./harness.mjs";
import { literal } from "./webdriver.mjs";

const SIDEBAR_ENTRY = "//nav//button[starts-with(normalize-space(.), 'Notifications')]";
const LIST = "//*[@data-testid='notification-list']";
const PANE = "//main[@aria-label='Open notification']";
const paneButton = (label) => `${PANE}//button[normalize-space(.)=${literal(label)}]`;

const e2e = windowOnServer("notify");

/** `inbox notify …` as the asker: its exit, its output and how long it took. */
async function notify(...args) {
  const sent = await e2e.server.asker("notify", ...args);
  return { ...sent, stdout: sent.stdout.trim() };
}

test("`inbox notify` returns at once and the window shows the notification", async () => {
  const sent = await notify("Nightly backup finished", "--body", "All databases are backed up.");
  assert.equal(sent.code, 0, sent.stderr);
  assert.match(sent.stdout, /^nt_[a-z2-7]+$/);
  // Nobody has looked at it, and the command is already done.
  assert.ok(sent.ms < 5000, `took ${sent.ms} ms`);
  await e2e.app.clickOn(SIDEBAR_ENTRY);
  await e2e.app.waitForElement(`${LIST}//button[contains(., 'Nightly backup finished')]`);
  await e2e.app.waitForElement(`${PANE}[contains(., 'All databases are backed up.')]`);
  saveScreenshot("notification", await e2e.app.screenshot());
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
  await e2e.app.clickOn(SIDEBAR_ENTRY);
  await e2e.app.clickOn(`${LIST}//button[contains(., 'Rate the rollout')]`);
  await e2e.app.waitForElement(`${PANE}[contains(., 'Rate the rollout')]`);
  // A form without pages reviews first, then submits.
  await e2e.app.clickOn(paneButton("Review"));
  await e2e.app.clickOn(paneButton("Submit"));
  await e2e.app.waitForElement(`${PANE}//*[@role='status'][contains(., 'Sent')]`);
  const resp = await fetch(`${e2e.server.url}/api/notifications/${id}/submissions`, {
    headers: { authorization: `Bearer ${e2e.server.askerToken}` },
  });
  assert.equal(resp.status, 200);
  const { items } = await resp.json();
  assert.equal(items.length, 1);
  assert.deepEqual(items[0].value, { rating: 4 });
  assert.equal(items[0].submitted_by, "reviewer-e2e");
});
