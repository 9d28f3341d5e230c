import { describe, expect, it } from "vitest";
import { releaseFormSchema } from "../backend/demoData";
import { errorAt, fieldPath, formSteps, pageSchema, perSendSchema, prefill, stepOfField } from "./formSchema";

describe("perSendSchema", () => {
  it("replaces a string enum with labelled consts and leaves the stored schema alone", () => {
    const schema = { type: "object", properties: { date: { type: "string", enum: ["a", "b"] }, n: { type: "integer" } } };
    const out = perSendSchema({ schema, data: { values: {}, options: { date: [{ value: "x", label: "Ex" }, { value: "y", label: null }] } } });
    expect(out.properties?.date).toEqual({ type: "string", oneOf: [{ const: "x", title: "Ex" }, { const: "y", title: "y" }] });
    expect(schema.properties.date.enum).toEqual(["a", "b"]);
  });

  it("ignores options on a non-string property", () => {
    const out = perSendSchema({ schema: { type: "object", properties: { n: { type: "integer" } } }, data: { values: {}, options: { n: [{ value: "1", label: "One" }] } } });
    expect(out.properties?.n).toEqual({ type: "integer" });
  });

  it("types a bare oneOf of string constants", () => {
    const out = perSendSchema({ schema: releaseFormSchema, data: null });
    expect(out.properties?.rollback.type).toBe("string");
  });
});

describe("pages", () => {
  it("a page holds only its fields and their required entries", () => {
    const page = pageSchema({ ...releaseFormSchema, additionalProperties: false } as never, ["count", "date"]);
    expect(Object.keys(page.properties ?? {})).toEqual(["count", "date"]);
    expect(page.required).toEqual(["count", "date"]);
    expect(page.additionalProperties).toBeUndefined();
  });

  it("an absent pages is one page of every property", () => {
    const steps = formSteps({ pages: null }, { title: "T", properties: { a: {}, b: {} } });
    expect(steps).toEqual([{ title: "T", fields: ["a", "b"] }]);
  });

  it("finds the step holding a server field path", () => {
    const steps = [
      { title: "A", fields: ["count"] },
      { title: "B", fields: ["owner", "tags"] },
    ];
    expect(stepOfField(steps, "answer.owner.email")).toBe(1);
    expect(stepOfField(steps, "tags[2]")).toBe(1);
    expect(stepOfField(steps, "count")).toBe(0);
    expect(stepOfField(steps, "nope")).toBe(-1);
  });
});

describe("field errors", () => {
  it("parses dotted, bracketed and pointer paths", () => {
    expect(fieldPath("answer.owner.email")).toEqual(["owner", "email"]);
    expect(fieldPath("/owner/email")).toEqual(["owner", "email"]);
    expect(fieldPath("tags[1]")).toEqual(["tags", "1"]);
  });

  it("builds an error schema at the field", () => {
    expect(errorAt("owner.email", "taken")).toEqual({ owner: { email: { __errors: ["taken"] } } });
  });

  it("prefill copies data.values", () => {
    const data = { values: { count: 3 }, options: {} };
    const p = prefill({ data });
    expect(p).toEqual({ count: 3 });
    p.count = 4;
    expect(data.values.count).toBe(3);
  });
});
