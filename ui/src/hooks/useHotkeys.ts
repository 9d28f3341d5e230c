import { useEffect, useRef } from "react";

/** True when a keystroke is meant for a field the person is typing in. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") {
    const type = (target as HTMLInputElement).type;
    return !["button", "submit", "checkbox", "radio", "reset"].includes(type);
  }
  return false;
}

/** A handler returns `false` when it leaves the keystroke alone (its default then happens). */
export type KeyMap = Record<string, (e: KeyboardEvent) => boolean | void>;

/**
 * Single-key shortcuts on the window. Keys are `KeyboardEvent.key` values ("j", "?", "Enter");
 * they are ignored while typing in a field, with a modifier held, or when someone earlier in
 * the chain already handled the keystroke.
 */
export function useHotkeys(map: KeyMap, enabled = true): void {
  const ref = useRef(map);
  ref.current = map;
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      if (isTypingTarget(e.target)) return;
      const handler = ref.current[e.key];
      if (!handler) return;
      if (handler(e) !== false) e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [enabled]);
}
