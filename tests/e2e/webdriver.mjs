// A small W3C WebDriver client over fetch: just the commands these tests use.

const ELEMENT = "element-6066-11e4-a07c-4a2d-5543c5d2b4a5";

/** An element reference: the W3C key, or the legacy `ELEMENT` some drivers still send. */
function elementId(ref) {
  const id = ref?.[ELEMENT] ?? ref?.ELEMENT ?? Object.values(ref ?? {})[0];
  if (typeof id !== "string") throw new WebDriverError(`not an element reference: ${JSON.stringify(ref)}`);
  return id;
}

export class WebDriverError extends Error {}

export class Session {
  constructor(base, id) {
    this.base = base;
    this.id = id;
  }

  /** Open a session; `capabilities` is the `alwaysMatch` object. */
  static async start(base, capabilities) {
    const value = await call(base, "POST", "/session", { capabilities: { alwaysMatch: capabilities } });
    return new Session(base, value.sessionId);
  }

  cmd(method, path, body) {
    return call(this.base, method, `/session/${this.id}${path}`, body);
  }

  async find(xpath) {
    const value = await this.search("/element", xpath);
    return elementId(value);
  }

  async findAll(xpath) {
    const value = await this.search("/elements", xpath);
    return value.map(elementId);
  }

  /** WebKitWebDriver answers a search with "stale element reference" when a node it matched
   *  leaves the DOM while it builds the answer (React re-rendering a list under it). Nothing
   *  was found stale by us — the search is simply asked again on the page as it is now. */
  async search(path, xpath) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.cmd("POST", path, { using: "xpath", value: xpath });
      } catch (e) {
        if (attempt >= 5 || !String(e.message).includes("stale element reference")) throw e;
        await sleep(50);
      }
    }
  }

  click(element) {
    return this.cmd("POST", `/element/${element}/click`, {});
  }

  type(element, text) {
    return this.cmd("POST", `/element/${element}/value`, { text });
  }

  clear(element) {
    return this.cmd("POST", `/element/${element}/clear`, {});
  }

  text(element) {
    return this.cmd("GET", `/element/${element}/text`);
  }

  execute(script, args = []) {
    return this.cmd("POST", "/execute/sync", { script, args });
  }

  /** The window as PNG bytes, after the page has painted what the DOM holds now. */
  async screenshot() {
    await this.execute(
      "return new Promise((done) => { requestAnimationFrame(() => requestAnimationFrame(done)); setTimeout(done, 1000); })",
    ).catch(() => {});
    await sleep(200);
    const base64 = await this.cmd("GET", "/screenshot");
    return Buffer.from(base64, "base64");
  }

  /** Poll `probe` until it returns something truthy (errors count as "not yet"). */
  async waitFor(what, probe, timeoutMs = 15000) {
    const deadline = Date.now() + timeoutMs;
    let last;
    while (Date.now() < deadline) {
      try {
        const found = await probe();
        if (found) return found;
      } catch (e) {
        last = e;
      }
      await sleep(100);
    }
    throw new WebDriverError(`timed out waiting for ${what}${last ? ` (last error: ${last.message})` : ""}`);
  }

  /** Find and click, again if the list re-rendered under us (a stale element) — until `timeoutMs`. */
  clickOn(xpath, timeoutMs) {
    return this.waitFor(`a click on ${xpath}`, async () => {
      await this.click(await this.find(xpath));
      return true;
    }, timeoutMs);
  }

  /** Wait for an element by XPath and return it. */
  waitForElement(xpath, timeoutMs) {
    return this.waitFor(`element ${xpath}`, () => this.find(xpath), timeoutMs);
  }

  quit() {
    return call(this.base, "DELETE", `/session/${this.id}`);
  }
}

async function call(base, method, path, body) {
  const resp = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await resp.json().catch(() => ({}));
  if (!resp.ok) {
    const v = json.value ?? {};
    throw new WebDriverError(`${method} ${path}: ${resp.status} ${v.error ?? ""} ${v.message ?? ""}`.trim());
  }
  return json.value;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** An XPath string literal for any text (XPath 1.0 has no escapes). */
export function literal(text) {
  if (!text.includes("'")) return `'${text}'`;
  if (!text.includes('"')) return `"${text}"`;
  return `concat('${text.split("'").join(`', "'", '`)}')`;
}
