import { useState } from "react";
import type { BackendError } from "../backend/BackendError";
import { JsonEditor } from "../components/controls/form/JsonEditor";
import { RenderFailure } from "./RenderFailure";
import { FormError } from "../components/FormError";

type Props = {
  reason: string;
  /** The question's schema: the JSON answer is checked against it as it is typed. */
  schema: unknown;
  busy: boolean;
  onAnswer: (value: unknown) => Promise<BackendError | null>;
};

/**
 * In place of a form that failed to draw: the failure, and the answer as one JSON value (checked
 * against the schema as it is typed, and by the server on submit). Decline stays below.
 */
export function FormFallback({ reason, schema, busy, onAnswer }: Props) {
  const [value, setValue] = useState<unknown>(undefined);
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="form-answer">
      <RenderFailure title="This question could not be displayed" reason={reason} />
      <JsonEditor label="Answer as JSON" value={undefined} schema={schema} disabled={busy} onValue={setValue} />
      <FormError message={error} />
      <div className="form-buttons">
        <button
          type="button"
          className="primary"
          disabled={busy || value === undefined}
          onClick={async () => {
            const err = await onAnswer(value);
            setError(err ? (err.field ? `${err.field}: ${err.message}` : err.message) : null);
          }}
        >
          Submit
        </button>
      </div>
    </div>
  );
}
