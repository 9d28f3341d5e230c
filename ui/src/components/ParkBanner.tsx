import type { ReactNode } from "react";
import { parkSettled, type ParkGroup } from "../state/inbox";

/** "3 from deploy-bot · run r-17" — who parked, and which run waits. */
export function parkTitle(g: ParkGroup): string {
  return `${g.size} from ${g.asker}${g.run ? ` · run ${g.run}` : ""}`;
}

/** "1 of 3 answered — the run resumes when all are answered", or that it resumes now. */
export function parkProgress(g: ParkGroup): string {
  const expired = g.expired > 0 ? ` · ${g.expired} expired` : "";
  const tail = parkSettled(g) ? "all resolved — the run resumes" : "the run resumes when all are answered";
  return `${g.answered} of ${g.size} answered${expired} — ${tail}`;
}

type Props = {
  park: ParkGroup;
  /** Compact, for the list's group header; the pane shows the full banner. */
  compact?: boolean;
  /** Shown above the summary: what the run said before parking (an agent's message, a tool call). */
  lead?: ReactNode;
  /** The open question's place in the park, from 0 (the pane says "question 2 of 3"). */
  current?: number;
};

/**
 * A park of several questions as one group: who parked, which run waits, how far the answers
 * have come. Used as the list's group header and above the open question.
 */
export function ParkBanner({ park, compact, lead, current }: Props) {
  const label = `${parkTitle(park)} · ${parkProgress(park)}`;
  if (compact) {
    return (
      <div className="park-row" role="presentation" title={label} data-park={park.key}>
        <span className="park-title">{parkTitle(park)}</span>
        <span className="park-progress">
          {park.answered} of {park.size} answered
        </span>
      </div>
    );
  }
  return (
    <section className="park-banner" aria-label="Park" data-park={park.key}>
      {lead}
      <p className="park-summary">
        <span className="park-title">{parkTitle(park)}</span>
        {" · "}
        <span className="park-progress">{parkProgress(park)}</span>
      </p>
      {current !== undefined && (
        <p className="muted park-position">
          Question {current + 1} of {park.size}
        </p>
      )}
    </section>
  );
}
