import { useCallback, useEffect, useState } from 'react';
import { Box, Stack } from '@mui/material';
import { Authenticated, Title, useTranslate } from 'react-admin';
import { useSearchParams } from 'react-router-dom';
import { useApiData } from '../../hooks/useApiData';
import { useApiNotify } from '../../hooks/useApiNotify';
import { PlaygroundChat } from './PlaygroundChat';
import { PlaygroundSettingsPanel, type GroupOption } from './PlaygroundSettingsPanel';
import { usePlaygroundChat, type PlaygroundSettings } from './usePlaygroundChat';

const PlaygroundContent = () => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const [searchParams] = useSearchParams();
  const [settings, setSettings] = useState<PlaygroundSettings>(() => ({
    group: '',
    model: 'gpt-4o-mini',
    temperature: 0,
    maxTokens: '0',
    systemPrompt: translate('pages.playground.system_default'),
  }));
  const groupsAnswer = useApiData<Record<string, string>>('/api/user/groups');
  const modelsAnswer = useApiData<string[]>('/api/user/models');
  const chat = usePlaygroundChat(settings);

  const groups: GroupOption[] = Object.entries(groupsAnswer.data ?? {}).map(([value, label]) => ({ value, label }));
  if (!groupsAnswer.loading && groups.length === 0) groups.push({ value: '', label: translate('pages.playground.user_group') });
  const firstGroup = groups[0]?.value;

  const change = useCallback((update: Partial<PlaygroundSettings>) => setSettings((current) => ({ ...current, ...update })), []);

  // new-api picks the first usable group once the list arrives.
  useEffect(() => {
    if (firstGroup !== undefined) change({ group: firstGroup });
  }, [firstGroup, change]);

  useEffect(() => {
    if (searchParams.get('expired')) notify.failure('app.errors.expired');
  }, [searchParams, notify]);

  return (
    <Box sx={{ p: { xs: 1, sm: 2 } }}>
      <Title title={translate('app.menu.playground')} />
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: { md: 'flex-start' } }}>
        <PlaygroundSettingsPanel
          settings={settings}
          onChange={change}
          groups={groups}
          models={modelsAnswer.data ?? []}
          loading={modelsAnswer.loading}
        />
        <PlaygroundChat messages={chat.messages} streaming={chat.streaming} onSend={chat.send} onStop={chat.stop} onClear={chat.clear} />
      </Stack>
    </Box>
  );
};

/** /playground: chat with a model through `/pg/chat/completions`, on the session (no API token). */
export const PlaygroundPage = () => (
  <Authenticated>
    <PlaygroundContent />
  </Authenticated>
);
