// Shapes the desktop app (src-tauri) sends to the UI, all generated from Rust into ../generated:
// the wire contract (inbox-protocol), the sync engine's (inbox-sync) and the window's (src-tauri).
import type { Changes } from "../generated/Changes";

export type { Answer } from "../generated/Answer";
export type { AnswerFormat } from "../generated/AnswerFormat";
export type { ChoiceOption } from "../generated/ChoiceOption";
export type { ErrorBody } from "../generated/ErrorBody";
export type { ErrorCode } from "../generated/ErrorCode";
/** Every code a command can refuse with: the contract's and the app's own (inbox-client's `CommandCode`). */
export type { CommandCode } from "../generated/desktop/CommandCode";
export type { AppCode } from "../generated/desktop/AppCode";
export type { ErrorDetail } from "../generated/ErrorDetail";
export type { FormPage } from "../generated/FormPage";
export type { Interaction } from "../generated/Interaction";
export type { MediaItem } from "../generated/MediaItem";
export type { Notification } from "../generated/Notification";
export type { Submission } from "../generated/Submission";
export type { Status } from "../generated/Status";

export type { Card } from "../generated/Card";
export type { ConnectionStatus } from "../generated/ConnectionStatus";
export type { Counts } from "../generated/Counts";
export type { Delivery } from "../generated/Delivery";
export type { Outgoing } from "../generated/Outgoing";

/** `inbox://changes`: one coalesced batch of changes for one account (the engine's `Changes`). */
export type ChangeBatch = Changes;

// The window-level shapes come from the desktop app's Rust definitions (src-tauri/src/views.rs).
export type { AccountView as Account } from "../generated/desktop/AccountView";
/** `inbox_snapshot`: everything the window needs to draw itself from scratch, all accounts. */
export type { InboxSnapshot as Snapshot } from "../generated/desktop/InboxSnapshot";
/** `inbox://open`: a notification click asks the window to open this question. */
export type { OpenRequest } from "../generated/desktop/OpenRequest";
