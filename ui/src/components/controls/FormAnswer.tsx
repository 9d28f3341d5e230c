// The Form module itself: @rjsf/core's index also exports a test helper that imports
// @rjsf/validator-ajv8, the eval-based validator this window cannot run and does not install.
import Form from "@rjsf/core/lib/components/Form.js";
import type { ErrorSchema, RJSFSchema } from "@rjsf/utils";
import { useMemo, useState } from "react";
import { formValidator as validator } from "../../forms/formValidator";
import type { BackendError } from "../../backend/BackendError";
import type { Interaction } from "../../backend/types";
import { formButtonTemplates } from "./formTemplates";
import { displayValue, errorAt, formSteps, isObject, pageSchema, perSendSchema, prefill, stepOfField, type JsonSchema } from "../../lib/formSchema";

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
  const [formData, setFormData] = useState<Record<string, unknown>>(() => prefill(interaction));
  const [step, setStep] = useState(0);
  const [extraErrors, setExtraErrors] = useState<ErrorSchema | undefined>(undefined);
  const [formError, setFormError] = useState<string | null>(null);
  const reviewing = step >= steps.length;
  const idBase = `form_${interaction.id.replace(/[^A-Za-z0-9_]/g, "_")}`;

  const submit = async () => {
    setFormError(null);
    // The whole schema once more, for rules that span pages.
    const full = validator.validateFormData(formData, schema as RJSFSchema);
    if (full.errors.length > 0) {
      const first = full.errors[0];
      const path = (first.property ?? "").replace(/^\./, "");
      const at = path ? stepOfField(steps, path) : -1;
      setExtraErrors(full.errorSchema as ErrorSchema);
      if (at >= 0) setStep(at);
      else setFormError(first.stack);
      return;
    }
    const err = await onAnswer(formData);
    // Errors without a field are shown by the question view; those with one go to their field.
    if (!err || !err.field) return;
    const at = stepOfField(steps, err.field);
    setExtraErrors(errorAt(err.field, err.message) as ErrorSchema);
    if (at >= 0) setStep(at);
    else setFormError(`${err.field}: ${err.message}`);
  };

  return (
    <div className="form-answer">
      <nav className="steps" aria-label="Form steps">
        <ol>
          {steps.map((s, n) => (
            <li key={n} aria-current={n === step ? "step" : undefined} className={n < step ? "done" : n === step ? "current" : ""}>
              {n < step ? "✓ " : `${n + 1}. `}
              {s.title}
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
      {formError && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      {reviewing ? (
        <div className="review">
          <ReviewList schema={schema} steps={steps} data={formData} />
          <div className="form-buttons">
            <button type="button" className="secondary" onClick={() => setStep(steps.length - 1)} disabled={busy}>
              Back
            </button>
            <button type="button" className="primary" onClick={() => void submit()} disabled={busy}>
              Submit
            </button>
          </div>
        </div>
      ) : (
        <Form
          key={step}
          schema={pageOnly(schema, steps[step].fields) as RJSFSchema}
          validator={validator}
          formData={formData}
          idPrefix={`${idBase}_${step}`}
          extraErrors={extraErrors}
          showErrorList={false}
          templates={{ ButtonTemplates: formButtonTemplates }}
          noHtml5Validate
          focusOnFirstError
          disabled={busy}
          onChange={(e) => {
            setFormData((prev) => ({ ...prev, ...(e.formData as Record<string, unknown>) }));
          }}
          onSubmit={(e) => {
            setFormData((prev) => ({ ...prev, ...(e.formData as Record<string, unknown>) }));
            setExtraErrors(undefined);
            setStep(step + 1);
          }}
        >
          <div className="form-buttons">
            {step > 0 && (
              <button type="button" className="secondary" onClick={() => setStep(step - 1)} disabled={busy}>
                Back
              </button>
            )}
            <button type="submit" className="primary" disabled={busy}>
              {step === steps.length - 1 ? "Review" : "Next"}
            </button>
          </div>
        </Form>
      )}
    </div>
  );
}

/** One page's schema without the root title (the step header names the page instead). */
function pageOnly(schema: JsonSchema, fields: string[]): JsonSchema {
  const page = pageSchema(schema, fields);
  delete page.title;
  delete page.description;
  return page;
}

function ReviewList({ schema, steps, data }: { schema: JsonSchema; steps: { title: string; fields: string[] }[]; data: Record<string, unknown> }) {
  const props = schema.properties ?? {};
  return (
    <div className="review-list">
      {steps.map((s, n) => (
        <section key={n} aria-label={s.title}>
          <h4>{s.title}</h4>
          <dl>
            {s.fields.map((f) => (
              <ReviewEntry key={f} name={f} prop={props[f]} value={data[f]} />
            ))}
          </dl>
        </section>
      ))}
    </div>
  );
}

function ReviewEntry({ name, prop, value }: { name: string; prop: JsonSchema | undefined; value: unknown }) {
  const title = prop?.title ?? name;
  let shown: React.ReactNode;
  if (isObject(value) && prop?.properties) {
    shown = (
      <dl className="nested">
        {Object.entries(prop.properties).map(([k, p]) => (
          <ReviewEntry key={k} name={k} prop={p} value={value[k]} />
        ))}
      </dl>
    );
  } else if (Array.isArray(value)) {
    const item = Array.isArray(prop?.items) ? undefined : prop?.items;
    shown =
      value.length === 0 ? (
        "—"
      ) : (
        <ul>
          {value.map((v, n) => (
            <li key={n}>{displayValue(item, v)}</li>
          ))}
        </ul>
      );
  } else {
    shown = displayValue(prop, value);
  }
  return (
    <>
      <dt>{title}</dt>
      <dd>{shown}</dd>
    </>
  );
}
