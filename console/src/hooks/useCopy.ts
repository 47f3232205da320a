import { useCallback } from 'react';
import { useTranslate } from 'react-admin';
import { copyToClipboard } from '../lib/clipboard';
import { useApiNotify } from './useApiNotify';

/** Copies and confirms with a toast; when the browser refuses, a dialog offers the text to copy by hand. */
export const useCopy = () => {
  const translate = useTranslate();
  const { success } = useApiNotify();

  return useCallback(
    async (text: string, successKey = 'app.common.copied_value') => {
      if (await copyToClipboard(text)) {
        success(successKey, { text });
        return true;
      }
      window.prompt(translate('app.common.copy_failed'), text);
      return false;
    },
    [success, translate],
  );
};
