import { act, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { card, interaction } from "../backend/demoData";
import type { MediaItem } from "../backend/types";
import { lastCall, pane, renderApp } from "../test/render";

const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function withMedia(media: MediaItem[], extra = {}) {
  return card("acme", interaction({ id: "ia_m", prompt: "Look at this", answer_format: "confirm", asker: "design-agent", media, ...extra }));
}

const attachments = () => within(pane().getByRole("group", { name: "Attachments" }));

describe("media on a question", () => {
  it("draws an inline data:image directly, with the caption as alt text", async () => {
    await renderApp([withMedia([{ kind: "image", url: PNG, caption: "A pixel", filename: null }])]);
    const img = attachments().getByRole("img", { name: "A pixel" });
    expect(img).toHaveAttribute("src", PNG);
  });

  it("loads a same-origin media reference through the backend", async () => {
    const { backend } = await renderApp([withMedia([{ kind: "image", url: "/api/interactions/media/md_1", caption: "Home", filename: null }])], {
      media: { "/api/interactions/media/md_1": PNG },
    });
    const img = await attachments().findByRole("img", { name: "Home" });
    expect(img).toHaveAttribute("src", PNG);
    expect(lastCall(backend, "load_media")).toEqual({ account: "acme", url: "/api/interactions/media/md_1" });
  });

  it("does not draw what load_media returns unless it is an inline picture", async () => {
    await renderApp([withMedia([{ kind: "image", url: "/api/interactions/media/md_1", caption: "Home", filename: null }])], {
      media: { "/api/interactions/media/md_1": "javascript:alert(1)" },
    });
    await waitFor(() => expect(attachments().getByText(/Image unavailable/)).toBeInTheDocument());
    expect(pane().queryByRole("img")).toBeNull();
  });

  it("keeps remote images behind a choice, then loads them through the backend, never from the window", async () => {
    const remote = "https://img.example.com/a.png";
    const { backend, user } = await renderApp([withMedia([{ kind: "image", url: remote, caption: "Remote one", filename: null }])], {
      media: { [remote]: PNG },
    });
    expect(pane().queryByRole("img")).toBeNull();
    expect(pane().getByText(/1 remote attachment is not loaded/)).toBeInTheDocument();
    expect(lastCall(backend, "load_media")).toBeUndefined();
    await user.click(pane().getByRole("button", { name: "Load remote media" }));
    expect(lastCall(backend, "allow_remote_images")).toEqual({ account: "acme", id: "ia_m" });
    const img = await attachments().findByRole("img", { name: "Remote one" });
    // The bytes the backend fetched, as a data: URL — the remote address never reaches the DOM.
    expect(img).toHaveAttribute("src", PNG);
    expect(lastCall(backend, "load_media")).toEqual({ account: "acme", url: remote });
    expect(document.querySelector('[src^="https:"]')).toBeNull();
    expect(pane().queryByText(/remote attachment/)).toBeNull();
  });

  it("remembers 'always from this sender'", async () => {
    const remote = "https://img.example.com/a.png";
    const { backend, user } = await renderApp([withMedia([{ kind: "image", url: remote, caption: "R", filename: null }])], { media: { [remote]: PNG } });
    await user.click(pane().getByRole("button", { name: "Always from design-agent" }));
    expect(lastCall(backend, "allow_remote_images")).toEqual({ account: "acme", sender: "design-agent" });
    expect(await attachments().findByRole("img", { name: "R" })).toHaveAttribute("src", PNG);
  });

  it("does not draw a remote image whose fetched body is not a picture", async () => {
    const remote = "https://img.example.com/a.png";
    const { user } = await renderApp([withMedia([{ kind: "image", url: remote, caption: "R", filename: null }])], {
      media: { [remote]: "data:text/html;base64,PHNjcmlwdD4=" },
    });
    await user.click(pane().getByRole("button", { name: "Load remote media" }));
    await waitFor(() => expect(attachments().getByText(/Image unavailable/)).toBeInTheDocument());
    expect(pane().queryByRole("img")).toBeNull();
  });

  it("keeps remote video and audio behind the same choice, loaded only when played", async () => {
    const video = "https://media.example.com/w.mp4";
    const audio = "https://media.example.com/v.ogg";
    const { backend, user } = await renderApp(
      [
        withMedia([
          { kind: "video", url: video, caption: "Walkthrough", filename: null },
          { kind: "audio", url: audio, caption: "Voice", filename: null },
        ]),
      ],
      { media: { [video]: "data:video/mp4;base64,AAAA", [audio]: "data:audio/ogg;base64,T2dnUw==" } },
    );
    expect(pane().getByText(/2 remote attachments are not loaded/)).toBeInTheDocument();
    const play = attachments().getByRole("button", { name: "Load video Walkthrough" });
    expect(play).toBeDisabled();
    expect(attachments().getByRole("button", { name: "Load audio Voice" })).toBeDisabled();
    await user.click(play);
    expect(lastCall(backend, "load_media")).toBeUndefined();
    expect(document.querySelector("video, audio")).toBeNull();

    await user.click(pane().getByRole("button", { name: "Load remote media" }));
    // Allowed, but still nothing is fetched until the reviewer plays it.
    expect(lastCall(backend, "load_media")).toBeUndefined();
    await user.click(attachments().getByRole("button", { name: "Load video Walkthrough" }));
    const player = await pane().findByLabelText("Walkthrough");
    expect(player.tagName).toBe("VIDEO");
    expect(player).toHaveAttribute("src", "data:video/mp4;base64,AAAA");
    expect(lastCall(backend, "load_media")).toEqual({ account: "acme", url: video });
    expect(document.querySelector('[src^="https:"]')).toBeNull();
  });

  it("the backend itself refuses a remote load nobody allowed", async () => {
    const remote = "https://img.example.com/a.png";
    const { backend } = await renderApp([withMedia([{ kind: "image", url: remote, caption: "R", filename: null }])], { media: { [remote]: PNG } });
    await expect(backend.loadMedia({ account: "acme", url: remote })).rejects.toMatchObject({ code: "remote_images_blocked" });
    await backend.allowRemoteImages({ account: "acme", id: "ia_m" });
    await expect(backend.loadMedia({ account: "acme", url: remote })).resolves.toBe(PNG);
  });

  it.each(["javascript:alert(1)", "http://img.example.com/a.png", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", "vbscript:x", "//evil.example.com/a.png"])(
    "refuses to draw the image url %s",
    async (url) => {
      await renderApp([withMedia([{ kind: "image", url, caption: "bad", filename: null }])]);
      expect(pane().queryByRole("img")).toBeNull();
      expect(pane().getByText("1 attachment is not shown: unsupported address.")).toBeInTheDocument();
      expect(document.body.innerHTML).not.toContain(url.slice(0, 14));
    },
  );

  it("shows a document as a chip with its filename, opened through the backend", async () => {
    const { backend, user } = await renderApp([
      withMedia([
        { kind: "document", url: "/api/interactions/media/md_log", caption: "Build log", filename: "log.pdf" },
        { kind: "document", url: "https://files.example.com/r.pdf", caption: "Report", filename: null },
      ]),
    ]);
    await user.click(attachments().getByRole("button", { name: "Open document log.pdf" }));
    expect(lastCall(backend, "open_external")).toEqual({ url: "https://inbox.work.acme.example/api/interactions/media/md_log" });
    await user.click(attachments().getByRole("button", { name: "Open document Report" }));
    expect(lastCall(backend, "open_external")).toEqual({ url: "https://files.example.com/r.pdf" });
  });

  it("shows same-origin audio as a media element that fetches nothing until played", async () => {
    const { backend, user } = await renderApp(
      [withMedia([{ kind: "audio", url: "/api/interactions/media/md_voice", caption: "Voice note", filename: null }])],
      { media: { "/api/interactions/media/md_voice": "data:audio/ogg;base64,T2dnUw==" } },
    );
    expect(lastCall(backend, "load_media")).toBeUndefined();
    await user.click(attachments().getByRole("button", { name: "Load audio Voice note" }));
    const audio = await pane().findByLabelText("Voice note");
    expect(audio.tagName).toBe("AUDIO");
    expect(audio).toHaveAttribute("src", "data:audio/ogg;base64,T2dnUw==");
  });

  it("shows a link as a labelled anchor opened through the backend", async () => {
    const { backend, user } = await renderApp([withMedia([{ kind: "link", url: "http://runbooks.example.com/deploy", caption: "Runbook", filename: null }])]);
    const link = attachments().getByRole("link", { name: /Runbook/ });
    expect(link).toHaveAttribute("href", "http://runbooks.example.com/deploy");
    expect(link).toHaveAttribute("rel", "noopener noreferrer");
    await user.click(link);
    expect(lastCall(backend, "open_external")).toEqual({ url: "http://runbooks.example.com/deploy" });
  });

  it("refuses a javascript: link and a data: document", async () => {
    await renderApp([
      withMedia([
        { kind: "link", url: "javascript:alert(1)", caption: "Click me", filename: null },
        { kind: "document", url: "data:application/pdf;base64,AAAA", caption: "Doc", filename: "d.pdf" },
        { kind: "video", url: "http://media.example.com/v.mp4", caption: "Vid", filename: null },
      ]),
    ]);
    expect(pane().queryByRole("link")).toBeNull();
    expect(pane().queryByText("Click me")).toBeNull();
    expect(pane().queryByText("d.pdf")).toBeNull();
    expect(pane().queryByLabelText("Vid")).toBeNull();
    expect(pane().getByText("3 attachments are not shown: unsupported address.")).toBeInTheDocument();
  });

  it("keeps media on an answered question", async () => {
    await renderApp(
      [
        withMedia([{ kind: "image", url: PNG, caption: "Still here", filename: null }], {
          status: "answered",
          answer: { value: true, answered_by: "alice", answered_at: new Date().toISOString(), params: null, reason: null },
        }),
      ],
      { view: "answered" },
    );
    expect(attachments().getByRole("img", { name: "Still here" })).toBeInTheDocument();
    expect(pane().getByRole("region", { name: "Answer" })).toHaveTextContent("Answered by alice");
  });

  it("an image opens larger", async () => {
    const { user } = await renderApp([withMedia([{ kind: "image", url: PNG, caption: "Big", filename: null }])]);
    await user.click(attachments().getByRole("button", { name: "Enlarge image: Big" }));
    const dialog = screen.getByRole("dialog", { name: "Image" });
    expect(within(dialog).getByRole("img", { name: "Big" })).toBeInTheDocument();
    await act(async () => within(dialog).getByRole("button", { name: "Close" }).click());
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});
