/**
 * The column transformer of every `bigint` read-model column: pg returns a bigint as a string; the read models hold
 * numbers (quota and seconds stay far below 2^53). NULL reads as 0.
 */
export const bigintAsNumber = {
  to: (value: number | undefined) => value,
  from: (value: string | number | null) => (value === null ? 0 : Number(value)),
};
