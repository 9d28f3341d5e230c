// oneOf/anyOf alternatives as a reviewer meets them: named by their titles (or what sets them
// apart), the field's label and description shown once, and switching keeps what still fits.
import { waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { card, interaction } from "../../backend/demoData";
import deploy from "../../test/schemas/corpus/deploy-request.json";
import hooks from "../../test/schemas/corpus/hook-config.json";
import { lastCall, pane, renderApp } from "../../test/render";

const formCard = (id: string, schema: unknown, values: Record<string, unknown>) =>
  card("local", interaction({ id, prompt: "Alternatives", answer_format: "form", asker: "deploy-bot", schema: schema as never, data: { values, options: {} } }));

const form = () => pane().getByRole("heading", { level: 3 }).closest("article")!.querySelector(".form-answer")!;

describe("oneOf alternatives", () => {
  it("are named by title, the field labelled once, and switching keeps what fits", async () => {
    const { backend, user } = await renderApp([formCard("ia_deploy", deploy.schema, { service: "api", strategy: { kind: "rolling", max_unavailable: 1, note: "keep me" } })]);
    const chooser = form().querySelector<HTMLSelectElement>(".alternative-choice select")!;
    expect(chooser.closest("label")).toHaveTextContent(/Strategy · Kind/);
    expect(within(chooser).getAllByRole("option").map((o) => o.textContent)).toEqual(["Rolling", "Blue/green", "Canary"]);
    const headings = [...form().querySelectorAll("legend, label.control-label")].filter((el) => (el.textContent ?? "").startsWith("Strategy"));
    expect(headings).toHaveLength(1);
    expect(pane().getAllByText("How the new version replaces the old one.")).toHaveLength(1);
    // The discriminator is shown, not typed.
    expect(pane().getByRole("textbox", { name: /kind/ })).toHaveAttribute("readonly");

    await user.selectOptions(chooser, "Blue/green");
    await waitFor(() => expect(pane().getByLabelText(/Switch at/)).toHaveAttribute("type", "datetime-local"));
    expect(pane().getByRole("textbox", { name: /Note/ })).toHaveValue("keep me");
    expect(pane().getByRole("textbox", { name: /kind/ })).toHaveValue("blue-green");
    await user.type(pane().getByLabelText(/Switch at/), "2026-12-08T09:30");
    await user.click(pane().getByRole("button", { name: "Review" }));
    await waitFor(() => expect(pane().getByRole("heading", { level: 3 })).toHaveTextContent("Review your answer"));
    await user.click(pane().getByRole("button", { name: "Submit" }));
    await waitFor(() => expect(lastCall(backend, "answer_interaction")).toBeDefined());
    const sent = lastCall(backend, "answer_interaction")!.value as { strategy: Record<string, unknown> };
    expect(sent.strategy).toMatchObject({ kind: "blue-green", note: "keep me" });
    expect(sent.strategy.max_unavailable).toBeUndefined();
    expect(typeof sent.strategy.switch_at).toBe("string");
  });

  it("items without a type, given as allOf/anyOf of a $ref'd object, are lists of controls (the issue's shape)", async () => {
    const { user } = await renderApp([formCard("ia_hooks", hooks.schema, hooks.valid)]);
    expect(pane().getByDisplayValue("local").tagName).toBe("INPUT");
    expect(pane().getByDisplayValue("fmt").tagName).toBe("INPUT");
    expect(pane().getByDisplayValue("--check").tagName).toBe("INPUT");
    await user.click(pane().getAllByRole("button", { name: /Add/ })[0]);
    expect(form().textContent).not.toMatch(/"(type|items|\$ref|allOf|anyOf)"\s*:/);
  });
});
