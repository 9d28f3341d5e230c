import type { ChoiceOption } from "../../backend/types";

type Props = { options: ChoiceOption[]; busy: boolean; onAnswer: (value: string) => void };

/** The choices by label; the answer carries the chosen option's value. Keys 1–9 pick. */
export function SelectAnswer({ options, busy, onAnswer }: Props) {
  return (
    <div className="select-answer" role="group" aria-label="Choose one">
      {options.map((o, n) => (
        <button
          key={`${n}:${o.value}`}
          type="button"
          className="choice"
          disabled={busy}
          onClick={() => onAnswer(o.value)}
          aria-keyshortcuts={n < 9 ? String(n + 1) : undefined}
        >
          {n < 9 && <kbd>{n + 1}</kbd>}
          <span>{o.label ?? o.value}</span>
        </button>
      ))}
    </div>
  );
}
