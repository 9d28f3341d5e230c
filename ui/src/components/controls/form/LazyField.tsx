import type { FieldProps, RJSFSchema } from "@rjsf/utils";
import { useState } from "react";
import { BoundedSchema } from "../../../forms/boundedSchema";
import { JsonField } from "./JsonField";

/**
 * A recursive (or too deep, or too large) part of the schema, left out of the first drawing. It
 * opens one level when the reviewer asks ("+ Add nested …"), or by itself when the data already
 * holds a value there; inside, the next level of recursion waits the same way.
 */
export function LazyField(props: FieldProps) {
  const { schema, registry, formData, onChange, fieldPathId, disabled, readonly, name, errorSchema } = props;
  const bounded = (registry.formContext as { bounded?: BoundedSchema } | undefined)?.bounded;
  const lazy = BoundedSchema.lazyName(schema);
  const [opened, setOpened] = useState(false);
  const expanded = lazy && bounded ? bounded.expand(lazy) : undefined;
  // Nothing to expand into (an unresolvable reference): the value as JSON.
  if (!expanded) return <JsonField {...props} />;

  const title = (typeof schema.title === "string" && schema.title) || expanded.title || name || "item";
  const isItem = typeof fieldPathId.path[fieldPathId.path.length - 1] === "number";
  // Opening and removing the level: off while the form is.
  const levelButton = (className: string, label: string, onClick: () => void) => (
    <button type="button" className={className} disabled={disabled || readonly} onClick={onClick}>
      {label}
    </button>
  );
  if (!opened && formData === undefined) {
    return (
      <div className="lazy-field">
        <span className="control-label">{title}</span>
        {levelButton("secondary lazy-add", `+ Add nested ${title}`, () => {
          setOpened(true);
          // Start the value the level's type expects, so the form draws its fields.
          if (expanded.type === "object") onChange({}, fieldPathId.path);
          else if (expanded.type === "array") onChange([], fieldPathId.path);
        })}
        {/* A rule on the level itself (it is required, say) shows while it is still closed. */}
        {(errorSchema?.__errors ?? []).length > 0 && (
          <ul className="error-detail">
            {errorSchema!.__errors!.map((m) => (
              <li key={m} className="text-danger">
                {m}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  const { SchemaField } = registry.fields;
  return (
    <div className="lazy-field lazy-open">
      <SchemaField {...props} schema={{ ...expanded, title } as RJSFSchema} />
      {!isItem &&
        levelButton("quiet lazy-remove", `Remove nested ${title}`, () => {
          setOpened(false);
          onChange(undefined, fieldPathId.path);
        })}
    </div>
  );
}
