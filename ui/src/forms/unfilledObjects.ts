// The form library fills an optional object with its fields' defaults as soon as it is drawn
// (a CI pipeline's optional "Test job" becomes `{ when: "on_success" }`), and then that object
// fails its own `required` fields though the reviewer never meant to give it. Such an object
// (optional, holding exactly what the library put there, and not valid as it stands) is not
// part of the answer: it is left out before the answer is checked and before it is sent.
import { deepEquals, getDefaultFormState, isObject, retrieveSchema, type RJSFSchema, type ValidatorType } from "@rjsf/utils";
import { toJsonValue } from "./jsonValue";

/** Nesting followed looking for unfilled objects (deeper objects are kept as they are). */
const PRUNE_DEPTH = 16;

type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return isObject(value) && !Array.isArray(value);
}

/** `data` without the optional objects nobody filled in (the same object when there are none). */
export function withoutUnfilledObjects<T>(data: T, schema: RJSFSchema, root: RJSFSchema, validator: ValidatorType): T {
  try {
    return prune(data, schema, root, validator, 0) as T;
  } catch {
    // A schema the library cannot resolve here: the answer goes as it is (and the validator says why).
    return data;
  }
}

function prune(value: unknown, schema: RJSFSchema, root: RJSFSchema, validator: ValidatorType, depth: number): unknown {
  if (depth > PRUNE_DEPTH || typeof schema !== "object" || schema === null) return value;
  if (Array.isArray(value)) {
    const resolved = retrieveSchema(validator, schema, root, value);
    const items = resolved.items;
    if (!isObject(items) || Array.isArray(items)) return value;
    let changed = false;
    const out = value.map((item) => {
      const next = prune(item, items as RJSFSchema, root, validator, depth + 1);
      changed ||= next !== item;
      return next;
    });
    return changed ? out : value;
  }
  if (!isPlain(value)) return value;
  const resolved = retrieveSchema(validator, schema, root, value);
  const properties = (resolved.properties ?? {}) as Record<string, RJSFSchema>;
  const required = new Set(Array.isArray(resolved.required) ? resolved.required : []);
  let out: Plain = value;
  for (const [name, sub] of Object.entries(properties)) {
    const item = value[name];
    if (typeof sub !== "object" || sub === null || !(isPlain(item) || Array.isArray(item))) continue;
    if (isPlain(item) && !required.has(name)) {
      const defaults = getDefaultFormState(validator, sub, undefined, root);
      // An empty object is never the library's doing (it adds only non-empty defaults): someone made it.
      // Compared as JSON: the form keeps cleared fields as `undefined` keys.
      if (isPlain(defaults) && Object.keys(defaults).length > 0 && deepEquals(toJsonValue(item), toJsonValue(defaults)) && !validator.isValid(sub, item, root)) {
        out = { ...out };
        delete out[name];
        continue;
      }
    }
    const next = prune(item, sub, root, validator, depth + 1);
    if (next !== item) out = { ...out, [name]: next };
  }
  return out;
}
