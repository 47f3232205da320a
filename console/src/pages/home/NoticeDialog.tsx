import { useEffect, useState } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { apiRequest } from '../../providers/httpClient';
import { MarkdownView } from '../about/MarkdownView';

/** new-api's localStorage key: the text of the last notice shown. */
export const NOTICE_KEY = 'notice';

/**
 * The operator's Notice (`GET /api/notice`), opened on the home page once per change: it opens when the text is
 * not empty and differs from the one stored under `notice`, which it then becomes.
 */
export const NoticeDialog = () => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const [notice, setNotice] = useState('');
  const [open, setOpen] = useState(false);

  useEffect(() => {
    let active = true;
    apiRequest<string>('/api/notice')
      .then((text) => {
        if (!active || typeof text !== 'string' || text === '' || text === localStorage.getItem(NOTICE_KEY)) return;
        localStorage.setItem(NOTICE_KEY, text);
        setNotice(text);
        setOpen(true);
      })
      .catch((error) => active && notify.error(error));
    return () => {
      active = false;
    };
  }, [notify]);

  const close = () => setOpen(false);
  return (
    <Dialog open={open} onClose={close} aria-labelledby="system-notice-title" fullWidth maxWidth="sm">
      <DialogTitle id="system-notice-title">{translate('pages.notice.title')}</DialogTitle>
      <DialogContent dividers>
        <MarkdownView>{notice}</MarkdownView>
      </DialogContent>
      <DialogActions>
        <Button onClick={close} variant="contained" autoFocus>
          {translate('pages.notice.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
};
