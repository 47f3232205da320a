import { apiRequest } from '../providers/httpClient';

/** Starts the code-hosting OAuth flow; the server keeps the state in the session. */
export const startGitHubOAuth = async (clientId: string): Promise<void> => {
  const state = await apiRequest<string>('/api/oauth/state');
  const params = new URLSearchParams({ client_id: clientId, state, scope: 'user:email' });
  window.location.href = `https://github.com/login/oauth/authorize?${params.toString()}`;
};
