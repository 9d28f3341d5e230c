import { useRef, useState } from "react";
import { useBackend } from "../backend/BackendContext";
import type { Account, Card, Delivery } from "../backend/types";
import { useHotkeys, type KeyMap } from "../hooks/useHotkeys";
import { useResolve } from "../hooks/useResolve";
import { useNow } from "../hooks/useNow";
import { absoluteTime, countdown, relativeAge } from "../lib/time";
import { answerable } from "../state/inbox";
import { ErrorBoundary } from "../boundary/ErrorBoundary";
import { FormFallback } from "../boundary/FormFallback";
import { RenderFailure } from "../boundary/RenderFailure";
import { ConfirmAnswer } from "./controls/ConfirmAnswer";
import { ExternalAnswer } from "./controls/ExternalAnswer";
import { FormAnswer } from "./controls/LazyFormAnswer";
import { SelectAnswer } from "./controls/SelectAnswer";
import { TextAnswer } from "./controls/TextAnswer";
import { AguiContext } from "./AguiContext";
import { DeclineControl } from "./DeclineControl";
import { DeliveryNote } from "./DeliveryNote";
import { MediaBubbles } from "./MediaBubbles";
import { Resolution } from "./Resolution";
import { FormError } from "./FormError";

type Props = {
  card: Card;
  account: Account | undefined;
  remoteAllowed: boolean;
  onAllowRemote: (scope: "question" | "sender") => void;
  /** The reviewer's answer or decline left the window (accepted or queued). */
  onResolved: (delivery: Delivery, summary: string) => void;
  /** Shortcuts are off while an overlay is open. */
  keysEnabled: boolean;
  /** A part of this question (its media, its form) failed to draw; the window marks the question. */
  onFailure: (reason: string) => void;
};

/** The open question: who asks, what, its media, and the controls to answer or decline it. */
export function QuestionView({ card, account, remoteAllowed, onAllowRemote, onResolved, keysEnabled, onFailure }: Props) {
  const backend = useBackend();
  const i = card.interaction;
  const now = useNow();
  const { busy, error, answer, openDecline, decline } = useResolve(card, onResolved);
  const [text, setText] = useState("");
  const [externalOpened, setExternalOpened] = useState(false);
  const [copied, setCopied] = useState(false);
  const textRef = useRef<HTMLTextAreaElement>(null);
  const accountLabel = account?.label ?? card.account;
  const open = answerable(card);
  const left = i.status === "pending" ? countdown(i.expires_at, now) : null;
  const fieldId = `answer_${i.id.replace(/[^A-Za-z0-9_]/g, "_")}`;

  const openExternal = (url: string) => {
    setExternalOpened(true);
    void backend.openExternal(url);
  };

  const keys: KeyMap = { d: openDecline };
  if (i.answer_format === "confirm") {
    keys.y = () => void answer(true, "Yes");
    keys.n = () => void answer(false, "No");
  }
  if (i.answer_format === "select" || i.answer_format === "text") {
    i.options.slice(0, 9).forEach((o, n) => {
      keys[String(n + 1)] = () => {
        // A text question's suggested reply is sent as typed, like a select's option.
        if (i.answer_format === "select") void answer(o.value, o.label ?? o.value);
        else void answer(o.value, o.value);
      };
    });
  }
  if (i.answer_format === "external" && i.link) keys.o = () => void openExternal(i.link as string);
  useHotkeys(keys, keysEnabled && open && !busy && !decline.open);

  const copy = () => {
    void navigator.clipboard?.writeText(i.prompt).then(() => setCopied(true));
  };

  return (
    <article className="question" aria-labelledby={`${fieldId}_prompt`}>
      <header className="question-head">
        <span className="asker">{i.asker}</span>
        <span title={absoluteTime(i.created_at)}> · {relativeAge(i.created_at, now)}</span>
        {left && (
          <span className="countdown" title={i.expires_at ? `Expires ${absoluteTime(i.expires_at)}` : undefined}>
            {" · "}◷ expires in {left}
          </span>
        )}
        <span className="muted"> · {accountLabel}</span>
      </header>

      <div className="prompt-row">
        <p className="prompt" id={`${fieldId}_prompt`}>
          {i.prompt}
        </p>
        <button type="button" className="quiet copy" onClick={copy} aria-label="Copy question text">
          {copied ? "Copied" : "Copy"}
        </button>
      </div>

      <details className="meta">
        <summary>Details</summary>
        <dl>
          <dt>Id</dt>
          <dd>{i.id}</dd>
          <dt>Format</dt>
          <dd>{i.answer_format}</dd>
          <dt>Mode</dt>
          <dd>{i.mode}</dd>
          <dt>Asked</dt>
          <dd>{absoluteTime(i.created_at)}</dd>
          {i.expires_at && (
            <>
              <dt>Expires</dt>
              <dd>{absoluteTime(i.expires_at)}</dd>
            </>
          )}
          {Object.entries(i.metadata ?? {}).map(([k, v]) => (
            <div key={k} className="meta-entry">
              <dt>{k}</dt>
              <dd>{typeof v === "string" ? v : JSON.stringify(v)}</dd>
            </div>
          ))}
        </dl>
      </details>

      <ErrorBoundary
        unit="media"
        subject={`${card.account}/${i.id}`}
        onFailure={onFailure}
        fallback={(reason) => <RenderFailure title="The media of this question could not be displayed" reason={reason} />}
      >
        <MediaBubbles
          media={i.media}
          account={account}
          asker={i.asker}
          questionId={i.id}
          remoteAllowed={remoteAllowed}
          onAllowRemote={onAllowRemote}
        />
      </ErrorBoundary>

      <AguiContext metadata={i.metadata} />

      <Resolution card={card} now={now} />
      <DeliveryNote card={card} accountLabel={accountLabel} now={now} />

      <FormError message={error} />

      {open && (
        <div className="controls">
          {i.answer_format === "confirm" && <ConfirmAnswer busy={busy} onAnswer={(v) => void answer(v, v ? "Yes" : "No")} />}
          {i.answer_format === "select" && (
            <SelectAnswer options={i.options} busy={busy} onAnswer={(v) => void answer(v, i.options.find((o) => o.value === v)?.label ?? v)} />
          )}
          {i.answer_format === "text" && (
            <TextAnswer
              suggestions={i.options}
              value={text}
              onChange={setText}
              busy={busy}
              onAnswer={(t) => void answer(t, t)}
              inputRef={textRef}
              fieldId={fieldId}
            />
          )}
          {i.answer_format === "form" && (
            <ErrorBoundary
              unit="form"
              subject={`${card.account}/${i.id}`}
              onFailure={onFailure}
              fallback={(reason) => <FormFallback reason={reason} schema={i.schema} busy={busy} onAnswer={(v) => answer(v, "Form submitted")} />}
            >
              <FormAnswer interaction={i} busy={busy} onAnswer={(v) => answer(v, "Form submitted")} />
            </ErrorBoundary>
          )}
          {i.answer_format === "external" && <ExternalAnswer link={i.link} expiresAt={i.expires_at} now={now} opened={externalOpened} onOpen={openExternal} />}

          <DeclineControl fieldId={fieldId} {...decline} />
        </div>
      )}
    </article>
  );
}
