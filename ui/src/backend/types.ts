// Shapes the desktop app (src-tauri) sends to the UI. The wire contract types (inbox-protocol)
// and the sync engine's (inbox-sync) are generated from Rust into ../generated; only the
// window-level snapshot, which the desktop app assembles from several accounts, is declared here.
import type { Card } from "../generated/Card";
import type { Changes } from "../generated/Changes";
import type { ConnectionStatus } from "../generated/ConnectionStatus";
import type { Counts } from "../generated/Counts";

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

export type { Card } from "../generated/Card";
export type { ConnectionStatus } from "../generated/ConnectionStatus";
export type { Counts } from "../generated/Counts";
export type { Delivery } from "../generated/Delivery";
export type { Outgoing } from "../generated/Outgoing";

/** `inbox://changes`: one coalesced batch of changes for one account (the engine's `Changes`). */
export type ChangeBatch = Changes;

export type Account = { id: string; label: string; url: string; local: boolean };

/** `inbox_snapshot`: everything the window needs to draw itself from scratch, all accounts. */
export type Snapshot = {
  accounts: Account[];
  cards: Card[];
  connections: Record<string, ConnectionStatus>;
  counts: Counts | Record<string, Counts> | null;
  /** The `inbox ask …` command line shown in the empty state. */
  local_hint: string | null;
  /** Whether notifications are silenced (the app remembers it across runs). */
  do_not_disturb?: boolean;
};


/** `inbox://open`: a notification click asks the window to open this question. */
export type OpenRequest = { account: string; id: string };
