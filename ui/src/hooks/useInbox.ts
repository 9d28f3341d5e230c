import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import type { Backend } from "../backend/Backend";
import { BackendError } from "../backend/BackendError";
import type { OpenRequest } from "../backend/types";
import { emptyInbox, inboxReducer, type InboxState } from "../state/inbox";

export type InboxHandle = {
  inbox: InboxState;
  /** Do not disturb as the app holds it (the snapshot's, then the tray's or the window's switch). */
  doNotDisturb: boolean;
  setDoNotDisturb: (on: boolean) => void;
  /** Why the inbox (or the settings) could not be read, for the pane to say. */
  loadError: string | null;
  reportError: (raw: unknown) => void;
  /** Read a fresh snapshot (the account list only comes with one). */
  reloadSnapshot: () => Promise<void>;
};

/**
 * The window's copy of the inbox: the snapshot, then every change batch through the reducer.
 * A notification click (`inbox://open`) goes to `onOpen`.
 */
export function useInbox(backend: Backend, onOpen: (req: OpenRequest) => void): InboxHandle {
  const [inbox, dispatch] = useReducer(inboxReducer, emptyInbox);
  const [doNotDisturb, setDnd] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const reportError = useCallback((raw: unknown) => setLoadError(BackendError.from(raw).message), []);
  const onOpenRef = useRef(onOpen);
  onOpenRef.current = onOpen;

  // Subscribe first, then read the snapshot, so no batch falls between the two.
  useEffect(() => {
    let live = true;
    const unlisten: (() => void)[] = [];
    (async () => {
      unlisten.push(await backend.onChanges((batch) => dispatch({ type: "changes", batch })));
      unlisten.push(await backend.onOpen((req) => onOpenRef.current(req)));
      unlisten.push(await backend.onDoNotDisturb((on) => setDnd(on)));
      try {
        const snapshot = await backend.snapshot();
        if (live) {
          dispatch({ type: "snapshot", snapshot });
          setDnd(snapshot.do_not_disturb ?? false);
        }
      } catch (raw) {
        if (live) reportError(raw);
      }
    })();
    return () => {
      live = false;
      unlisten.forEach((u) => u());
    };
  }, [backend, reportError]);

  useEffect(() => {
    if (inbox.loaded) performance.mark("inbox-rendered");
  }, [inbox.loaded]);

  const reloadSnapshot = useCallback(async () => {
    try {
      // Batches that come while it is on its way are applied again on top of it (state/inbox.ts).
      dispatch({ type: "snapshotRequested" });
      dispatch({ type: "snapshot", snapshot: await backend.snapshot() });
    } catch (raw) {
      reportError(raw);
    }
  }, [backend, reportError]);

  const setDoNotDisturb = useCallback(
    (on: boolean) => {
      setDnd(on);
      void backend.setDoNotDisturb(on);
    },
    [backend],
  );

  return { inbox, doNotDisturb, setDoNotDisturb, loadError, reportError, reloadSnapshot };
}
