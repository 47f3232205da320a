import { Stack } from '@mui/material';
import { OptionCard } from './options/OptionCard';
import { OptionsLoader } from './options/OptionsContext';
import type { OptionField } from './options/optionFields';

const NOTICE: OptionField[] = [{ key: 'Notice', type: 'text', rows: 5, help: true }];
const SYSTEM_NAME: OptionField[] = [{ key: 'SystemName', type: 'text', wide: true }];
const LOGO: OptionField[] = [{ key: 'Logo', type: 'text', wide: true, help: true }];
const HOME: OptionField[] = [{ key: 'HomePageContent', type: 'text', rows: 6, help: true }];
const ABOUT: OptionField[] = [{ key: 'About', type: 'text', rows: 6, help: true }];
const FOOTER: OptionField[] = [{ key: 'Footer', type: 'text', rows: 3, help: true }];

/** The super admin's content settings: notice, system name, logo, home page content, about and footer. */
export const OtherTab = () => (
  <OptionsLoader>
    <Stack spacing={2}>
      <OptionCard id="notice" fields={NOTICE} />
      <OptionCard id="system_name" fields={SYSTEM_NAME} />
      <OptionCard id="logo" fields={LOGO} />
      <OptionCard id="home_page" fields={HOME} />
      <OptionCard id="about" fields={ABOUT} />
      <OptionCard id="footer" fields={FOOTER} />
    </Stack>
  </OptionsLoader>
);
