// The sentence shown under a field for each failed keyword. They read as rjsf's Ajv messages
// did ("must be <= 50", "must have required property 'Instances'"), so reviewers, tests and any
// `transformErrors` written against those texts keep working.

export type IssueParams = Record<string, unknown>;

const show = (v: unknown) => String(v);

const MESSAGES: Record<string, (p: IssueParams) => string> = {
  type: (p) => `must be ${show(p.type)}`,
  required: (p) => `must have required property '${show(p.missingProperty)}'`,
  dependencies: (p) => `must have ${p.depsCount === 1 ? "property" : "properties"} ${show(p.deps)} when property ${show(p.property)} is present`,
  dependentRequired: (p) => `must have ${p.depsCount === 1 ? "property" : "properties"} ${show(p.deps)} when property ${show(p.property)} is present`,
  minimum: (p) => `must be ${show(p.comparison)} ${show(p.limit)}`,
  maximum: (p) => `must be ${show(p.comparison)} ${show(p.limit)}`,
  exclusiveMinimum: (p) => `must be ${show(p.comparison)} ${show(p.limit)}`,
  exclusiveMaximum: (p) => `must be ${show(p.comparison)} ${show(p.limit)}`,
  multipleOf: (p) => `must be multiple of ${show(p.multipleOf)}`,
  minLength: (p) => `must NOT have fewer than ${show(p.limit)} characters`,
  maxLength: (p) => `must NOT have more than ${show(p.limit)} characters`,
  pattern: (p) => `must match pattern "${show(p.pattern)}"`,
  format: (p) => `must match format "${show(p.format)}"`,
  enum: () => "must be equal to one of the allowed values",
  const: () => "must be equal to constant",
  minItems: (p) => `must NOT have fewer than ${show(p.limit)} items`,
  maxItems: (p) => `must NOT have more than ${show(p.limit)} items`,
  // Items beyond what `items: false` (or additionalItems/unevaluatedItems: false) allows.
  additionalItems: (p) => `must NOT have more than ${show(p.limit)} items`,
  unevaluatedItems: (p) => `must NOT have more than ${show(p.limit)} items`,
  items: (p) => `must NOT have more than ${show(p.limit)} items`,
  uniqueItems: (p) => `must NOT have duplicate items (items ## ${show(p.j)} and ${show(p.i)} are identical)`,
  contains: (p) =>
    p.maxContains === undefined
      ? `must contain at least ${show(p.minContains)} valid item(s)`
      : `must contain at least ${show(p.minContains)} and no more than ${show(p.maxContains)} valid item(s)`,
  minProperties: (p) => `must NOT have fewer than ${show(p.limit)} properties`,
  maxProperties: (p) => `must NOT have more than ${show(p.limit)} properties`,
  additionalProperties: () => "must NOT have additional properties",
  unevaluatedProperties: () => "must NOT have unevaluated properties",
  propertyNames: () => "property name must be valid",
  not: () => "must NOT be valid",
  anyOf: () => "must match a schema in anyOf",
  oneOf: () => "must match exactly one schema in oneOf",
  if: (p) => `must match "${show(p.failingKeyword)}" schema`,
  "false schema": () => "boolean schema is false",
};

/** The message for `keyword` with `params`, or `fallback` for a keyword without one here. */
export function issueMessage(keyword: string, params: IssueParams, fallback: string): string {
  const message = MESSAGES[keyword];
  return message ? message(params) : fallback;
}
