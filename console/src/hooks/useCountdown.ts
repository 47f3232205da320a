import { useCallback, useEffect, useState } from 'react';

/** A resend/retry lock: `start()` disables for `seconds` (30, as new-api's UI), counting down once a second. */
export const useCountdown = (seconds = 30) => {
  const [remaining, setRemaining] = useState(0);

  useEffect(() => {
    if (remaining <= 0) return undefined;
    const timer = window.setTimeout(() => setRemaining((value) => value - 1), 1000);
    return () => window.clearTimeout(timer);
  }, [remaining]);

  const start = useCallback(() => setRemaining(seconds), [seconds]);
  return { remaining, active: remaining > 0, start };
};
