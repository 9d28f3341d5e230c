// Turning a form question (schema + per-send data + pages) into what the form renders.
import type { FormPage, Interaction } from "../backend/types";

export type JsonSchema = Record<string, unknown> & {
  properties?: Record<string, JsonSchema>;
  required?: string[];
  title?: string;
  type?: string | string[];
  enum?: unknown[];
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  const?: unknown;
  items?: JsonSchema | JsonSchema[];
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isStringProperty(p: JsonSchema): boolean {
  return p.type === "string" || (Array.isArray(p.type) && p.type.includes("string")) || (p.type === undefined && Array.isArray(p.enum));
}

/**
 * A copy of the schema for this one send: each `data.options` list replaces its string
 * property's enum with `oneOf [{const: value, title: label}]`, so the form shows labels
 * and the answer carries values. The stored schema is never touched.
 */
export function perSendSchema(i: Pick<Interaction, "schema" | "data">): JsonSchema {
  const schema = structuredClone((i.schema ?? { type: "object", properties: {} }) as JsonSchema);
  const options = i.data?.options ?? {};
  const props = schema.properties ?? {};
  for (const [name, choices] of Object.entries(options)) {
    const prop = props[name];
    if (!choices || !isObject(prop) || !isStringProperty(prop)) continue;
    delete prop.enum;
    delete prop.anyOf;
    prop.type = "string";
    prop.oneOf = choices.map((c) => ({ const: c.value, title: c.label ?? c.value }));
  }
  typeConstChoices(schema);
  return schema;
}

/**
 * A property written as a bare `oneOf`/`anyOf` of constants (a labelled enum) gets the type
 * its constants share, so the form draws it as a choice instead of refusing it.
 */
function typeConstChoices(node: JsonSchema): void {
  for (const prop of Object.values(node.properties ?? {})) {
    if (!isObject(prop)) continue;
    const choices = prop.oneOf ?? prop.anyOf;
    if (prop.type === undefined && Array.isArray(choices) && choices.length > 0 && choices.every((c) => isObject(c) && "const" in c)) {
      const kinds = new Set(choices.map((c) => (typeof c.const === "number" ? (Number.isInteger(c.const) ? "integer" : "number") : typeof c.const)));
      if (kinds.size === 1) {
        const kind = [...kinds][0];
        if (kind === "string" || kind === "integer" || kind === "number" || kind === "boolean") prop.type = kind;
      }
    }
    if (prop.properties) typeConstChoices(prop);
    if (isObject(prop.items) && (prop.items as JsonSchema).properties) typeConstChoices(prop.items as JsonSchema);
  }
}

/** The prefill: `data.values` keyed by top-level property name. */
export function prefill(i: Pick<Interaction, "data">): Record<string, unknown> {
  return structuredClone(i.data?.values ?? {});
}

/** The steps of the form; an absent `pages` is one page holding every property. */
export function formSteps(i: Pick<Interaction, "pages">, schema: JsonSchema): FormPage[] {
  if (i.pages && i.pages.length > 0) return i.pages;
  return [{ title: schema.title ?? "Answer", fields: Object.keys(schema.properties ?? {}) }];
}

// Root keywords that tie properties of different pages together; they are checked when the
// whole form is submitted, not page by page.
const CROSS_PAGE_KEYWORDS = [
  "additionalProperties",
  "dependencies",
  "dependentRequired",
  "dependentSchemas",
  "if",
  "then",
  "else",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "minProperties",
  "maxProperties",
  "patternProperties",
  "propertyNames",
  "unevaluatedProperties",
];

/** The schema of one page: only its fields (and their `required`), shared definitions kept. */
export function pageSchema(schema: JsonSchema, fields: string[]): JsonSchema {
  const page: JsonSchema = { ...schema };
  for (const k of CROSS_PAGE_KEYWORDS) delete page[k];
  const props = schema.properties ?? {};
  page.properties = Object.fromEntries(fields.filter((f) => f in props).map((f) => [f, props[f]]));
  page.required = (schema.required ?? []).filter((r) => fields.includes(r));
  return page;
}

/** Splits a server field path ("answer.owner.email", "tags[1]", "/owner/email") into segments. */
export function fieldPath(field: string): string[] {
  const segments = field
    .replace(/\[(\d+)\]/g, ".$1")
    .split(/[./]/)
    .filter((s) => s.length > 0);
  if (segments[0] === "answer" || segments[0] === "value") segments.shift();
  return segments;
}

/** The rjsf error schema that places `message` at `field`. */
export function errorAt(field: string, message: string): Record<string, unknown> {
  const path = fieldPath(field);
  const root: Record<string, unknown> = {};
  let node = root;
  for (const seg of path) {
    const next: Record<string, unknown> = {};
    node[seg] = next;
    node = next;
  }
  node.__errors = [message];
  return root;
}

/** Which step holds the top-level property the field path starts with (or -1). */
export function stepOfField(steps: FormPage[], field: string): number {
  const top = fieldPath(field)[0];
  return steps.findIndex((s) => s.fields.includes(top));
}

/** The text shown for a value in review: an option's label where there is one. */
export function displayValue(prop: JsonSchema | undefined, value: unknown): string {
  if (value === undefined || value === null || value === "") return "—";
  const choices = prop?.oneOf ?? prop?.anyOf;
  if (Array.isArray(choices)) {
    const hit = choices.find((c) => isObject(c) && "const" in c && c.const === value);
    if (hit && typeof hit.title === "string") return hit.title;
  }
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

export { isObject };
