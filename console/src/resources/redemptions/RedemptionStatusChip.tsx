import { Chip } from '@mui/material';
import { useTranslate } from 'react-admin';
import { REDEMPTION_STATUS_DISABLED, REDEMPTION_STATUS_UNUSED, REDEMPTION_STATUS_USED } from '../../lib/types';

/** 1 unused, 2 disabled, 3 used, anything else unknown. */
export const RedemptionStatusChip = ({ status }: { status: number }) => {
  const translate = useTranslate();
  switch (status) {
    case REDEMPTION_STATUS_UNUSED:
      return <Chip size="small" color="success" label={translate('app.redemptions.status_unused')} />;
    case REDEMPTION_STATUS_DISABLED:
      return <Chip size="small" color="error" label={translate('app.redemptions.status_disabled')} />;
    case REDEMPTION_STATUS_USED:
      return <Chip size="small" label={translate('app.redemptions.status_used')} />;
    default:
      return <Chip size="small" variant="outlined" label={translate('app.redemptions.status_unknown')} />;
  }
};
