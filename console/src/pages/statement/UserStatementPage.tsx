import { useParams } from 'react-router-dom';
import { useGetOne, useTranslate } from 'react-admin';
import type { User } from '../../lib/types';
import { RequireAdmin } from '../../resources/users/RequireAdmin';
import { StatementList } from './StatementList';

const StatementOfUser = ({ userId }: { userId: number }) => {
  const translate = useTranslate();
  const { data: user } = useGetOne<User>('user', { id: userId });
  const name = user ? user.username : `#${userId}`;
  return <StatementList key={userId} title={translate('app.statement.title_of_user', { name })} userId={userId} ownerId={userId} />;
};

/** /user/statement/:id: an admin reads any user's statement (the row action of the user list). */
export const UserStatementPage = () => {
  const { id } = useParams();
  const userId = Number(id);
  return <RequireAdmin>{Number.isSafeInteger(userId) && userId > 0 ? <StatementOfUser userId={userId} /> : null}</RequireAdmin>;
};
