import type { Card, Delivery } from "../backend/types";
import { DeclineControl } from "../components/DeclineControl";
import { useResolve } from "../hooks/useResolve";
import { answerable } from "../state/inbox";
import { RenderFailure } from "./RenderFailure";
import { FormError } from "../components/FormError";

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
  const i = card.interaction;
  const { error, decline } = useResolve(card, onResolved);
  const fieldId = `failed_${String(i.id).replace(/[^A-Za-z0-9_]/g, "_")}`;
  const pending = answerable(card);

  return (
    <article className="question question-failed" aria-labelledby={`${fieldId}_title`}>
      <RenderFailure id={`${fieldId}_title`} title="This question could not be displayed" reason={reason} />
      <p className="prompt">{typeof i.prompt === "string" ? i.prompt : String(i.prompt)}</p>
      <FormError message={error} />
      {pending && (
        <div className="controls">
          <DeclineControl fieldId={fieldId} {...decline} />
        </div>
      )}
    </article>
  );
}
