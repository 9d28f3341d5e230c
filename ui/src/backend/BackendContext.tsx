import { createContext, useContext, type ReactNode } from "react";
import type { Backend } from "./Backend";

// The window's one backend (the desktop app's, or the fake in tests and the demo), for every
// component that asks something of the outside world, so no prop threads it down the tree.
const BackendContext = createContext<Backend | null>(null);

export function BackendProvider({ backend, children }: { backend: Backend; children: ReactNode }) {
  return <BackendContext.Provider value={backend}>{children}</BackendContext.Provider>;
}

export function useBackend(): Backend {
  const backend = useContext(BackendContext);
  if (!backend) throw new Error("useBackend() outside a BackendProvider: render the window through <App backend={…}>");
  return backend;
}
