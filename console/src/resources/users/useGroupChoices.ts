import { useEffect, useState } from 'react';
import { apiRequest } from '../../providers/httpClient';

export interface GroupChoice {
  id: string;
  name: string;
}

/** Group names for filters and forms, from `GET /api/group/` (admin); 'default' when the call fails. */
export const useGroupChoices = (): GroupChoice[] => {
  const [groups, setGroups] = useState<string[]>(['default']);
  useEffect(() => {
    let active = true;
    apiRequest<string[] | null>('/api/group/')
      .then((names) => {
        if (active && names?.length) setGroups([...names].sort());
      })
      .catch(() => undefined);
    return () => {
      active = false;
    };
  }, []);
  return groups.map((group) => ({ id: group, name: group }));
};
