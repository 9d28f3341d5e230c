import { useState } from "react";
import { useBackend } from "../backend/BackendContext";
import { BackendError } from "../backend/BackendError";
import type { Card, Delivery } from "../backend/types";

/**
 * Answering and declining one question, for the question view and for the fallback that stands
 * in for it: busy while a reply is on its way, the refusal that belongs to no field, and the
 * Decline form's state (`decline` is what `DeclineControl` takes, but for its `fieldId`).
 */
export function useResolve(card: Card, onResolved: (delivery: Delivery, summary: string) => void) {
  const backend = useBackend();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [declining, setDeclining] = useState(false);
  const { account } = card;
  const { id } = card.interaction;

  /** Sends `value`; a refusal with a field is handed back for the form to show at that field. */
  const answer = async (value: unknown, summary: string): Promise<BackendError | null> => {
    setBusy(true);
    setError(null);
    try {
      const delivery = await backend.answer({ account, id, value });
      setBusy(false);
      if (delivery.state !== "rejected") onResolved(delivery, summary);
      return null;
    } catch (raw) {
      const err = BackendError.from(raw);
      setBusy(false);
      if (!err.field) setError(err.message);
      return err;
    }
  };

  const sendDecline = async (reason: string | undefined) => {
    setBusy(true);
    setError(null);
    try {
      const delivery = await backend.decline({ account, id, reason });
      setBusy(false);
      setDeclining(false);
      if (delivery.state !== "rejected") onResolved(delivery, "Declined");
    } catch (raw) {
      setBusy(false);
      setError(BackendError.from(raw).message);
    }
  };

  return {
    busy,
    error,
    answer,
    /** Opens the Decline form (the `d` key). */
    openDecline: () => setDeclining(true),
    decline: {
      busy,
      open: declining,
      onOpen: () => setDeclining(true),
      onClose: () => setDeclining(false),
      onDecline: (why: string | undefined) => void sendDecline(why),
    },
  };
}
