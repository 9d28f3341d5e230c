import type { AnswerFormat, Status } from "../backend/types";

export const FORMAT_LABELS: Record<AnswerFormat, string> = {
  confirm: "confirm",
  select: "select",
  text: "text",
  form: "form",
  external: "external",
};

/** Status by shape and word, never colour alone. */
export const STATUS_MARKS: Record<Status, { mark: string; text: string }> = {
  pending: { mark: "●", text: "Pending" },
  answered: { mark: "✓", text: "Answered" },
  declined: { mark: "✕", text: "Declined" },
  expired: { mark: "⌛", text: "Expired" },
  cancelled: { mark: "⊘", text: "Withdrawn" },
};

export function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim().length > 0) ?? "";
  return line.trim();
}
