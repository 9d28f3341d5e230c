// The fake backend's counts, taken from the engine instead of worked out here. The Rust test
// `crates/inbox-sync/tests/engine_counts.rs` brought one card (and one notification) into every
// state the real machine can put it in and wrote down that card's share of the badge numbers;
// the engine's counts are the sum of its cards' shares, so the fake adds up the recorded ones.
// A card in a state the engine never produces has no share: the fake refuses it rather than
// guess, so a test or the demo cannot drift into a count the app would never show.
import type { Card, Counts, Notification } from "./types";
import shares from "../generated/engineCountShares.json";

/** What a card's share depends on (all `Entry::counts` reads), spelt alike for both cards. */
function cardState(c: Card): string {
  // A plain string, not JSON: the demo's 10,000 questions are summed on every batch.
  return `${c.interaction.status}|${c.unread}|${c.delivery?.state ?? "none"}|${c.expired_locally}`;
}

const byCardState = new Map<string, Counts>();
for (const s of shares.cards) {
  const state = cardState(s.card as Card);
  const known = byCardState.get(state);
  if (known && JSON.stringify(known) !== JSON.stringify(s.counts)) throw new Error(`engineCountShares.json: two counts for ${state}`);
  byCardState.set(state, s.counts);
}

const byNotificationRead = new Map<boolean, Counts>(shares.notifications.map((s) => [s.notification.read_at !== null, s.counts]));

function add(total: Counts, share: Counts): void {
  total.pending += share.pending;
  total.unread += share.unread;
  total.queued += share.queued;
  total.notifications_unread += share.notifications_unread;
}

/** One account's counts as the engine would report them for these cards and notifications. */
export function engineCounts(cards: Iterable<Card>, notifications: Notification[]): Counts {
  const total: Counts = { pending: 0, unread: 0, queued: 0, notifications_unread: 0 };
  for (const c of cards) {
    const share = byCardState.get(cardState(c));
    if (!share) throw new Error(`the engine never shows a card like ${c.account}/${c.interaction.id} (${cardState(c)}): no recorded count`);
    add(total, share);
  }
  for (const n of notifications) {
    const share = byNotificationRead.get(n.read_at !== null);
    if (!share) throw new Error(`no recorded count for a notification like ${n.id}`);
    add(total, share);
  }
  return total;
}
