import type { ApiSession } from './support/api-client';
import { type AdminConsole, openAdminConsole } from './support/admin-console';
import { expectText, waitForValue } from './support/console-actions';
import type { ConsoleBrowser } from './support/browser';
import {
  changedOptionKeys,
  eventually,
  expectOutcome,
  readOptions,
  saveCard,
  setSwitch,
  settingsCard,
  watchForFailures,
} from './support/settings-options';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(90_000);

describe('console operation settings (super admin)', () => {
  let opened: AdminConsole | undefined;
  let api: ApiSession;
  let admin: ConsoleBrowser;
  let failures: string[];

  beforeAll(async () => {
    opened = await openAdminConsole();
    ({ api, admin } = opened);
    ({ failures } = watchForFailures(admin.page));
  });

  afterAll(async () => {
    await opened?.close();
  });

  afterEach(() => {
    expect(failures).toEqual([]);
  });

  it('saves only the changed keys of several cards, says what each save stored, and leaves every other option alone', async () => {
    const { page } = admin;
    const before = await readOptions(api);
    await page.goto('/setting?tab=operation');

    const general = settingsCard(page, '通用设置');
    await general.getByLabel('失败重试次数').fill('3');
    await setSwitch(general, '以货币形式显示额度', false);
    await saveCard(general);
    await expectOutcome(general, ['已保存：失败重试次数、以货币形式显示额度']);
    await expectText(page, '已保存：失败重试次数、以货币形式显示额度');

    const drawing = settingsCard(page, '绘图设置');
    await setSwitch(drawing, '允许回调（会泄露服务器 IP 地址）', true);
    await saveCard(drawing);
    await expectOutcome(drawing, ['已保存：允许回调（会泄露服务器 IP 地址）']);

    const sensitive = settingsCard(page, '屏蔽词过滤设置');
    await sensitive.getByLabel('屏蔽词列表').fill('alpha\nbeta');
    await setSwitch(sensitive, '启用生成内容检查', true);
    await saveCard(sensitive);
    await expectOutcome(sensitive, ['已保存：屏蔽词列表、启用生成内容检查']);

    const dashboard = settingsCard(page, '数据看板设置');
    await dashboard.getByLabel('数据看板更新间隔（分钟）').fill('0');
    await saveCard(dashboard);
    await expectText(page, '请检查输入：数据看板更新间隔（分钟）');
    await expectText(dashboard, '数据看板更新间隔（分钟）不能小于 1');
    await dashboard.getByLabel('数据看板更新间隔（分钟）').fill('10');
    await dashboard.getByRole('combobox', { name: '数据看板默认时间粒度' }).click();
    await page.getByRole('option', { name: '天', exact: true }).click();
    await saveCard(dashboard);
    await expectOutcome(dashboard, ['已保存：数据看板更新间隔（分钟）、数据看板默认时间粒度']);

    const quota = settingsCard(page, '额度设置');
    await quota.getByLabel('新用户初始额度').fill('1000');
    await quota.getByLabel('邀请新用户奖励额度').fill('200');
    await saveCard(quota);
    await expectOutcome(quota, ['已保存：新用户初始额度、邀请新用户奖励额度']);

    // Nothing changed in a card: nothing is sent.
    await saveCard(settingsCard(page, '监控设置'));
    await expectText(page, '你似乎并没有修改什么');

    const after = await readOptions(api);
    expect(changedOptionKeys(before, after)).toEqual(
      [
        'CheckSensitiveOnCompletionEnabled',
        'DataExportDefaultTime',
        'DataExportInterval',
        'DisplayInCurrencyEnabled',
        'MjNotifyEnabled',
        'QuotaForInviter',
        'QuotaForNewUser',
        'RetryTimes',
        'SensitiveWords',
      ].sort(),
    );
    expect(after).toMatchObject({
      RetryTimes: '3',
      DisplayInCurrencyEnabled: 'false',
      MjNotifyEnabled: 'true',
      SensitiveWords: 'alpha\nbeta',
      CheckSensitiveOnCompletionEnabled: 'true',
      DataExportInterval: '10',
      DataExportDefaultTime: 'day',
      QuotaForNewUser: '1000',
      QuotaForInviter: '200',
    });

    // A reload shows what the server holds.
    await page.reload();
    await waitForValue(settingsCard(page, '通用设置').getByLabel('失败重试次数'), '3');
    await waitForValue(settingsCard(page, '额度设置').getByLabel('新用户初始额度'), '1000');
  });

  it('refuses an invalid JSON ratio before saving, saves valid ratios, and resets the model ratios', async () => {
    const { page } = admin;
    const before = await readOptions(api);
    await page.goto('/setting?tab=operation');
    const ratio = settingsCard(page, '倍率设置');
    const groupRatio = ratio.getByLabel('分组倍率', { exact: true });
    const modelRatio = ratio.getByLabel('模型倍率', { exact: true });
    await waitForValue(groupRatio, before.GroupRatio);

    await groupRatio.fill('{"default": 1,');
    await ratio.getByLabel('用户可选分组').focus();
    await expectText(ratio, '分组倍率不是合法的 JSON 字符串');
    await modelRatio.fill('{"tg-only": 3}');
    await saveCard(ratio);
    await expectText(page, '请检查输入：分组倍率');
    // Nothing at all was sent, not even the valid model ratio.
    await expect(readOptions(api)).resolves.toEqual(before);

    await groupRatio.fill('{"default": 1, "vip": 0.8}');
    await saveCard(ratio);
    await expectOutcome(ratio, ['已保存：模型倍率、分组倍率']);
    const saved = await readOptions(api);
    expect(changedOptionKeys(before, saved)).toEqual(['GroupRatio', 'ModelRatio']);
    expect(saved.GroupRatio).toBe('{"default": 1, "vip": 0.8}');
    expect(saved.ModelRatio).toBe('{"tg-only": 3}');

    await ratio.getByRole('button', { name: '重置模型倍率' }).click();
    const dialog = page.getByRole('dialog', { name: '重置模型倍率' });
    await dialog.getByRole('button', { name: '重置模型倍率' }).click();
    await expectText(page, '重置模型倍率成功');
    const reset = await readOptions(api);
    expect(changedOptionKeys(saved, reset)).toEqual(['ModelRatio']);
    const defaults = JSON.parse(reset.ModelRatio) as Record<string, number>;
    expect(defaults).not.toHaveProperty('tg-only');
    expect(Object.keys(defaults).length).toBeGreaterThan(10);
    // The editor shows the restored ratios, and they count as saved (nothing left to save).
    await waitForValue(modelRatio, reset.ModelRatio);
    await saveCard(ratio);
    await expectText(page, '你似乎并没有修改什么');
  });

  it('turns consumption logs off and clears the history logs before a chosen time', async () => {
    const { page } = admin;
    const userId = await api.createUser(`lg${Date.now().toString(36).slice(-6)}`, 'password123');
    const form = await api.must<Record<string, unknown>>('GET', `/api/user/${userId}`);
    await api.must('PUT', '/api/user/', { ...form, password: '', quota: 4321 });
    const total = () => api.must<{ total: number }>('GET', '/api/log/?p=1&page_size=0').then((page) => page.total);
    const logCount = await eventually(total, (count) => count > 0);

    await page.goto('/setting?tab=operation');
    const log = settingsCard(page, '日志设置');
    await setSwitch(log, '启用额度消费日志记录', false);
    await saveCard(log);
    await expectOutcome(log, ['已保存：启用额度消费日志记录']);
    expect((await readOptions(api)).LogConsumeEnabled).toBe('false');

    await log.getByRole('button', { name: '清除历史日志' }).click();
    await expectText(page, '请选择日志记录时间');
    expect(await total()).toBe(logCount);

    await log.getByLabel('删除此时间之前的日志').fill('2099-01-01T00:00');
    await log.getByRole('button', { name: '清除历史日志' }).click();
    const dialog = page.getByRole('dialog', { name: '清除历史日志' });
    await expectText(dialog, '确定删除 2099-01-01 00:00 之前的所有日志吗？此操作不可撤销。');
    await dialog.getByRole('button', { name: '清除历史日志' }).click();
    await expectText(log, `${logCount} 条日志已清理！`);
    await eventually(total, (count) => count === 0);
  });

  it('sets how many days of logs to keep: refuses a negative number, saves a whole number of days', async () => {
    const { page } = admin;
    await page.goto('/setting?tab=operation');
    const log = settingsCard(page, '日志设置');
    const days = log.getByLabel('日志保留天数');
    await waitForValue(days, '0');
    await expectText(log, '0 表示保留全部日志；否则每天（以及保存后立即）删除早于该天数的日志');
    await days.fill('-1');
    await saveCard(log);
    await expectText(page, '请检查输入：日志保留天数');
    await expectText(log, '日志保留天数不能小于 0');
    expect((await readOptions(api)).LogRetentionDays).toBe('0');
    await days.fill('400');
    await saveCard(log);
    await expectOutcome(log, ['已保存：日志保留天数']);
    expect((await readOptions(api)).LogRetentionDays).toBe('400');
  });
});
