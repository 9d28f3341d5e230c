// A form whose drawing throws (the form component replaced here by one that does) leaves the
// question answerable: the failure, a JSON editor for the whole answer, and Decline.
import { beforeEach, describe, it, vi } from "vitest";
import { answerThroughFormFallback } from "../test/formFallback";

vi.mock("../components/controls/FormAnswer", () => ({
  FormAnswer: () => {
    throw new TypeError("Cannot read properties of undefined (reading 'properties')");
  },
}));

beforeEach(() => localStorage.clear());

describe("the form's boundary", () => {
  it("shows the failure in the form's place, takes the answer as JSON, and keeps Decline", async () => {
    await answerThroughFormFallback(/TypeError: Cannot read properties/);
  });
});
