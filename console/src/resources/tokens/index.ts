import KeyIcon from '@mui/icons-material/Key';
import { TokenList } from './TokenList';

/** The `token` resource: one screen, /token, for every logged-in user; creating and editing happen in its side drawer. */
export const tokens = {
  list: TokenList,
  icon: KeyIcon,
};

export default tokens;
