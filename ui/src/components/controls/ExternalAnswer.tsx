import { linkHref } from "../../lib/safeUrl";
import { absoluteTime, countdown } from "../../lib/time";

type Props = {
  link: string | null;
  /** When the question stops mattering; the outside answer must arrive before then. */
  expiresAt: string | null;
  now: number;
  opened: boolean;
  onOpen: (url: string) => void;
};

/**
 * The person acts elsewhere (signs, approves, pays) and the outside system answers through the
 * server's callback door — never from here, so there are no answer controls: only the link,
 * the waiting state and the deadline. Declining stays possible beside this.
 */
export function ExternalAnswer({ link, expiresAt, now, opened, onOpen }: Props) {
  const href = link ? linkHref(link) : null;
  let host = "";
  try {
    host = href ? new URL(href).host : "";
  } catch {
    host = "";
  }
  const left = countdown(expiresAt, now);
  return (
    <div className="external-answer">
      {href ? (
        <button type="button" className="big primary" onClick={() => onOpen(href)} aria-keyshortcuts="o">
          Open in browser <kbd>o</kbd>
        </button>
      ) : (
        <p className="muted">This question has no usable link to act on.</p>
      )}
      <p className="waiting" role="status">
        <span className="spinner" aria-hidden="true">
          ◌
        </span>{" "}
        {opened && host ? `Waiting for ${host} to send the answer…` : "Waiting for the outside answer."}
      </p>
      <p className="muted">
        {host ? `The answer is given at ${host} and arrives here by itself.` : "The answer arrives here by itself."}{" "}
        {expiresAt ? (
          <span className="deadline">
            Deadline: <time dateTime={expiresAt}>{absoluteTime(expiresAt)}</time>
            {left && ` (in ${left})`}.
          </span>
        ) : (
          <span className="deadline">No deadline.</span>
        )}
      </p>
    </div>
  );
}
