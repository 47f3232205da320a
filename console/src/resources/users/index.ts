import PeopleIcon from '@mui/icons-material/People';
import { UserCreate } from './UserCreate';
import { UserEdit } from './UserEdit';
import { UserList } from './UserList';

export { UserSelfEdit } from './UserSelfEdit';

/** The `user` resource: its react-admin routes are /user, /user/:id and /user/create; App adds /user/edit/:id and /user/add. */
export const users = {
  list: UserList,
  edit: UserEdit,
  create: UserCreate,
  icon: PeopleIcon,
};

export default users;
