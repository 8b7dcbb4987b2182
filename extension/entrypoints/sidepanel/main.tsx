import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { App } from '../../components/app.js';
import { PanelClient } from '../../lib/panel-client.js';
import '../../components/panel.css';

const client = new PanelClient();
client.connect();

const root = document.getElementById('root');
if (!root) throw new Error('The side panel page has no #root element.');
createRoot(root).render(
  <StrictMode>
    <App client={client} />
  </StrictMode>,
);
