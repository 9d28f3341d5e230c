// Questions whose content failed to render. The window remembers them (in the webview's own
// storage) so it never opens one by itself again — not after answering the one before it, and not
// on the next start, where the newest pending question would otherwise open and fail at once.
//
// Two ways a question lands here: an error boundary caught its failure (recordFailure), or the
// window died while drawing it. React cannot catch the second (an out-of-memory renderer, a hang),
// so each question is marked "opening" before its content renders and unmarked once it has; a mark
// still there on the next start means the last run never finished drawing that question.

const FAILED_KEY = "inbox.renderFailures";
const OPENING_KEY = "inbox.renderOpening";
/** Enough for any real inbox; the oldest entries go first. */
const MAX_REMEMBERED = 200;
/** A reason is a hint for the reviewer, not a dump: long messages are cut. */
const MAX_REASON = 160;

export type FailedQuestions = ReadonlyMap<string, string>;

function storage(): Storage | null {
  try {
    return typeof localStorage === "undefined" ? null : localStorage;
  } catch {
    // Storage can be refused outright (a locked-down webview); the session still works.
    return null;
  }
}

/** The reason shown and logged: the error's kind and the start of its message, on one line. */
export function shortReason(error: unknown): string {
  const name = error instanceof Error ? error.name : "Error";
  const raw = error instanceof Error ? error.message : String(error);
  const line = raw.replace(/\s+/g, " ").trim();
  const cut = line.length > MAX_REASON ? `${line.slice(0, MAX_REASON - 1)}…` : line;
  return cut ? `${name}: ${cut}` : name;
}

function readFailed(): Map<string, string> {
  const raw = storage()?.getItem(FAILED_KEY);
  if (!raw) return new Map();
  try {
    const list = JSON.parse(raw) as unknown;
    if (!Array.isArray(list)) return new Map();
    return new Map(list.filter((e): e is [string, string] => Array.isArray(e) && typeof e[0] === "string" && typeof e[1] === "string"));
  } catch {
    return new Map();
  }
}

function writeFailed(failed: Map<string, string>): void {
  const entries = [...failed.entries()].slice(-MAX_REMEMBERED);
  try {
    storage()?.setItem(FAILED_KEY, JSON.stringify(entries));
  } catch {
    // Full or refused: the in-memory list still protects this session.
  }
}

/**
 * The remembered failures, with an unfinished "opening" mark from the last run turned into one.
 * Called once when the window starts.
 */
export function loadFailures(): Map<string, string> {
  const failed = readFailed();
  const opening = storage()?.getItem(OPENING_KEY);
  if (opening && !failed.has(opening)) {
    failed.set(opening, "The window stopped while drawing this question.");
    writeFailed(failed);
    console.error(`[inbox] question ${opening} did not finish rendering in the last run; it will not open by itself`);
  }
  storage()?.removeItem(OPENING_KEY);
  return failed;
}

/** Adds a failure; returns the new map (the same one if it was known, so React skips a render). */
export function recordFailure(failed: FailedQuestions, key: string, reason: string): FailedQuestions {
  if (failed.has(key)) return failed;
  const next = new Map(failed).set(key, reason);
  writeFailed(next);
  return next;
}

/** Drawing `key` starts. */
export function markOpening(key: string): void {
  try {
    storage()?.setItem(OPENING_KEY, key);
  } catch {
    // Best effort: without storage the boundaries still catch what throws.
  }
}

/** Drawing `key` finished (it committed, or its failure was caught and recorded). */
export function clearOpening(key: string): void {
  const s = storage();
  if (s?.getItem(OPENING_KEY) === key) s.removeItem(OPENING_KEY);
}
