import type { ChangeBatch, Delivery, OpenRequest, Snapshot, Submission } from "./types";

import type { AnswerArgs } from "../generated/desktop/AnswerArgs";
import type { DeclineArgs } from "../generated/desktop/DeclineArgs";
import type { NewAccount } from "../generated/desktop/NewAccount";
import type { RemoteImagesArgs } from "../generated/desktop/RemoteImagesArgs";
import type { SubmitArgs } from "../generated/desktop/SubmitArgs";
import type { Preferences } from "../generated/desktop/Preferences";
import type { RemoteSender } from "../generated/desktop/RemoteSender";
import type { SettingsView } from "../generated/desktop/SettingsView";

export type { AnswerArgs, DeclineArgs, NewAccount, Preferences, RemoteImagesArgs, RemoteSender, SettingsView, SubmitArgs };
export type CardRef = { account: string; id: string };

export type Unlisten = () => void;

/**
 * Everything the window may ask of the outside world. The UI holds no token and never talks
 * to a server: the desktop app does, behind this interface. A fake in-memory implementation
 * drives tests, `npm run dev` and the screenshots.
 */
export interface Backend {
  snapshot(): Promise<Snapshot>;
  /** Resolves with the delivery state; rejects with a BackendError (e.g. a field the schema refused). */
  answer(args: AnswerArgs): Promise<Delivery>;
  decline(args: DeclineArgs): Promise<Delivery>;
  markRead(args: CardRef): Promise<void>;
  /** A notification was opened: read everywhere. */
  openNotification(args: CardRef): Promise<void>;
  /** A notification was dismissed: gone from every window. */
  dismissNotification(args: CardRef): Promise<void>;
  /** Submit a notification's form; rejects with a BackendError naming the field the schema refused. */
  submitNotification(args: SubmitArgs): Promise<Submission>;
  openExternal(url: string): Promise<void>;
  /**
   * A media item's bytes as a data: URL: a same-origin reference fetched with the account's
   * credentials, or a remote https image/video/audio the reviewer allowed (refused with
   * `remote_images_blocked` before that), fetched by the app under its SSRF guard.
   */
  loadMedia(args: { account: string; url: string }): Promise<string>;
  /**
   * Allow remote media (images, video, audio) for one question (`id`) or one asker (`sender`).
   * The app owns the allowances; the settings it returns are what the window shows.
   */
  allowRemoteImages(args: RemoteImagesArgs): Promise<SettingsView>;
  /** The settings as the app keeps them (settings.json in its config dir), with the allowances. */
  settings(): Promise<SettingsView>;
  /** Replace the editable preferences; refused with the field when a time is not `HH:MM`. */
  savePreferences(preferences: Preferences): Promise<SettingsView>;
  /** Take back a sender's allowance: their remote media asks again. */
  revokeRemoteSender(args: RemoteSender): Promise<SettingsView>;
  /** Start the app at login (an XDG autostart entry), or stop doing so. */
  setAutostart(on: boolean): Promise<SettingsView>;
  renameAccount(args: { account: string; label: string }): Promise<void>;
  /** One request to the account's server; resolves with what it said, rejects with why not. */
  testAccount(account: string): Promise<string>;
  /** Show the folder of the app's log files in the file manager. */
  openLogsFolder(): Promise<void>;
  setDoNotDisturb(on: boolean): Promise<void>;
  addAccount(account: NewAccount): Promise<void>;
  removeAccount(account: string): Promise<void>;
  onChanges(handler: (batch: ChangeBatch) => void): Promise<Unlisten>;
  onOpen(handler: (req: OpenRequest) => void): Promise<Unlisten>;
  /** Do not disturb was switched outside the window (the tray menu). */
  onDoNotDisturb(handler: (on: boolean) => void): Promise<Unlisten>;
}
