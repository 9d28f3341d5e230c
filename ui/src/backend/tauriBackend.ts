import { invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type { Backend } from "./Backend";
import { BackendError } from "./BackendError";
import type { ChangeBatch, Delivery, OpenRequest, Snapshot, Submission } from "./types";
import type { SettingsView } from "./Backend";
import type { CommandName } from "../generated/desktop/commandNames";

// Only a name the app registers (src-tauri/src/command_names.rs) type-checks.
async function call<T>(command: CommandName, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (raw) {
    throw BackendError.from(raw);
  }
}

/** The desktop app's commands and events (implemented in src-tauri). */
export function tauriBackend(): Backend {
  // The commands run concurrently in the app: a load_media sent right after a consent must not
  // overtake it (and be refused as not yet allowed), so loads wait for consents in flight.
  let consents: Promise<unknown> = Promise.resolve();
  return {
    snapshot: () => call<Snapshot>("inbox_snapshot"),
    answer: (args) => call<Delivery>("answer_interaction", args),
    decline: (args) => call<Delivery>("decline_interaction", args),
    markRead: (args) => call<void>("mark_read", args),
    openNotification: (args) => call<void>("open_notification", args),
    dismissNotification: (args) => call<void>("dismiss_notification", args),
    submitNotification: (args) => call<Submission>("submit_notification", args),
    openExternal: (url) => call<void>("open_external", { url }),
    loadMedia: async (args) => {
      await consents;
      return call<string>("load_media", args);
    },
    allowRemoteImages: (args) => {
      const recorded = call<SettingsView>("allow_remote_images", args);
      consents = Promise.all([consents, recorded.catch(() => undefined)]);
      return recorded;
    },
    settings: () => call<SettingsView>("settings"),
    savePreferences: (preferences) => call<SettingsView>("save_preferences", { preferences }),
    revokeRemoteSender: (args) => call<SettingsView>("revoke_remote_sender", args),
    setAutostart: (on) => call<SettingsView>("set_autostart", { on }),
    renameAccount: (args) => call<void>("rename_account", args),
    testAccount: (account) => call<string>("test_account", { account }),
    openLogsFolder: () => call<void>("open_logs_folder"),
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
