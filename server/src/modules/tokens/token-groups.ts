import { Injectable } from '@nestjs/common';
import { OptionsService } from '../options/options.service';

export type TokenGroupVerdict = { usable: true } | { usable: false; reason: 'disabled' | 'deprecated'; message: string };

/**
 * The relay's rule for a token's group (new-api's Distribute): it must be one users may pick
 * (UserUsableGroups), else "令牌分组 g 已被禁用", and one with a ratio (GroupRatio), else "分组 g 已被弃用".
 */
export function judgeTokenGroup(
  group: string,
  usableGroups: Record<string, unknown>,
  groupRatio: Record<string, unknown>,
): TokenGroupVerdict {
  if (!Object.hasOwn(usableGroups, group)) return { usable: false, reason: 'disabled', message: `令牌分组 ${group} 已被禁用` };
  if (!Object.hasOwn(groupRatio, group)) return { usable: false, reason: 'deprecated', message: `分组 ${group} 已被弃用` };
  return { usable: true };
}

function asObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * UserUsableGroups and GroupRatio as maps, parsed once per option value rather than once per relay request
 * (the options cache reloads live; a changed text is simply parsed again).
 */
@Injectable()
export class TokenGroupPolicy {
  private readonly parsed = new Map<string, { text: string; value: Record<string, unknown> }>();

  constructor(private readonly options: OptionsService) {}

  judge(group: string): TokenGroupVerdict {
    return judgeTokenGroup(group, this.option('UserUsableGroups'), this.option('GroupRatio'));
  }

  private option(key: string): Record<string, unknown> {
    const text = this.options.get(key);
    const cached = this.parsed.get(key);
    if (cached && cached.text === text) return cached.value;
    const value = asObject(text);
    this.parsed.set(key, { text, value });
    return value;
  }
}
