// Where an error's field is on the page. rjsf names each control `${idPrefix}_${path…}`; an
// error can sit at a field without a control of its own (an array short of items, an object
// missing a key), so the nearest control at or inside that path is used, else the closest
// enclosing field's.
import { toPath } from "@rjsf/utils";

/** The rjsf id of the field at `property` (".owner.email" → "form_x_0_owner_email"). */
export function fieldIdOf(idPrefix: string, property: string | undefined): string {
  return [idPrefix, ...toPath((property ?? "").replace(/^\./, ""))].filter((s) => s !== "").join("_");
}

const FOCUSABLE = "input:not([type=hidden]), select, textarea, button";

/** The element to focus for the field `id` inside `container`, or null. */
export function fieldElement(container: ParentNode, id: string): HTMLElement | null {
  let at = id;
  for (;;) {
    const exact = container.querySelector<HTMLElement>(`[id="${CSS.escape(at)}"]`);
    if (exact && exact.matches(FOCUSABLE)) return exact;
    const inside = (exact ?? container).querySelector<HTMLElement>(exact ? FOCUSABLE : `:is(${FOCUSABLE})[id^="${CSS.escape(at)}_"]`);
    if (inside) return inside;
    if (exact) return exact;
    const cut = at.lastIndexOf("_");
    if (cut <= 0) return null;
    at = at.slice(0, cut);
  }
}

/** Moves focus to the field `id` and brings it into view; whether one was found. */
export function focusField(container: ParentNode | null, id: string): boolean {
  const element = container ? fieldElement(container, id) : null;
  if (!element) return false;
  if (!element.matches(FOCUSABLE) && !element.hasAttribute("tabindex")) element.setAttribute("tabindex", "-1");
  element.focus({ preventScroll: true });
  // jsdom has no layout and no scrollIntoView.
  element.scrollIntoView?.({ block: "center", behavior: "smooth" });
  return true;
}

/** `errors` in the order their fields appear on the page (those without a field last, as given). */
export function inPageOrder<E extends { property?: string }>(errors: E[], container: ParentNode | null, idPrefix: string): E[] {
  const placed = errors.map((error, n) => ({ error, n, at: container ? fieldElement(container, fieldIdOf(idPrefix, error.property)) : null }));
  placed.sort((a, b) => {
    if (a.at && b.at && a.at !== b.at) return a.at.compareDocumentPosition(b.at) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
    if (a.at && !b.at) return -1;
    if (!a.at && b.at) return 1;
    return a.n - b.n;
  });
  return placed.map((p) => p.error);
}
