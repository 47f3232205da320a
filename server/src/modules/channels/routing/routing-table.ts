import { ChannelStatus } from '../channel.events';

/**
 * A channel as the relay routes to it (cross-team contract 2), plus what the relay and the channel workers also
 * need of it: the status-code mapping, the test model and the status.
 */
export interface RoutableChannel {
  id: number;
  type: number;
  name: string;
  key: string;
  /** '' → the type's default base URL */
  baseUrl: string;
  models: string[];
  modelMapping: Record<string, string>;
  groups: string[];
  priority: number;
  weight: number;
  autoBan: boolean;
  /** Type-specific (Azure api-version, …) as new-api stores it. */
  other: string;
  /** Parsed `setting` JSON, {} when none. */
  config: Record<string, unknown>;
  headerOverride: Record<string, string>;
  paramOverride: Record<string, unknown>;
  openaiOrganization: string | null;
  statusCodeMapping: Record<string, string>;
  testModel: string | null;
  /** 1 enabled, 2 manually disabled, 3 auto-disabled. */
  status: number;
}

export interface SelectOptions {
  retry?: number;
  exclude?: ReadonlySet<number>;
}

interface Tier {
  priority: number;
  channels: RoutableChannel[];
}

/** `gpt-4-gizmo-xyz` and `gpt-4o-gizmo-xyz` are served by the wildcard names, as new-api normalises them before the lookup. */
export function normalizeRoutedModel(model: string): string {
  if (model.startsWith('gpt-4-gizmo')) return 'gpt-4-gizmo-*';
  if (model.startsWith('gpt-4o-gizmo')) return 'gpt-4o-gizmo-*';
  return model;
}

/**
 * Weighted random choice in proportion to the weights: 7 and 3 split 70/30. (new-api adds 10 to every
 * weight, which makes 7:3 a 57/43 split; Tollgate honours the weights an admin sets.) A tier whose weights are
 * all 0 is chosen from uniformly; a weight-0 channel beside weighted ones is not chosen.
 */
export function pickWeighted<T extends { weight: number }>(candidates: readonly T[], random: () => number): T {
  const total = candidates.reduce((sum, candidate) => sum + Math.max(0, candidate.weight), 0);
  if (total <= 0) return candidates[Math.min(candidates.length - 1, Math.floor(random() * candidates.length))];
  let remaining = random() * total;
  for (const candidate of candidates) {
    const weight = Math.max(0, candidate.weight);
    if (weight === 0) continue;
    remaining -= weight;
    if (remaining < 0) return candidate;
  }
  // Floating-point leftovers land on the last weighted candidate.
  return [...candidates].reverse().find((candidate) => candidate.weight > 0) ?? candidates[candidates.length - 1];
}

/**
 * An immutable snapshot of every channel, indexed for selection: group → model → priority tiers (highest first)
 * of the enabled channels. Built once per reload; `select` is a few map lookups and one random draw.
 */
export class RoutingTable {
  private readonly byId = new Map<number, RoutableChannel>();
  private readonly index = new Map<string, Map<string, Tier[]>>();
  private readonly groupModels = new Map<string, string[]>();
  private modelGroups: ReadonlyMap<string, readonly string[]> | null = null;

  constructor(
    channels: readonly RoutableChannel[],
    private readonly random: () => number = Math.random,
  ) {
    const grouped = new Map<string, Map<string, RoutableChannel[]>>();
    for (const channel of channels) {
      this.byId.set(channel.id, channel);
      if (channel.status !== ChannelStatus.Enabled) continue;
      for (const group of channel.groups) {
        let models = grouped.get(group);
        if (!models) grouped.set(group, (models = new Map()));
        for (const model of channel.models) {
          const list = models.get(model);
          if (list) list.push(channel);
          else models.set(model, [channel]);
        }
      }
    }
    for (const [group, models] of grouped) {
      const tiersByModel = new Map<string, Tier[]>();
      for (const [model, list] of models) {
        const priorities = [...new Set(list.map((channel) => channel.priority))].sort((a, b) => b - a);
        tiersByModel.set(
          model,
          priorities.map((priority) => ({
            priority,
            channels: list.filter((channel) => channel.priority === priority).sort((a, b) => a.id - b.id),
          })),
        );
      }
      this.index.set(group, tiersByModel);
      this.groupModels.set(group, [...models.keys()].sort());
    }
  }

  get size(): number {
    return this.byId.size;
  }

  /**
   * An enabled channel serving `model` in `group`. `retry` n uses the n-th priority tier (highest first; past the
   * last tier, the last tier). Channels in `exclude` are avoided while another one exists: first in the chosen
   * tier, then in the lower tiers, then in the higher ones; only when every candidate is excluded is one of the
   * chosen tier used again.
   */
  select(group: string, model: string, options: SelectOptions = {}): RoutableChannel | null {
    const tiers = this.index.get(group)?.get(normalizeRoutedModel(model));
    if (!tiers || tiers.length === 0) return null;
    const chosen = Math.min(Math.max(0, Math.floor(options.retry ?? 0)), tiers.length - 1);
    const exclude = options.exclude;
    if (!exclude || exclude.size === 0) return pickWeighted(tiers[chosen].channels, this.random);
    const order = [chosen];
    for (let i = chosen + 1; i < tiers.length; i++) order.push(i);
    for (let i = chosen - 1; i >= 0; i--) order.push(i);
    for (const index of order) {
      const fresh = tiers[index].channels.filter((channel) => !exclude.has(channel.id));
      if (fresh.length) return pickWeighted(fresh, this.random);
    }
    return pickWeighted(tiers[chosen].channels, this.random);
  }

  /** Any channel by id, whatever its status (the admin `sk-KEY-CHANNELID` form). */
  get(id: number): RoutableChannel | null {
    return this.byId.get(id) ?? null;
  }

  /** The models enabled channels serve in `group`, sorted. */
  modelsForGroup(group: string): string[] {
    return [...(this.groupModels.get(group) ?? [])];
  }

  /**
   * The enabled abilities as model → the groups offering it (both sorted), built once per snapshot, so a caller
   * may cache what it derives from them by this map's identity.
   */
  enabledModelGroups(): ReadonlyMap<string, readonly string[]> {
    if (this.modelGroups) return this.modelGroups;
    const groupsByModel = new Map<string, string[]>();
    for (const group of [...this.groupModels.keys()].sort()) {
      for (const model of this.groupModels.get(group) ?? []) {
        const groups = groupsByModel.get(model);
        if (groups) groups.push(group);
        else groupsByModel.set(model, [group]);
      }
    }
    this.modelGroups = new Map([...groupsByModel.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return this.modelGroups;
  }

  /** Every channel of the snapshot. */
  all(): RoutableChannel[] {
    return [...this.byId.values()];
  }
}
