import { act, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { card, interaction } from "../backend/demoData";
import type { Card } from "../backend/types";
import { pane, renderApp, rows } from "../test/render";

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const iso = (s: number) => new Date(T0 + s * 1000).toISOString();

/** Question `index` of a park of three that run r-17 parked, each with its own deadline. */
function parked(index: number, expiresInS: number): Card {
  return card(
    "acme",
    interaction({
      id: `ia_p${index}`,
      prompt: `Park question ${index}?`,
      answer_format: "confirm",
      asker: "deploy-bot",
      mode: "async",
      created_at: iso(-60),
      expires_at: iso(expiresInS),
      park_id: "pk_r17",
      park: { size: 3, index, run: "r-17" },
    }),
  );
}
const lone = card("acme", interaction({ id: "ia_lone", prompt: "A lone question?", answer_format: "confirm", asker: "ops", created_at: iso(-90) }));

afterEach(() => {
  vi.useRealTimers();
});

describe("a park in the window", () => {
  it("shows one group in the list and the pane, and answering one opens the next of the group", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: T0 });
    // The lone question is older, so it sits below the park in the list: after the park's last
    // row is answered, what opens must be the park's first open question, not the list's
    // neighbour.
    const { user } = await renderApp([parked(0, 7200), parked(1, 7200), parked(2, 7200), lone], { select: "ia_p1" });
    const list = screen.getByRole("listbox", { name: "Questions" });
    const headers = list.querySelectorAll(".park-row");
    expect(headers).toHaveLength(1);
    expect(headers[0]).toHaveTextContent("3 from deploy-bot · run r-17");
    expect(headers[0]).toHaveTextContent("0 of 3 answered");
    expect(rows().map((r) => r.getAttribute("data-key"))).toEqual(["acme/ia_p0", "acme/ia_p1", "acme/ia_p2", "acme/ia_lone"]);

    const banner = () => within(screen.getByRole("region", { name: "Park" }));
    expect(banner().getByText(/3 from deploy-bot · run r-17/)).toBeInTheDocument();
    expect(banner().getByText("0 of 3 answered — the run resumes when all are answered")).toBeInTheDocument();
    expect(banner().getByText("Question 2 of 3")).toBeInTheDocument();

    await user.click(pane().getByRole("button", { name: /^Yes/ }));
    await waitFor(() => expect(pane().getByText("Park question 2?")).toBeInTheDocument());
    expect(banner().getByText("1 of 3 answered — the run resumes when all are answered")).toBeInTheDocument();
    expect(banner().getByText("Question 3 of 3")).toBeInTheDocument();

    await user.click(pane().getByRole("button", { name: /^No/ }));
    await waitFor(() => expect(pane().getByText("Park question 0?")).toBeInTheDocument());
    expect(banner().getByText("Question 1 of 3")).toBeInTheDocument();
    expect(screen.getByRole("listbox", { name: "Questions" }).querySelector(".park-row")).toHaveTextContent("2 of 3 answered");
    await user.click(pane().getByRole("button", { name: /^Yes/ }));
    // The park is settled; what opens next is the lone question, and the list has no park left.
    await waitFor(() => expect(pane().getByText("A lone question?")).toBeInTheDocument());
    expect(screen.queryByRole("region", { name: "Park" })).toBeNull();
    expect(list.querySelectorAll(".park-row")).toHaveLength(0);
    // Three answers through the whole window: slow on a shared machine, never stuck.
  }, 20_000);

  it("counts each async question down live, on the window's one clock", async () => {
    vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"], now: T0 });
    // Two hours and five seconds: beyond the hour under which a sync question shows its countdown.
    await renderApp([parked(0, 7205), parked(1, 65), parked(2, 86400 * 3)], { select: "ia_p1" });
    const rowOf = (id: string) => rows().find((r) => r.getAttribute("data-key") === `acme/${id}`) as HTMLElement;
    expect(rowOf("ia_p0")).toHaveTextContent("◷ 2 h 00 min");
    expect(rowOf("ia_p1")).toHaveTextContent("◷ 1:05");
    expect(rowOf("ia_p2")).toHaveTextContent("◷ 3 d 0 h");
    expect(pane().getByText(/expires in 1:05/)).toBeInTheDocument();

    await act(async () => {
      vi.advanceTimersByTime(5000);
    });
    expect(rowOf("ia_p1")).toHaveTextContent("◷ 1:00");
    expect(pane().getByText(/expires in 1:00/)).toBeInTheDocument();

    await act(async () => {
      vi.advanceTimersByTime(61_000);
    });
    // Past its deadline nothing counts down any more (the engine marks it expired).
    expect(rowOf("ia_p1")).not.toHaveTextContent("◷");
    expect(pane().queryByText(/expires in/)).toBeNull();
    expect(rowOf("ia_p0")).toHaveTextContent("◷ 1 h 58 min");
  });
});
