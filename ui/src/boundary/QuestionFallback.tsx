import { useState } from "react";
import { useBackend } from "../backend/BackendContext";
import { BackendError } from "../backend/BackendError";
import type { Card, Delivery } from "../backend/types";
import { DeclineControl } from "../components/DeclineControl";
import { answerable } from "../state/inbox";
import { RenderFailure } from "./RenderFailure";

type Props = {
  card: Card;
  reason: string;
  onResolved: (delivery: Delivery, summary: string) => void;
};

/**
 * What the pane shows when a question's own view failed to draw: that it failed and why, the
 * prompt as plain text (the one part that cannot be the culprit once it is just text), and
 * Decline, so the reviewer can still clear it and tell the asker.
 */
export function QuestionFallback({ card, reason, onResolved }: Props) {
  const backend = useBackend();
  const i = card.interaction;
  const [busy, setBusy] = useState(false);
  const [declining, setDeclining] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const fieldId = `failed_${String(i.id).replace(/[^A-Za-z0-9_]/g, "_")}`;
  const pending = answerable(card);

  const decline = async (why: string | undefined) => {
    setBusy(true);
    setError(null);
    try {
      const delivery = await backend.decline({ account: card.account, id: i.id, reason: why });
      setBusy(false);
      setDeclining(false);
      if (delivery.state !== "rejected") onResolved(delivery, "Declined");
    } catch (raw) {
      setBusy(false);
      setError(BackendError.from(raw).message);
    }
  };

  return (
    <article className="question question-failed" aria-labelledby={`${fieldId}_title`}>
      <RenderFailure id={`${fieldId}_title`} title="This question could not be displayed" reason={reason} />
      <p className="prompt">{typeof i.prompt === "string" ? i.prompt : String(i.prompt)}</p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {pending && (
        <div className="controls">
          <DeclineControl
            fieldId={fieldId}
            busy={busy}
            open={declining}
            onOpen={() => setDeclining(true)}
            onClose={() => setDeclining(false)}
            onDecline={(why) => void decline(why)}
          />
        </div>
      )}
    </article>
  );
}
