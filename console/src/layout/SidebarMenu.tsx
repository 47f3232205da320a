import type { ReactElement } from 'react';
import { Menu } from 'react-admin';
import ScienceIcon from '@mui/icons-material/Science';
import PriceChangeIcon from '@mui/icons-material/PriceChange';
import HubIcon from '@mui/icons-material/Hub';
import ForumIcon from '@mui/icons-material/Forum';
import KeyIcon from '@mui/icons-material/Key';
import RedeemIcon from '@mui/icons-material/Redeem';
import WalletIcon from '@mui/icons-material/AccountBalanceWallet';
import PeopleIcon from '@mui/icons-material/People';
import ArticleIcon from '@mui/icons-material/Article';
import DashboardIcon from '@mui/icons-material/Dashboard';
import PaletteIcon from '@mui/icons-material/Palette';
import PendingActionsIcon from '@mui/icons-material/PendingActions';
import SettingsIcon from '@mui/icons-material/Settings';
import { useSessionUser } from '../hooks/useSessionUser';
import { ROLE_ADMIN, type PublicStatus } from '../lib/types';
import { useStatus } from '../providers/statusStore';

interface SidebarEntry {
  to: string;
  labelKey: string;
  icon: ReactElement;
  visible?: (context: { isAdmin: boolean; status: PublicStatus }) => boolean;
}

/** The sidebar entries in new-api's order, each with the condition that shows it. */
export const SIDEBAR_ENTRIES: SidebarEntry[] = [
  { to: '/playground', labelKey: 'app.menu.playground', icon: <ScienceIcon /> },
  { to: '/pricing', labelKey: 'app.menu.pricing', icon: <PriceChangeIcon /> },
  { to: '/channel', labelKey: 'app.menu.channel', icon: <HubIcon />, visible: ({ isAdmin }) => isAdmin },
  { to: '/chat', labelKey: 'app.menu.chat', icon: <ForumIcon />, visible: ({ status }) => Boolean(status.chat_link) },
  { to: '/token', labelKey: 'app.menu.token', icon: <KeyIcon /> },
  { to: '/redemption', labelKey: 'app.menu.redemption', icon: <RedeemIcon />, visible: ({ isAdmin }) => isAdmin },
  { to: '/topup', labelKey: 'app.menu.topup', icon: <WalletIcon /> },
  { to: '/user', labelKey: 'app.menu.user', icon: <PeopleIcon />, visible: ({ isAdmin }) => isAdmin },
  { to: '/log', labelKey: 'app.menu.log', icon: <ArticleIcon /> },
  {
    to: '/detail',
    labelKey: 'app.menu.detail',
    icon: <DashboardIcon />,
    visible: ({ status }) => status.enable_data_export !== false,
  },
  {
    to: '/midjourney',
    labelKey: 'app.menu.midjourney',
    icon: <PaletteIcon />,
    visible: ({ status }) => status.enable_drawing !== false,
  },
  {
    to: '/task',
    labelKey: 'app.menu.task',
    icon: <PendingActionsIcon />,
    visible: ({ status }) => status.enable_task !== false,
  },
  { to: '/setting', labelKey: 'app.menu.setting', icon: <SettingsIcon /> },
];

export const SidebarMenu = () => {
  const user = useSessionUser();
  const status = useStatus();
  const context = { isAdmin: (user?.role ?? 0) >= ROLE_ADMIN, status };
  return (
    <Menu>
      {SIDEBAR_ENTRIES.filter((entry) => entry.visible?.(context) ?? true).map((entry) => (
        <Menu.Item key={entry.to} to={entry.to} primaryText={entry.labelKey} leftIcon={entry.icon} />
      ))}
    </Menu>
  );
};
