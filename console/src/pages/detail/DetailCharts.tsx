import { useMemo, type ReactNode } from 'react';
import { Box, Card, CardContent, CardHeader, Typography, useTheme } from '@mui/material';
import { useTranslate } from 'react-admin';
import { Bar, BarChart, CartesianGrid, Cell, Legend, Pie, PieChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { renderNumber, renderQuota } from '../../lib/quota';
import type { PublicStatus } from '../../lib/types';
import { countKey, type DashboardSeries, modelColors, quotaKey } from './quotaDataSeries';

interface ChartCardProps {
  title: string;
  subtitle: string;
  testId: string;
  empty: boolean;
  children: ReactNode;
}

const CHART_HEIGHT = 320;

const ChartCard = ({ title, subtitle, testId, empty, children }: ChartCardProps) => {
  const translate = useTranslate();
  return (
    <Card data-testid={testId} sx={{ minWidth: 0 }}>
      <CardHeader
        title={title}
        subheader={subtitle}
        slotProps={{ title: { variant: 'h6', component: 'h2' }, subheader: { 'data-testid': `${testId}-total` } as object }}
      />
      <CardContent sx={{ pt: 0 }}>
        {empty ? (
          <Box sx={{ height: CHART_HEIGHT, display: 'grid', placeItems: 'center' }}>
            <Typography color="text.secondary">{translate('app.detail.no_data')}</Typography>
          </Box>
        ) : (
          <Box sx={{ width: '100%', height: CHART_HEIGHT }}>{children}</Box>
        )}
      </CardContent>
    </Card>
  );
};

/**
 * The dashboard's charts (recharts): quota by model as stacked bars per time bucket, requests by model the same
 * way, and each model's share of the requests as a ring. Colours per model are shared by the three; axes, grid and
 * tooltips take the theme's colours so the charts read in the light and the dark theme.
 */
export const DetailCharts = ({ series, status }: { series: DashboardSeries; status: PublicStatus }) => {
  const translate = useTranslate();
  const theme = useTheme();
  const colors = useMemo(() => modelColors(series.models.map((model) => model.model)), [series.models]);
  const empty = series.points.length === 0;
  const axis = { stroke: theme.palette.text.secondary, tick: { fill: theme.palette.text.secondary, fontSize: 12 } };
  const tooltipStyle = {
    contentStyle: {
      background: theme.palette.background.paper,
      border: `1px solid ${theme.palette.divider}`,
      color: theme.palette.text.primary,
    },
    labelStyle: { color: theme.palette.text.primary },
    cursor: { fill: theme.palette.action.hover },
  };
  const legendStyle = { wrapperStyle: { color: theme.palette.text.primary, fontSize: 12 } };
  const quotaFormatter = (value: unknown) => renderQuota(Number(value), status);
  const pie = series.models.map((model) => ({ name: model.model, value: model.count }));

  return (
    <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', lg: '2fr 1fr' } }}>
      <Box sx={{ gridColumn: { lg: '1 / -1' }, minWidth: 0 }}>
        <ChartCard
          title={translate('app.detail.consumption_title')}
          subtitle={translate('app.detail.total', { value: renderQuota(series.totals.quota, status) })}
          testId="detail-consumption-chart"
          empty={empty}
        >
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={series.points} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke={theme.palette.divider} />
              <XAxis dataKey="label" {...axis} />
              <YAxis {...axis} width={64} tickFormatter={(value: number) => quotaFormatter(value)} />
              <Tooltip {...tooltipStyle} formatter={quotaFormatter} />
              <Legend {...legendStyle} />
              {series.models.map(({ model }) => (
                <Bar
                  key={model}
                  dataKey={quotaKey(model)}
                  name={model}
                  stackId="quota"
                  fill={colors.get(model)}
                  isAnimationActive={false}
                />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </ChartCard>
      </Box>
      <ChartCard
        title={translate('app.detail.count_title')}
        subtitle={translate('app.detail.total', { value: renderNumber(series.totals.count) })}
        testId="detail-count-chart"
        empty={empty}
      >
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={series.points} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke={theme.palette.divider} />
            <XAxis dataKey="label" {...axis} />
            <YAxis {...axis} width={48} allowDecimals={false} />
            <Tooltip {...tooltipStyle} />
            <Legend {...legendStyle} />
            {series.models.map(({ model }) => (
              <Bar key={model} dataKey={countKey(model)} name={model} stackId="count" fill={colors.get(model)} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </ChartCard>
      <ChartCard
        title={translate('app.detail.share_title')}
        subtitle={translate('app.detail.total', { value: renderNumber(series.totals.count) })}
        testId="detail-share-chart"
        empty={empty}
      >
        <ResponsiveContainer width="100%" height="100%">
          <PieChart>
            <Pie data={pie} dataKey="value" nameKey="name" innerRadius="45%" outerRadius="75%" paddingAngle={1} isAnimationActive={false}>
              {pie.map((entry) => (
                <Cell key={entry.name} fill={colors.get(entry.name)} stroke={theme.palette.background.paper} />
              ))}
            </Pie>
            <Tooltip {...tooltipStyle} />
            <Legend {...legendStyle} />
          </PieChart>
        </ResponsiveContainer>
      </ChartCard>
    </Box>
  );
};
