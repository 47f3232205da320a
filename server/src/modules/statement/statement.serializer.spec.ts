import { csvField, csvHeader, csvLine, type StatementRow, toStatementLineJson } from './statement.serializer';

const row = (overrides: Partial<StatementRow> = {}): StatementRow => ({
  position: '42',
  user_id: 7,
  created_at: '1732600000',
  kind: 'relay_charge',
  delta: '-250',
  balance: '750',
  actor_type: 'user',
  actor_id: 7,
  actor_role: 1,
  reason: 'relay_request',
  request_id: 'req-1',
  ref: { token_id: 3, token_name: 'main', model: 'gpt-4o-mini' },
  token_id: null,
  token_name: null,
  model: null,
  usage_source: null,
  end_reason: null,
  request_uuid: null,
  ...overrides,
});

/** The same charge as stored compact: no ref, no reason, its columns instead. */
const compact = (overrides: Partial<StatementRow> = {}): StatementRow =>
  row({ reason: null, ref: null, token_id: 3, token_name: 'main', model: 'gpt-4o-mini', ...overrides });

describe('statement serializer', () => {
  it('turns a row into the line JSON, numbers as numbers', () => {
    expect(toStatementLineJson(row(), 'owner')).toEqual({
      id: 42,
      created_at: 1_732_600_000,
      kind: 'relay_charge',
      delta: -250,
      balance: 750,
      actor: { type: 'user', id: 7, role: 1 },
      reason: 'relay_request',
      request_id: 'req-1',
      ref: { token_id: 3, token_name: 'main', model: 'gpt-4o-mini' },
    });
  });

  it('gives a charge stored compact the same line as the charge stored with its ref', () => {
    expect(toStatementLineJson(compact(), 'owner')).toEqual(toStatementLineJson(row(), 'owner'));
    expect(toStatementLineJson(compact({ usage_source: 1, end_reason: 4 }), 'admin').ref).toEqual({
      token_id: 3,
      token_name: 'main',
      model: 'gpt-4o-mini',
      usage_source: 'estimated',
      end_reason: 'cut_stream',
    });
    // A code this build does not know (written by a later one) is left out rather than invented.
    expect(toStatementLineJson(compact({ usage_source: 9, end_reason: 9 }), 'admin').ref).toEqual(row().ref);
    // A request id stored as a uuid reads as its text.
    const id = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    expect(toStatementLineJson(compact({ request_id: null, request_uuid: id }), 'admin').request_id).toBe(id);
    // A v1 charge recorded with a reason of its own keeps it.
    expect(toStatementLineJson(compact({ reason: 'manual' }), 'admin').reason).toBe('manual');
  });

  it('hides who else acted from the owner (an admin stays a role), not from an admin', () => {
    const edit = row({ kind: 'admin_adjustment', actor_id: 1, actor_role: 100, ref: { before: 0, after: 5 } });
    expect(toStatementLineJson(edit, 'owner').actor).toEqual({ type: 'user', id: null, role: 100 });
    expect(toStatementLineJson(edit, 'admin').actor).toEqual({ type: 'user', id: 1, role: 100 });
    const gift = row({ actor_type: 'system', actor_id: null, actor_role: null });
    expect(toStatementLineJson(gift, 'owner').actor).toEqual({ type: 'system', id: null, role: null });
  });

  it('quotes fields as RFC 4180 asks and guards text a spreadsheet would run as a formula', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\r\nlines')).toBe('"two\r\nlines"');
    expect(csvField('=SUM(A1)')).toBe("'=SUM(A1)");
    expect(csvField('-1')).toBe("'-1");
    expect(csvField(-1, false)).toBe('-1');
    expect(csvField(null)).toBe('');
  });

  it('writes a CRLF record per line, the usual references in their own columns and the rest as JSON', () => {
    expect(csvHeader()).toBe(
      'id,created_at,time_utc,kind,delta,balance,actor_type,actor_id,actor_role,reason,request_id,code_id,trade_no,token_id,token_name,model,ref\r\n',
    );
    expect(csvLine(toStatementLineJson(row({ ref: { token_id: 3, token_name: 'a, "b"', model: 'm' } }), 'admin'))).toBe(
      '42,1732600000,2024-11-26T05:46:40.000Z,relay_charge,-250,750,user,7,1,relay_request,req-1,,,3,"a, ""b""",m,\r\n',
    );
    const reward = toStatementLineJson(row({ kind: 'invite_reward', delta: '0', ref: { invitee_id: 9, aff_amount: 400 } }), 'admin');
    expect(csvLine(reward)).toMatch(/,"\{""invitee_id"":9,""aff_amount"":400\}"\r\n$/);
  });
});
