import { useState } from "react";
import type { Account, ConnectionStatus } from "../backend/types";
import { VIEWS, type View } from "../state/inbox";
import { connectionMark } from "./StatusBar";
import { FormError } from "./FormError";

type Props = {
  view: View;
  onView: (v: View) => void;
  /** The notifications view is showing (instead of a question view). */
  notificationsOpen: boolean;
  onNotifications: () => void;
  /** Outstanding notifications, and how many of them are unread (the engine's count). */
  notificationCount: number;
  notificationsUnread: number;
  /** Questions waiting for the reviewer, over every account (the engine's pending count). */
  inboxCount: number;
  accounts: Account[];
  connections: Partial<Record<string, ConnectionStatus>>;
  /** Each account's pending count, as the engine reported it. */
  pendingByAccount: Record<string, number>;
  account: string | null;
  onAccount: (id: string | null) => void;
  doNotDisturb: boolean;
  onDoNotDisturb: (on: boolean) => void;
  onAddAccount: (a: { url: string; token: string; label: string }) => Promise<string | null>;
  onRemoveAccount: (id: string) => void;
  onSettings?: () => void;
  /**
   * The first snapshot is in (or could not be read). Until then only the views are drawn: the
   * accounts arrive with it and would push what stands below them down, under a click aimed at it.
   */
  loaded: boolean;
};

export function Sidebar(props: Props) {
  const [adding, setAdding] = useState(false);
  return (
    <nav className="sidebar" aria-label="Views and accounts">
      <ul className="views">
        {VIEWS.map((v) => (
          <li key={v.id}>
            <button
              type="button"
              className={`nav-item${!props.notificationsOpen && props.view === v.id ? " active" : ""}`}
              aria-current={!props.notificationsOpen && props.view === v.id ? "page" : undefined}
              onClick={() => props.onView(v.id)}
            >
              <span>{v.label}</span>
              {v.id === "inbox" && props.inboxCount > 0 && <span className="count">{props.inboxCount}</span>}
            </button>
          </li>
        ))}
        <li>
          <button
            type="button"
            className={`nav-item${props.notificationsOpen ? " active" : ""}`}
            aria-current={props.notificationsOpen ? "page" : undefined}
            onClick={props.onNotifications}
          >
            <span>Notifications</span>
            {props.notificationCount > 0 && (
              <span className={`count${props.notificationsUnread > 0 ? " unread" : ""}`} title={`${props.notificationsUnread} unread`}>
                {props.notificationCount}
              </span>
            )}
          </button>
        </li>
      </ul>
      {props.loaded && (
        <>
          <h2 className="sidebar-heading">Accounts</h2>
          <ul className="accounts">
            {props.accounts.map((a) => {
              const mark = connectionMark(props.connections[a.id]);
              const active = props.account === a.id;
              return (
                <li key={a.id} className="account-item">
                  <button
                    type="button"
                    className={`nav-item${active ? " active" : ""}`}
                    aria-pressed={active}
                    title={`${a.url} · ${mark.text}`}
                    onClick={() => props.onAccount(active ? null : a.id)}
                  >
                    <span className={`conn conn-${mark.state}`} aria-label={mark.text}>
                      {mark.shape}
                    </span>
                    <span className="account-label">{a.label}</span>
                    {(props.pendingByAccount[a.id] ?? 0) > 0 && <span className="count">{props.pendingByAccount[a.id]}</span>}
                  </button>
                  {!a.local && (
                    <button type="button" className="quiet remove" aria-label={`Remove account ${a.label}`} onClick={() => props.onRemoveAccount(a.id)}>
                      ×
                    </button>
                  )}
                </li>
              );
            })}
          </ul>
          {adding ? (
            <AddAccountForm onCancel={() => setAdding(false)} onAdd={props.onAddAccount} onDone={() => setAdding(false)} />
          ) : (
            <button type="button" className="quiet add-account" onClick={() => setAdding(true)}>
              + Add account
            </button>
          )}
          <label className="check dnd">
            <input type="checkbox" checked={props.doNotDisturb} onChange={(e) => props.onDoNotDisturb(e.target.checked)} />
            Do not disturb
          </label>
          {props.onSettings && (
            <button type="button" className="quiet settings-open" onClick={props.onSettings}>
              Settings
            </button>
          )}
        </>
      )}
    </nav>
  );
}

function AddAccountForm(props: {
  onAdd: (a: { url: string; token: string; label: string }) => Promise<string | null>;
  onCancel: () => void;
  onDone: () => void;
}) {
  const [url, setUrl] = useState("https://");
  const [label, setLabel] = useState("");
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="add-account-form"
      onSubmit={async (e) => {
        e.preventDefault();
        const err = await props.onAdd({ url: url.trim(), token, label: label.trim() });
        // The token is handed to the app (which keeps it in the OS keyring) and forgotten here.
        setToken("");
        if (err) setError(err);
        else props.onDone();
      }}
    >
      <label>
        Server URL
        <input type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
      </label>
      <label>
        Name
        <input type="text" value={label} onChange={(e) => setLabel(e.target.value)} />
      </label>
      <label>
        Reviewer token
        <input type="password" required autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} />
      </label>
      <FormError message={error} />
      <div className="form-buttons">
        <button type="button" className="quiet" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary">
          Add
        </button>
      </div>
    </form>
  );
}
