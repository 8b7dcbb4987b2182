import type { Locale } from '../../lib/i18n.js';
import type { PanelProps } from '../panel-props.js';
import type { SettingsData } from './use-settings.js';

/** What the settings tab gets from the panel: its props, and the way to switch the panel's language. */
export type SettingsProps = PanelProps & { setLocale: (locale: Locale) => void };

/** Changes the settings as shown, at once (the daemon's next answer replaces them). */
export type UpdateSettings = (change: (data: SettingsData) => SettingsData) => void;

/** What each settings page gets. */
export interface SettingsPageProps {
  props: SettingsProps;
  data: SettingsData;
  update: UpdateSettings;
}
