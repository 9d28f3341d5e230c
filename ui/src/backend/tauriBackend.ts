import { invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type { Backend } from "./Backend";
import { BackendError } from "./BackendError";
import type { ChangeBatch, Delivery, OpenRequest, Snapshot } from "./types";

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (raw) {
    throw BackendError.from(raw);
  }
}

/** The desktop app's commands and events (implemented in src-tauri). */
export function tauriBackend(): Backend {
  return {
    snapshot: () => call<Snapshot>("inbox_snapshot"),
    answer: (args) => call<Delivery>("answer_interaction", args),
    decline: (args) => call<Delivery>("decline_interaction", args),
    markRead: (args) => call<void>("mark_read", args),
    openExternal: (url) => call<void>("open_external", { url }),
    loadMedia: (args) => call<string>("load_media", args),
    allowRemoteImages: (args) => call<void>("allow_remote_images", args),
    setDoNotDisturb: (on) => call<void>("set_do_not_disturb", { on }),
    addAccount: (account) => call<void>("add_account", account),
    removeAccount: (account) => call<void>("remove_account", { account }),
    onChanges: (handler) => listen<ChangeBatch>("inbox://changes", (e) => handler(e.payload)),
    onOpen: (handler) => listen<OpenRequest>("inbox://open", (e) => handler(e.payload)),
    onDoNotDisturb: (handler) => listen<boolean>("inbox://do-not-disturb", (e) => handler(e.payload)),
  };
}

export function runningInTauri(): boolean {
  return typeof window !== "undefined" && "__TAURI_INTERNALS__" in window;
}
