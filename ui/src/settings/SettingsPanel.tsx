import { useEffect, useState } from "react";
import type { Preferences, SettingsView } from "../backend/Backend";
import { useBackend } from "../backend/BackendContext";
import { BackendError } from "../backend/BackendError";
import type { Account, ConnectionStatus } from "../backend/types";
import { connectionMark } from "../components/StatusBar";
import "./theme.css";
import { FormError } from "../components/FormError";

type Props = {
  settings: SettingsView | null;
  /** The app answered with new settings (after any change made here). */
  onSettings: (s: SettingsView) => void;
  accounts: Account[];
  connections: Partial<Record<string, ConnectionStatus>>;
  /** Accounts changed (renamed or removed): the window reloads its snapshot. */
  onAccountsChanged: () => void;
  onRemoveAccount: (id: string) => void;
  onClose: () => void;
};

/**
 * The Settings view. Everything here is kept by the app (Rust): each change is sent at once and
 * the view redraws from what the app answers, so what is shown is what was saved.
 */
export function SettingsPanel(props: Props) {
  const { settings, onSettings } = props;
  const backend = useBackend();
  const [error, setError] = useState<string | null>(null);

  const run = async (change: () => Promise<SettingsView | void>) => {
    try {
      const next = await change();
      if (next) onSettings(next);
      setError(null);
    } catch (raw) {
      const e = BackendError.from(raw);
      setError(e.field ? `${e.field}: ${e.message}` : e.message);
    }
  };
  if (!settings) return <p className="muted pane-hint">Loading settings…</p>;
  const prefs = settings.preferences;
  const save = (patch: (p: Preferences) => Preferences) => run(() => backend.savePreferences(patch(structuredClone(prefs))));

  return (
    <section className="settings" aria-label="Settings">
      <header className="settings-head">
        <h2>Settings</h2>
        <button type="button" className="quiet" onClick={props.onClose}>
          Close
        </button>
      </header>
      <FormError message={error} />

      <fieldset>
        <legend>Notifications</legend>
        <Check label="Show notifications for new questions" checked={prefs.notifications.enabled} onChange={(on) => save((p) => ({ ...p, notifications: { ...p.notifications, enabled: on } }))} />
        <Check label="Only when the window is hidden" checked={prefs.notifications.only_when_hidden} onChange={(on) => save((p) => ({ ...p, notifications: { ...p.notifications, only_when_hidden: on } }))} />
        <Check label="Play a sound" checked={prefs.notifications.sound} onChange={(on) => save((p) => ({ ...p, notifications: { ...p.notifications, sound: on } }))} />
      </fieldset>

      <fieldset>
        <legend>Do not disturb schedule</legend>
        <Check label="Every day, no notifications between" checked={prefs.quiet_hours.enabled} onChange={(on) => save((p) => ({ ...p, quiet_hours: { ...p.quiet_hours, enabled: on } }))} />
        <TimeField label="From" value={prefs.quiet_hours.from} onCommit={(v) => save((p) => ({ ...p, quiet_hours: { ...p.quiet_hours, from: v } }))} />
        <TimeField label="To" value={prefs.quiet_hours.to} onCommit={(v) => save((p) => ({ ...p, quiet_hours: { ...p.quiet_hours, to: v } }))} />
      </fieldset>

      <fieldset>
        <legend>Theme</legend>
        {(["system", "light", "dark"] as const).map((t) => (
          <label key={t} className="check">
            <input type="radio" name="theme" value={t} checked={prefs.theme === t} onChange={() => save((p) => ({ ...p, theme: t }))} />
            {t === "system" ? "Follow the system" : t === "light" ? "Light" : "Dark"}
          </label>
        ))}
      </fieldset>

      <fieldset>
        <legend>Start</legend>
        <Check
          label="Start Interactions Inbox at login"
          checked={settings.autostart === true}
          disabled={settings.autostart === null}
          onChange={(on) => run(() => backend.setAutostart(on))}
        />
        {settings.autostart === null && <p className="muted">Starting at login is not available here.</p>}
      </fieldset>

      <fieldset>
        <legend>Remote media</legend>
        <p className="muted">Images, video and audio from other hosts load only after you allow them. Senders allowed for good:</p>
        {settings.remote_senders.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <ul className="settings-list" aria-label="Senders allowed to show remote media">
            {settings.remote_senders.map((s) => (
              <li key={`${s.account}/${s.sender}`}>
                <span>
                  {s.sender} <span className="muted">on {props.accounts.find((a) => a.id === s.account)?.label ?? s.account}</span>
                </span>
                <button type="button" className="quiet" aria-label={`Revoke ${s.sender}`} onClick={() => run(() => backend.revokeRemoteSender(s))}>
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        )}
      </fieldset>

      <fieldset>
        <legend>Accounts</legend>
        <ul className="settings-list">
          {props.accounts.map((a) => (
            <AccountRow key={a.id} account={a} status={props.connections[a.id]} onChanged={props.onAccountsChanged} onRemove={props.onRemoveAccount} />
          ))}
        </ul>
      </fieldset>

      <fieldset>
        <legend>Logs</legend>
        {settings.logs_dir && <p className="muted">{settings.logs_dir}</p>}
        <button type="button" onClick={() => run(() => backend.openLogsFolder())} disabled={!settings.logs_dir}>
          Open logs folder
        </button>
      </fieldset>
    </section>
  );
}

function Check(props: { label: string; checked: boolean; disabled?: boolean; onChange: (on: boolean) => void }) {
  return (
    <label className="check">
      <input type="checkbox" checked={props.checked} disabled={props.disabled} onChange={(e) => props.onChange(e.target.checked)} />
      {props.label}
    </label>
  );
}

/** A time kept as typed until it leaves the field, then sent (the app says if it is not a time). */
function TimeField(props: { label: string; value: string; onCommit: (v: string) => void }) {
  const [draft, setDraft] = useState(props.value);
  useEffect(() => setDraft(props.value), [props.value]);
  return (
    <label className="settings-time">
      {props.label}
      <input type="time" value={draft} onChange={(e) => setDraft(e.target.value)} onBlur={() => draft !== props.value && props.onCommit(draft)} />
    </label>
  );
}

function AccountRow(props: {
  account: Account;
  status: ConnectionStatus | undefined;
  onChanged: () => void;
  onRemove: (id: string) => void;
}) {
  const { account } = props;
  const backend = useBackend();
  const [label, setLabel] = useState(account.label);
  const [result, setResult] = useState<string | null>(null);
  useEffect(() => setLabel(account.label), [account.label]);
  const mark = connectionMark(props.status);
  return (
    <li className="settings-account">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          try {
            await backend.renameAccount({ account: account.id, label: label.trim() });
            setResult("Saved.");
            props.onChanged();
          } catch (raw) {
            setResult(BackendError.from(raw).message);
          }
        }}
      >
        <label>
          Name of {account.url}
          <input type="text" value={label} onChange={(e) => setLabel(e.target.value)} />
        </label>
        <span className={`conn conn-${mark.state}`}>
          {mark.shape} {mark.text}
        </span>
        <button type="submit" disabled={label.trim() === "" || label.trim() === account.label}>
          Save
        </button>
        <button
          type="button"
          onClick={async () => {
            setResult("Testing…");
            try {
              setResult(await backend.testAccount(account.id));
            } catch (raw) {
              setResult(`Failed: ${BackendError.from(raw).message}`);
            }
          }}
        >
          Test connection
        </button>
        {!account.local && (
          <button type="button" className="quiet" onClick={() => props.onRemove(account.id)}>
            Remove
          </button>
        )}
      </form>
      {result && (
        <p className="muted" role="status">
          {result}
        </p>
      )}
    </li>
  );
}
