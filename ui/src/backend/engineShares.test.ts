import { describe, expect, it } from "vitest";
import recursiveSchemas from "../test/schemas/recursive.json";
import { card, demoCards, interaction, manyCards, recursiveCards } from "./demoData";
import { engineCounts } from "./engineShares";

const now = Date.now();
const q = (id: string, extra = {}) => interaction({ id, prompt: `${id}?`, answer_format: "confirm", ...extra });

describe("the fake backend's counts (recorded from the engine)", () => {
  it("leave a question out of pending while the reviewer's answer is on its way, as the engine does", () => {
    const counts = engineCounts(
      [card("acme", q("ia_new"), { unread: true }), card("acme", q("ia_sent"), { delivery: { state: "sending" }, outgoing: { kind: "answer", value: true } })],
      [],
    );
    expect(counts).toEqual({ pending: 1, unread: 1, queued: 1, notifications_unread: 0 });
  });

  it("refuse a card the engine never shows (unread after it was answered)", () => {
    expect(() => engineCounts([card("acme", q("ia_x", { status: "answered" }), { unread: true })], [])).toThrow(/never shows a card like acme\/ia_x/);
  });

  it("cover every card of the demo inbox, so the dev server and the screenshots draw", () => {
    for (const cards of [demoCards(now), manyCards(2000, now), recursiveCards(recursiveSchemas, now)]) {
      expect(() => engineCounts(cards, [])).not.toThrow();
    }
  });
});
