import { useEffect, useState } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useLocation } from 'react-router-dom';
import { DEFAULT_PASSWORD_WARNING_KEY } from '../lib/storage';

/** Shown after the root account logs in with the default password (client-side only, as in new-api). */
export const DefaultPasswordWarning = () => {
  const translate = useTranslate();
  const location = useLocation();
  const [open, setOpen] = useState(false);

  useEffect(() => {
    if (sessionStorage.getItem(DEFAULT_PASSWORD_WARNING_KEY) === '1') setOpen(true);
  }, [location.pathname]);

  const close = () => {
    sessionStorage.removeItem(DEFAULT_PASSWORD_WARNING_KEY);
    setOpen(false);
  };

  return (
    <Dialog open={open} onClose={close} aria-labelledby="default-password-title">
      <DialogTitle id="default-password-title" color="error">
        {translate('app.login.default_password_title')}
      </DialogTitle>
      <DialogContent>
        <DialogContentText>{translate('app.login.default_password_content')}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={close} variant="contained" autoFocus>
          {translate('app.common.ok')}
        </Button>
      </DialogActions>
    </Dialog>
  );
};
