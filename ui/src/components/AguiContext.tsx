import type { AguiQuestion } from "../generated/AguiQuestion";

/**
 * What an AG-UI question carries in `metadata.agui`, read defensively: metadata is whatever the
 * server stored, so every field is checked before it is shown, and shown as plain text only.
 */
export function aguiContext(metadata: Record<string, unknown> | undefined): AguiQuestion | null {
  const raw = metadata?.agui;
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return null;
  const r = raw as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  if (!str(r.interrupt_id)) return null;
  const call = r.tool_call && typeof r.tool_call === "object" ? (r.tool_call as Record<string, unknown>) : null;
  return {
    run_id: str(r.run_id) ?? "",
    interrupt_id: str(r.interrupt_id) ?? "",
    reason: str(r.reason) ?? "",
    tool_call_id: str(r.tool_call_id),
    tool_call: call && str(call.name) !== undefined ? { name: str(call.name) ?? "", arguments: str(call.arguments) ?? "" } : undefined,
    last_message: str(r.last_message),
  };
}

/** A tool call's streamed arguments, indented when they are JSON, else as they came. */
export function prettyArguments(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

/** Above the controls of an AG-UI question: the agent's last message and the tool call it asks about. */
export function AguiContext({ metadata }: { metadata: Record<string, unknown> | undefined }) {
  const ctx = aguiContext(metadata);
  if (!ctx || (!ctx.last_message && !ctx.tool_call)) return null;
  return (
    <section className="agui-context" aria-label="Agent context">
      {ctx.last_message && (
        <>
          <h3 className="agui-heading">The agent said</h3>
          <p className="agui-message">{ctx.last_message}</p>
        </>
      )}
      {ctx.tool_call && (
        <>
          <h3 className="agui-heading">
            Tool call <code>{ctx.tool_call.name}</code>
          </h3>
          <pre className="agui-arguments" aria-label="Tool call arguments">
            {prettyArguments(ctx.tool_call.arguments)}
          </pre>
        </>
      )}
    </section>
  );
}
