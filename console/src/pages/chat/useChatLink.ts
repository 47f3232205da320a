import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useApiNotify } from '../../hooks/useApiNotify';
import { apiRequest } from '../../providers/httpClient';
import { useStatus } from '../../providers/statusStore';

const TOKEN_STATUS_ENABLED = 1;
/** The server caps a token page at 100 rows (new-api's UI asked for 999 in one page). */
const PAGE_SIZE = 100;
const MAX_PAGES = 50;
/** How long the "no enabled token" notice stays before /token opens, as the spec gives it. */
export const NO_TOKEN_REDIRECT_MS = 1500;

interface TokenRow {
  key: string;
  status: number;
}

/** The key of the caller's first enabled token (list order), or null when none is enabled. */
const firstEnabledKey = async (): Promise<string | null> => {
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const rows = (await apiRequest<TokenRow[]>('/api/token/', { query: { p: page, size: PAGE_SIZE } })) ?? [];
    const enabled = rows.find((row) => row.status === TOKEN_STATUS_ENABLED);
    if (enabled) return enabled.key;
    if (rows.length < PAGE_SIZE) return null;
  }
  return null;
};

/** new-api's link: the chat app's settings in its URL fragment (never sent to the chat app's server). */
export const buildChatLink = (chatLink: string, key: string, serverAddress: string): string =>
  `${chatLink}/#/?settings={"key":"sk-${key}","url":"${encodeURIComponent(serverAddress)}"}`;

export type ChatLinkState =
  | { kind: 'loading' }
  | { kind: 'no-link' }
  | { kind: 'no-token' }
  | { kind: 'failed' }
  | { kind: 'ready'; url: string };

/**
 * The configured chat link (status `chat_link`, as new-api's /chat and /chat2link read it) opened with the first enabled token and this
 * server's address. With no enabled token: an error toast, then /token after 1.5 s.
 */
export const useChatLink = (): ChatLinkState => {
  const status = useStatus();
  const notify = useApiNotify();
  const navigate = useNavigate();
  const [key, setKey] = useState<string | null | undefined>(undefined);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let active = true;
    firstEnabledKey()
      .then((found) => active && setKey(found))
      .catch((error) => {
        if (!active) return;
        notify.error(error);
        setFailed(true);
      });
    return () => {
      active = false;
    };
  }, [notify]);

  useEffect(() => {
    if (key !== null) return undefined;
    notify.failure('pages.chat.no_token');
    const timer = window.setTimeout(() => navigate('/token'), NO_TOKEN_REDIRECT_MS);
    return () => window.clearTimeout(timer);
  }, [key, notify, navigate]);

  if (failed) return { kind: 'failed' };
  if (key === undefined) return { kind: 'loading' };
  if (key === null) return { kind: 'no-token' };
  const chatLink = (status.chat_link ?? '').trim();
  if (!chatLink) return { kind: 'no-link' };
  const serverAddress = (status.server_address ?? '').trim() || window.location.origin;
  return { kind: 'ready', url: buildChatLink(chatLink, key, serverAddress) };
};
