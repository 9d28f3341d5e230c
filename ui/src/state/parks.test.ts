import { describe, expect, it } from "vitest";
import { card, demoAccounts, interaction } from "../backend/demoData";
import type { Card, Status } from "../backend/types";
import { emptyInbox, inboxReducer, listRows, parkGroups, rowOrder, visibleCards, type InboxState } from "./inbox";

const at = (s: number) => new Date(Date.UTC(2026, 10, 29, 12, 0, s)).toISOString();
const filter = { view: "inbox" as const, account: null, format: null, unreadOnly: false, search: "" };

/** Question `index` of park `park` (of `size`), asked at second `s`. */
function parked(park: string, index: number, size: number, s: number, status: Status = "pending", account = "acme"): Card {
  return card(
    account,
    interaction({
      id: `${park}_q${index}`,
      prompt: `${park} question ${index}`,
      answer_format: "confirm",
      asker: "deploy-bot",
      mode: "async",
      created_at: at(s),
      expires_at: at(3600),
      status,
      park_id: park,
      park: { size, index, run: "r-17" },
    }),
  );
}
const lone = (id: string, s: number) => card("acme", interaction({ id, prompt: id, answer_format: "confirm", created_at: at(s) }));

function state(cards: Card[]): InboxState {
  return inboxReducer(emptyInbox, {
    type: "snapshot",
    snapshot: { accounts: demoAccounts, cards, notifications: {}, connections: {}, counts: {}, do_not_disturb: false, local_hint: null },
  });
}

function drawn(s: InboxState, grouped = false) {
  const rows = listRows(visibleCards(s, filter), demoAccounts, grouped, parkGroups(s));
  return rows.map((r) => (r.type === "card" ? r.card.interaction.id : r.type === "park" ? `[${r.park.key} ${r.park.answered}/${r.park.size}]` : `{${r.label}}`));
}

describe("parks in the list", () => {
  it("draws a park's questions as one group, in the order asked, where its newest would sit", () => {
    // The park's members were asked at different seconds and a lone question sits between them.
    const s = state([parked("pk_a", 0, 3, 1), lone("ia_mid", 2), parked("pk_a", 2, 3, 3), parked("pk_a", 1, 3, 0), lone("ia_new", 9)]);
    expect(drawn(s)).toEqual(["ia_new", "[acme/pk_a 0/3]", "pk_a_q0", "pk_a_q1", "pk_a_q2", "ia_mid"]);
    expect(rowOrder(listRows(visibleCards(s, filter), demoAccounts, false, parkGroups(s)))).toEqual(["acme/ia_new", "acme/pk_a_q0", "acme/pk_a_q1", "acme/pk_a_q2", "acme/ia_mid"]);
  });

  it("counts answered questions the view no longer shows, and expired ones apart", () => {
    const s = state([parked("pk_b", 0, 3, 1, "answered"), parked("pk_b", 1, 3, 1, "expired"), parked("pk_b", 2, 3, 1)]);
    const g = parkGroups(s).get("acme/pk_b");
    expect(g).toMatchObject({ asker: "deploy-bot", run: "r-17", size: 3, answered: 1, expired: 1 });
    expect(g?.members).toEqual(["acme/pk_b_q0", "acme/pk_b_q1", "acme/pk_b_q2"]);
    // Only the open one is in the inbox view, still under its park's header.
    expect(drawn(s)).toEqual(["[acme/pk_b 1/3]", "pk_b_q2"]);
  });

  it("keeps parks of different accounts and a park of one apart", () => {
    const one = card("acme", interaction({ id: "ia_one", prompt: "one", answer_format: "confirm", mode: "async", created_at: at(5), park_id: "pk_one", park: { size: 1, index: 0 } }));
    const s = state([parked("pk_c", 0, 2, 1), parked("pk_c", 1, 2, 1), parked("pk_c", 0, 2, 1, "pending", "local"), one]);
    expect(parkGroups(s).has("acme/pk_one")).toBe(false);
    expect(drawn(s, true)).toEqual(["{Local}", "[local/pk_c 0/2]", "pk_c_q0", "{work.acme}", "ia_one", "[acme/pk_c 0/2]", "pk_c_q0", "pk_c_q1"]);
  });
});
