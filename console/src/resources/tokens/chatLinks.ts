import type { PublicStatus } from '../../lib/types';

export type ChatClient = 'next' | 'next-mj' | 'ama' | 'opencat';

/** The dropdown's entries, in new-api's order; the two web chats need their link to be set. */
export const CHAT_CLIENTS: Array<{ client: ChatClient; labelKey: string; needs?: 'chat_link' | 'chat_link2' }> = [
  { client: 'next', labelKey: 'app.tokens.chat_next_web', needs: 'chat_link' },
  { client: 'next-mj', labelKey: 'app.tokens.chat_next_mj', needs: 'chat_link2' },
  { client: 'ama', labelKey: 'app.tokens.chat_ama' },
  { client: 'opencat', labelKey: 'app.tokens.chat_opencat' },
];

/** The server's public address, or this page's origin when none is configured. */
export const serverAddressOf = (status: PublicStatus, origin: string): string => status.server_address || origin;

/** A web chat (ChatGPT Next Web and its kin) reads its key and API address from the `settings` of its hash route. */
const webChatUrl = (link: string, key: string, address: string) => `${link}/#/?settings={"key":"sk-${key}","url":"${address}"}`;

/**
 * The address that opens a chat client with a token, built as new-api builds it: the web chats get the raw
 * address in their settings, the AMA and OpenCat app links get it URL-encoded. Null when the client's link
 * is not configured.
 */
export const chatUrl = (client: ChatClient, key: string, status: PublicStatus, origin: string): string | null => {
  const address = serverAddressOf(status, origin);
  const encoded = encodeURIComponent(address);
  switch (client) {
    case 'ama':
      return `ama://set-api-key?server=${encoded}&key=sk-${key}`;
    case 'opencat':
      return `opencat://team/join?domain=${encoded}&token=sk-${key}`;
    case 'next-mj':
      return status.chat_link2 ? webChatUrl(status.chat_link2, key, address) : null;
    case 'next':
      return status.chat_link ? webChatUrl(status.chat_link, key, address) : null;
  }
};
