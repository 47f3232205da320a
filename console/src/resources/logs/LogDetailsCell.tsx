import { useState } from 'react';
import { Box, Button, Popover, Stack, Typography } from '@mui/material';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import { useTranslate } from 'react-admin';
import type { LogEntry } from '../../providers/endpoints/logEndpoints';
import { ContentText } from './LogCells';
import { type LogOther, parseLogOther, plain, priceBreakdown } from './logOther';

/** The lines of new-api's price breakdown for one consumption row, from its `other` and token counts. */
const BreakdownLines = ({ log, other }: { log: LogEntry; other: LogOther }) => {
  const translate = useTranslate();
  const breakdown = priceBreakdown(other, log.prompt_tokens, log.completion_tokens);
  const group = plain(breakdown.groupRatio);
  const lines =
    breakdown.kind === 'price'
      ? [translate('app.logs.breakdown_model_price', { price: plain(breakdown.modelPrice), group, total: plain(breakdown.total) })]
      : [
          translate('app.logs.breakdown_ratios', {
            model: plain(breakdown.modelRatio),
            completion: plain(breakdown.completionRatio),
            group,
          }),
          translate('app.logs.breakdown_prompt', {
            price: plain(breakdown.promptPrice),
            group,
            total: plain(breakdown.promptPrice * breakdown.groupRatio),
          }),
          translate('app.logs.breakdown_completion', {
            price: plain(breakdown.completionPrice),
            group,
            total: plain(breakdown.completionPrice * breakdown.groupRatio),
          }),
          translate('app.logs.breakdown_total', {
            prompt: breakdown.promptTokens,
            promptPrice: plain(breakdown.promptPrice),
            completion: breakdown.completionTokens,
            completionPrice: plain(breakdown.completionPrice),
            group,
            total: breakdown.total.toFixed(6),
          }),
        ];
  if (other.is_model_mapped && other.upstream_model_name) lines.push(translate('app.logs.mapped', { model: other.upstream_model_name }));
  return (
    <Stack spacing={1}>
      {lines.map((line) => (
        <Typography key={line} variant="body2">
          {line}
        </Typography>
      ))}
      {log.content && (
        <Typography variant="caption" color="text.secondary">
          {log.content}
        </Typography>
      )}
    </Stack>
  );
};

/**
 * The details column: the row's content; a consumption row with prices in `other` shows new-api's short form
 * ("model: r * group: g" or "price: $p * group: g") and opens the full breakdown in a popover when clicked.
 */
export const LogDetailsCell = ({ log }: { log: LogEntry }) => {
  const translate = useTranslate();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const other = log.type === 2 ? parseLogOther(log.other) : null;
  if (!other) return <ContentText text={log.content} />;
  const modelPrice = typeof other.model_price === 'number' ? other.model_price : -1;
  const group = plain(typeof other.group_ratio === 'number' ? other.group_ratio : 1);
  const simple =
    modelPrice !== -1
      ? translate('app.logs.price_simple', { price: plain(modelPrice), group })
      : translate('app.logs.ratio_simple', { model: plain(typeof other.model_ratio === 'number' ? other.model_ratio : 0), group });
  return (
    <>
      <Button
        size="small"
        variant="text"
        endIcon={<InfoOutlinedIcon fontSize="small" />}
        onClick={(event) => setAnchor(event.currentTarget)}
        aria-haspopup="dialog"
        title={translate('app.logs.show_breakdown')}
        sx={{ textTransform: 'none', textAlign: 'left', justifyContent: 'flex-start', minWidth: 180, maxWidth: 240 }}
        data-testid="log-price"
      >
        {simple}
      </Button>
      <Popover
        open={anchor !== null}
        anchorEl={anchor}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'left' }}
        slotProps={{ paper: { role: 'dialog', 'aria-label': translate('app.logs.breakdown_title') } as object }}
      >
        <Box sx={{ p: 2, maxWidth: { xs: 320, sm: 480 } }} data-testid="log-price-breakdown">
          <Typography variant="subtitle2" gutterBottom>
            {translate('app.logs.breakdown_title')}
          </Typography>
          <BreakdownLines log={log} other={other} />
        </Box>
      </Popover>
    </>
  );
};
