import { Box } from '@mui/material';
import { Title, useTranslate } from 'react-admin';
import { OperatorContentView } from './about/OperatorContentView';
import { useOperatorContent } from './about/useOperatorContent';
import { DefaultHome } from './home/DefaultHome';
import { NoticeDialog } from './home/NoticeDialog';

/** The public home page: HomePageContent (Markdown, or an https page in a frame), else the default home; the notice once per change. */
export const HomePage = () => {
  const translate = useTranslate();
  const state = useOperatorContent('/api/home_page_content', 'home_page_content');
  return (
    <Box sx={{ p: { xs: 1, sm: 2 } }}>
      <Title title={translate('app.menu.home')} />
      <OperatorContentView state={state} failedKey="pages.content.home_failed" fallback={<DefaultHome />} />
      <NoticeDialog />
    </Box>
  );
};
