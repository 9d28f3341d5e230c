import type { Card, Interaction } from "../backend/types";
import { perSendSchema, displayValue, isObject } from "../lib/formSchema";
import { absoluteTime, relativeAge } from "../lib/time";

/** How an answer value reads to a person, by format. */
export function answerText(i: Interaction, value: unknown): string {
  switch (i.answer_format) {
    case "confirm":
      return value === true ? "Yes" : value === false ? "No" : JSON.stringify(value);
    case "select": {
      const o = i.options.find((x) => x.value === value);
      return o ? (o.label && o.label !== o.value ? `${o.label} (${o.value})` : o.value) : String(value);
    }
    case "text":
      return typeof value === "string" ? value : JSON.stringify(value);
    default:
      return JSON.stringify(value, null, 2);
  }
}

/** The outcome of a question that is no longer pending: what was answered, by whom, when. */
export function Resolution({ card, now }: { card: Card; now: number }) {
  const i = card.interaction;
  const a = i.answer;
  switch (i.status) {
    case "pending":
      return null;
    case "answered":
      return (
        <section className="resolution answered" aria-label="Answer">
          <p className="resolution-head">
            <span aria-hidden="true">✓ </span>
            Answered by <strong>{a?.answered_by ?? "someone"}</strong>
            {a && <span title={absoluteTime(a.answered_at)}> · {relativeAge(a.answered_at, now)}</span>}
          </p>
          {a && <AnswerValue interaction={i} value={a.value} />}
          {a?.params && Object.keys(a.params).length > 0 && <AnswerParams params={a.params} />}
        </section>
      );
    case "declined":
      return (
        <section className="resolution declined" aria-label="Answer">
          <p className="resolution-head">
            <span aria-hidden="true">✕ </span>
            Declined by <strong>{a?.answered_by ?? "someone"}</strong>
            {a && <span title={absoluteTime(a.answered_at)}> · {relativeAge(a.answered_at, now)}</span>}
          </p>
          {a?.reason && <p className="answer-value">{a.reason}</p>}
        </section>
      );
    case "expired":
      return (
        <section className="resolution expired" aria-label="Answer">
          <p className="resolution-head">
            <span aria-hidden="true">⌛ </span>
            Expired{i.expires_at && <span title={absoluteTime(i.expires_at)}> {relativeAge(i.expires_at, now)}</span>} — nobody answered in time.
          </p>
        </section>
      );
    case "cancelled":
      return (
        <section className="resolution cancelled" aria-label="Answer">
          <p className="resolution-head">
            <span aria-hidden="true">⊘ </span>
            Withdrawn by {i.asker}.
          </p>
        </section>
      );
  }
}

export function AnswerValue({ interaction, value }: { interaction: Interaction; value: unknown }) {
  if (interaction.answer_format === "form" && isObject(value)) {
    const schema = perSendSchema(interaction);
    const props = schema.properties ?? {};
    return (
      <dl className="answer-value form-value">
        {Object.entries(value).map(([k, v]) => (
          <div key={k}>
            <dt>{props[k]?.title ?? k}</dt>
            <dd>{displayValue(props[k], v)}</dd>
          </div>
        ))}
      </dl>
    );
  }
  return <p className="answer-value">{answerText(interaction, value)}</p>;
}

/**
 * The opaque enrichment an answer came with (a channel's reply id, a button payload). Untrusted
 * transport from a public door: shown as plain text, never as markup or links.
 */
export function AnswerParams({ params }: { params: Record<string, unknown> }) {
  return (
    <details className="answer-params">
      <summary>Sent with the answer</summary>
      <dl>
        {Object.entries(params).map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{typeof v === "string" ? v : JSON.stringify(v)}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
