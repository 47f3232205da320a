import { useEffect, type ReactNode } from 'react';
import { Box } from '@mui/material';
import { Layout, useSidebarState } from 'react-admin';
import { useStatusFailureNotice } from '../hooks/useStatusFailureNotice';
import { useStatus } from '../providers/statusStore';
import { DefaultPasswordWarning } from './DefaultPasswordWarning';
import { Footer } from './Footer';
import { SidebarMenu } from './SidebarMenu';
import { TopBar } from './TopBar';

let collapseApplied = false;

/** default_collapse_sidebar closes the sidebar once per page load; the user may open it again. */
const useDefaultSidebarCollapse = () => {
  const { default_collapse_sidebar: collapse } = useStatus();
  const [, setOpen] = useSidebarState();
  useEffect(() => {
    if (collapse && !collapseApplied) {
      collapseApplied = true;
      setOpen(false);
    }
  }, [collapse, setOpen]);
};

export const ConsoleLayout = ({ children }: { children: ReactNode }) => {
  useStatusFailureNotice();
  useDefaultSidebarCollapse();
  return (
    <Layout appBar={TopBar} menu={SidebarMenu}>
      <Box sx={{ display: 'flex', flexDirection: 'column', flex: 1, minHeight: 'calc(100vh - 64px)' }}>
        <Box sx={{ flex: 1 }}>{children}</Box>
        <Footer />
      </Box>
      <DefaultPasswordWarning />
    </Layout>
  );
};
