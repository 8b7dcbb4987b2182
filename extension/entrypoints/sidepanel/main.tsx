import { StrictMode } from 'react';
import { browser } from 'wxt/browser';
import { createRoot } from 'react-dom/client';

import { App } from '../../components/app.js';
import { PanelClient } from '../../lib/panel-client.js';
import { watchPanelSurface } from '../../lib/panel-surface.js';
import '../../components/panel.css';

const client = new PanelClient();
client.connect();
// The agent's mouse and keyboard are kept away from this page: the daemon is told where it is.
void browser.tabs
  .getCurrent()
  .catch(() => undefined)
  .then((tab) =>
    watchPanelSurface({
      kind: tab ? 'extension_page' : 'panel',
      currentWindow: async () => {
        const { id } = await browser.windows.getCurrent();
        return id === undefined ? undefined : { id };
      },
      report: (surface) => client.reportSurface(surface),
    }),
  );

const root = document.getElementById('root');
if (!root) throw new Error('The side panel page has no #root element.');
createRoot(root).render(
  <StrictMode>
    <App client={client} />
  </StrictMode>,
);
