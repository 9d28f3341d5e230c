// Shapes the desktop app (src-tauri) sends to the UI. The wire contract types come from
// ../generated (ts-rs output of inbox-protocol). The sync-engine shapes below mirror
// crates/inbox-sync until their generated versions land in ../generated; switching is a
// change to this file only.
import type { Answer } from "../generated/Answer";
import type { ErrorCode } from "../generated/ErrorCode";
import type { Interaction } from "../generated/Interaction";

export type { Answer } from "../generated/Answer";
export type { AnswerFormat } from "../generated/AnswerFormat";
export type { ChoiceOption } from "../generated/ChoiceOption";
export type { ErrorBody } from "../generated/ErrorBody";
export type { ErrorCode } from "../generated/ErrorCode";
export type { ErrorDetail } from "../generated/ErrorDetail";
export type { FormPage } from "../generated/FormPage";
export type { Interaction } from "../generated/Interaction";
export type { MediaItem } from "../generated/MediaItem";
export type { Status } from "../generated/Status";

/** The fate of the reviewer's answer (or decline) on its way to the server. */
export type Delivery =
  | { state: "queued" }
  | { state: "sending" }
  | { state: "accepted" }
  | { state: "rejected"; code: ErrorCode; message: string; winner: Answer | null };

/** The truth about one account's link to its server. */
export type ConnectionStatus =
  | { state: "online" }
  | { state: "connecting" }
  | { state: "reconnecting"; next_try_at: string; attempt: number }
  | { state: "offline" }
  | { state: "signed_out" };

/** One question in the inbox as the sync engine holds it. */
export type Card = {
  account: string;
  interaction: Interaction;
  unread: boolean;
  delivery: Delivery | null;
};

export type Counts = { pending: number; unread: number; queued: number };

export type Account = { id: string; label: string; url: string; local: boolean };

/** `inbox_snapshot`: everything the window needs to draw itself from scratch. */
export type Snapshot = {
  accounts: Account[];
  cards: Card[];
  connections: Record<string, ConnectionStatus>;
  counts: Counts | Record<string, Counts> | null;
  /** The `inbox ask …` command line shown in the empty state. */
  local_hint: string | null;
};

/** `inbox://changes`: one coalesced batch of changes for one account. */
export type ChangeBatch = {
  account: string;
  upserted: Card[];
  removed: string[];
  status: ConnectionStatus | null;
  counts: Counts;
};

/** `inbox://open`: a notification click asks the window to open this question. */
export type OpenRequest = { account: string; id: string };
