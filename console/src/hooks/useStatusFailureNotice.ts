import { useEffect } from 'react';
import { useStatusLoadFailed } from '../providers/statusStore';
import { useApiNotify } from './useApiNotify';

let noticeShown = false;

/** One 'cannot connect to server normally' toast per page load when the status fetch fails. */
export const useStatusFailureNotice = () => {
  const failed = useStatusLoadFailed();
  const { failure } = useApiNotify();
  useEffect(() => {
    if (failed && !noticeShown) {
      noticeShown = true;
      failure('app.errors.status_failed');
    }
  }, [failed, failure]);
};
