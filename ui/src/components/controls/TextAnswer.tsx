import type { RefObject } from "react";
import type { ChoiceOption } from "../../backend/types";

type Props = {
  suggestions: ChoiceOption[];
  value: string;
  onChange: (text: string) => void;
  busy: boolean;
  onAnswer: (text: string) => void;
  inputRef: RefObject<HTMLTextAreaElement | null>;
  fieldId: string;
};

/** Free text. Suggested replies fill the box (they constrain nothing); Ctrl+Enter sends. */
export function TextAnswer({ suggestions, value, onChange, busy, onAnswer, inputRef, fieldId }: Props) {
  const send = () => {
    if (value.trim().length > 0 && !busy) onAnswer(value);
  };
  return (
    <div className="text-answer">
      {suggestions.length > 0 && (
        <div className="chips" role="group" aria-label="Suggested replies">
          {suggestions.map((s, n) => (
            <button
              key={`${n}:${s.value}`}
              type="button"
              className="chip"
              onClick={() => {
                onChange(s.value);
                inputRef.current?.focus();
              }}
            >
              {n < 9 && <kbd>{n + 1}</kbd>}
              {s.label ?? s.value}
            </button>
          ))}
        </div>
      )}
      <label htmlFor={fieldId}>Your answer</label>
      <textarea
        id={fieldId}
        ref={inputRef}
        rows={4}
        value={value}
        disabled={busy}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            send();
          }
        }}
      />
      <div className="form-buttons">
        <button type="button" className="primary" disabled={busy || value.trim().length === 0} onClick={send}>
          Send <kbd>Ctrl+Enter</kbd>
        </button>
      </div>
    </div>
  );
}
