// The installed package, as a person who just ran `apt install ./…deb` meets it: the files dpkg
// put in place, then /usr/bin/inbox-desktop started with nothing set but a fresh HOME (no INBOX_*,
// no XDG_* dirs: both the app and the CLI fall back to ~/.local/share), found by a bare
// `/usr/bin/inbox ask … --format confirm`, answered in the window. scripts/deb-test.sh installs
// the package before and removes it after; it sets APP_BIN, INBOX_BIN and DEB_PACKAGE.

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { APP_BIN, INBOX_BIN, saveScreenshot, scratch, startDriver } from "../e2e/harness.mjs";
import { sleep } from "../e2e/webdriver.mjs";

const PACKAGE = process.env.DEB_PACKAGE ?? "interactions-inbox";
const PANE = "//main[@aria-label='Open question']";
const home = scratch("inbox-deb-home-");

/** The environment of a fresh login: this process's, minus every INBOX_* and XDG_*_HOME, HOME new. */
function freshUser() {
  const env = {};
  for (const key of Object.keys(process.env)) {
    if (key.startsWith("INBOX_") || /^XDG_[A-Z]+_HOME$/.test(key)) env[key] = null;
  }
  return { ...env, HOME: home };
}

const discoveryFile = path.join(home, ".local", "share", "interactions-inbox", "desktop-server.json");
let driver;
let app;

before(async () => {
  assert.equal(APP_BIN, "/usr/bin/inbox-desktop", "the test drives the installed app");
  assert.equal(INBOX_BIN, "/usr/bin/inbox", "the test asks with the installed CLI");
  driver = await startDriver(freshUser());
});

after(async () => {
  await app?.quit().catch(() => {});
  await driver?.stop();
});

test("the package holds the app, the inbox CLI, a desktop entry and icons", () => {
  const files = execFileSync("dpkg", ["-L", PACKAGE], { encoding: "utf8" }).split("\n");
  for (const bin of ["/usr/bin/inbox-desktop", "/usr/bin/inbox"]) {
    assert.ok(files.includes(bin), `${PACKAGE} does not install ${bin}`);
    assert.ok(fs.statSync(bin).mode & 0o111, `${bin} is not executable`);
  }
  const version = execFileSync("/usr/bin/inbox", ["--version"], { encoding: "utf8" });
  assert.match(version, /^inbox \d+\.\d+\.\d+/);

  const entries = files.filter((f) => f.startsWith("/usr/share/applications/") && f.endsWith(".desktop"));
  assert.equal(entries.length, 1, `one desktop entry expected, got ${entries.join(", ")}`);
  const entry = fs.readFileSync(entries[0], "utf8");
  assert.match(entry, /^Exec=inbox-desktop\b/m);
  // The entry registers the inbox:// scheme, and is started with the clicked link.
  assert.match(entry, /^MimeType=.*\bx-scheme-handler\/inbox;/m);
  assert.match(entry, /^Exec=inbox-desktop.* %u$/m);
  assert.match(entry, /^Name=Interactions Inbox$/m);
  assert.match(entry, /^Icon=inbox-desktop$/m);
  assert.match(entry, /^Type=Application$/m);

  const icons = files.filter((f) => /^\/usr\/share\/icons\/hicolor\/[^/]+\/apps\/inbox-desktop\.png$/.test(f));
  assert.ok(icons.length >= 3, `icons: ${icons.join(", ")}`);
  for (const icon of icons) {
    assert.deepEqual([...fs.readFileSync(icon).subarray(1, 4)], [0x50, 0x4e, 0x47], `${icon} is not a PNG`);
  }
});

async function discovered() {
  const deadline = Date.now() + 30000;
  while (Date.now() < deadline) {
    try {
      return JSON.parse(fs.readFileSync(discoveryFile, "utf8"));
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`the installed app wrote no discovery file at ${discoveryFile}`);
}

test("the installed app, started with nothing set, answers a bare `inbox ask --format confirm` from its window", async () => {
  app = await driver.session();
  const found = await discovered();
  assert.match(found.url, /^http:\/\/127\.0\.0\.1:\d+$/);

  const env = { ...process.env };
  for (const [key, value] of Object.entries(freshUser())) {
    if (value === null) delete env[key];
    else env[key] = value;
  }
  const asker = spawn(INBOX_BIN, ["ask", "Ship the installed build?", "--format", "confirm"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  asker.stdout.on("data", (d) => (stdout += d));
  asker.stderr.on("data", (d) => (stderr += d));
  const exited = once(asker, "exit").then(([code]) => code);

  await app.clickOn("//*[@role='option'][contains(., 'Ship the installed build?')]", 30000);
  saveScreenshot("deb-installed-question", await app.screenshot());
  await app.clickOn(`${PANE}//button[starts-with(normalize-space(.), 'Yes')]`);
  const code = await Promise.race([exited, sleep(20000).then(() => "timeout")]);
  if (code === "timeout") asker.kill("SIGKILL");
  assert.equal(code, 0, `bare /usr/bin/inbox ask did not exit 0: ${stderr}`);
  assert.equal(stdout.trim(), "true");
});

test("a link `inbox ask` printed, opened while the app runs, opens that question in the running window", async () => {
  const env = { ...process.env };
  for (const [key, value] of Object.entries(freshUser())) {
    if (value === null) delete env[key];
    else env[key] = value;
  }
  const ask = (prompt) => {
    const child = spawn(INBOX_BIN, ["ask", prompt, "--format", "confirm", "--no-wait"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    return once(child, "exit").then(([code]) => ({ code, stderr }));
  };
  const linked = await ask("Linked from a terminal?");
  assert.equal(linked.code, 0, linked.stderr);
  const link = /open it in the app: (inbox:\/\/open\/ia_\S+)/.exec(linked.stderr)?.[1];
  assert.ok(link, `inbox ask printed no link: ${linked.stderr}`);
  // Newer, so it is not what the window shows by itself.
  assert.equal((await ask("Asked after the linked one?")).code, 0);
  await app.waitForElement("//*[@role='option'][contains(., 'Asked after the linked one?')]", 30000);
  await app.clickOn("//*[@role='option'][contains(., 'Asked after the linked one?')]");

  // As the desktop entry runs it for a clicked link: a second start, handed to the running app.
  const second = spawn(APP_BIN, [link], { env, stdio: "ignore" });
  const exit = await Promise.race([once(second, "exit").then(([code]) => code), sleep(20000).then(() => "running")]);
  if (exit === "running") second.kill("SIGKILL");
  assert.equal(exit, 0, "the second start should hand the link over and exit");
  await app.waitForElement(`${PANE}[contains(., 'Linked from a terminal?')]`, 15000);
});
