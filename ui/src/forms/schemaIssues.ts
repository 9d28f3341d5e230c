// @cfworker/json-schema reports each failure as an output unit: a keyword, where in the schema
// (keywordLocation) and where in the data (instanceLocation). Its list also holds "a subschema
// had errors" units for every applicator on the way down, and leaves out what a field needs to be
// named (which property is missing, which key is extra). This turns that list into one issue per
// thing the person must fix, placed at the field it concerns, with the keyword's parameters.
import type { OutputUnit, Schema } from "@cfworker/json-schema";
import { issueMessage, type IssueParams } from "./issueMessages";
import type { JsonValue } from "./jsonValue";
import type { PreparedSchema } from "./preparedSchema";

/** One failed rule, placed in the data. */
export type SchemaIssue = {
  /** The JSON Schema keyword that failed ("false schema" for a `false` subschema). */
  keyword: string;
  /** Where in the data: property names and array indexes, outermost first. */
  instancePath: string[];
  /** Where in the schema, as a JSON Pointer fragment ("#/properties/count/maximum"). */
  schemaPath: string;
  params: IssueParams;
  /** The schema object holding the keyword, when it could be found. */
  parentSchema: Schema | undefined;
  message: string;
};

// Units that only say "something below failed"; what failed below is reported on its own.
const APPLICATORS = new Set(["$ref", "$recursiveRef", "$dynamicRef", "properties", "patternProperties", "allOf", "dependentSchemas", "items", "prefixItems", "additionalItems", "unevaluatedItems"]);
// Keywords whose value maps names (or lists indexes) to subschemas, on the way to a subschema.
const NAMED_SUBSCHEMAS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]);
const LISTED_SUBSCHEMAS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);

// Keywords whose issue names nothing but the keyword's own value, and under which parameter.
const VALUE_PARAMS = new Map<string, (value: unknown) => IssueParams>([
  ["exclusiveMinimum", (limit) => ({ comparison: ">", limit })],
  ["exclusiveMaximum", (limit) => ({ comparison: "<", limit })],
  ...["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"].map((k) => [k, (limit: unknown) => ({ limit })] as const),
  ["type", (type) => ({ type: Array.isArray(type) ? type.join(",") : type })],
  ["enum", (allowedValues) => ({ allowedValues })],
  ["const", (allowedValue) => ({ allowedValue })],
  ["format", (format) => ({ format })],
  ["pattern", (pattern) => ({ pattern })],
  ["multipleOf", (multipleOf) => ({ multipleOf })],
]);

/** The segments of a JSON Pointer fragment ("#/a~1b/0" → ["a/b", "0"]). */
export function pointerSegments(location: string): string[] {
  const pointer = location.startsWith("#") ? location.slice(1) : location;
  if (pointer === "") return [];
  return pointer
    .split("/")
    .slice(1)
    .map((raw) => {
      let segment = raw;
      try {
        segment = decodeURIComponent(raw);
      } catch {
        // Not percent-encoded after all: take it as written.
      }
      return segment.replace(/~1/g, "/").replace(/~0/g, "~");
    });
}

function isSchemaObject(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The schema object that holds the last keyword of `location`, following `$ref`s through the
 * lookup, and the keywords passed on the way (to tell what a unit sits inside of).
 */
function holderOf(prepared: PreparedSchema, location: string): { holder: Schema | undefined; through: string[] } {
  const segments = pointerSegments(location);
  const through: string[] = [];
  let node: unknown = prepared.schema;
  let i = 0;
  while (i < segments.length - 1) {
    if (!isSchemaObject(node)) return { holder: undefined, through };
    const keyword = segments[i];
    through.push(keyword);
    if (keyword === "$ref" || keyword === "$recursiveRef") {
      const target = keyword === "$ref" ? node.__absolute_ref__ : node.__absolute_recursive_ref__;
      node = target ? prepared.lookup[target] : undefined;
      i += 1;
    } else if (NAMED_SUBSCHEMAS.has(keyword) || LISTED_SUBSCHEMAS.has(keyword) || (keyword === "items" && Array.isArray(node.items))) {
      node = (node[keyword] as Record<string, unknown> | undefined)?.[segments[i + 1]];
      i += 2;
    } else {
      node = node[keyword];
      i += 1;
    }
  }
  return { holder: isSchemaObject(node) ? node : undefined, through };
}

function valueAt(instance: JsonValue, path: string[]): JsonValue | undefined {
  let node: JsonValue | undefined = instance;
  for (const segment of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = Array.isArray(node) ? node[Number(segment)] : Object.hasOwn(node, segment) ? node[segment] : undefined;
  }
  return node;
}

function has(value: JsonValue | undefined, key: string): boolean {
  return value !== null && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, key);
}

function sameJson(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, JsonValue>)[k], (b as Record<string, JsonValue>)[k]));
}

/** The schema location a unit's keyword sits in (its keywordLocation less the keyword). */
function parentLocation(location: string): string {
  const cut = location.lastIndexOf("/");
  return cut < 0 ? "#" : location.slice(0, cut);
}

/**
 * The library emits one unit per missing name for `required`, `dependentRequired` and
 * array-valued `dependencies`, in the order below; which name each unit is about is worked out
 * here from the schema and the data (the units carry it only in prose).
 */
function missingNames(keyword: string, holder: Schema | undefined, value: JsonValue | undefined): IssueParams[] {
  if (!holder) return [];
  if (keyword === "required") {
    return (Array.isArray(holder.required) ? holder.required : []).filter((k) => !has(value, k)).map((k) => ({ missingProperty: k }));
  }
  const rules = (keyword === "dependentRequired" ? holder.dependentRequired : holder.dependencies) as Record<string, unknown> | undefined;
  const out: IssueParams[] = [];
  for (const property in rules ?? {}) {
    const deps = rules![property];
    if (!has(value, property) || !Array.isArray(deps)) continue;
    for (const missing of deps as string[]) {
      if (!has(value, missing)) out.push({ property, missingProperty: missing, depsCount: deps.length, deps: deps.join(", ") });
    }
  }
  return out;
}

/** Turns the library's units for `instance` against `prepared` into issues. */
export function collectIssues(units: OutputUnit[], prepared: PreparedSchema, instance: JsonValue): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const pending = new Map<string, IssueParams[]>();
  const reported = new Set<string>();

  for (let n = 0; n < units.length; n++) {
    const unit = units[n];
    const next = units[n + 1] as OutputUnit | undefined;
    const at = pointerSegments(unit.instanceLocation);
    // A `false` subschema's unit carries the instance's location as its keywordLocation, so it
    // has no holder to find.
    const isFalse = unit.keyword === "false";
    const found = isFalse ? { holder: undefined, through: [] } : holderOf(prepared, unit.keywordLocation);
    const holder = found.holder;
    const push = (keyword: string, params: IssueParams, schemaPath = unit.keywordLocation) =>
      issues.push({ keyword, instancePath: at, schemaPath, params, parentSchema: holder, message: issueMessage(keyword, params, unit.error) });

    if (isFalse) {
      push("false schema", {});
      continue;
    }
    // A failure inside `contains` only means that item is not the one contained.
    if (found.through.includes("contains") && unit.keyword !== "contains") continue;
    const value = holder?.[unit.keyword];
    const nextIsFalse = next?.keyword === "false";

    switch (unit.keyword) {
      case "required":
      case "dependentRequired":
      case "dependencies": {
        // A `dependencies` entry that is a schema reports "did not match" above its own units.
        if (unit.keyword === "dependencies" && next && next.keywordLocation.startsWith(`${unit.keywordLocation}/`)) continue;
        const group = `${unit.keyword}\u0000${unit.instanceLocation}\u0000${unit.keywordLocation}`;
        if (!pending.has(group)) pending.set(group, missingNames(unit.keyword, holder, valueAt(instance, at)));
        const params = pending.get(group)!.shift() ?? {};
        const schemaPath = unit.keyword === "dependentRequired" ? `${parentLocation(unit.keywordLocation)}/dependentRequired` : unit.keywordLocation;
        push(unit.keyword, params, schemaPath);
        break;
      }
      case "additionalProperties":
      case "unevaluatedProperties": {
        // With `false`, each extra key is reported at the object, naming the key; with a schema,
        // the key's own failures follow and say it better.
        if (value !== false || !nextIsFalse) continue;
        const key = pointerSegments(next.instanceLocation).pop() ?? "";
        push(unit.keyword, unit.keyword === "additionalProperties" ? { additionalProperty: key } : { unevaluatedProperty: key });
        n += 1;
        break;
      }
      case "items":
      case "prefixItems":
      case "additionalItems":
      case "unevaluatedItems": {
        if (value !== false || !nextIsFalse) continue;
        // One issue for the array, however many items are over: the first extra index is the limit.
        n += 1;
        const group = `${unit.instanceLocation}\u0000${unit.keywordLocation}`;
        if (reported.has(group)) continue;
        reported.add(group);
        push(unit.keyword, { limit: Number(pointerSegments(next.instanceLocation).pop() ?? 0) });
        break;
      }
      case "propertyNames": {
        const own = `${unit.keywordLocation}/`;
        const key = next ? (pointerSegments(next.instanceLocation).pop() ?? "") : "";
        push("propertyNames", { propertyName: key });
        // What the name itself failed is said by the line above.
        while (units[n + 1] && units[n + 1].keywordLocation.startsWith(own)) n += 1;
        break;
      }
      case "contains":
      case "minContains":
      case "maxContains":
        push("contains", { minContains: holder?.minContains ?? 1, ...(holder?.maxContains !== undefined ? { maxContains: holder.maxContains } : {}) });
        break;
      case "minimum":
      case "maximum": {
        // Draft 4 writes an exclusive bound as a boolean beside minimum/maximum.
        const exclusive = (unit.keyword === "minimum" ? holder?.exclusiveMinimum : holder?.exclusiveMaximum) === true;
        const comparison = unit.keyword === "minimum" ? (exclusive ? ">" : ">=") : exclusive ? "<" : "<=";
        push(unit.keyword, { comparison, limit: value });
        break;
      }
      case "uniqueItems": {
        const items = valueAt(instance, at);
        const list = Array.isArray(items) ? items : [];
        // As Ajv named them: i the earlier of the first identical pair, j the later.
        let pair = { i: 0, j: 0 };
        search: for (let earlier = 0; earlier < list.length; earlier++) {
          for (let later = earlier + 1; later < list.length; later++) {
            if (sameJson(list[earlier], list[later])) {
              pair = { i: earlier, j: later };
              break search;
            }
          }
        }
        push("uniqueItems", pair);
        break;
      }
      case "if": {
        const failing = next?.keywordLocation.startsWith(`${parentLocation(unit.keywordLocation)}/else`) ? "else" : "then";
        push("if", { failingKeyword: failing });
        break;
      }
      case "anyOf":
      case "oneOf":
      case "not":
        push(unit.keyword, {});
        break;
      default: {
        const fromValue = VALUE_PARAMS.get(unit.keyword);
        if (fromValue) push(unit.keyword, fromValue(value));
        else if (APPLICATORS.has(unit.keyword)) continue;
        else push(unit.keyword, {});
      }
    }
  }
  return issues;
}
