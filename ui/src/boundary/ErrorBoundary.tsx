import { Component, type ErrorInfo, type ReactNode } from "react";
import { shortReason } from "./renderFailures";

type Props = {
  /** What this boundary guards, for the log: "question", "row", "media", "form", "field". */
  unit: string;
  /** Which question the content belongs to (the log names it; the content itself is never logged). */
  subject: string;
  /** What to draw instead, given the short reason. */
  fallback: (reason: string) => ReactNode;
  /** Told once per failure (the window marks the question). */
  onFailure?: (reason: string) => void;
  children: ReactNode;
};

type State = { reason: string | null };

// Each failure is logged once per unit and question, however often the fallback re-renders or the
// question is reopened in this session.
const logged = new Set<string>();

/**
 * Keeps a failure to draw asker-supplied content inside the unit that drew it. Without one, React
 * unmounts the whole tree on a render error — the window goes blank, sidebar and status bar too.
 * Give it a `key` per question so that opening another question starts it afresh.
 */
export class ErrorBoundary extends Component<Props, State> {
  state: State = { reason: null };

  static getDerivedStateFromError(error: unknown): State {
    return { reason: shortReason(error) };
  }

  componentDidCatch(error: unknown, info: ErrorInfo): void {
    const reason = shortReason(error);
    const tag = `${this.props.unit}\u0000${this.props.subject}`;
    if (!logged.has(tag)) {
      logged.add(tag);
      // The reason and where in the components it broke; never the prompt, schema or values.
      const where = (info.componentStack ?? "").trim().split("\n").slice(0, 3).map((l) => l.trim()).join(" < ");
      console.error(`[inbox] ${this.props.unit} of question ${this.props.subject} could not be displayed: ${reason}${where ? ` (in ${where})` : ""}`);
    }
    this.props.onFailure?.(reason);
  }

  render(): ReactNode {
    return this.state.reason === null ? this.props.children : this.props.fallback(this.state.reason);
  }
}
