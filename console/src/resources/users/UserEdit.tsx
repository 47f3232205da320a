import { Typography } from '@mui/material';
import {
  Edit,
  FormDataConsumer,
  NumberInput,
  PasswordInput,
  required,
  SaveButton,
  SelectInput,
  SimpleForm,
  Toolbar,
  TextInput,
  minValue,
  useNotify,
  useRedirect,
  useTranslate,
} from 'react-admin';
import { useParams } from 'react-router-dom';
import { renderQuota } from '../../lib/quota';
import { useStatus } from '../../providers/statusStore';
import { RequireAdmin } from './RequireAdmin';
import { useGroupChoices } from './useGroupChoices';

const QuotaEquivalent = ({ quota }: { quota: unknown }) => {
  const translate = useTranslate();
  const status = useStatus();
  const value = Number.parseInt(String(quota ?? 0), 10);
  return (
    <Typography variant="caption" color="text.secondary" sx={{ mt: -1, mb: 2 }}>
      {translate('app.users.quota_equivalent', { amount: renderQuota(Number.isFinite(value) ? value : 0, status) })}
    </Typography>
  );
};

/** Saving only: cancelling a user is a row action of the list, with its own confirmation. */
const UserEditToolbar = () => (
  <Toolbar>
    <SaveButton />
  </Toolbar>
);

/** /user/edit/:id: username, display name, new password (blank keeps it), group and integer quota. */
export const UserEdit = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const redirect = useRedirect();
  const groups = useGroupChoices();
  const { id } = useParams();
  return (
    <RequireAdmin>
      <Edit
        resource="user"
        id={id}
        title={translate('app.users.edit_title')}
        mutationMode="pessimistic"
        mutationOptions={{
          onSuccess: () => {
            notify('app.users.updated', { type: 'success' });
            redirect('list', 'user');
          },
        }}
        transform={(data) => ({ ...data, quota: Number.parseInt(String(data.quota ?? 0), 10) || 0 })}
      >
        <SimpleForm sx={{ maxWidth: 560 }} toolbar={<UserEditToolbar />}>
          <TextInput source="username" validate={required()} fullWidth />
          <TextInput source="display_name" fullWidth />
          <PasswordInput
            source="password"
            placeholder={translate('app.users.password_edit_placeholder')}
            autoComplete="new-password"
            fullWidth
          />
          <SelectInput source="group" choices={groups} validate={required()} fullWidth />
          <NumberInput source="quota" step={1} min={0} validate={minValue(0)} fullWidth />
          <FormDataConsumer>{({ formData }) => <QuotaEquivalent quota={formData.quota} />}</FormDataConsumer>
        </SimpleForm>
      </Edit>
    </RequireAdmin>
  );
};
