// Everything a question carries is untrusted text. It must reach the screen as text: no element,
// attribute or url from a payload is ever created, and the payload reads literally.
import { screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { card, interaction } from "./backend/demoData";
import type { Card } from "./backend/types";
import { pane, renderApp, rows } from "./test/render";

const CORPUS = [
  "<img src=x onerror=alert(1)>",
  "<script>alert(1)</script>",
  "javascript:alert(1)",
  '"><svg onload=alert(1)>',
  "<iframe src=javascript:alert(1)></iframe>",
  "<a href=\"javascript:alert(1)\">click</a>",
  "{{constructor.constructor('alert(1)')()}}",
  "<style>body{display:none}</style>",
  "[click](javascript:alert(1))",
];
const P = CORPUS.join(" ");
const now = Date.now();
const past = new Date(now - 60_000).toISOString();

function assertInert() {
  expect(document.querySelector("script, iframe, object, embed, style, svg, math, base, form[action]")).toBeNull();
  expect(document.querySelectorAll("[onerror], [onload], [onclick], [onmouseover], [srcdoc]")).toHaveLength(0);
  for (const el of document.querySelectorAll("[href], [src], [action], [formaction]")) {
    for (const attr of ["href", "src", "action", "formaction"]) {
      const v = el.getAttribute(attr);
      if (v !== null) expect(v.trim().toLowerCase()).not.toMatch(/^(javascript|vbscript|data:text)/);
    }
  }
  for (const img of document.querySelectorAll("img")) expect(img.getAttribute("src")).not.toBe("x");
}

function bodyText(): string {
  return document.body.textContent ?? "";
}

const cases: [string, Card, { view?: "all" }][] = [
  [
    "prompt, asker, suggested replies, captions, filename, metadata",
    card(
      "acme",
      interaction({
        id: "ia_x1",
        prompt: `${P}\nsecond line ${CORPUS[0]}`,
        answer_format: "text",
        asker: CORPUS[3],
        options: CORPUS.map((c) => ({ value: c, label: c })),
        media: [
          { kind: "image", url: "data:image/png;base64,iVBORw0KGgo=", caption: CORPUS[0], filename: null },
          { kind: "image", url: "https://img.example.com/a.png", caption: CORPUS[1], filename: null },
          { kind: "document", url: "/api/interactions/media/md_1", caption: CORPUS[3], filename: CORPUS[0] },
          { kind: "link", url: "https://example.com/", caption: CORPUS[5], filename: null },
          { kind: "video", url: "https://media.example.com/v.mp4", caption: CORPUS[4], filename: null },
          { kind: "link", url: "javascript:alert(1)", caption: "evil link", filename: null },
          { kind: "image", url: "javascript:alert(1)", caption: "evil image", filename: null },
        ],
        metadata: { reason: P, [CORPUS[0]]: CORPUS[1], nested: { html: CORPUS[3] } },
      }),
    ),
    {},
  ],
  [
    "select option labels",
    card("acme", interaction({ id: "ia_x2", prompt: "Pick", answer_format: "select", asker: CORPUS[0], options: CORPUS.map((c, n) => ({ value: `v${n}`, label: c })) })),
    {},
  ],
  [
    "form schema titles, descriptions, page titles and per-send option labels",
    card(
      "acme",
      interaction({
        id: "ia_x3",
        prompt: "Form",
        answer_format: "form",
        schema: {
          type: "object",
          title: CORPUS[0],
          description: CORPUS[1],
          required: ["a"],
          properties: {
            a: { type: "string", title: CORPUS[3], description: CORPUS[4], enum: ["x"] },
            b: { type: "string", title: CORPUS[5], default: CORPUS[0] },
            c: { type: "object", title: CORPUS[1], properties: { d: { type: "string", title: CORPUS[0] } } },
          },
        },
        data: { values: { b: CORPUS[3] }, options: { a: CORPUS.map((c, n) => ({ value: `o${n}`, label: c })) } },
        pages: [
          { title: CORPUS[0], fields: ["a", "b"] },
          { title: CORPUS[3], fields: ["c"] },
        ],
      }),
    ),
    {},
  ],
  [
    "answer values and who answered",
    card(
      "acme",
      interaction({
        id: "ia_x4",
        prompt: "Text",
        answer_format: "text",
        status: "answered",
        answer: { value: P, answered_by: CORPUS[0], answered_at: past, params: { x: CORPUS[1] }, reason: null },
      }),
    ),
    { view: "all" },
  ],
  [
    "form answer values",
    card(
      "acme",
      interaction({
        id: "ia_x5",
        prompt: "Form done",
        answer_format: "form",
        schema: { type: "object", properties: { a: { type: "string", title: CORPUS[3] } } },
        status: "answered",
        answer: { value: { a: CORPUS[0], [CORPUS[1]]: CORPUS[3] }, answered_by: "bob", answered_at: past, params: null, reason: null },
      }),
    ),
    { view: "all" },
  ],
  [
    "decline reason and a rejected delivery's winner",
    card(
      "acme",
      interaction({
        id: "ia_x6",
        prompt: "Declined",
        answer_format: "confirm",
        status: "declined",
        answer: { value: null, answered_by: CORPUS[3], answered_at: past, params: null, reason: P },
      }),
      {
        delivery: {
          state: "rejected",
          code: "already_answered",
          message: CORPUS[0],
          winner: { value: CORPUS[1], answered_by: CORPUS[0], answered_at: past, params: null, reason: null },
        },
      },
    ),
    { view: "all" },
  ],
];

describe("XSS corpus", () => {
  const alert = vi.fn();
  beforeEach(() => {
    alert.mockReset();
    vi.stubGlobal("alert", alert);
  });
  afterEach(() => vi.unstubAllGlobals());

  it.each(cases)("%s stay text", async (_name, c, opts) => {
    const { user } = await renderApp([c], { ...opts, select: c.interaction.id });
    assertInert();
    // Open every disclosure and step so that all of it is drawn.
    for (const d of document.querySelectorAll("details")) d.setAttribute("open", "");
    const load = pane().queryByRole("button", { name: "Load remote media" });
    if (load) await user.click(load);
    assertInert();
    if (c.interaction.answer_format === "form" && c.interaction.status === "pending") {
      expect(pane().getByRole("heading", { level: 3 })).toHaveTextContent(`Step 1 of 2 · ${CORPUS[0]}`);
      const select = pane().getByRole("combobox", { name: new RegExp(escape(CORPUS[3])) });
      // The options read literally (user-event matches on innerHTML, which is escaped, so pick by index).
      expect(within(select).getAllByRole("option").map((o) => o.textContent)).toEqual(["", ...CORPUS]);
      await user.selectOptions(select, "1");
      await user.click(pane().getByRole("button", { name: "Next" }));
      expect(pane().getByRole("heading", { level: 3 })).toHaveTextContent(`Step 2 of 2 · ${CORPUS[3]}`);
      assertInert();
      await user.click(pane().getByRole("button", { name: "Review" }));
      expect(pane().getByRole("heading", { level: 3 })).toHaveTextContent("Review your answer");
      assertInert();
      // The chosen option reads by its (hostile) label, literally.
      expect(within(pane().getByRole("region", { name: CORPUS[0] })).getByText(CORPUS[1])).toBeInTheDocument();
    }
    expect(alert).not.toHaveBeenCalled();
  });

  it("the prompt, asker and options read literally", async () => {
    await renderApp([cases[0][1]], { select: "ia_x1" });
    const prompt = pane().getByText((_t, el) => el?.classList.contains("prompt") ?? false);
    expect(prompt.textContent).toBe(`${P}\nsecond line ${CORPUS[0]}`);
    expect(prompt.children).toHaveLength(0);
    expect(rows()[0]).toHaveTextContent(CORPUS[3]);
    const chips = within(pane().getByRole("group", { name: "Suggested replies" }));
    const sendChips = chips.getAllByRole("button").filter((b) => b.classList.contains("chip"));
    expect(sendChips.map((b) => b.textContent)).toEqual(CORPUS.map((c, n) => `${n + 1}${c}`));
    // Each chip's edit button names the reply literally too.
    expect(chips.getAllByRole("button").filter((b) => b.classList.contains("chip-edit")).map((b) => b.getAttribute("aria-label"))).toEqual(
      CORPUS.map((c) => `Edit “${c}” before sending`),
    );
    expect(pane().getByRole("img", { name: CORPUS[0] })).toBeInTheDocument();
    expect(pane().getByRole("link", { name: new RegExp(escape(CORPUS[5])) })).toHaveAttribute("href", "https://example.com/");
    expect(pane().queryByText("evil link")).toBeNull();
    expect(pane().queryByText("evil image")).toBeNull();
    expect(bodyText()).toContain(CORPUS[3]);
  });

  it("answer values, answerer and reason read literally", async () => {
    await renderApp([cases[3][1]], { view: "all", select: "ia_x4" });
    const answer = pane().getByRole("region", { name: "Answer" });
    expect(answer).toHaveTextContent(`Answered by ${CORPUS[0]}`);
    expect(within(answer).getByText(P)).toBeInTheDocument();
    screen.getByRole("contentinfo");
  });

  it("the declined reason and the winner read literally", async () => {
    await renderApp([cases[5][1]], { view: "all", select: "ia_x6" });
    expect(pane().getByRole("region", { name: "Answer" })).toHaveTextContent(`Declined by ${CORPUS[3]}`);
    expect(pane().getByText(P)).toBeInTheDocument();
    expect(pane().getByRole("alert")).toHaveTextContent(`Already answered by ${CORPUS[0]}`);
    assertInert();
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
