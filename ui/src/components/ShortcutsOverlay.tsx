import { useEffect, useRef } from "react";

export const SHORTCUTS: [string, string][] = [
  ["j / ↓", "Next question"],
  ["k / ↑", "Previous question"],
  ["Enter", "Open the question (focus its controls)"],
  ["y / n", "Yes / No on a confirm question"],
  ["1 – 9", "Pick an option, or send a suggested reply"],
  ["Ctrl+Enter", "Send a text answer"],
  ["o", "Open an external question in the browser"],
  ["d", "Decline the question"],
  ["/", "Search"],
  ["Esc", "Back to the list"],
  ["?", "This help"],
];

/** The list of shortcuts; it takes the keyboard while open. */
export function ShortcutsOverlay({ onClose }: { onClose: () => void }) {
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    closeRef.current?.focus();
    // Capture phase: no other shortcut fires while the help is open.
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" || e.key === "?") {
        e.preventDefault();
        onClose();
      }
      if (e.key !== "Tab" && e.key !== "Enter" && e.key !== " ") e.stopImmediatePropagation();
    };
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [onClose]);
  return (
    <div className="overlay" onClick={onClose}>
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby="shortcuts-title" onClick={(e) => e.stopPropagation()}>
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <dl className="shortcuts">
          {SHORTCUTS.map(([k, what]) => (
            <div key={k}>
              <dt>
                <kbd>{k}</kbd>
              </dt>
              <dd>{what}</dd>
            </div>
          ))}
        </dl>
        <button ref={closeRef} type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
