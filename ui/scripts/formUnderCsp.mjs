// The form question validated in a real browser under the desktop window's Content-Security-Policy:
// an invalid field shows its error and blocks the step, a valid answer goes through, and nothing
// the page does (no eval'd validator, no inline script) is refused by the policy.
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { watchCsp } from "./cspWatch.mjs";
import { CHROMIUM, CHROMIUM_ARGS, CONTENT_SECURITY_POLICY, serveDist } from "./serveDist.mjs";

function check(ok, what) {
  if (!ok) throw new Error(`form under CSP: ${what}`);
}

async function textShown(p, text) {
  try {
    await p.getByText(text).first().waitFor({ state: "visible", timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

/** Runs the check in a fresh page of `browser` against the app at `url` (served with the CSP). */
export async function checkFormUnderCsp(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1360, height: 820 } });
  const p = await context.newPage();
  const csp = await watchCsp(p);
  try {
    const errors = [];
    p.on("pageerror", (e) => errors.push(`${e.name}: ${e.message}`));
    const response = await p.goto(`${url}?select=ia_release`);
    check(response?.headers()["content-security-policy"] === CONTENT_SECURITY_POLICY, "the page was not served with the app's policy");
    await p.waitForSelector("text=Step 1 of 2");
    const instances = p.getByRole("spinbutton", { name: /Instances/ });

    // Out of range: the error is shown at the field and Next does not move on.
    await instances.fill("99");
    await p.getByRole("button", { name: "Next" }).click();
    check(await textShown(p.locator(".form-group", { has: instances }), "must be <= 50"), "no range error at Instances");
    check(await p.getByText("Step 1 of 2").isVisible(), "Next moved on past an invalid field");

    await instances.fill("4");
    await p.getByRole("button", { name: "Next" }).click();
    await p.waitForSelector("text=Step 2 of 2");

    // A format error on a nested field blocks the review.
    await p.getByLabel("Name").fill("Ada Lovelace");
    await p.getByLabel("Email").fill("not-an-email");
    await p.getByRole("button", { name: "Review" }).click();
    check(await textShown(p, 'must match format "email"'), "no format error at Email");
    check(await p.getByText("Step 2 of 2").isVisible(), "Review opened with an invalid email");

    await p.getByLabel("Email").fill("ada@example.com");
    await p.getByRole("button", { name: "Review" }).click();
    await p.waitForSelector("text=Review your answer");
    await p.getByRole("button", { name: "Submit" }).click();

    // The fake backend records what was answered.
    await p.waitForFunction(() => window.__fakeInbox.calls.some((c) => c.command === "answer_interaction"), null, { timeout: 5000 });
    const sent = await p.evaluate(() => window.__fakeInbox.calls.find((c) => c.command === "answer_interaction").args.value);
    check(sent.count === 4 && sent.owner?.email === "ada@example.com" && sent.owner?.name === "Ada Lovelace", `unexpected answer ${JSON.stringify(sent)}`);

    const violations = await csp.violations();
    check(violations.length === 0, `the policy refused:\n  ${violations.join("\n  ")}`);
    check(errors.length === 0, `page errors:\n  ${errors.join("\n  ")}`);

    // The watcher itself must see a refusal when there is one, or its silence above proves nothing.
    await p.addScriptTag({ content: "window.__inlineRan = true;" }).catch(() => {});
    await p.waitForTimeout(100);
    check((await csp.violations()).length > 0, "an inline script was not reported: is the policy in force?");
    return { answer: sent };
  } catch (e) {
    // A step that failed is often the policy's doing (a validator that needs eval): say what it refused.
    const refused = await csp.violations();
    if (refused.length > 0 && e instanceof Error) e.message += `\n  the policy refused:\n  ${refused.join("\n  ")}`;
    throw e;
  } finally {
    await context.close();
  }
}

// `node scripts/formUnderCsp.mjs` runs this check alone over an existing dist-demo/.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await serveDist({ headers: { "content-security-policy": CONTENT_SECURITY_POLICY } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    const { answer } = await checkFormUnderCsp(browser, server.url);
    console.log(`form under CSP: validated and answered ${JSON.stringify(answer)}`);
  } finally {
    await browser.close();
    await server.close();
  }
}
