// The form chunk failing to load (its module replaced here by one whose import fails) is caught by
// the same boundary as a form that throws: the failure, a JSON editor for the whole answer, Decline.
// The reason shown is the import's error, which vitest words as a failed mock (the browser's would
// be "Failed to fetch dynamically imported module").
import { beforeEach, describe, it, vi } from "vitest";
import { answerThroughFormFallback } from "../test/formFallback";

vi.mock("../components/controls/FormAnswer", () => {
  throw new TypeError("Failed to fetch dynamically imported module: ./assets/FormAnswer.js");
});

beforeEach(() => localStorage.clear());

describe("the form's boundary, when the form chunk does not load", () => {
  it("shows the failure in the form's place, takes the answer as JSON, and keeps Decline", async () => {
    await answerThroughFormFallback(/There was an error when mocking a module/);
  });
});
