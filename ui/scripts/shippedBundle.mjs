// The shipped build (ui/dist, `npm run build`) holds no fake backend and no demo data, and opened
// outside the desktop app it says so instead of showing an inbox. The demo build (ui/dist-demo,
// `npm run build:demo`) is the control: the same marks are found there, so the search can fail.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { watchCsp } from "./cspWatch.mjs";
import { CHROMIUM, CHROMIUM_ARGS, CONTENT_SECURITY_POLICY, serveDist } from "./serveDist.mjs";

const UI = fileURLToPath(new URL("../", import.meta.url));
// FAKE_BACKEND_MARK (fakeBackend.ts), the page handle the demo sets, a demo question's id, and
// the fake's engine-recorded counts (engineShares.ts and a label of engineCountShares.json).
const MARKS = ["inbox-fake-backend:development-and-tests-only", "__fakeInbox", "ia_deploy42", "the engine never shows a card like", "answered while gone"];

async function filesOf(dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.(js|html|css|json)$/.test(entry.name)) out.push(join(entry.parentPath ?? entry.path, entry.name));
  }
  return out;
}

async function marksIn(dir) {
  const found = new Set();
  for (const file of await filesOf(join(UI, dir))) {
    const text = await readFile(file, "utf8");
    for (const mark of MARKS) if (text.includes(mark)) found.add(mark);
  }
  return found;
}

const failures = [];
const shipped = await marksIn("dist");
for (const mark of shipped) failures.push(`ui/dist contains the fake backend's "${mark}"`);
const demo = await marksIn("dist-demo");
for (const mark of MARKS) if (!demo.has(mark)) failures.push(`control: ui/dist-demo lacks "${mark}" (the search would not see the fake)`);

// The form renderer is a chunk of its own (src/components/controls/LazyFormAnswer.tsx): the script
// the page starts with holds none of rjsf's form (its field class names); another chunk does.
const FORM_MARK = "rjsf-field";
const entry = (await readFile(join(UI, "dist", "index.html"), "utf8")).match(/<script[^>]*\ssrc="\.\/([^"]+\.js)"/)?.[1];
const formHolders = [];
for (const file of (await filesOf(join(UI, "dist"))).filter((f) => f.endsWith(".js"))) {
  if ((await readFile(file, "utf8")).includes(FORM_MARK)) formHolders.push(file);
}
if (!entry) failures.push("ui/dist/index.html starts no script");
else if (formHolders.some((f) => f.endsWith(entry))) failures.push(`the start-up script ${entry} holds the form renderer ("${FORM_MARK}")`);
if (formHolders.length === 0) failures.push(`control: no chunk of ui/dist holds the form renderer ("${FORM_MARK}")`);

const server = await serveDist({ dir: "dist", headers: { "content-security-policy": CONTENT_SECURITY_POLICY } });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const csp = await watchCsp(page);
  await page.goto(server.url);
  const alert = page.getByRole("alert");
  const shown = await alert.waitFor({ timeout: 10_000 }).then(
    () => true,
    () => false,
  );
  const text = shown ? await alert.innerText() : await page.locator("body").innerText();
  if (!shown || !/Not running inside Interactions Inbox/.test(text)) failures.push(`the shipped window outside the app shows "${text.slice(0, 200)}"`);
  if ((await page.locator(".app").count()) > 0) failures.push("the shipped window outside the app drew the inbox");
  for (const e of errors) failures.push(`page error in the shipped window: ${e}`);
  for (const v of await csp.violations()) failures.push(`CSP refused in the shipped window: ${v}`);
} finally {
  await browser.close();
  await server.close();
}

if (failures.length > 0) {
  console.error(failures.map((f) => `shipped bundle: ${f}`).join("\n"));
  process.exit(1);
}
console.log(
  `shipped bundle: no fake backend in ui/dist (${MARKS.length} marks, all found in ui/dist-demo); the form renderer only in its own chunk (${entry} starts without it); outside the app it shows its error`,
);
