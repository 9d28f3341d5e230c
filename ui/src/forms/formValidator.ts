// rjsf's validator for the inbox's forms. rjsf's Ajv validator compiles each schema into a
// function with `new Function`, which the desktop window's Content-Security-Policy (no
// 'unsafe-eval') refuses; this one interprets the schema with @cfworker/json-schema instead, and
// speaks rjsf's ValidatorType: the same errors, error tree, option matching and hooks.
import { validate, type OutputUnit } from "@cfworker/json-schema";
import {
  createErrorHandler,
  getDefaultFormState,
  toErrorList,
  unwrapErrorHandler,
  validationDataMerge,
  type CustomValidator,
  type ErrorSchema,
  type ErrorTransformer,
  type FormContextType,
  type RJSFSchema,
  type RJSFValidationError,
  type StrictRJSFSchema,
  type UiSchema,
  type ValidationData,
  type ValidatorType,
} from "@rjsf/utils";
import { toJsonValue, type JsonValue } from "./jsonValue";
import { PreparedSchemas, type PreparedSchema } from "./preparedSchema";
import { collectIssues } from "./schemaIssues";
import { errorSchemaOf, toValidationErrors } from "./validationErrors";

/** One validation run: the library's units, or why the schema could not be used. */
type Run = { units: OutputUnit[]; prepared?: PreparedSchema; instance: JsonValue; validationError?: Error };

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

export class FormValidator<T = any, S extends StrictRJSFSchema = RJSFSchema, F extends FormContextType = any> implements ValidatorType<T, S, F> {
  private prepared = new PreparedSchemas();
  // isValid runs for every option on every render; a broken option is reported once, not each time.
  private warned = new WeakSet<object>();

  private run(schema: S, formData: T | undefined): Run {
    const instance = toJsonValue(formData);
    try {
      const prepared = this.prepared.root(schema);
      const result = validate(instance, prepared.schema, prepared.draft, prepared.lookup, false);
      return { units: result.errors, prepared, instance };
    } catch (e) {
      // An unresolvable $ref, ids that collide, a pattern that is not a regular expression.
      return { units: [], instance, validationError: asError(e) };
    }
  }

  /** The library's own verdict, without rjsf's shaping: its output units, or the schema's fault. */
  rawValidation<Result = OutputUnit>(schema: S, formData?: T): { errors?: Result[]; validationError?: Error } {
    const { units, validationError } = this.run(schema, formData);
    return { errors: units.length > 0 ? (units as Result[]) : undefined, validationError };
  }

  validateFormData(formData: T | undefined, schema: S, customValidate?: CustomValidator<T, S, F>, transformErrors?: ErrorTransformer<T, S, F>, uiSchema?: UiSchema<T, S, F>): ValidationData<T> {
    const { units, prepared, instance, validationError } = this.run(schema, formData);
    const issues = prepared ? collectIssues(units, prepared, instance) : [];
    let errors: RJSFValidationError[] = toValidationErrors(issues, schema, uiSchema as UiSchema);
    if (validationError) errors = [...errors, { stack: validationError.message }];
    if (typeof transformErrors === "function") errors = transformErrors(errors, uiSchema);

    let errorSchema = errorSchemaOf<T>(errors);
    // rjsf's convention for "the schema itself is at fault": errors under `$schema`.
    if (validationError) errorSchema = { ...errorSchema, $schema: { __errors: [validationError.message] } } as ErrorSchema<T>;
    if (typeof customValidate !== "function") return { errors, errorSchema };

    // The custom hook sees every field, filled in with undefined where nothing was entered.
    const filled = getDefaultFormState<T, S, F>(this, schema, formData, schema, true) as T;
    const handler = customValidate(filled, createErrorHandler<T>(filled), uiSchema, errorSchema);
    return validationDataMerge<T>({ errors, errorSchema }, unwrapErrorHandler<T>(handler));
  }

  /** Whether `formData` fits `schema`, a part of `rootSchema` (how rjsf picks a oneOf/anyOf option). */
  isValid(schema: S, formData: T | undefined, rootSchema: S): boolean {
    try {
      const prepared = this.prepared.part(schema, rootSchema);
      return validate(toJsonValue(formData), prepared.schema, prepared.draft, prepared.lookup, true).valid;
    } catch (e) {
      const key = typeof schema === "object" && schema !== null ? schema : null;
      if (key && !this.warned.has(key)) {
        this.warned.add(key);
        console.warn("A form schema could not be used to validate:", asError(e).message);
      }
      return false;
    }
  }

  /** The flat list of the errors in an error tree (rjsf 5 validators had this; rjsf 6 code uses `toErrorList` from utils). */
  toErrorList(errorSchema?: ErrorSchema<T>, fieldPath: string[] = []): RJSFValidationError[] {
    return toErrorList<T>(errorSchema, fieldPath);
  }

  /** Forgets every prepared schema (tests; or a schema object that was changed in place). */
  reset(): void {
    this.prepared.clear();
    this.warned = new WeakSet();
  }
}

/** The validator every form in the window uses. */
export const formValidator = new FormValidator();
