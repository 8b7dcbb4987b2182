import { z } from 'zod';

/**
 * The languages the product ships. English is the language of record: every message has it, the
 * CLI, the audit log and the model read it. What the daemon writes for people (why a call was
 * stopped, what a command does, why a run failed) also carries the other languages, so the side
 * panel can show it in the person's language without a second round trip.
 */
export const LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];
/** The languages besides English. */
export type TranslatedLocale = Exclude<Locale, 'en'>;

/** One sentence in every shipped language. */
export type Localized = Record<Locale, string>;

export function say(en: string, zhCN: string): Localized {
  return { en, 'zh-CN': zhCN };
}

/** The same words in every language: a path, a command, a name. */
export function verbatim(text: string): Localized {
  return { en: text, 'zh-CN': text };
}

/** Alongside an English `message`, its other languages (absent: show the English). */
export const messageTranslationsSchema = z.object({ 'zh-CN': z.string() }).partial();
export type MessageTranslations = z.infer<typeof messageTranslationsSchema>;

export function translationsOf(text: Localized): Required<MessageTranslations> {
  return { 'zh-CN': text['zh-CN'] };
}

/** An English message and its translations as one `Localized`; a language not translated shows the English. */
export function localizedMessage(message: string, translations: MessageTranslations | undefined): Localized {
  return { en: message, 'zh-CN': translations?.['zh-CN'] ?? message };
}

/** The message in `locale` when it was translated, else the English. */
export function inLocale(
  message: string,
  translations: MessageTranslations | null | undefined,
  locale: Locale,
): string {
  if (locale === 'en') return message;
  return translations?.[locale] ?? message;
}
