// A backend that plays what the Rust engine recorded (ui/src/generated/engineCountScript.json,
// written by crates/inbox-sync/tests/engine_counts.rs): the snapshot a window attaching at the
// start reads, then each change batch when the test says so. Nothing here decides anything;
// the reviewer's commands are only noted.
import type { Backend, SettingsView, Unlisten } from "../backend/Backend";
import { BackendError } from "../backend/BackendError";
import type { ChangeBatch, Counts, Snapshot } from "../backend/types";
import type { Snapshot as EngineSnapshot } from "../generated/Snapshot";

export type EngineStep = { label: string; changes: ChangeBatch; counts: Counts };
export type EngineScript = { snapshot: EngineSnapshot; steps: EngineStep[] };

const settings: SettingsView = {
  preferences: {
    notifications: { enabled: true, only_when_hidden: false, sound: true },
    quiet_hours: { enabled: false, from: "22:00", to: "07:00" },
    theme: "system",
  },
  remote_senders: [],
  remote_questions: [],
  autostart: null,
  logs_dir: "/tmp/logs",
};

const unrecorded = (command: string) => () => Promise.reject(new BackendError("unavailable", `${command} is not part of the recording`));

export class ReplayBackend implements Backend {
  readonly calls: string[] = [];
  private handlers = new Set<(batch: ChangeBatch) => void>();

  constructor(private readonly script: EngineScript) {}

  /** The window as the desktop app assembles it for the one recorded account. */
  async snapshot(): Promise<Snapshot> {
    const s = this.script.snapshot;
    return {
      accounts: [{ id: s.account, label: "Work", url: "https://inbox.work.example", local: false }],
      cards: s.cards,
      connections: { [s.account]: s.status },
      counts: { [s.account]: s.counts },
      notifications: { [s.account]: s.notifications },
      local_hint: null,
      do_not_disturb: false,
    };
  }

  /** The engine's next batch reaches the window. */
  play(step: EngineStep): void {
    for (const h of this.handlers) h(step.changes);
  }

  async onChanges(handler: (batch: ChangeBatch) => void): Promise<Unlisten> {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async onOpen(): Promise<Unlisten> {
    return () => {};
  }

  async onDoNotDisturb(): Promise<Unlisten> {
    return () => {};
  }

  async settings(): Promise<SettingsView> {
    return settings;
  }

  // Opening a question reads it; the recording already says what the engine did about that.
  async markRead(): Promise<void> {
    this.calls.push("mark_read");
  }

  async openNotification(): Promise<void> {
    this.calls.push("open_notification");
  }

  answer = unrecorded("answer");
  decline = unrecorded("decline");
  dismissNotification = unrecorded("dismissNotification");
  submitNotification = unrecorded("submitNotification");
  openExternal = unrecorded("openExternal");
  loadMedia = unrecorded("loadMedia");
  allowRemoteImages = unrecorded("allowRemoteImages");
  savePreferences = unrecorded("savePreferences");
  revokeRemoteSender = unrecorded("revokeRemoteSender");
  setAutostart = unrecorded("setAutostart");
  renameAccount = unrecorded("renameAccount");
  testAccount = unrecorded("testAccount");
  openLogsFolder = unrecorded("openLogsFolder");
  setDoNotDisturb = unrecorded("setDoNotDisturb");
  addAccount = unrecorded("addAccount");
  removeAccount = unrecorded("removeAccount");
}
