import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import type { Backend } from "./backend/Backend";
import { runningInTauri, tauriBackend } from "./backend/tauriBackend";
import { App } from "./components/App";
import { NotInApp } from "./components/NotInApp";
import type { View } from "./state/inbox";
import "./styles.css";

// Inside the desktop app: the real backend, always. Outside it, the shipped build shows an
// error; only a development server or the demo build (`vite build --mode demo`, for the
// screenshots and the measurement) fill the window with the made-up inbox. The condition is
// fixed at build time, so the production bundle drops the fake backend and its data entirely.
async function chooseBackend(params: URLSearchParams): Promise<Backend | null> {
  if (runningInTauri()) return tauriBackend();
  if (import.meta.env.DEV || import.meta.env.MODE === "demo") {
    const { demoBackend } = await import("./demo/demoBackend");
    return demoBackend(params);
  }
  return null;
}

//   ?select=ia_…     open this question first;  ?view=all|answered|expired
const params = new URLSearchParams(window.location.search);
const view = params.get("view");
const initial = {
  select: params.get("select") ?? undefined,
  view: view === "all" || view === "answered" || view === "expired" || view === "inbox" ? (view as View) : undefined,
};

const root = createRoot(document.getElementById("root") as HTMLElement);
void chooseBackend(params).then((backend) =>
  root.render(<StrictMode>{backend ? <App backend={backend} initial={initial} /> : <NotInApp />}</StrictMode>),
);
