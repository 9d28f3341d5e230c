// Drives headless Chromium over the demo build (ui/dist-demo, fake backend) and writes PNGs to
// ../artifacts/screenshots/ for a person to look at. The app is served under the desktop window's
// Content-Security-Policy as tauri.conf.json states it: any page error, any refusal by the policy,
// or a form that does not validate under it fails the run.
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { watchCsp } from "./cspWatch.mjs";
import { checkFormUnderCsp } from "./formUnderCsp.mjs";
import { CHROMIUM, CHROMIUM_ARGS, CONTENT_SECURITY_POLICY, serveDist } from "./serveDist.mjs";

const OUT = fileURLToPath(new URL("../../artifacts/screenshots/", import.meta.url));
await mkdir(OUT, { recursive: true });
const server = await serveDist({ headers: { "content-security-policy": CONTENT_SECURITY_POLICY } });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
const written = [];
const watched = [];
const pageErrors = [];
let reported = false;

async function page(query, colorScheme = "light", init = null) {
  const context = await browser.newContext({ viewport: { width: 1360, height: 820 }, colorScheme, deviceScaleFactor: 1 });
  if (init) await context.addInitScript(init);
  const p = await context.newPage();
  p.on("pageerror", (e) => pageErrors.push(`?${query}: ${e.name}: ${e.message}`));
  watched.push({ query, csp: await watchCsp(p) });
  await p.goto(`${server.url}?${query}`);
  await p.waitForSelector(".app .statusbar");
  await p.waitForTimeout(300);
  return p;
}

async function refusals(kind = "violations") {
  const out = [];
  for (const w of watched) for (const v of await w.csp[kind]()) out.push(`?${w.query}: ${v}`);
  return out;
}

async function shot(p, name) {
  const file = `${OUT}${name}.png`;
  await p.screenshot({ path: file });
  written.push(file);
}

try {
  let p = await page("select=ia_deploy42");
  await shot(p, "01-list");

  p = await page("select=ia_screens");
  await p.waitForSelector(".image-bubble img");
  await shot(p, "02-media-question");

  p = await page("select=ia_release");
  await shot(p, "03-form-step-1");
  await p.getByRole("button", { name: "Next" }).click();
  await p.waitForSelector("text=Step 2 of 2");
  await p.getByLabel("Name").fill("Ada Lovelace");
  await p.getByLabel("Email").fill("ada@example.com");
  await shot(p, "04-form-step-2");
  await p.getByRole("button", { name: "Review" }).click();
  await p.waitForSelector("text=Review your answer");
  await shot(p, "05-form-review");

  p = await page("select=ia_nightly");
  await shot(p, "06-text-suggested-replies");

  p = await page("view=answered&select=ia_rotate");
  await shot(p, "07-answered");

  p = await page("select=ia_deploy42", "dark");
  await shot(p, "08-dark");

  p = await page("select=ia_release", "dark");
  await shot(p, "09-dark-form");

  p = await page("scenario=empty");
  await shot(p, "10-empty");

  p = await page("select=ia_region");
  await p.keyboard.press("?");
  await shot(p, "11-shortcuts");

  p = await page("items=10000&view=all");
  await shot(p, "12-ten-thousand");

  // Recursion drawn within bounds: one level open, the next behind "+ Add nested …".
  p = await page("scenario=recursive&select=ia_root_self_reference");
  await p.getByLabel("Team name").fill("Platform");
  await p.getByRole("button", { name: "+ Add nested Parent team" }).click();
  await p.getByLabel("Team name").nth(1).fill("Engineering");
  await shot(p, "13-recursive-form");

  p = await page("scenario=recursive&select=ia_recursive_oneof_array");
  await p.waitForSelector(".json-editor");
  await shot(p, "14-recursive-oneof");

  // A question the last run never finished drawing: not opened by itself, marked in the list.
  p = await page("scenario=recursive", "light", () => localStorage.setItem("inbox.renderOpening", "local/ia_root_self_reference"));
  await p.waitForSelector(".qrow.failed");
  await shot(p, "15-failed-row");

  reported = true;
  const refused = await refusals();
  if (refused.length > 0) throw new Error(`the Content-Security-Policy refused:\n  ${refused.join("\n  ")}`);
  if (pageErrors.length > 0) throw new Error(`page errors:\n  ${pageErrors.join("\n  ")}`);

  const { answer } = await checkFormUnderCsp(browser, server.url);
  console.log(`form under CSP: validated and answered ${JSON.stringify(answer)}`);
} catch (e) {
  // A step that timed out is often the policy's doing: say what it refused.
  if (!reported) for (const r of await refusals()) console.error(`CSP refused ${r}`);
  throw e;
} finally {
  await browser.close();
  await server.close();
}
for (const f of written) console.log(f);
