// The Form module itself: @rjsf/core's index also exports a test helper that imports
// @rjsf/validator-ajv8, the eval-based validator this window cannot run and does not install.
import Form from "@rjsf/core/lib/components/Form.js";
import type { ErrorSchema, RJSFSchema, RJSFValidationError } from "@rjsf/utils";
import { useEffect, useMemo, useRef, useState } from "react";
import { formValidator as validator } from "../../forms/formValidator";
import type { BackendError } from "../../backend/BackendError";
import type { Interaction } from "../../backend/types";
import { formButtonTemplates, MultiSchemaFieldTemplate, UnsupportedFieldTemplate } from "./formTemplates";
import { GuardedSchemaField } from "./form/GuardedSchemaField";
import { ErrorSummary } from "./form/ErrorSummary";
import { fieldIdOf, focusField, inPageOrder } from "../../forms/fieldFocus";
import { BoundedSchema } from "../../forms/boundedSchema";
import { displayValue, errorAt, fieldPath, formSteps, isObject, pageSchema, perSendSchema, prefill, stepOfField, type JsonSchema } from "../../lib/formSchema";
import { FormError } from "../FormError";

// Every node of every form goes through the guarded field (recursion, undrawable nodes, throws).
const FIELDS = { SchemaField: GuardedSchemaField };
const TEMPLATES = { ButtonTemplates: formButtonTemplates, UnsupportedFieldTemplate, MultiSchemaFieldTemplate };
/** Nesting shown in the review before the rest is summarised as JSON. */
const REVIEW_DEPTH = 6;
/** Longest JSON summary in the review. */
const REVIEW_TEXT = 300;

type Props = {
  interaction: Interaction;
  busy: boolean;
  onAnswer: (value: unknown) => Promise<BackendError | null>;
};

/**
 * A form question: the schema with this send's options and prefill, split into its pages.
 * Each page is validated on its own before Next; a review step shows everything before Submit;
 * a field the server (or the app) refuses is shown at that field, on its page.
 */
export function FormAnswer({ interaction, busy, onAnswer }: Props) {
  const schema = useMemo(() => perSendSchema(interaction), [interaction]);
  const steps = useMemo(() => formSteps(interaction, schema), [interaction, schema]);
  // What the form library draws: $refs expanded within bounds, recursion left lazy. Each page
  // stands for the original page, which is what the validator checks.
  const bounded = useMemo(() => new BoundedSchema(schema), [schema]);
  const wholeRoot = !interaction.pages || interaction.pages.length === 0;
  const pages = useMemo(
    () =>
      steps.map((s) =>
        // A form without pages is its whole root (keeping root-level rules such as additionalProperties).
        wholeRoot
          ? validator.alias(pageOnly(bounded.root, null), schema, schema)
          : validator.alias(pageOnly(bounded.root, s.fields), pageSchema(schema, s.fields), schema),
      ),
    [steps, bounded, schema, wholeRoot],
  );
  const formContext = useMemo(() => ({ bounded }), [bounded]);
  const [formData, setFormData] = useState<Record<string, unknown>>(() => prefill(interaction));
  const [step, setStep] = useState(0);
  const [extraErrors, setExtraErrors] = useState<ErrorSchema | undefined>(undefined);
  const [formError, setFormError] = useState<string | null>(null);
  // The errors that stopped the current step (its summary), and which steps hold errors.
  const [stepErrors, setStepErrors] = useState<RJSFValidationError[]>([]);
  const [erring, setErring] = useState<ReadonlySet<number>>(() => new Set());
  const fieldsRef = useRef<HTMLDivElement>(null);
  // Set when errors found on Submit send the reviewer back to a step: its first field takes focus once drawn.
  const focusFirst = useRef(false);
  const reviewing = step >= steps.length;
  const idBase = `form_${interaction.id.replace(/[^A-Za-z0-9_]/g, "_")}`;
  const idPrefix = `${idBase}_${step}`;
  const markStep = (n: number, hasErrors: boolean) =>
    setErring((prev) => {
      if (prev.has(n) === hasErrors) return prev;
      const next = new Set(prev);
      if (hasErrors) next.add(n);
      else next.delete(n);
      return next;
    });
  useEffect(() => {
    if (!focusFirst.current || reviewing || stepErrors.length === 0) return;
    focusFirst.current = false;
    focusField(fieldsRef.current, fieldIdOf(idPrefix, stepErrors[0].property));
  }, [stepErrors, reviewing, idPrefix]);
  const goTo = (n: number) => {
    setStepErrors([]);
    setStep(n);
  };
  // What is sent: the data without optional objects nobody filled in (forms/unfilledObjects).
  const answer = useMemo(() => validator.answerOf(formData, bounded.root as RJSFSchema) as Record<string, unknown>, [formData, bounded]);

  const submit = async () => {
    setFormError(null);
    // The whole schema once more, for rules that span pages.
    const full = validator.validateFormData(answer, schema as RJSFSchema);
    if (full.errors.length > 0) {
      const stepOf = (e: RJSFValidationError) => {
        const path = (e.property ?? "").replace(/^\./, "");
        return path ? stepOfField(steps, path) : -1;
      };
      const first = full.errors[0];
      const at = stepOf(first);
      setExtraErrors(full.errorSchema as ErrorSchema);
      setErring(new Set(full.errors.map(stepOf).filter((n) => n >= 0)));
      if (at >= 0) {
        focusFirst.current = true;
        setStep(at);
        setStepErrors(full.errors.filter((e) => stepOf(e) === at));
      } else setFormError(first.stack);
      return;
    }
    const err = await onAnswer(answer);
    // Errors without a field are shown by the question view; those with one go to their field.
    if (!err || !err.field) return;
    const at = stepOfField(steps, err.field);
    setExtraErrors(errorAt(err.field, err.message) as ErrorSchema);
    if (at >= 0) {
      markStep(at, true);
      focusFirst.current = true;
      setStep(at);
      setStepErrors([{ property: fieldPath(err.field).map((s) => `.${s}`).join(""), message: err.message, stack: `${err.field}: ${err.message}` }]);
    } else setFormError(`${err.field}: ${err.message}`);
  };

  return (
    <div className="form-answer">
      <nav className="steps" aria-label="Form steps">
        <ol>
          {steps.map((s, n) => (
            <li key={n} aria-current={n === step ? "step" : undefined} className={[n < step ? "done" : n === step ? "current" : "", erring.has(n) ? "has-errors" : ""].join(" ").trim()}>
              {erring.has(n) ? "⚠ " : n < step ? "✓ " : `${n + 1}. `}
              {s.title}
              {erring.has(n) && <span className="visually-hidden"> (has errors)</span>}
            </li>
          ))}
          <li aria-current={reviewing ? "step" : undefined} className={reviewing ? "current" : ""}>
            Review
          </li>
        </ol>
      </nav>
      <h3 className="step-title" aria-live="polite">
        {reviewing ? "Review your answer" : `Step ${step + 1} of ${steps.length} · ${steps[step].title}`}
      </h3>
      <FormError message={formError} />
      {reviewing ? (
        <div className="review">
          <ReviewList bounded={bounded} steps={steps} data={answer} allKeys={wholeRoot} />
          <div className="form-buttons">
            <button type="button" className="secondary" onClick={() => goTo(steps.length - 1)} disabled={busy}>
              Back
            </button>
            <button type="button" className="primary" onClick={() => void submit()} disabled={busy}>
              Submit
            </button>
          </div>
        </div>
      ) : (
        <div ref={fieldsRef} className="form-step">
        <ErrorSummary errors={stepErrors} idPrefix={idPrefix} container={() => fieldsRef.current} />
        <Form
          key={step}
          schema={pages[step] as RJSFSchema}
          validator={validator}
          fields={FIELDS}
          formContext={formContext}
          formData={formData}
          idPrefix={idPrefix}
          extraErrors={extraErrors}
          showErrorList={false}
          templates={TEMPLATES}
          noHtml5Validate
          onError={(errors) => {
            // Listed, and the first focused, in the order the fields appear; a field without a
            // control of its own (an array short of items) is reached through the nearest one.
            const ordered = inPageOrder(errors, fieldsRef.current, idPrefix);
            setStepErrors(ordered);
            markStep(step, true);
            if (ordered.length > 0) focusField(fieldsRef.current, fieldIdOf(idPrefix, ordered[0].property));
          }}
          disabled={busy}
          onChange={(e) => {
            setFormData((prev) => ({ ...prev, ...(e.formData as Record<string, unknown>) }));
          }}
          onSubmit={(e) => {
            setFormData((prev) => ({ ...prev, ...(e.formData as Record<string, unknown>) }));
            setExtraErrors(undefined);
            markStep(step, false);
            goTo(step + 1);
          }}
        >
          <div className="form-buttons">
            {step > 0 && (
              <button type="button" className="secondary" onClick={() => goTo(step - 1)} disabled={busy}>
                Back
              </button>
            )}
            <button type="submit" className="primary" disabled={busy}>
              {step === steps.length - 1 ? "Review" : "Next"}
            </button>
          </div>
        </Form>
        </div>
      )}
    </div>
  );
}

/** One page's schema (`null`: the whole root) without the root title (the step header names the page instead). */
function pageOnly(schema: JsonSchema, fields: string[] | null): JsonSchema {
  const page = fields ? pageSchema(schema, fields) : { ...schema };
  delete page.title;
  delete page.description;
  return page;
}

function ReviewList({ bounded, steps, data, allKeys }: { bounded: BoundedSchema; steps: { title: string; fields: string[] }[]; data: Record<string, unknown>; allKeys: boolean }) {
  const props = bounded.root.properties ?? {};
  return (
    <div className="review-list">
      {steps.map((s, n) => {
        // Without pages the review also shows keys the schema admits beyond its properties.
        const names = allKeys && n === 0 ? [...new Set([...s.fields, ...Object.keys(isObject(data) ? data : {})])] : s.fields;
        return (
          <section key={n} aria-label={s.title}>
            <h4>{s.title}</h4>
            <dl>
              {names.map((f) => (
                <ReviewEntry key={f} name={f} prop={props[f]} value={data[f]} bounded={bounded} depth={1} />
              ))}
            </dl>
          </section>
        );
      })}
    </div>
  );
}

/** A lazy node's next level, so the review can name nested fields (the data bounds how far). */
function opened(bounded: BoundedSchema, prop: JsonSchema | undefined): JsonSchema | undefined {
  const lazy = BoundedSchema.lazyName(prop);
  return lazy ? (bounded.expand(lazy) ?? prop) : prop;
}

function summary(value: unknown): string {
  const text = JSON.stringify(value) ?? "";
  return text.length > REVIEW_TEXT ? `${text.slice(0, REVIEW_TEXT - 1)}…` : text;
}

function ReviewEntry({ name, prop: raw, value, bounded, depth }: { name: string; prop: JsonSchema | undefined; value: unknown; bounded: BoundedSchema; depth: number }) {
  const prop = opened(bounded, raw);
  const title = prop?.title ?? name;
  let shown: React.ReactNode;
  if (depth >= REVIEW_DEPTH && typeof value === "object" && value !== null) {
    // Deeper than a review can usefully show: the rest as (short) JSON text.
    shown = summary(value);
  } else if (isObject(value) && prop?.properties) {
    const nested = prop.properties;
    const names = [...new Set([...Object.keys(nested), ...Object.keys(value)])];
    shown = (
      <dl className="nested">
        {names.map((k) => (
          <ReviewEntry key={k} name={k} prop={nested[k]} value={value[k]} bounded={bounded} depth={depth + 1} />
        ))}
      </dl>
    );
  } else if (Array.isArray(value)) {
    const item = Array.isArray(prop?.items) ? undefined : opened(bounded, prop?.items);
    shown =
      value.length === 0 ? (
        "—"
      ) : (
        <ul>
          {value.map((v, n) =>
            isObject(v) && item?.properties ? (
              <li key={n}>
                <dl className="nested">
                  {Object.keys(v).map((k) => (
                    <ReviewEntry key={k} name={k} prop={item.properties?.[k]} value={v[k]} bounded={bounded} depth={depth + 1} />
                  ))}
                </dl>
              </li>
            ) : (
              <li key={n}>{typeof v === "object" && v !== null ? summary(v) : displayValue(item, v)}</li>
            ),
          )}
        </ul>
      );
  } else {
    shown = typeof value === "object" && value !== null ? summary(value) : displayValue(prop, value);
  }
  return (
    <>
      <dt>{title}</dt>
      <dd>{shown}</dd>
    </>
  );
}
