import { useState, type ReactNode } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Stack,
  Typography,
} from '@mui/material';
import { useTranslate } from 'react-admin';
import { useApiNotify } from '../../../hooks/useApiNotify';
import { loadStatus } from '../../../providers/statusStore';
import { useOptions } from './OptionsContext';
import { OptionInput, isWide } from './OptionInput';
import {
  changedKeys,
  fieldProblem,
  initialValues,
  saveOptions,
  wireValue,
  type FieldProblem,
  type OptionField,
  type OptionMap,
  type SaveOutcome,
} from './optionFields';

/** What a card's extra controls may do: re-read keys changed by another call (the model-ratio reset). */
export interface CardTools {
  busy: boolean;
  setBusy: (busy: boolean) => void;
  resync: (keys: readonly string[]) => Promise<void>;
}

export interface OptionCardProps {
  /** i18n: app.options.cards.<id> is the title; app.options.cards.<id>_help the description when `described`. */
  id: string;
  fields: readonly OptionField[];
  described?: boolean;
  /** A rule over the whole card, checked before anything is sent (e.g. payment needs the server address). */
  beforeSave?: (draft: OptionMap, options: OptionMap) => FieldProblem | null;
  /** An i18n key of a warning to confirm before saving these changes, or null. */
  confirmation?: (keys: readonly string[], draft: OptionMap) => string | null;
  onSaved?: (keys: readonly string[]) => void;
  extra?: (tools: CardTools) => ReactNode;
  children?: ReactNode;
}

/**
 * A card of option fields with one save button. Only changed keys are sent (one PUT each); the card then
 * states what was saved and, for each refused key, the server's message, keeping that key's entry for a fix.
 */
export const OptionCard = ({ id, fields, described, beforeSave, confirmation, onSaved, extra, children }: OptionCardProps) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const { options, refresh } = useOptions();
  const [baseline, setBaseline] = useState<OptionMap>(() => initialValues(fields, options));
  const [draft, setDraft] = useState<OptionMap>(() => initialValues(fields, options));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<SaveOutcome | null>(null);
  const [pending, setPending] = useState<{ keys: string[]; warning: string } | null>(null);
  const title = translate(`app.options.cards.${id}`);
  const labelOf = (key: string) => translate(`app.options.fields.${key}`);

  const problemText = (field: OptionField, problem: FieldProblem) =>
    translate(problem.message, { name: labelOf(field.key), ...(problem.args ?? {}) });

  const checkField = (field: OptionField) => {
    const problem = fieldProblem(field, draft[field.key] ?? '');
    setErrors((current) => {
      const next = { ...current };
      if (problem) next[field.key] = problemText(field, problem);
      else delete next[field.key];
      return next;
    });
  };

  /** Takes the stored values of `keys` as both the baseline and the shown value (the server may normalise them). */
  const adopt = (keys: readonly string[], fresh: OptionMap | null, sent: OptionMap) => {
    const stored: OptionMap = {};
    for (const key of keys) {
      const field = fields.find((candidate) => candidate.key === key);
      if (!field) continue;
      const secret = field.type === 'text' && field.secret;
      stored[key] = secret ? '' : (fresh?.[key] ?? wireValue(field, sent[key] ?? ''));
    }
    setBaseline((current) => ({ ...current, ...stored }));
    setDraft((current) => ({ ...current, ...stored }));
  };

  const resync = async (keys: readonly string[]) => {
    adopt(keys, await refresh(), {});
  };

  const send = async (keys: string[]) => {
    setBusy(true);
    // The last save's outcome goes while this one is in flight: left on screen, it read as this save's answer.
    setOutcome(null);
    const sent = { ...draft };
    try {
      const result = await saveOptions(fields, sent, keys);
      const fresh = result.saved.length ? await refresh().catch(() => null) : null;
      adopt(result.saved, fresh, sent);
      setOutcome(result);
      const names = result.saved.map(labelOf).join(translate('app.options.separator'));
      if (!result.refused.length) notify.success('app.options.saved', { keys: names });
      else if (result.saved.length) notify.failure('app.options.partly_saved');
      else if (result.refused.length === 1) notify.failure('app.options.refused_one', { message: result.refused[0].message });
      else notify.failure('app.options.save_failed');
      if (result.saved.length) {
        // The public status carries many options (name, logo, quota display, login switches): follow at once.
        void loadStatus();
        onSaved?.(result.saved);
      }
    } finally {
      setBusy(false);
    }
  };

  const save = () => {
    const keys = changedKeys(fields, baseline, draft);
    if (!keys.length) return notify.info('app.options.nothing_changed');
    const problems: Record<string, string> = {};
    for (const key of keys) {
      const field = fields.find((candidate) => candidate.key === key);
      const problem = field ? fieldProblem(field, draft[key] ?? '') : null;
      if (field && problem) problems[key] = problemText(field, problem);
    }
    if (Object.keys(problems).length) {
      setErrors((current) => ({ ...current, ...problems }));
      return notify.failure('app.options.check_input', {
        keys: Object.keys(problems).map(labelOf).join(translate('app.options.separator')),
      });
    }
    const cardProblem = beforeSave?.(draft, options);
    if (cardProblem) return notify.failure(cardProblem.message, cardProblem.args);
    const warning = confirmation?.(keys, draft);
    if (warning) return setPending({ keys, warning });
    void send(keys);
  };

  return (
    <Card component="section" aria-label={title}>
      <CardContent>
        <Typography variant="subtitle1" component="h2" gutterBottom>
          {title}
        </Typography>
        {described ? (
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2, overflowWrap: 'anywhere' }}>
            {translate(`app.options.cards.${id}_help`, { server: options.ServerAddress || translate('app.options.server_address_unset') })}
          </Typography>
        ) : null}
        <Box
          sx={{
            display: 'grid',
            gap: 2,
            gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: 'repeat(2, minmax(0, 1fr))', md: 'repeat(3, minmax(0, 1fr))' },
          }}
        >
          {fields.map((field) => (
            <Box key={field.key} sx={{ gridColumn: isWide(field) ? '1 / -1' : undefined, minWidth: 0 }}>
              <OptionInput
                field={field}
                value={draft[field.key] ?? ''}
                onChange={(value) => {
                  setDraft((current) => ({ ...current, [field.key]: value }));
                  if (errors[field.key]) setErrors(({ [field.key]: _dropped, ...rest }) => rest);
                }}
                onBlur={field.type === 'json' ? () => checkField(field) : undefined}
                error={errors[field.key]}
                disabled={busy}
              />
            </Box>
          ))}
        </Box>
        <Stack direction="row" spacing={1} useFlexGap sx={{ mt: 2, flexWrap: 'wrap', alignItems: 'center' }}>
          <Button
            variant="contained"
            onClick={save}
            disabled={busy}
            startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined}
          >
            {translate('app.options.save', { card: title })}
          </Button>
          {extra?.({ busy, setBusy, resync })}
        </Stack>
        {outcome ? <OutcomeAlert outcome={outcome} labelOf={labelOf} /> : null}
        {children}
      </CardContent>
      <Dialog open={Boolean(pending)} onClose={() => setPending(null)} maxWidth="xs" fullWidth>
        <DialogTitle>{translate('app.options.confirm_title')}</DialogTitle>
        <DialogContent>
          <DialogContentText>{pending ? translate(pending.warning) : ''}</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setPending(null)}>{translate('app.common.cancel')}</Button>
          <Button
            color="error"
            variant="contained"
            onClick={() => {
              const keys = pending?.keys ?? [];
              setPending(null);
              void send(keys);
            }}
          >
            {translate('app.options.confirm_save')}
          </Button>
        </DialogActions>
      </Dialog>
    </Card>
  );
};

const OutcomeAlert = ({ outcome, labelOf }: { outcome: SaveOutcome; labelOf: (key: string) => string }) => {
  const translate = useTranslate();
  const severity = outcome.refused.length === 0 ? 'success' : outcome.saved.length ? 'warning' : 'error';
  return (
    <Alert severity={severity} sx={{ mt: 2 }} role="status" data-testid="option-save-outcome">
      {outcome.saved.length ? (
        <div>{translate('app.options.saved', { keys: outcome.saved.map(labelOf).join(translate('app.options.separator')) })}</div>
      ) : null}
      {outcome.refused.map(({ key, message }) => (
        <div key={key}>{translate('app.options.refused', { key: labelOf(key), message })}</div>
      ))}
    </Alert>
  );
};
