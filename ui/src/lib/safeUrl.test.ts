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
  it("admits https and same-origin media, refuses data: and http:", () => {
    expect(fileSource("https://files.example.com/log.pdf")?.kind).toBe("remote");
    expect(fileSource("/api/interactions/media/md_1")?.kind).toBe("media");
    expect(fileSource("data:application/pdf;base64,AAAA")).toBeNull();
    expect(fileSource("data:image/png;base64,AAAA")).toBeNull();
    expect(fileSource("http://files.example.com/log.pdf")).toBeNull();
    expect(fileSource("javascript:alert(1)")).toBeNull();
  });
});

describe("linkHref", () => {
  it("admits http and https only", () => {
    expect(linkHref("http://example.com/x")).toBe("http://example.com/x");
    expect(linkHref("https://example.com/x?a=1")).toBe("https://example.com/x?a=1");
    expect(linkHref("javascript:alert(1)")).toBeNull();
    expect(linkHref("javascript://example.com/%0aalert(1)")).toBeNull();
    expect(linkHref("data:text/html,hi")).toBeNull();
    expect(linkHref("mailto:a@example.com")).toBeNull();
    expect(linkHref("/relative")).toBeNull();
  });
});

describe("backend results and media references", () => {
  it("draws only inline pictures from load_media", () => {
    expect(isInlineImage("data:image/png;base64,AAAA")).toBe(true);
    expect(isInlineImage("data:text/html;base64,AAAA")).toBe(false);
    expect(isInlineImage("https://example.com/a.png")).toBe(false);
  });

  it("resolves a media reference against its account", () => {
    expect(resolveMediaRef("https://inbox.example.com", "/api/interactions/media/md_1")).toBe("https://inbox.example.com/api/interactions/media/md_1");
    expect(resolveMediaRef("javascript:alert(1)", "/api/interactions/media/md_1")).toBeNull();
  });
});
