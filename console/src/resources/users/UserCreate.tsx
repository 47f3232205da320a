import { Create, PasswordInput, required, SimpleForm, TextInput, useNotify, useRedirect, useTranslate } from 'react-admin';
import { RequireAdmin } from './RequireAdmin';

/** /user/add: username and password are required; the display name defaults to the username server-side. */
export const UserCreate = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const redirect = useRedirect();
  return (
    <RequireAdmin>
      <Create
        resource="user"
        title={translate('app.users.create_title')}
        mutationOptions={{
          onSuccess: () => {
            notify('app.users.created', { type: 'success' });
            redirect('list', 'user');
          },
        }}
      >
        <SimpleForm sx={{ maxWidth: 560 }}>
          <TextInput source="username" validate={required()} autoComplete="off" fullWidth />
          <TextInput source="display_name" fullWidth />
          <PasswordInput source="password" validate={required()} autoComplete="new-password" fullWidth />
        </SimpleForm>
      </Create>
    </RequireAdmin>
  );
};
