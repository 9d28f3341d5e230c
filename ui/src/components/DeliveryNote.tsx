import type { Card } from "../backend/types";
import { relativeAge } from "../lib/time";
import { answerText } from "./Resolution";

/** Where the reviewer's own answer is on its way to the server. */
export function DeliveryNote({ card, accountLabel, now }: { card: Card; accountLabel: string; now: number }) {
  const d = card.delivery;
  if (!d) return null;
  switch (d.state) {
    case "queued":
      return (
        <p className="delivery queued" role="status">
          <span aria-hidden="true">⇪ </span>Queued — your {card.outgoing?.kind === "decline" ? "decline" : "answer"}
          {card.outgoing?.kind === "answer" && ` “${answerText(card.interaction, card.outgoing.value)}”`} will be sent when {accountLabel} is back
          online.
        </p>
      );
    case "sending":
      return (
        <p className="delivery sending" role="status">
          <span aria-hidden="true">↑ </span>Sending…
        </p>
      );
    case "accepted":
      return (
        <p className="delivery accepted" role="status">
          <span aria-hidden="true">✓ </span>Delivered
        </p>
      );
    case "rejected":
      return (
        <div className="delivery rejected" role="alert">
          <p>
            <span aria-hidden="true">✕ </span>
            {d.code === "already_answered" && d.winner
              ? `Already answered by ${d.winner.answered_by} · ${relativeAge(d.winner.answered_at, now)}`
              : `Not accepted: ${d.message}`}
          </p>
          {d.code === "already_answered" && d.winner && (
            <p className="muted">
              Their answer: {d.winner.value === null ? "declined" : answerText(card.interaction, d.winner.value)}
            </p>
          )}
        </div>
      );
  }
}
