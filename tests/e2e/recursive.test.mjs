// One question must never blank the window (issue 19), in the real app: recursive schemas asked
// as forms open to usable controls, the window keeps taking and answering other questions, a
// restart with such a question newest-pending starts on a usable window, and a form whose
// `pattern` backtracks catastrophically leaves the window responsive.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { ONLINE, windowOnServer } from "./fixture.mjs";
import { saveScreenshot } from "./harness.mjs";
import { literal, sleep } from "./webdriver.mjs";

const REPO = path.resolve(import.meta.dirname, "../..");
// The same recursive schemas the UI's own tests use.
const CASES = JSON.parse(fs.readFileSync(path.join(REPO, "ui/src/test/schemas/recursive.json"), "utf8"));

const PANE = "//main[@aria-label='Open question']";
const LIST = "//*[@role='listbox'][@aria-label='Questions']";
const row = (prompt) => `//*[@role='option'][contains(., ${literal(prompt)})]`;
const paneButton = (label) => `${PANE}//button[starts-with(normalize-space(.), ${literal(label)})]`;
const inputLabelled = (label) => `${PANE}//input[@id=${PANE}//label[contains(., ${literal(label)})]/@for]`;
// Anything a reviewer can act on inside the answer controls: a field, a choice, an add button.
const CONTROL = `${PANE}//*[contains(@class, 'controls')]//*[self::input or self::textarea or self::select or self::button[not(@disabled)]]`;

const e2e = windowOnServer("recursive");

/** The script engine answers within `ms` (a hung window does not). */
async function responsive(ms = 3000) {
  const started = Date.now();
  const answer = await Promise.race([e2e.app.execute("return 6 * 7"), sleep(ms).then(() => "timeout")]);
  assert.equal(answer, 42, `the window did not answer a script within ${ms} ms`);
  return Date.now() - started;
}

/** Not blank: the sidebar, the list, the status bar and the open pane are all drawn, and it answers. */
async function assertAlive(what) {
  await responsive();
  for (const [name, xpath] of [
    ["sidebar", "//nav[@aria-label='Views and accounts']"],
    ["list", LIST],
    ["status bar", ONLINE],
    ["open pane", PANE],
  ]) {
    assert.ok((await e2e.app.findAll(xpath)).length > 0, `${what}: the ${name} is gone`);
  }
}

async function open(prompt) {
  await e2e.app.clickOn(row(prompt));
  await e2e.app.waitForElement(`${PANE}[contains(., ${literal(prompt)})]`);
}

async function answeredWith(asked) {
  const result = await Promise.race([asked.done, sleep(20000).then(() => ({ code: "timeout", stdout: "", stderr: "" }))]);
  assert.equal(result.code, 0, `inbox ask exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

const askForm = (c, ...flags) => e2e.server.ask(c.prompt, "--format", "form", "--schema", JSON.stringify(c.schema), ...flags);

// A hung window would hang a WebDriver command too: each test has a deadline, so it fails instead.
test("recursive schemas asked as forms each open to usable controls", { timeout: 240_000 }, async () => {
  const names = ["root-self-reference", "mutual-defs", "items-parent", "recursive-oneof"];
  const asked = {};
  for (const name of names) asked[name] = await askForm(CASES[name]);
  for (const name of names) {
    await open(CASES[name].prompt);
    await e2e.app.waitForElement(CONTROL, 15000);
    assert.equal((await e2e.app.findAll(`${PANE}//*[contains(., 'could not be displayed')]`)).length, 0, `${name}: the fallback showed`);
    await assertAlive(name);
    saveScreenshot(`recursive-${name}`, await e2e.app.screenshot());
  }

  // The root self-reference, answered through the window two levels deep.
  await open(CASES["root-self-reference"].prompt);
  await e2e.app.type(await e2e.app.find(inputLabelled("Team name")), "Platform");
  await e2e.app.clickOn(paneButton("+ Add nested Parent team"));
  await e2e.app.waitFor("the nested level", async () => (await e2e.app.findAll(`${PANE}//label[contains(., 'Team name')]`)).length === 2);
  const nested = (await e2e.app.findAll(`${PANE}//input[@id=${PANE}//label[contains(., 'Team name')]/@for]`))[1];
  await e2e.app.type(nested, "Engineering");
  await e2e.app.clickOn(`${PANE}//button[normalize-space(.)='Review']`);
  await e2e.app.waitForElement(`${PANE}//*[contains(., 'Review your answer')]`);
  await e2e.app.clickOn(`${PANE}//button[normalize-space(.)='Submit']`);
  assert.deepEqual(await answeredWith(asked["root-self-reference"]), { name: "Platform", parent: { name: "Engineering" } });

  // Items that refer to their parent: add a child entry; it opens as a nested Menu entry.
  await open(CASES["items-parent"].prompt);
  await e2e.app.type(await e2e.app.find(inputLabelled("Caption")), "File");
  await e2e.app.clickOn(`${PANE}//button[contains(., '+ Add')][not(contains(., 'nested'))]`);
  await e2e.app.waitFor("the child entry", async () => (await e2e.app.findAll(`${PANE}//label[contains(., 'Caption')]`)).length === 2);
  await e2e.app.type((await e2e.app.findAll(`${PANE}//input[@id=${PANE}//label[contains(., 'Caption')]/@for]`))[1], "Open");
  await e2e.app.clickOn(`${PANE}//button[normalize-space(.)='Review']`);
  await e2e.app.clickOn(`${PANE}//button[normalize-space(.)='Submit']`);
  assert.deepEqual(await answeredWith(asked["items-parent"]), { menu: { caption: "File", children: [{ caption: "Open" }] } });

  // Mutual references: decline it from the window.
  await open(CASES["mutual-defs"].prompt);
  await e2e.app.clickOn(paneButton("Decline"));
  await e2e.app.clickOn(paneButton("Decline question"));
  await e2e.app.waitFor("the decline to reach the server", async () => (await e2e.server.get(asked["mutual-defs"].id)).status === "declined");

  // Afterwards another question opens and is answered, and a new ask appears.
  const confirm = await e2e.server.ask("Still working after the recursive forms?", "--format", "confirm");
  await open("Still working after the recursive forms?");
  await e2e.app.clickOn(paneButton("Yes"));
  assert.equal(await answeredWith(confirm), true);
  await e2e.server.ask("A new ask after all that?", "--format", "confirm");
  await e2e.app.waitForElement(row("A new ask after all that?"), 15000);
  await assertAlive("after answering");
  // The recursive oneOf stays pending for the restart below.
});

test("a restart with a recursive form newest-pending starts on a usable window", { timeout: 120_000 }, async () => {
  // Newest pending: a recursive oneOf asked now.
  const c = CASES["recursive-oneof"];
  const prompt = `${c.prompt} (asked last)`;
  await e2e.server.ask(prompt, "--format", "form", "--schema", JSON.stringify(c.schema), "--values", JSON.stringify({ when: { note: "three", when: "x" } }));
  await e2e.app.waitForElement(row(prompt));
  await e2e.app.quit();
  e2e.app = await e2e.driver.session();
  await e2e.app.waitForElement(ONLINE, 30000);
  await e2e.app.waitForElement(row(prompt), 30000);
  // It opens by itself (it is the newest) and draws controls; the window is whole.
  await e2e.app.waitForElement(`${PANE}[contains(., ${literal(prompt)})]`, 15000);
  await e2e.app.waitForElement(CONTROL, 15000);
  await assertAlive("after the restart");
  saveScreenshot("recursive-after-restart", await e2e.app.screenshot());
  // The prefill's nested template opened as deep as its data.
  assert.ok((await e2e.app.findAll(`${PANE}//label[contains(., 'Note')]`)).length >= 2, "the nested template in the prefill is drawn");
});

test("a question the window died drawing is not opened by itself on the next start", { timeout: 120_000 }, async () => {
  // What a renderer killed mid-draw leaves in the webview's storage: the question it was drawing.
  const prompt = `${CASES["recursive-oneof"].prompt} (asked last)`;
  const key = await e2e.app.execute(
    "const r = [...document.querySelectorAll('[role=option]')].find((o) => o.textContent.includes(arguments[0])); localStorage.setItem('inbox.renderOpening', r.dataset.key); return r.dataset.key;",
    [prompt],
  );
  assert.match(key, /\/ia_/);
  await e2e.app.quit();
  e2e.app = await e2e.driver.session();
  await e2e.app.waitForElement(ONLINE, 30000);
  // The list marks it, and the window opened the next question instead of it.
  await e2e.app.waitForElement(`${row(prompt)}[contains(., 'Could not display')]`, 30000);
  await e2e.app.waitForElement(`${PANE}//article`, 15000);
  assert.equal((await e2e.app.findAll(`${PANE}[contains(., ${literal(prompt)})]`)).length, 0, "the marked question opened by itself");
  await assertAlive("after a start that skipped the marked question");
  // The reviewer can still open it on purpose.
  await open(prompt);
  await e2e.app.waitForElement(CONTROL, 15000);
});

test("a form whose pattern backtracks catastrophically leaves the window responsive", { timeout: 120_000 }, async () => {
  // WebKit's regex engine gives up on one catastrophic match after about 1.4 s; eight alternatives
  // of the same pattern make every check of the field a freeze of over ten seconds.
  const bomb = { pattern: "^(a+)+$" };
  const schema = {
    type: "object",
    required: ["name"],
    properties: { name: { type: "string", title: "Name", anyOf: Array.from({ length: 8 }, () => bomb) } },
  };
  // The server checks a prefill at ask time, so the prefill fits; the reviewer then adds the "b"
  // that makes a backtracking engine try every way of splitting the a's.
  const prefill = "a".repeat(40);
  const asked = await e2e.server.ask("Check the name against a hostile pattern.", "--format", "form", "--schema", JSON.stringify(schema), "--values", JSON.stringify({ name: prefill }));
  await open("Check the name against a hostile pattern.");
  // A frozen window holds every WebDriver command until it thaws, so the time taken is the measure.
  const started = Date.now();
  await e2e.app.type(await e2e.app.find(`(${PANE}//form//input)[1]`), "b");
  await e2e.app.clickOn(`${PANE}//button[normalize-space(.)='Review']`);
  await responsive();
  const took = Date.now() - started;
  assert.ok(took < 5000, `typing one character and asking for the review took ${took} ms`);
  await e2e.app.waitForElement(`${PANE}//*[contains(., 'Review your answer')]`, 5000);
  await e2e.app.clickOn(`${PANE}//button[normalize-space(.)='Submit']`);
  // The server is the authority on the pattern: it refuses, and the window shows it.
  await e2e.app.waitForElement(`${PANE}//*[contains(@class, 'error-detail') or contains(@class, 'form-error') or contains(@class, 'rejected')]`, 15000);
  await assertAlive("after the hostile pattern");
  assert.equal((await e2e.server.get(asked.id)).status, "pending");
  asked.child.kill("SIGKILL");
});
