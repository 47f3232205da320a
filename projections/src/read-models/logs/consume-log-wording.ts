import type { ModelPricing } from '#server/modules/pricing/relay-pricing';

/** The consume row's human line, worded as new-api's. */
export function consumeContent(
  pricing: ModelPricing,
  usage: { promptTokens: number; completionTokens: number },
  usageMissing: boolean,
): string {
  let content =
    pricing.modelPrice >= 0
      ? `模型价格 ${pricing.modelPrice.toFixed(2)}，分组倍率 ${pricing.groupRatio.toFixed(2)}`
      : `模型倍率 ${pricing.modelRatio.toFixed(2)}，补全倍率 ${pricing.completionRatio.toFixed(2)}，分组倍率 ${pricing.groupRatio.toFixed(2)}`;
  if (usageMissing) content += '，（可能是请求出错）';
  if (usage.promptTokens + usage.completionTokens === 0) content += '（可能是上游超时）';
  return content;
}
