import type { Locale } from '@nextai/shared';

/**
 * The person's language as the process environment says it (LC_ALL, LC_MESSAGES, LANG, in the
 * order POSIX gives them weight): Chinese for any zh_* locale, English otherwise. For what the
 * host writes for people outside the side panel: the terminal, OS notifications.
 */
export function environmentLocale(env: Readonly<Record<string, string | undefined>> = process.env): Locale {
  const language = env.LC_ALL || env.LC_MESSAGES || env.LANG || '';
  return language.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en';
}
