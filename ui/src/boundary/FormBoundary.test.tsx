// A form whose drawing throws (the form component replaced here by one that does) leaves the
// question answerable: the failure, a JSON editor for the whole answer, and Decline.
import { waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { card, interaction } from "../backend/demoData";
import { lastCall, pane, renderApp } from "../test/render";

vi.mock("../components/controls/FormAnswer", () => ({
  FormAnswer: () => {
    throw new TypeError("Cannot read properties of undefined (reading 'properties')");
  },
}));

beforeEach(() => localStorage.clear());

describe("the form's boundary", () => {
  it("shows the failure in the form's place, takes the answer as JSON, and keeps Decline", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const schema = { type: "object", required: ["count"], properties: { count: { type: "integer", minimum: 1 } } };
    const { backend, user } = await renderApp([card("local", interaction({ id: "ia_form", prompt: "How many?", answer_format: "form", schema: schema as never }))]);
    await waitFor(() => expect(pane().getByText("This question could not be displayed")).toBeInTheDocument());
    expect(pane().getByText(/TypeError: Cannot read properties/)).toBeInTheDocument();
    // The prompt and header above the form are untouched.
    expect(pane().getByText("How many?")).toBeInTheDocument();
    expect(pane().getByRole("button", { name: /Decline/ })).toBeInTheDocument();

    const editor = pane().getByRole("textbox", { name: "Answer as JSON" });
    await user.type(editor, '{{"count": 0}');
    expect(pane().getByText(/count: must be >= 1/)).toBeInTheDocument();
    await user.clear(editor);
    await user.type(editor, '{{"count": 3}');
    await user.click(pane().getByRole("button", { name: "Submit" }));
    await waitFor(() => expect(lastCall(backend, "answer_interaction")?.value).toEqual({ count: 3 }));
  });
});
