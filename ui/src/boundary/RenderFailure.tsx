/** The notice a failed unit leaves in its place: shaped (⚠) and worded, not colour alone. */
export function RenderFailure({ id, title, reason }: { id?: string; title: string; reason: string }) {
  return (
    <div className="render-failure" role="alert">
      <strong id={id}>
        <span aria-hidden="true">⚠ </span>
        {title}
      </strong>
      <span className="render-failure-reason">{reason}</span>
    </div>
  );
}
