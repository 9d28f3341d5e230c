// Every url that reaches the DOM passes through here first. The server validates media at ask
// time, but the window re-checks at render so that a bad record can never become a script
// url, an http: fetch, or a request to an unexpected origin.

/** Same-origin media the deployment serves by id (fetched by the backend with the token). */
const MEDIA_REF = /^\/api\/interactions\/media\/[A-Za-z0-9_-]{1,200}$/;
/** An inline picture. `data:` on anything but an image is refused. */
const DATA_IMAGE = /^data:image\/[a-z0-9.+-]+(;[a-z0-9.+=-]+)*,[A-Za-z0-9+/=%._~:;,!*'()-]*$/i;
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f]/;

export type ImageSource =
  | { kind: "inline"; url: string }
  | { kind: "media"; url: string }
  | { kind: "remote"; url: string };

export type FileSource = { kind: "media"; url: string } | { kind: "remote"; url: string };

function absolute(url: string, protocols: string[]): string | null {
  if (CONTROL_OR_SPACE.test(url)) return null;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  if (!scheme || !protocols.includes(scheme[1].toLowerCase() + ":")) return null;
  try {
    const parsed = new URL(url);
    if (!protocols.includes(parsed.protocol) || !parsed.hostname) return null;
    return parsed.href;
  } catch {
    return null;
  }
}

export function isMediaRef(url: string): boolean {
  return MEDIA_REF.test(url);
}

/** https, a same-origin media reference, or an inline data:image — anything else is not drawn. */
export function imageSource(url: string): ImageSource | null {
  if (isMediaRef(url)) return { kind: "media", url };
  if (DATA_IMAGE.test(url) && !CONTROL_OR_SPACE.test(url)) return { kind: "inline", url };
  const https = absolute(url, ["https:"]);
  return https ? { kind: "remote", url: https } : null;
}

/** A document, video or audio source: https or a same-origin media reference. */
export function fileSource(url: string): FileSource | null {
  if (isMediaRef(url)) return { kind: "media", url };
  const https = absolute(url, ["https:"]);
  return https ? { kind: "remote", url: https } : null;
}

/** A link's target: an absolute http(s) url. */
export function linkHref(url: string): string | null {
  return absolute(url, ["http:", "https:"]);
}

/** What the backend's load_media returns must itself be an inline picture before it is drawn. */
export function isInlineImage(url: string): boolean {
  return DATA_IMAGE.test(url) && !CONTROL_OR_SPACE.test(url);
}

/** An inline data: URL of a playable media type (for video/audio loaded through the backend). */
export function isInlineMedia(url: string, kind: "video" | "audio"): boolean {
  return new RegExp(`^data:${kind}/[a-z0-9.+-]+(;[a-z0-9.+=-]+)*,`, "i").test(url) && !CONTROL_OR_SPACE.test(url);
}

/** A same-origin media reference resolved against its account's server, for opening in a browser. */
export function resolveMediaRef(accountUrl: string, ref: string): string | null {
  const base = linkHref(accountUrl);
  if (!base || !isMediaRef(ref)) return null;
  return new URL(ref, base).href;
}
