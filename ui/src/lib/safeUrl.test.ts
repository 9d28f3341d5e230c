import { describe, expect, it } from "vitest";
import { fileSource, imageSource, isInlineImage, linkHref, resolveMediaRef } from "./safeUrl";

describe("imageSource", () => {
  it.each([
    ["https://img.example.com/a.png", "remote"],
    ["/api/interactions/media/md_abc-1", "media"],
    ["data:image/png;base64,iVBORw0KGgo=", "inline"],
    ["data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=", "inline"],
  ])("admits %s as %s", (url, kind) => {
    expect(imageSource(url)?.kind).toBe(kind);
  });

  it.each([
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "http://img.example.com/a.png",
    "data:text/html;base64,PHNjcmlwdD4=",
    "data:image/png;base64,AAA\"><script>",
    "//evil.example.com/a.png",
    "/api/interactions/media/../../etc/passwd",
    "/api/interactions/stream",
    "https:/evil",
    "https://",
    "vbscript:msgbox",
    "file:///etc/passwd",
    "https://a.example.com/\u0000x",
  ])("refuses %s", (url) => {
    expect(imageSource(url)).toBeNull();
  });
});

describe("fileSource", () => {
  // Admits https and same-origin media, refuses data: and http: (null: refused).
  it.each([
    ["https://files.example.com/log.pdf", "remote"],
    ["/api/interactions/media/md_1", "media"],
    ["data:application/pdf;base64,AAAA", null],
    ["data:image/png;base64,AAAA", null],
    ["http://files.example.com/log.pdf", null],
    ["javascript:alert(1)", null],
  ])("takes %s as %s", (url, kind) => {
    const src = fileSource(url);
    expect(src === null ? null : src.kind).toBe(kind);
  });
});

describe("linkHref", () => {
  // Admits http and https only (null: refused).
  it.each([
    ["http://example.com/x", "http://example.com/x"],
    ["https://example.com/x?a=1", "https://example.com/x?a=1"],
    ["javascript:alert(1)", null],
    ["javascript://example.com/%0aalert(1)", null],
    ["data:text/html,hi", null],
    ["mailto:a@example.com", null],
    ["/relative", null],
  ])("takes %s as %s", (url, href) => {
    expect(linkHref(url)).toBe(href);
  });
});

describe("backend results and media references", () => {
  // Draws only inline pictures from load_media.
  it.each([
    ["data:image/png;base64,AAAA", true],
    ["data:text/html;base64,AAAA", false],
    ["https://example.com/a.png", false],
  ])("isInlineImage(%s) is %s", (data, inline) => {
    expect(isInlineImage(data)).toBe(inline);
  });

  // Resolves a media reference against its account.
  it.each([
    ["https://inbox.example.com", "/api/interactions/media/md_1", "https://inbox.example.com/api/interactions/media/md_1"],
    ["javascript:alert(1)", "/api/interactions/media/md_1", null],
  ])("resolves against %s: %s as %s", (base, ref, url) => {
    expect(resolveMediaRef(base, ref)).toBe(url);
  });
});
