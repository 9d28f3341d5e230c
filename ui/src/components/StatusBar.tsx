import type { Account, ConnectionStatus } from "../backend/types";
import { useNow } from "../hooks/useNow";
import { parseTime } from "../lib/time";

type Mark = { state: ConnectionStatus["state"] | "unknown"; shape: string; text: string };

/** Each connection state has its own shape and words, so colour is never the only signal. */
export function connectionMark(s: ConnectionStatus | undefined, now = Date.now()): Mark {
  switch (s?.state) {
    case "online":
      return { state: "online", shape: "●", text: "Online" };
    case "connecting":
      return { state: "connecting", shape: "◌", text: "Connecting" };
    case "reconnecting": {
      const at = parseTime(s.next_try_at);
      const secs = at === null ? null : Math.max(0, Math.ceil((at - now) / 1000));
      return { state: "reconnecting", shape: "○", text: secs === null || secs === 0 ? "Reconnecting" : `Reconnecting in ${secs} s` };
    }
    case "offline":
      return { state: "offline", shape: "✕", text: "Offline" };
    case "signed_out":
      return { state: "signed_out", shape: "⊘", text: "Signed out" };
    default:
      return { state: "unknown", shape: "?", text: "Unknown" };
  }
}

type Props = {
  accounts: Account[];
  connections: Partial<Record<string, ConnectionStatus>>;
  queued: number;
  onShortcuts: () => void;
};

export function StatusBar({ accounts, connections, queued, onShortcuts }: Props) {
  const now = useNow();
  return (
    <footer className="statusbar" role="contentinfo">
      <ul className="connections" aria-label="Connections">
        {accounts.map((a) => {
          const m = connectionMark(connections[a.id], now);
          return (
            <li key={a.id} className={`conn-item conn-${m.state}`}>
              <span className="conn" aria-hidden="true">
                {m.shape}
              </span>{" "}
              {m.text} · {a.label}
            </li>
          );
        })}
      </ul>
      {queued > 0 && (
        <span className="queued" role="status">
          <span aria-hidden="true">⇪ </span>
          {queued === 1 ? "1 answer queued" : `${queued} answers queued`}
        </span>
      )}
      <button type="button" className="quiet shortcuts-button" onClick={onShortcuts} aria-keyshortcuts="?">
        <kbd>?</kbd> shortcuts
      </button>
    </footer>
  );
}
