// rjsf draws every node through `registry.fields.SchemaField`; this one stands in front of the
// stock one and decides, node by node, what the form library is given:
//   - a lazy node (recursion left for later, boundedSchema.ts) → LazyField;
//   - a node the library has no control for (no type it knows, several types at once, `true`) →
//     a JSON editor for that one value, never the library's raw schema dump;
//   - anything else → the stock field, inside a boundary: if drawing it throws, that one field
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

export function GuardedSchemaField(props: FieldProps) {
  if (BoundedSchema.lazyName(props.schema)) return <LazyField {...props} />;
  if (!drawable(props)) return <JsonField {...props} />;
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
