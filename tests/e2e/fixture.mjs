// The setup most window tests share, as node:test hooks (kept apart from harness.mjs, which the
// benchmark imports outside the test runner).

import { after, before } from "node:test";
import { InboxServer, reviewerApp, startDriver } from "./harness.mjs";

/** The window's status bar, and the same once it says the app is following its server. */
export const STATUS_BAR = "//footer[@role='contentinfo']";
export const ONLINE = `${STATUS_BAR}[contains(., 'Online')]`;

/**
 * Before the file's tests: an `inbox serve` (`serverOptions`), whatever `beforeApp(server)` must
 * have in place before the app starts, then tauri-driver starting the app as the server's
 * reviewer (`reviewerApp(server, name)`) and a session of it, waited for until it is Online.
 * After them: the session quit (which ends its app), tauri-driver stopped, the server stopped.
 *
 * Returns the object that holds `server`, `driver` and `app` once they are up. A test that
 * restarts the app puts its new session in `app`; whatever `app` holds at the end is quit.
 */
export function windowOnServer(name, { serverOptions, beforeApp } = {}) {
  const fixture = { server: null, driver: null, app: null };
  before(async () => {
    fixture.server = new InboxServer(serverOptions);
    await fixture.server.start();
    await beforeApp?.(fixture.server);
    fixture.driver = await startDriver(reviewerApp(fixture.server, name));
    fixture.app = await fixture.driver.session();
    await fixture.app.waitForElement(ONLINE, 30000);
  });
  after(async () => {
    await fixture.app?.quit().catch(() => {});
    await fixture.driver?.stop();
    await fixture.server?.stop();
  });
  return fixture;
}
