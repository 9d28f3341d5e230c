import { describe, expect, it } from "vitest";
import { relativeAge, shortAge } from "./time";

const now = Date.parse("2026-12-01T12:00:00Z");
const ago = (s: number) => new Date(now - s * 1000).toISOString();

describe("ages", () => {
  // Seconds ago → the question header's wording and the list row's, at each rounding edge
  // (59 min 30 s is an hour in the header, still 59 minutes in the row).
  it.each([
    [0, "just now", "now"],
    [44, "just now", "now"],
    [45, "1 min ago", "now"],
    [59, "1 min ago", "now"],
    [60, "1 min ago", "1m"],
    [89, "1 min ago", "1m"],
    [90, "2 min ago", "1m"],
    [59 * 60 + 29, "59 min ago", "59m"],
    [59 * 60 + 30, "1 h ago", "59m"],
    [3600, "1 h ago", "1h"],
    [24 * 3600 - 1, "1 d ago", "23h"],
    [24 * 3600, "1 d ago", "1d"],
    [4 * 24 * 3600 + 5, "4 d ago", "4d"],
    // A clock a little behind the asker's: not an age in the future.
    [-30, "just now", "now"],
  ])("%s s ago reads %s, in a row %s", (s, long, short) => {
    expect(relativeAge(ago(s), now)).toBe(long);
    expect(shortAge(ago(s), now)).toBe(short);
  });

  it.each(["", "not a time"])("says nothing for %j", (iso) => {
    expect(relativeAge(iso, now)).toBe("");
    expect(shortAge(iso, now)).toBe("");
  });
});
