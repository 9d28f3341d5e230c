// A schema made ready for @cfworker/json-schema, which interprets the schema as it walks the
// data instead of generating code (the window's Content-Security-Policy forbids eval). Preparing
// is a plain copy plus an index of every subschema by URI, so `$ref`s resolve; both are kept per
// schema object, since rjsf validates the same schemas on every change.
import { dereference, type Schema, type SchemaDraft } from "@cfworker/json-schema";
import { toJsonValue } from "./jsonValue";
import { guardSchema, type Guarded } from "./validatorGuards";

/** A schema ready to validate against. */
export type PreparedSchema = {
  /** The copy validated against (the library annotates it; the caller's schema stays untouched). */
  schema: Schema | boolean;
  /** Every subschema by absolute URI: the `$ref` targets. */
  lookup: Record<string, Schema | boolean>;
  draft: SchemaDraft;
  /** What the window leaves to the server in this schema (validatorGuards). */
  guard: Guarded;
};

/**
 * The draft a schema declares in `$schema`. Without one it is 2020-12, the draft the server's
 * validator assumes, so the form refuses exactly what the server would.
 */
export function draftOf(schema: unknown): SchemaDraft {
  const uri = typeof schema === "object" && schema !== null && typeof (schema as Schema).$schema === "string" ? (schema as Schema).$schema! : "";
  if (/draft-0[34]\b/.test(uri)) return "4";
  if (/draft-0[67]\b/.test(uri)) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  return "2020-12";
}

function copyOf(schema: unknown): Schema | boolean {
  return typeof schema === "boolean" ? schema : (toJsonValue(schema) as Schema);
}

/** Remembers prepared schemas by the identity of the caller's schema objects. */
export class PreparedSchemas {
  private roots = new WeakMap<object, PreparedSchema>();
  private within = new WeakMap<object, WeakMap<object, PreparedSchema>>();

  /** `schema` on its own: its `$ref`s point into itself. Throws if its ids collide. */
  root(schema: unknown): PreparedSchema {
    const key = typeof schema === "object" && schema !== null ? schema : null;
    const known = key ? this.roots.get(key) : undefined;
    if (known) return known;
    const copy = copyOf(schema);
    const lookup = dereference(copy);
    const prepared = { schema: copy, lookup, draft: draftOf(copy), guard: guardSchema(copy, lookup) };
    if (key) this.roots.set(key, prepared);
    return prepared;
  }

  /**
   * A part of `rootSchema` (an option of a oneOf, an `if`, a resolved field): rjsf hands these
   * over on their own, yet their `#/…` references mean the root, so they resolve there.
   */
  part(schema: unknown, rootSchema: unknown): PreparedSchema {
    if (rootSchema === undefined || rootSchema === null || schema === rootSchema) return this.root(schema);
    const root = this.root(rootSchema);
    const rootKey = typeof rootSchema === "object" ? rootSchema : null;
    const key = typeof schema === "object" && schema !== null ? schema : null;
    let parts = rootKey ? this.within.get(rootKey) : undefined;
    const known = key ? parts?.get(key) : undefined;
    if (known) return known;

    const copy = copyOf(schema);
    // Resolve the part's references against the root's base URI, then let the root's entries win
    // over the part's own (its "#" is the root's "#").
    const base = typeof root.schema === "object" && root.schema.__absolute_uri__ ? new URL(root.schema.__absolute_uri__) : undefined;
    const own = base ? dereference(copy, Object.create(null), base) : dereference(copy);
    const lookup = Object.assign(Object.create(null), own, root.lookup) as Record<string, Schema | boolean>;
    const declared = typeof copy === "object" && typeof copy.$schema === "string";
    const guard = guardSchema(copy, lookup);
    if (root.guard.unsafe && !guard.unsafe) guard.unsafe = root.guard.unsafe;
    const prepared = { schema: copy, lookup, draft: declared ? draftOf(copy) : root.draft, guard };
    if (key && rootKey) {
      if (!parts) {
        parts = new WeakMap();
        this.within.set(rootKey, parts);
      }
      parts.set(key, prepared);
    }
    return prepared;
  }

  /** Forgets everything prepared so far. */
  clear(): void {
    this.roots = new WeakMap();
    this.within = new WeakMap();
  }
}
