import { Box, Tab, Tabs } from '@mui/material';
import { Authenticated, Title, useTranslate } from 'react-admin';
import { useSearchParams } from 'react-router-dom';
import { useSessionUser } from '../hooks/useSessionUser';
import { ROLE_ROOT } from '../lib/types';
import { OperationTab } from './settings/OperationTab';
import { OtherTab } from './settings/OtherTab';
import { PersonalTab } from './settings/PersonalTab';
import { SystemTab } from './settings/SystemTab';

const ROOT_TABS = ['operation', 'system', 'other'] as const;
type SettingsTab = 'personal' | (typeof ROOT_TABS)[number];

/** /setting?tab=personal|operation|system|other; only the super admin sees the last three. */
export const SettingsPage = () => {
  const translate = useTranslate();
  const user = useSessionUser();
  const [searchParams, setSearchParams] = useSearchParams();
  const isRoot = (user?.role ?? 0) >= ROLE_ROOT;
  const tabs: SettingsTab[] = isRoot ? ['personal', ...ROOT_TABS] : ['personal'];
  const requested = searchParams.get('tab') as SettingsTab | null;
  const tab: SettingsTab = requested && tabs.includes(requested) ? requested : 'personal';

  return (
    <Authenticated>
      <Box sx={{ p: { xs: 1, sm: 2 }, maxWidth: 1100 }}>
        <Title title={translate('app.setting.title')} />
        <Tabs
          value={tab}
          onChange={(_, value: SettingsTab) => setSearchParams({ tab: value })}
          variant="scrollable"
          allowScrollButtonsMobile
          // Inline-size containment: the tab strip scrolls instead of widening the page past a phone's width.
          sx={{ mb: 2, contain: 'inline-size' }}
        >
          {tabs.map((name) => (
            <Tab key={name} value={name} label={translate(`app.setting.tab_${name}`)} />
          ))}
        </Tabs>
        {tab === 'personal' ? <PersonalTab /> : null}
        {tab === 'operation' ? <OperationTab /> : null}
        {tab === 'system' ? <SystemTab /> : null}
        {tab === 'other' ? <OtherTab /> : null}
      </Box>
    </Authenticated>
  );
};
