import HubIcon from '@mui/icons-material/Hub';
import { ChannelList } from './ChannelList';

/** The `channel` resource: the list at /channel; the editor at /channel/add and /channel/edit/:id (routes in App.tsx). */
export const channels = {
  list: ChannelList,
  icon: HubIcon,
};

export default channels;
