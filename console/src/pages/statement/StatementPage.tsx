import { Authenticated, useTranslate } from 'react-admin';
import { useSessionUser } from '../../hooks/useSessionUser';
import { StatementList } from './StatementList';

/** /statement: the caller's own statement (linked from the wallet). */
export const StatementPage = () => {
  const translate = useTranslate();
  const user = useSessionUser();
  return (
    <Authenticated>
      <StatementList title={translate('app.statement.title')} ownerId={user?.id} />
    </Authenticated>
  );
};
