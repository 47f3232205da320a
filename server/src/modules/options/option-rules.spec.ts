import { isSecretOption, MAX_OPTION_VALUE_LENGTH, normalizeOptionValue, OptionRejectedError, optionKind } from './option-rules';
import { OPTION_DEFAULTS } from './option-defaults';

const defaults = (key: string) => OPTION_DEFAULTS[key] ?? '';
const withOptions = (overrides: Record<string, string>) => (key: string) => overrides[key] ?? defaults(key);

function rejection(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(OptionRejectedError);
    return (error as Error).message;
  }
  throw new Error('expected the value to be rejected');
}

describe('option rules', () => {
  describe('kinds', () => {
    it('treats every *Enabled key and DefaultCollapseSidebar as a boolean, known or not', () => {
      expect(optionKind('DrawingEnabled')).toEqual({ type: 'boolean' });
      expect(optionKind('CheckSensitiveOnCompletionEnabled')).toEqual({ type: 'boolean' });
      expect(optionKind('DefaultCollapseSidebar')).toEqual({ type: 'boolean' });
      expect(optionKind('SomethingNew')).toEqual({ type: 'text' });
    });

    it('hides keys ending in Token, Secret or Key, TurnstileSiteKey included', () => {
      const hidden = Object.keys(OPTION_DEFAULTS).filter(isSecretOption).sort();
      expect(hidden).toEqual(
        [
          'EpayKey',
          'GitHubClientSecret',
          'SMTPToken',
          'TelegramBotToken',
          'TurnstileSecretKey',
          'TurnstileSiteKey',
          'WeChatServerToken',
          'WorkerValidKey',
        ].sort(),
      );
      expect(isSecretOption('GitHubClientId')).toBe(false);
      expect(isSecretOption('MyApiKey')).toBe(true);
    });

    it('accepts every built-in default as it is', () => {
      for (const [key, value] of Object.entries(OPTION_DEFAULTS)) {
        expect(normalizeOptionValue(key, value, defaults)).toBe(value);
      }
    });
  });

  describe('booleans', () => {
    it('accepts exactly "true" and "false"', () => {
      expect(normalizeOptionValue('DrawingEnabled', 'false', defaults)).toBe('false');
      expect(normalizeOptionValue('DefaultCollapseSidebar', 'true', defaults)).toBe('true');
    });

    it.each(['1', 'yes', 'TRUE', ' true', ''])('refuses %j', (value) => {
      expect(rejection(() => normalizeOptionValue('DrawingEnabled', value, defaults))).toBe('DrawingEnabled 的值必须是 true 或 false');
    });
  });

  describe('enable guards (new-api messages)', () => {
    it('refuses GitHub OAuth without a client id, accepts it once set, and always allows switching off', () => {
      expect(rejection(() => normalizeOptionValue('GitHubOAuthEnabled', 'true', defaults))).toBe(
        '无法启用 GitHub OAuth，请先填入 GitHub Client Id 以及 GitHub Client Secret！',
      );
      expect(normalizeOptionValue('GitHubOAuthEnabled', 'true', withOptions({ GitHubClientId: 'abc' }))).toBe('true');
      expect(normalizeOptionValue('GitHubOAuthEnabled', 'false', defaults)).toBe('false');
    });

    it('refuses the email domain restriction without a whitelist (blank entries do not count)', () => {
      const message = '无法启用邮箱域名限制，请先填入限制的邮箱域名！';
      expect(
        rejection(() => normalizeOptionValue('EmailDomainRestrictionEnabled', 'true', withOptions({ EmailDomainWhitelist: '' }))),
      ).toBe(message);
      expect(
        rejection(() => normalizeOptionValue('EmailDomainRestrictionEnabled', 'true', withOptions({ EmailDomainWhitelist: ' , ' }))),
      ).toBe(message);
      expect(normalizeOptionValue('EmailDomainRestrictionEnabled', 'true', defaults)).toBe('true');
    });

    it('refuses WeChat login without a server address and Turnstile without a site key', () => {
      expect(rejection(() => normalizeOptionValue('WeChatAuthEnabled', 'true', defaults))).toBe(
        '无法启用微信登录，请先填入微信登录相关配置信息！',
      );
      expect(normalizeOptionValue('WeChatAuthEnabled', 'true', withOptions({ WeChatServerAddress: 'https://wx.example.com' }))).toBe(
        'true',
      );
      expect(rejection(() => normalizeOptionValue('TurnstileCheckEnabled', 'true', defaults))).toBe(
        '无法启用 Turnstile 校验，请先填入 Turnstile 校验相关配置信息！',
      );
      expect(normalizeOptionValue('TurnstileCheckEnabled', 'true', withOptions({ TurnstileSiteKey: 'site' }))).toBe('true');
    });

    it('leaves Telegram unguarded, as new-api does', () => {
      expect(normalizeOptionValue('TelegramOAuthEnabled', 'true', defaults)).toBe('true');
    });
  });

  describe('number bounds of the console forms', () => {
    it.each([
      ['DataExportInterval', '0', 'DataExportInterval 必须是不小于 1 的整数'],
      ['MinTopUp', '0', 'MinTopUp 必须是不小于 1 的整数'],
      ['ChannelDisableThreshold', '-1', 'ChannelDisableThreshold 必须是不小于 0 的数字'],
      ['QuotaRemindThreshold', '-5', 'QuotaRemindThreshold 必须是不小于 0 的整数'],
      ['QuotaForNewUser', '-1', 'QuotaForNewUser 必须是不小于 0 的整数'],
      ['QuotaForInviter', '1.5', 'QuotaForInviter 必须是不小于 0 的整数'],
      ['QuotaForInvitee', 'abc', 'QuotaForInvitee 必须是不小于 0 的整数'],
      ['PreConsumedQuota', '', 'PreConsumedQuota 必须是不小于 0 的整数'],
      ['RetryTimes', '-1', 'RetryTimes 必须是不小于 0 的整数'],
      ['LogRetentionDays', '-1', 'LogRetentionDays 必须是不小于 0 的整数'],
      ['LogRetentionDays', '7.5', 'LogRetentionDays 必须是不小于 0 的整数'],
      ['LogRetentionDays', 'thirty', 'LogRetentionDays 必须是不小于 0 的整数'],
      ['LogRetentionDays', '', 'LogRetentionDays 必须是不小于 0 的整数'],
      ['Price', '-0.1', 'Price 必须是不小于 0 的数字'],
      ['Price', 'NaN', 'Price 必须是不小于 0 的数字'],
      ['Price', 'Infinity', 'Price 必须是不小于 0 的数字'],
      ['QuotaPerUnit', '0', 'QuotaPerUnit 必须是大于 0 的数字'],
      ['SMTPPort', '70000', 'SMTPPort 必须是 1 到 65535 之间的整数'],
      ['QuotaForNewUser', '99999999999999999999', 'QuotaForNewUser 必须是不小于 0 的整数'],
    ])('%s = %j is refused', (key, value, message) => {
      expect(rejection(() => normalizeOptionValue(key, value, defaults))).toBe(message);
    });

    it('accepts values on the bounds and stores them in canonical form', () => {
      expect(normalizeOptionValue('DataExportInterval', '1', defaults)).toBe('1');
      expect(normalizeOptionValue('MinTopUp', ' 05 ', defaults)).toBe('5');
      expect(normalizeOptionValue('ChannelDisableThreshold', '0', defaults)).toBe('0');
      expect(normalizeOptionValue('ChannelDisableThreshold', '2.50', defaults)).toBe('2.5');
      expect(normalizeOptionValue('Price', '0', defaults)).toBe('0');
      expect(normalizeOptionValue('RetryTimes', '0', defaults)).toBe('0');
      expect(normalizeOptionValue('LogRetentionDays', '0', defaults)).toBe('0');
      expect(normalizeOptionValue('LogRetentionDays', ' 030 ', defaults)).toBe('30');
      expect(normalizeOptionValue('QuotaPerUnit', '500000', defaults)).toBe('500000');
    });
  });

  describe('JSON options', () => {
    it('refuses text that is not JSON, naming the option', () => {
      expect(rejection(() => normalizeOptionValue('ModelRatio', '{"gpt-4": 15,', defaults))).toMatch(
        /^ModelRatio 不是合法的 JSON 字符串：/,
      );
      expect(rejection(() => normalizeOptionValue('TopupGroupRatio', '', defaults))).toMatch(/^TopupGroupRatio 不是合法的 JSON 字符串：/);
    });

    it.each(['[1,2]', '"x"', '5', 'null'])('refuses %s: it must be an object', (value) => {
      expect(rejection(() => normalizeOptionValue('GroupRatio', value, defaults))).toBe('GroupRatio 必须是 JSON 对象，例如 {"default": 1}');
    });

    it.each(['ModelRatio', 'ModelPrice', 'CompletionRatio', 'GroupRatio', 'TopupGroupRatio'])('%s needs numbers ≥ 0', (key) => {
      expect(rejection(() => normalizeOptionValue(key, '{"a": -1}', defaults))).toBe(`${key} 中 "a" 的值必须是不小于 0 的数字`);
      expect(rejection(() => normalizeOptionValue(key, '{"a": "1"}', defaults))).toBe(`${key} 中 "a" 的值必须是不小于 0 的数字`);
      expect(rejection(() => normalizeOptionValue(key, '{"a": null}', defaults))).toBe(`${key} 中 "a" 的值必须是不小于 0 的数字`);
      expect(rejection(() => normalizeOptionValue(key, '{"": 1}', defaults))).toBe(`${key} 中的名称不能为空`);
      expect(normalizeOptionValue(key, '{"a": 0, "b": 2.5}', defaults)).toBe('{"a": 0, "b": 2.5}');
    });

    it('UserUsableGroups needs string descriptions', () => {
      expect(rejection(() => normalizeOptionValue('UserUsableGroups', '{"vip": 1}', defaults))).toBe(
        'UserUsableGroups 中 "vip" 的描述必须是字符串',
      );
      expect(rejection(() => normalizeOptionValue('UserUsableGroups', '["vip"]', defaults))).toBe(
        'UserUsableGroups 必须是 JSON 对象，例如 {"default": "默认分组"}',
      );
      expect(normalizeOptionValue('UserUsableGroups', '{"vip":"VIP"}', defaults)).toBe('{"vip":"VIP"}');
    });
  });

  describe('addresses', () => {
    it.each(['ServerAddress', 'WorkerUrl', 'PayAddress', 'WeChatServerAddress'])(
      '%s loses trailing slashes and surrounding blanks',
      (key) => {
        expect(normalizeOptionValue(key, ' https://example.com/base/// ', defaults)).toBe('https://example.com/base');
        expect(normalizeOptionValue(key, 'http://127.0.0.1:3000/', defaults)).toBe('http://127.0.0.1:3000');
        expect(normalizeOptionValue(key, '', defaults)).toBe('');
      },
    );

    it.each(['example.com', 'javascript:alert(1)', 'ftp://example.com', 'https://'])('refuses %j', (value) => {
      expect(rejection(() => normalizeOptionValue('ServerAddress', value, defaults))).toBe(
        'ServerAddress 必须是以 http:// 或 https:// 开头的地址',
      );
    });
  });

  describe('everything else', () => {
    it('limits DataExportDefaultTime to hour, day or week', () => {
      expect(normalizeOptionValue('DataExportDefaultTime', 'week', defaults)).toBe('week');
      expect(rejection(() => normalizeOptionValue('DataExportDefaultTime', 'month', defaults))).toBe(
        'DataExportDefaultTime 必须是 hour、day、week 之一',
      );
    });

    it('stores text (notices, unknown keys, injection attempts) verbatim', () => {
      const text = `<script>alert(1)</script>'; DROP TABLE options; --`;
      expect(normalizeOptionValue('Notice', text, defaults)).toBe(text);
      expect(normalizeOptionValue('SomeFutureOption', 'x', defaults)).toBe('x');
    });

    it('refuses values over the size limit', () => {
      expect(rejection(() => normalizeOptionValue('HomePageContent', 'x'.repeat(MAX_OPTION_VALUE_LENGTH + 1), defaults))).toBe(
        `HomePageContent 的值过长（最多 ${MAX_OPTION_VALUE_LENGTH} 个字符）`,
      );
    });
  });
});
