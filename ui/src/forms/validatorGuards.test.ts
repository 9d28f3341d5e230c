import { describe, expect, it } from "vitest";
import cases from "../test/schemas/recursive.json";
import { FormValidator as Validator } from "./formValidator";

// The tests hand over plain JSON schemas; rjsf's JSONSchema7 typing is beside the point here.
class FormValidator extends Validator<any, any, any> {}
import { guardSchema, tooDeep, unsafePattern } from "./validatorGuards";
import { dereference, type Schema } from "@cfworker/json-schema";

describe("patterns the window will not run", () => {
  it.each([
    ["^(a+)+$"],
    ["(a*)*b"],
    ["^(\\w+\\s?)+$"],
    ["^(a|aa)+$"],
    ["^(x+x+)+y$"],
    ["^\\d+\\d+$"],
    ["^.*.*=.*$"],
    ["(a)\\1"],
    ["^([a-zA-Z0-9]+)*@example\\.com$"],
    ["a".repeat(600)],
  ])("%s is unsafe", (pattern) => {
    expect(unsafePattern(pattern)).not.toBeNull();
  });

  it.each([
    ["^[a-z]+$"],
    ["^\\d{3}-\\d{4}$"],
    ["^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}$"],
    ["^(https?|ftp)://[^\\s]+$"],
    ["^[a-z0-9]+(-[a-z0-9]+)*$"],
    ["^v?\\d+(\\.\\d+){0,2}$"],
    ["^(\\+\\d{1,3})?\\d+$"],
    ["^[a-z](?:[a-z0-9_]*)$"],
    ["^(a|b|c)*$"],
  ])("%s is run", (pattern) => {
    expect(unsafePattern(pattern)).toBeNull();
  });
});

describe("schemas the window will not validate", () => {
  const guard = (schema: Schema) => {
    const copy = structuredClone(schema);
    return { copy, ...guardSchema(copy, dereference(copy)) };
  };

  it("drops an unsafe pattern and keeps a safe one", () => {
    const { copy, skipped, unsafe } = guard({ type: "object", properties: { a: { type: "string", pattern: "^(a+)+$" }, b: { type: "string", pattern: "^[a-z]+$" } } });
    expect(unsafe).toBeNull();
    expect(skipped).toEqual([expect.stringContaining("pattern at #/properties/a")]);
    expect((copy.properties as Record<string, Schema>).a.pattern).toBeUndefined();
    expect((copy.properties as Record<string, Schema>).b.pattern).toBe("^[a-z]+$");
  });

  it("refuses a $ref cycle that never steps into a property or item", () => {
    expect(guard({ $defs: { a: { allOf: [{ $ref: "#/$defs/a" }] } }, type: "object", properties: { x: { $ref: "#/$defs/a" } } }).unsafe).toMatch(/cycle/);
    expect(guard({ anyOf: [{ $ref: "#" }, { type: "string" }] }).unsafe).toMatch(/cycle/);
  });

  it("accepts recursion through properties and items (the data bounds it)", () => {
    for (const [name, c] of Object.entries(cases)) {
      if (name.startsWith("$")) continue;
      expect(guard((c as { schema: Schema }).schema).unsafe, name).toBeNull();
    }
  });

  it("refuses in-place rules that fan out exponentially", () => {
    const defs: Record<string, Schema> = { l0: { type: "string" } };
    for (let n = 1; n <= 25; n++) defs[`l${n}`] = { allOf: [{ $ref: `#/$defs/l${n - 1}` }, { $ref: `#/$defs/l${n - 1}` }] };
    expect(guard({ $ref: "#/$defs/l25", $defs: defs }).unsafe).toMatch(/fan out/);
  });

  it("knows data that nests too deeply", () => {
    let deep: unknown = "leaf";
    for (let n = 0; n < 100; n++) deep = [deep];
    expect(tooDeep(deep as never)).toBe(true);
    expect(tooDeep({ a: [{ b: 1 }] })).toBe(false);
  });
});

describe("the form validator stays responsive", () => {
  it("a regex bomb against a long prefill returns at once, leaving the pattern to the server", () => {
    const v = new FormValidator();
    const schema = { type: "object", properties: { name: { type: "string", pattern: "^(a+)+$", maxLength: 5 } } };
    const started = performance.now();
    const result = v.validateFormData({ name: `${"a".repeat(5000)}b` }, schema);
    expect(performance.now() - started).toBeLessThan(500);
    // The other rules on the field still run.
    expect(result.errors.map((e) => e.name)).toEqual(["maxLength"]);
  });

  it("a safe pattern still reports its error", () => {
    const v = new FormValidator();
    const result = v.validateFormData({ code: "ABC" }, { type: "object", properties: { code: { type: "string", pattern: "^[a-z]+$" } } });
    expect(result.errors.map((e) => e.name)).toEqual(["pattern"]);
  });

  it("a cyclic schema is left to the server rather than recursing without end", () => {
    const v = new FormValidator();
    const schema = { $defs: { a: { allOf: [{ $ref: "#/$defs/a" }] } }, type: "object", properties: { x: { $ref: "#/$defs/a" } } };
    expect(v.validateFormData({ x: 1 }, schema).errors).toEqual([]);
    expect(v.isValid(schema, { x: 1 }, schema)).toBe(true);
  });

  it("validates recursive data at depth", () => {
    const v = new FormValidator();
    const schema = (cases["root-self-reference"] as { schema: unknown }).schema as never;
    const result = v.validateFormData({ name: "a", parent: { name: "b", parent: { parent: { name: "d" } } } }, schema);
    expect(result.errors.map((e) => e.property)).toEqual([".parent.parent.name"]);
  });

  it("validates a drawn schema as the original it stands for", () => {
    const v = new FormValidator();
    const original = (cases["root-self-reference"] as { schema: unknown }).schema;
    const drawn = v.alias({ type: "object", properties: { name: { type: "string" }, parent: { "x-inbox-lazy": "lazy1" } } }, original, original);
    const result = v.validateFormData({ name: "a", parent: { parent: {} } }, drawn as never);
    expect(result.errors.map((e) => e.property).sort()).toEqual([".parent.name", ".parent.parent.name"]);
  });
});
