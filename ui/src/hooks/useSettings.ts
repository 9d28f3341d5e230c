import { useEffect, useState } from "react";
import type { Backend, SettingsView } from "../backend/Backend";

/**
 * The app's settings as it last answered (the app owns them and the remote-media allowances),
 * and the theme they choose applied to the page.
 */
export function useSettings(backend: Backend, reportError: (raw: unknown) => void) {
  const [settings, setSettings] = useState<SettingsView | null>(null);

  useEffect(() => {
    let live = true;
    backend.settings().then(
      (s) => live && setSettings(s),
      (raw) => live && reportError(raw),
    );
    return () => {
      live = false;
    };
  }, [backend, reportError]);

  // "system" leaves the choice to prefers-color-scheme; light/dark override it (settings/theme.css).
  const theme = settings?.preferences.theme ?? "system";
  useEffect(() => {
    if (theme === "system") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
  }, [theme]);

  return [settings, setSettings] as const;
}
