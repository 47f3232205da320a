import { OPTION_DEFAULTS } from './option-defaults';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_PRICE, DEFAULT_MODEL_RATIO, pricingJson } from './pricing-defaults';

describe('built-in pricing tables (new-api defaults)', () => {
  it('holds the new-api example model ratios', () => {
    expect(DEFAULT_MODEL_RATIO).toMatchObject({
      'gpt-4o': 2.5,
      'gpt-4o-2024-08-06': 1.25,
      'gpt-4o-mini': 0.075,
      'gpt-4': 15,
      'gpt-4-turbo': 5,
      'gpt-3.5-turbo': 0.25,
      'o1-preview': 7.5,
      'o1-mini': 1.5,
      'claude-3-5-sonnet-20240620': 1.5,
      'claude-3-opus-20240229': 7.5,
      'claude-3-haiku-20240307': 0.125,
      'gemini-1.5-pro-latest': 1.75,
      'text-embedding-3-small': 0.01,
      'whisper-1': 15,
      'tts-1': 7.5,
      'deepseek-chat': 0.07,
      'glm-4-flash': 0,
    });
  });

  it('prices RMB models at RMB per 1K × 500 / 7.3 (ERNIE-4.0-8K ≈ 8.22)', () => {
    expect(DEFAULT_MODEL_RATIO['ERNIE-4.0-8K']).toBeCloseTo(8.2192, 4);
  });

  it('holds the new-api per-call prices', () => {
    expect(DEFAULT_MODEL_PRICE).toMatchObject({
      'dall-e-3': 0.04,
      'gpt-4-gizmo-*': 0.1,
      suno_music: 0.1,
      suno_lyrics: 0.01,
      mj_imagine: 0.1,
      mj_describe: 0.05,
      mj_upscale: 0.05,
      swap_face: 0.05,
      mj_upload: 0.05,
      mj_inpaint: 0,
      mj_custom_zoom: 0,
    });
  });

  it('is the default of the options, serialised with sorted keys like new-api', () => {
    expect(JSON.parse(OPTION_DEFAULTS.ModelRatio)).toEqual(DEFAULT_MODEL_RATIO);
    expect(JSON.parse(OPTION_DEFAULTS.ModelPrice)).toEqual(DEFAULT_MODEL_PRICE);
    expect(OPTION_DEFAULTS.CompletionRatio).toBe('{"gpt-4-all":2,"gpt-4-gizmo-*":2,"gpt-4o-gizmo-*":3}');
    expect(pricingJson(DEFAULT_COMPLETION_RATIO)).toBe(OPTION_DEFAULTS.CompletionRatio);
    expect(Object.keys(JSON.parse(OPTION_DEFAULTS.ModelRatio))).toEqual(Object.keys(DEFAULT_MODEL_RATIO).sort());
  });

  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(DEFAULT_MODEL_RATIO) && Object.isFrozen(DEFAULT_MODEL_PRICE) && Object.isFrozen(DEFAULT_COMPLETION_RATIO)).toBe(
      true,
    );
  });
});
