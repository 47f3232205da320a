import { Injectable } from '@nestjs/common';
import { OptionsService } from '../options/options.service';
import type { PricingTables } from './relay-pricing';

type NumberMap = Readonly<Record<string, number>>;

function parseNumberMap(text: string): NumberMap {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    const out: Record<string, number> = {};
    for (const [key, entry] of Object.entries(value)) if (typeof entry === 'number' && Number.isFinite(entry)) out[key] = entry;
    return out;
  } catch {
    return {};
  }
}

/**
 * The live pricing tables. The options are JSON text; each is parsed again only when its text changes (an
 * option save reloads every process), so a request pays a few string comparisons, not four JSON.parse calls.
 */
@Injectable()
export class PricingService {
  private readonly parsed = new Map<string, { text: string; map: NumberMap }>();

  constructor(private readonly options: OptionsService) {}

  private map(key: string): NumberMap {
    const text = this.options.get(key);
    const cached = this.parsed.get(key);
    if (cached && cached.text === text) return cached.map;
    const map = parseNumberMap(text);
    this.parsed.set(key, { text, map });
    return map;
  }

  tables(): PricingTables {
    const quotaPerUnit = this.options.getNumber('QuotaPerUnit');
    return {
      modelRatio: this.map('ModelRatio'),
      completionRatio: this.map('CompletionRatio'),
      modelPrice: this.map('ModelPrice'),
      groupRatio: this.map('GroupRatio'),
      preConsumedTokens: this.options.getNumber('PreConsumedQuota'),
      quotaPerUnit: quotaPerUnit > 0 ? quotaPerUnit : 500_000,
    };
  }

  retryTimes(): number {
    const value = Math.trunc(this.options.getNumber('RetryTimes'));
    return value > 0 ? Math.min(value, 10) : 0;
  }
}
