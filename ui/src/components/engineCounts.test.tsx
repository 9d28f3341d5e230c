import { act, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Counts } from "../backend/types";
import recording from "../generated/engineCountScript.json";
import { emptyInbox, inboxReducer } from "../state/inbox";
import { ReplayBackend, type EngineScript } from "../test/replayBackend";
import { rows } from "../test/render";
import { App } from "./App";

// What the Rust engine emitted through a scripted day (crates/inbox-sync/tests/engine_counts.rs):
// questions arriving, an answer in flight, offline, a local expiry, confirmations, a notification.
const script = recording as unknown as EngineScript;
const account = script.snapshot.account;

const sidebar = () => within(screen.getByRole("navigation", { name: "Views and accounts" }));

/** The number a badge shows, or 0 when it shows none. */
function badge(button: HTMLElement): number {
  const count = button.querySelector(".count");
  return count ? Number(count.textContent) : 0;
}

function shown() {
  const accountButton = sidebar().getByText("Work").closest("button") as HTMLElement;
  const queued = screen.getByRole("contentinfo").querySelector(".queued")?.textContent ?? "";
  const notifications = sidebar().getByRole("button", { name: /^Notifications/ }).querySelector(".count");
  return {
    account: badge(accountButton),
    inbox: badge(sidebar().getByRole("button", { name: /^Inbox/ })),
    queued: Number(/(\d+) answers? queued/.exec(queued)?.[1] ?? 0),
    notificationsUnread: notifications ? Number(/^(\d+) unread$/.exec(notifications.getAttribute("title") ?? "")?.[1]) : 0,
  };
}

function expected(c: Counts) {
  return { account: c.pending, inbox: c.pending, queued: c.queued, notificationsUnread: c.notifications_unread };
}

// Thirteen redraws of the whole window; a loaded machine needs more than the default 5 s.
describe("the engine's counts in the window", { timeout: 30_000 }, () => {
  it("the reducer keeps exactly the counts of the snapshot and of each batch", async () => {
    const backend = new ReplayBackend(script);
    let state = inboxReducer(emptyInbox, { type: "snapshot", snapshot: await backend.snapshot() });
    expect(state.counts[account]).toEqual(script.snapshot.counts);
    for (const step of script.steps) {
      state = inboxReducer(state, { type: "changes", batch: step.changes });
      expect(state.counts[account], step.label).toEqual(step.counts);
    }
  });

  it("the sidebar and the status bar show the engine's counts at every step of the script", async () => {
    const backend = new ReplayBackend(script);
    render(<App backend={backend} />);
    await waitFor(() => expect(shown()).toEqual(expected(script.snapshot.counts)));
    // Where the engine's rule differs from counting the listed pending questions (an answer in
    // flight, a local expiry), the sidebar must follow the engine: proof it counts nothing itself.
    const differs: string[] = [];
    for (const step of script.steps) {
      act(() => backend.play(step));
      expect({ step: step.label, ...shown() }).toEqual({ step: step.label, ...expected(step.counts) });
      if (rows().length !== step.counts.pending) differs.push(step.label);
    }
    expect(differs).toContain("the reviewer answers it: the answer is in flight");
  });
});
