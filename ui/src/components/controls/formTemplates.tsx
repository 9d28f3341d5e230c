import type { IconButtonProps } from "@rjsf/utils";

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
