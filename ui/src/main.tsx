import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import type { Backend } from "./backend/Backend";
import { demoAccounts, demoCards, manyCards, recursiveCards } from "./backend/demoData";
import recursiveSchemas from "./test/schemas/recursive.json";
import { FakeBackend } from "./backend/fakeBackend";
import { runningInTauri, tauriBackend } from "./backend/tauriBackend";
import { App } from "./components/App";
import type { View } from "./state/inbox";
import "./styles.css";

// Inside the desktop app the real backend is used; anywhere else (the dev server, the
// screenshots, the measurement) the fake one, filled by query flags:
//   ?fake            force the fake backend
//   ?items=10000     that many generated questions instead of the demo inbox
//   ?scenario=empty  an empty inbox;  ?scenario=recursive  forms with recursive schemas
//   ?select=ia_…     open this question first;  ?view=all|answered|expired
function demoBackend(params: URLSearchParams): Backend {
  const now = Date.now();
  const items = Number(params.get("items") ?? 0);
  const scenario = params.get("scenario");
  const cards =
    scenario === "empty" ? [] : scenario === "recursive" ? recursiveCards(recursiveSchemas, now) : items > 0 ? manyCards(items, now) : demoCards(now);
  return new FakeBackend({
    accounts: demoAccounts,
    cards,
    connections: {
      acme: { state: "online" },
      local: { state: "reconnecting", next_try_at: new Date(now + 4000).toISOString(), attempt: 2 },
    },
  });
}

const params = new URLSearchParams(window.location.search);
const backend = runningInTauri() && !params.has("fake") ? tauriBackend() : demoBackend(params);
// The measurement script drives the fake backend from the page (never the real one).
if (backend instanceof FakeBackend) (window as unknown as { __fakeInbox: FakeBackend }).__fakeInbox = backend;
const view = params.get("view");
const initial = {
  select: params.get("select") ?? undefined,
  view: view === "all" || view === "answered" || view === "expired" || view === "inbox" ? (view as View) : undefined,
};

createRoot(document.getElementById("root") as HTMLElement).render(
  <StrictMode>
    <App backend={backend} initial={initial} />
  </StrictMode>,
);
