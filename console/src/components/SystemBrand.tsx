import { Box, Typography } from '@mui/material';
import { Link } from 'react-router-dom';
import { useStatus } from '../providers/statusStore';

const DEFAULT_SYSTEM_NAME = 'New API';

export const useSystemName = () => useStatus().system_name || DEFAULT_SYSTEM_NAME;

/** Logo and system name from the public status, linking home. */
export const SystemBrand = () => {
  const status = useStatus();
  const name = status.system_name || DEFAULT_SYSTEM_NAME;
  return (
    <Box
      component={Link}
      to="/"
      sx={{ display: 'flex', alignItems: 'center', gap: 1, color: 'inherit', textDecoration: 'none', minWidth: 0 }}
    >
      <img src={status.logo || '/logo.svg'} alt="" width={28} height={28} style={{ borderRadius: 6 }} />
      <Typography variant="h6" component="span" noWrap sx={{ fontSize: '1.1rem', fontWeight: 600 }}>
        {name}
      </Typography>
    </Box>
  );
};
