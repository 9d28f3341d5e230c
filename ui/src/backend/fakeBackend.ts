import type { AnswerArgs, Backend, DeclineArgs, NewAccount, Preferences, RemoteSender, SettingsView, SubmitArgs, Unlisten } from "./Backend";
import { BackendError } from "./BackendError";
import type { CommandName } from "../generated/desktop/commandNames";
import { engineCounts } from "./engineShares";
import type { Account, Card, ChangeBatch, ConnectionStatus, Counts, Delivery, Notification, OpenRequest, Outgoing, Snapshot, Submission } from "./types";

export type FakeOptions = {
  accounts?: Account[];
  cards?: Card[];
  connections?: Record<string, ConnectionStatus>;
  localHint?: string | null;
  /** Who the fake server records as the answerer. */
  reviewer?: string;
  /** Return a refusal to reject an answer before it is sent (e.g. a field the schema refuses). */
  refuseAnswer?: (args: AnswerArgs, card: Card) => BackendError | null;
  /** Media bodies by url (same-origin or remote); anything else yields a small generated picture. */
  media?: Record<string, string>;
  /** Do not disturb as the app remembered it from an earlier run. */
  doNotDisturb?: boolean;
  /** Outstanding notifications per account, newest first. */
  notifications?: Record<string, Notification[]>;
  /** Return a refusal to reject a submission (as the server does for a value the schema refuses). */
  refuseSubmit?: (args: SubmitArgs) => BackendError | null;
};

/** Set on the page by the demo build, and searched for in the shipped bundle (must be absent). */
export const FAKE_BACKEND_MARK = "inbox-fake-backend:development-and-tests-only";

export type FakeCall = { command: CommandName; args: unknown };

/**
 * An in-memory stand-in for the desktop app: it keeps cards, answers them like the server
 * would (accepted, or queued while the account is offline) and emits change batches the
 * same way the Rust engine does, with the engine's counts (see engineShares.ts). Every call is recorded in `calls` for tests.
 */
export class FakeBackend implements Backend {
  readonly calls: FakeCall[] = [];
  accounts: Account[];
  cards: Map<string, Card>;
  connections: Record<string, ConnectionStatus>;
  notifications: Record<string, Notification[]>;
  /** Submissions received, in order (what the asker would read). */
  readonly submissions: Submission[] = [];
  doNotDisturb = false;
  private readonly options: FakeOptions;
  private changeHandlers = new Set<(batch: ChangeBatch) => void>();
  private openHandlers = new Set<(req: OpenRequest) => void>();
  private dndHandlers = new Set<(on: boolean) => void>();
  private remoteQuestions = new Set<string>();
  private remoteSenders = new Set<string>();
  preferences: Preferences = {
    notifications: { enabled: true, only_when_hidden: false, sound: true },
    quiet_hours: { enabled: false, from: "22:00", to: "07:00" },
    theme: "system",
  };
  autostart: boolean | null = false;

  constructor(options: FakeOptions = {}) {
    this.options = options;
    this.doNotDisturb = options.doNotDisturb ?? false;
    this.accounts = options.accounts ?? [{ id: "local", label: "Local", url: "http://127.0.0.1:8790", local: true }];
    this.cards = new Map((options.cards ?? []).map((c) => [key(c.account, c.interaction.id), c]));
    this.connections =
      options.connections ?? Object.fromEntries(this.accounts.map((a) => [a.id, { state: "online" } as ConnectionStatus]));
    this.notifications = { ...(options.notifications ?? {}) };
  }

  async snapshot(): Promise<Snapshot> {
    this.record("inbox_snapshot", {});
    return {
      accounts: [...this.accounts],
      cards: [...this.cards.values()],
      connections: { ...this.connections },
      counts: Object.fromEntries(this.accounts.map((a) => [a.id, this.counts(a.id)])),
      local_hint:
        this.options.localHint === undefined
          ? 'inbox ask --format confirm "Deploy build 42 to production?"'
          : this.options.localHint,
      do_not_disturb: this.doNotDisturb,
      notifications: Object.fromEntries(this.accounts.map((a) => [a.id, [...(this.notifications[a.id] ?? [])]])),
    };
  }

  async answer(args: AnswerArgs): Promise<Delivery> {
    this.record("answer_interaction", args);
    const card = this.require(args.account, args.id);
    const refusal = this.options.refuseAnswer?.(args, card);
    if (refusal) throw refusal;
    return this.resolve(card, "answered", args.value, args.params ?? null, null);
  }

  async decline(args: DeclineArgs): Promise<Delivery> {
    this.record("decline_interaction", args);
    const card = this.require(args.account, args.id);
    return this.resolve(card, "declined", null, null, args.reason ?? null);
  }

  async markRead(args: { account: string; id: string }): Promise<void> {
    this.record("mark_read", args);
    const card = this.cards.get(key(args.account, args.id));
    if (card && card.unread) this.upsert({ ...card, unread: false });
  }

  async openNotification(args: { account: string; id: string }): Promise<void> {
    this.record("open_notification", args);
    this.changeNotification(args.account, args.id, (n) => (n.read_at ? n : { ...n, read_at: new Date().toISOString() }));
  }

  async dismissNotification(args: { account: string; id: string }): Promise<void> {
    this.record("dismiss_notification", args);
    this.notifications[args.account] = (this.notifications[args.account] ?? []).filter((n) => n.id !== args.id);
    this.emitNotifications(args.account);
  }

  async submitNotification(args: SubmitArgs): Promise<Submission> {
    this.record("submit_notification", args);
    const n = (this.notifications[args.account] ?? []).find((x) => x.id === args.id);
    if (!n) throw new BackendError("not_found", "No such notification.");
    if (!n.schema) throw new BackendError("no_form", "This notification offers no form to submit.", "value");
    const refusal = this.options.refuseSubmit?.(args);
    if (refusal) throw refusal;
    const submission: Submission = {
      id: `sb_${this.submissions.length + 1}`,
      notification_id: n.id,
      asker: n.asker,
      value: args.value,
      submitted_by: this.options.reviewer ?? "you",
      submitted_at: new Date().toISOString(),
      ordinal: n.submissions + 1,
    };
    this.submissions.push(submission);
    this.changeNotification(args.account, args.id, (x) => ({ ...x, submissions: submission.ordinal }));
    return submission;
  }

  async openExternal(url: string): Promise<void> {
    this.record("open_external", { url });
  }

  async loadMedia(args: { account: string; url: string }): Promise<string> {
    this.record("load_media", args);
    // As the app does: a remote url loads only for a question or sender the reviewer allowed.
    if (/^https:/i.test(args.url) && !this.remoteAllowed(args.account, args.url)) {
      throw new BackendError("remote_images_blocked", "remote media loads only after you allow it for this question or sender");
    }
    return this.options.media?.[args.url] ?? samplePicture("#2f6fde", "media");
  }

  async allowRemoteImages(args: { account: string; id?: string; sender?: string }): Promise<SettingsView> {
    this.record("allow_remote_images", args);
    if (args.id) this.remoteQuestions.add(key(args.account, args.id));
    if (args.sender) this.remoteSenders.add(key(args.account, args.sender));
    return this.settingsView();
  }

  async settings(): Promise<SettingsView> {
    this.record("settings", {});
    return this.settingsView();
  }

  async savePreferences(preferences: Preferences): Promise<SettingsView> {
    this.record("save_preferences", { preferences });
    for (const field of ["from", "to"] as const) {
      if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(preferences.quiet_hours[field])) {
        throw new BackendError("invalid_time", `\`${preferences.quiet_hours[field]}\` is not a time like 22:00`, `quiet_hours.${field}`);
      }
    }
    this.preferences = structuredClone(preferences);
    return this.settingsView();
  }

  async revokeRemoteSender(args: RemoteSender): Promise<SettingsView> {
    this.record("revoke_remote_sender", args);
    this.remoteSenders.delete(key(args.account, args.sender));
    return this.settingsView();
  }

  async setAutostart(on: boolean): Promise<SettingsView> {
    this.record("set_autostart", { on });
    this.autostart = on;
    return this.settingsView();
  }

  async renameAccount(args: { account: string; label: string }): Promise<void> {
    this.record("rename_account", args);
    this.accounts = this.accounts.map((a) => (a.id === args.account ? { ...a, label: args.label } : a));
  }

  async testAccount(account: string): Promise<string> {
    this.record("test_account", { account });
    if (this.connections[account]?.state !== "online") throw new BackendError("unavailable", "the server did not answer");
    return `Connected: ${this.counts(account).pending} pending`;
  }

  async openLogsFolder(): Promise<void> {
    this.record("open_logs_folder", {});
  }

  private settingsView(): SettingsView {
    const split = (k: string) => k.split("\u0000") as [string, string];
    return {
      preferences: structuredClone(this.preferences),
      remote_senders: [...this.remoteSenders].map(split).map(([account, sender]) => ({ account, sender })),
      remote_questions: [...this.remoteQuestions].map(split).map(([account, id]) => ({ account, id })),
      autostart: this.autostart,
      logs_dir: "/home/you/.local/share/dev.interactions.inbox/logs",
    };
  }

  private remoteAllowed(account: string, url: string): boolean {
    return [...this.cards.values()].some(
      (c) =>
        c.account === account &&
        c.interaction.media.some((m) => m.url === url) &&
        (this.remoteQuestions.has(key(account, c.interaction.id)) || this.remoteSenders.has(key(account, c.interaction.asker))),
    );
  }

  async setDoNotDisturb(on: boolean): Promise<void> {
    this.record("set_do_not_disturb", { on });
    this.doNotDisturb = on;
  }

  async addAccount(account: NewAccount): Promise<void> {
    // The token goes no further than this call, as in the real app (it lands in the keyring).
    this.record("add_account", { url: account.url, label: account.label, token: "<redacted>" });
    const id = `acct_${this.accounts.length + 1}`;
    this.accounts.push({ id, label: account.label || account.url, url: account.url, local: false });
    this.connections[id] = { state: "connecting" };
    this.emit({ account: id, upserted: [], removed: [], status: { state: "connecting" }, counts: this.counts(id), notifications: null });
  }

  async removeAccount(account: string): Promise<void> {
    this.record("remove_account", { account });
    const removed = [...this.cards.values()].filter((c) => c.account === account).map((c) => c.interaction.id);
    for (const id of removed) this.cards.delete(key(account, id));
    this.accounts = this.accounts.filter((a) => a.id !== account);
    this.emit({ account, upserted: [], removed, status: { state: "signed_out" }, counts: this.counts(account), notifications: null });
  }

  async onChanges(handler: (batch: ChangeBatch) => void): Promise<Unlisten> {
    this.changeHandlers.add(handler);
    return () => this.changeHandlers.delete(handler);
  }

  async onOpen(handler: (req: OpenRequest) => void): Promise<Unlisten> {
    this.openHandlers.add(handler);
    return () => this.openHandlers.delete(handler);
  }

  async onDoNotDisturb(handler: (on: boolean) => void): Promise<Unlisten> {
    this.dndHandlers.add(handler);
    return () => this.dndHandlers.delete(handler);
  }

  // ---- test and demo levers -------------------------------------------------------------

  /** A question arrives (as the stream's `add` would deliver it). */
  upsert(card: Card): void {
    this.cards.set(key(card.account, card.interaction.id), card);
    this.emit({ account: card.account, upserted: [card], removed: [], status: null, counts: this.counts(card.account), notifications: null });
  }

  remove(account: string, id: string): void {
    this.cards.delete(key(account, id));
    this.emit({ account, upserted: [], removed: [id], status: null, counts: this.counts(account), notifications: null });
  }

  setConnection(account: string, status: ConnectionStatus): void {
    this.connections[account] = status;
    this.emit({ account, upserted: [], removed: [], status, counts: this.counts(account), notifications: null });
  }

  /** A notification arrives (as the stream's `notification_added` would deliver it). */
  notify(account: string, n: Notification): void {
    this.notifications[account] = [n, ...(this.notifications[account] ?? []).filter((x) => x.id !== n.id)];
    this.emitNotifications(account);
  }

  /** A native notification was clicked. */
  open(req: OpenRequest): void {
    for (const h of this.openHandlers) h(req);
  }

  /** Do not disturb was switched from the tray menu. */
  trayDoNotDisturb(on: boolean): void {
    this.doNotDisturb = on;
    for (const h of this.dndHandlers) h(on);
  }

  // ---- internals ----------------------------------------------------------------------

  private resolve(card: Card, status: "answered" | "declined", value: unknown, params: Record<string, unknown> | null, reason: string | null): Delivery {
    const online = this.connections[card.account]?.state === "online";
    if (card.interaction.status !== "pending" && card.interaction.answer) {
      const delivery: Delivery = {
        state: "rejected",
        code: "already_answered",
        message: "This question was already answered.",
        winner: card.interaction.answer,
      };
      this.upsert({ ...card, delivery });
      return delivery;
    }
    const outgoing: Outgoing = status === "answered" ? { kind: "answer", value } : { kind: "decline", reason };
    if (!online) {
      const delivery: Delivery = { state: "queued" };
      this.upsert({ ...card, unread: false, delivery, outgoing });
      return delivery;
    }
    const delivery: Delivery = { state: "accepted" };
    const answer = {
      value,
      answered_by: this.options.reviewer ?? "you",
      answered_at: new Date().toISOString(),
      params,
      reason,
    };
    this.upsert({ ...card, unread: false, delivery, outgoing, interaction: { ...card.interaction, status, answer } });
    return delivery;
  }

  private changeNotification(account: string, id: string, change: (n: Notification) => Notification): void {
    this.notifications[account] = (this.notifications[account] ?? []).map((n) => (n.id === id ? change(n) : n));
    this.emitNotifications(account);
  }

  private emitNotifications(account: string): void {
    this.emit({ account, upserted: [], removed: [], status: null, counts: this.counts(account), notifications: [...(this.notifications[account] ?? [])] });
  }

  private require(account: string, id: string): Card {
    const card = this.cards.get(key(account, id));
    if (!card) throw new BackendError("not_found", "No such question.");
    return card;
  }

  /** The engine's counts for this account's cards (recorded from the Rust machine). */
  private counts(account: string): Counts {
    const cards = [...this.cards.values()].filter((c) => c.account === account);
    return engineCounts(cards, this.notifications?.[account] ?? []);
  }

  private emit(batch: ChangeBatch): void {
    for (const h of this.changeHandlers) h(batch);
  }

  private record(command: CommandName, args: unknown): void {
    this.calls.push({ command, args });
  }
}

function key(account: string, id: string): string {
  return `${account}\u0000${id}`;
}

/** A small SVG picture as a data:image URI, for demo media. */
export function samplePicture(color: string, label: string): string {
  const safe = label.replace(/[^A-Za-z0-9 .-]/g, "");
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200" viewBox="0 0 320 200">` +
    `<rect width="320" height="200" fill="${color}"/>` +
    `<path d="M0 160 L80 90 L150 150 L220 70 L320 170 L320 200 L0 200 Z" fill="rgba(255,255,255,0.35)"/>` +
    `<circle cx="255" cy="48" r="22" fill="rgba(255,255,255,0.7)"/>` +
    `<text x="16" y="34" font-family="sans-serif" font-size="20" fill="#fff">${safe}</text></svg>`;
  return `data:image/svg+xml;base64,${btoa(svg)}`;
}
