import { act, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { card, interaction } from "../../backend/demoData";
import { lastCall, pane, renderApp } from "../../test/render";

const textQ = (id: string, extra = {}) =>
  card(
    "acme",
    interaction({
      id,
      prompt: `Retry ${id}?`,
      answer_format: "text",
      asker: "ci-agent",
      options: [
        { value: "Retry once, then file an issue.", label: null },
        { value: "skip", label: "Skip tonight" },
      ],
      ...extra,
    }),
  );

const box = () => pane().getByRole("textbox", { name: "Your answer" });
const answers = (backend: { calls: { command: string }[] }) => backend.calls.filter((c) => c.command === "answer_interaction");

describe("suggested replies on a text question", () => {
  it("a tap sends the reply's text as the answer; the card shows it delivered and answered", async () => {
    const { backend, user } = await renderApp([textQ("ia_t")]);
    await user.click(pane().getByRole("button", { name: /^1\s*Retry once, then file an issue\.$/ }));
    expect(lastCall(backend, "answer_interaction")).toEqual({ account: "acme", id: "ia_t", value: "Retry once, then file an issue." });
    expect(answers(backend)).toHaveLength(1);
    await waitFor(() => expect(pane().getByRole("status")).toHaveTextContent("Delivered"));
    // The card now shows its answer, and no controls.
    const resolution = pane().getByRole("region", { name: "Answer" });
    expect(resolution).toHaveTextContent("Answered by");
    expect(resolution).toHaveTextContent("Retry once, then file an issue.");
    expect(pane().queryByRole("textbox", { name: "Your answer" })).toBeNull();
  });

  it("after a tap the next question opens with the sent note", async () => {
    const { user } = await renderApp([textQ("ia_t"), textQ("ia_u", { created_at: new Date(Date.now() - 60_000).toISOString() })]);
    await user.click(pane().getByRole("button", { name: /^1\s*Retry once/ }));
    await waitFor(() => expect(pane().getByText("Retry ia_u?")).toBeInTheDocument());
    expect(pane().getByRole("status")).toHaveTextContent("Sent “Retry ia_t?” — Retry once, then file an issue.");
  });

  it("a tap sends the reply's value, not its label", async () => {
    const { backend, user } = await renderApp([textQ("ia_t")]);
    await user.click(pane().getByRole("button", { name: /^2\s*Skip tonight$/ }));
    expect(lastCall(backend, "answer_interaction")).toMatchObject({ id: "ia_t", value: "skip" });
  });

  it("offline, a tap is queued like a typed answer", async () => {
    const { user } = await renderApp([textQ("ia_t")], { connections: { acme: { state: "offline" }, local: { state: "online" } } });
    await user.click(pane().getByRole("button", { name: /^1\s*Retry once/ }));
    await waitFor(() => expect(pane().getByText(/Queued — your answer “Retry once, then file an issue\.” will be sent/)).toBeInTheDocument());
    expect(screen.getByRole("contentinfo")).toHaveTextContent("1 answer queued");
  });

  it("Shift+click or the ✎ button fill the box instead, to edit before sending", async () => {
    const { backend, user } = await renderApp([textQ("ia_t")]);
    await user.keyboard("{Shift>}");
    await user.click(pane().getByRole("button", { name: /^1\s*Retry once/ }));
    await user.keyboard("{/Shift}");
    expect(box()).toHaveValue("Retry once, then file an issue.");
    expect(answers(backend)).toHaveLength(0);

    await user.click(pane().getByRole("button", { name: "Edit “Skip tonight” before sending" }));
    expect(box()).toHaveValue("skip");
    expect(box()).toHaveFocus();
    expect(answers(backend)).toHaveLength(0);
    await user.type(box(), " — flaky runner");
    await user.keyboard("{Control>}{Enter}{/Control}");
    expect(lastCall(backend, "answer_interaction")).toMatchObject({ id: "ia_t", value: "skip — flaky runner" });
  });

  it("number key N sends reply N; while typing in the box, digits are text", async () => {
    const { backend, user } = await renderApp([textQ("ia_t")]);
    await user.click(box());
    await user.keyboard("12");
    expect(box()).toHaveValue("12");
    expect(answers(backend)).toHaveLength(0);
    act(() => box().blur());
    await user.keyboard("2");
    expect(lastCall(backend, "answer_interaction")).toEqual({ account: "acme", id: "ia_t", value: "skip" });
    expect(answers(backend)).toHaveLength(1);
  });
});
