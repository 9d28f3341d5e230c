import { useEffect, useState, type ReactNode } from "react";
import { clearOpening, markOpening } from "./renderFailures";

/**
 * Marks `subject` as being drawn until its first commit. If the window dies in between (what no
 * error boundary can catch: the renderer out of memory, a hang the reviewer ends by restarting),
 * the mark survives and the next start knows not to open this question again by itself.
 */
export function RenderWatch({ subject, children }: { subject: string; children: ReactNode }) {
  // Set while rendering, before any child does its work; once per mounted subject.
  useState(() => markOpening(subject));
  useEffect(() => clearOpening(subject), [subject]);
  return <>{children}</>;
}
