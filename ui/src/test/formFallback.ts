// What a form question shows when its form cannot be drawn — the form throws while drawing, or its
// chunk does not load: the failure in the form's place, the answer taken as JSON (checked against
// the schema as it is typed), and Decline. One scenario, run by each way of failing.
import { waitFor } from "@testing-library/react";
import { expect, vi } from "vitest";
import { card, interaction } from "../backend/demoData";
import { lastCall, pane, renderApp } from "./render";

/** Opens a form question whose form fails with `reason`, answers it through the fallback. */
export async function answerThroughFormFallback(reason: RegExp) {
  vi.spyOn(console, "error").mockImplementation(() => {});
  const schema = { type: "object", required: ["count"], properties: { count: { type: "integer", minimum: 1 } } };
  const { backend, user } = await renderApp([card("local", interaction({ id: "ia_form", prompt: "How many?", answer_format: "form", schema: schema as never }))]);
  await waitFor(() => expect(pane().getByText("This question could not be displayed")).toBeInTheDocument());
  expect(pane().getByText(reason)).toBeInTheDocument();
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
}
