// Issues as rjsf wants them: a list of RJSFValidationError (property ".owner.email", a message,
// a stack that names the field by its title) and the ErrorSchema tree the fields read their
// errors from.
import { ErrorSchemaBuilder, getByPath, getUiOptions, toPath, type ErrorSchema, type RJSFValidationError, type UiSchema } from "@rjsf/utils";
import type { SchemaIssue } from "./schemaIssues";

// The exact data path of each error this module made, as long as nobody rewrote its property:
// a key holding "." or "[" cannot survive the round trip through the property string.
const exactPaths = new WeakMap<RJSFValidationError, { property: string; path: string[] }>();

/** ".owner.email" for ["owner", "email"], ".tags.0" for ["tags", "0"], "" for the root. */
export function propertyOf(path: string[]): string {
  return path.map((segment) => `.${segment}`).join("");
}

function titleIn(schema: unknown): string | undefined {
  const title = typeof schema === "object" && schema !== null ? (schema as { title?: unknown }).title : undefined;
  return typeof title === "string" && title !== "" ? title : undefined;
}

/** The title of property `name` of the object at `path`: the uiSchema's, else the schema's. */
function titleOfProperty(issue: SchemaIssue, name: string, rootSchema: unknown, uiSchema: UiSchema | undefined): string | undefined {
  const ui = getUiOptions(getByPath<UiSchema>(uiSchema, [...issue.instancePath, name])).title;
  if (typeof ui === "string" && ui !== "") return ui;
  const own = titleIn(issue.parentSchema?.properties?.[name]);
  if (own) return own;
  // The holder can be an allOf/if branch without `properties`: look the field up from the root.
  const fromRoot: string[] = [];
  for (const segment of [...issue.instancePath, name]) fromRoot.push("properties", segment);
  return titleIn(getByPath(rootSchema, fromRoot));
}

function toValidationError(issue: SchemaIssue, rootSchema: unknown, uiSchema: UiSchema | undefined): RJSFValidationError {
  const { keyword, params, schemaPath } = issue;
  let { message } = issue;
  let property = propertyOf(issue.instancePath);
  let stack: string;
  let title = "";

  // Errors about a named property (a missing one, a dependency) name it by its title.
  const names = [...new Set([params.missingProperty, params.property].filter((n): n is string => typeof n === "string"))];
  if (names.length > 0) {
    for (const name of names) {
      const found = titleOfProperty(issue, name, rootSchema, uiSchema);
      if (found) {
        message = message.replace(`'${name}'`, `'${found}'`);
        title = found;
      }
    }
    stack = message;
  } else {
    const ui = getUiOptions(getByPath<UiSchema>(uiSchema, issue.instancePath)).title;
    const found = typeof ui === "string" && ui !== "" ? ui : titleIn(issue.parentSchema);
    if (found) title = found;
    stack = found ? `'${found}' ${message}` : `${property} ${message}`.trim();
  }

  // A missing property's error belongs to that property's field, not to its object.
  let path = issue.instancePath;
  if (typeof params.missingProperty === "string") {
    path = [...path, params.missingProperty];
    property = propertyOf(path);
  }
  const error: RJSFValidationError = { name: keyword, property, message, params, stack, schemaPath, title };
  exactPaths.set(error, { property, path });
  return error;
}

/**
 * Keeps one of each message under the same `anyOf`/`oneOf`: every branch that fails the same way
 * would otherwise repeat it ("must be equal to constant" once per option).
 */
function withoutBranchRepeats(errors: RJSFValidationError[]): RJSFValidationError[] {
  const kept: RJSFValidationError[] = [];
  for (const error of errors) {
    const path = error.schemaPath ?? "";
    const branch = [path.indexOf("/anyOf/"), path.indexOf("/oneOf/")].filter((i) => i >= 0);
    if (branch.length > 0) {
      const prefix = path.slice(0, Math.min(...branch));
      if (kept.some((k) => k.message === error.message && (k.schemaPath ?? "").startsWith(prefix))) continue;
    }
    kept.push(error);
  }
  return kept;
}

/** The rjsf errors for `issues` found validating against `rootSchema`. */
export function toValidationErrors(issues: SchemaIssue[], rootSchema: unknown, uiSchema?: UiSchema): RJSFValidationError[] {
  return withoutBranchRepeats(issues.map((issue) => toValidationError(issue, rootSchema, uiSchema)));
}

/** The error tree for `errors`: each message at its field (an error without a property at the root). */
export function errorSchemaOf<T>(errors: RJSFValidationError[]): ErrorSchema<T> {
  const builder = new ErrorSchemaBuilder<T>();
  for (const error of errors) {
    if (!error.message) continue;
    const exact = exactPaths.get(error);
    const path = exact && exact.property === error.property ? exact.path : error.property ? toPath(error.property) : [];
    builder.addErrors(error.message, path);
  }
  return builder.ErrorSchema;
}
