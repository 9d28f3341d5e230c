import { describe, expect, it } from "vitest";
import { card, interaction } from "../../backend/demoData";
import { absoluteTime } from "../../lib/time";
import { lastCall, pane, renderApp } from "../../test/render";

const inAnHour = new Date(Date.now() + 3600_000).toISOString();
const externalQ = (extra = {}) =>
  card(
    "acme",
    interaction({
      id: "ia_sign",
      prompt: "Sign the change request.",
      answer_format: "external",
      link: "https://sign.example.com/envelope/7?cb=https%3A%2F%2Finbox%2Fapi%2Finteractions%2Fcallback%2Fcb_x",
      expires_at: inAnHour,
      ...extra,
    }),
  );

describe("an external question", () => {
  it("shows the waiting state, the link as Open in browser and the deadline — and no answer controls", async () => {
    await renderApp([externalQ()]);
    expect(pane().getByRole("status")).toHaveTextContent("Waiting for the outside answer.");
    expect(pane().getByRole("button", { name: /Open in browser/ })).toBeInTheDocument();
    expect(pane().getByText(/The answer is given at sign\.example\.com and arrives here by itself\./)).toBeInTheDocument();
    const deadline = pane().getByText(/Deadline:/);
    expect(deadline).toHaveTextContent(absoluteTime(inAnHour));
    expect(deadline).toHaveTextContent(/\(in \d+:\d\d/);
    // Nothing to answer with here: no text box, no Send/Yes/No/Submit.
    expect(pane().queryByRole("textbox")).toBeNull();
    for (const name of [/^Send/, /^Yes/, /^No\b/, /^Submit/]) expect(pane().queryByRole("button", { name })).toBeNull();
  });

  it("after opening the link it waits for that host", async () => {
    const { backend, user } = await renderApp([externalQ()]);
    await user.click(pane().getByRole("button", { name: /Open in browser/ }));
    expect(lastCall(backend, "open_external")?.url).toMatch(/^https:\/\/sign\.example\.com\/envelope\/7/);
    expect(pane().getByRole("status")).toHaveTextContent("Waiting for sign.example.com to send the answer");
  });

  it("can still be declined", async () => {
    const { backend, user } = await renderApp([externalQ()]);
    await user.click(pane().getByRole("button", { name: /Decline/ }));
    await user.click(pane().getByRole("button", { name: "Decline question" }));
    expect(lastCall(backend, "decline_interaction")).toMatchObject({ account: "acme", id: "ia_sign" });
    expect(backend.calls.some((c) => c.command === "answer_interaction")).toBe(false);
  });

  it("says so when it has no deadline", async () => {
    await renderApp([externalQ({ expires_at: null })]);
    expect(pane().getByText(/No deadline\./)).toBeInTheDocument();
  });
});
