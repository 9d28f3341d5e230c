// The window's copy of the inbox: the snapshot, then each change batch merged in. Rust owns
// the canonical list; this only mirrors it for drawing.
import type { Account, Card, ChangeBatch, ConnectionStatus, Counts, Notification, Snapshot, Status } from "../backend/types";
import { parseTime } from "../lib/time";

export type InboxState = {
  loaded: boolean;
  accounts: Account[];
  cards: Map<string, Card>;
  // An account may have no status yet (it is still starting).
  connections: Partial<Record<string, ConnectionStatus>>;
  counts: Record<string, Counts>;
  /** Outstanding notifications per account, newest first (each batch that has them replaces them). */
  notifications: Record<string, Notification[]>;
  localHint: string | null;
  /** Bumps on every change so memoised views recompute. */
  version: number;
  /**
   * The batches that came while a snapshot was on its way (null when none is). The snapshot is a
   * command's answer and the batches are events, and the two may pass each other: a batch the
   * engine sent after it took the snapshot can arrive first. The snapshot replaces the list,
   * then these are applied again on top, so nothing a batch said is lost.
   */
  awaiting: ChangeBatch[] | null;
};

export type InboxAction =
  | { type: "snapshotRequested" }
  | { type: "snapshot"; snapshot: Snapshot }
  | { type: "changes"; batch: ChangeBatch };

export const emptyInbox: InboxState = {
  loaded: false,
  accounts: [],
  cards: new Map(),
  connections: {},
  counts: {},
  notifications: {},
  localHint: null,
  version: 0,
  // The window asks for its first snapshot as it starts.
  awaiting: [],
};

export function cardKey(c: Pick<Card, "account"> & { interaction: { id: string } }): string {
  return `${c.account}/${c.interaction.id}`;
}

export function inboxReducer(state: InboxState, action: InboxAction): InboxState {
  switch (action.type) {
    case "snapshotRequested":
      return { ...state, awaiting: [] };
    case "snapshot": {
      const s = action.snapshot;
      const fresh: InboxState = {
        loaded: true,
        accounts: s.accounts,
        cards: new Map(s.cards.map((c) => [cardKey(c), c])),
        connections: { ...s.connections },
        counts: Object.fromEntries(Object.entries(s.counts).flatMap(([k, v]) => (v ? [[k, v]] : []))),
        notifications: Object.fromEntries(Object.entries(s.notifications ?? {}).map(([k, v]) => [k, v ?? []])),
        localHint: s.local_hint,
        version: state.version + 1,
        awaiting: null,
      };
      return (state.awaiting ?? []).reduce(applyBatch, fresh);
    }
    case "changes": {
      const next = applyBatch(state, action.batch);
      return state.awaiting ? { ...next, awaiting: [...state.awaiting, action.batch] } : next;
    }
  }
}

function applyBatch(state: InboxState, b: ChangeBatch): InboxState {
  const cards = new Map(state.cards);
  for (const id of b.removed) cards.delete(`${b.account}/${id}`);
  for (const c of b.upserted) cards.set(cardKey(c), c);
  return {
    ...state,
    cards,
    connections: b.status ? { ...state.connections, [b.account]: b.status } : state.connections,
    counts: { ...state.counts, [b.account]: b.counts },
    notifications: b.notifications ? { ...state.notifications, [b.account]: b.notifications } : state.notifications,
    version: state.version + 1,
  };
}

export type View = "inbox" | "answered" | "expired" | "all";

export const VIEWS: { id: View; label: string; statuses: Status[] | null }[] = [
  { id: "inbox", label: "Inbox", statuses: ["pending"] },
  { id: "answered", label: "Answered", statuses: ["answered", "declined"] },
  { id: "expired", label: "Expired", statuses: ["expired", "cancelled"] },
  { id: "all", label: "All", statuses: null },
];

export type ListFilter = {
  view: View;
  account: string | null;
  format: string | null;
  unreadOnly: boolean;
  search: string;
};

export type ListRow =
  | { type: "card"; key: string; card: Card }
  | { type: "group"; key: string; label: string; count: number }
  | { type: "park"; key: string; park: ParkGroup };

/**
 * A park of several questions as the window draws it: one group, whatever view or order its
 * questions fall in. Counted over every card the window holds (the answered ones sit in another
 * view), from the place the server stamped on each question.
 */
export type ParkGroup = {
  /** `account/park_id`. */
  key: string;
  asker: string;
  run: string | null;
  size: number;
  /** Answered or declined by a person. */
  answered: number;
  expired: number;
  /** Card keys of the questions the window holds, in the order they were asked. */
  members: string[];
};

/** The group a card belongs to; null for a lone question (a park of one is drawn as itself). */
export function parkKey(c: Card): string | null {
  const i = c.interaction;
  return i.park_id && i.park && i.park.size > 1 ? `${c.account}/${i.park_id}` : null;
}

// Cards are never changed in place (a change is a new card), so what is worked out from one
// card alone is kept per card object: with 10,000 cards every batch would otherwise build
// 10,000 keys and row objects again (and hand React new rows for cards that did not change).
const cardRowCache = new WeakMap<Card, { row: ListRow & { type: "card" }; park: string | null }>();
function cardFacts(c: Card): { row: ListRow & { type: "card" }; park: string | null } {
  let facts = cardRowCache.get(c);
  if (!facts) {
    facts = { row: { type: "card", key: cardKey(c), card: c }, park: parkKey(c) };
    cardRowCache.set(c, facts);
  }
  return facts;
}

/** Every park of several questions the window holds, by `parkKey`. */
export function parkGroups(state: InboxState): Map<string, ParkGroup> {
  const groups = new Map<string, ParkGroup>();
  const index = new Map<string, number>();
  for (const c of state.cards.values()) {
    const key = cardFacts(c).park;
    const place = c.interaction.park;
    if (!key || !place) continue;
    let g = groups.get(key);
    if (!g) {
      g = { key, asker: c.interaction.asker, run: place.run ?? null, size: place.size, answered: 0, expired: 0, members: [] };
      groups.set(key, g);
    }
    const status = c.interaction.status;
    if (status === "answered" || status === "declined") g.answered++;
    else if (status === "expired" || status === "cancelled") g.expired++;
    const k = cardFacts(c).row.key;
    index.set(k, place.index);
    g.members.push(k);
  }
  for (const g of groups.values()) g.members.sort((a, b) => (index.get(a) ?? 0) - (index.get(b) ?? 0));
  return groups;
}

/** Whether every question of the park has left pending (the run is about to resume). */
export function parkSettled(g: ParkGroup): boolean {
  return g.answered + g.expired >= g.size;
}


function inView(c: Card, view: View): boolean {
  const statuses = VIEWS.find((v) => v.id === view)?.statuses;
  return !statuses || statuses.includes(c.interaction.status);
}

function matchesSearch(c: Card, needle: string): boolean {
  if (!needle) return true;
  const i = c.interaction;
  if (i.prompt.toLowerCase().includes(needle) || i.asker.toLowerCase().includes(needle)) return true;
  return i.options.some((o) => (o.label ?? o.value).toLowerCase().includes(needle));
}

const createdCache = new WeakMap<object, number>();
function created(c: Card): number {
  let t = createdCache.get(c.interaction);
  if (t === undefined) {
    t = parseTime(c.interaction.created_at) ?? 0;
    createdCache.set(c.interaction, t);
  }
  return t;
}

/** Pending first, then newest first, ties broken by the greater id first (the engine's rule). */
export function compareCards(a: Card, b: Card): number {
  const pa = a.interaction.status === "pending" ? 0 : 1;
  const pb = b.interaction.status === "pending" ? 0 : 1;
  if (pa !== pb) return pa - pb;
  const d = created(b) - created(a);
  if (d !== 0) return d;
  return a.interaction.id > b.interaction.id ? -1 : a.interaction.id < b.interaction.id ? 1 : 0;
}

/** The cards a view shows, sorted. */
export function visibleCards(state: InboxState, f: ListFilter): Card[] {
  const needle = f.search.trim().toLowerCase();
  const out: Card[] = [];
  for (const c of state.cards.values()) {
    if (!inView(c, f.view)) continue;
    if (f.account && c.account !== f.account) continue;
    if (f.format && c.interaction.answer_format !== f.format) continue;
    if (f.unreadOnly && !c.unread) continue;
    if (!matchesSearch(c, needle)) continue;
    out.push(c);
  }
  return out.sort(compareCards);
}

/**
 * A run of card rows where each park's visible questions follow one header, in the order asked,
 * at the place its first question would take in the list.
 */
function cardRows(cards: Card[], parks: Map<string, ParkGroup>): ListRow[] {
  const byPark = new Map<string, Card[]>();
  if (parks.size > 0) {
    for (const c of cards) {
      const k = cardFacts(c).park;
      if (!k || !parks.has(k)) continue;
      const members = byPark.get(k);
      if (members) members.push(c);
      else byPark.set(k, [c]);
    }
  }
  const rows: ListRow[] = [];
  const done = new Set<string>();
  for (const c of cards) {
    const { row, park: k } = cardFacts(c);
    const park = k ? parks.get(k) : undefined;
    if (!k || !park) {
      rows.push(row);
      continue;
    }
    if (done.has(k)) continue;
    done.add(k);
    rows.push({ type: "park", key: `park:${k}`, park });
    const members = (byPark.get(k) ?? []).sort((a, b) => (a.interaction.park?.index ?? 0) - (b.interaction.park?.index ?? 0));
    for (const m of members) rows.push(cardFacts(m).row);
  }
  return rows;
}

/** Rows of the list: parks as groups, with a header per account when grouping is on. */
export function listRows(cards: Card[], accounts: Account[], grouped: boolean, parks: Map<string, ParkGroup> = new Map()): ListRow[] {
  if (!grouped) return cardRows(cards, parks);
  const rows: ListRow[] = [];
  const order = [...accounts.map((a) => a.id), ...new Set(cards.map((c) => c.account))];
  const seen = new Set<string>();
  for (const id of order) {
    if (seen.has(id)) continue;
    seen.add(id);
    const mine = cards.filter((c) => c.account === id);
    if (mine.length === 0) continue;
    const label = accounts.find((a) => a.id === id)?.label ?? id;
    rows.push({ type: "group", key: `group:${id}`, label, count: mine.length });
    rows.push(...cardRows(mine, parks));
  }
  return rows;
}

/** The card keys of the rows, in the order drawn (what j/k and "the next one" walk). */
export function rowOrder(rows: ListRow[]): string[] {
  const keys: string[] = [];
  for (const r of rows) if (r.type === "card") keys.push(r.key);
  return keys;
}

const noCounts: Counts = { pending: 0, unread: 0, queued: 0, notifications_unread: 0 };

/**
 * An account's badge numbers as the engine counted them (`Entry::counts` in inbox-sync), from
 * the snapshot and then each batch: the window never works a count out from its cards, so the
 * sidebar and the tray cannot disagree.
 */
export function accountCounts(state: InboxState, account: string): Counts {
  return state.counts[account] ?? noCounts;
}

/** Every listed account's engine counts added up (the tray shows the same sum). */
export function totalCounts(state: InboxState): Counts {
  const total = { ...noCounts };
  for (const a of state.accounts) {
    const c = accountCounts(state, a.id);
    total.pending += c.pending;
    total.unread += c.unread;
    total.queued += c.queued;
    total.notifications_unread += c.notifications_unread;
  }
  return total;
}

/**
 * Whether the reviewer can still answer or decline it here: pending, and no answer of theirs
 * on its way (queued or sending, the engine's `Delivery::is_in_flight`).
 */
export function answerable(c: Card): boolean {
  const state = c.delivery?.state;
  return c.interaction.status === "pending" && state !== "queued" && state !== "sending";
}

/** Whether any question still shows as pending (else the pane shows the empty state). */
export function anyPending(state: InboxState): boolean {
  for (const c of state.cards.values()) if (c.interaction.status === "pending") return true;
  return false;
}

/** A notification with the account it belongs to, as the notifications view lists it. */
export type NotificationRow = { key: string; account: string; notification: Notification };

/** Every account's outstanding notifications, newest first (ties: greater id first). */
export function notificationRows(state: InboxState): NotificationRow[] {
  const rows: NotificationRow[] = [];
  for (const [account, list] of Object.entries(state.notifications)) {
    for (const n of list) rows.push({ key: `${account}/${n.id}`, account, notification: n });
  }
  return rows.sort((a, b) => {
    const d = (parseTime(b.notification.created_at) ?? 0) - (parseTime(a.notification.created_at) ?? 0);
    if (d !== 0) return d;
    return a.notification.id > b.notification.id ? -1 : a.notification.id < b.notification.id ? 1 : 0;
  });
}
