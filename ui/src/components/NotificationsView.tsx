// The notifications, apart from the questions: a list (newest first, unread marked) and the
// open one with its text, its form if it offers one, and Dismiss. Nothing here blocks anyone:
// a submission is welcome whenever it is sent, and the notification stays until dismissed.
import { useEffect, useMemo, useState } from "react";
import { useBackend } from "../backend/BackendContext";
import { BackendError } from "../backend/BackendError";
import type { Account, Interaction, Notification } from "../backend/types";
import { ErrorBoundary } from "../boundary/ErrorBoundary";
import { absoluteTime, shortAge } from "../lib/time";
import type { NotificationRow } from "../state/inbox";
import { pendingQuestion } from "../state/pendingQuestion";
import { FormAnswer } from "./controls/LazyFormAnswer";
import { MediaBubbles } from "./MediaBubbles";
import { FormError } from "./FormError";

type Props = {
  rows: NotificationRow[];
  accounts: Account[];
};

export function NotificationsView({ rows, accounts }: Props) {
  const backend = useBackend();
  const [selectedKey, setSelectedKey] = useState<string | null>(null);
  const selected = rows.find((r) => r.key === selectedKey) ?? rows[0];
  const now = Date.now();

  // Opening a notification reads it (once: the backend ignores a repeat).
  useEffect(() => {
    if (selected && !selected.notification.read_at) {
      void backend.openNotification({ account: selected.account, id: selected.notification.id });
    }
  }, [selected?.key, selected?.notification.read_at]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <>
      <section className="question-list notification-list" aria-label="Notifications">
        <h2 className="list-heading">Notifications</h2>
        {rows.length === 0 ? (
          <p className="muted pane-hint">No notifications.</p>
        ) : (
          <ul data-testid="notification-list">
            {rows.map((r) => {
              const n = r.notification;
              const active = selected?.key === r.key;
              return (
                <li key={r.key}>
                  <button
                    type="button"
                    className={`row${active ? " selected" : ""}${n.read_at ? "" : " unread"}`}
                    aria-current={active ? "true" : undefined}
                    onClick={() => setSelectedKey(r.key)}
                  >
                    {!n.read_at && <span className="dot" aria-label="unread" />}
                    <span className="row-title">{n.prompt.split("\n")[0]}</span>
                    <span className="row-meta">
                      {n.asker} · {shortAge(n.created_at, now)}
                      {n.schema ? " · form" : ""}
                    </span>
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      </section>
      <main className="question-pane" aria-label="Open notification">
        {selected ? (
          <ErrorBoundary key={selected.key} unit="notification" subject={selected.key} onFailure={() => undefined} fallback={(reason) => <p role="alert">This notification could not be shown: {reason}</p>}>
            <NotificationDetail
              key={selected.key}
              account={selected.account}
              accountView={accounts.find((a) => a.id === selected.account)}
              notification={selected.notification}
              onDismissed={() => setSelectedKey(null)}
            />
          </ErrorBoundary>
        ) : (
          <p className="muted pane-hint">Nothing to show.</p>
        )}
      </main>
    </>
  );
}

/** The form question a notification's form is drawn as (the same components as a form answer). */
function asFormQuestion(n: Notification): Interaction {
  const { id, prompt, schema, data, asker, created_at, metadata } = n;
  return pendingQuestion({ id, kind: "notification", prompt, answer_format: "form", schema, data, asker, created_at, metadata });
}

function NotificationDetail(props: {
  account: string;
  accountView: Account | undefined;
  notification: Notification;
  onDismissed: () => void;
}) {
  const { account, notification: n } = props;
  const backend = useBackend();
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [remoteAllowed, setRemoteAllowed] = useState(false);
  // A fresh form after each submission, so another one can be sent.
  const [round, setRound] = useState(0);
  const question = useMemo(() => (n.schema ? asFormQuestion(n) : null), [n]);

  const submit = async (value: unknown): Promise<BackendError | null> => {
    setBusy(true);
    setError(null);
    try {
      const s = await backend.submitNotification({ account, id: n.id, value });
      setSent(s.ordinal);
      setRound((r) => r + 1);
      return null;
    } catch (raw) {
      const err = BackendError.from(raw);
      if (!err.field) setError(err.message);
      return err;
    } finally {
      setBusy(false);
    }
  };

  return (
    <article className="question notification" data-testid="notification-view">
      <header className="question-head">
        <h1 className="prompt">{n.prompt}</h1>
        <p className="muted">
          From {n.asker} · <time dateTime={n.created_at}>{absoluteTime(n.created_at)}</time>
          {n.submissions > 0 && ` · ${n.submissions} submitted`}
        </p>
      </header>
      {n.body && <p className="notification-body">{n.body}</p>}
      {n.media.length > 0 && (
        <MediaBubbles
          media={n.media}
          account={props.accountView}
          asker={n.asker}
          questionId={n.id}
          remoteAllowed={remoteAllowed}
          onAllowRemote={() => setRemoteAllowed(true)}
        />
      )}
      {question && (
        <section className="controls" aria-label="Form">
          <FormAnswer key={round} interaction={question} busy={busy} onAnswer={submit} />
        </section>
      )}
      {sent !== null && (
        <p className="notice notice-accepted" role="status">
          Sent (submission {sent}). You may send another whenever you like.
        </p>
      )}
      <FormError message={error} />
      <div className="form-buttons">
        <button
          type="button"
          className="quiet"
          onClick={async () => {
            await backend.dismissNotification({ account, id: n.id });
            props.onDismissed();
          }}
        >
          Dismiss
        </button>
      </div>
    </article>
  );
}
