import {
  actionOfCustomId,
  isAccepted,
  MjRequestError,
  mjSubmitOf,
  parseSimpleChange,
  rewriteResultCode,
  upstreamBody,
  upstreamPath,
} from './midjourney-actions';

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof MjRequestError) return error.description;
    throw error;
  }
  throw new Error('no refusal');
};

describe('Midjourney route rules', () => {
  it('parses Plus custom ids as new-api does', () => {
    expect(actionOfCustomId('MJ::JOB::upsample::2::abc')).toBe('UPSCALE');
    expect(actionOfCustomId('MJ::JOB::variation::1::abc')).toBe('VARIATION');
    expect(actionOfCustomId('MJ::JOB::low_variation::1::abc')).toBe('LOW_VARIATION');
    expect(actionOfCustomId('MJ::JOB::high_variation::1::abc')).toBe('HIGH_VARIATION');
    expect(actionOfCustomId('MJ::JOB::pan_left::1::abc')).toBe('PAN');
    expect(actionOfCustomId('MJ::JOB::reroll::0::abc::SOLO')).toBe('REROLL');
    expect(actionOfCustomId('MJ::Outpaint::50::1::abc::SOLO')).toBe('ZOOM');
    expect(actionOfCustomId('MJ::CustomZoom::abc')).toBe('CUSTOM_ZOOM');
    expect(actionOfCustomId('MJ::Inpaint::1::abc::SOLO')).toBe('INPAINT');
    expect(refusal(() => actionOfCustomId('MJ::JOB::dance::1::abc'))).toBe('unknown_action:MJ::JOB::dance::1::abc');
    expect(refusal(() => actionOfCustomId(''))).toBe('custom_id_is_required');
  });

  it('parses the simple-change content (new-api did not)', () => {
    expect(parseSimpleChange('1712 U2')).toEqual({ taskId: '1712', action: 'UPSCALE', index: 2 });
    expect(parseSimpleChange(' 1712 v4 ')).toEqual({ taskId: '1712', action: 'VARIATION', index: 4 });
    expect(parseSimpleChange('1712 R')).toEqual({ taskId: '1712', action: 'REROLL', index: null });
    expect(refusal(() => parseSimpleChange('1712 U'))).toBe('index_parse_failed');
    expect(refusal(() => parseSimpleChange('1712 X1'))).toBe('content_parse_failed');
    expect(refusal(() => parseSimpleChange(''))).toBe('content_parse_failed');
  });

  it('names the priced model of each submit and refuses what new-api refuses', () => {
    expect(mjSubmitOf('imagine', { prompt: 'a cat' })).toEqual({
      action: 'IMAGINE',
      model: 'mj_imagine',
      originalTaskId: null,
      prompt: 'a cat',
    });
    expect(mjSubmitOf('change', { action: 'upscale', taskId: 't', index: 1 })).toMatchObject({ action: 'UPSCALE', model: 'mj_upscale' });
    expect(mjSubmitOf('simple-change', { content: 't V1' })).toMatchObject({ model: 'mj_variation', originalTaskId: 't' });
    expect(mjSubmitOf('swap_face', { sourceBase64: 'a', targetBase64: 'b' })).toMatchObject({ model: 'swap_face' });
    expect(mjSubmitOf('upload', {})).toMatchObject({ action: 'UPLOAD', model: 'mj_upload' });
    expect(refusal(() => mjSubmitOf('imagine', {}))).toBe('prompt_is_required');
    expect(refusal(() => mjSubmitOf('change', { action: 'UPSCALE', taskId: 't', index: 'x' }))).toBe('index_parse_failed');
    expect(refusal(() => mjSubmitOf('modal', {}))).toBe('task_id_is_required');
  });

  it('filters the forwarded body by the options and rewrites codes 21 and 22', () => {
    const body = { prompt: 'x --fast --turbo', accountFilter: {}, notifyHook: 'h' };
    expect(upstreamBody(body, { accountFilter: false, notifyHook: false, modeClear: false })).toEqual({ prompt: 'x --fast --turbo' });
    expect(upstreamBody(body, { accountFilter: true, notifyHook: true, modeClear: true })).toEqual({
      prompt: 'x',
      accountFilter: {},
      notifyHook: 'h',
    });
    expect(rewriteResultCode('{"code":22,"result":"1"}', 'IMAGINE')).toBe('{"code":1,"result":"1"}');
    expect(rewriteResultCode('{"code": 21,"result":"1"}', 'IMAGINE')).toBe('{"code":1,"result":"1"}');
    expect(rewriteResultCode('{"code":21,"result":"1"}', 'INPAINT')).toBe('{"code":21,"result":"1"}');
    expect(rewriteResultCode('{"code":210}', 'IMAGINE')).toBe('{"code":210}');
    expect(isAccepted('SWAP_FACE', 21)).toBe(false);
    expect(isAccepted('IMAGINE', 22)).toBe(true);
    expect(upstreamPath('/mj-fast/mj/submit/imagine')).toBe('/mj/submit/imagine');
  });
});
