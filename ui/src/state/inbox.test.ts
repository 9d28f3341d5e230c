import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { card, demoAccounts, interaction } from "../backend/demoData";
import { emptyInbox, inboxReducer, listRows, visibleCards } from "./inbox";

const at = (s: number) => new Date(Date.UTC(2026, 10, 29, 12, 0, s)).toISOString();
const q = (id: string, s: number, status: "pending" | "answered" = "pending", account = "acme") =>
  card(account, interaction({ id, prompt: id, answer_format: "confirm", created_at: at(s), status }));
const filter = { view: "all" as const, account: null, format: null, unreadOnly: false, search: "" };

describe("inbox state", () => {
  it("orders open first, newest first, ties by the greater id first", () => {
    const state = inboxReducer(emptyInbox, {
      type: "snapshot",
      snapshot: { accounts: demoAccounts, cards: [q("ia_a", 1), q("ia_b", 1), q("ia_c", 5, "answered"), q("ia_d", 3)], connections: {}, counts: {}, do_not_disturb: false, local_hint: null, notifications: {} },
    });
    expect(visibleCards(state, filter).map((c) => c.interaction.id)).toEqual(["ia_d", "ia_b", "ia_a", "ia_c"]);
  });

  it("merges batches: upserts replace by id, removals drop, status and counts follow", () => {
    let state = inboxReducer(emptyInbox, {
      type: "snapshot",
      snapshot: { accounts: demoAccounts, cards: [q("ia_a", 1), q("ia_b", 2)], connections: { acme: { state: "online" } }, counts: {}, do_not_disturb: false, local_hint: "inbox ask", notifications: {} },
    });
    state = inboxReducer(state, {
      type: "changes",
      batch: { account: "acme", upserted: [q("ia_a", 1, "answered"), q("ia_c", 3)], removed: ["ia_b"], status: { state: "offline" }, counts: { pending: 1, unread: 0, queued: 0, notifications_unread: 0 }, notifications: null },
    });
    expect(visibleCards(state, filter).map((c) => `${c.interaction.id}:${c.interaction.status}`)).toEqual(["ia_c:pending", "ia_a:answered"]);
    expect(state.connections.acme).toEqual({ state: "offline" });
    expect(state.counts.acme.pending).toBe(1);
    expect(visibleCards(state, { ...filter, view: "inbox" }).map((c) => c.interaction.id)).toEqual(["ia_c"]);
  });

  it("keeps a batch that overtook the snapshot it follows", () => {
    // The engine sends page 2 as a batch after the window asked for its snapshot (which holds
    // page 1 only); the event arrives before the command's answer.
    const page2 = { account: "acme", upserted: [q("ia_late", 9)], removed: [], status: null, counts: { pending: 2, unread: 2, queued: 0, notifications_unread: 0 }, notifications: null };
    let state = inboxReducer(emptyInbox, { type: "changes", batch: page2 });
    state = inboxReducer(state, {
      type: "snapshot",
      snapshot: { accounts: demoAccounts, cards: [q("ia_early", 1)], connections: {}, counts: {}, do_not_disturb: false, local_hint: null, notifications: {} },
    });
    expect(visibleCards(state, filter).map((c) => c.interaction.id)).toEqual(["ia_late", "ia_early"]);
    expect(state.counts.acme.pending).toBe(2);
    // Once the snapshot is in, batches apply directly and nothing is held any more.
    expect(state.awaiting).toBeNull();
    state = inboxReducer(state, { type: "changes", batch: { ...page2, upserted: [], removed: ["ia_late"] } });
    expect(visibleCards(state, filter).map((c) => c.interaction.id)).toEqual(["ia_early"]);
    // A reload asks again: what comes meanwhile is held for it too.
    state = inboxReducer(state, { type: "snapshotRequested" });
    state = inboxReducer(state, { type: "changes", batch: page2 });
    state = inboxReducer(state, {
      type: "snapshot",
      snapshot: { accounts: demoAccounts, cards: [q("ia_early", 1)], connections: {}, counts: {}, do_not_disturb: false, local_hint: null, notifications: {} },
    });
    expect(visibleCards(state, filter).map((c) => c.interaction.id)).toEqual(["ia_late", "ia_early"]);
  });

  it("groups rows by account in the accounts' order", () => {
    const cards = [q("ia_1", 3, "pending", "local"), q("ia_2", 2, "pending", "acme"), q("ia_3", 1, "pending", "local")];
    const rows = listRows(cards, demoAccounts, true);
    expect(rows.map((r) => (r.type === "group" ? `[${r.label} ${r.count}]` : r.type === "card" ? r.card.interaction.id : r.key))).toEqual(["[Local 2]", "ia_1", "ia_3", "[work.acme 1]", "ia_2"]);
  });
});

describe("the window never writes HTML", () => {
  it("no source file uses dangerouslySetInnerHTML, innerHTML or eval", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name)) {
          const text = readFileSync(path, "utf8");
          if (/dangerouslySetInnerHTML|\.innerHTML\s*=|outerHTML\s*=|insertAdjacentHTML|\beval\(|new Function\(/.test(text)) offenders.push(path);
        }
      }
    };
    walk(join(__dirname, ".."));
    expect(offenders).toEqual([]);
  });
});
