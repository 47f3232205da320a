import { groupNames, usableGroups } from './group-views';

describe('group views', () => {
  it('lists the GroupRatio keys', () => {
    expect(groupNames({ default: 1, vip: 1, svip: 1 }).sort()).toEqual(['default', 'svip', 'vip']);
    expect(groupNames({})).toEqual([]);
  });

  it('offers the groups present in both GroupRatio and UserUsableGroups, with their descriptions', () => {
    expect(usableGroups({ default: 1, vip: 1, svip: 1 }, { default: '默认分组', vip: 'vip分组' })).toEqual({
      default: '默认分组',
      vip: 'vip分组',
    });
    // A usable group without a ratio cannot be priced, so it is not offered.
    expect(usableGroups({ default: 1 }, { default: '默认分组', gold: 'Gold' })).toEqual({ default: '默认分组' });
    expect(usableGroups({}, { default: '默认分组' })).toEqual({});
  });

  it('ignores inherited names and descriptions that are not text', () => {
    expect(usableGroups({ default: 1 }, { toString: 'x', default: 5 } as Record<string, unknown>)).toEqual({});
  });
});
