/**
 * Strings of the extension's pages, in the two languages the product ships: every
 * string lives in a bundle under lib/messages/, one per part of the panel, English and Chinese
 * side by side; the type check refuses a key missing in either language. The page follows the
 * browser language unless the person chose one in settings.
 */
import type { Locale } from '@nextai/shared';

import * as activity from './messages/activity.js';
import * as approvals from './messages/approvals.js';
import * as base from './messages/base.js';
import * as chat from './messages/chat.js';
import * as contextMenu from './messages/context-menu.js';
import * as safety from './messages/safety.js';
import * as schedules from './messages/schedules.js';
import * as settings from './messages/settings.js';
import * as storage from './messages/storage.js';

const EN = {
  ...base.en,
  ...chat.en,
  ...approvals.en,
  ...activity.en,
  ...schedules.en,
  ...settings.en,
  ...safety.en,
  ...storage.en,
  ...contextMenu.en,
};
export type MessageKey = keyof typeof EN;
const ZH_CN: Record<MessageKey, string> = {
  ...base.zhCN,
  ...chat.zhCN,
  ...approvals.zhCN,
  ...activity.zhCN,
  ...schedules.zhCN,
  ...settings.zhCN,
  ...safety.zhCN,
  ...storage.zhCN,
  ...contextMenu.zhCN,
};

export { LOCALES, type Locale } from '@nextai/shared';

export function pickLocale(language: string): Locale {
  return language.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en';
}

/** `t(key, vars)` for the panel's strings; `t.locale` for what comes from elsewhere (tool titles, dates). */
export function translator(locale: Locale) {
  const table: Record<MessageKey, string> = locale === 'zh-CN' ? ZH_CN : EN;
  const translate = (key: MessageKey, vars: Record<string, string | number> = {}): string =>
    table[key].replace(/\{(\w+)\}/g, (match, name: string) => (name in vars ? String(vars[name]) : match));
  return Object.assign(translate, { locale });
}

export type Translate = ReturnType<typeof translator>;
