// A tiny static server for a UI build on a loopback port, for the screenshots and the measurement.
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const UI = fileURLToPath(new URL("../", import.meta.url));
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".png": "image/png", ".json": "application/json" };

// The policy the desktop app's window runs under, read from tauri.conf.json itself (never a copy
// that could drift looser): the screenshots serve the app with it so a violation fails them.
const TAURI_CONF = fileURLToPath(new URL("../../tauri.conf.json", import.meta.url));
export const CONTENT_SECURITY_POLICY = JSON.parse(readFileSync(TAURI_CONF, "utf8")).app.security.csp;
if (typeof CONTENT_SECURITY_POLICY !== "string" || !CONTENT_SECURITY_POLICY.includes("default-src")) {
  throw new Error(`no app.security.csp in ${TAURI_CONF}`);
}

/**
 * Serves a build of the UI on 127.0.0.1:0: `dir` is "dist-demo" (the fake backend, for the
 * screenshots and the measurement; the default) or "dist" (the shipped build). `headers` are
 * added to every response (e.g. the CSP).
 */
export async function serveDist({ dir = "dist-demo", headers = {} } = {}) {
  const DIST = join(UI, dir, "/");
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    const file = join(DIST, path === "/" ? "index.html" : path);
    if (!file.startsWith(DIST)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { ...headers, "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) };
}

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
