import type { IconButtonProps, MultiSchemaFieldTemplateProps, UnsupportedFieldProps } from "@rjsf/utils";

// rjsf's stock buttons draw Bootstrap glyph icons, which this window does not ship; these say
// what they do in words instead (with the stock title as the accessible name).
function textButton(text: string, fallbackLabel: string) {
  return function TextButton(props: IconButtonProps) {
    const { iconType: _iconType, icon: _icon, uiSchema: _uiSchema, registry: _registry, className, title, ...rest } = props;
    return (
      <button type="button" className={`form-icon-button ${className ?? ""}`} aria-label={title ?? fallbackLabel} title={title ?? fallbackLabel} {...rest}>
        {text}
      </button>
    );
  };
}

export const formButtonTemplates = {
  AddButton: textButton("+ Add", "Add item"),
  CopyButton: textButton("Copy", "Copy item"),
  MoveDownButton: textButton("↓", "Move down"),
  MoveUpButton: textButton("↑", "Move up"),
  RemoveButton: textButton("Remove", "Remove item"),
  ClearButton: textButton("Clear", "Clear"),
};

/**
 * What rjsf shows for a node it cannot draw. GuardedSchemaField sends those nodes to a JSON editor
 * before rjsf gets here; should one slip through, this says so in words instead of rjsf's stock
 * template, which prints the asker's raw schema into the pane.
 */
export function UnsupportedFieldTemplate({ reason }: UnsupportedFieldProps) {
  return (
    <p className="form-error unsupported-field" role="alert">
      This field cannot be shown here{reason ? ` (${reason})` : ""}; the server checks it when you submit.
    </p>
  );
}

/**
 * A `oneOf`/`anyOf` field: which alternative is being filled, as a labelled choice ("Strategy ·
 * kind"), then that alternative's fields. rjsf's stock template leaves the selector unlabelled.
 */
export function MultiSchemaFieldTemplate({ selector, optionSchemaField, schema }: MultiSchemaFieldTemplateProps) {
  const title = typeof schema.title === "string" && schema.title ? schema.title : "";
  return (
    <div className="alternatives">
      <label className="alternative-choice">
        <span className="muted">{title ? <span className="visually-hidden">{title} · </span> : null}Kind</span>
        {selector}
      </label>
      {optionSchemaField}
    </div>
  );
}
