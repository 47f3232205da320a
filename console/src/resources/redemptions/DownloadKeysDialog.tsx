import { Box, Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { useTranslate } from 'react-admin';
import type { RedemptionBatch } from '../../lib/types';

/** Saves the keys, one a line, as `<code name>.txt`. */
const downloadKeys = (batch: RedemptionBatch) => {
  const url = URL.createObjectURL(new Blob([batch.keys.join('\n')], { type: 'text/plain;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `${batch.name}.txt`;
  document.body.appendChild(link);
  link.click();
  document.body.removeChild(link);
  URL.revokeObjectURL(url);
};

/** After creation: the new keys, and the offer to download them as a text file. */
export const DownloadKeysDialog = ({ batch, onClose }: { batch: RedemptionBatch | null; onClose: () => void }) => {
  const translate = useTranslate();
  return (
    <Dialog open={batch !== null} onClose={onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{translate('app.redemptions.download_title')}</DialogTitle>
      <DialogContent>
        <DialogContentText>{translate('app.redemptions.download_content')}</DialogContentText>
        <DialogContentText variant="body2">{translate('app.redemptions.download_note')}</DialogContentText>
        <Box
          component="pre"
          data-testid="new-redemption-keys"
          sx={{ mt: 2, p: 1, bgcolor: 'action.hover', fontFamily: 'monospace', fontSize: 13, overflowX: 'auto' }}
        >
          {batch?.keys.join('\n')}
        </Box>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('app.common.cancel')}</Button>
        <Button
          variant="contained"
          onClick={() => {
            if (batch) downloadKeys(batch);
            onClose();
          }}
        >
          {translate('app.redemptions.download')}
        </Button>
      </DialogActions>
    </Dialog>
  );
};
