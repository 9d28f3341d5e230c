import { useCallback, useEffect, useRef, useState } from "react";
import type { Backend } from "../backend/Backend";
import type { Card } from "../backend/types";
import { cardKey, parkKey, type InboxState, type ParkGroup } from "../state/inbox";
import type { FailedQuestions } from "../boundary/renderFailures";

type Options = {
  backend: Backend;
  inbox: InboxState;
  /** The card keys in the order the list draws them (what j/k walk). */
  order: string[];
  parks: Map<string, ParkGroup>;
  /** Questions whose content failed to draw: never opened by themselves. */
  failed: FailedQuestions;
  /** The question to open first, by id (`?select=ia_…`). */
  initialSelect?: string;
};

export type Selection = {
  selectedKey: string | null;
  select: (key: string | null) => void;
  selected: Card | undefined;
  /** The park the open question belongs to, if it is one of several. */
  selectedPark: ParkGroup | undefined;
  /** The keyboard walk: the next (1) or previous (-1) row, from where the selection is or was. */
  move: (delta: 1 | -1) => void;
  /** What opens once the answer to `key` has left: the next question still pending (inbox zero). */
  nextAfter: (key: string, card: Card) => string;
};

/** Which question is open: chosen by the reviewer, walked with the keys, or moved on after an answer. */
export function useSelection({ backend, inbox, order, parks, failed, initialSelect }: Options): Selection {
  const [selectedKey, setSelectedKey] = useState<string | null>(null);

  // Where the selected row sat, so that when it leaves the list the next one takes its place.
  const lastIndex = useRef(0);
  const orderRef = useRef(order);
  orderRef.current = order;
  const inboxRef = useRef(inbox);
  inboxRef.current = inbox;
  const parksRef = useRef(parks);
  parksRef.current = parks;
  const failedRef = useRef(failed);
  failedRef.current = failed;
  const selectedIndex = selectedKey ? order.indexOf(selectedKey) : -1;
  if (selectedIndex >= 0) lastIndex.current = selectedIndex;

  // Open something as soon as there is something to open.
  useEffect(() => {
    if (!inbox.loaded || selectedKey !== null) return;
    const wanted = initialSelect ? [...inbox.cards.values()].find((c) => c.interaction.id === initialSelect) : undefined;
    if (wanted) setSelectedKey(cardKey(wanted));
    else {
      // The first one that drew before; a question that failed waits until the reviewer picks it.
      const first = order.find((k) => !failed.has(k));
      if (first) setSelectedKey(first);
    }
  }, [inbox.loaded, order, selectedKey, initialSelect, failed]); // eslint-disable-line react-hooks/exhaustive-deps

  const selected: Card | undefined = selectedKey ? inbox.cards.get(selectedKey) : undefined;
  const selectedPark = selected ? parks.get(parkKey(selected) ?? "") : undefined;

  // Opening a question reads it.
  useEffect(() => {
    if (selected?.unread) void backend.markRead({ account: selected.account, id: selected.interaction.id });
  }, [selectedKey, selected?.unread]); // eslint-disable-line react-hooks/exhaustive-deps

  const move = (delta: 1 | -1) => {
    if (order.length === 0) return;
    const at = selectedIndex >= 0 ? selectedIndex : Math.min(lastIndex.current, order.length) - (delta > 0 ? 1 : 0);
    const next = Math.max(0, Math.min(order.length - 1, at + delta));
    setSelectedKey(order[next]);
  };

  const nextAfter = useCallback((key: string, card: Card) => {
    const keys = orderRef.current;
    const cardsNow = inboxRef.current.cards;
    const isPending = (k: string) => k !== key && !failedRef.current.has(k) && cardsNow.get(k)?.interaction.status === "pending";
    let from = keys.indexOf(key);
    if (from < 0) from = lastIndex.current - 1;
    // Within a park, the next of its questions still open comes first (after this one, then
    // from the start): the run waits on all of them.
    const park = parksRef.current.get(parkKey(card) ?? "");
    const members = park?.members ?? [];
    const at = members.indexOf(key);
    let next: string | undefined = [...members.slice(at + 1), ...members.slice(0, Math.max(0, at))].find(isPending);
    for (let n = from + 1; n < keys.length && !next; n++) if (isPending(keys[n])) next = keys[n];
    for (let n = Math.min(from, keys.length - 1); n >= 0 && !next; n--) if (isPending(keys[n])) next = keys[n];
    return next ?? key;
  }, []);

  return { selectedKey, select: setSelectedKey, selected, selectedPark, move, nextAfter };
}
