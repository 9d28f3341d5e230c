import { linkHref } from "../../lib/safeUrl";

type Props = { link: string | null; opened: boolean; onOpen: (url: string) => void };

/** The person acts elsewhere; the answer comes back through the server's callback door. */
export function ExternalAnswer({ link, opened, onOpen }: Props) {
  const href = link ? linkHref(link) : null;
  if (!href) return <p className="muted">This question has no usable link to act on.</p>;
  let host = "";
  try {
    host = new URL(href).host;
  } catch {
    host = "";
  }
  return (
    <div className="external-answer">
      <button type="button" className="big primary" onClick={() => onOpen(href)} aria-keyshortcuts="o">
        Open in browser <kbd>o</kbd>
      </button>
      <p className="muted">Opens {host}. The answer arrives here by itself once you finish there.</p>
      {opened && (
        <p className="waiting" role="status">
          <span className="spinner" aria-hidden="true">
            ◌
          </span>{" "}
          Waiting for {host} to send the answer…
        </p>
      )}
    </div>
  );
}
