import type { RJSFSchema, RJSFValidationError } from "@rjsf/utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { releaseFormSchema } from "../backend/demoData";
import { FormValidator, formValidator } from "./formValidator";

const schema = releaseFormSchema as RJSFSchema;
const validator = new FormValidator();
afterEach(() => validator.reset());

const valid = { count: 4, date: "2026-12-01", channel: "stable", owner: { name: "Ada", email: "ada@example.com" }, tags: ["hotfix"], rollback: "auto" };

function errorsOf(data: unknown, s: RJSFSchema = schema) {
  return validator.validateFormData(data, s);
}

function only(errors: RJSFValidationError[], name: string) {
  return errors.filter((e) => e.name === name);
}

describe("the form validator maps errors to fields", () => {
  it("passes a valid answer with no errors", () => {
    const { errors, errorSchema } = errorsOf(valid);
    expect(errors).toEqual([]);
    expect(errorSchema).toEqual({});
  });

  it("puts a missing property at that property, named by its title", () => {
    const { errors, errorSchema } = errorsOf({ ...valid, count: undefined, owner: { name: "Ada" } });
    expect(only(errors, "required")).toEqual([
      expect.objectContaining({ property: ".count", message: "must have required property 'Instances'", params: { missingProperty: "count" }, stack: "must have required property 'Instances'", title: "Instances" }),
      expect.objectContaining({ property: ".owner.email", message: "must have required property 'Email'", params: { missingProperty: "email" } }),
    ]);
    expect(errorSchema).toEqual({
      count: { __errors: ["must have required property 'Instances'"] },
      owner: { email: { __errors: ["must have required property 'Email'"] } },
    });
  });

  it("reports a wrong type at the field", () => {
    const { errors, errorSchema } = errorsOf({ ...valid, count: "four" });
    expect(errors).toEqual([expect.objectContaining({ name: "type", property: ".count", message: "must be integer", params: { type: "integer" }, stack: "'Instances' must be integer" })]);
    expect(errorSchema).toEqual({ count: { __errors: ["must be integer"] } });
    expect(errorsOf({ ...valid, count: 2.5 }).errors[0]).toMatchObject({ name: "type", property: ".count" });
  });

  it("reports bounds with the limit", () => {
    expect(errorsOf({ ...valid, count: 0 }).errors).toEqual([
      expect.objectContaining({ name: "minimum", property: ".count", message: "must be >= 1", params: { comparison: ">=", limit: 1 }, schemaPath: "#/properties/count/minimum" }),
    ]);
    expect(errorsOf({ ...valid, count: 99 }).errors).toEqual([expect.objectContaining({ name: "maximum", property: ".count", message: "must be <= 50" })]);
  });

  it("reports a format at a nested field", () => {
    const { errors, errorSchema } = errorsOf({ ...valid, owner: { name: "Ada", email: "not-an-email" } });
    expect(errors).toEqual([expect.objectContaining({ name: "format", property: ".owner.email", message: 'must match format "email"', params: { format: "email" }, stack: "'Email' must match format \"email\"" })]);
    expect(errorSchema).toEqual({ owner: { email: { __errors: ['must match format "email"'] } } });
  });

  it("reports a value outside an enum", () => {
    expect(errorsOf({ ...valid, date: "2027-01-01" }).errors).toEqual([
      expect.objectContaining({ name: "enum", property: ".date", message: "must be equal to one of the allowed values", params: { allowedValues: ["2026-12-01", "2026-12-02"] } }),
    ]);
  });

  it("reports a value matching no oneOf option once per message, at the field", () => {
    const { errors, errorSchema } = errorsOf({ ...valid, rollback: "never" });
    expect(errors.map((e) => [e.name, e.property, e.message])).toEqual([
      ["oneOf", ".rollback", "must match exactly one schema in oneOf"],
      ["const", ".rollback", "must be equal to constant"],
    ]);
    expect(errorSchema).toEqual({ rollback: { __errors: ["must match exactly one schema in oneOf", "must be equal to constant"] } });
  });

  it("places an array item's error at its index", () => {
    const s: RJSFSchema = { type: "object", properties: { contacts: { type: "array", items: { type: "string", format: "email" } } } };
    const { errors, errorSchema } = errorsOf({ contacts: ["a@example.com", "nope"] }, s);
    expect(errors).toEqual([expect.objectContaining({ name: "format", property: ".contacts.1" })]);
    expect(errorSchema).toEqual({ contacts: { 1: { __errors: ['must match format "email"'] } } });
  });

  it("treats a cleared field as absent, not as a wrong type", () => {
    const s: RJSFSchema = { type: "object", required: ["a"], properties: { a: { type: "string" }, b: { type: "string" } } };
    expect(errorsOf({ a: undefined, b: undefined }, s).errors.map((e) => [e.name, e.property])).toEqual([["required", ".a"]]);
    expect(errorsOf(undefined, s).errors.map((e) => e.name)).toEqual(["type"]);
  });

  it("names the extra key of a closed object, the missing dependency, and the failing branch of if/then", () => {
    const s: RJSFSchema = {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "string", title: "Bee" }, kind: { type: "string" }, code: { type: "string" } },
      additionalProperties: false,
      dependencies: { a: ["b"] },
      if: { properties: { kind: { const: "eu" } }, required: ["kind"] },
      then: { required: ["code"] },
    };
    const { errors } = errorsOf({ a: "x", kind: "eu", extra: 1 }, s);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "additionalProperties", property: "", params: { additionalProperty: "extra" }, message: "must NOT have additional properties" }),
        expect.objectContaining({ name: "dependencies", property: ".b", message: "must have property b when property a is present", title: "Bee" }),
        expect.objectContaining({ name: "if", property: "", params: { failingKeyword: "then" } }),
        expect.objectContaining({ name: "required", property: ".code" }),
      ]),
    );
    expect(errors).toHaveLength(4);
  });

  it("maps the less common keywords to their field with Ajv's wording", () => {
    // 2019-09/2020-12 keywords: newer than the JSON Schema 7 type rjsf declares.
    const s = {
      type: "object",
      properties: {
        unique: { type: "array", uniqueItems: true },
        some: { type: "array", contains: { type: "number" }, minContains: 2 },
        keys: { type: "object", propertyNames: { pattern: "^[a-z]+$" } },
        pair: { type: "array", prefixItems: [{ type: "string" }], items: false },
        closed: { type: "object", properties: { a: {} }, unevaluatedProperties: false },
        code: { type: "string", minLength: 3, pattern: "^x" },
        step: { type: "number", multipleOf: 5 },
        fixed: { const: "k" },
        notText: { not: { type: "string" } },
        either: { anyOf: [{ type: "string" }, { type: "number" }] },
        deps: { type: "object", dependentRequired: { x: ["y"] } },
      },
    } as RJSFSchema;
    const data = {
      unique: [1, 2, 1],
      some: [1, "a"],
      keys: { Bad: 1, ok: 2 },
      pair: ["a", 1, 2],
      closed: { a: 1, b: 2 },
      code: "ab",
      step: 7,
      fixed: "j",
      notText: "s",
      either: true,
      deps: { x: 1 },
    };
    const seen = errorsOf(data, s).errors.map((e) => [e.property, e.message, e.params]);
    expect(seen).toEqual([
      [".unique", "must NOT have duplicate items (items ## 2 and 0 are identical)", { i: 0, j: 2 }],
      [".some", "must contain at least 2 valid item(s)", { minContains: 2 }],
      [".keys", "property name must be valid", { propertyName: "Bad" }],
      [".pair", "must NOT have more than 1 items", { limit: 1 }],
      [".closed", "must NOT have unevaluated properties", { unevaluatedProperty: "b" }],
      [".code", "must NOT have fewer than 3 characters", { limit: 3 }],
      [".code", 'must match pattern "^x"', { pattern: "^x" }],
      [".step", "must be multiple of 5", { multipleOf: 5 }],
      [".fixed", "must be equal to constant", { allowedValue: "k" }],
      [".notText", "must NOT be valid", {}],
      [".either", "must match a schema in anyOf", {}],
      [".either", "must be string", { type: "string" }],
      [".either", "must be number", { type: "number" }],
      [".deps.y", "must have property y when property x is present", { property: "x", missingProperty: "y", depsCount: 1, deps: "y" }],
    ]);
  });

  it("follows $ref into definitions and reports at the data's path", () => {
    const s: RJSFSchema = {
      type: "object",
      definitions: { person: { type: "object", required: ["email"], properties: { email: { type: "string", format: "email", title: "E-mail" } } } },
      properties: { owner: { $ref: "#/definitions/person" } },
    };
    expect(errorsOf({ owner: { email: "x" } }, s).errors).toEqual([expect.objectContaining({ name: "format", property: ".owner.email", stack: "'E-mail' must match format \"email\"" })]);
    expect(errorsOf({ owner: {} }, s).errors).toEqual([expect.objectContaining({ name: "required", property: ".owner.email", message: "must have required property 'E-mail'" })]);
  });

  it("reads draft 4's boolean exclusiveMinimum when the schema declares draft 4", () => {
    const s: RJSFSchema = { $schema: "http://json-schema.org/draft-04/schema#", type: "object", properties: { n: { type: "number", minimum: 0, exclusiveMinimum: true as never } } };
    expect(errorsOf({ n: 0 }, s).errors).toEqual([expect.objectContaining({ name: "minimum", message: "must be > 0" })]);
    expect(errorsOf({ n: 1 }, s).errors).toEqual([]);
  });

  it("reports a schema it cannot use as a schema error, not as a crash", () => {
    const s: RJSFSchema = { type: "object", properties: { a: { $ref: "#/definitions/missing" } } };
    const { errors, errorSchema } = errorsOf({ a: 1 }, s);
    expect(errors).toHaveLength(1);
    expect(errors[0].stack).toMatch(/Unresolved \$ref/);
    expect(errorSchema.$schema?.__errors?.[0]).toMatch(/Unresolved \$ref/);
  });
});

describe("rjsf hooks", () => {
  it("runs transformErrors on the mapped errors and builds the tree from what it returns", () => {
    const transform = vi.fn((errors: RJSFValidationError[]) => errors.map((e) => (e.name === "maximum" ? { ...e, message: "at most 50 instances" } : e)));
    const { errors, errorSchema } = validator.validateFormData({ ...valid, count: 99 }, schema, undefined, transform);
    expect(transform).toHaveBeenCalledOnce();
    expect(errors[0].message).toBe("at most 50 instances");
    expect(errorSchema).toEqual({ count: { __errors: ["at most 50 instances"] } });
  });

  it("merges customValidate's errors into the list and the tree", () => {
    const { errors, errorSchema } = validator.validateFormData({ ...valid, tags: ["hotfix", "hotfix"] }, schema, (data, handler) => {
      const tags = (data as { tags?: string[] }).tags ?? [];
      if (new Set(tags).size !== tags.length) handler.tags?.addError("tags repeat");
      return handler;
    });
    // rjsf's error handler leaves an empty list at every other field.
    expect(errorSchema.tags?.__errors).toEqual(["tags repeat"]);
    expect(errorSchema.count?.__errors).toEqual([]);
    expect(errors).toEqual([expect.objectContaining({ property: ".tags", message: "tags repeat" })]);
  });

  it("lists an error tree with toErrorList", () => {
    expect(validator.toErrorList({ owner: { email: { __errors: ["taken"] } } } as never)).toEqual([expect.objectContaining({ property: ".owner.email", message: "taken" })]);
  });

  it("gives the library's raw units from rawValidation, or the schema's fault", () => {
    const raw = validator.rawValidation<{ keyword: string; instanceLocation: string }>(schema, { ...valid, count: 99 });
    expect(raw.validationError).toBeUndefined();
    expect(raw.errors).toEqual(expect.arrayContaining([expect.objectContaining({ keyword: "maximum", instanceLocation: "#/count" })]));
    expect(validator.rawValidation(schema, valid)).toEqual({ errors: undefined, validationError: undefined });
    const broken = validator.rawValidation({ type: "string", pattern: "(" }, "x");
    expect(broken.validationError).toBeInstanceOf(Error);
  });
});

describe("isValid (how rjsf picks a oneOf/anyOf option)", () => {
  const root: RJSFSchema = {
    definitions: { email: { type: "string", format: "email" } },
    type: "object",
    properties: {
      contact: {
        oneOf: [
          { title: "Email", type: "object", properties: { email: { $ref: "#/definitions/email" } }, required: ["email"] },
          { title: "Phone", type: "object", properties: { phone: { type: "string", pattern: "^\\+?[0-9 ]+$" } }, required: ["phone"] },
        ],
      },
    },
  };
  const [byEmail, byPhone] = (root.properties!.contact as RJSFSchema).oneOf as RJSFSchema[];

  it("matches an option whose $ref points into the root schema", () => {
    expect(validator.isValid(byEmail, { email: "ada@example.com" }, root)).toBe(true);
    expect(validator.isValid(byEmail, { email: "nope" }, root)).toBe(false);
    expect(validator.isValid(byPhone, { phone: "+44 20" }, root)).toBe(true);
    expect(validator.isValid(byPhone, { email: "ada@example.com" }, root)).toBe(false);
  });

  it("gives the same answer again from its cache, and false (with one warning) for a schema it cannot use", () => {
    expect(validator.isValid(byEmail, { email: "ada@example.com" }, root)).toBe(true);
    expect(validator.isValid(byEmail, { email: "ada@example.com" }, root)).toBe(true);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const broken: RJSFSchema = { $ref: "#/definitions/nowhere" };
    expect(validator.isValid(broken, {}, root)).toBe(false);
    expect(validator.isValid(broken, {}, root)).toBe(false);
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();
  });

  it("leaves the caller's schemas as they were", () => {
    const before = JSON.stringify(root);
    validator.isValid(byEmail, { email: "x" }, root);
    validator.validateFormData({ contact: { email: "x" } }, root);
    expect(JSON.stringify(root)).toBe(before);
    expect(Object.getOwnPropertyNames(byEmail)).toEqual(["title", "type", "properties", "required"]);
  });

  it("is the validator the forms use", () => {
    expect(formValidator).toBeInstanceOf(FormValidator);
  });
});
