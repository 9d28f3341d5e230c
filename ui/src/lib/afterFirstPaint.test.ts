import { describe, expect, it } from "vitest";
import { afterFirstPaint, type FrameClock } from "./afterFirstPaint";

/** A clock whose frames, timers and idle moments happen only when the test says. */
function steppedClock(withIdle: boolean) {
  const queued: { kind: "frame" | "timer" | "idle"; id: number; cb: () => void }[] = [];
  let next = 1;
  const add = (kind: "frame" | "timer" | "idle") => (cb: () => void) => {
    queued.push({ kind, id: next, cb });
    return next++;
  };
  const drop = (id: number) => {
    const at = queued.findIndex((q) => q.id === id);
    if (at >= 0) queued.splice(at, 1);
  };
  const clock: FrameClock = {
    requestAnimationFrame: add("frame"),
    cancelAnimationFrame: drop,
    setTimeout: add("timer"),
    clearTimeout: drop,
    ...(withIdle ? { requestIdleCallback: add("idle"), cancelIdleCallback: drop } : {}),
  };
  /** Runs the oldest queued callback of `kind`; false when there is none. */
  const run = (kind: "frame" | "timer" | "idle") => {
    const at = queued.findIndex((q) => q.kind === kind);
    if (at < 0) return false;
    const [q] = queued.splice(at, 1);
    q.cb();
    return true;
  };
  return { clock, run, pending: () => queued.map((q) => q.kind) };
}

describe("afterFirstPaint", () => {
  it("waits for the frame, its paint, then an idle moment", () => {
    const { clock, run, pending } = steppedClock(true);
    let ran = 0;
    afterFirstPaint(() => ran++, clock);
    expect(pending()).toEqual(["frame"]);
    expect(run("frame")).toBe(true);
    expect(ran).toBe(0);
    // The timer set inside the frame fires after the paint; only then is idleness asked for.
    expect(pending()).toEqual(["timer"]);
    expect(run("timer")).toBe(true);
    expect(ran).toBe(0);
    expect(pending()).toEqual(["idle"]);
    expect(run("idle")).toBe(true);
    expect(ran).toBe(1);
  });

  it("falls back to a timer where there is no requestIdleCallback", () => {
    const { clock, run, pending } = steppedClock(false);
    let ran = 0;
    afterFirstPaint(() => ran++, clock);
    run("frame");
    run("timer");
    expect(ran).toBe(0);
    expect(pending()).toEqual(["timer"]);
    run("timer");
    expect(ran).toBe(1);
  });

  it("cancels at each stage", () => {
    for (const stage of [0, 1, 2]) {
      const { clock, run, pending } = steppedClock(true);
      let ran = 0;
      const cancel = afterFirstPaint(() => ran++, clock);
      if (stage > 0) run("frame");
      if (stage > 1) run("timer");
      cancel();
      expect(pending(), `cancelled after ${stage} steps`).toEqual([]);
      expect(ran, `cancelled after ${stage} steps`).toBe(0);
    }
  });
});
