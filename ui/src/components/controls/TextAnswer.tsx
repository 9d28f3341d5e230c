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

/**
 * Free text. A suggested reply is a shortcut for typing it: a tap sends the reply's own text as
 * the answer (it constrains nothing — the box still takes anything). To change it first, Shift+click
 * the chip or use its ✎ button, which fill the box instead. Ctrl+Enter sends the box.
 */
export function TextAnswer({ suggestions, value, onChange, busy, onAnswer, inputRef, fieldId }: Props) {
  const send = () => {
    if (value.trim().length > 0 && !busy) onAnswer(value);
  };
  const edit = (text: string) => {
    onChange(text);
    inputRef.current?.focus();
  };
  return (
    <div className="text-answer">
      {suggestions.length > 0 && (
        <div className="chips" role="group" aria-label="Suggested replies">
          {suggestions.map((s, n) => {
            const shown = s.label ?? s.value;
            return (
              <span key={`${n}:${s.value}`} className="chip-pair">
                <button
                  type="button"
                  className="chip"
                  disabled={busy}
                  title="Send this reply (Shift+click to edit it first)"
                  onClick={(e) => {
                    if (e.shiftKey) edit(s.value);
                    else if (!busy) onAnswer(s.value);
                  }}
                >
                  {n < 9 && <kbd>{n + 1}</kbd>}
                  {shown}
                </button>
                <button type="button" className="chip-edit quiet" disabled={busy} aria-label={`Edit “${shown}” before sending`} title="Edit before sending" onClick={() => edit(s.value)}>
                  <span aria-hidden="true">✎</span>
                </button>
              </span>
            );
          })}
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
