import { useId, useState } from "react";
import type { RJSFSchema } from "@rjsf/utils";
import { formValidator } from "../../../forms/formValidator";

type Props = {
  label: string;
  required?: boolean;
  description?: string;
  value: unknown;
  /** What the value must fit; its messages show under the editor as the reviewer types. */
  schema: unknown;
  disabled?: boolean;
  /** Errors the form found at this place (on Next/Submit, or from the server). */
  outsideErrors?: string[];
  /** A parsed value (undefined for an empty editor); not called while the text is not JSON. */
  onValue: (value: unknown) => void;
  id?: string;
};

/** The JSON text for a value; nothing at all for no value. */
function textOf(value: unknown): string {
  return value === undefined ? "" : JSON.stringify(value, null, 2);
}

/**
 * A JSON value typed as text, for a part of a schema the form library cannot draw as controls.
 * It is parsed and validated on every change against that part's schema, so the reviewer sees
 * the same messages a drawn field would show; text that is not JSON is never handed on.
 */
export function JsonEditor({ label, required, description, value, schema, disabled, outsideErrors, onValue, id }: Props) {
  const own = useId();
  const fieldId = id ?? `json_${own.replace(/[^A-Za-z0-9_]/g, "_")}`;
  const [text, setText] = useState(() => textOf(value));
  const [errors, setErrors] = useState<string[] | null>(null);

  const change = (next: string) => {
    setText(next);
    if (next.trim() === "") {
      setErrors(null);
      onValue(undefined);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(next);
    } catch (e) {
      setErrors([`Not valid JSON: ${e instanceof Error ? e.message : String(e)}`]);
      return;
    }
    const found = formValidator.validateFormData(parsed, schema as RJSFSchema).errors;
    setErrors(found.map((err) => `${err.property ? `${err.property.replace(/^\./, "")}: ` : ""}${err.message ?? err.stack}`));
    onValue(parsed);
  };

  const shown = [...new Set([...(errors ?? []), ...(errors === null ? (outsideErrors ?? []) : [])])];
  return (
    <div className="json-field">
      <label htmlFor={fieldId} className="control-label">
        {label}
        {required && <span className="required">*</span>}
      </label>
      {description && <p className="field-description">{description}</p>}
      <textarea
        id={fieldId}
        className="json-editor"
        value={text}
        rows={Math.min(12, Math.max(3, text.split("\n").length))}
        spellCheck={false}
        disabled={disabled}
        aria-invalid={shown.length > 0}
        aria-describedby={`${fieldId}_hint`}
        onChange={(e) => change(e.target.value)}
      />
      <p id={`${fieldId}_hint`} className="muted json-field-hint">
        Enter a JSON value.
      </p>
      {shown.length > 0 && (
        <ul className="error-detail" aria-live="polite">
          {shown.map((m) => (
            <li key={m} className="text-danger">
              {m}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
