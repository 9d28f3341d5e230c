import type { RJSFValidationError } from "@rjsf/utils";
import { fieldIdOf, focusField } from "../../../forms/fieldFocus";

type Props = {
  errors: RJSFValidationError[];
  idPrefix: string;
  /** The element the step's fields are drawn in. */
  container: () => ParentNode | null;
};

/** What keeps this step from going on, at its top: one link per error, to its field. */
export function ErrorSummary({ errors, idPrefix, container }: Props) {
  if (errors.length === 0) return null;
  const label = errors.length === 1 ? "1 problem to fix on this step" : `${errors.length} problems to fix on this step`;
  return (
    <div className="error-summary" role="alert" aria-label={label}>
      <p>{label}:</p>
      <ul>
        {errors.map((error, n) => {
          const id = fieldIdOf(idPrefix, error.property);
          return (
            <li key={`${n}:${error.property}`}>
              <a
                href={`#${id}`}
                onClick={(e) => {
                  e.preventDefault();
                  focusField(container(), id);
                }}
              >
                {error.stack}
              </a>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
