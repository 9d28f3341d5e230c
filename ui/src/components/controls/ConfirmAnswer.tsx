type Props = { busy: boolean; onAnswer: (value: boolean) => void };

export function ConfirmAnswer({ busy, onAnswer }: Props) {
  return (
    <div className="confirm-answer" role="group" aria-label="Answer">
      <button type="button" className="big primary" disabled={busy} onClick={() => onAnswer(true)} aria-keyshortcuts="y">
        Yes <kbd>y</kbd>
      </button>
      <button type="button" className="big secondary" disabled={busy} onClick={() => onAnswer(false)} aria-keyshortcuts="n">
        No <kbd>n</kbd>
      </button>
    </div>
  );
}
