import type { Interaction } from "../backend/types";

/** What a question says about itself: the rest of an `Interaction` has a value for "nothing". */
export type QuestionFields = Pick<Interaction, "id" | "kind" | "prompt" | "answer_format" | "asker" | "created_at"> & Partial<Interaction>;

/**
 * A pending question made of `fields`, every other part empty: no options, schema, data, pages,
 * link, media, expiry, answer or metadata, synchronous. The window builds one to draw a
 * notification's form with the question's form controls; the demo data builds its questions so.
 */
export function pendingQuestion(fields: QuestionFields): Interaction {
  return {
    options: [],
    schema: null,
    data: null,
    pages: null,
    link: null,
    media: [],
    mode: "sync",
    expires_at: null,
    status: "pending",
    answer: null,
    metadata: {},
    ...fields,
  };
}
