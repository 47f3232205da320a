import polyglotI18nProvider from 'ra-i18n-polyglot';
import type { I18nProvider } from 'react-admin';
import { en } from '../i18n/en';
import { zh } from '../i18n/zh';
import { LOCALE_KEY } from '../lib/storage';

export type AppLocale = 'zh' | 'en';

export const LOCALES = [
  { locale: 'zh', name: '中文' },
  { locale: 'en', name: 'English' },
];

const normalise = (value: string | null | undefined): AppLocale | null => {
  if (!value) return null;
  const lower = value.replace(/^"|"$/g, '').toLowerCase();
  if (lower.startsWith('zh')) return 'zh';
  if (lower.startsWith('en')) return 'en';
  return null;
};

/**
 * The stored choice wins (`i18nextLng`, the key new-api's web UI uses, or a plain `locale`); then the
 * browser's preferred languages; new-api's own default, Chinese, comes last.
 */
export const resolveInitialLocale = (): AppLocale => {
  const stored = normalise(localStorage.getItem(LOCALE_KEY)) ?? normalise(localStorage.getItem('locale'));
  if (stored) return stored;
  const languages = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const language of languages) {
    const locale = normalise(language);
    if (locale) return locale;
  }
  return 'zh';
};

const messagesFor = (locale: string) => (locale === 'en' ? en : zh);

const setDocumentLanguage = (locale: string) => {
  document.documentElement.lang = locale === 'en' ? 'en' : 'zh-CN';
};

const createI18nProvider = (): I18nProvider => {
  const initial = resolveInitialLocale();
  setDocumentLanguage(initial);
  const base = polyglotI18nProvider(messagesFor, initial, LOCALES, { allowMissing: true });
  return {
    ...base,
    changeLocale: async (locale: string) => {
      await base.changeLocale(locale);
      localStorage.setItem(LOCALE_KEY, locale);
      setDocumentLanguage(locale);
    },
  };
};

/** A single instance, so code outside React (the HTTP client) translates in the current locale. */
export const i18nProvider = createI18nProvider();

export const translate = (key: string, options?: Record<string, unknown>): string => i18nProvider.translate(key, options);
