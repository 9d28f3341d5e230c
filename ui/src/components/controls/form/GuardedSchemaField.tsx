// rjsf draws every node through `registry.fields.SchemaField`; this one stands in front of the
// stock one and decides, node by node, what the form library is given:
//   - a lazy node (recursion left for later, boundedSchema.ts) → LazyField;
//   - a node the library has no control for (no type it knows, several types at once, `true`) →
//     a JSON editor for that one value, never the library's raw schema dump;
//   - anything else → the stock field (its first `examples` entry as placeholder), inside a boundary: if drawing it throws, that one field
//     becomes a JSON editor and the rest of the form stays.
import StockSchemaField from "@rjsf/core/lib/components/fields/SchemaField.js";
import { getSchemaType, type FieldProps, type RJSFSchema } from "@rjsf/utils";
import { ErrorBoundary } from "../../../boundary/ErrorBoundary";
import { BoundedSchema } from "../../../forms/boundedSchema";
import { JsonField } from "./JsonField";
import { LazyField } from "./LazyField";

const DRAWN_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);

/** Whether the stock field has controls for `schema` (as resolved for the current data). */
function drawable(props: FieldProps): boolean {
  const { schema, registry, formData } = props;
  if (typeof schema !== "object" || schema === null) return false;
  let resolved: RJSFSchema;
  try {
    resolved = registry.schemaUtils.retrieveSchema(schema, formData);
  } catch {
    return false;
  }
  if (Array.isArray(resolved.oneOf) || Array.isArray(resolved.anyOf)) return true;
  const declared = resolved.type;
  if (Array.isArray(declared) && declared.filter((t) => t !== "null").length > 1) return false;
  const type = getSchemaType(resolved);
  // An array without `items` (any items, or 2020-12's `prefixItems`, which the library does not
  // know) has no control in the library either.
  if (type === "array" && resolved.items === undefined) return false;
  return typeof type === "string" && DRAWN_TYPES.has(type);
}

/** The schema's first example as the control's placeholder, unless the uiSchema sets one. */
function withPlaceholder(props: FieldProps): FieldProps {
  const examples = typeof props.schema === "object" && props.schema !== null ? props.schema.examples : undefined;
  const first = Array.isArray(examples) ? examples[0] : undefined;
  if (first === undefined || first === null || typeof first === "object" || props.uiSchema?.["ui:placeholder"] !== undefined) return props;
  return { ...props, uiSchema: { ...props.uiSchema, "ui:placeholder": `e.g. ${String(first)}` } };
}

function isObjectBranch(branch: unknown): boolean {
  if (typeof branch !== "object" || branch === null) return false;
  const b = branch as RJSFSchema;
  return b.type === "object" || (b.type === undefined && b.properties !== undefined);
}

/**
 * The chosen alternative of a `oneOf`/`anyOf` drawn without its own heading: the selector above
 * it already names it, and the field's label is shown once, by the field.
 */
function withQuietAlternatives(props: FieldProps): FieldProps {
  const schema = props.schema;
  let uiSchema = props.uiSchema;
  for (const key of ["oneOf", "anyOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches) || !branches.some(isObjectBranch)) continue;
    const given = Array.isArray(uiSchema?.[key]) ? (uiSchema[key] as Record<string, unknown>[]) : [];
    uiSchema = { ...uiSchema, [key]: branches.map((b, n) => (isObjectBranch(b) ? { "ui:label": false, "ui:description": "", ...given[n] } : (given[n] ?? {}))) };
  }
  return uiSchema === props.uiSchema ? props : { ...props, uiSchema };
}

export function GuardedSchemaField(given: FieldProps) {
  if (BoundedSchema.lazyName(given.schema)) return <LazyField {...given} />;
  if (!drawable(given)) return <JsonField {...given} />;
  const props = withQuietAlternatives(withPlaceholder(given));
  return (
    <ErrorBoundary
      unit="field"
      subject={props.fieldPathId.$id}
      fallback={(reason) => (
        <div className="field-fallback">
          <JsonField {...props} />
          <p className="muted">This field is shown as JSON: {reason}</p>
        </div>
      )}
    >
      <StockSchemaField {...props} />
    </ErrorBoundary>
  );
}
