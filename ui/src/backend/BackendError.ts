import type { CommandCode, ErrorDetail } from "./types";

/**
 * What a failure's code can be: every code the app's commands return (`CommandCode`, generated
 * from Rust's one list), or `"backend"` when what failed was not a refusal at all (the call
 * itself broke). Switching on any other string fails the type check.
 */
export type BackendErrorCode = CommandCode | "backend";

/** A refusal from the backend carrying the contract's error detail (code, message, field). */
export class BackendError extends Error {
  readonly code: BackendErrorCode;
  readonly field: string | undefined;

  constructor(code: BackendErrorCode, message: string, field?: string) {
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
      const detail = ("error" in obj && typeof obj.error === "object" ? obj.error : obj) as Partial<Omit<ErrorDetail, "code">> & { code?: unknown };
      if (detail && typeof detail.code === "string" && typeof detail.message === "string") {
        // The app's commands and the server send only codes of the generated lists.
        return new BackendError(detail.code as CommandCode, detail.message, typeof detail.field === "string" ? detail.field : undefined);
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
