import type { Card } from "../backend/types";
import { countdown, secondsLeft, shortAge } from "../lib/time";
import { STATUS_MARKS, firstLine } from "./labels";

/** Under this many seconds left, the row shows a countdown. */
const SOON_SECONDS = 3600;

type Props = {
  card: Card;
  id: string;
  selected: boolean;
  now: number;
  accountLabel: string | null;
  onSelect: () => void;
  /** Why this question's content failed to draw, if it did. */
  failure?: string;
};

export function QuestionRow({ card, id, selected, now, accountLabel, onSelect, failure }: Props) {
  const i = card.interaction;
  const pending = i.status === "pending";
  const left = pending ? secondsLeft(i.expires_at, now) : null;
  // An async question's deadline is the whole point of it: its countdown always shows.
  const soon = left !== null && left > 0 && (i.mode === "async" || left < SOON_SECONDS) ? countdown(i.expires_at, now) : null;
  const unread = card.unread && pending;
  const status = STATUS_MARKS[i.status];
  const steps = i.answer_format === "form" && i.pages && i.pages.length > 1 ? `${i.pages.length} steps` : null;
  return (
    <div
      id={id}
      role="option"
      aria-selected={selected}
      className={`qrow${selected ? " selected" : ""}${unread ? " unread" : ""}${pending ? "" : " resolved"}${failure ? " failed" : ""}`}
      onClick={onSelect}
      data-key={`${card.account}/${i.id}`}
    >
      <span className="row-dot" aria-label={unread ? "Unread" : undefined}>
        {unread ? "●" : ""}
      </span>
      <span className="row-main">
        <span className="row-title">{firstLine(i.prompt)}</span>
        <span className="row-sub">
          {i.asker}
          {" · "}
          {i.answer_format}
          {steps && ` · ${steps}`}
          {accountLabel && ` · ${accountLabel}`}
          {!pending && (
            <span className={`row-status status-${i.status}`}>
              {" · "}
              {status.mark} {status.text}
            </span>
          )}
          {failure && (
            <span className="row-status status-failed" title={failure}>
              {" · "}⚠ Could not display
            </span>
          )}
          {card.delivery?.state === "queued" && <span className="row-status status-queued"> · ⇪ Queued</span>}
          {soon && (
            <span className="row-countdown" title="Time left to answer">
              {" · ◷ "}
              {soon}
            </span>
          )}
        </span>
      </span>
      <span className="row-age">{shortAge(i.created_at, now)}</span>
    </div>
  );
}

/** A row whose own drawing failed: still there, still selectable, saying what happened. */
export function FailedRow({ rowKey, id, selected, onSelect }: { rowKey: string; id: string; selected: boolean; onSelect: () => void }) {
  return (
    <div id={id} role="option" aria-selected={selected} className={`qrow failed${selected ? " selected" : ""}`} onClick={onSelect} data-key={rowKey}>
      <span className="row-dot" />
      <span className="row-main">
        <span className="row-title">This question could not be displayed</span>
        <span className="row-sub">
          <span className="row-status status-failed">⚠ Could not display</span>
        </span>
      </span>
    </div>
  );
}
