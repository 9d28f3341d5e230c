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
import { withoutUnfilledObjects } from "./unfilledObjects";
import { tooDeep } from "./validatorGuards";
import { errorSchemaOf, toValidationErrors } from "./validationErrors";

/** The key a drawn schema (BoundedSchema's copy) carries to name the original it stands for. */
export const ORIGINAL_KEY = "x-inbox-original";

/** One validation run: the library's units, or why the schema could not be used. */
type Run = { units: OutputUnit[]; prepared?: PreparedSchema; instance: JsonValue; validationError?: Error };

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

export class FormValidator<T = any, S extends StrictRJSFSchema = RJSFSchema, F extends FormContextType = any> implements ValidatorType<T, S, F> {
  private prepared = new PreparedSchemas();
  // isValid runs for every option on every render; a broken option is reported once, not each time.
  private warned = new WeakSet<object>();
  private skipNoted = new Set<string>();
  // Drawn schemas (expanded for the form, recursion left lazy) and the originals they stand for.
  private originals = new Map<string, { original: unknown; root: unknown }>();

  /**
   * Marks `drawn` as standing for `original`, a part of `root`: validating `drawn` validates the
   * original, so a lazy node in the drawing never loosens what the window accepts.
   */
  alias<D extends object>(drawn: D, original: unknown, root: unknown): D {
    const id = `o${this.originals.size + 1}`;
    this.originals.set(id, { original, root });
    // Old forms' entries go first; a window opens far fewer forms than this at once.
    if (this.originals.size > 64) this.originals.delete(this.originals.keys().next().value as string);
    return { ...drawn, [ORIGINAL_KEY]: id };
  }

  private preparedFor(schema: S): PreparedSchema {
    const id = typeof schema === "object" && schema !== null ? (schema as Record<string, unknown>)[ORIGINAL_KEY] : undefined;
    const known = typeof id === "string" ? this.originals.get(id) : undefined;
    return known ? this.prepared.part(known.original, known.root) : this.prepared.root(schema);
  }

  /** Why this run is left to the server (logged once per reason), or null to go ahead. */
  private skip(prepared: PreparedSchema, instance: JsonValue): string | null {
    const why = prepared.guard.unsafe ?? (tooDeep(instance) ? "data nested too deeply to check here" : null);
    for (const note of why ? [why] : prepared.guard.skipped) {
      if (this.skipNoted.has(note)) continue;
      this.skipNoted.add(note);
      console.warn(`The window leaves a form rule to the server: ${note}`);
    }
    return why;
  }

  private run(schema: S, formData: T | undefined): Run {
    const instance = toJsonValue(formData);
    try {
      const prepared = this.preparedFor(schema);
      if (this.skip(prepared, instance)) return { units: [], prepared, instance };
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

  /**
   * The answer as it would be sent: without the optional objects nobody filled in
   * (unfilledObjects). `drawn` is a schema as drawn (a BoundedSchema root or page): finite and
   * free of `$ref`s, so the defaults it implies are cheap to compute, whatever the original.
   */
  answerOf(formData: T | undefined, drawn: S): T | undefined {
    return withoutUnfilledObjects(formData, drawn as RJSFSchema, drawn as RJSFSchema, this as unknown as ValidatorType);
  }

  validateFormData(formData: T | undefined, schema: S, customValidate?: CustomValidator<T, S, F>, transformErrors?: ErrorTransformer<T, S, F>, uiSchema?: UiSchema<T, S, F>): ValidationData<T> {
    // A drawn page is checked as it would be sent; an original schema (Submit's whole-form check) is
    // given the answer already trimmed, and may be too large to derive defaults from.
    const drawn = typeof schema === "object" && schema !== null && ORIGINAL_KEY in schema;
    const { units, prepared, instance, validationError } = this.run(schema, drawn ? this.answerOf(formData, schema) : formData);
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
      const instance = toJsonValue(formData);
      // Left to the server: every alternative counts as fitting, so the form just keeps the first.
      if (this.skip(prepared, instance)) return true;
      return validate(instance, prepared.schema, prepared.draft, prepared.lookup, true).valid;
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
    this.skipNoted.clear();
  }
}

/** The validator every form in the window uses. */
export const formValidator = new FormValidator();
