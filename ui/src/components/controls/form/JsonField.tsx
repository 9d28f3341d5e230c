import type { FieldProps } from "@rjsf/utils";
import { JsonEditor } from "./JsonEditor";

/** rjsf's field for one node it cannot draw: that node's value as a JSON editor. */
export function JsonField(props: FieldProps) {
  const { schema, name, required, disabled, readonly, formData, onChange, fieldPathId, errorSchema } = props;
  const title = typeof schema.title === "string" && schema.title ? schema.title : name || "Value";
  return (
    <JsonEditor
      id={fieldPathId.$id}
      label={title}
      required={required}
      description={typeof schema.description === "string" ? schema.description : undefined}
      value={formData}
      schema={schema}
      disabled={disabled || readonly}
      outsideErrors={errorSchema?.__errors}
      onValue={(v) => onChange(v, fieldPathId.path)}
    />
  );
}
