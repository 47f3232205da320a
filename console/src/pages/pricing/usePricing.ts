import { useEffect, useState } from 'react';
import { useApiNotify } from '../../hooks/useApiNotify';
import { useSessionUser } from '../../hooks/useSessionUser';
import type { PricingAnswer, PricingEntry } from '../../lib/pricing';
import type { User } from '../../lib/types';
import { apiFetch, apiRequest } from '../../providers/httpClient';

export interface PricingState {
  entries: PricingEntry[];
  groupRatio: Record<string, number>;
  /** The signed-in user's group; undefined for visitors (and until /api/user/self answers). */
  userGroup: string | undefined;
  loading: boolean;
}

/** The public pricing answer, plus the caller's own group when someone is signed in. */
export const usePricing = (): PricingState => {
  const notify = useApiNotify();
  const sessionUser = useSessionUser();
  const signedIn = sessionUser !== null;
  const [answer, setAnswer] = useState<PricingAnswer>({ data: [], group_ratio: {} });
  const [loading, setLoading] = useState(true);
  const [userGroup, setUserGroup] = useState<string | undefined>(undefined);

  useEffect(() => {
    let active = true;
    apiFetch<PricingEntry[]>('/api/pricing')
      .then((envelope) => {
        if (!active) return;
        const ratios = envelope.group_ratio;
        setAnswer({
          data: envelope.data ?? [],
          group_ratio: ratios && typeof ratios === 'object' ? (ratios as Record<string, number>) : {},
        });
      })
      .catch((error) => active && notify.error(error))
      .finally(() => active && setLoading(false));
    return () => {
      active = false;
    };
  }, [notify]);

  useEffect(() => {
    // A visitor must not call /api/user/self: its 401 would send them to the login screen.
    if (!signedIn) {
      setUserGroup(undefined);
      return;
    }
    let active = true;
    apiRequest<User>('/api/user/self')
      .then((self) => active && setUserGroup(self.group || 'default'))
      .catch((error) => active && notify.error(error));
    return () => {
      active = false;
    };
  }, [signedIn, notify]);

  return { entries: answer.data, groupRatio: answer.group_ratio, userGroup, loading };
};
