import "@testing-library/jest-dom/vitest";
import { cleanup } from "@testing-library/react";
import { afterEach, beforeAll } from "vitest";

// Many tests draw a form in the same render that opens its question, as the window does once the
// form chunk is fetched (after first paint): fetch it before each file's tests. Imported here, after
// the file's own imports and `vi.mock`s, so a file that replaces the form gets its replacement.
beforeAll(async () => {
  const { preloadFormAnswer } = await import("../components/controls/LazyFormAnswer");
  await preloadFormAnswer();
});

afterEach(() => cleanup());
