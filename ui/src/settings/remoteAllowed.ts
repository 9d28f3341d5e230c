import type { SettingsView } from "../backend/Backend";
import type { Card } from "../backend/types";

/** Whether the app has allowed this card's remote media (for its question or its sender). */
export function remoteAllowedFor(settings: SettingsView | null, card: Card): boolean {
  if (!settings) return false;
  return (
    settings.remote_questions.some((q) => q.account === card.account && q.id === card.interaction.id) ||
    settings.remote_senders.some((s) => s.account === card.account && s.sender === card.interaction.asker)
  );
}
