import { samplePicture } from "./fakeBackend";
import { pendingQuestion } from "../state/pendingQuestion";
import type { Account, Card, ChoiceOption, Interaction } from "./types";

/** Demo inbox for `npm run dev`, the screenshots and many tests. Times are relative to `now`. */
export const demoAccounts: Account[] = [
  { id: "local", label: "Local", url: "http://127.0.0.1:8790", local: true },
  { id: "acme", label: "work.acme", url: "https://inbox.work.acme.example", local: false },
];

export function interaction(partial: Partial<Interaction> & Pick<Interaction, "id" | "prompt" | "answer_format">): Interaction {
  return pendingQuestion({ kind: "question", asker: "agent", created_at: new Date().toISOString(), ...partial });
}

export function card(account: string, i: Interaction, extra: Partial<Card> = {}): Card {
  return { account, interaction: i, unread: false, delivery: null, outgoing: null, expired_locally: false, ...extra };
}

/** Choice options from `[value, label]` pairs; a label of `null` shows the value itself. */
export const choices = (...pairs: [string, string | null][]): ChoiceOption[] => pairs.map(([value, label]) => ({ value, label }));

const ago = (now: number, s: number) => new Date(now - s * 1000).toISOString();
const ahead = (now: number, s: number) => new Date(now + s * 1000).toISOString();

export const releaseFormSchema = {
  type: "object",
  title: "Release",
  required: ["count", "date", "owner"],
  properties: {
    count: { type: "integer", title: "Instances", minimum: 1, maximum: 50 },
    date: { type: "string", title: "Release date", enum: ["2026-12-01", "2026-12-02"] },
    channel: { type: "string", title: "Channel", enum: ["stable", "beta"], default: "stable" },
    owner: {
      type: "object",
      title: "Owner",
      required: ["name", "email"],
      properties: {
        name: { type: "string", title: "Name", minLength: 1 },
        email: { type: "string", title: "Email", format: "email" },
      },
    },
    tags: { type: "array", title: "Tags", items: { type: "string", title: "Tag" } },
    rollback: {
      title: "Rollback plan",
      oneOf: [
        { type: "string", title: "Automatic", const: "auto" },
        { type: "string", title: "Manual", const: "manual" },
      ],
    },
  },
};

/** The release form as a question sends it: a prefilled count, dates offered by label, two pages. */
export const releaseForm: Pick<Interaction, "answer_format" | "asker" | "schema" | "data" | "pages"> = {
  answer_format: "form",
  asker: "release-bot",
  schema: releaseFormSchema,
  data: {
    values: { count: 3 },
    options: {
      date: choices(["2026-12-01", "Monday 1 December"], ["2026-12-02", "Tuesday 2 December"]),
    },
  },
  pages: [
    { title: "Basics", fields: ["count", "date", "channel"] },
    { title: "Owner", fields: ["owner", "tags", "rollback"] },
  ],
};

export function demoCards(now = Date.now()): Card[] {
  return [
    card(
      "acme",
      interaction({
        id: "ia_deploy42",
        prompt: "Deploy build 42 to production?\n\nChanges since 41:\n  • faster cold start\n  • fixes the EU timezone bug",
        answer_format: "confirm",
        asker: "deploy-bot",
        created_at: ago(now, 120),
        expires_at: ahead(now, 299),
        media: [
          { kind: "image", url: samplePicture("#3b7a57", "diff.png"), caption: "Diff of build 42 against 41", filename: null },
          { kind: "document", url: "/api/interactions/media/md_log42", caption: "Build log", filename: "log.pdf" },
          { kind: "link", url: "https://runbooks.example.com/deploy", caption: "Runbook", filename: null },
        ],
        metadata: { run_id: "run_8f2a", tool_call_id: "call_17", reason: "release train" },
      }),
      { unread: true },
    ),
    card(
      "acme",
      interaction({
        id: "ia_region",
        prompt: "Which region for the new database?",
        answer_format: "select",
        asker: "infra-agent",
        created_at: ago(now, 300),
        options: choices(["eu-west-1", "Europe (Ireland)"], ["us-east-1", "US East (Virginia)"], ["ap-southeast-2", "Asia Pacific (Sydney)"]),
      }),
      { unread: true },
    ),
    card(
      "local",
      interaction({
        id: "ia_release",
        prompt: "Fill in the release form for 3.2.",
        ...releaseForm,
        created_at: ago(now, 720),
      }),
    ),
    card(
      "local",
      interaction({
        id: "ia_nightly",
        prompt: "The nightly failed on step 3 (integration tests).\nShould I retry or file an issue?",
        answer_format: "text",
        asker: "ci-agent",
        created_at: ago(now, 1500),
        options: choices(["Retry once, then file an issue.", null], ["File an issue and skip tonight.", null]),
      }),
    ),
    card(
      "acme",
      interaction({
        id: "ia_contract",
        prompt: "Sign the vendor contract for the new CDN.",
        answer_format: "external",
        asker: "procurement-bot",
        created_at: ago(now, 3600),
        link: "https://sign.example.com/envelope/7781?cb=https%3A%2F%2Finbox.work.acme.example%2Fapi%2Finteractions%2Fcallback%2Ftk_1",
        expires_at: ahead(now, 86400),
        mode: "async",
      }),
    ),
    card(
      "local",
      interaction({
        id: "ia_screens",
        prompt: "Do these screenshots match the new design?",
        answer_format: "confirm",
        asker: "design-agent",
        created_at: ago(now, 5400),
        media: [
          { kind: "image", url: "/api/interactions/media/md_home", caption: "Home screen", filename: null },
          { kind: "image", url: "https://images.example.com/settings.png", caption: "Settings screen (remote)", filename: null },
          { kind: "video", url: "https://media.example.com/walkthrough.mp4", caption: "Walkthrough", filename: null },
          { kind: "audio", url: "/api/interactions/media/md_voice", caption: "Voice note", filename: null },
          { kind: "link", url: "https://design.example.com/spec", caption: "Design spec", filename: null },
        ],
      }),
    ),
    card(
      "acme",
      interaction({
        id: "ia_rotate",
        prompt: "Rotate the staging API keys now?",
        answer_format: "confirm",
        asker: "security-bot",
        created_at: ago(now, 7200),
        status: "answered",
        answer: { value: true, answered_by: "alice", answered_at: ago(now, 7000), params: null, reason: null },
      }),
      { delivery: { state: "accepted" } },
    ),
    card(
      "local",
      interaction({
        id: "ia_cache",
        prompt: "Purge the CDN cache for /docs?",
        answer_format: "confirm",
        asker: "docs-bot",
        created_at: ago(now, 9000),
      }),
      { delivery: { state: "queued" }, outgoing: { kind: "answer", value: false } },
    ),
    card(
      "acme",
      interaction({
        id: "ia_db_size",
        prompt: "Which instance size for the reporting DB?",
        answer_format: "select",
        asker: "infra-agent",
        created_at: ago(now, 86400),
        expires_at: ago(now, 82800),
        status: "expired",
        options: choices(["small", "Small"], ["large", "Large"]),
      }),
    ),
    ...demoPark(now),
  ];
}

/** A park of three async questions run r-17 is waiting on, one already answered (as `--demo` parks). */
export function demoPark(now = Date.now()): Card[] {
  const parked = (index: number, partial: Partial<Interaction> & Pick<Interaction, "prompt" | "answer_format">) =>
    card(
      "local",
      interaction({
        id: `ia_park_r17_${index}`,
        asker: "deploy-bot",
        mode: "async",
        created_at: ago(now, 1800),
        park_id: "pk_demo_r17",
        park: { size: 3, index, run: "r-17" },
        metadata: { run_id: "r-17" },
        ...partial,
      }),
    );
  return [
    parked(0, {
      prompt: "Approve the schema migration for run r-17?",
      answer_format: "confirm",
      expires_at: ahead(now, 2700),
      status: "answered",
      answer: { value: true, answered_by: "alice", answered_at: ago(now, 600), params: null, reason: null },
    }),
    parked(1, {
      prompt: "Which maintenance window should the migration use?",
      answer_format: "select",
      expires_at: ahead(now, 10800),
      options: choices(["tonight", "Tonight, 22:00"], ["weekend", "Saturday morning"]),
    }),
    parked(2, { prompt: "Anything the on-call engineer should know?", answer_format: "text", expires_at: ahead(now, 86400) }),
  ];
}

/** Many plain questions, for the list's performance measurement. */
export function manyCards(n: number, now = Date.now()): Card[] {
  const formats = ["confirm", "select", "text", "form", "external"] as const;
  const cards: Card[] = [];
  for (let i = 0; i < n; i++) {
    const format = formats[i % formats.length];
    cards.push(
      card(
        i % 3 === 0 ? "acme" : "local",
        interaction({
          id: `ia_bulk_${i}`,
          prompt: `Question ${i}: should step ${i % 97} of run ${Math.floor(i / 7)} go ahead?`,
          answer_format: format,
          asker: `agent-${i % 13}`,
          created_at: ago(now, i * 37),
          expires_at: i % 4 === 0 ? ahead(now, 600 + i) : null,
          status: i % 5 === 4 ? "answered" : "pending",
          options: format === "select" ? choices(["a", "A"], ["b", "B"]) : [],
          schema: format === "form" ? { type: "object", properties: { x: { type: "string" } } } : null,
          link: format === "external" ? "https://example.com/act" : null,
        }),
        // Unread only while open: an answered card has nothing left to read (the engine's rule).
        { unread: i % 2 === 0 && i % 5 !== 4 },
      ),
    );
  }
  return cards;
}

/**
 * Recursive form schemas (the same ones the tests ask), for `?scenario=recursive`: the dev server
 * and the screenshots show how the window draws recursion.
 */
export function recursiveCards(cases: Record<string, unknown>, now = Date.now()): Card[] {
  const prefills: Record<string, Record<string, unknown>> = {
    "recursive-oneof-array": { note: "deploy", when: [{ note: "nested template", when: "${ready}" }] },
  };
  return Object.entries(cases)
    .filter(([name]) => !name.startsWith("$"))
    .map(([name, c], n) => {
      const { prompt, schema } = c as { prompt: string; schema: Record<string, unknown> };
      return card(
        "local",
        interaction({
          id: `ia_${name.replace(/-/g, "_")}`,
          prompt,
          answer_format: "form",
          asker: "tree-bot",
          schema: schema as never,
          data: { values: prefills[name] ?? {}, options: {} },
          created_at: new Date(now - (n + 1) * 60_000).toISOString(),
        }),
      );
    });
}
