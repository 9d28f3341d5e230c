import { beforeEach, describe, expect, it, vi } from "vitest";
import { clearOpening, loadFailures, markOpening, recordFailure, shortReason } from "./renderFailures";

beforeEach(() => localStorage.clear());

describe("remembered render failures", () => {
  it("a short reason is one line, cut, and keeps the error's kind", () => {
    expect(shortReason(new RangeError("Maximum call stack\n size exceeded"))).toBe("RangeError: Maximum call stack size exceeded");
    const long = shortReason(new Error("x".repeat(1000)));
    expect(long.length).toBeLessThan(200);
    expect(long.endsWith("…")).toBe(true);
    expect(shortReason("thrown string")).toBe("Error: thrown string");
  });

  it("survives a restart, and a known failure changes nothing", () => {
    const once = recordFailure(new Map(), "acme/ia_1", "TypeError: boom");
    expect(recordFailure(once, "acme/ia_1", "again")).toBe(once);
    expect(loadFailures().get("acme/ia_1")).toBe("TypeError: boom");
  });

  it("an opening mark left by a run that died becomes a failure; a finished draw leaves none", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    markOpening("acme/ia_ok");
    clearOpening("acme/ia_ok");
    expect(loadFailures().size).toBe(0);
    markOpening("acme/ia_died");
    const failed = loadFailures();
    expect(failed.has("acme/ia_died")).toBe(true);
    // Read once: the mark is gone, the failure stays.
    expect(localStorage.getItem("inbox.renderOpening")).toBeNull();
    expect(loadFailures().has("acme/ia_died")).toBe(true);
  });

  it("remembers at most 200, dropping the oldest", () => {
    let failed: ReadonlyMap<string, string> = new Map();
    for (let n = 0; n < 250; n++) failed = recordFailure(failed, `acme/ia_${n}`, "x");
    const loaded = loadFailures();
    expect(loaded.size).toBe(200);
    expect(loaded.has("acme/ia_0")).toBe(false);
    expect(loaded.has("acme/ia_249")).toBe(true);
  });

  it("damaged storage reads as nothing remembered", () => {
    localStorage.setItem("inbox.renderFailures", "{not json");
    expect(loadFailures().size).toBe(0);
  });
});
