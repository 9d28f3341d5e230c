// Every schema of the real-world corpus (src/test/schemas/corpus/, also read by the server's
// crates/inbox-protocol/tests/form_agreement.rs) asked as a form in the whole window: it draws
// controls and never its own schema text, its valid answer (prefilled) goes through Review and
// Submit, and its invalid answer is refused at Review with the schema's message in view, listed
// in the step's error summary and with focus on the first field at fault.
import type { RJSFSchema } from "@rjsf/utils";
import { waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { BackendError } from "../../backend/BackendError";
import { card, interaction } from "../../backend/demoData";
import { FormValidator } from "../../forms/formValidator";
import { lastCall, pane, renderApp } from "../../test/render";

type Entry = {
  title: string;
  licence: string;
  keywords: string[];
  schema: Record<string, unknown>;
  valid: Record<string, unknown>;
  /** `checked_by: "server"`: a rule the window leaves to the server (validatorGuards), so the refusal arrives on Submit. */
  invalid: { answer: Record<string, unknown>; error: string; checked_by?: "server"; field?: string };
};

const files = import.meta.glob<Entry>("../../test/schemas/corpus/*.json", { eager: true, import: "default" });
const corpus = Object.entries(files).map(([path, entry]) => ({ name: path.replace(/^.*\/(.*)\.json$/, "$1"), entry }));

const formCard = (name: string, entry: Entry, values: Record<string, unknown>) =>
  card("local", interaction({ id: `ia_${name.replace(/-/g, "_")}`, prompt: entry.title, answer_format: "form", asker: "config-bot", schema: entry.schema as never, data: { values, options: {} } }));

// Schema text on screen: a keyword in quotes followed by a colon, as a JSON dump would show it.
const SCHEMA_TEXT = /"(type|properties|items|\$ref|\$defs|definitions|anyOf|oneOf|allOf|required|enum)"\s*:/;

function expectNoSchemaText() {
  const main = pane().getByRole("heading", { level: 3 }).closest("article") ?? document.body;
  expect(main.textContent ?? "").not.toMatch(SCHEMA_TEXT);
  // JSON editors (for shapes the library cannot draw) hold values, never the schema.
  for (const box of Array.from(main.querySelectorAll("textarea"))) expect(box.value).not.toMatch(SCHEMA_TEXT);
}

describe("the corpus of real-world schemas", () => {
  it("holds at least 40 schemas, each with its licence noted", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    for (const { entry } of corpus) expect(entry.licence.length).toBeGreaterThan(10);
  });

  for (const { name, entry } of corpus) {
    describe(name, () => {
      it("draws controls, never schema text, and its valid answer submits", async () => {
        const { backend, user } = await renderApp([formCard(name, entry, entry.valid)]);
        expect(pane().getAllByRole("button", { name: "Review" }).length).toBe(1);
        expectNoSchemaText();
        await user.click(pane().getByRole("button", { name: "Review" }));
        // (The review may show an answer's own objects as JSON: that is data, not schema.)
        await waitFor(() => expect(pane().getByRole("heading", { level: 3 })).toHaveTextContent("Review your answer"));
        await user.click(pane().getByRole("button", { name: "Submit" }));
        await waitFor(() => expect(lastCall(backend, "answer_interaction")).toBeDefined());
        const sent = lastCall(backend, "answer_interaction")!.value as Record<string, unknown>;
        // What was prefilled is what is sent (defaults the form fills in may come with it), and
        // the window's validator (the same verdict as the server's) accepts it.
        expect(sent).toMatchObject(entry.valid);
        expect(new FormValidator().validateFormData(sent, entry.schema as RJSFSchema).errors).toEqual([]);
      });

      it("refuses its invalid answer with the schema's message in view", async () => {
        const byServer = entry.invalid.checked_by === "server";
        // The server's refusal of this answer, as crates/inbox-protocol/tests/form_agreement.rs shows it refuses it.
        const refuseAnswer = byServer ? () => new BackendError("invalid_answer", entry.invalid.error, `answer.${entry.invalid.field ?? Object.keys(entry.invalid.answer)[0]}`) : undefined;
        const { backend, user } = await renderApp([formCard(name, entry, entry.invalid.answer)], { refuseAnswer });
        await user.click(pane().getByRole("button", { name: "Review" }));
        if (byServer) {
          await waitFor(() => expect(pane().getByRole("heading", { level: 3 })).toHaveTextContent("Review your answer"));
          await user.click(pane().getByRole("button", { name: "Submit" }));
        }
        const summary = await pane().findByRole("alert", { name: /problem/ });
        expect(summary).toHaveTextContent(entry.invalid.error);
        // The field's own message is shown too, and focus went to the first field at fault.
        const shown = pane().getAllByText((_, el) => !!el && el.classList.contains("error-detail") && (el.textContent ?? "").includes(entry.invalid.error));
        expect(shown.length).toBeGreaterThan(0);
        expect(document.activeElement?.closest("form")).not.toBeNull();
        expect(pane().getByRole("heading", { level: 3 })).not.toHaveTextContent("Review your answer");
        if (!byServer) expect(lastCall(backend, "answer_interaction")).toBeUndefined();
        expectNoSchemaText();
      });
    });
  }
});
