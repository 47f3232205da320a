import ArticleIcon from '@mui/icons-material/Article';
import { LogList } from './LogList';

/** The `log` resource: one screen, /log, for every logged-in user (admins see more). */
export const logs = {
  list: LogList,
  icon: ArticleIcon,
};

export default logs;
