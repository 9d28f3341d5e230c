// Human times for the list and the question header.

export function parseTime(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

/** "just now", "2 min ago", "3 h ago", "4 d ago". */
export function relativeAge(iso: string, now: number): string {
  const t = parseTime(iso);
  if (t === null) return "";
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return "just now";
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.floor(h / 24);
  return `${d} d ago`;
}

/** Compact age for list rows: "2m", "3h", "4d". */
export function shortAge(iso: string, now: number): string {
  const t = parseTime(iso);
  if (t === null) return "";
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return "now";
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/** Time left until `iso`: "4:59" under an hour, "2 h 05 min", "3 d 4 h"; null once past. */
export function countdown(iso: string | null, now: number): string | null {
  const t = parseTime(iso);
  if (t === null) return null;
  const left = Math.floor((t - now) / 1000);
  if (left <= 0) return null;
  if (left < 3600) {
    const m = Math.floor(left / 60);
    const s = left % 60;
    return `${m}:${String(s).padStart(2, "0")}`;
  }
  const h = Math.floor(left / 3600);
  if (h < 48) return `${h} h ${String(Math.floor((left % 3600) / 60)).padStart(2, "0")} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

/** Seconds left, or null when there is no deadline. */
export function secondsLeft(iso: string | null, now: number): number | null {
  const t = parseTime(iso);
  return t === null ? null : Math.floor((t - now) / 1000);
}

export function absoluteTime(iso: string): string {
  const t = parseTime(iso);
  return t === null ? iso : new Date(t).toLocaleString();
}
