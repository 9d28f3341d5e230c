// The form chunk: a loading notice while it is fetched, the form once it is there, and at once
// when it was fetched ahead. Each test builds its own lazy form over the real FormAnswer module,
// with the load held back or failing where the test needs it.
import { act, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { interaction } from "../../backend/demoData";
import { lazyFormAnswer } from "./LazyFormAnswer";

const question = interaction({
  id: "ia_lazy",
  prompt: "How many?",
  answer_format: "form",
  schema: { type: "object", title: "Count", properties: { count: { type: "integer", title: "Instances" } } },
});

const draw = (FormAnswer: ReturnType<typeof lazyFormAnswer>["FormAnswer"]) =>
  render(<FormAnswer interaction={question} busy={false} onAnswer={async () => null} />);

describe("the lazily loaded form", () => {
  it("shows 'Loading form…' until the chunk arrives, then the form", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const { FormAnswer } = lazyFormAnswer(async () => {
      await held;
      return import("./FormAnswer");
    });
    draw(FormAnswer);
    expect(screen.getByRole("status")).toHaveTextContent("Loading form…");
    expect(screen.queryByRole("spinbutton", { name: /Instances/ })).toBeNull();

    await act(async () => release());
    expect(await screen.findByRole("spinbutton", { name: /Instances/ })).toBeInTheDocument();
    expect(screen.queryByText("Loading form…")).toBeNull();
  });

  it("draws the form in the first render once preloaded", async () => {
    const { FormAnswer, preload } = lazyFormAnswer(() => import("./FormAnswer"));
    expect(await preload()).toBe(true);
    draw(FormAnswer);
    expect(screen.getByRole("spinbutton", { name: /Instances/ })).toBeInTheDocument();
    expect(screen.queryByText("Loading form…")).toBeNull();
  });

  it("tries a failed load again when a form is drawn", async () => {
    let attempts = 0;
    const { FormAnswer, preload } = lazyFormAnswer(async () => {
      attempts++;
      if (attempts === 1) throw new TypeError("Failed to fetch dynamically imported module");
      return import("./FormAnswer");
    });
    expect(await preload()).toBe(false);
    draw(FormAnswer);
    expect(await screen.findByRole("spinbutton", { name: /Instances/ })).toBeInTheDocument();
    expect(attempts).toBe(2);
  });
});
