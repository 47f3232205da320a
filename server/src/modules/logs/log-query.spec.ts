import { filterWhere, goInt, parseFilters, parsePaging, targetTimestamp } from './log-query';

describe('log query parsing', () => {
  it('reads numbers like Go strconv with the error ignored: junk is 0, out of range clamps', () => {
    expect(goInt('42')).toBe(42);
    expect(goInt('+7')).toBe(7);
    expect(goInt('-3')).toBe(-3);
    expect(goInt('12abc')).toBe(0);
    expect(goInt(' 1')).toBe(0);
    expect(goInt('')).toBe(0);
    expect(goInt('1e3')).toBe(0);
    expect(goInt('99999999999999999999999')).toBe(Number.MAX_SAFE_INTEGER);
    expect(goInt('-99999999999999999999999')).toBe(Number.MIN_SAFE_INTEGER);
  });

  it('reads target_timestamp strictly: junk, fractions, exponents and out-of-range numbers are 0 (refused), never clamped', () => {
    expect(targetTimestamp('1732400000')).toBe(1_732_400_000);
    expect(targetTimestamp('+5')).toBe(5);
    expect(targetTimestamp('-5')).toBe(-5);
    for (const junk of [
      '',
      'abc',
      '1.5',
      '1e9',
      'Infinity',
      '-Infinity',
      'NaN',
      ' 1',
      '0x10',
      '99999999999999999999',
      '-99999999999999999999',
      '9007199254740993',
    ]) {
      expect(targetTimestamp(junk)).toBe(0);
    }
    expect(targetTimestamp(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('pages 1-based: p below 1 is 1, negative page_size is 10, 0 stays 0, self caps at 100', () => {
    expect(parsePaging({}, { kind: 'all' })).toEqual({ page: 1, pageSize: 0 });
    expect(parsePaging({ p: '-4', page_size: '-1' }, { kind: 'all' })).toEqual({ page: 1, pageSize: 10 });
    expect(parsePaging({ p: '3', page_size: '20' }, { kind: 'all' })).toEqual({ page: 3, pageSize: 20 });
    expect(parsePaging({ p: '2', page_size: '500' }, { kind: 'self', userId: 1 })).toEqual({ page: 2, pageSize: 100 });
    expect(parsePaging({ p: '1e9', page_size: 'x' }, { kind: 'all' })).toEqual({ page: 1, pageSize: 0 });
    expect(parsePaging({ p: ['2', '5'], page_size: ['7'] }, { kind: 'all' })).toEqual({ page: 2, pageSize: 7 });
  });

  it('takes username and channel only where the route accepts them', () => {
    const query = {
      username: 'bob',
      channel: '4',
      token_name: 't',
      model_name: 'gpt%',
      group: 'vip',
      type: '2',
      start_timestamp: '10',
      end_timestamp: '20',
    };
    expect(parseFilters(query, { username: true, channel: true })).toEqual({
      type: 2,
      username: 'bob',
      tokenName: 't',
      modelName: 'gpt%',
      group: 'vip',
      startTimestamp: 10,
      endTimestamp: 20,
      channel: 4,
    });
    expect(parseFilters(query, { username: false, channel: false })).toMatchObject({ username: '', channel: 0 });
  });

  it('builds the new-api filter set, numbered parameters, the caller first on own routes', () => {
    const filters = parseFilters(
      { type: '2', model_name: 'gpt-4o', username: 'bob', channel: '3', start_timestamp: '5' },
      { username: true, channel: true },
    );
    const where = filterWhere(filters, { kind: 'self', userId: 9 });
    expect(where.sql).toBe(
      "WHERE user_id = $1::bigint AND type = $2::bigint AND model_name LIKE $3 ESCAPE '' AND username = $4 AND created_at >= $5::bigint AND channel_id = $6::bigint",
    );
    expect(where.params).toEqual([9, 2, 'gpt-4o', 'bob', 5, 3]);
    expect(filterWhere(parseFilters({}, { username: true, channel: true }), { kind: 'all' }).sql).toBe('');
  });

  it('leaves out type and the time range when asked (the stat routes) and marks NUL text as matching nothing', () => {
    const filters = parseFilters(
      { type: '3', start_timestamp: '5', end_timestamp: '9', token_name: 'a\u0000b' },
      { username: true, channel: true },
    );
    const where = filterWhere(filters, { kind: 'all' }, { type: false, timeRange: false });
    expect(where.sql).toBe('WHERE token_name = $1');
    expect(where.impossible).toBe(true);
  });
});
