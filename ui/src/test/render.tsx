import { render, screen, waitFor, within } from "@testing-library/react";
import { expect } from "vitest";
import userEvent from "@testing-library/user-event";
import { demoAccounts } from "../backend/demoData";
import { FakeBackend, type FakeOptions } from "../backend/fakeBackend";
import type { Card } from "../backend/types";
import { App } from "../components/App";
import type { View } from "../state/inbox";

/** Renders the whole window over a fake backend holding `cards`, and waits for the snapshot. */
export async function renderApp(cards: Card[], options: Omit<FakeOptions, "cards"> & { select?: string; view?: View } = {}) {
  const backend = new FakeBackend({ accounts: demoAccounts, ...options, cards });
  const user = userEvent.setup();
  const utils = render(<App backend={backend} initial={{ select: options.select, view: options.view }} />);
  await screen.findByRole("contentinfo");
  if (cards.length > 0) {
    await waitFor(() => expect(rows().length).toBeGreaterThan(0));
    // The first question (or the one asked for) opens by itself.
    await waitFor(() => expect(screen.getByRole("main", { name: "Open question" }).querySelector("article")).not.toBeNull());
  }
  return { backend, user, ...utils };
}

/** The open question's pane. */
export function pane() {
  return within(screen.getByRole("main", { name: "Open question" }));
}

export function lastCall(backend: FakeBackend, command: string) {
  const calls = backend.calls.filter((c) => c.command === command);
  return calls[calls.length - 1]?.args as Record<string, unknown> | undefined;
}

/** The rows drawn in the question list. */
export function rows() {
  const list = screen.queryByRole("listbox", { name: "Questions" });
  return list ? within(list).queryAllByRole("option") : [];
}
