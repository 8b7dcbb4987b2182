import type { ConnectionState } from '../lib/connection-state.js';
import type { Locale, Translate } from '../lib/i18n.js';
import type { PanelClient } from '../lib/panel-client.js';
import type { TabId } from './tabs.js';

/** What every part of the panel gets: the line to the daemon, the connection, the language. */
export interface PanelProps {
  client: PanelClient;
  state: ConnectionState;
  t: Translate;
  locale: Locale;
  /** Switches the panel to a tab (e.g. from a notification in another tab). */
  show: (tab: TabId) => void;
}
