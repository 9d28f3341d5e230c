import { act, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { BackendError } from "../backend/BackendError";
import type { Notification } from "../backend/types";
import { lastCall, renderApp } from "../test/render";

const now = Date.now();
const iso = (s: number) => new Date(now + s * 1000).toISOString();

function nt(id: string, ageS: number, extra: Partial<Notification> = {}): Notification {
  return {
    id,
    asker: "deploy-bot",
    prompt: `Note ${id}`,
    body: null,
    media: [],
    schema: null,
    data: null,
    metadata: {},
    created_at: iso(-ageS),
    read_at: null,
    dismissed_at: null,
    submissions: 0,
    ...extra,
  };
}

const form = nt("nt_form", 30, {
  prompt: "How did the rollout go?",
  body: "Whenever you like.\n<b>not bold</b>",
  schema: { type: "object", required: ["rating"], properties: { rating: { type: "integer", title: "Rating", minimum: 1, maximum: 5 } } },
  data: { values: { rating: 4 }, options: {} },
});

const notificationsPane = () => within(screen.getByRole("main", { name: "Open notification" }));

async function openNotifications(notifications: Notification[], options = {}) {
  const app = await renderApp([], { notifications: { acme: notifications }, ...options });
  await act(async () => screen.getByRole("button", { name: /^Notifications/ }).click());
  return app;
}

async function submitForm(user: ReturnType<typeof import("@testing-library/user-event").default.setup>) {
  const review = notificationsPane().queryByRole("button", { name: "Review" });
  if (review) await user.click(review);
  await user.click(notificationsPane().getByRole("button", { name: "Submit" }));
}

// A form renders slowly on a loaded machine; the default 5 s is for plain views.
describe("notifications view", { timeout: 30_000 }, () => {
  it("has its own sidebar entry with the count, apart from the questions", async () => {
    await renderApp([], { notifications: { acme: [nt("nt_a", 60), nt("nt_b", 10, { read_at: iso(-5) })] } });
    const entry = screen.getByRole("button", { name: /^Notifications/ });
    expect(entry).toHaveTextContent("2");
    expect(screen.queryByRole("listbox", { name: "Questions" })?.querySelectorAll("[role=option]").length ?? 0).toBe(0);
  });

  it("lists newest first with unread marked, and opening one reads it", async () => {
    const { backend } = await openNotifications([nt("nt_old", 600), nt("nt_new", 60)]);
    const list = screen.getByTestId("notification-list");
    const buttons = within(list).getAllByRole("button");
    expect(buttons.map((b) => b.textContent)).toEqual([expect.stringContaining("Note nt_new"), expect.stringContaining("Note nt_old")]);
    await waitFor(() => expect(lastCall(backend, "open_notification")).toEqual({ account: "acme", id: "nt_new" }));
    await act(async () => buttons[1].click());
    await waitFor(() => expect(lastCall(backend, "open_notification")).toEqual({ account: "acme", id: "nt_old" }));
    await waitFor(() => expect(within(screen.getByTestId("notification-list")).queryAllByLabelText("unread")).toHaveLength(0));
  });

  it("shows its text as text (never HTML) and a form with the prefill; submitting sends a submission", async () => {
    const { backend, user } = await openNotifications([form]);
    const pane = notificationsPane();
    expect(pane.getByRole("heading", { name: "How did the rollout go?" })).toBeInTheDocument();
    expect(pane.getByText(/not bold/)).toHaveTextContent("<b>not bold</b>");
    expect(screen.getByTestId("notification-view").querySelector("b")).toBeNull();
    expect(pane.getByRole("spinbutton", { name: /Rating/ })).toHaveValue(4);
    await submitForm(user);
    await waitFor(() => expect(lastCall(backend, "submit_notification")).toEqual({ account: "acme", id: "nt_form", value: { rating: 4 } }));
    expect(backend.submissions.map((s) => s.value)).toEqual([{ rating: 4 }]);
    expect(await pane.findByRole("status")).toHaveTextContent("Sent (submission 1)");
    await waitFor(() => expect(pane.getByText(/1 submitted/)).toBeInTheDocument());
  });

  it("a submission the server refuses is shown at its field, and nothing is sent on", async () => {
    const { backend, user } = await openNotifications([form], {
      refuseSubmit: () => new BackendError("invalid_answer", "must be at most 3", "rating"),
    });
    await submitForm(user);
    // Under its field, and in the form's error summary as a link to it.
    await waitFor(() => expect(notificationsPane().getByText(/must be at most 3/, { selector: ".text-danger" })).toBeInTheDocument());
    expect(notificationsPane().getByRole("link", { name: /rating: must be at most 3/ })).toBeInTheDocument();
    expect(backend.submissions).toHaveLength(0);
    expect(notificationsPane().queryByRole("status")).toBeNull();
  });

  it("dismiss removes it from the view and the count", async () => {
    const { backend, user } = await openNotifications([nt("nt_a", 60), nt("nt_b", 30)]);
    await user.click(notificationsPane().getByRole("button", { name: "Dismiss" }));
    expect(lastCall(backend, "dismiss_notification")).toEqual({ account: "acme", id: "nt_b" });
    await waitFor(() => expect(within(screen.getByTestId("notification-list")).getAllByRole("button")).toHaveLength(1));
    expect(screen.getByRole("button", { name: /^Notifications/ })).toHaveTextContent("1");
  });

  it("a notification without a form has no form, and one arriving live shows at once", async () => {
    const { backend } = await openNotifications([nt("nt_plain", 60, { body: "FYI" })]);
    expect(notificationsPane().queryByRole("button", { name: /Submit|Review/ })).toBeNull();
    act(() => backend.notify("acme", nt("nt_live", 1, { prompt: "Deployed build 43" })));
    await waitFor(() => expect(within(screen.getByTestId("notification-list")).getAllByRole("button")[0]).toHaveTextContent("Deployed build 43"));
  });
});
