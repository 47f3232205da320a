import { useEffect, useState } from 'react';
import { useApiNotify } from '../../hooks/useApiNotify';
import { apiRequest } from '../../providers/httpClient';

export interface GroupOption {
  name: string;
  description: string;
}

export interface TokenChoices {
  /** `GET /api/user/models`: the models the user's group may call. */
  models: string[];
  /** `GET /api/user/groups`: the groups users may pick, with their descriptions. */
  groups: GroupOption[];
  loading: boolean;
}

/** The drawer's choices, loaded once each time it opens; a failure is shown and leaves the list empty. */
export const useTokenChoices = (): TokenChoices => {
  const notify = useApiNotify();
  const [models, setModels] = useState<string[]>([]);
  const [groups, setGroups] = useState<GroupOption[]>([]);
  const [loading, setLoading] = useState(true);
  useEffect(() => {
    let active = true;
    const loadModels = apiRequest<string[] | null>('/api/user/models').then((names) => {
      if (active) setModels([...new Set(names ?? [])].sort());
    });
    const loadGroups = apiRequest<Record<string, string> | null>('/api/user/groups').then((map) => {
      if (active) setGroups(Object.entries(map ?? {}).map(([name, description]) => ({ name, description: String(description) })));
    });
    Promise.all([loadModels, loadGroups])
      .catch((error) => active && notify.error(error))
      .finally(() => active && setLoading(false));
    return () => {
      active = false;
    };
  }, [notify]);
  return { models, groups, loading };
};
