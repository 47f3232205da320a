import { parseStatementRequest, parseUserId } from './statement-query';
import { StatementParamError } from './statement.errors';

describe('statement query parameters', () => {
  it('defaults to the first page of 10, every kind, no time bounds, JSON', () => {
    expect(parseStatementRequest({})).toEqual({
      filters: { startTimestamp: null, endTimestamp: null, kind: null },
      page: 1,
      pageSize: 10,
      format: 'json',
    });
  });

  it('reads every parameter, empty ones as absent', () => {
    const query = { p: '3', page_size: '100', start_timestamp: '0', end_timestamp: '1732600000', kind: 'relay_charge', format: 'csv' };
    expect(parseStatementRequest(query)).toEqual({
      filters: { startTimestamp: 0, endTimestamp: 1_732_600_000, kind: 'relay_charge' },
      page: 3,
      pageSize: 100,
      format: 'csv',
    });
    expect(parseStatementRequest({ p: '', kind: '', start_timestamp: ' ' }).page).toBe(1);
  });

  it.each([
    [{ p: 'x' }, '无效的参数 p：必须是 1 到 10000000 之间的整数'],
    [{ p: '0' }, '无效的参数 p：必须是 1 到 10000000 之间的整数'],
    [{ p: '1e3' }, '无效的参数 p：必须是 1 到 10000000 之间的整数'],
    [{ page_size: '0' }, '无效的参数 page_size：必须是 1 到 100 之间的整数'],
    [{ page_size: '101' }, '无效的参数 page_size：必须是 1 到 100 之间的整数'],
    [{ page_size: ['1', '2'] }, '无效的参数 page_size：只能给出一次'],
    [{ start_timestamp: '-5' }, `无效的参数 start_timestamp：必须是 0 到 ${Number.MAX_SAFE_INTEGER} 之间的整数`],
    [{ start_timestamp: '9', end_timestamp: '8' }, '无效的参数：start_timestamp 不能晚于 end_timestamp'],
    [
      { kind: 'topup ' + 'x' },
      '无效的参数 kind：只能是 gift、invite_reward、affiliate_transfer、admin_adjustment、redemption、topup、refund、relay_charge 之一',
    ],
    [{ format: 'pdf' }, '无效的参数 format：只能是 json 或 csv'],
  ])('refuses %j', (query, message) => {
    expect(() => parseStatementRequest(query)).toThrow(new StatementParamError(message));
  });

  it('requires a positive user_id on the admin route', () => {
    expect(parseUserId({ user_id: '7' })).toBe(7);
    expect(() => parseUserId({})).toThrow('无效的参数 user_id：必须给出用户 ID');
    expect(() => parseUserId({ user_id: '0' })).toThrow('无效的参数 user_id：必须是 1 到 2147483647 之间的整数');
    expect(() => parseUserId({ user_id: '7x' })).toThrow(StatementParamError);
  });
});
