/** One hourly `quota_data` row as `/api/data/` and `/api/data/self` answer it. */
export interface QuotaDataRow {
  id: number;
  user_id: number;
  username: string;
  model_name: string;
  /** Unix seconds, the start of a UTC hour. */
  created_at: number;
  token_used: number;
  count: number;
  quota: number;
}

export type Granularity = 'hour' | 'day' | 'week';
export const GRANULARITIES: readonly Granularity[] = ['hour', 'day', 'week'];

export const toGranularity = (value: unknown): Granularity =>
  GRANULARITIES.includes(value as Granularity) ? (value as Granularity) : 'hour';

const pad = (value: number) => String(value).padStart(2, '0');
const monthDay = (date: Date) => `${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;

/**
 * The bucket a row falls in, in the browser's time zone as new-api's chart labels are: the hour ("11-25 14:00"),
 * the day ("11-25") or the week from Monday to Sunday ("11-23 - 11-29"). new-api labelled a week from each row's
 * own day, so one week's rows landed in up to seven bars; here they share the week they are in.
 */
export function bucketOf(createdAt: number, granularity: Granularity): { start: number; label: string } {
  const date = new Date(createdAt * 1000);
  if (granularity === 'hour') {
    date.setMinutes(0, 0, 0);
    return { start: date.getTime(), label: `${monthDay(date)} ${pad(date.getHours())}:00` };
  }
  date.setHours(0, 0, 0, 0);
  if (granularity === 'day') return { start: date.getTime(), label: monthDay(date) };
  date.setDate(date.getDate() - ((date.getDay() + 6) % 7));
  const end = new Date(date);
  end.setDate(end.getDate() + 6);
  return { start: date.getTime(), label: `${monthDay(date)} - ${monthDay(end)}` };
}

export interface ModelTotal {
  model: string;
  quota: number;
  count: number;
  tokens: number;
}

/** A chart point: the bucket's label and, per model, its summed quota (`quota:<model>`) and count (`count:<model>`). */
export type SeriesPoint = { label: string } & Record<string, number | string>;

export interface DashboardSeries {
  totals: { quota: number; count: number; tokens: number };
  /** Models by descending quota, then count, then name: the order of the legend and the stacks. */
  models: ModelTotal[];
  points: SeriesPoint[];
}

export const quotaKey = (model: string) => `quota:${model}`;
export const countKey = (model: string) => `count:${model}`;

/** Sums the rows per bucket and model, and overall; buckets in time order, every model present in every point. */
export function buildSeries(rows: readonly QuotaDataRow[], granularity: Granularity): DashboardSeries {
  const models = new Map<string, ModelTotal>();
  const buckets = new Map<number, { label: string; values: Map<string, { quota: number; count: number }> }>();
  const totals = { quota: 0, count: 0, tokens: 0 };
  for (const row of rows) {
    const model = row.model_name;
    const total = models.get(model) ?? { model, quota: 0, count: 0, tokens: 0 };
    total.quota += row.quota;
    total.count += row.count;
    total.tokens += row.token_used;
    models.set(model, total);
    totals.quota += row.quota;
    totals.count += row.count;
    totals.tokens += row.token_used;
    const { start, label } = bucketOf(row.created_at, granularity);
    const bucket = buckets.get(start) ?? { label, values: new Map() };
    const value = bucket.values.get(model) ?? { quota: 0, count: 0 };
    value.quota += row.quota;
    value.count += row.count;
    bucket.values.set(model, value);
    buckets.set(start, bucket);
  }
  const ordered = [...models.values()].sort((a, b) => b.quota - a.quota || b.count - a.count || a.model.localeCompare(b.model));
  const points = [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, bucket]) => {
      const point: SeriesPoint = { label: bucket.label };
      for (const { model } of ordered) {
        const value = bucket.values.get(model);
        point[quotaKey(model)] = value?.quota ?? 0;
        point[countKey(model)] = value?.count ?? 0;
      }
      return point;
    });
  return { totals, models: ordered, points };
}

/** Requests (or tokens) per minute over the chosen range, three decimals as new-api shows them. */
export function perMinute(amount: number, startSeconds: number, endSeconds: number): string {
  const minutes = (endSeconds - startSeconds) / 60;
  return minutes > 0 ? (amount / minutes).toFixed(3) : '0.000';
}

const PALETTE = [
  '#1664ff',
  '#1ac6ff',
  '#ff8a00',
  '#3cc780',
  '#7442d4',
  '#ffc400',
  '#304d77',
  '#b48df3',
  '#009488',
  '#ff7dda',
  '#e5484d',
  '#8d6e63',
];

/**
 * A colour per model, the same in every chart: each model starts from the colour its name hashes to and moves on to
 * the next free one, so two models on screen never share a colour while the palette lasts.
 */
export function modelColors(models: readonly string[]): Map<string, string> {
  const colors = new Map<string, string>();
  const taken = new Set<number>();
  for (const model of models) {
    let hash = 0;
    for (let index = 0; index < model.length; index++) hash = (hash * 31 + model.charCodeAt(index)) >>> 0;
    let slot = hash % PALETTE.length;
    for (let tries = 0; taken.has(slot) && tries < PALETTE.length; tries++) slot = (slot + 1) % PALETTE.length;
    taken.add(slot);
    colors.set(model, PALETTE[slot]);
  }
  return colors;
}

const DAY_SECONDS = 86_400;

/** new-api's default ranges per granularity: the last day, week or month, to an hour from now. */
export function defaultRange(granularity: Granularity, nowSeconds: number): { start: number; end: number } {
  const end = nowSeconds + 3600;
  if (granularity === 'hour') return { start: nowSeconds - DAY_SECONDS, end };
  if (granularity === 'day') return { start: nowSeconds - 7 * DAY_SECONDS, end };
  // new-api started a month back from now, so with the extra hour a user's own query spanned more than the 30 days
  // /api/data/self allows and was refused; the month here ends at the range's end.
  return { start: end - 30 * DAY_SECONDS, end };
}

/** Unix seconds as a `datetime-local` input value (local time, minutes). */
export function toInputValue(seconds: number): string {
  const date = new Date(seconds * 1000);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A `datetime-local` value as unix seconds, or null when it is empty or not a date. */
export function fromInputValue(value: string): number | null {
  if (!value) return null;
  const time = new Date(value).getTime();
  return Number.isFinite(time) ? Math.floor(time / 1000) : null;
}
