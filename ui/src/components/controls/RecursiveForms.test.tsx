// Recursive schemas asked as forms: each draws usable controls within bounds (recursion waits
// behind "+ Add nested …"), opens a level on request, and submits what was typed. Before the
// bounded expansion, the recursive oneOf ran the window out of memory.
import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { card, interaction } from "../../backend/demoData";
import cases from "../../test/schemas/recursive.json";
import { lastCall, pane, renderApp } from "../../test/render";

type Case = { prompt: string; schema: Record<string, unknown> };
const formCard = (id: string, c: Case, values: Record<string, unknown> = {}) =>
  card("local", interaction({ id, prompt: c.prompt, answer_format: "form", asker: "tree-bot", schema: c.schema as never, data: { values, options: {} } }));

const review = async (user: ReturnType<typeof import("@testing-library/user-event").default.setup>) => {
  await user.click(pane().getByRole("button", { name: "Review" }));
  await waitFor(() => expect(pane().getByRole("heading", { level: 3 })).toHaveTextContent("Review your answer"));
};

describe("recursive schemas as forms", () => {
  it("self-reference at the root: the parent waits behind + Add nested, opens a level, submits", async () => {
    const { backend, user } = await renderApp([formCard("ia_tree", cases["root-self-reference"] as Case)]);
    await user.type(pane().getByRole("textbox", { name: /Team name/ }), "Platform");
    await user.click(pane().getByRole("button", { name: "+ Add nested Parent team" }));
    const names = pane().getAllByRole("textbox", { name: /Team name/ });
    expect(names).toHaveLength(2);
    await user.type(names[1], "Engineering");
    // One more level waits in turn.
    expect(pane().getAllByRole("button", { name: "+ Add nested Parent team" })).toHaveLength(1);
    await review(user);
    expect(pane().getByText("Engineering")).toBeInTheDocument();
    await user.click(pane().getByRole("button", { name: "Submit" }));
    await waitFor(() => expect(lastCall(backend, "answer_interaction")?.value).toEqual({ name: "Platform", parent: { name: "Engineering" } }));
  });

  it("a nested level the schema requires is checked against the original schema", async () => {
    const { user } = await renderApp([formCard("ia_tree", cases["root-self-reference"] as Case)]);
    await user.type(pane().getByRole("textbox", { name: /Team name/ }), "Platform");
    await user.click(pane().getByRole("button", { name: "+ Add nested Parent team" }));
    // The nested team's name is required too: Review is refused, the error at that field.
    await user.click(pane().getByRole("button", { name: "Review" }));
    expect(pane().getByRole("heading", { level: 3 })).toHaveTextContent("Step 1 of 1");
    // Under its field, and in the step's error summary as a link to it.
    expect(pane().getByText("must have required property 'Team name'", { selector: ".text-danger" })).toBeInTheDocument();
    expect(pane().getByRole("alert", { name: /problem/ })).toHaveTextContent("must have required property 'Team name'");
  });

  it("mutual references in $defs: Folder → File → + Add nested Folder", async () => {
    const { user } = await renderApp([formCard("ia_mutual", cases["mutual-defs"] as Case)]);
    expect(pane().getByRole("textbox", { name: /Folder label/ })).toBeInTheDocument();
    expect(pane().getByRole("textbox", { name: /File path/ })).toBeInTheDocument();
    await user.click(pane().getByRole("button", { name: "+ Add nested Folder" }));
    expect(pane().getAllByRole("textbox", { name: /Folder label/ })).toHaveLength(2);
  });

  it("a recursive oneOf (JSON-e style) draws its alternatives by name, with a JSON editor for the many-typed one", async () => {
    const { backend, user } = await renderApp([formCard("ia_jsone", cases["recursive-oneof-array"] as Case, { when: "${ready}" })]);
    // The prefilled string picked the scalar alternative, drawn as a JSON editor.
    const editor = await pane().findByRole("textbox", { name: /When/ });
    expect(editor).toHaveValue('"${ready}"');
    const chooser = pane().getAllByRole("combobox")[0];
    expect(within(chooser).getAllByRole("option").map((o) => o.textContent)).toEqual(["Template", "array", "null, boolean, number or string"]);
    // JSON typed in is validated as the reviewer types.
    await user.clear(editor);
    await user.type(editor, "{{");
    expect(pane().getByText(/Not valid JSON/)).toBeInTheDocument();
    await user.clear(editor);
    await user.type(editor, "42");
    expect(pane().queryByText(/Not valid JSON/)).toBeNull();
    await user.type(pane().getByRole("textbox", { name: /Note/ }), "deploy");
    await review(user);
    await user.click(pane().getByRole("button", { name: "Submit" }));
    await waitFor(() => expect(lastCall(backend, "answer_interaction")?.value).toEqual({ note: "deploy", when: 42 }));
  });

  it("items that refer to their parent: add a child entry and open it", async () => {
    const { backend, user } = await renderApp([formCard("ia_menu", cases["items-parent"] as Case)]);
    await user.type(pane().getByRole("textbox", { name: /Caption/ }), "File");
    await user.click(pane().getByRole("button", { name: /Add/ }));
    // The new item is a nested Menu entry, opened at once (it holds a value).
    await waitFor(() => expect(pane().getAllByRole("textbox", { name: /Caption/ })).toHaveLength(2));
    await user.type(pane().getAllByRole("textbox", { name: /Caption/ })[1], "Open");
    await review(user);
    await user.click(pane().getByRole("button", { name: "Submit" }));
    await waitFor(() => expect(lastCall(backend, "answer_interaction")?.value).toEqual({ menu: { caption: "File", children: [{ caption: "Open" }] } }));
  });

  it("a deep prefill opens as deep as its data, and the review shows it", async () => {
    let value: Record<string, unknown> = { name: "level 12" };
    for (let n = 11; n >= 1; n--) value = { name: `level ${n}`, parent: value };
    const { user } = await renderApp([formCard("ia_deep", cases["root-self-reference"] as Case, value)]);
    await waitFor(() => expect(pane().getAllByRole("textbox", { name: /Team name/ })).toHaveLength(12));
    await review(user);
    expect(screen.getByText("level 1")).toBeInTheDocument();
  });
});
