import { Button } from '@mui/material';
import { useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';

/** The user list's row action to a user's statement (cancelled users keep theirs). */
export const StatementRowButton = ({ userId }: { userId: number }) => {
  const translate = useTranslate();
  return (
    <Button size="small" component={Link} to={`/user/statement/${userId}`}>
      {translate('app.statement.open')}
    </Button>
  );
};
