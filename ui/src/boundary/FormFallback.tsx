import type { BackendError } from "../backend/BackendError";
import { RenderFailure } from "./QuestionFallback";

type Props = {
  reason: string;
  busy: boolean;
  onAnswer: (value: unknown) => Promise<BackendError | null>;
};

/** In place of a form that failed to draw: the failure; Decline stays below it. */
export function FormFallback({ reason }: Props) {
  return (
    <div className="form-answer">
      <RenderFailure title="This question could not be displayed" reason={reason} />
    </div>
  );
}
