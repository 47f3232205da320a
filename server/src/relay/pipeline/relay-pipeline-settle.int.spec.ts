import { dataSource, projected, setOptions } from '#test/e2e/users-support';
import { LOG_COLUMNS, toLogJson } from '#server/modules/logs/log.serializer';
import { json, pipelineHarness } from './relay-pipeline.int-harness';
import { quotaConsumedEventId } from '#server/modules/accounts/index';

jest.setTimeout(30_000);

/** One charge per answered request, its facts and the log row they make; a charge that could not be confirmed keeps its reservation. */
describe('RelayPipelineService: answer and settle (real ledger and Redis, in-test auth and routing)', () => {
  const pipeline = pipelineHarness();
  const { primary, outcomes, chat, charges, available } = pipeline;

  it('keeps the reservation held when the charge could not be confirmed (the append may have committed)', async () => {
    const before = await available();
    const spy = jest.spyOn(pipeline.settlement, 'settle').mockRejectedValueOnce(new Error('ledger unreachable'));
    try {
      const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
      expect(response.status).toBeGreaterThanOrEqual(500);
      expect(await charges(response.headers.get('x-oneapi-request-id')!)).toHaveLength(0);
    } finally {
      spy.mockRestore();
    }
    // Not released: the lease sweep retires it once the projections pass the head (lease-sweep.int.spec.ts).
    expect(await available()).toBeLessThan(before);
  });

  it('answers, settles once and reports the outcome', async () => {
    const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect((await json(response)).choices[0].message.content).toBe(primary.reply);
    const rows = await charges(response.headers.get('x-oneapi-request-id')!);
    expect(rows).toHaveLength(1);
    expect(rows[0].data).toMatchObject({ channelId: 1, channelPath: [1], quota: 8 });
    expect(outcomes.at(-1)).toMatchObject({ channelId: 1, ok: true, source: 'relay' });
  });

  it('honours LogConsumeEnabled: off records logConsume false in the charge and the log projection writes no type 2 row', async () => {
    const logRowOf = async (requestId: string) => {
      await projected(pipeline.target);
      const rows: Array<{ type: number }> = await dataSource(pipeline.target).query(
        `SELECT l.type FROM logs l JOIN events e ON e.position = l.id WHERE e.type = 'QuotaConsumed' AND e.event_id = $1::uuid`,
        [quotaConsumedEventId(requestId)],
      );
      return rows;
    };
    await setOptions(pipeline.target, { LogConsumeEnabled: 'false' });
    let quiet: Response;
    try {
      quiet = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    } finally {
      await setOptions(pipeline.target, { LogConsumeEnabled: 'true' });
    }
    expect(quiet.status).toBe(200);
    const quietId = quiet.headers.get('x-oneapi-request-id')!;
    const [charge] = await charges(quietId);
    expect(charge.data).toMatchObject({ logConsume: false, quota: 8 });
    expect(await logRowOf(quietId)).toEqual([]);

    const logged = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    const loggedId = logged.headers.get('x-oneapi-request-id')!;
    // On (the default) the key is left out of the charge: absent reads as true.
    expect((await charges(loggedId))[0].data).not.toHaveProperty('logConsume');
    expect(await logRowOf(loggedId)).toEqual([{ type: 2 }]);
  });

  it('honours DataExportEnabled: off records dataExport false in the charge, on leaves the key out', async () => {
    await setOptions(pipeline.target, { DataExportEnabled: 'false' });
    let quiet: Response;
    try {
      quiet = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    } finally {
      await setOptions(pipeline.target, { DataExportEnabled: 'true' });
    }
    expect(quiet.status).toBe(200);
    const [charge] = await charges(quiet.headers.get('x-oneapi-request-id')!);
    expect(charge.data).toMatchObject({ dataExport: false, quota: 8 });
    expect(charge.data).not.toHaveProperty('logConsume');
    const exported = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    expect((await charges(exported.headers.get('x-oneapi-request-id')!))[0].data).not.toHaveProperty('dataExport');
  });

  it('records facts in the charge, and the log row gets the wording and other JSON new-api shows', async () => {
    const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    const requestId = response.headers.get('x-oneapi-request-id')!;
    const [{ data }] = await charges(requestId);
    for (const rendered of ['content', 'other', 'quotaDisplay']) expect(data).not.toHaveProperty(rendered);
    await projected(pipeline.target);
    // As the log API answers the row: wording and other stored, or derived from its consume columns.
    const [row] = (
      await dataSource(pipeline.target).query(
        `SELECT ${LOG_COLUMNS.split(', ')
          .map((column) => `l.${column}`)
          .join(', ')} FROM logs l JOIN events e ON e.position = l.id
          WHERE e.type = 'QuotaConsumed' AND e.event_id = $1::uuid`,
        [quotaConsumedEventId(requestId)],
      )
    ).map(toLogJson);
    expect(row.content).toBe('模型倍率 0.25，补全倍率 3.00，分组倍率 1.00');
    expect(JSON.parse(row.other)).toEqual({
      admin_info: { use_channel: [String(data.channelId)] },
      cache_tokens: 0,
      completion_ratio: 3,
      end_reason: 'completed',
      frt: -1000,
      group_ratio: 1,
      model_price: -1,
      model_ratio: 0.25,
      usage_source: 'upstream',
    });
    expect(data).toMatchObject({ usageSource: 'upstream', endReason: 'completed' });
  });
});
