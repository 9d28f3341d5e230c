// Work the window wants soon but not at start-up (the form chunk): run once the frame being drawn
// has been painted and the window is idle, so it never competes with the first paint.

/** The part of `window` this needs (a test hands in its own clock). */
export type FrameClock = {
  requestAnimationFrame(cb: () => void): number;
  cancelAnimationFrame(id: number): void;
  setTimeout(cb: () => void, ms: number): number;
  clearTimeout(id: number): void;
  requestIdleCallback?: (cb: () => void, options?: { timeout: number }) => number;
  cancelIdleCallback?: (id: number) => void;
};

/** Longest wait for an idle moment before the task runs anyway. */
const IDLE_TIMEOUT_MS = 2000;

/**
 * Runs `task` after the next frame is painted, at the first idle moment (a plain timer where the
 * webview has no `requestIdleCallback`). Returns a cancel function.
 */
export function afterFirstPaint(task: () => void, clock: FrameClock = window): () => void {
  let cancel = () => {};
  // An animation frame callback runs just before that frame is painted; a timer set from it fires
  // after the paint.
  const frame = clock.requestAnimationFrame(() => {
    const timer = clock.setTimeout(() => {
      if (clock.requestIdleCallback && clock.cancelIdleCallback) {
        const idle = clock.requestIdleCallback(task, { timeout: IDLE_TIMEOUT_MS });
        cancel = () => clock.cancelIdleCallback?.(idle);
      } else {
        const later = clock.setTimeout(task, 0);
        cancel = () => clock.clearTimeout(later);
      }
    }, 0);
    cancel = () => clock.clearTimeout(timer);
  });
  cancel = () => clock.cancelAnimationFrame(frame);
  return () => cancel();
}
