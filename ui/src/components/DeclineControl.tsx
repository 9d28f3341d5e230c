import { useState } from "react";

type Props = {
  /** Prefix for the reason field's id (unique per question). */
  fieldId: string;
  busy: boolean;
  /** Whether the reason form is showing (the question view opens it from the `d` key too). */
  open: boolean;
  onOpen: () => void;
  onClose: () => void;
  onDecline: (reason: string | undefined) => void;
};

/** Decline, quiet and always present: a button, then an optional reason and a confirm. */
export function DeclineControl({ fieldId, busy, open, onOpen, onClose, onDecline }: Props) {
  const [reason, setReason] = useState("");
  return (
    <div className="decline">
      {open ? (
        <form
          className="decline-form"
          onSubmit={(e) => {
            e.preventDefault();
            onDecline(reason.trim() || undefined);
          }}
        >
          <label htmlFor={`${fieldId}_reason`}>Reason (optional)</label>
          <input
            id={`${fieldId}_reason`}
            type="text"
            value={reason}
            autoFocus
            onChange={(e) => setReason(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Escape") {
                e.preventDefault();
                onClose();
              }
            }}
          />
          <button type="submit" className="secondary" disabled={busy}>
            Decline question
          </button>
          <button type="button" className="quiet" onClick={onClose}>
            Cancel
          </button>
        </form>
      ) : (
        <button type="button" className="quiet" onClick={onOpen} aria-keyshortcuts="d">
          Decline <kbd>d</kbd>
        </button>
      )}
    </div>
  );
}
