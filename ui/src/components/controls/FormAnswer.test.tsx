import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { BackendError } from "../../backend/BackendError";
import { card, interaction, releaseForm, releaseFormSchema } from "../../backend/demoData";
import type { Card, Interaction } from "../../backend/types";
import { lastCall, pane, renderApp } from "../../test/render";

function releaseCard(extra: Partial<Parameters<typeof interaction>[0]> = {}): Card {
  return card(
    "local",
    interaction({
      id: "ia_release",
      prompt: "Fill in the release form",
      ...releaseForm,
      ...extra,
    }),
  );
}

/** Opens a form question (on the local account) as the only card. */
const renderFormQuestion = (fields: Pick<Interaction, "id" | "prompt" | "schema"> & Partial<Interaction>) =>
  renderApp([card("local", interaction({ answer_format: "form", ...fields }))]);

const stepHeading = () => pane().getByRole("heading", { level: 3 });

describe("form questions", () => {
  it("prefills data.values and shows data.options by label in place of the enum", async () => {
    await renderApp([releaseCard()]);
    expect(pane().getByRole("spinbutton", { name: /Instances/ })).toHaveValue(3);
    const date = pane().getByRole("combobox", { name: /Release date/ });
    const labels = within(date)
      .getAllByRole("option")
      .map((o) => o.textContent);
    expect(labels).toContain("Monday 1 December");
    expect(labels).toContain("Tuesday 2 December");
    // The schema's own enum values are not offered.
    expect(labels).not.toContain("2026-12-01");
  });

  it("walks the pages in order with per-page validation, a review step, and submits values", async () => {
    const { backend, user } = await renderApp([releaseCard({ data: { values: {}, options: { date: [{ value: "2026-12-01", label: "Monday 1 December" }] } } })]);
    expect(stepHeading()).toHaveTextContent("Step 1 of 2 · Basics");
    // Page 1 is missing its required count: Next is blocked, the error sits at the field.
    await user.click(pane().getByRole("button", { name: "Next" }));
    expect(stepHeading()).toHaveTextContent("Step 1 of 2 · Basics");
    // Under its field, and in the step's error summary as a link to it.
    expect(pane().getByText("must have required property 'Instances'", { selector: ".text-danger" })).toBeInTheDocument();
    expect(pane().getByRole("alert", { name: /problem/ })).toHaveTextContent("must have required property 'Instances'");
    // Page 2's required owner is not checked on page 1.
    expect(pane().queryByText(/required property 'Owner'/)).toBeNull();

    await user.type(pane().getByRole("spinbutton", { name: /Instances/ }), "99");
    await user.click(pane().getByRole("button", { name: "Next" }));
    expect(stepHeading()).toHaveTextContent("Step 1 of 2 · Basics");
    expect(pane().getByText(/must be <= 50/, { selector: ".text-danger" })).toBeInTheDocument();

    await user.clear(pane().getByRole("spinbutton", { name: /Instances/ }));
    await user.type(pane().getByRole("spinbutton", { name: /Instances/ }), "4");
    await user.selectOptions(pane().getByRole("combobox", { name: /Release date/ }), "Monday 1 December");
    await user.click(pane().getByRole("button", { name: "Next" }));
    expect(stepHeading()).toHaveTextContent("Step 2 of 2 · Owner");

    // Nested object with a format: a bad email blocks the review.
    await user.type(pane().getByRole("textbox", { name: /Name/ }), "Ada");
    await user.type(pane().getByRole("textbox", { name: /Email/ }), "not-an-email");
    await user.click(pane().getByRole("button", { name: "Review" }));
    expect(stepHeading()).toHaveTextContent("Step 2 of 2 · Owner");
    expect(pane().getByText(/must match format "email"/, { selector: ".text-danger" })).toBeInTheDocument();
    await user.clear(pane().getByRole("textbox", { name: /Email/ }));
    await user.type(pane().getByRole("textbox", { name: /Email/ }), "ada@example.com");

    // An array of strings.
    await user.click(pane().getByRole("button", { name: /Add/ }));
    const tag = await pane().findByRole("textbox", { name: /Tag|tags-0|0/i });
    await user.type(tag, "hotfix");

    // Back keeps what was typed.
    await user.click(pane().getByRole("button", { name: "Back" }));
    expect(stepHeading()).toHaveTextContent("Step 1 of 2 · Basics");
    expect(pane().getByRole("spinbutton", { name: /Instances/ })).toHaveValue(4);
    await user.click(pane().getByRole("button", { name: "Next" }));
    expect(pane().getByRole("textbox", { name: /Email/ })).toHaveValue("ada@example.com");

    await user.click(pane().getByRole("button", { name: "Review" }));
    expect(stepHeading()).toHaveTextContent("Review your answer");
    const review = pane().getByRole("region", { name: "Owner" });
    expect(review).toHaveTextContent("ada@example.com");
    expect(review).toHaveTextContent("hotfix");
    expect(pane().getByRole("region", { name: "Basics" })).toHaveTextContent("Monday 1 December");
    expect(backend.calls.some((c) => c.command === "answer_interaction")).toBe(false);

    await user.click(pane().getByRole("button", { name: "Submit" }));
    expect(lastCall(backend, "answer_interaction")).toEqual({
      account: "local",
      id: "ia_release",
      value: { count: 4, date: "2026-12-01", channel: "stable", owner: { name: "Ada", email: "ada@example.com" }, tags: ["hotfix"], rollback: "auto" },
    });
  });

  it("shows a server field error at the field it names, on its page", async () => {
    const { user } = await renderApp([releaseCard()], {
      refuseAnswer: () => new BackendError("invalid_answer", "this address is not allowed", "answer.owner.email"),
    });
    await user.selectOptions(pane().getByRole("combobox", { name: /Release date/ }), "Tuesday 2 December");
    await user.click(pane().getByRole("button", { name: "Next" }));
    await user.type(pane().getByRole("textbox", { name: /Name/ }), "Ada");
    await user.type(pane().getByRole("textbox", { name: /Email/ }), "ada@example.com");
    await user.click(pane().getByRole("button", { name: "Review" }));
    await user.click(pane().getByRole("button", { name: "Submit" }));
    await waitFor(() => expect(stepHeading()).toHaveTextContent("Step 2 of 2 · Owner"));
    const email = pane().getByRole("textbox", { name: /Email/ });
    const group = email.closest(".form-group") as HTMLElement;
    expect(within(group).getByText("this address is not allowed")).toBeInTheDocument();
  });

  it("a form without pages is one step, then review", async () => {
    const { backend, user } = await renderFormQuestion({
      id: "ia_f",
      prompt: "Small form",
      schema: { type: "object", title: "Details", properties: { ok: { type: "boolean", title: "All good" }, size: { type: "string", enum: ["s", "m"] } } },
    });
    expect(stepHeading()).toHaveTextContent("Step 1 of 1 · Details");
    await user.click(pane().getByRole("checkbox", { name: /All good/ }));
    await user.click(pane().getByRole("button", { name: "Review" }));
    await user.click(pane().getByRole("button", { name: "Submit" }));
    expect(lastCall(backend, "answer_interaction")).toMatchObject({ value: { ok: true } });
  });

  it("oneOf and enum render as choices", async () => {
    const { user } = await renderApp([releaseCard()]);
    await user.selectOptions(pane().getByRole("combobox", { name: /Release date/ }), "Monday 1 December");
    await user.click(pane().getByRole("button", { name: "Next" }));
    const rollback = pane().getByRole("combobox", { name: /Rollback plan/ });
    expect(within(rollback).getAllByRole("option").map((o) => o.textContent)).toEqual(expect.arrayContaining(["Automatic", "Manual"]));
    expect(screen.queryByText(/Unsupported field schema/)).toBeNull();
  });

  it("per-page validation blocks Next at an invalid array item, and lets it pass once fixed", async () => {
    const { backend, user } = await renderFormQuestion({
      id: "ia_people",
      prompt: "Who should hear about it?",
      schema: {
        type: "object",
        properties: {
          contacts: { type: "array", title: "Contacts", items: { type: "string", title: "Contact", format: "email" } },
          note: { type: "string", title: "Note", maxLength: 5 },
        },
      },
      data: { values: { contacts: ["ada@example.com", "not-an-email"] }, options: {} },
      pages: [
        { title: "People", fields: ["contacts"] },
        { title: "Notes", fields: ["note"] },
      ],
    });
    const contacts = pane().getAllByRole("textbox", { name: /Contact/ });
    await user.click(pane().getByRole("button", { name: "Next" }));
    expect(stepHeading()).toHaveTextContent("Step 1 of 2 · People");
    // The error sits at the second item, not at the first nor at the list.
    const second = contacts[1].closest(".form-group") as HTMLElement;
    expect(within(second).getByText('must match format "email"')).toBeInTheDocument();
    expect(within(contacts[0].closest(".form-group") as HTMLElement).queryByText(/must match format/)).toBeNull();

    await user.clear(contacts[1]);
    await user.type(contacts[1], "grace@example.com");
    await user.click(pane().getByRole("button", { name: "Next" }));
    expect(stepHeading()).toHaveTextContent("Step 2 of 2 · Notes");

    // Page 2 is checked on its own Review.
    await user.type(pane().getByRole("textbox", { name: /Note/ }), "far too long");
    await user.click(pane().getByRole("button", { name: "Review" }));
    expect(stepHeading()).toHaveTextContent("Step 2 of 2 · Notes");
    expect(pane().getByText("must NOT have more than 5 characters")).toBeInTheDocument();
    expect(backend.calls.some((c) => c.command === "answer_interaction")).toBe(false);
  });

  it("a rule spanning pages is checked on Submit and sends the person to the field it names", async () => {
    const schema = { ...releaseFormSchema, dependentRequired: { rollback: ["tags"] } };
    const { backend, user } = await renderApp([releaseCard({ schema })]);
    await user.selectOptions(pane().getByRole("combobox", { name: /Release date/ }), "Monday 1 December");
    await user.click(pane().getByRole("button", { name: "Next" }));
    await user.type(pane().getByRole("textbox", { name: /Name/ }), "Ada");
    await user.type(pane().getByRole("textbox", { name: /Email/ }), "ada@example.com");
    // The page alone is fine: the rule ties rollback (chosen) to tags (left empty) across the form.
    await user.click(pane().getByRole("button", { name: "Review" }));
    expect(stepHeading()).toHaveTextContent("Review your answer");
    await user.click(pane().getByRole("button", { name: "Submit" }));
    expect(stepHeading()).toHaveTextContent("Step 2 of 2 · Owner");
    // Under its field, and in the step's error summary as a link to it.
    expect(pane().getByText(/must have property tags when property rollback is present/, { selector: ".text-danger" })).toBeInTheDocument();
    expect(pane().getByRole("alert", { name: /problem/ })).toHaveTextContent(/must have property tags when property rollback is present/);
    expect(backend.calls.some((c) => c.command === "answer_interaction")).toBe(false);
  });

  it("errors stay in view: the step is marked, its summary links to each field, a link moves focus there", async () => {
    const { user } = await renderApp([releaseCard({ data: { values: { count: 99 }, options: {} } })]);
    await user.click(pane().getByRole("button", { name: "Next" }));
    expect(stepHeading()).toHaveTextContent("Step 1 of 2 · Basics");
    const steps = within(pane().getByRole("navigation", { name: "Form steps" })).getAllByRole("listitem");
    expect(steps[0]).toHaveTextContent("(has errors)");
    expect(steps[1]).not.toHaveTextContent("(has errors)");
    const summary = pane().getByRole("alert", { name: /2 problems/ });
    const links = within(summary).getAllByRole("link");
    expect(links.map((l) => l.textContent)).toEqual(["'Instances' must be <= 50", "must have required property 'Release date'"]);
    // Focus went to the first field at fault; the second link moves it to the other one.
    expect(document.activeElement).toBe(pane().getByRole("spinbutton", { name: /Instances/ }));
    await user.click(links[1]);
    expect(document.activeElement).toBe(pane().getByRole("combobox", { name: /Release date/ }));
    // Fixed, the step goes on and loses its mark.
    await user.clear(pane().getByRole("spinbutton", { name: /Instances/ }));
    await user.type(pane().getByRole("spinbutton", { name: /Instances/ }), "3");
    await user.selectOptions(pane().getByRole("combobox", { name: /Release date/ }), "2026-12-01");
    await user.click(pane().getByRole("button", { name: "Next" }));
    expect(stepHeading()).toHaveTextContent("Step 2 of 2 · Owner");
    expect(pane().queryByRole("alert", { name: /problem/ })).toBeNull();
    expect(within(pane().getByRole("navigation", { name: "Form steps" })).getAllByRole("listitem")[0]).not.toHaveTextContent("(has errors)");
  });

  it("a oneOf of objects opens on the option its prefilled value fits, references resolved from the root", async () => {
    await renderFormQuestion({
      id: "ia_reach",
      prompt: "How do we reach you?",
      schema: {
        type: "object",
        $defs: { phone: { type: "string", pattern: "^\\+?[0-9 ]+$" } },
        properties: {
          reach: {
            title: "Reach me by",
            // The options differ only in what their one field accepts, so only validating the
            // value (through the $ref) can tell which one it is.
            oneOf: [
              { title: "Email", type: "object", properties: { to: { type: "string", format: "email", title: "Address" } }, required: ["to"] },
              { title: "Phone", type: "object", properties: { to: { $ref: "#/$defs/phone", title: "Phone number" } }, required: ["to"] },
            ],
          },
        },
      },
      data: { values: { reach: { to: "+44 20 7946 0000" } }, options: {} },
    });
    const choice = pane().getAllByRole("combobox")[0] as HTMLSelectElement;
    expect(choice.selectedOptions[0]?.textContent).toBe("Phone");
    expect(pane().getByRole("textbox", { name: /Phone number/ })).toHaveValue("+44 20 7946 0000");
  });
});
