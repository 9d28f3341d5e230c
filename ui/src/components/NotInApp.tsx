// What the shipped window shows when it is opened outside the desktop app (say ui/dist in a
// browser): there is no backend to talk to, so it says so instead of showing any inbox.
export function NotInApp() {
  return (
    <div className="empty" role="alert">
      <h2>Not running inside Interactions Inbox</h2>
      <p className="muted">This page is the desktop app&apos;s window and works only inside the app.</p>
      <p className="muted">Start the app (inbox-desktop) to see your questions.</p>
    </div>
  );
}
