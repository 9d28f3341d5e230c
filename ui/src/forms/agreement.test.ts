// The window's validator against the table both validators are held to
// (src/test/schemas/agreement.json). The same table is read by the server side's
// crates/inbox-protocol/tests/form_agreement.rs: a row that one accepts and the other refuses
// fails one of the two tests.
import type { RJSFSchema } from "@rjsf/utils";
import { describe, expect, it } from "vitest";
import table from "../test/schemas/agreement.json";
import { FormValidator } from "./formValidator";

type Row = { answer: unknown; accepted: boolean; note?: string };
type Case = { name: string; schema: Record<string, unknown>; rows: Row[] };

const validator = new FormValidator();

describe("the window's validator agrees with the shared table", () => {
  it("has cases to agree on", () => {
    expect((table.cases as Case[]).length).toBeGreaterThanOrEqual(30);
  });

  for (const c of table.cases as Case[]) {
    it(c.name, () => {
      const verdicts = c.rows.map((row) => {
        const { errors } = validator.validateFormData(row.answer, c.schema as RJSFSchema);
        return { answer: JSON.stringify(row.answer), accepted: errors.length === 0, errors: errors.map((e) => e.stack) };
      });
      const expected = c.rows.map((row, n) => ({ answer: JSON.stringify(row.answer), accepted: row.accepted, errors: verdicts[n].errors }));
      expect(verdicts).toEqual(expected);
      // Every refusal says why.
      for (const v of verdicts) if (!v.accepted) expect(v.errors.length).toBeGreaterThan(0);
    });
  }
});
