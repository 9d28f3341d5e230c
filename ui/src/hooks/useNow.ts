import { useSyncExternalStore } from "react";

// One clock for the whole window: every countdown ticks from the same interval.
let now = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const l of listeners) l();
    }, 1000);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/** The current time in ms, re-rendering the caller once a second. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, () => now, () => now);
}
