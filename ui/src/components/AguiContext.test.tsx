import { describe, expect, it, vi } from "vitest";
import { card, interaction } from "../backend/demoData";
import { pane, renderApp } from "../test/render";
import { aguiContext, prettyArguments } from "./AguiContext";

const HOSTILE = `<img src=x onerror="alert(1)"><script>alert(2)</script>`;

function aguiQuestion(agui: unknown) {
  return card(
    "acme",
    interaction({
      id: "ia_agui",
      prompt: "Deploy build 42 to production?",
      answer_format: "confirm",
      metadata: { agui },
    }),
  );
}

describe("an AG-UI question", () => {
  it("shows the agent's last message and the tool call above the controls, as plain text", async () => {
    const alert = vi.spyOn(window, "alert").mockImplementation(() => {});
    await renderApp(
      [
        aguiQuestion({
          run_id: "ar_1",
          interrupt_id: "approve-deploy",
          reason: "tool_call",
          tool_call_id: "call-deploy",
          tool_call: { name: "deploy", arguments: `{"build":42,"note":${JSON.stringify(HOSTILE)}}` },
          last_message: `Deploying needs a human. ${HOSTILE}`,
        }),
      ],
      { select: "ia_agui" },
    );
    const region = pane().getByRole("region", { name: "Agent context" });
    expect(region).toHaveTextContent("The agent said");
    expect(region).toHaveTextContent(`Deploying needs a human. ${HOSTILE}`);
    expect(region).toHaveTextContent("Tool call deploy");
    const args = pane().getByLabelText("Tool call arguments");
    expect(args.textContent).toBe(`{\n  "build": 42,\n  "note": ${JSON.stringify(HOSTILE)}\n}`);
    expect(region.querySelector("img, script")).toBeNull();
    expect(alert).not.toHaveBeenCalled();
    // Above the controls.
    const controls = pane().getByRole("button", { name: /yes/i });
    expect(region.compareDocumentPosition(controls) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it("shows nothing for a question without AG-UI context, or with a malformed one", async () => {
    await renderApp([aguiQuestion({ interrupt_id: 7, last_message: "x" })], { select: "ia_agui" });
    expect(pane().queryByRole("region", { name: "Agent context" })).toBeNull();
  });

  it("reads only well-typed fields and keeps arguments that are not JSON as they came", () => {
    expect(aguiContext(undefined)).toBeNull();
    expect(aguiContext({ agui: [] })).toBeNull();
    const ctx = aguiContext({ agui: { interrupt_id: "a", tool_call: { name: "x", arguments: 5 }, last_message: {} } });
    expect(ctx?.tool_call).toEqual({ name: "x", arguments: "" });
    expect(ctx?.last_message).toBeUndefined();
    expect(prettyArguments(`{"build": 4`)).toBe(`{"build": 4`);
  });
});
