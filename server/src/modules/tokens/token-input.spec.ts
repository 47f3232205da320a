import { parseCreateToken, parsePage, parseTokenEdit, parseTokenId, parseTokenStatusChange } from './token-input';

const messageOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
};

describe('token input', () => {
  it('fills the defaults of a creation and reads expiry 0 as never', () => {
    expect(parseCreateToken({ name: 'n', expired_time: 0, remain_quota: null })).toEqual({
      name: 'n',
      remainQuota: 0,
      expiredTime: -1,
      unlimitedQuota: false,
      modelLimitsEnabled: false,
      modelLimits: '',
      allowIps: '',
      group: '',
    });
  });

  it('refuses what new-api would store and regret, with messages', () => {
    expect(messageOf(() => parseCreateToken({ name: 'x'.repeat(31) }))).toBe('令牌名称过长');
    expect(messageOf(() => parseCreateToken({ name: 'n', remain_quota: -1 }))).toBe('令牌额度不能为负数');
    expect(messageOf(() => parseCreateToken({ name: 'n', allow_ips: 'x' }))).toBe('IP 白名单中的 x 不是合法的 IP 地址或网段');
    for (const body of [
      {},
      null,
      [],
      'n',
      { name: 1 },
      { name: 'n', group: 5 },
      { name: 'a\u0000' },
      { name: 'n', remain_quota: 2 ** 53 },
    ]) {
      expect(messageOf(() => parseCreateToken(body))).toBe('无效的参数');
    }
  });

  it('keeps absent fields of an edit absent, and allows an unchanged negative balance through to the handler', () => {
    expect(parseTokenEdit({ id: 3, name: 'x' })).toEqual({ id: 3, status: undefined, fields: { name: 'x' } });
    expect(parseTokenEdit({ id: 3, remain_quota: -20 }).fields).toEqual({ remainQuota: -20 });
    expect(messageOf(() => parseTokenEdit({ name: 'x' }))).toBe('id 或 userId 为空！');
    expect(messageOf(() => parseTokenEdit({ id: -3 }))).toBe('record not found');
  });

  it('takes only 1 and 2 as a status change', () => {
    expect(parseTokenStatusChange({ id: 1, status: 2 })).toEqual({ id: 1, status: 2 });
    for (const status of [0, 3, 4, '1', null]) expect(messageOf(() => parseTokenStatusChange({ id: 1, status }))).toBe('无效的参数');
  });

  it('reads path ids and pages as new-api does', () => {
    expect(parseTokenId('42')).toBe(42);
    expect(messageOf(() => parseTokenId('0'))).toBe('id 或 userId 为空！');
    for (const raw of ['-1', 'x', '1.0', '2147483648', '']) expect(messageOf(() => parseTokenId(raw))).toBe('无效的参数');
    expect(parsePage({})).toEqual({ page: 0, size: 10 });
    expect(parsePage({ p: '3', size: '999' })).toEqual({ page: 3, size: 100 });
    expect(parsePage({ p: ['2', '5'], size: '-4' })).toEqual({ page: 2, size: 10 });
  });
});
