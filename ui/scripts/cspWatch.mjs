// Records every Content-Security-Policy violation a page reports: the `securitypolicyviolation`
// events the document fires and the console errors Chromium prints for a refused eval or load.

const REFUSED = /Content Security Policy|unsafe-eval|Refused to (evaluate|execute|load|apply)/i;
// A refused script (eval, `new Function`, inline code) means the window is broken, not just a
// picture missing; anything else (say a remote video under `default-src`) is worth a warning.
const SCRIPT = /script-src|unsafe-eval|EvalError|\beval\b/i;

/** Starts recording on `page` before its first document loads. */
export async function watchCsp(page) {
  const printed = [];
  page.on("console", (m) => {
    if (m.type() === "error" && REFUSED.test(m.text())) printed.push(m.text());
  });
  page.on("pageerror", (e) => {
    if (e.name === "EvalError" || REFUSED.test(e.message)) printed.push(`${e.name}: ${e.message}`);
  });
  await page.addInitScript(() => {
    const seen = [];
    Object.defineProperty(window, "__cspViolations", { value: seen });
    document.addEventListener("securitypolicyviolation", (e) => {
      seen.push(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile || "?"}:${e.lineNumber})`);
    });
  });
  const all = async () => {
    const events = await page.evaluate(() => [...(window.__cspViolations ?? [])]).catch(() => []);
    return [...events, ...printed];
  };
  return {
    /** Everything the policy refused so far. */
    violations: all,
    /** Only the refused scripts: eval, `new Function`, inline or foreign script. */
    async scriptViolations() {
      return (await all()).filter((v) => SCRIPT.test(v));
    },
  };
}
