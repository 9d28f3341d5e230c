// What the form library is given to draw: the question's schema with every `$ref` expanded in
// place, but only so far. A recursive schema (a tree, a config language, JSON-e) is legitimate,
// yet expanded eagerly it never ends: the form library walked a recursive `oneOf` until the
// window ran out of memory. So expansion stops at a reference back into the path being expanded,
// past a nesting depth, or past a node budget; there it leaves a *lazy* node that the form draws
// as "+ Add nested …" and expands one level further only when the reviewer asks (or when the data
// already holds a value there, which is finite).
//
// The copy is for drawing only. Answers are validated against the original schema
// (formValidator), so a lazy node never loosens what the window accepts.
import { dereference, type Schema } from "@cfworker/json-schema";
import { toJsonValue } from "./jsonValue";
import type { JsonSchema } from "../lib/formSchema";

/** `$ref`s expanded inside one another along one path before the rest waits for a click. */
export const REF_DEPTH_LIMIT = 8;
/** Schema objects in one expansion (the first draw, or one "+ Add nested" click): enough for real
 * forms, few enough that the form library draws them in well under a second. */
export const NODE_LIMIT = 400;
/** The key that marks a lazy node; its value names the node in its BoundedSchema. */
export const LAZY_KEY = "x-inbox-lazy";

/** Why a node was left for later. */
export type LazyReason = "recursive" | "depth" | "size" | "unresolved";

type Lazy = { target: Schema | boolean | undefined; reason: LazyReason; title: string | undefined };

// Keywords whose value is one subschema, a list of them, or a map of names to them.
const ONE = ["additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems", "contains", "propertyNames", "not", "if", "then", "else"];
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP = ["properties", "patternProperties", "dependentSchemas"];
// Dropped from the copy: definitions are reached through the references they serve, ids would
// repeat once a definition is expanded twice, and the validator's own annotations are not schema.
const DROPPED = new Set(["$defs", "definitions", "$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$ref", "$dynamicRef", "$recursiveRef", "$schema"]);
const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);

function isSchemaObject(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The type a schema leaves out but its keywords imply (items → array, properties → object, enum → its values'). */
function impliedType(node: Schema): string | undefined {
  if (node.type !== undefined) return undefined;
  if (node.items !== undefined || node.prefixItems !== undefined) return "array";
  if (node.properties !== undefined || node.additionalProperties !== undefined || node.patternProperties !== undefined) return "object";
  const values = Array.isArray(node.enum) ? node.enum : "const" in node ? [node.const] : null;
  if (values && values.length > 0) {
    const kinds = new Set(values.map((v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v)));
    if (kinds.size === 1) {
      const kind = [...kinds][0];
      if (TYPES.has(kind)) return kind;
    }
  }
  return undefined;
}

/** A label for an alternative without a title: its const, its type(s), or what it requires. */
export function alternativeLabel(node: unknown): string | undefined {
  if (!isSchemaObject(node)) return undefined;
  if (typeof node.title === "string" && node.title) return undefined;
  if ("const" in node) return JSON.stringify(node.const);
  const type = node.type ?? impliedType(node);
  if (typeof type === "string") return type;
  if (Array.isArray(type) && type.length > 0) return type.length === 1 ? String(type[0]) : `${type.slice(0, -1).join(", ")} or ${type[type.length - 1]}`;
  if (Array.isArray(node.required) && node.required.length > 0) return `with ${node.required.join(", ")}`;
  return undefined;
}

/** The schema of a form, expanded for drawing within the limits above. */
export class BoundedSchema {
  /** The expanded root, free of `$ref`s, finite. */
  readonly root: JsonSchema;
  /** Whether the last expansion ran out of node budget (some nodes wait for a click for that reason). */
  truncated = false;
  private lookup: Record<string, Schema | boolean>;
  private lazies = new Map<string, Lazy>();
  private expanded = new Map<string, JsonSchema>();
  private nodes = 0;
  private readonly copy: Schema | boolean;

  constructor(schema: unknown) {
    this.copy = typeof schema === "boolean" ? schema : (toJsonValue(schema) as Schema);
    let lookup: Record<string, Schema | boolean>;
    try {
      lookup = dereference(this.copy);
    } catch {
      // Ids that collide: references stay unresolved and their fields become JSON editors.
      lookup = Object.create(null);
    }
    this.lookup = lookup;
    this.root = this.walk(this.copy, new Set(), 0) as JsonSchema;
  }

  /** Whether `schema` (a node of this expansion) is a lazy one, and its name. */
  static lazyName(schema: unknown): string | undefined {
    const name = isSchemaObject(schema) ? schema[LAZY_KEY] : undefined;
    return typeof name === "string" ? name : undefined;
  }

  reason(name: string): LazyReason | undefined {
    return this.lazies.get(name)?.reason;
  }

  /**
   * The lazy node `name` one level further: its target expanded with a fresh budget, references
   * back into it lazy again. The same object each time, so the form sees a stable schema.
   */
  expand(name: string): JsonSchema | undefined {
    const known = this.expanded.get(name);
    if (known) return known;
    const lazy = this.lazies.get(name);
    if (!lazy || lazy.target === undefined) return undefined;
    this.nodes = 0;
    this.truncated = false;
    const out = this.walk(lazy.target, new Set(), 0);
    const result = (isSchemaObject(out) ? { ...out } : {}) as JsonSchema;
    if (lazy.title && result.title === undefined) result.title = lazy.title;
    this.expanded.set(name, result);
    return result;
  }

  private lazy(target: Schema | boolean | undefined, reason: LazyReason, around: Schema | undefined): JsonSchema {
    const name = `lazy${this.lazies.size + 1}`;
    const titled = (s: unknown) => (isSchemaObject(s) && typeof s.title === "string" ? s.title : undefined);
    const title = titled(around) ?? titled(target);
    this.lazies.set(name, { target, reason, title });
    const node: JsonSchema = { [LAZY_KEY]: name };
    if (title) node.title = title;
    const description = (isSchemaObject(around) && around.description) || (isSchemaObject(target) && target.description);
    if (typeof description === "string") node.description = description;
    // A single declared type lets the form pick the right alternative and start the right value.
    const type = isSchemaObject(target) ? (target.type ?? impliedType(target)) : undefined;
    if (typeof type === "string") node.type = type;
    return node;
  }

  private targetOf(node: Schema): Schema | boolean | undefined {
    const uri = node.__absolute_ref__ ?? node.__absolute_recursive_ref__;
    if (typeof uri === "string") return this.lookup[uri];
    // $dynamicRef is not annotated by the validator library; "#..." forms resolve from the root.
    const dynamic = node.$dynamicRef;
    if (typeof dynamic === "string" && dynamic.startsWith("#")) {
      const base = isSchemaObject(this.copy) && typeof this.copy.__absolute_uri__ === "string" ? this.copy.__absolute_uri__.replace(/#.*$/, "") : "";
      return this.lookup[`${base}${dynamic}`] ?? this.lookup[`${base}#`];
    }
    return undefined;
  }

  /** One node: a copy with its subschemas walked; `path` holds the nodes being walked above it. */
  private walk(node: unknown, path: Set<object>, refDepth: number): unknown {
    if (typeof node === "boolean") return node;
    if (!isSchemaObject(node)) return node;
    if (path.has(node)) return this.lazy(node, "recursive", undefined);
    this.nodes += 1;
    if (this.nodes > NODE_LIMIT) {
      this.truncated = true;
      return this.lazy(node, "size", undefined);
    }

    const isRef = typeof node.$ref === "string" || typeof node.$recursiveRef === "string" || typeof node.$dynamicRef === "string";
    if (isRef) {
      const target = this.targetOf(node);
      if (target === undefined) return this.lazy(undefined, "unresolved", node);
      if (isSchemaObject(target) && path.has(target)) return this.lazy(target, "recursive", node);
      if (refDepth >= REF_DEPTH_LIMIT) return this.lazy(target, "depth", node);
      path.add(node);
      const expanded = this.walk(target, path, refDepth + 1);
      const own = this.copyOwn(node, path, refDepth);
      path.delete(node);
      // Keywords beside the reference (a title, a description, a default) speak for this use of it.
      return isSchemaObject(expanded) ? { ...expanded, ...own } : Object.keys(own).length > 0 ? { allOf: [expanded], ...own } : expanded;
    }

    path.add(node);
    const out = this.copyOwn(node, path, refDepth);
    path.delete(node);
    return out;
  }

  private copyOwn(node: Schema, path: Set<object>, refDepth: number): JsonSchema {
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) {
      if (DROPPED.has(key) || key.startsWith("__")) continue;
      if (ONE.includes(key)) out[key] = this.walk(value, path, refDepth);
      else if (LIST.includes(key) && Array.isArray(value)) {
        out[key] = value.map((branch) => this.walk(branch, path, refDepth));
      } else if (MAP.includes(key) && isSchemaObject(value)) {
        const walked: Record<string, unknown> = {};
        for (const [name, sub] of Object.entries(value)) walked[name] = this.walk(sub, path, refDepth);
        out[key] = walked;
      } else if (key === "items") {
        out.items = (Array.isArray(value) ? value.map((v) => this.walk(v, path, refDepth)) : this.walk(value, path, refDepth)) as JsonSchema;
      } else if (key === "dependencies" && isSchemaObject(value)) {
        const walked: Record<string, unknown> = {};
        for (const [name, sub] of Object.entries(value)) walked[name] = Array.isArray(sub) ? sub : this.walk(sub, path, refDepth);
        out.dependencies = walked;
      } else out[key] = value;
    }
    const implied = impliedType(node);
    if (implied && out.type === undefined) out.type = implied;
    return drawable(out);
  }
}

/** The one non-null alternative of a `[X, {type: null}]` pair, or undefined. */
function nullableOf(branches: unknown): JsonSchema | undefined {
  if (!Array.isArray(branches) || branches.length !== 2) return undefined;
  const isNull = (b: unknown) => isSchemaObject(b) && b.type === "null" && Object.keys(b).every((k) => k === "type" || k === "title" || k === "description");
  const other = branches.find((b) => !isNull(b));
  if (!branches.some(isNull) || !isSchemaObject(other)) return undefined;
  // Only a plain single-typed alternative folds into one control; anything richer keeps its selector.
  if (typeof other.type !== "string" || other.type === "null" || "oneOf" in other || "anyOf" in other || "allOf" in other) return undefined;
  return other as JsonSchema;
}

/**
 * Shapes the form library draws badly, rewritten into ones it draws well (the copy is only
 * drawn; answers are checked against the original schema):
 *   - `anyOf`/`oneOf` of one type and `null` → that type's control, optional (`type: [X, "null"]`),
 *     instead of a two-option selector;
 *   - `enum` with the common `enumNames` extension → `oneOf` of `const`/`title` pairs, which the
 *     library lists by their titles;
 *   - `patternProperties` → the key/value editor of `additionalProperties` (one pattern: its
 *     schema; several: any of them), where none is declared.
 */
function drawable(node: JsonSchema): JsonSchema {
  let out = node;
  for (const key of ["anyOf", "oneOf"] as const) {
    const other = nullableOf(out[key]);
    if (other) {
      const rest = { ...out };
      delete rest[key];
      // The outer keywords (title, description, default) speak for the field.
      out = { ...other, ...rest, type: [other.type as string, "null"] };
    } else if (Array.isArray(out[key])) {
      // An alternative is labelled by what sets it apart, not "Option 2".
      out = {
        ...out,
        [key]: (out[key] as unknown[]).map((branch) => {
          const label = alternativeLabel(branch);
          return label && isSchemaObject(branch) ? { ...branch, title: label } : branch;
        }),
      };
    }
  }
  // A fixed value (a discriminator such as `kind: "rolling"`) is shown, not typed.
  if ("const" in out && out.readOnly === undefined && out.enum === undefined && out.oneOf === undefined) out = { ...out, readOnly: true };
  const names = out.enumNames;
  if (Array.isArray(out.enum) && Array.isArray(names) && out.oneOf === undefined) {
    const rest = { ...out };
    delete rest.enum;
    delete rest.enumNames;
    rest.oneOf = (out.enum as unknown[]).map((value, n) => ({ const: value, title: typeof names[n] === "string" && names[n] ? names[n] : JSON.stringify(value) }));
    out = rest;
  }
  const patterns = isSchemaObject(out.patternProperties) ? Object.values(out.patternProperties) : [];
  if (patterns.length > 0 && (out.additionalProperties === undefined || out.additionalProperties === false)) {
    const rest = { ...out };
    delete rest.patternProperties;
    rest.additionalProperties = (patterns.length === 1 ? patterns[0] : { anyOf: patterns }) as JsonSchema;
    out = rest;
  }
  return out;
}
