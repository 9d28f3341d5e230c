// The tray and close-to-tray, in the real app under Xvfb: tests/e2e/desktopProbe.mjs plays the
// desktop's panel (the tray icon registers with it over D-Bus and it reads the icon's menu and
// badge) and the window manager (× and whether the window is on screen). The count comes from a
// real `inbox serve`, changed with `inbox ask` and answers given in the window.

import assert from "node:assert/strict";
import { after, test } from "node:test";
import { windowOnServer } from "./fixture.mjs";
import { DesktopProbe } from "./desktopProbe.mjs";
import { literal } from "./webdriver.mjs";

const TITLE = "Interactions Inbox";
const PANE = "//main[@aria-label='Open question']";
const row = (prompt) => `//*[@role='option'][contains(., ${literal(prompt)})]`;
const paneButton = (label) => `${PANE}//button[starts-with(normalize-space(.), ${literal(label)})]`;

let probe;
const asked = [];

const e2e = windowOnServer("tray", {
  beforeApp: async (server) => {
    asked.push(await server.ask("Tray: first waiting question?", "--format", "confirm"));
    asked.push(await server.ask("Tray: second waiting question?", "--format", "confirm"));
    // The panel is up before the app, as on a desktop: the icon registers when the app starts.
    probe = await DesktopProbe.start();
  },
});

after(async () => {
  await probe?.stop();
  for (const a of asked) a.child.kill();
});

const countLine = async () => (await probe.menu()).find((e) => e.enabled === false && /waiting/.test(e.label ?? ""))?.label;

async function trayShows(pending) {
  const label = pending === 1 ? "1 question waiting" : `${pending} questions waiting`;
  await probe.until(`the tray menu to say "${label}"`, countLine, (l) => l === label);
  await probe.until(`the tray icon's badge to show ${pending}`, () => probe.badge(), (n) => n === pending);
}

test("the tray icon registers with the panel and shows the pending count in its badge and menu", async () => {
  assert.ok(probe.registered, "the app's tray icon never registered with the StatusNotifierWatcher");
  await trayShows(2);
  const labels = (await probe.menu()).filter((e) => e.type !== "separator").map((e) => e.label);
  assert.deepEqual(labels, ["Open inbox", "2 questions waiting", "Do not disturb", "Quit"]);
});

test("× hides the window to the tray; the count follows while hidden; Open inbox brings it back", async () => {
  assert.deepEqual(await probe.window(TITLE), { found: 1, viewable: true });
  assert.equal(await probe.close(TITLE), 1);
  await probe.until("the window to leave the screen", () => probe.window(TITLE), (w) => w.found === 1 && !w.viewable);

  // Still running, still in sync: a question asked while the window is hidden raises the count.
  asked.push(await e2e.server.ask("Tray: asked while the window was hidden?", "--format", "confirm"));
  await trayShows(3);
  assert.equal((await probe.window(TITLE)).viewable, false, "a new question must not pop the window up");

  await probe.click("Open inbox");
  await probe.until("the window to come back", () => probe.window(TITLE), (w) => w.viewable);
  await e2e.app.clickOn(row("Tray: asked while the window was hidden?"));
  await e2e.app.waitForElement(`${PANE}[contains(., 'Tray: asked while the window was hidden?')]`);
  await e2e.app.clickOn(paneButton("Yes"));
  const result = await asked[2].done;
  assert.equal(result.code, 0, result.stderr);
  await trayShows(2);
});

test("Quit in the tray menu ends the app", async () => {
  await probe.click("Quit");
  await probe.until("the window to be gone", () => probe.window(TITLE), (w) => w.found === 0);
  e2e.app = null;
});
