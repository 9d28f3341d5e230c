import { act, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { card, interaction } from "../backend/demoData";
import { lastCall, renderApp } from "../test/render";

const withRemoteImage = card(
  "acme",
  interaction({
    id: "ia_img",
    prompt: "Ship this design?",
    answer_format: "confirm",
    asker: "design-bot",
    media: [{ kind: "image", url: "https://cdn.example.com/a.png", caption: "Mock-up", filename: null }],
  }),
);

describe("settings", () => {
  it("saves each change through the app and draws what the app answered", async () => {
    const { backend, user } = await renderApp([]);
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const view = within(await screen.findByRole("region", { name: "Settings" }));
    await user.click(view.getByRole("checkbox", { name: "Play a sound" }));
    await waitFor(() => expect(backend.preferences.notifications.sound).toBe(false));
    expect(view.getByRole("checkbox", { name: "Play a sound" })).not.toBeChecked();

    await user.click(view.getByRole("radio", { name: "Dark" }));
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe("dark"));
    await user.click(view.getByRole("radio", { name: "Follow the system" }));
    await waitFor(() => expect(document.documentElement.dataset.theme).toBeUndefined());

    await user.click(view.getByRole("checkbox", { name: "Start Interactions Inbox at login" }));
    await waitFor(() => expect(backend.autostart).toBe(true));
  });

  it("shows a refused time with its field and keeps the saved one", async () => {
    const { backend, user } = await renderApp([]);
    await user.click(screen.getByRole("button", { name: "Settings" }));
    const view = within(await screen.findByRole("region", { name: "Settings" }));
    await act(async () => {
      await backend.savePreferences({ ...backend.preferences, quiet_hours: { enabled: true, from: "25:00", to: "07:00" } }).catch(() => {});
    });
    expect(backend.preferences.quiet_hours.from).toBe("22:00");
    expect(view.getByLabelText("From")).toHaveValue("22:00");
  });

  it("lists a sender allowed for good and revoking it blocks their remote images again", async () => {
    const { backend, user } = await renderApp([withRemoteImage]);
    await user.click(screen.getByRole("button", { name: /Always from design-bot/ }));
    await waitFor(() => expect(lastCall(backend, "allow_remote_images")).toEqual({ account: "acme", sender: "design-bot" }));
    await waitFor(() => expect(screen.getByRole("main", { name: "Open question" }).querySelector("img[src^='data:']")).not.toBeNull());

    await user.click(screen.getByRole("button", { name: "Settings" }));
    const view = within(await screen.findByRole("region", { name: "Settings" }));
    await user.click(view.getByRole("button", { name: "Revoke design-bot" }));
    await waitFor(() => expect(view.getByText("None.")).toBeInTheDocument());
    await user.click(view.getByRole("button", { name: "Close" }));
    await waitFor(() => expect(screen.getByRole("main", { name: "Open question" }).querySelector("img[src^='data:']")).toBeNull());
  });
});
