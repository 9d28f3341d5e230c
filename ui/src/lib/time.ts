// Human times for the list and the question header.

export function parseTime(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

/** How an age is worded: below `nowBelowS` seconds it is `now`; minutes are `minutes(seconds)`. */
type AgeStyle = { now: string; nowBelowS: number; minutes: (s: number) => number; say: (n: number, unit: "min" | "h" | "d") => string };

const LONG_AGE: AgeStyle = { now: "just now", nowBelowS: 45, minutes: (s) => Math.round(s / 60), say: (n, unit) => `${n} ${unit} ago` };
const SHORT_AGE: AgeStyle = { now: "now", nowBelowS: 60, minutes: (s) => Math.floor(s / 60), say: (n, unit) => `${n}${unit === "min" ? "m" : unit}` };

function age(iso: string, now: number, style: AgeStyle): string {
  const t = parseTime(iso);
  if (t === null) return "";
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < style.nowBelowS) return style.now;
  const m = style.minutes(s);
  if (m < 60) return style.say(m, "min");
  const h = Math.floor(m / 60);
  if (h < 24) return style.say(h, "h");
  return style.say(Math.floor(h / 24), "d");
}

/** "just now", "2 min ago", "3 h ago", "4 d ago". */
export function relativeAge(iso: string, now: number): string {
  return age(iso, now, LONG_AGE);
}

/** Compact age for list rows: "2m", "3h", "4d". */
export function shortAge(iso: string, now: number): string {
  return age(iso, now, SHORT_AGE);
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
