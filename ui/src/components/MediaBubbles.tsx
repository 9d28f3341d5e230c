import { useEffect, useState } from "react";
import { useBackend } from "../backend/BackendContext";
import type { Account, MediaItem } from "../backend/types";
import { fileSource, imageSource, isInlineImage, isInlineMedia, linkHref, resolveMediaRef, type ImageSource } from "../lib/safeUrl";

type Props = {
  media: MediaItem[];
  account: Account | undefined;
  asker: string;
  questionId: string;
  remoteAllowed: boolean;
  onAllowRemote: (scope: "question" | "sender") => void;
};

/**
 * The question's media, above its answer controls. Display-only. Every url is re-checked here
 * (see lib/safeUrl); an item whose url fails the check is not drawn at all.
 *
 * Remote (https) images, video and audio wait for the reviewer's consent, per question or per
 * sender: loading tells the host the reader's address. Even then the window never fetches them
 * itself (the CSP admits no remote host): the backend does, under its SSRF guard, and hands
 * back a data: URL that is drawn only if it is of the expected kind.
 */
export function MediaBubbles({ media, account, asker, questionId, remoteAllowed, onAllowRemote }: Props) {
  const backend = useBackend();
  const [enlarged, setEnlarged] = useState<{ src: string; alt: string } | null>(null);
  if (media.length === 0) return null;
  const accountId = account?.id ?? "";
  let refused = 0;
  let remoteWaiting = 0;
  // An item's checked address, or null (counted as not shown); a remote one that is drawn in the
  // window (a picture, a player) counts as waiting while remote media is not allowed.
  const checked = <S,>(src: S | null, drawnRemote: (src: S) => boolean = () => false): S | null => {
    if (!src) refused++;
    else if (drawnRemote(src) && !remoteAllowed) remoteWaiting++;
    return src;
  };
  const isRemote = (src: { kind: string }) => src.kind === "remote";
  const bubbles = media.map((item, n) => {
    const key = `${n}`;
    switch (item.kind) {
      case "image": {
        const src = checked(imageSource(item.url), isRemote);
        return (
          src && <ImageBubble key={key} source={src} caption={item.caption} account={accountId} remoteAllowed={remoteAllowed} onOpen={setEnlarged} />
        );
      }
      case "document": {
        const src = checked(fileSource(item.url));
        if (!src) return null;
        const target = src.kind === "remote" ? src.url : account ? resolveMediaRef(account.url, src.url) : null;
        const name = item.filename ?? item.caption ?? "Document";
        return (
          <button
            key={key}
            type="button"
            className="bubble file-chip"
            disabled={!target}
            onClick={() => target && void backend.openExternal(target)}
            aria-label={`Open document ${name}`}
          >
            <span className="file-icon" aria-hidden="true">
              ▤
            </span>
            <span className="file-name">{name}</span>
            {item.caption && item.filename && <span className="file-caption">{item.caption}</span>}
          </button>
        );
      }
      case "video":
      case "audio": {
        const src = checked(fileSource(item.url), isRemote);
        return src && <PlayableBubble key={key} kind={item.kind} source={src} caption={item.caption} account={accountId} remoteAllowed={remoteAllowed} />;
      }
      case "link": {
        const href = checked(linkHref(item.url));
        if (!href) return null;
        return (
          <a
            key={key}
            className="bubble link-chip"
            href={href}
            target="_blank"
            rel="noopener noreferrer"
            onClick={(e) => {
              e.preventDefault();
              void backend.openExternal(href);
            }}
          >
            <span aria-hidden="true">↗ </span>
            {item.caption ?? href}
          </a>
        );
      }
      default:
        refused++;
        return null;
    }
  });

  return (
    <div className="media" aria-label="Attachments" role="group">
      {remoteWaiting > 0 && (
        <div className="remote-choice" role="note">
          <span>
            {remoteWaiting === 1 ? "1 remote attachment is" : `${remoteWaiting} remote attachments are`} not loaded (loading tells its host your
            address).
          </span>
          <button type="button" className="quiet" onClick={() => onAllowRemote("question")}>
            Load remote media
          </button>
          <button type="button" className="quiet" onClick={() => onAllowRemote("sender")}>
            Always from {asker}
          </button>
        </div>
      )}
      <div className="bubbles" data-question={questionId}>
        {bubbles}
      </div>
      {refused > 0 && (
        <p className="media-refused">
          {refused === 1 ? "1 attachment is" : `${refused} attachments are`} not shown: unsupported address.
        </p>
      )}
      {enlarged && (
        <div className="lightbox" role="dialog" aria-modal="true" aria-label="Image" onClick={() => setEnlarged(null)}>
          <img src={enlarged.src} alt={enlarged.alt} />
          <button type="button" className="quiet" autoFocus onClick={() => setEnlarged(null)}>
            Close
          </button>
        </div>
      )}
    </div>
  );
}

function ImageBubble(props: {
  source: ImageSource;
  caption: string | null;
  account: string;
  remoteAllowed: boolean;
  onOpen: (img: { src: string; alt: string }) => void;
}) {
  const { source, caption, account, remoteAllowed, onOpen } = props;
  const backend = useBackend();
  const [loaded, setLoaded] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  // Same-origin media at once; remote media only once allowed (and then through the backend too).
  const fetched = source.kind === "media" || (source.kind === "remote" && remoteAllowed);
  useEffect(() => {
    if (!fetched) return;
    let live = true;
    setLoaded(null);
    setFailed(false);
    backend.loadMedia({ account, url: source.url }).then(
      (data) => {
        if (!live) return;
        // What comes back is drawn only if it is itself an inline picture.
        if (isInlineImage(data)) setLoaded(data);
        else setFailed(true);
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [fetched, source.url, account, backend]);

  const alt = caption ?? "";
  // A revoked allowance hides what was loaded under it at once.
  const src = source.kind === "inline" ? source.url : fetched ? loaded : null;

  if (!src) {
    const note = failed ? "Image unavailable" : fetched ? "Loading image…" : "Remote image";
    return (
      <figure className="bubble image-bubble placeholder">
        <span className="placeholder-box" aria-hidden="true">
          ▨
        </span>
        <figcaption>
          {caption ?? "Image"}
          <span className="muted"> · {note}</span>
        </figcaption>
      </figure>
    );
  }
  return (
    <figure className="bubble image-bubble">
      <button type="button" className="thumb" onClick={() => onOpen({ src: src as string, alt })} aria-label={`Enlarge image${caption ? `: ${caption}` : ""}`}>
        <img src={src} alt={alt} referrerPolicy="no-referrer" loading="lazy" />
      </button>
      {caption && <figcaption>{caption}</figcaption>}
    </figure>
  );
}

function PlayableBubble(props: {
  kind: "video" | "audio";
  source: { kind: "media" | "remote"; url: string };
  caption: string | null;
  account: string;
  remoteAllowed: boolean;
}) {
  const { kind, source, caption, account, remoteAllowed } = props;
  const backend = useBackend();
  const [data, setData] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const label = caption ?? (kind === "video" ? "Video" : "Audio");
  // Nothing is fetched until played; remote media not before it is allowed either.
  const waiting = source.kind === "remote" && !remoteAllowed;
  const src = data;
  if (!src) {
    return (
      <button
        type="button"
        className="bubble file-chip"
        aria-label={`Load ${kind} ${label}`}
        disabled={waiting}
        onClick={() =>
          backend.loadMedia({ account, url: source.url }).then(
            (d) => (isInlineMedia(d, kind) ? setData(d) : setFailed(true)),
            () => setFailed(true),
          )
        }
      >
        <span className="file-icon" aria-hidden="true">
          {kind === "video" ? "▶" : "♪"}
        </span>
        <span className="file-name">{label}</span>
        <span className="file-caption">{failed ? "unavailable" : waiting ? `remote ${kind}, not loaded` : `load ${kind}`}</span>
      </button>
    );
  }
  return (
    <figure className={`bubble ${kind}-bubble`}>
      {kind === "video" ? (
        <video src={src} controls preload="none" aria-label={label} />
      ) : (
        <audio src={src} controls preload="none" aria-label={label} />
      )}
      <figcaption>{label}</figcaption>
    </figure>
  );
}
