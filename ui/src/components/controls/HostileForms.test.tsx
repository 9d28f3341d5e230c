// Forms built to hurt the window: it stays responsive and usable, and leaves the verdict to the
// server where it cannot check safely.
import { waitFor } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { card, interaction } from "../../backend/demoData";
import { lastCall, pane, renderApp } from "../../test/render";

const formCard = (id: string, schema: Record<string, unknown>, values: Record<string, unknown> = {}) =>
  card("local", interaction({ id, prompt: `Hostile ${id}`, answer_format: "form", schema: schema as never, data: { values, options: {} } }));

describe("hostile forms", () => {
  it("a regex bomb against what the reviewer typed: Review goes on at once, the server decides", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const schema = { type: "object", properties: { name: { type: "string", title: "Name", pattern: "^(a+)+$" } } };
    const { backend, user } = await renderApp([formCard("ia_bomb", schema, { name: "a".repeat(40) })]);
    await user.type(pane().getByRole("textbox", { name: /Name/ }), "b");
    const started = performance.now();
    await user.click(pane().getByRole("button", { name: "Review" }));
    await waitFor(() => expect(pane().getByRole("heading", { level: 3 })).toHaveTextContent("Review your answer"));
    // 2^40 backtracking steps would take hours; the guard makes it a few milliseconds.
    expect(performance.now() - started).toBeLessThan(2000);
    await user.click(pane().getByRole("button", { name: "Submit" }));
    await waitFor(() => expect(lastCall(backend, "answer_interaction")?.value).toEqual({ name: `${"a".repeat(40)}b` }));
  });

  it("a $ref cycle that never reaches a property draws a usable field and does not recurse", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
    const schema = { type: "object", properties: { x: { title: "X", $ref: "#/$defs/a" }, y: { type: "string", title: "Y" } }, $defs: { a: { allOf: [{ $ref: "#/$defs/a" }] } } };
    const { user } = await renderApp([formCard("ia_cycle", schema)]);
    expect(pane().getByRole("textbox", { name: /Y/ })).toBeInTheDocument();
    expect(pane().queryByText("This question could not be displayed")).toBeNull();
    await user.type(pane().getByRole("textbox", { name: /Y/ }), "fine");
    await user.click(pane().getByRole("button", { name: "Review" }));
    await waitFor(() => expect(pane().getByRole("heading", { level: 3 })).toHaveTextContent("Review your answer"));
  });

  it("a schema that doubles at every level draws within its node budget", async () => {
    const defs: Record<string, unknown> = { l0: { type: "string", title: "Leaf" } };
    for (let n = 1; n <= 30; n++) defs[`l${n}`] = { type: "object", title: `Level ${n}`, properties: { a: { $ref: `#/$defs/l${n - 1}` }, b: { $ref: `#/$defs/l${n - 1}` } } };
    const started = performance.now();
    await renderApp([formCard("ia_double", { type: "object", properties: { top: { $ref: "#/$defs/l30" } }, $defs: defs })]);
    expect(performance.now() - started).toBeLessThan(15000);
    expect(pane().getAllByRole("button", { name: /\+ Add nested/ }).length).toBeGreaterThan(0);
  }, 30000);
});

describe("shapes the form library cannot draw", () => {
  it("become JSON editors, never the raw schema", async () => {
    const schema = {
      type: "object",
      properties: {
        list: { type: "array", title: "List" },
        anything: { title: "Anything" },
        nope: { not: { type: "string" }, title: "Nope" },
        tuple: { type: "array", prefixItems: [{ type: "string" }], title: "Tuple" },
        many: { type: ["string", "number", "boolean"], title: "Many" },
      },
    };
    const { container, user } = await renderApp([formCard("ia_odd", schema)]);
    expect(container.querySelectorAll("textarea.json-editor")).toHaveLength(5);
    expect(pane().queryByText(/"type"/)).toBeNull();
    expect(pane().queryByText(/Unsupported/)).toBeNull();
    // Each editor checks its own value against its own schema as it is typed.
    await user.type(pane().getByRole("textbox", { name: "Nope" }), '"a string"');
    expect(pane().getByText("must NOT be valid")).toBeInTheDocument();
    await user.type(pane().getByRole("textbox", { name: "List" }), "[[1, 2]");
    await user.click(pane().getByRole("button", { name: "Review" }));
    // The review step still refuses the "Nope" value: the original schema is the judge.
    expect(pane().getByRole("heading", { level: 3 })).toHaveTextContent("Step 1 of 1");
  });
});
