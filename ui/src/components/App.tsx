import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import type { Backend, SettingsView } from "../backend/Backend";
import { BackendError } from "../backend/BackendError";
import type { Card, Delivery } from "../backend/types";
import { useHotkeys } from "../hooks/useHotkeys";
import {
  accountCounts,
  cardKey,
  emptyInbox,
  inboxReducer,
  listRows,
  notificationRows,
  parkGroups,
  parkKey,
  rowOrder,
  viewCount,
  visibleCards,
  type ListFilter,
  type View,
} from "../state/inbox";
import { ErrorBoundary } from "../boundary/ErrorBoundary";
import { QuestionFallback } from "../boundary/QuestionFallback";
import { RenderWatch } from "../boundary/RenderWatch";
import { clearOpening, loadFailures, recordFailure, type FailedQuestions } from "../boundary/renderFailures";
import { EmptyState } from "./EmptyState";
import { firstLine } from "./labels";
import { NotificationsView } from "./NotificationsView";
import { ParkBanner } from "./ParkBanner";
import { QuestionList } from "./QuestionList";
import { QuestionView } from "./QuestionView";
import { ShortcutsOverlay } from "./ShortcutsOverlay";
import { Sidebar } from "./Sidebar";
import { StatusBar } from "./StatusBar";
import { SettingsPanel } from "../settings/SettingsPanel";
import { remoteAllowedFor } from "../settings/remoteAllowed";

export type AppProps = {
  backend: Backend;
  /** Opening state, for the screenshots and the dev server (`?select=ia_…&view=all`). */
  initial?: { select?: string; view?: View };
};

type Notice = { key: string; title: string; summary: string; delivery: Delivery["state"] };

export function App({ backend, initial }: AppProps) {
  const [inbox, dispatch] = useReducer(inboxReducer, emptyInbox);
  const [filter, setFilter] = useState<ListFilter>({ view: initial?.view ?? "inbox", account: null, format: null, unreadOnly: false, search: "" });
  const [grouped, setGrouped] = useState(false);
  const [showNotifications, setShowNotifications] = useState(false);
  const [selectedKey, setSelectedKey] = useState<string | null>(null);
  const [help, setHelp] = useState(false);
  const [dnd, setDnd] = useState(false);
  // The app owns the settings and the remote-media allowances; this is its latest answer.
  const [settings, setSettings] = useState<SettingsView | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [notice, setNotice] = useState<Notice | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  // Questions whose content failed to draw (this run or an earlier one): never opened by themselves.
  const [failed, setFailed] = useState<FailedQuestions>(() => loadFailures());
  const failedRef = useRef(failed);
  failedRef.current = failed;
  const onRenderFailure = useCallback((key: string) => (reason: string) => {
    clearOpening(key);
    setFailed((f) => recordFailure(f, key, reason));
  }, []);
  const searchRef = useRef<HTMLInputElement>(null);
  const paneRef = useRef<HTMLElement>(null);

  // Subscribe first, then read the snapshot, so no batch falls between the two.
  useEffect(() => {
    let live = true;
    const unlisten: (() => void)[] = [];
    (async () => {
      unlisten.push(await backend.onChanges((batch) => dispatch({ type: "changes", batch })));
      unlisten.push(
        await backend.onOpen((req) => {
          setFilter((f) => ({ ...f, view: "all", account: null, format: null, unreadOnly: false, search: "" }));
          setSelectedKey(`${req.account}/${req.id}`);
        }),
      );
      unlisten.push(await backend.onDoNotDisturb((on) => setDnd(on)));
      try {
        const snapshot = await backend.snapshot();
        if (live) {
          dispatch({ type: "snapshot", snapshot });
          setDnd(snapshot.do_not_disturb ?? false);
        }
      } catch (raw) {
        if (live) setLoadError(BackendError.from(raw).message);
      }
      try {
        const loaded = await backend.settings();
        if (live) setSettings(loaded);
      } catch (raw) {
        if (live) setLoadError(BackendError.from(raw).message);
      }
    })();
    return () => {
      live = false;
      unlisten.forEach((u) => u());
    };
  }, [backend]);

  useEffect(() => {
    if (inbox.loaded) performance.mark("inbox-rendered");
  }, [inbox.loaded]);

  // "system" leaves the choice to prefers-color-scheme; light/dark override it (settings/theme.css).
  const theme = settings?.preferences.theme ?? "system";
  useEffect(() => {
    if (theme === "system") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
  }, [theme]);

  const reloadSnapshot = useCallback(async () => {
    try {
      dispatch({ type: "snapshotRequested" });
      dispatch({ type: "snapshot", snapshot: await backend.snapshot() });
    } catch (raw) {
      setLoadError(BackendError.from(raw).message);
    }
  }, [backend]);

  const cards = useMemo(() => visibleCards(inbox, filter), [inbox, filter]);
  const parks = useMemo(() => parkGroups(inbox), [inbox]);
  const rows = useMemo(() => listRows(cards, inbox.accounts, grouped, parks), [cards, inbox.accounts, grouped, parks]);
  const order = useMemo(() => rowOrder(rows), [rows]);

  // Where the selected row sat, so that when it leaves the list the next one takes its place.
  const lastIndex = useRef(0);
  const orderRef = useRef(order);
  orderRef.current = order;
  const inboxRef = useRef(inbox);
  inboxRef.current = inbox;
  const parksRef = useRef(parks);
  parksRef.current = parks;
  const selectedIndex = selectedKey ? order.indexOf(selectedKey) : -1;
  if (selectedIndex >= 0) lastIndex.current = selectedIndex;

  // Open something as soon as there is something to open.
  useEffect(() => {
    if (!inbox.loaded || selectedKey !== null) return;
    const wanted = initial?.select ? [...inbox.cards.values()].find((c) => c.interaction.id === initial.select) : undefined;
    if (wanted) setSelectedKey(cardKey(wanted));
    else {
      // The first one that drew before; a question that failed waits until the reviewer picks it.
      const first = order.find((k) => !failed.has(k));
      if (first) setSelectedKey(first);
    }
  }, [inbox.loaded, order, selectedKey, initial?.select, failed]); // eslint-disable-line react-hooks/exhaustive-deps

  const selected: Card | undefined = selectedKey ? inbox.cards.get(selectedKey) : undefined;
  const selectedPark = selected ? parks.get(parkKey(selected) ?? "") : undefined;

  // Opening a question reads it.
  useEffect(() => {
    if (selected?.unread) void backend.markRead({ account: selected.account, id: selected.interaction.id });
  }, [selectedKey, selected?.unread]); // eslint-disable-line react-hooks/exhaustive-deps

  const move = (delta: number) => {
    if (order.length === 0) return;
    const at = selectedIndex >= 0 ? selectedIndex : Math.min(lastIndex.current, order.length) - (delta > 0 ? 1 : 0);
    const next = Math.max(0, Math.min(order.length - 1, at + delta));
    setSelectedKey(order[next]);
  };

  const focusList = () => (document.querySelector("[data-testid=question-list]") as HTMLElement | null)?.focus();

  useHotkeys(
    {
      j: () => move(1),
      k: () => move(-1),
      ArrowDown: () => move(1),
      ArrowUp: () => move(-1),
      Enter: (e) => {
        // Enter on a button or link keeps its own meaning.
        const t = e.target as HTMLElement | null;
        if (t && t !== document.body && !t.matches("[data-testid=question-list]")) return false;
        const control = paneRef.current?.querySelector<HTMLElement>(
          ".controls button:not([disabled]), .controls textarea, .controls input, .controls select",
        );
        control?.focus();
      },
      "/": () => searchRef.current?.focus(),
      "?": () => setHelp(true),
      Escape: () => {
        setNotice(null);
        focusList();
      },
    },
    !help,
  );

  // After an answer leaves, the next pending question opens by itself (inbox zero).
  const onResolved = useCallback(
    (key: string, card: Card) => (delivery: Delivery, summary: string) => {
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
      setNotice({ key, title: firstLine(card.interaction.prompt), summary, delivery: delivery.state });
      setSelectedKey(next ?? key);
    },
    [],
  );

  const allowRemote = (card: Card) => async (scope: "question" | "sender") => {
    try {
      setSettings(
        await backend.allowRemoteImages(
          scope === "question" ? { account: card.account, id: card.interaction.id } : { account: card.account, sender: card.interaction.asker },
        ),
      );
    } catch (raw) {
      setLoadError(BackendError.from(raw).message);
    }
  };

  const viewCounts = useMemo(
    () => ({ inbox: viewCount(inbox, "inbox"), answered: 0, expired: 0, all: inbox.cards.size }),
    [inbox],
  );
  const perAccount = useMemo(() => Object.fromEntries(inbox.accounts.map((a) => [a.id, accountCounts(inbox, a.id)])), [inbox]);
  const queued = Object.values(perAccount).reduce((n, c) => n + c.queued, 0);
  const nothingPending = inbox.loaded && viewCounts.inbox === 0;
  const notifications = useMemo(() => notificationRows(inbox), [inbox]);
  const notificationsUnread = notifications.filter((r) => !r.notification.read_at).length;

  return (
    <div className="app">
      <Sidebar
        view={filter.view}
        onView={(view) => {
          setShowNotifications(false);
          setFilter({ ...filter, view });
          setSelectedKey(null);
        }}
        notificationsOpen={showNotifications}
        onNotifications={() => setShowNotifications(true)}
        notificationCount={notifications.length}
        notificationsUnread={notificationsUnread}
        viewCounts={viewCounts}
        accounts={inbox.accounts}
        connections={inbox.connections}
        pendingByAccount={Object.fromEntries(Object.entries(perAccount).map(([k, c]) => [k, c.pending]))}
        account={filter.account}
        onAccount={(account) => setFilter({ ...filter, account })}
        doNotDisturb={dnd}
        onDoNotDisturb={(on) => {
          setDnd(on);
          void backend.setDoNotDisturb(on);
        }}
        onAddAccount={async (a) => {
          try {
            await backend.addAccount(a);
          } catch (raw) {
            return BackendError.from(raw).message;
          }
          // The account list comes with a snapshot: read one, or the new account shows only
          // after a restart.
          await reloadSnapshot();
          return null;
        }}
        onRemoveAccount={(id) => void backend.removeAccount(id).then(reloadSnapshot)}
        onSettings={() => setSettingsOpen(true)}
      />
      {showNotifications ? (
        <NotificationsView rows={notifications} accounts={inbox.accounts} backend={backend} />
      ) : (
        <>
      <QuestionList
        rows={rows}
        accounts={inbox.accounts}
        filter={filter}
        onFilter={setFilter}
        grouped={grouped}
        onGrouped={setGrouped}
        selectedKey={selectedKey}
        onSelect={setSelectedKey}
        searchRef={searchRef}
        failed={failed}
        onRowFailure={onRenderFailure}
      />
      <main className="question-pane" ref={paneRef} aria-label="Open question">
        {loadError && (
          <p className="form-error" role="alert">
            Could not load the inbox: {loadError}
          </p>
        )}
        {notice && notice.key !== selectedKey && (
          <div className={`notice notice-${notice.delivery}`} role="status">
            <span>
              <span aria-hidden="true">{notice.delivery === "queued" ? "⇪ " : "✓ "}</span>
              {notice.delivery === "queued" ? "Queued" : "Sent"} “{notice.title}” — {notice.summary}
            </span>
            <button type="button" className="quiet" onClick={() => setSelectedKey(notice.key)}>
              Show
            </button>
          </div>
        )}
        {settingsOpen ? (
          <SettingsPanel
            backend={backend}
            settings={settings}
            onSettings={setSettings}
            accounts={inbox.accounts}
            connections={inbox.connections}
            onAccountsChanged={() => void reloadSnapshot()}
            onRemoveAccount={(id) => void backend.removeAccount(id).then(reloadSnapshot)}
            onClose={() => setSettingsOpen(false)}
          />
        ) : selected && selectedKey ? (
          <ErrorBoundary
            key={selectedKey}
            unit="question"
            subject={selectedKey}
            onFailure={onRenderFailure(selectedKey)}
            fallback={(reason) => <QuestionFallback card={selected} reason={reason} backend={backend} onResolved={onResolved(selectedKey, selected)} />}
          >
            <RenderWatch subject={selectedKey}>
              {selectedPark && <ParkBanner park={selectedPark} current={selected.interaction.park?.index} />}
              <QuestionView
                card={selected}
                account={inbox.accounts.find((a) => a.id === selected.account)}
                backend={backend}
                remoteAllowed={remoteAllowedFor(settings, selected)}
                onAllowRemote={allowRemote(selected)}
                onResolved={onResolved(selectedKey, selected)}
                keysEnabled={!help}
                onFailure={onRenderFailure(selectedKey)}
              />
            </RenderWatch>
          </ErrorBoundary>
        ) : nothingPending ? (
          <EmptyState hint={inbox.localHint} />
        ) : inbox.loaded ? (
          <p className="muted pane-hint">Select a question.</p>
        ) : (
          <p className="muted pane-hint">Loading…</p>
        )}
      </main>
        </>
      )}
      <StatusBar accounts={inbox.accounts} connections={inbox.connections} queued={queued} onShortcuts={() => setHelp(true)} />
      {help && <ShortcutsOverlay onClose={() => setHelp(false)} />}
    </div>
  );
}
