// What the validator sees is plain JSON: the answer the server receives is JSON, and a form's
// working data is not (a cleared field is `undefined`, rjsf tags schemas with symbol keys).

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * A deep copy of `value` as `JSON.parse(JSON.stringify(value))` would give it, without the
 * string round trip: a property that is `undefined` (or a function) is left out, as if never
 * filled in; in an array it becomes `null`; a non-finite number becomes `null`; symbol keys are
 * dropped. `undefined` itself becomes `null` (no JSON type), so it fails `type: "object"` as an
 * absent answer should.
 */
export function toJsonValue(value: unknown): JsonValue {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "object":
      break;
    default:
      return null;
  }
  if (value === null) return null;
  if (Array.isArray(value)) return value.map((item) => (isDropped(item) ? null : toJsonValue(item)));
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === "function") return toJsonValue(withJson.toJSON());
  const out: { [key: string]: JsonValue } = {};
  for (const [key, item] of Object.entries(value)) {
    if (isDropped(item)) continue;
    // Assigning "__proto__" would replace the copy's prototype instead of adding a key.
    Object.defineProperty(out, key, { value: toJsonValue(item), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function isDropped(item: unknown): boolean {
  return item === undefined || typeof item === "function" || typeof item === "symbol";
}
