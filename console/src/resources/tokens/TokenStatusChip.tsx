import { Chip, Stack } from '@mui/material';
import { useTranslate } from 'react-admin';
import {
  TOKEN_STATUS_DISABLED,
  TOKEN_STATUS_ENABLED,
  TOKEN_STATUS_EXHAUSTED,
  TOKEN_STATUS_EXPIRED,
  type Token,
} from '../../providers/endpoints/tokenEndpoints';

/** 1 enabled (or "enabled: model limited"), 2 disabled, 3 expired, 4 exhausted, anything else unknown. */
const StatusChip = ({ token }: { token: Token }) => {
  const translate = useTranslate();
  switch (token.status) {
    case TOKEN_STATUS_ENABLED:
      return (
        <Chip
          size="small"
          color="success"
          label={translate(token.model_limits_enabled ? 'app.tokens.status_model_limited' : 'app.tokens.status_enabled')}
        />
      );
    case TOKEN_STATUS_DISABLED:
      return <Chip size="small" color="error" label={translate('app.tokens.status_disabled')} />;
    case TOKEN_STATUS_EXPIRED:
      return <Chip size="small" color="warning" label={translate('app.tokens.status_expired')} />;
    case TOKEN_STATUS_EXHAUSTED:
      return <Chip size="small" label={translate('app.tokens.status_exhausted')} />;
    default:
      return <Chip size="small" variant="outlined" label={translate('app.tokens.status_unknown')} />;
  }
};

/** The status, and the token's group as a tag when it has one of its own (empty means the owner's group). */
export const TokenStatusChip = ({ token }: { token: Token }) => {
  const translate = useTranslate();
  return (
    <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
      <StatusChip token={token} />
      {token.group ? (
        <Chip
          size="small"
          variant="outlined"
          color="info"
          label={token.group}
          title={translate('app.tokens.group_tag', { group: token.group })}
        />
      ) : null}
    </Stack>
  );
};
