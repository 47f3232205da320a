/**
 * Groups are the keys of the GroupRatio option; UserUsableGroups says which of them users may pick (for tokens
 * and the playground) and how each is described.
 */
export function groupNames(groupRatio: Record<string, unknown>): string[] {
  return Object.keys(groupRatio);
}

/**
 * GET /api/user/groups: the groups present in both maps, with their description. A usable group without a
 * ratio is left out (the relay could not price it), as is a priced group users may not choose.
 */
export function usableGroups(groupRatio: Record<string, unknown>, usable: Record<string, unknown>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, description] of Object.entries(usable)) {
    if (Object.hasOwn(groupRatio, name) && typeof description === 'string') result[name] = description;
  }
  return result;
}
