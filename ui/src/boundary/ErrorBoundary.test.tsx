// The window keeps working when one question's content fails to draw. The renderer that throws
// here is the confirm control, replaced for this file by one that refuses a marked question
// (a stand-in for any asker-supplied content a component chokes on).
import { act, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { card, interaction } from "../backend/demoData";
import { lastCall, pane, renderApp, rows } from "../test/render";

vi.mock("../components/controls/ConfirmAnswer", async (importOriginal) => {
  const real = await importOriginal<typeof import("../components/controls/ConfirmAnswer")>();
  return {
    ConfirmAnswer: (props: Parameters<typeof real.ConfirmAnswer>[0]) => {
      // The marked question is the one whose prompt the test calls poison.
      if (document.querySelector("[data-poison]")) throw new RangeError("Maximum call stack size exceeded");
      return real.ConfirmAnswer(props);
    },
  };
});

const now = Date.now();
const iso = (s: number) => new Date(now + s * 1000).toISOString();
const poison = () =>
  card("acme", interaction({ id: "ia_poison", prompt: "Poisoned question\nsecond line", answer_format: "confirm", asker: "evil-bot", created_at: iso(-10), metadata: { poison: true } }));
const sibling = () => card("acme", interaction({ id: "ia_fine", prompt: "A fine question?", answer_format: "text", asker: "good-bot", created_at: iso(-60) }));

beforeEach(() => localStorage.clear());
afterEach(() => vi.restoreAllMocks());

// The marker the mocked control looks for: the Details list shows metadata keys.
function usePoisonMarker() {
  const observer = new MutationObserver(() => {
    const dt = [...document.querySelectorAll("dt")].find((d) => d.textContent === "poison");
    if (dt && !dt.hasAttribute("data-poison")) dt.setAttribute("data-poison", "");
  });
  observer.observe(document.body, { childList: true, subtree: true });
  return observer;
}

describe("error boundaries", () => {
  it("shows the fallback with the prompt and a working Decline; the rest of the window keeps going", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const observer = usePoisonMarker();
    // The poison is the newest pending question, so it is the one that opens first.
    const { backend, user } = await renderApp([poison(), sibling()], { select: "ia_poison" });
    observer.disconnect();

    await waitFor(() => expect(pane().getByText("This question could not be displayed")).toBeInTheDocument());
    expect(pane().getByText(/RangeError: Maximum call stack size exceeded/)).toBeInTheDocument();
    // The prompt as plain text, line break and all.
    expect(pane().getByText(/Poisoned question\s+second line/)).toBeInTheDocument();
    // Siblings: the list, its other row, the status bar and the sidebar all still render.
    expect(rows()).toHaveLength(2);
    expect(rows()[0]).toHaveTextContent("⚠ Could not display");
    expect(screen.getByRole("contentinfo")).toBeInTheDocument();
    expect(screen.getByRole("navigation", { name: "Views and accounts" })).toBeInTheDocument();

    // Logged once, naming the question and the reason but not its content.
    const logged = errors.mock.calls.map((c) => String(c[0])).filter((m) => m.startsWith("[inbox]"));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain("question of question acme/ia_poison could not be displayed: RangeError");
    expect(logged[0]).not.toContain("Poisoned question");

    // A new question still arrives while the fallback is showing.
    await act(async () => backend.upsert(card("acme", interaction({ id: "ia_new", prompt: "Arrived later?", answer_format: "text", created_at: iso(-1) }))));
    await waitFor(() => expect(rows().map((r) => r.textContent)).toContainEqual(expect.stringContaining("Arrived later?")));

    // Decline works from the fallback and the next question opens by itself.
    await user.click(pane().getByRole("button", { name: /Decline/ }));
    await user.type(pane().getByLabelText("Reason (optional)"), "cannot read it");
    await user.click(pane().getByRole("button", { name: "Decline question" }));
    await waitFor(() => expect(lastCall(backend, "decline_interaction")).toEqual({ account: "acme", id: "ia_poison", reason: "cannot read it" }));
    await waitFor(() => expect(pane().queryByText("This question could not be displayed")).toBeNull());
    expect(pane().getByRole("textbox")).toBeInTheDocument();
  });

  it("does not open a question that failed, on the next start or after answering", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const observer = usePoisonMarker();
    const first = await renderApp([poison(), sibling()], { select: "ia_poison" });
    await waitFor(() => expect(pane().getByText("This question could not be displayed")).toBeInTheDocument());
    first.unmount();
    observer.disconnect();

    // A fresh window over the same storage: the poison is the newest pending question, yet the
    // one that opens is the sibling, and the poison's row says why.
    await renderApp([poison(), sibling()]);
    expect(pane().getByText("A fine question?")).toBeInTheDocument();
    const poisonRow = within(screen.getByRole("listbox")).getByRole("option", { name: /Poisoned question/ });
    expect(poisonRow).toHaveTextContent("⚠ Could not display");
    expect(poisonRow).toHaveClass("failed");
  });

  it("treats a question the last run never finished drawing as failed", async () => {
    // What a renderer killed mid-draw (out of memory) leaves behind.
    localStorage.setItem("inbox.renderOpening", "acme/ia_poison");
    vi.spyOn(console, "error").mockImplementation(() => {});
    await renderApp([poison(), sibling()]);
    expect(pane().getByText("A fine question?")).toBeInTheDocument();
    expect(within(screen.getByRole("listbox")).getByRole("option", { name: /Poisoned question/ })).toHaveTextContent("⚠ Could not display");
  });

  it("a question that draws clears its opening mark", async () => {
    await renderApp([sibling()]);
    expect(localStorage.getItem("inbox.renderOpening")).toBeNull();
  });
});
