import { decideManage } from './decide-manage';

const common = { role: 1, status: 1 };
const admin = { role: 10, status: 1 };
const root = { role: 100, status: 1 };

describe('decideManage', () => {
  describe('given an admin caller', () => {
    it('disables, enables and cancels common users', () => {
      expect(decideManage('disable', 10, common)).toEqual({ role: 1, status: 2, cancel: false });
      expect(decideManage('enable', 10, { role: 1, status: 2 })).toEqual({ role: 1, status: 1, cancel: false });
      expect(decideManage('delete', 10, common)).toEqual({ role: 1, status: 1, cancel: true });
    });
    it.each(['disable', 'enable', 'delete', 'promote', 'demote', 'unknown'])('refuses %s on another admin or root', (action) => {
      expect(() => decideManage(action, 10, admin)).toThrow('无权更新同权限等级或更高权限等级的用户信息');
      expect(() => decideManage(action, 10, root)).toThrow('无权更新同权限等级或更高权限等级的用户信息');
    });
    it('cannot promote', () => {
      expect(() => decideManage('promote', 10, common)).toThrow('普通管理员用户无法提升其他用户为管理员');
    });
    it('cannot demote a common user further', () => {
      expect(() => decideManage('demote', 10, common)).toThrow('该用户已经是普通用户');
    });
  });

  describe('given root', () => {
    it('promotes a common user to admin, never to root', () => {
      expect(decideManage('promote', 100, common)).toEqual({ role: 10, status: 1, cancel: false });
    });
    it('refuses to promote an admin again', () => {
      expect(() => decideManage('promote', 100, admin)).toThrow('该用户已经是管理员');
    });
    it('demotes and disables admins', () => {
      expect(decideManage('demote', 100, admin)).toEqual({ role: 1, status: 1, cancel: false });
      expect(decideManage('disable', 100, admin)).toEqual({ role: 10, status: 2, cancel: false });
    });
    it('cannot disable, cancel or demote root', () => {
      expect(() => decideManage('disable', 100, root)).toThrow('无法禁用超级管理员用户');
      expect(() => decideManage('delete', 100, root)).toThrow('无法删除超级管理员用户');
      expect(() => decideManage('demote', 100, root)).toThrow('无法降级超级管理员用户');
      expect(() => decideManage('promote', 100, root)).toThrow('该用户已经是管理员');
    });
  });

  it('changes nothing, and still succeeds, for an unknown action', () => {
    expect(decideManage('explode', 100, { role: 1, status: 2 })).toEqual({ role: 1, status: 2, cancel: false });
  });
});
