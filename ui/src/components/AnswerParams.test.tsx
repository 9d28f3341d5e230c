import { describe, expect, it, vi } from "vitest";
import { card, interaction } from "../backend/demoData";
import { pane, renderApp } from "../test/render";

const HOSTILE = `<img src=x onerror="alert(1)"><script>alert(2)</script>`;

describe("params sent with an answer", () => {
  it("read as plain text beside the answer, never as markup", async () => {
    const alert = vi.spyOn(window, "alert").mockImplementation(() => {});
    await renderApp(
      [
        card(
          "acme",
          interaction({
            id: "ia_done",
            prompt: "Sign it",
            answer_format: "external",
            status: "answered",
            answer: {
              value: { signed: true },
              answered_by: "callback",
              answered_at: new Date().toISOString(),
              params: { reply_id: HOSTILE, button: { payload: "<b>approve</b>" } },
              reason: null,
            },
          }),
        ),
      ],
      { view: "answered", select: "ia_done" },
    );
    const region = pane().getByRole("region", { name: "Answer" });
    expect(region).toHaveTextContent("Sent with the answer");
    expect(pane().getByText(HOSTILE)).toBeInTheDocument();
    expect(pane().getByText(`{"payload":"<b>approve</b>"}`)).toBeInTheDocument();
    expect(region.querySelector("img, script, b")).toBeNull();
    expect(alert).not.toHaveBeenCalled();
  });
});
