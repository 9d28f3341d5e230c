import type { ErrorCode, ErrorDetail } from "./types";

/** A refusal from the backend carrying the contract's error detail (code, message, field). */
export class BackendError extends Error {
  readonly code: ErrorCode | "backend";
  readonly field: string | undefined;

  constructor(code: ErrorCode | "backend", message: string, field?: string) {
    super(message);
    this.name = "BackendError";
    this.code = code;
    this.field = field;
  }

  /** Accepts an ErrorBody, a bare ErrorDetail, an Error or a string, as Tauri may reject with any. */
  static from(raw: unknown): BackendError {
    if (raw instanceof BackendError) return raw;
    const obj = typeof raw === "string" ? tryParse(raw) : raw;
    if (obj && typeof obj === "object") {
      const detail = ("error" in obj && typeof obj.error === "object" ? obj.error : obj) as Partial<ErrorDetail>;
      if (detail && typeof detail.code === "string" && typeof detail.message === "string") {
        return new BackendError(detail.code, detail.message, typeof detail.field === "string" ? detail.field : undefined);
      }
    }
    if (raw instanceof Error) return new BackendError("backend", raw.message);
    return new BackendError("backend", typeof raw === "string" ? raw : "The request failed.");
  }
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
