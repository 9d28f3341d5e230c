// `inbox://open/<id>` links in the real app. `inbox ask` prints the link; the app started for it
// (as the desktop entry starts it for a clicked link) opens on that question rather than the
// newest. A running app handed a link by a second start is covered by the installed-package
// test (tests/deb/), where the single-instance hand-over is on; here the app has its own data dir
// and is its own instance by design.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { InboxServer, reviewerApp, startDriver } from "./harness.mjs";
import { literal } from "./webdriver.mjs";

const PANE = "//main[@aria-label='Open question']";
const row = (prompt) => `//*[@role='option'][contains(., ${literal(prompt)})]`;

let server;
let driver;
let app;
const asked = [];

before(async () => {
  server = new InboxServer();
  await server.start();
  driver = await startDriver(reviewerApp(server, "links"));
});

after(async () => {
  await app?.quit().catch(() => {});
  await driver?.stop();
  for (const a of asked) a.child.kill();
  await server?.stop();
});

test("the app started for the link `inbox ask` printed opens on that question, not the newest", async () => {
  const linked = await server.ask("Links: the one the link names?", "--format", "confirm");
  asked.push(linked);
  // The link, as the asker printed it.
  const deadline = Date.now() + 10000;
  let link;
  while (!link && Date.now() < deadline) {
    link = /open it in the app: (inbox:\/\/open\/\S+)/.exec(linked.stderrSoFar())?.[1];
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(link, `inbox://open/${linked.id}`);
  // A newer question: without the link, the window would open this one first.
  asked.push(await server.ask("Links: a newer one?", "--format", "confirm"));

  app = await driver.session([link]);
  await app.waitForElement(row("Links: a newer one?"), 30000);
  await app.waitForElement(`${PANE}[contains(., 'Links: the one the link names?')]`);
});
