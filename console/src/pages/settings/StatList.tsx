import type { ReactNode } from 'react';
import { Box, Typography } from '@mui/material';

export interface Stat {
  label: string;
  value: ReactNode;
  testId?: string;
}

/** Label/value pairs as a description list, so each value is found by its label. */
export const StatList = ({ stats }: { stats: Stat[] }) => (
  <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: `repeat(${stats.length}, 1fr)` }, gap: 2, m: 0 }}>
    {stats.map((stat) => (
      <Box key={stat.label} sx={{ minWidth: 0 }}>
        <Typography component="dt" variant="body2" color="text.secondary">
          {stat.label}
        </Typography>
        <Typography component="dd" variant="h6" data-testid={stat.testId} sx={{ m: 0, fontWeight: 600 }}>
          {stat.value}
        </Typography>
      </Box>
    ))}
  </Box>
);
