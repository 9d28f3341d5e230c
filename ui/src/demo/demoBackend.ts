// The made-up inbox for development (`npm run dev`) and the screenshot/measurement build
// (`vite build --mode demo`). main.tsx imports this module only behind a build-time condition,
// so the shipped bundle (`npm run build`) holds none of it: scripts/shippedBundle.mjs checks.
import type { Backend } from "../backend/Backend";
import { demoAccounts, demoCards, manyCards, recursiveCards } from "../backend/demoData";
import { FAKE_BACKEND_MARK, FakeBackend } from "../backend/fakeBackend";
import recursiveSchemas from "../test/schemas/recursive.json";

// Query flags:
//   ?items=10000     that many generated questions instead of the demo inbox
//   ?scenario=empty  an empty inbox;  ?scenario=recursive  forms with recursive schemas
export function demoBackend(params: URLSearchParams): Backend {
  const now = Date.now();
  const items = Number(params.get("items") ?? 0);
  const scenario = params.get("scenario");
  const cards =
    scenario === "empty" ? [] : scenario === "recursive" ? recursiveCards(recursiveSchemas, now) : items > 0 ? manyCards(items, now) : demoCards(now);
  const backend = new FakeBackend({
    accounts: demoAccounts,
    cards,
    connections: {
      acme: { state: "online" },
      local: { state: "reconnecting", next_try_at: new Date(now + 4000).toISOString(), attempt: 2 },
    },
  });
  // The measurement and screenshot scripts drive the fake from the page.
  Object.assign(window, { __fakeInbox: backend });
  document.documentElement.dataset.backend = FAKE_BACKEND_MARK;
  return backend;
}
