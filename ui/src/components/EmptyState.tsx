export function EmptyState({ hint }: { hint: string | null }) {
  return (
    <div className="empty">
      <p className="empty-mark" aria-hidden="true">
        ✓
      </p>
      <h2>Nothing waiting</h2>
      <p className="muted">Questions from your agents appear here as they ask them.</p>
      {hint && (
        <>
          <p className="muted">Ask a test question from a terminal:</p>
          <pre className="hint">
            <code>{hint}</code>
          </pre>
        </>
      )}
    </div>
  );
}
