// The desktop around the app, as the tests see it: src-tauri/examples/tray-probe.rs plays the
// panel the tray icon registers with (StatusNotifierWatcher + dbusmenu) and the window manager
// (X11 map state and the × button). One command per line in, one JSON object per line out.

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { ARTIFACTS, track } from "./harness.mjs";
import { sleep } from "./webdriver.mjs";

export const TRAY_PROBE = process.env.TRAY_PROBE;

export class DesktopProbe {
  /** Start the probe and wait until it owns the watcher name (before the app starts). */
  static async start() {
    if (!TRAY_PROBE) throw new Error("TRAY_PROBE is not set: run the suite through scripts/e2e.sh");
    const probe = new DesktopProbe();
    await probe.#ready;
    return probe;
  }

  #child;
  #waiting = [];
  #ready;
  registered = null;

  constructor() {
    const log = fs.openSync(path.join(ARTIFACTS, "tray-probe.log"), "a");
    this.#child = track(spawn(TRAY_PROBE, [], { stdio: ["pipe", "pipe", log] }));
    let ready;
    this.#ready = new Promise((resolve, reject) => {
      ready = resolve;
      this.#child.on("exit", (code) => {
        reject(new Error(`tray-probe exited ${code}; see tray-probe.log`));
        for (const w of this.#waiting.splice(0)) w.reject(new Error(`tray-probe exited ${code}`));
      });
    });
    this.#ready.catch(() => {});
    readline.createInterface({ input: this.#child.stdout }).on("line", (line) => {
      const message = JSON.parse(line);
      if (message.ready) ready();
      else if (message.registered) this.registered = message.registered;
      else {
        const w = this.#waiting.shift();
        if (!w) return;
        if (message.error !== undefined) w.reject(new Error(`tray-probe: ${message.error}`));
        else w.resolve(message);
      }
    });
  }

  #ask(command) {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#child.stdin.write(`${command}\n`);
    });
  }

  /** The tray menu's entries, in order: `{ id, label, enabled, toggle, type }`. */
  async menu() {
    return (await this.#ask("menu")).menu;
  }

  /** The count drawn on the tray icon (null if the icon is no badge the app draws). */
  async badge() {
    return (await this.#ask("badge")).badge.count;
  }

  /** Click the menu entry labelled `label`, as a panel does. */
  async click(label) {
    const entry = (await this.menu()).find((e) => e.label === label);
    if (!entry) throw new Error(`no tray menu entry ${JSON.stringify(label)}`);
    return this.#ask(`click ${entry.id}`);
  }

  /** Press × on every window titled `title`; resolves with how many there were. */
  async close(title) {
    return (await this.#ask(`close ${title}`)).closed;
  }

  /** `{ found, viewable }` of the windows titled `title`. */
  async window(title) {
    return (await this.#ask(`window ${title}`)).window;
  }

  /** Read with `read()` until `accept(value)`; a timeout names the last value seen. */
  async until(what, read, accept, timeoutMs = 15000) {
    const deadline = Date.now() + timeoutMs;
    let last = "nothing";
    while (Date.now() < deadline) {
      try {
        const value = await read();
        if (accept(value)) return value;
        last = JSON.stringify(value);
      } catch (e) {
        last = e.message;
      }
      await sleep(150);
    }
    throw new Error(`timed out waiting for ${what}; last seen: ${last}`);
  }

  async stop() {
    this.#child.stdin.end();
    this.#child.kill("SIGTERM");
  }
}
