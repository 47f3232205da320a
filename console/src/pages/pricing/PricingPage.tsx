import { useEffect, useMemo, useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Checkbox,
  Chip,
  CircularProgress,
  InputAdornment,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import CancelIcon from '@mui/icons-material/Cancel';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import HelpOutlineIcon from '@mui/icons-material/HelpOutlineOutlined';
import SearchIcon from '@mui/icons-material/Search';
import { Title, useTranslate } from 'react-admin';
import { useCopy } from '../../hooks/useCopy';
import { formatUsd, groupRatioOf, matchesModel, modelPrice, QUOTA_TYPE_PRICE, type PricingEntry } from '../../lib/pricing';
import { quotaPerUnit } from '../../lib/quota';
import { useStatus } from '../../providers/statusStore';
import { usePricing } from './usePricing';

const DEFAULT_GROUP = 'default';

/** The public pricing page: every model the enabled channels offer, priced for the group being viewed. */
export const PricingPage = () => {
  const translate = useTranslate();
  const status = useStatus();
  const copy = useCopy();
  const { entries, groupRatio, userGroup, loading } = usePricing();
  const [filter, setFilter] = useState('');
  const [viewedGroup, setViewedGroup] = useState(DEFAULT_GROUP);
  const [selected, setSelected] = useState<Set<string>>(new Set());

  // Show the user's own group first, once it is known; they may switch to another afterwards.
  useEffect(() => {
    if (userGroup) setViewedGroup(userGroup);
  }, [userGroup]);

  const groups = useMemo(() => {
    const names = new Set(Object.keys(groupRatio));
    entries.forEach((entry) => entry.enable_groups.forEach((group) => names.add(group)));
    names.add(viewedGroup);
    return [...names].sort();
  }, [entries, groupRatio, viewedGroup]);

  const rows = useMemo(() => entries.filter((entry) => matchesModel(entry, filter)), [entries, filter]);
  const ratio = groupRatioOf(groupRatio, viewedGroup);
  const unitPrice = Number((1e6 / quotaPerUnit(status)).toFixed(6));
  const allShownSelected = rows.length > 0 && rows.every((row) => selected.has(row.model_name));

  const toggle = (model: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(model)) next.delete(model);
      else next.add(model);
      return next;
    });
  const toggleAllShown = () =>
    setSelected((current) => {
      const next = new Set(current);
      rows.forEach((row) => (allShownSelected ? next.delete(row.model_name) : next.add(row.model_name)));
      return next;
    });

  return (
    <Box sx={{ p: { xs: 1, sm: 2 } }}>
      <Title title={translate('app.menu.pricing')} />
      <Stack spacing={2}>
        {userGroup ? (
          <Alert severity="success" data-testid="pricing-group-banner">
            {translate('app.pricing.your_group', { group: userGroup, ratio: groupRatioOf(groupRatio, userGroup) })}
          </Alert>
        ) : (
          <Alert severity="warning" data-testid="pricing-group-banner">
            {translate('app.pricing.visitor_group', { ratio: groupRatioOf(groupRatio, DEFAULT_GROUP) })}
          </Alert>
        )}
        <Alert severity="info">{translate('app.pricing.formula', { unit: unitPrice })}</Alert>
        <Card>
          <CardContent>
            <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ mb: 2, alignItems: { md: 'center' } }}>
              <TextField
                size="small"
                label={translate('app.pricing.filter')}
                value={filter}
                onChange={(event) => setFilter(event.target.value)}
                slotProps={{
                  input: {
                    startAdornment: (
                      <InputAdornment position="start">
                        <SearchIcon fontSize="small" />
                      </InputAdornment>
                    ),
                  },
                }}
                sx={{ width: { xs: '100%', md: 320 }, flexShrink: 0 }}
              />
              <Button
                variant="outlined"
                startIcon={<ContentCopyIcon />}
                disabled={selected.size === 0}
                sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}
                onClick={() => void copy([...selected].join(','))}
              >
                {translate('app.pricing.copy_selected', { count: selected.size })}
              </Button>
              <Box sx={{ flexGrow: 1 }} />
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}>
                <Typography variant="body2" color="text.secondary">
                  {translate('app.pricing.viewing_group')}
                </Typography>
                {groups.map((group) => (
                  <Chip
                    key={group}
                    size="small"
                    label={`${group} ×${groupRatioOf(groupRatio, group)}`}
                    color={group === viewedGroup ? 'primary' : 'default'}
                    variant={group === viewedGroup ? 'filled' : 'outlined'}
                    onClick={() => setViewedGroup(group)}
                  />
                ))}
              </Stack>
            </Stack>
            {loading ? (
              <Box sx={{ display: 'flex', justifyContent: 'center', py: 4 }}>
                <CircularProgress size={28} />
              </Box>
            ) : (
              <TableContainer>
                <Table size="small" aria-label={translate('app.menu.pricing')}>
                  <TableHead>
                    <TableRow>
                      <TableCell padding="checkbox">
                        <Checkbox
                          checked={allShownSelected}
                          indeterminate={!allShownSelected && rows.some((row) => selected.has(row.model_name))}
                          onChange={toggleAllShown}
                          slotProps={{ input: { 'aria-label': translate('app.pricing.select_all') } }}
                        />
                      </TableCell>
                      <TableCell>{translate('app.pricing.available')}</TableCell>
                      <TableCell>{translate('app.pricing.model')}</TableCell>
                      <TableCell>{translate('app.pricing.billing_type')}</TableCell>
                      <TableCell>{translate('app.pricing.usable_groups')}</TableCell>
                      <TableCell>
                        <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
                          <span>{translate('app.pricing.ratios')}</span>
                          <Tooltip title={translate('app.pricing.ratios_help', { unit: unitPrice })}>
                            <HelpOutlineIcon fontSize="small" color="action" />
                          </Tooltip>
                        </Stack>
                      </TableCell>
                      <TableCell>{translate('app.pricing.price')}</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {rows.length === 0 ? (
                      <TableRow>
                        <TableCell colSpan={7} align="center" sx={{ py: 4, color: 'text.secondary' }}>
                          {translate('app.pricing.empty')}
                        </TableCell>
                      </TableRow>
                    ) : (
                      rows.map((entry) => (
                        <PricingRow
                          key={entry.model_name}
                          entry={entry}
                          viewedGroup={viewedGroup}
                          groupRatio={ratio}
                          selected={selected.has(entry.model_name)}
                          onToggle={() => toggle(entry.model_name)}
                          onGroup={setViewedGroup}
                          onCopy={() => void copy(entry.model_name)}
                        />
                      ))
                    )}
                  </TableBody>
                </Table>
              </TableContainer>
            )}
          </CardContent>
        </Card>
      </Stack>
    </Box>
  );
};

interface PricingRowProps {
  entry: PricingEntry;
  viewedGroup: string;
  groupRatio: number;
  selected: boolean;
  onToggle: () => void;
  onGroup: (group: string) => void;
  onCopy: () => void;
}

const PricingRow = ({ entry, viewedGroup, groupRatio, selected, onToggle, onGroup, onCopy }: PricingRowProps) => {
  const translate = useTranslate();
  const status = useStatus();
  const available = entry.enable_groups.includes(viewedGroup);
  const perCall = entry.quota_type === QUOTA_TYPE_PRICE;
  const price = modelPrice(entry, groupRatio, status);
  const none = translate('app.pricing.none');
  return (
    <TableRow hover selected={selected} data-model={entry.model_name}>
      <TableCell padding="checkbox">
        <Checkbox checked={selected} onChange={onToggle} slotProps={{ input: { 'aria-label': entry.model_name } }} />
      </TableCell>
      <TableCell>
        <Tooltip title={translate(available ? 'app.pricing.available_yes' : 'app.pricing.available_no', { group: viewedGroup })}>
          {available ? (
            <CheckCircleIcon color="success" fontSize="small" aria-label={translate('app.pricing.available_yes', { group: viewedGroup })} />
          ) : (
            <CancelIcon color="disabled" fontSize="small" aria-label={translate('app.pricing.available_no', { group: viewedGroup })} />
          )}
        </Tooltip>
      </TableCell>
      <TableCell>
        <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
          <Typography variant="body2" sx={{ fontFamily: 'monospace' }}>
            {entry.model_name}
          </Typography>
          <Tooltip title={translate('app.common.copy')}>
            <Button size="small" sx={{ minWidth: 0, p: 0.5 }} onClick={onCopy} aria-label={translate('app.common.copy')}>
              <ContentCopyIcon fontSize="inherit" />
            </Button>
          </Tooltip>
        </Stack>
      </TableCell>
      <TableCell>
        <Chip
          size="small"
          variant="outlined"
          color={perCall ? 'warning' : 'info'}
          label={translate(perCall ? 'app.pricing.per_call' : 'app.pricing.per_usage')}
        />
      </TableCell>
      <TableCell>
        <Stack direction="row" spacing={0.5} sx={{ flexWrap: 'wrap', rowGap: 0.5 }}>
          {entry.enable_groups.map((group) => (
            <Chip
              key={group}
              size="small"
              label={group}
              color={group === viewedGroup ? 'primary' : 'default'}
              variant={group === viewedGroup ? 'filled' : 'outlined'}
              onClick={() => onGroup(group)}
            />
          ))}
        </Stack>
      </TableCell>
      <TableCell>
        <Typography variant="body2">{translate('app.pricing.model_ratio', { value: perCall ? none : entry.model_ratio })}</Typography>
        <Typography variant="body2">
          {translate('app.pricing.completion_ratio', { value: perCall ? none : entry.completion_ratio })}
        </Typography>
        <Typography variant="body2">{translate('app.pricing.group_ratio', { value: groupRatio })}</Typography>
      </TableCell>
      <TableCell>
        {perCall ? (
          <Typography variant="body2">{translate('app.pricing.price_per_call', { price: formatUsd(price.perCall ?? 0) })}</Typography>
        ) : (
          <>
            <Typography variant="body2">{translate('app.pricing.price_input', { price: formatUsd(price.input ?? 0) })}</Typography>
            <Typography variant="body2">
              {translate('app.pricing.price_completion', { price: formatUsd(price.completion ?? 0) })}
            </Typography>
          </>
        )}
      </TableCell>
    </TableRow>
  );
};
