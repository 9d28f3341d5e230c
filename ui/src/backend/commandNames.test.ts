// The window's commands as the app registers them (src-tauri/src/command_names.rs, exported to
// generated/desktop/commandNames.ts and checked fresh by a Rust test): the real backend must call
// exactly these, and the fake one used by the other tests must record exactly these, so a renamed
// or added command cannot pass the UI's tests against a fake that no longer matches the app.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { COMMAND_NAMES } from "../generated/desktop/commandNames";
import type { Backend } from "./Backend";
import { demoAccounts, demoCards } from "./demoData";
import { FakeBackend } from "./fakeBackend";

const invoked: string[] = [];
vi.mock("@tauri-apps/api/core", () => ({
  invoke: vi.fn(async (command: string) => {
    invoked.push(command);
    return command === "load_media" ? "data:," : null;
  }),
}));
vi.mock("@tauri-apps/api/event", () => ({ listen: vi.fn(async () => () => {}) }));

type Command = Exclude<keyof Backend, "onChanges" | "onOpen" | "onDoNotDisturb">;
const card = demoCards(Date.parse("2026-03-02T10:00:00Z"))[0];
const ref = { account: card.account, id: card.interaction.id };
// One call of every method that reaches the app; the type makes a new method fail to compile
// until it is listed here.
const calls: Record<Command, (b: Backend) => Promise<unknown>> = {
  snapshot: (b) => b.snapshot(),
  answer: (b) => b.answer({ ...ref, value: true, idempotencyKey: "k1" } as never),
  decline: (b) => b.decline({ ...ref, reason: null, idempotencyKey: "k2" } as never),
  markRead: (b) => b.markRead(ref),
  openExternal: (b) => b.openExternal("https://example.com/"),
  loadMedia: (b) => b.loadMedia({ account: card.account, url: "https://example.com/a.png" }),
  allowRemoteImages: (b) => b.allowRemoteImages({ account: card.account, id: card.interaction.id } as never),
  setDoNotDisturb: (b) => b.setDoNotDisturb(true),
  addAccount: (b) => b.addAccount({ url: "http://127.0.0.1:8790", label: "Test", token: "t0k" } as never),
  removeAccount: (b) => b.removeAccount(card.account),
  openNotification: (b) => b.openNotification(ref),
  dismissNotification: (b) => b.dismissNotification(ref),
  submitNotification: (b) => b.submitNotification({ ...ref, value: {}, idempotencyKey: "k3" } as never),
  settings: (b) => b.settings(),
  savePreferences: (b) => b.savePreferences({} as never),
  revokeRemoteSender: (b) => b.revokeRemoteSender({ account: card.account, asker: card.interaction.asker } as never),
  setAutostart: (b) => b.setAutostart(false),
  renameAccount: (b) => b.renameAccount({ account: card.account, label: "Renamed" }),
  testAccount: (b) => b.testAccount(card.account),
  openLogsFolder: (b) => b.openLogsFolder(),
};

async function callEach(backend: Backend): Promise<Map<Command, unknown>> {
  const failures = new Map<Command, unknown>();
  for (const [name, call] of Object.entries(calls) as [Command, (b: Backend) => Promise<unknown>][]) {
    // A refusal is fine here (the fake may refuse made-up arguments); which command it was is the point.
    await call(backend).catch((e) => failures.set(name, e));
  }
  return failures;
}

describe("the window's command names", () => {
  beforeEach(() => {
    invoked.length = 0;
  });

  it("are what the real backend invokes, each once", async () => {
    const { tauriBackend } = await import("./tauriBackend");
    await callEach(tauriBackend());
    expect([...invoked].sort()).toEqual([...COMMAND_NAMES].sort());
  });

  it("are what the fake backend records, each once", async () => {
    const fake = new FakeBackend({ accounts: demoAccounts, cards: [card] });
    await callEach(fake);
    expect(fake.calls.map((c) => c.command).sort()).toEqual([...COMMAND_NAMES].sort());
  });
});
