import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Backend } from "../backend/Backend";
import { BackendProvider, useBackend } from "../backend/BackendContext";
import { BackendError } from "../backend/BackendError";
import type { Card, Delivery, OpenRequest } from "../backend/types";
import { useHotkeys } from "../hooks/useHotkeys";
import { useInbox } from "../hooks/useInbox";
import { useSelection } from "../hooks/useSelection";
import { useSettings } from "../hooks/useSettings";
import {
  accountCounts,
  anyPending,
  listRows,
  notificationRows,
  parkGroups,
  rowOrder,
  totalCounts,
  visibleCards,
  type ListFilter,
  type View,
} from "../state/inbox";
import { ErrorBoundary } from "../boundary/ErrorBoundary";
import { QuestionFallback } from "../boundary/QuestionFallback";
import { RenderWatch } from "../boundary/RenderWatch";
import { clearOpening, loadFailures, recordFailure, type FailedQuestions } from "../boundary/renderFailures";
import { afterFirstPaint } from "../lib/afterFirstPaint";
import { preloadFormAnswer } from "./controls/LazyFormAnswer";
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
import { FormError } from "./FormError";

export type AppProps = {
  backend: Backend;
  /** Opening state, for the screenshots and the dev server (`?select=ia_…&view=all`). */
  initial?: { select?: string; view?: View };
};

type Initial = AppProps["initial"];

type Notice = { key: string; title: string; summary: string; delivery: Delivery["state"] };

const everything = (view: View): ListFilter => ({ view, account: null, format: null, unreadOnly: false, search: "" });

/** The whole window over one backend, which every part below reaches through `useBackend`. */
export function App({ backend, initial }: AppProps) {
  return (
    <BackendProvider backend={backend}>
      <Window initial={initial} />
    </BackendProvider>
  );
}

function Window({ initial }: { initial: Initial }) {
  const backend = useBackend();
  const [filter, setFilter] = useState<ListFilter>(() => everything(initial?.view ?? "inbox"));
  const [grouped, setGrouped] = useState(false);
  const [showNotifications, setShowNotifications] = useState(false);
  const [help, setHelp] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [notice, setNotice] = useState<Notice | null>(null);
  // Questions whose content failed to draw (this run or an earlier one): never opened by themselves.
  const [failed, setFailed] = useState<FailedQuestions>(() => loadFailures());
  const onRenderFailure = useCallback((key: string) => (reason: string) => {
    clearOpening(key);
    setFailed((f) => recordFailure(f, key, reason));
  }, []);
  const searchRef = useRef<HTMLInputElement>(null);
  const paneRef = useRef<HTMLElement>(null);
  // The form chunk is left out of start-up; fetched once the first frame is up, a form opens at once.
  useEffect(() => afterFirstPaint(() => void preloadFormAnswer()), []);

  // A notification click shows the question whatever the list was filtered to.
  const selectRef = useRef<(key: string) => void>(() => {});
  const onOpen = useCallback((req: OpenRequest) => {
    setFilter(everything("all"));
    selectRef.current(`${req.account}/${req.id}`);
  }, []);
  const { inbox, doNotDisturb, setDoNotDisturb, loadError, reportError, reloadSnapshot } = useInbox(backend, onOpen);
  const [settings, setSettings] = useSettings(backend, reportError);

  const cards = useMemo(() => visibleCards(inbox, filter), [inbox, filter]);
  const parks = useMemo(() => parkGroups(inbox), [inbox]);
  const rows = useMemo(() => listRows(cards, inbox.accounts, grouped, parks), [cards, inbox.accounts, grouped, parks]);
  const order = useMemo(() => rowOrder(rows), [rows]);
  const { selectedKey, select, selected, selectedPark, move, nextAfter } = useSelection({
    backend,
    inbox,
    order,
    parks,
    failed,
    initialSelect: initial?.select,
  });
  selectRef.current = select;

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
      setNotice({ key, title: firstLine(card.interaction.prompt), summary, delivery: delivery.state });
      select(nextAfter(key, card));
    },
    [select, nextAfter],
  );

  const allowRemote = (card: Card) => async (scope: "question" | "sender") => {
    try {
      setSettings(
        await backend.allowRemoteImages(
          scope === "question" ? { account: card.account, id: card.interaction.id } : { account: card.account, sender: card.interaction.asker },
        ),
      );
    } catch (raw) {
      reportError(raw);
    }
  };

  const removeAccount = (id: string) => void backend.removeAccount(id).then(reloadSnapshot);

  // Every number the window shows is the engine's (the snapshot's and each batch's counts).
  const total = useMemo(() => totalCounts(inbox), [inbox]);
  const pendingByAccount = useMemo(() => Object.fromEntries(inbox.accounts.map((a) => [a.id, accountCounts(inbox, a.id).pending])), [inbox]);
  const nothingPending = inbox.loaded && !anyPending(inbox);
  const notifications = useMemo(() => notificationRows(inbox), [inbox]);

  return (
    <div className="app">
      <Sidebar
        view={filter.view}
        onView={(view) => {
          setShowNotifications(false);
          setFilter({ ...filter, view });
          select(null);
        }}
        notificationsOpen={showNotifications}
        onNotifications={() => setShowNotifications(true)}
        notificationCount={notifications.length}
        notificationsUnread={total.notifications_unread}
        inboxCount={total.pending}
        accounts={inbox.accounts}
        connections={inbox.connections}
        pendingByAccount={pendingByAccount}
        account={filter.account}
        onAccount={(account) => setFilter({ ...filter, account })}
        doNotDisturb={doNotDisturb}
        onDoNotDisturb={setDoNotDisturb}
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
        onRemoveAccount={removeAccount}
        onSettings={() => setSettingsOpen(true)}
        loaded={inbox.loaded || loadError !== null}
      />
      {showNotifications ? (
        <NotificationsView rows={notifications} accounts={inbox.accounts} />
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
            onSelect={select}
            searchRef={searchRef}
            failed={failed}
            onRowFailure={onRenderFailure}
          />
          <main className="question-pane" ref={paneRef} aria-label="Open question">
            <FormError message={loadError && `Could not load the inbox: ${loadError}`} />
            {notice && notice.key !== selectedKey && (
              <div className={`notice notice-${notice.delivery}`} role="status">
                <span>
                  <span aria-hidden="true">{notice.delivery === "queued" ? "⇪ " : "✓ "}</span>
                  {notice.delivery === "queued" ? "Queued" : "Sent"} “{notice.title}” — {notice.summary}
                </span>
                <button type="button" className="quiet" onClick={() => select(notice.key)}>
                  Show
                </button>
              </div>
            )}
            {settingsOpen ? (
              <SettingsPanel
                settings={settings}
                onSettings={setSettings}
                accounts={inbox.accounts}
                connections={inbox.connections}
                onAccountsChanged={() => void reloadSnapshot()}
                onRemoveAccount={removeAccount}
                onClose={() => setSettingsOpen(false)}
              />
            ) : selected && selectedKey ? (
              <ErrorBoundary
                key={selectedKey}
                unit="question"
                subject={selectedKey}
                onFailure={onRenderFailure(selectedKey)}
                fallback={(reason) => <QuestionFallback card={selected} reason={reason} onResolved={onResolved(selectedKey, selected)} />}
              >
                <RenderWatch subject={selectedKey}>
                  {selectedPark && <ParkBanner park={selectedPark} current={selected.interaction.park?.index} />}
                  <QuestionView
                    card={selected}
                    account={inbox.accounts.find((a) => a.id === selected.account)}
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
      <StatusBar accounts={inbox.accounts} connections={inbox.connections} queued={total.queued} onShortcuts={() => setHelp(true)} />
      {help && <ShortcutsOverlay onClose={() => setHelp(false)} />}
    </div>
  );
}
