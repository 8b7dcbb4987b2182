import { defineConfig } from 'wxt';

import { CHROME_EXTENSION_PUBLIC_KEY, FIREFOX_EXTENSION_ID, VERSION } from './shared/src/constants';

// The extension lives in extension/; this file sits at the repository root so that one
// `npm install` and one `npm run build` serve the whole workspace.
export default defineConfig({
  srcDir: 'extension',
  outDir: '.output',
  publicDir: 'extension/public',
  modules: ['@wxt-dev/module-react'],
  // Explicit imports everywhere: code reads the same in the extension, the host and shared/.
  imports: false,
  manifest: ({ browser }) => ({
    name: 'NextAI Agent',
    description: 'A local AI agent for your own computer: chat, approvals and desktop control.',
    version: VERSION,
    // activeTab: a right-click on a page gives the draft the tab's title as well as its URL.
    // Browser tools: scripting runs the page agent in tabs the agent opened or was
    // given; tabs, webNavigation and webRequest (observe-only) follow their loading; declarative-
    // NetRequest enforces the domain policy on every navigation of those tabs. No `debugger`.
    permissions: [
      'nativeMessaging',
      'storage',
      'contextMenus',
      'notifications',
      'activeTab',
      'tabs',
      'scripting',
      'webNavigation',
      'webRequest',
      'declarativeNetRequest',
      // The agent's tabs go into a "NextAI" tab group (Firefox from 139; older ones ignore it).
      'tabGroups',
    ],
    host_permissions: ['<all_urls>'],
    action: { default_title: 'NextAI Agent' },
    // The emergency stop from the keyboard, wherever the focus is in the browser.
    commands: {
      'emergency-stop': {
        suggested_key: { default: 'Alt+Shift+S' },
        description: 'Emergency stop: stop everything the agent is doing',
      },
    },
    icons: { 16: '/icon/icon-16.png', 32: '/icon/icon-32.png', 48: '/icon/icon-48.png', 128: '/icon/icon-128.png' },
    ...(browser === 'firefox'
      ? {
          browser_specific_settings: {
            gecko: {
              id: FIREFOX_EXTENSION_ID,
              strict_min_version: '115.0',
              data_collection_permissions: { required: ['none'] },
            },
          },
        }
      : {
          // Fixes the extension id, so native-messaging manifests can name it.
          key: CHROME_EXTENSION_PUBLIC_KEY,
          minimum_chrome_version: '116',
        }),
  }),
});
