import { z } from 'zod';
import {
  cleanExternalName,
  decodeBody,
  isRowId,
  jsonInteger,
  jsonText,
  normaliseName,
  parseGoInt,
  queryText,
  validateProfile,
} from './user-input';

describe('users API input', () => {
  const schema = z.object({ name: jsonText, count: jsonInteger });

  it('decodes objects, ignoring unknown keys and reading null as absent', () => {
    expect(decodeBody(schema, { name: 'x', count: 2, extra: true })).toEqual({ name: 'x', count: 2 });
    expect(decodeBody(schema, { name: null })).toEqual({ name: undefined, count: undefined });
  });

  it.each([
    [undefined],
    [null],
    ['text'],
    [[1, 2]],
    [{ name: 5 }],
    [{ count: '5' }],
    [{ count: 1.5 }],
    [{ name: 'a\u0000b' }],
    [{ count: 2 ** 60 }],
  ])('refuses %j as 无效的参数', (body) => {
    expect(() => decodeBody(schema, body)).toThrow('无效的参数');
  });

  it('parses ids as Go strconv.Atoi does', () => {
    expect(parseGoInt('42')).toBe(42);
    expect(parseGoInt('+7')).toBe(7);
    expect(parseGoInt('007')).toBe(7);
    expect(parseGoInt(' 1')).toBeNull();
    expect(parseGoInt('1e3')).toBeNull();
    expect(parseGoInt("1' OR '1'='1")).toBeNull();
    expect(parseGoInt('')).toBeNull();
  });

  it('knows which numbers can name an integer row', () => {
    expect(isRowId(1)).toBe(true);
    expect(isRowId(0)).toBe(false);
    expect(isRowId(-1)).toBe(false);
    expect(isRowId(2 ** 31)).toBe(false);
  });

  it('reads the first query value, and nothing else, as text', () => {
    expect(queryText({ p: ['3', '4'] }, 'p')).toBe('3');
    expect(queryText({ p: { a: 1 } }, 'p')).toBe('');
    expect(queryText(undefined, 'p')).toBe('');
  });

  it('applies the validation rules in characters, not bytes', () => {
    expect(() => validateProfile({ username: '十二个汉字十二个汉字十二' })).not.toThrow();
    expect(() => validateProfile({ username: 'abcdefghijklm' })).toThrow('输入不合法 用户名长度不能超过 12 个字符');
    expect(() => validateProfile({ password: 'short' })).toThrow('输入不合法 密码长度必须在 8 到 20 个字符之间');
    expect(() => validateProfile({ password: 'x'.repeat(21) })).toThrow('输入不合法');
    expect(() => validateProfile({ password: '' })).not.toThrow();
    expect(() => validateProfile({ display_name: 'd'.repeat(21) })).toThrow('输入不合法 显示名称长度不能超过 20 个字符');
    expect(() => validateProfile({ email: `${'e'.repeat(45)}@x.com` })).toThrow('输入不合法 邮箱长度不能超过 50 个字符');
    expect(() => validateProfile({ group: 'g'.repeat(65) })).toThrow('输入不合法');
  });

  describe('look-alike names', () => {
    const hidden = '输入不合法 用户名不能包含控制字符、零宽字符或双向控制字符';

    it('normalises with NFKC: the full-width ｒｏｏｔ is root, ligatures and compatibility forms fold', () => {
      expect(normaliseName('\uFF52\uFF4F\uFF4F\uFF54')).toBe('root');
      expect(normaliseName('\uFB01le')).toBe('file');
      expect(normaliseName('Ａｌｉｃｅ①')).toBe('Alice1');
      expect(normaliseName('张三')).toBe('张三');
      expect(normaliseName(undefined)).toBeUndefined();
    });

    it.each([
      ['a zero-width space', 'ro\u200Bot'],
      ['a right-to-left override', '\u202Eroot'],
      ['a left-to-right isolate', 'ro\u2066ot'],
      ['a zero-width joiner', 'ro\u200Dot'],
      ['a byte-order mark', '\uFEFFroot'],
      ['a control character', 'ro\u0007ot'],
      ['a newline', 'root\n'],
    ])('refuses a username or display name with %s, even after NFKC', (_, name) => {
      expect(() => validateProfile({ username: normaliseName(name) })).toThrow(hidden);
      expect(() => validateProfile({ display_name: normaliseName(name) })).toThrow(
        '输入不合法 显示名称不能包含控制字符、零宽字符或双向控制字符',
      );
    });

    it('accepts ordinary names in any script', () => {
      for (const name of ['root', '张三', 'Zoë', 'user_01', 'Анна'])
        expect(() => validateProfile({ username: name, display_name: name })).not.toThrow();
    });

    it("cleans a provider's display name instead of refusing it", () => {
      expect(cleanExternalName('Bob\u202E\u200B Ｓｍｉｔｈ')).toBe('Bob Smith');
    });
  });
});
